#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# btio_small.sh - run the btio example (NAS BTIO pattern, class S) through the
# test wrapper. At a perfect-square process count the run must pass: it
# checks the file on disk at every BTIO offset and every value it reads
# back. At any other count it must stop cleanly: a message saying that BT
# needs a perfect square, and exit status 2.
#
# At a perfect square the dumps are also written with --nonblocking
# (darray_iwrite while the next dump is computed), once as the library
# chooses (a thread per file under MPI_THREAD_MULTIPLE) and once with
# DARRAYIO_HINTS=darray_async=files (the agreement when posted, only file
# calls in the background): each run checks itself as the blocking one
# does, must say in its output that it writes nonblocking and what
# overlaps, and its file must be byte-identical to the blocking run's
# (cmp). -h and --help must print the usage and exit 0.
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

# expect NP TEXT OUTPUT: OUTPUT must contain TEXT.
expect() {
  if printf '%s\n' "$3" | grep -F -- "$2" >/dev/null; then
    return 0
  fi
  echo "== btio: NP=$1: output lacks '$2'"
  return 1
}

status=0
for h in -h --help; do
  out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$prog" $h)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  printf '%s\n' "$out"
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^usage: .*btio" ||
     ! printf '%s\n' "$out" | grep -q -- "--nonblocking"; then
    echo "== btio: $h: expected the usage (with --nonblocking), exit 0"
    status=1
  fi
done

blk=btio_small.blocking.dat
nb=btio_small.nonblocking.dat
for np in ${DARRAY_TEST_NP:-1 2 4}; do
  if is_square "$np"; then
    rm -f "$blk" "$nb"
    DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$prog" --class S --verify-file \
      --file "$blk" --keep
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || status=1
    for async in automatic files; do
      out=$(DARRAYIO_HINTS=darray_async=$async DARRAY_TEST_NP=$np \
        /bin/sh "$wrapper" "$prog" --class S --verify-file --nonblocking \
        --file "$nb" --keep 2>&1)
      rn=$?
      printf '%s\n' "$out"
      [ $rn -eq 0 ] || status=1
      expect "$np" "btio: nonblocking writes (MPI thread level" "$out" ||
        status=1
      # what overlaps: files as asked, or, left to the library, a thread
      # per file when MPI gave MULTIPLE
      want="btio: nonblocking requests: "
      if [ $async = files ]; then
        want="${want}files"
      elif printf '%s\n' "$out" | grep -q "thread level MULTIPLE"; then
        want="${want}thread"
      fi
      expect "$np" "$want" "$out" || status=1
      expect "$np" "btio: verified 12 dumps x 12^3 points, OK" "$out" ||
        status=1
      if [ $rc -eq 0 ] && [ $rn -eq 0 ] && cmp "$blk" "$nb"; then
        echo "== btio: NP=$np: darray_async=$async: the nonblocking file" \
             "is byte-identical to the blocking one"
      else
        echo "== btio: NP=$np: darray_async=$async: the nonblocking file" \
             "differs from the blocking one (or a run failed)"
        status=1
      fi
      rm -f "$nb"
    done
    rm -f "$blk"
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
