#!/bin/sh
# btio_small.sh - run the btio example (NAS BTIO pattern, class S) through the
# test wrapper. At a perfect-square process count the run must pass: it
# checks the file on disk at every BTIO offset and every value it reads
# back. At any other count it must stop cleanly: a message saying that BT
# needs a perfect square, and exit status 2.
#
# Process counts: 1 2 4 (1 and 4 run the pattern, 2 checks the refusal);
# DARRAY_TEST_NP overrides them. Exit status: 0, 1 on failure, 77 (skip)
# when the wrapper finds no MPI launcher.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
prog="$top/examples/btio"

# Run where the example may leave its data file: the test scratch directory.
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99

is_square() {
  q=1
  while [ $((q * q)) -lt "$1" ]; do q=$((q + 1)); done
  [ $((q * q)) -eq "$1" ]
}

status=0
for np in ${DARRAY_TEST_NP:-1 2 4}; do
  if is_square "$np"; then
    DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$prog" --class S --verify-file \
      --file btio_small.dat
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || status=1
  else
    out=$(DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$prog" --class S \
      --file btio_small.dat 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ $rc -eq 77 ] && exit 77
    if printf '%s\n' "$out" | grep -q "needs a perfect square" &&
       printf '%s\n' "$out" | grep -q "FAILED: exit status 2"; then
      echo "== btio: NP=$np refused as expected"
    else
      echo "== btio: NP=$np: expected a clean refusal with exit status 2"
      status=1
    fi
  fi
done
exit $status
