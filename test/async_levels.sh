#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# async_levels.sh - test_async with MPI initialized at MPI_THREAD_SERIALIZED
# and at MPI_THREAD_SINGLE: nonblocking requests then run as the level
# allows (darray_async lowered to it: files, none), with the same bytes, the
# same errors, and darray_explain saying which. test_async itself runs at
# MPI_THREAD_MULTIPLE in the ordinary suite. Runs at 1 and 2 processes
# unless DARRAY_TEST_NP says otherwise. Then test_async_order (2 processes)
# at MPI_THREAD_FUNNELED and SERIALIZED: requests posted on two files in
# crossed orders under darray_async = files (issue 39).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac

DARRAY_TEST_NP=${DARRAY_TEST_NP:-"1 2"}
export DARRAY_TEST_NP
status=0
for level in serialized single; do
  echo "== async_levels: MPI_THREAD_$level"
  DARRAY_TEST_THREAD=$level /bin/sh "$wrapper" "$top/test/test_async" ||
    status=1
done
for level in funneled serialized; do
  echo "== async_levels: test_async_order, MPI_THREAD_$level"
  DARRAY_TEST_NP=2 DARRAY_TEST_THREAD=$level /bin/sh "$wrapper" \
    "$top/test/test_async_order" || status=1
done
exit $status
