#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# bench_small.sh - bench/darrayio-bench on a tiny case, so that its
# methods keep working between measurements: -h/--help prints the usage and
# exits with 0; DIST3D N=16 and the slab sweep (also in groups of 3 slabs
# of 2 planes: the last step's third slab empty), every darrayio method, the
# nonblocking ones (darrayio-async, mpiio-l3-async) with a compute phase
# (--compute) and --fsync, one run each, write and read: the benchmark
# checks every byte it wrote (on disk) and read (in memory) against its
# closed form and exits with 1 on a wrong byte (VERIFY FAILED) or a failed
# call; every method must report status=ok (or unavailable, for
# mpiio-l3-async on slabs), and the nonblocking ones an overlap= field.
# The many-arrays pattern (multi: 3 arrays of 16^3 one after another,
# grid 1x1xNP) runs every method, so that each one's file check covers
# every array: all but darrayio-npz (unavailable) report status=ok,
# bytes= counts the 3 arrays, and the MPI-IO levels 2 and 3 make one call
# per array and rank (calls=3*NP). Methods with hints of their own:
# "darrayio-twophase[cb_buffer_size=4096,darray_cb_pipeline=disable]" and
# the same with '@' run beside each other, the RESULT lines keep the
# names, and the hints take effect (peak_temp=4096); an empty bracket list
# is refused as a bad option. On a striped subfile set (two-phase, logical
# and layout-aware domains) the bytes are checked through the layout's
# closed form, and afterwards nothing but the log is left in --dir (the
# benchmark deletes its files, subfiles included, with darray_file_delete).
# Each --data kind (index, smooth, random) is written and read on int32
# and doubles (dist3d --type int32 and double, btio class S), every
# measurement status=ok, the header naming the kind; an unknown kind is
# refused.
#
# Process counts: 1 2 (DARRAY_TEST_NP overrides them).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/bench_small.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
bench=$top/bench/darrayio-bench

status=0
for h in -h --help; do
  out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$bench" $h 2>&1)
  rc=$?
  [ $rc -eq 77 ] && exit 77
  case $rc:$out in
    0:*"usage: darrayio-bench"*) echo "== darrayio-bench $h: usage, status 0" ;;
    *) echo "== darrayio-bench $h: status $rc: $out"; status=1 ;;
  esac
done

methods=darrayio-auto,darrayio-direct,darrayio-sieve,darrayio-twophase
methods=$methods,darrayio-static,darrayio-groups,darrayio-async,mpiio-l3,mpiio-l3-async
for np in ${DARRAY_TEST_NP:-1 2}; do
  for pat in "--pattern dist3d -n 16" "--pattern slabs -n 16 --slab 4" \
    "--pattern slabs -n 16 --slab 2 --slab-group 3"; do
    log=$tmp/out
    # shellcheck disable=SC2086
    DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$bench" $pat --runs 1 \
      --compute 0.001 --fsync --dir "$tmp" --methods "$methods" >"$log" 2>&1
    rc=$?
    n_ok=$(grep -c '^RESULT .*status=ok' "$log")
    n_bad=$(grep '^RESULT' "$log" | grep -v 'status=ok' |
      grep -vc 'method=mpiio-l3-async .*status=unavailable')
    n_ov=$(grep -c '^RESULT .*method=darrayio-async .*overlap=' "$log")
    if [ $rc -eq 0 ] && [ "$n_ok" -ge 14 ] && [ "$n_bad" -eq 0 ] &&
       [ "$n_ov" -eq 2 ]; then
      echo "== darrayio-bench $pat at NP=$np: $n_ok measurements ok"
    else
      echo "== darrayio-bench $pat at NP=$np: FAILED (status $rc, $n_ok ok," \
        "$n_bad not ok, $n_ov overlap fields)"
      cat "$log"
      status=1
    fi
  done
  log=$tmp/out
  bytes=$((3 * 16 * 16 * 16 * 4)) calls=$((3 * np))
  DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$bench" --pattern multi -n 16 \
    --arrays 3 -g "1x1x$np" --runs 1 --compute 0.001 --fsync --dir "$tmp" \
    >"$log" 2>&1
  rc=$?
  n_ok=$(grep -c '^RESULT .*status=ok' "$log")
  n_bad=$(grep '^RESULT' "$log" | grep -v 'status=ok' |
    grep -v 'method=darrayio-npz .*status=unavailable' |
    grep -vc 'method=darrayio-rows np=1 .*status=unavailable')
  want_ok=34
  [ "$np" -eq 1 ] && want_ok=32 # rows: one process forms no group
  n_bytes=$(grep '^RESULT' "$log" | grep -vc " bytes=$bytes ")
  n_calls=$(grep -E '^RESULT .*method=mpiio-l(2|3|3-nocb|3-async) ' "$log" |
    grep -c " calls=$calls ")
  n_ov=$(grep -Ec '^RESULT .*method=(darrayio|mpiio-l3)-async .*overlap=' \
    "$log")
  if [ $rc -eq 0 ] && [ "$n_ok" -eq "$want_ok" ] && [ "$n_bad" -eq 0 ] &&
     [ "$n_bytes" -eq 0 ] && [ "$n_calls" -eq 8 ] && [ "$n_ov" -eq 4 ]; then
    echo "== darrayio-bench --pattern multi at NP=$np: $n_ok measurements ok"
  else
    echo "== darrayio-bench --pattern multi at NP=$np: FAILED (status $rc," \
      "$n_ok ok, $n_bad not ok, $n_bytes bytes= other than $bytes," \
      "$n_calls MPI-IO calls=$calls, $n_ov overlap fields)"
    cat "$log"
    status=1
  fi
