#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# dist3d_npz.sh - examples/dist3d --file X.npz / X.npy --keep picks the
# format from the suffix; NumPy (/usr/bin/python3) loads what it wrote and
# every element is compared with the closed form the example writes,
# 7*((i*N + j)*N + k) for repetition 0; the archive passes `python3 -m
# zipfile -t` and (when installed) `unzip -t`. Then the example reads its
# own .npz back with --ops read at another process count (a description
# of another distribution over the member NumPy just checked).
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher or without
# python3 and NumPy.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: no $py with NumPy"
  exit 77
fi

n=12
status=0
# check FILE NP: NumPy's view of the file against the closed form.
check() {
  "$py" - "$1" "$n" "$2" <<'PY' || status=1
import sys, numpy
path, n, np_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if path.endswith(".npz"):
    with numpy.load(path) as z:
        names = sorted(z.files)
        u = z["u"]
    assert names == ["u"], names
else:
    u = numpy.load(path, mmap_mode="r")
want = 7 * numpy.arange(n ** 3, dtype=numpy.int64).reshape(n, n, n)
assert u.shape == (n, n, n), u.shape
assert u.dtype == numpy.dtype("<i4"), u.dtype
bad = numpy.argwhere(u != want)
if len(bad):
    i, j, k = bad[0]
    sys.exit("== %s NP=%s: %d elements differ, first u[%d,%d,%d] = %d, "
             "expected %d" % (path, np_, len(bad), i, j, k, u[i, j, k],
                              want[i, j, k]))
print("== %s NP=%s: NumPy reads %d elements, all equal to the closed form"
      % (path, np_, n ** 3))
PY
}

for np in ${DARRAY_TEST_NP:-2 3}; do
  for suffix in npz npy; do
    file=dist3d_npz.$$.$np.$suffix
    rm -f "$file"
    DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$top/examples/dist3d" -n $n \
      --file "$file" --keep
    rc=$?
    [ $rc -eq 77 ] && { rm -f "$file"; exit 77; }
    [ $rc -eq 0 ] || status=1
    check "$file" "$np"
  done
  file=dist3d_npz.$$.$np.npz
  "$py" -m zipfile -t "$file" >/dev/null ||
    { echo "== $file: python3 -m zipfile -t fails"; status=1; }
  if command -v unzip >/dev/null; then
    unzip -tq "$file" || { echo "== $file: unzip -t fails"; status=1; }
  fi
  # read back by another number of processes (another distribution)
  DARRAY_TEST_NP=$((np == 2 ? 4 : 1)) /bin/sh "$wrapper" \
    "$top/examples/dist3d" -n $n --file "$file" --keep --ops read ||
    status=1
  rm -f "dist3d_npz.$$.$np.npz" "dist3d_npz.$$.$np.npy"
done
exit $status
