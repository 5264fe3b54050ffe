#!/bin/sh
# dist3d_small.sh - run the dist3d example (which verifies what it reads
# back) on a small array, through the test wrapper: at 1, 2, 3 and 4
# processes unless DARRAY_TEST_NP says otherwise. Fails if any run fails.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac

# Run where the example may leave its data file: the test scratch directory.
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99

exec /bin/sh "$wrapper" "$top/examples/dist3d" -n 20