done

# methods with hints of their own, written with brackets and with '@'
v1='darrayio-twophase[cb_buffer_size=4096,darray_cb_pipeline=disable]'
v2='darrayio-twophase@cb_buffer_size=4096;darray_cb_pipeline=disable'
log=$tmp/out
DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$bench" --pattern dist3d -n 16 \
  --runs 1 --dir "$tmp" --methods "darrayio-auto,$v1,$v2" >"$log" 2>&1
rc=$?
n_var=0
for v in "$v1" "$v2"; do
  n_var=$((n_var + $(grep -F " method=$v " "$log" |
    grep -c 'peak_temp=4096 .*status=ok')))
done
if [ $rc -eq 0 ] && [ "$n_var" -eq 4 ]; then
  echo "== darrayio-bench methods with hints of their own: ok"
else
  echo "== darrayio-bench methods with hints of their own: FAILED" \
    "(status $rc, $n_var of 4 results)"
  cat "$log"
  status=1
fi
# a striped subfile set: the benchmark checks its bytes through the
# layout's closed form (the descriptor's record, then the subfiles), for
# logical and layout-aware two-phase domains; a set whose stripe order is
# wrong fails that check (VERIFY FAILED)
sub='darray_backend=subfiles,striping_unit=4096,striping_factor=2'
s1="darrayio-twophase[$sub,darray_cb_domains=layout]"
s2="darrayio-twophase[$sub,darray_cb_domains=logical]"
DARRAY_TEST_NP=2 /bin/sh "$wrapper" "$bench" --pattern dist3d -n 24 \
  -g 1x1x2 --runs 1 --dir "$tmp" --methods "$s1,$s2" >"$log" 2>&1
rc=$?
n_sub=$(grep -F "method=darrayio-twophase[$sub" "$log" | grep -c 'status=ok')
if [ $rc -eq 0 ] && [ "$n_sub" -eq 4 ]; then
  echo "== darrayio-bench on a subfile set: ok"
else
  echo "== darrayio-bench on a subfile set: FAILED (status $rc, $n_sub of 4)"
  cat "$log"
  status=1
fi
# the benchmark deletes what it wrote, subfiles included
# (darray_file_delete): only the log is left in --dir
left=$(ls -A "$tmp" | grep -v '^out$')
if [ -n "$left" ]; then
  echo "== darrayio-bench left in --dir:" $left
  status=1
else
  echo "== darrayio-bench left nothing in --dir"
fi

# --data: every kind of values written and read back, each element
# checked in memory and on disk against its closed form (bench_gen.h), on
# int32 and doubles (dist3d at NP=2, --type int32 and double: two-phase,
# the .npz member, MPI-IO) and btio's doubles (class S at NP=1: two-phase,
# direct, MPI-IO); the header names the kind; an unknown kind is refused
for d in index smooth random; do
  for pat in "2 darrayio-npz --pattern dist3d -n 16 -g 1x1x0" \
    "2 darrayio-npz --pattern dist3d -n 16 -g 1x1x0 --type double" \
    "1 darrayio-direct --pattern btio --class S"; do
    log=$tmp/out np=${pat%% *} pat=${pat#* } m=${pat%% *} pat=${pat#* }
    # shellcheck disable=SC2086
    DARRAY_TEST_NP=$np /bin/sh "$wrapper" "$bench" $pat --data $d --runs 1 \
      --dir "$tmp" --methods "darrayio-twophase,$m,mpiio-l3" >"$log" 2>&1
    rc=$?
    n_ok=$(grep -c '^RESULT .*status=ok' "$log")
    n_hdr=$(grep -c "^darrayio-bench: pattern=.* data=$d\$" "$log")
    want_hdr=1
    [ $d = index ] && want_hdr=0 # the header of today's data is unchanged
    if [ $rc -eq 0 ] && [ "$n_ok" -eq 6 ] && [ "$n_hdr" -eq $want_hdr ]; then
      echo "== darrayio-bench $pat --data $d at NP=$np: 6 measurements ok"
    else
      echo "== darrayio-bench $pat --data $d at NP=$np: FAILED (status $rc," \
        "$n_ok of 6 ok, header data= $n_hdr)"
      cat "$log"
      status=1
    fi
  done
done
out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$bench" --data smoth 2>&1)
case $?:$out in
  0:*) echo "== darrayio-bench --data smoth: accepted"; status=1 ;;
  *"bad option or value: --data"*)
    echo "== darrayio-bench --data smoth: refused" ;;
  *) echo "== darrayio-bench --data smoth: $out"; status=1 ;;
esac

out=$(DARRAY_TEST_NP=1 /bin/sh "$wrapper" "$bench" --methods \
  'darrayio-auto[]' 2>&1)
case $?:$out in
  0:*) echo "== darrayio-bench 'darrayio-auto[]': accepted"; status=1 ;;
  *"bad option or value: darrayio-auto[]"*)
    echo "== darrayio-bench 'darrayio-auto[]': refused" ;;
  *) echo "== darrayio-bench 'darrayio-auto[]': $out"; status=1 ;;
esac
exit $status
