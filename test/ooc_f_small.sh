#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# ooc_f_small.sh - examples/ooc_f (the out-of-core heat sweep from Fortran,
# section by section through module darrayio) must write the same bytes as
# examples/ooc_heat (C), whose --verify compares its final file with an
# in-core run. Both run the grid of ooc_heat_small.sh (128 x 128, 3
# iterations, an 8 KiB budget: slabs of 3 rows, 5 to 16 times out of core,
# the last process at P=3 with an empty last slab) and a 26 x 26 grid for
# 30 iterations (2 KiB: slabs of 3), at each process count; both files of
# each (the last step and the one before) are compared with cmp. ooc_f runs
# with --verify too, and both programs answer -h and --help with a usage
# text and exit status 0.
#
# Process counts: 1 2 3 (DARRAY_TEST_NP overrides them). Exit status: 0, 1
# on failure, 77 (skip) when there is no MPI launcher or ooc_f was not
# built (configure found no Fortran compiler).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
if [ ! -x "$top/examples/ooc_f" ]; then
  echo "== ooc_f: not built (no Fortran compiler): skipped"
  exit 77
fi
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/ooc_f
mkdir -p "$tmp" || exit 99

# run NP PROGRAM N ITERS BUDGET: one program on one grid at NP processes,
# keeping its files, checking its final file against its in-core run.
run() {
  DARRAY_TEST_NP=$1 /bin/sh "$wrapper" "$top/examples/$2" -n "$3" \
    --iters "$4" --budget "$5" --dir "$tmp" --keep --verify
}

status=0
for prog in ooc_heat ooc_f; do
  for h in -h --help; do
    out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/$prog" $h)
    rh=$?
    [ $rh -eq 77 ] && exit 77
    if [ $rh -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^usage: .*$prog"
    then
      echo "== ooc_f: $prog $h: exit status $rh, output:"
      printf '%s\n' "$out"
      status=1
    fi
  done
done
# Two grids: ooc_heat_small.sh's, and a small one run long enough that
# the sums round (before some 25 iterations every value is a short binary
# fraction, so a stencil that adds in another order would still match).
for np in ${DARRAY_TEST_NP:-1 2 3}; do
  for grid in "128 3 8k" "26 30 2k"; do
    # shellcheck disable=SC2086
    set -- $grid
    rm -f "$tmp"/ooc_heat.*.dat "$tmp"/ooc_f.*.dat
    run "$np" ooc_heat "$@"
    rc=$?
    run "$np" ooc_f "$@"
    rf=$?
    what="NP=$np, -n $1 --iters $2 --budget $3"
    if [ $rc -ne 0 ] || [ $rf -ne 0 ]; then
      echo "== ooc_f: $what: a run failed (C $rc, Fortran $rf)"
      status=1
      continue
    fi
    for k in 0 1; do
      if cmp "$tmp/ooc_heat.$k.dat" "$tmp/ooc_f.$k.dat"; then
        echo "== ooc_f: $what: file $k is byte-identical to ooc_heat's"
      else
        echo "== ooc_f: $what: file $k differs from ooc_heat's"
        status=1
      fi
    done
  done
done
rm -rf "$tmp"
exit $status
