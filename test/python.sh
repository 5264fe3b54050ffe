#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# python.sh - the Python package (python/darrayio, issue #36) over this
# build's shared library, with Debian's /usr/bin/python3, NumPy and mpi4py.
#
# When this build's MPI is the one mpi4py runs on (the Open MPI build here:
# Debian's python3-mpi4py is built on Open MPI), python/tests/
# test_roundtrip.py runs at 1, 2 and 3 processes (DARRAY_TEST_NP changes
# that): round trips of every dtype, distributions, storage orders, ghosts,
# sections, nonblocking requests and a .npz against a NumPy oracle, and
# errors raised alike on every process. When it is not (the MPICH build),
# the package must refuse to load with an ImportError naming both MPI
# libraries, not crash: that is checked instead.
#
# Exit status: 0, 1 on failure, 77 (skip) without python3, NumPy or
# mpi4py, without a shared library, or in a sanitizer build.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
src=$(cd "${srcdir:-.}" && pwd)
wrapper=${DARRAY_TEST_WRAPPER:-$src/test/mpirun.sh}
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/python.$$
py=/usr/bin/python3
lib=$top/src/.libs/libdarrayio.so
if ! "$py" -c 'import numpy, mpi4py.MPI' 2>/dev/null; then
  echo "SKIP: no $py with NumPy and mpi4py"
  exit 77
fi
if [ ! -f "$lib" ]; then
  echo "SKIP: no shared library at $lib"
  exit 77
fi
# a sanitizer build's library needs its runtime loaded first, which
# python3 is not built with
if command -v ldd >/dev/null 2>&1 && ldd "$lib" | grep -q 'lib[at]san'; then
  echo "SKIP: $lib is a sanitizer build, which python3 cannot load"
  exit 77
fi
DARRAYIO_LIBRARY=$lib
PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export DARRAYIO_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE

mine=$(DARRAYIO_LIBRARY=$lib "$py" -c '
import ctypes, sys
l = ctypes.CDLL(sys.argv[1]); l.darray_mpi_library.restype = ctypes.c_char_p
print(l.darray_mpi_library().decode())' "$lib") || exit 1
theirs=$("$py" -c 'from mpi4py import MPI; print(MPI.get_vendor()[0])')
echo "== the library: $mine; mpi4py: $theirs"
case $mine in
  "$theirs"*) ;;
  *)
    # another MPI: the import is refused, naming both
    out=$("$py" -c 'import darrayio' 2>&1)
    rc=$?
    echo "$out" | tail -n 2
    if [ $rc -ne 1 ]; then
      echo "FAIL: import with $mine under mpi4py on $theirs: exit $rc, expected 1 (an ImportError)"
      exit 1
    fi
    if ! echo "$out" | grep -q "ImportError: darrayio: .*$mine.*$theirs"; then
      echo "FAIL: the ImportError does not name both MPI libraries"
      exit 1
    fi
    echo "== import refused as it must be (the round trips need the $theirs build)"
    exit 0
    ;;
esac

mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
: "${DARRAY_TEST_NP:=1 2 3}"
export DARRAY_TEST_NP
/bin/sh "$wrapper" "$py" "$src/python/tests/test_roundtrip.py" "$tmp" ||
  exit 1

# examples/dist3d.py writes the bytes examples/dist3d writes (raw, .npz)
if [ -x "$top/examples/dist3d" ]; then
  for f in d.raw d.npz; do
    for prog in "$top/examples/dist3d" "$py $src/examples/dist3d.py"; do
      out=$tmp/c_$f
      case $prog in "$py"*) out=$tmp/p_$f ;; esac
      # shellcheck disable=SC2086 # prog is a command and its script
      DARRAY_TEST_NP=2 /bin/sh "$wrapper" $prog -n 24 -g 1x1x2 --reps 2 \
        --file "$out" --keep >"$tmp/out" 2>&1 || {
        cat "$tmp/out"; echo "FAIL: $prog --file $out"; exit 1; }
    done
    if ! cmp "$tmp/c_$f" "$tmp/p_$f"; then
      echo "FAIL: examples/dist3d.py and examples/dist3d wrote different $f"
      exit 1
    fi
    echo "== dist3d.py and dist3d wrote the same $f"
  done
fi

# examples/btio_post.py reduces a BTIO file at other process counts than
# the one that wrote it, checked against numpy.fromfile of the whole file
if [ -x "$top/examples/btio" ]; then
  DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/btio" --class S \
    --dumps 3 --write-only --keep --file "$tmp/bt.dat" >"$tmp/out" 2>&1 || {
    cat "$tmp/out"; echo "FAIL: examples/btio --write-only"; exit 1; }
  DARRAY_TEST_NP="2 3" /bin/sh "$wrapper" "$py" "$src/examples/btio_post.py" \
    "$tmp/bt.dat" --class S --check >"$tmp/out" 2>&1
  rc=$?
  grep 'btio_post' "$tmp/out"
  if [ $rc -ne 0 ] || [ "$(grep -c 'btio_post: OK' "$tmp/out")" -ne 2 ]; then
    cat "$tmp/out"; echo "FAIL: examples/btio_post.py"; exit 1
  fi
fi
