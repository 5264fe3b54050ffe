#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# finalize.sh - programs that call MPI_Finalize with files still open
# (issue #38; test/api/test_finalize.c has the cases): each run must end
# with exit status 0 (no crash, no hang: test/mpirun.sh's time limit fails
# it), and the files it left are then checked here, after the program,
# against the closed form: raw files byte for byte with NumPy
# (/usr/bin/python3), `.npz` archives with numpy.load (every value) and
# `unzip -t` (every member's CRC-32). The pending requests run at each
# thread level (MPI_THREAD_MULTIPLE: the I/O thread; serialized and
# single: the program's thread), since each completes them differently.
# The library's MPI_Finalize closes the files first; runs ending with
# PMPI_Finalize check the attribute on MPI_COMM_SELF that closes them when
# a program's MPI_Finalize does not reach the library's. Runs at 1 and 2 processes unless DARRAY_TEST_NP says otherwise.
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher or without
# python3 and NumPy.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: no $py with NumPy"
  exit 77
fi
: "${DARRAY_TEST_TIMEOUT:=120}"
export DARRAY_TEST_TIMEOUT
status=0

# check CASE DIR NP: the files case CASE left in DIR.
check() {
  "$py" - "$@" <<'PY' || status=1
import sys, numpy
case, d, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
G0, G1, GW = 96, 1024, 1000
def closed(k):
    return (numpy.arange(G0 * G1, dtype=numpy.float64) + k / 4.0).reshape(G0, G1)
def same(what, got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        sys.exit("== %s: %s is %s %s, expected %s %s" % (case, what, got.dtype,
                 got.shape, want.dtype, want.shape))
    bad = numpy.flatnonzero(got.ravel() != want.ravel())
    if len(bad):
        sys.exit("== %s: %s: %d elements differ, first [%d] = %r, expected %r"
                 % (case, what, len(bad), bad[0], got.ravel()[bad[0]],
                    want.ravel()[bad[0]]))
def raw(name, dtype, count, offset=0):
    with open(d + "/" + name, "rb") as f:
        data = f.read()
    n = count * numpy.dtype(dtype).itemsize
    if len(data) < offset + n:
        sys.exit("== %s: %s has %d bytes, expected at least %d"
                 % (case, name, len(data), offset + n))
    return numpy.frombuffer(data[offset:offset + n], dtype=dtype), data
w = (3 * numpy.arange(GW) - 7).astype("<i4")
if case == "pending":
    a0, data = raw("pending.raw", "<f8", G0 * G1)
    same("array 0", a0.reshape(G0, G1), closed(0))
    a1, _ = raw("pending.raw", "<f8", G0 * G1, G0 * G1 * 8 + 24)
    same("array 1", a1.reshape(G0, G1), closed(1))
    if len(data) != 2 * G0 * G1 * 8 + 24:
        sys.exit("== pending: %d bytes" % len(data))
elif case == "raw":
    for name in ("raw.raw", "closed.raw"):
        a, data = raw(name, "<f8", G0 * G1)
        same(name, a.reshape(G0, G1), closed(0))
    for r in range(np_):
        a, _ = raw("self.%d.raw" % r, "<i4", GW)
        same("self.%d.raw" % r, a, w + r)
elif case == "npz":
    with numpy.load(d + "/npz.npz") as z:
        if sorted(z.files) != ["u", "w"]:
            sys.exit("== npz: members %s" % sorted(z.files))
        same("u", z["u"], closed(0))
        same("w", z["w"], w)
elif case == "failed":
    with numpy.load(d + "/failed.npz") as z:
        if sorted(z.files) != ["u", "v"]:
            sys.exit("== failed: members %s" % sorted(z.files))
        same("u", z["u"], closed(0))
        v = z["v"]
    # v's write failed: each byte is its old value (0) or the new one
    if v.shape != (G0, G1) or v.dtype != numpy.float64:
        sys.exit("== failed: v is %s %s" % (v.dtype, v.shape))
    got = v.view(numpy.uint8).ravel()
    new = closed(2).view(numpy.uint8).ravel()
    bad = numpy.flatnonzero((got != new) & (got != 0))
    if len(bad):
        sys.exit("== failed: v byte %d is %d, neither 0 nor %d"
                 % (bad[0], got[bad[0]], new[bad[0]]))
print("== finalize %s NP=%d: the files are as written" % (case, np_))
PY
}

# run CASE NP [LEVEL [mpi|pmpi]]: the program, then the check of what it
# left. pmpi: the program calls PMPI_Finalize, so the attribute on
# MPI_COMM_SELF closes the files, not the library's MPI_Finalize.
run() {
  dir=$tmp/finalize.$$.$1.$2.${3:-multiple}.${4:-mpi}
  rm -rf "$dir" && mkdir -p "$dir" || exit 99
  DARRAY_TEST_NP=$2 DARRAY_TEST_THREAD=${3:-multiple} \
    DARRAY_TEST_FINALIZE=${4:-mpi} /bin/sh "$wrapper" \
    "$top/test/test_finalize" "$1" "$dir"
  rc=$?
  [ $rc -eq 77 ] && exit 77
  if [ $rc -ne 0 ]; then
    echo "== finalize $1 NP=$2 ${3:-multiple} ${4:-mpi}: the program failed ($rc)"
    status=1
  elif [ "$1" != none ]; then
    [ "$1" = failed ] && [ ! -e "$dir/failed.npz" ] ||
      check "$1" "$dir" "$2"
    for z in "$dir"/*.npz; do
      [ -e "$z" ] && command -v unzip >/dev/null || continue
      unzip -tq "$z" || { echo "== $z: unzip -t fails"; status=1; }
    done
  fi
  rm -rf "$dir"
}

for np in ${DARRAY_TEST_NP:-1 2}; do
  for level in multiple serialized single; do
    run pending "$np" "$level"
  done
  for c in raw npz failed none; do
    run "$c" "$np"
  done
  # the attribute's path: not with requests running under
  # MPI_THREAD_MULTIPLE, which only the library's MPI_Finalize makes safe
  # under MPICH (src/darray_final.c)
  run pending "$np" serialized pmpi
  for c in raw npz failed; do
    run "$c" "$np" multiple pmpi
  done
done
exit $status
