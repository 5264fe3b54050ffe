#!/bin/sh
# ooc_heat_small.sh - run the out-of-core heat example on a grid 8x larger
# per process than its in-core budget at 2 processes (16x at 1), with
# --verify: rank 0 repeats the computation in core and compares every value
# of the final file. Runs at 1, 2 and 3 processes unless DARRAY_TEST_NP
# says otherwise.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac

tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" || exit 99

DARRAY_TEST_NP=${DARRAY_TEST_NP:-"1 2 3"}
export DARRAY_TEST_NP
exec /bin/sh "$wrapper" "$top/examples/ooc_heat" -n 128 --iters 3 \
  --budget 8k --dir "$tmp" --verify
