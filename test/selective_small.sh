#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# selective_small.sh - run the selective-collective example (which verifies
# every read against the values the producer wrote) on a small array,
# through the test wrapper: at 2 processes unless DARRAY_TEST_NP says
# otherwise. The advisor's order and the strategies auto picks are checked
# in the output: rows (weight 3) conform to C order and are read directly,
# columns interleave and are read with two-phase I/O (at 512 x 512: below
# about 200 KiB at 2 processes, sieving the whole file costs less than a
# two-phase cycle, and the planner reads such columns through sieving).
#
# The planner's choice depends on what a synchronization costs
# (darray_cb_cycle_ns), which the library sets at open from whether the
# processes have a core each: 10 us if so, 1 ms if not. That answer is the
# MPI's launcher's as much as the machine's (Open MPI binds each process to
# one core, and a process bound to one core counts one), so the test gives
# the cost of a core per process, through DARRAYIO_HINTS, and checks what
# the planner promises for it. -h and --help must print the usage and
# exit 0.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac

tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" || exit 99
out="$tmp/selective_small.out"

# -h and --help print the usage on stdout and exit 0.
for h in -h --help; do
  help=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/selective" $h)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  if [ $rc -ne 0 ] ||
     ! printf '%s\n' "$help" | grep -q "^usage: .*selective"; then
    echo "selective_small.sh: $h: exit status $rc, output:"
    printf '%s\n' "$help"
    exit 1
  fi
done

DARRAY_TEST_NP=${DARRAY_TEST_NP:-2}
DARRAYIO_HINTS=darray_cb_cycle_ns=10000
export DARRAY_TEST_NP DARRAYIO_HINTS
/bin/sh "$wrapper" "$top/examples/selective" -n 512 --reps 2 \
  --weights 3,1 --dir "$tmp" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || exit $rc
case $DARRAY_TEST_NP in
  2) # one process count: check what the advisor and the planner chose
    for want in "storage order 0 1 (C, the advisor's choice)" \
                "rows: BLOCK rows, 3 reads per repetition: conforming" \
                "cols: BLOCK columns, 1 reads per repetition: interleaved" \
                "verified 30 reads, OK"; do
      if ! grep -F -- "$want" "$out" >/dev/null; then
        echo "selective_small.sh: output lacks '$want'"
        exit 1
      fi
    done
    # auto: independent for the rows (direct runs, or the file's pages
    # mapped: both processes on one node), for the columns a strategy made
    # for interleaved extents (two-phase, or rows: one group of both
    # processes, or the mapped pages)
    if ! grep -E -- "(direct|mapped)/(twophase|rows|mapped)" "$out" \
        >/dev/null; then
      echo "selective_small.sh: output lacks an independent strategy for" \
        "the rows and an interleaving one for the columns"
      exit 1
    fi ;;
esac
exit 0
