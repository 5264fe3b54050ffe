#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# ooc_heat_small.sh - run the out-of-core heat example on a grid 8x larger
# per process than its in-core budget at 2 processes (16x at 1), with
# --verify: rank 0 repeats the computation in core and compares every value
# of the final file.
#
# Then the nonblocking variants on the same grid: --prefetch (the next slab
# read with darray_iread_section while this one is computed), and
# --prefetch --write-behind (each slab also written with
# darray_iwrite_section while the next is computed), the latter both as the
# library chooses (a thread per file under MPI_THREAD_MULTIPLE) and with
# DARRAYIO_HINTS=darray_async=files (only file calls in the background).
# Each verifies itself and must keep the library within its budget (the
# example fails otherwise); both its files (the last step and the one
# before) must be byte-identical to the blocking run's (cmp), and its
# output must name the mode. --help must mention both options.
#
# Runs at 1, 2 and 3 processes unless DARRAY_TEST_NP says otherwise. Exit
# status: 0, 1 on failure, 77 (skip) when there is no MPI launcher.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
prog="$top/examples/ooc_heat"

tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/ooc_heat_small
mkdir -p "$tmp/blocking" "$tmp/nonblocking" || exit 99

out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$prog" --help)
rc=$?
[ $rc -eq 77 ] && exit 77
status=0
for want in "usage: " --prefetch --write-behind; do
  if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q -- "$want"; then
    echo "== ooc_heat: --help: exit status $rc, no '$want' in:"
    printf '%s\n' "$out"
    status=1
  fi
done

# run NP DIR [OPTIONS...]: one run on the grid, keeping its files in DIR.
run() {
  np=$1 dir=$2
  shift 2
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$prog" -n 128 --iters 3 \
    --budget 8k --dir "$dir" --keep --verify "$@"
}

for np in ${DARRAY_TEST_NP:-1 2 3}; do
  rm -f "$tmp"/blocking/*.dat
  run "$np" "$tmp/blocking"
  rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -eq 0 ] || { status=1; continue; }
  for variant in "automatic --prefetch" \
                 "automatic --prefetch --write-behind" \
                 "files --prefetch --write-behind"; do
    # shellcheck disable=SC2086
    set -- $variant
    async=$1
    shift
    what="NP=$np, darray_async=$async $*"
    rm -f "$tmp"/nonblocking/*.dat
    log=$(DARRAYIO_HINTS=darray_async=$async run "$np" "$tmp/nonblocking" \
      "$@" 2>&1)
    rn=$?
    printf '%s\n' "$log"
    mode="prefetched reads, blocking writes"
    [ $# -eq 2 ] && mode="prefetched reads, write-behind writes"
    if [ $rn -ne 0 ]; then
      echo "== ooc_heat: $what: the run failed"
      status=1
      continue
    fi
    said="ooc_heat: nonblocking requests: "
    [ "$async" = files ] && said="${said}files"
    for want in "ooc_heat: $mode (MPI thread level" "$said" \
                "ooc_heat: verified"; do
      if ! printf '%s\n' "$log" | grep -F -- "$want" >/dev/null; then
        echo "== ooc_heat: $what: output lacks '$want'"
        status=1
      fi
    done
    for k in 0 1; do
      if cmp "$tmp/blocking/ooc_heat.$k.dat" \
             "$tmp/nonblocking/ooc_heat.$k.dat"; then
        echo "== ooc_heat: $what: file $k is byte-identical to the" \
             "blocking run's"
      else
        echo "== ooc_heat: $what: file $k differs from the blocking run's"
        status=1
      fi
    done
  done
done
rm -rf "$tmp"
exit $status
