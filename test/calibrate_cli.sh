#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# calibrate_cli.sh - tools/darray-calibrate on a small budget (4 MiB per
# process, 200 small calls, 3 timed two-phase writes): at 1 process the
# hint line holds the file constants and the cycle (and the mapped
# strategy's two rates where the kernel populates mappings), at 2 the
# exchange rate, a message's cost and the servers' contention (measured on
# a subfile set) too, each key
# once with an integer value, and the tool leaves no scratch file behind;
# the line is accepted by darrayio-bench --hints (a DIST3D run, status
# ok, its bytes checked); --direct measures the contention with direct
# writes (the same line); a missing directory fails with status 1 and a
# message naming it; usage errors give 2; --help and --version 0.
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher.

. "${srcdir:-.}/test/cli.sh"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/calibrate_cli.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"
small="--mib 4 --calls 200 --rounds 3"

# run NP EXPECTED-STATUS TEXT ARGS...: the tool's status and output
run() {
  np=$1 want_rc=$2 want_text=$3
  shift 3
  cli_mpi "$np" tools/darray-calibrate "$@"
  cli_expect "NP=$np darray-calibrate $*" "$want_rc" "$want_text"
}

# check_line NP: the hint line's keys, once each, integer values
check_line() {
  line=$(sed -n 's/^hints: //p' "$out")
  keys="darray_ds_rd_latency_ns darray_ds_wr_latency_ns darray_ds_bandwidth_mbs darray_cb_cycle_ns"
  [ "$1" -gt 1 ] &&
    keys="$keys darray_cb_exchange_mbs darray_cb_message_ns darray_server_contention"
  # the mapped strategy's rates, where the kernel populates mappings
  echo "$line" | grep -q darray_map_ &&
    keys="$keys darray_map_rd_mbs darray_map_wr_mbs"
  n=$(echo "$line" | tr ';' '\n' | grep -c .)
  want=$(echo "$keys" | wc -w)
  bad=0
  [ "$n" -eq "$want" ] || bad=1
  for k in $keys; do
    echo "$line" | tr ';' '\n' | grep -Eqx "$k=[0-9]+" || bad=1
  done
  if [ "$1" -eq 1 ] &&
    echo "$line" | grep -q "cb_exchange\|cb_message\|server_contention"; then
    bad=1
  fi
  if [ $bad -ne 0 ]; then
    echo "FAIL: NP=$1: the hint line '$line' lacks or repeats a key" \
      "(want: $keys)"
    fails=$((fails + 1))
  else
    echo "ok: NP=$1: hint line $line"
  fi
}

for np in 1 2; do
  mkdir -p "$tmp/d$np"
  # shellcheck disable=SC2086
  if run $np 0 "hints: darray_ds_rd_latency_ns=" --dir "$tmp/d$np" $small
  then
    check_line $np
    left=$(ls "$tmp/d$np")
    if [ -n "$left" ]; then
      echo "FAIL: NP=$np: scratch files left behind: $left"
      fails=$((fails + 1))
    fi
  fi
done

# the line, as the library's hints, for a real run
line=$(sed -n 's/^hints: //p' "$out")
DARRAY_TEST_NP=2 /bin/sh "$wrapper" "$top/bench/darrayio-bench" \
  --pattern dist3d -n 16 --runs 1 --dir "$tmp" --hints "$line" \
  --methods darrayio-auto >"$tmp/bench" 2>&1
if [ "$(grep -c '^RESULT .*status=ok' "$tmp/bench")" -eq 2 ]; then
  echo "ok: darrayio-bench --hints '$line'"
else
  echo "FAIL: darrayio-bench --hints '$line':"
  cat "$tmp/bench"
  fails=$((fails + 1))
fi

# shellcheck disable=SC2086
run 1 1 "$tmp/none/darray-calibrate." --dir "$tmp/none" $small
run 2 0 "darray_ds_rd_latency_ns=" --quiet --dir "$tmp" $small
if grep -q "large calls\|^hints: " "$out"; then
  echo "FAIL: --quiet printed more than the line"
  fails=$((fails + 1))
fi
# the servers' contention with direct writes: the same keys
# shellcheck disable=SC2086
if run 2 0 "hints: darray_ds_rd_latency_ns=" --direct --dir "$tmp/d2" $small
then
  check_line 2
  grep -q "direct writes)" "$out" || {
    echo "FAIL: --direct: the report does not say direct writes"
    fails=$((fails + 1))
  }
fi
run 1 2 "bad option or value: --mib" --mib 0
run 1 2 "bad option or value: --frobnicate" --frobnicate
run 1 0 "usage: darray-calibrate" --help
run 1 0 "darray-calibrate (darrayio) $version" --version

[ $fails -eq 0 ] && exit 0
echo "$fails check(s) failed"
exit 1
