#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# fortran_stop.sh - a Fortran call without ierr that fails stops the
# program: test_fortran_stop opens a missing file without ierr; each run
# must fail (nonzero exit status), print
#   darrayio: darray_file_open: DARRAY_ENOENT: ...no/such/dir/stop.dat...
# on the error unit, and never reach the line after the call.
#
# Process counts: 1 2 (DARRAY_TEST_NP overrides them). Exit status: 0, 1 on
# failure, 77 (skip) when there is no MPI launcher.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
prog="$top/test/test_fortran_stop"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99

status=0
for np in ${DARRAY_TEST_NP:-1 2}; do
  out=$(DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$prog" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ $rc -eq 77 ] && exit 77
  if [ $rc -eq 0 ]; then
    echo "== fortran_stop: NP=$np: the program did not fail"
    status=1
  elif ! printf '%s\n' "$out" |
      grep -q '^darrayio: darray_file_open: DARRAY_ENOENT: .*no/such/dir/stop\.dat'; then
    echo "== fortran_stop: NP=$np: no 'darrayio: darray_file_open: DARRAY_ENOENT' message"
    status=1
  elif printf '%s\n' "$out" | grep -q 'still running'; then
    echo "== fortran_stop: NP=$np: the program went on after the failure"
    status=1
  else
    echo "== fortran_stop: NP=$np stopped with the message, as expected"
  fi
done
exit $status
