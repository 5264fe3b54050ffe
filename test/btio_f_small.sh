#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# btio_f_small.sh - examples/btio_f (the BTIO pattern from Fortran, written
# straight from BT's u array) must write the same bytes as examples/btio
# (C), which checks its own file at every BTIO offset (--verify-file):
# both run class S with 3 dumps at each process count, and the two files
# are compared with cmp. btio_f also reads its dumps back and checks them.
#
# Process counts: 1 4 (DARRAY_TEST_NP overrides them). Exit status: 0, 1
# on failure, 77 (skip) when there is no MPI launcher.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99

status=0
# -h and --help print the usage on standard output and exit with 0
for h in -h --help; do
  out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/btio_f" $h 2>&1)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  case $rc:$out in
    0:*"usage: btio_f"*) echo "== btio_f $h: usage, status 0" ;;
    *) echo "== btio_f $h: status $rc, output: $out"; status=1 ;;
  esac
done
for np in ${DARRAY_TEST_NP:-1 4}; do
  rm -f btio_c.dat btio_f.dat
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$top/examples/btio" --class S \
    --dumps 3 --verify-file --write-only --file btio_c.dat
  rc=$?
  [ $rc -eq 77 ] && exit 77
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$top/examples/btio_f" --class S \
    --dumps 3 --file btio_f.dat --keep
  rf=$?
  if [ $rc -ne 0 ] || [ $rf -ne 0 ]; then
    echo "== btio_f: NP=$np: a run failed (C $rc, Fortran $rf)"
    status=1
  elif cmp btio_c.dat btio_f.dat; then
    echo "== btio_f: NP=$np: the Fortran file is byte-identical to the C one"
  else
    echo "== btio_f: NP=$np: the files differ"
    status=1
  fi
done
rm -f btio_c.dat btio_f.dat
exit $status
