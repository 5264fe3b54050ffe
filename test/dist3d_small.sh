#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# dist3d_small.sh - run the dist3d example on a 20^3 array through the test
# wrapper, at 1, 2, 3 and 4 processes unless DARRAY_TEST_NP says otherwise.
#
# The example checks what it reads back against the block the library says
# each process owns; that alone would pass if the library placed every
# block wrongly in the file and read it back from the same wrong place. So
# after each run the file itself is checked here, from the layout alone:
# a row-major N^3 array of 4-byte integers (host byte order) in which
# element e (= (i*N + j)*N + k) holds 7*e, the example's value in its
# first repetition. od prints the integers, awk compares each with 7*e.
# -h and --help must print the usage and exit 0.
#
# Exit status: 0, 1 on failure, 77 (skip) when the wrapper finds no MPI
# launcher.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac

# Run where the example leaves its data file: the test scratch directory.
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99

n=20
file=dist3d_small.$$.dat

# The file against the closed form: every element, and nothing more.
check_file() {
  if [ ! -f "$file" ]; then
    echo "== dist3d: NP=$1: no file $file"
    return 1
  fi
  od -An -v -t d4 "$file" | awk -v n="$n" -v np="$1" '
    { for (f = 1; f <= NF; f++) {
        if ($f != 7 * e && bad++ < 5)
          printf "== dist3d: NP=%s: element %d is %s, expected %d\n",
                 np, e, $f, 7 * e
        e++
      } }
    END {
      if (e != n * n * n) {
        printf "== dist3d: NP=%s: file holds %d elements, expected %d\n",
               np, e, n * n * n
        bad++
      }
      if (bad) exit 1
      printf "== dist3d: NP=%s: file verified, %d elements\n", np, e
    }'
}

status=0
# -h and --help print the usage on stdout and exit 0.
for h in -h --help; do
  out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$top/examples/dist3d" $h)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^usage: .*dist3d"
  then
    echo "== dist3d: $h: exit status $rc, output:"
    printf '%s\n' "$out"
    status=1
  fi
done
for np in ${DARRAY_TEST_NP:-1 2 3 4}; do
  rm -f "$file"
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$top/examples/dist3d" -n $n \
    --file "$file" --keep
  rc=$?
  [ $rc -eq 77 ] && { rm -f "$file"; exit 77; }
  [ $rc -eq 0 ] || status=1
  check_file "$np" || status=1
done
rm -f "$file"
exit $status
