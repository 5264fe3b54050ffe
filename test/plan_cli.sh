#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# plan_cli.sh - tools/darray-plan against numbers worked out by hand for
# DIST3D (N^3 int32, C order, BLOCK over a grid):
#  - P=2, N=64, grid 1x1x2: each process has 64*64 runs of 128 bytes, so
#    direct makes 4096 calls and moves 524288 bytes; two-phase's domains
#    are the file's halves, so each process sends the half of its bytes
#    that lies in the other's domain, 262144 bytes;
#  - P=4096, N=256, grid 16x16x16: a process has 16*16 runs of 64 bytes
#    (256 calls, 16384 bytes); the domains are 16384 bytes, 16 file rows,
#    and the process whose block meets its own domain nowhere sends all
#    16384 bytes, in one message to each of the 16 domains its rows meet;
#    sieving is no candidate for interleaved writes;
#  - a striped file of 4 servers with 16 KiB stripes: each aggregator's
#    domain is one stripe (one server), so 1024 aggregators share a server;
#  - errors: btio at 5 processes is refused by the library (status 1, its
#    message), usage errors give 2, --help and --version 0.
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher.

. "${srcdir:-.}/test/cli.sh"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/plan_cli.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"

fail() {
  echo "FAIL: $*; output:"
  cat "$out"
  fails=$((fails + 1))
}

# run EXPECTED-STATUS ARGS...: the tool at one process
run() {
  want_rc=$1
  shift
  cli_mpi 1 tools/darray-plan "$@"
  cli_expect "darray-plan $* (status $got)" "$want_rc" ""
}

# field STRATEGY COLUMN: a column of the first table's row (1 = name)
field() {
  awk -v s="$1" -v c="$2" '$1 == s { print $c; exit }' "$out"
}

# expect STRATEGY COLUMN VALUE WHAT
expect() {
  v=$(field "$1" "$2")
  if [ "$v" = "$3" ]; then echo "ok: $4 = $3"; else fail "$4: '$v', want $3"; fi
}

# columns: 2 estimate, 3 calls, 4 file bytes, 5 sent, 6 messages, 7 cycles
if run 0 -P 2 -n 64 -g 1x1x2; then
  expect direct 3 4096 "P=2 direct calls per process"
  expect direct 4 524288 "P=2 direct file bytes"
  expect twophase 5 262144 "P=2 twophase bytes sent"
  expect twophase 4 524288 "P=2 twophase file bytes of an aggregator"
  grep -q "^chosen: " "$out" || fail "P=2: no chosen line"
fi
if run 0 -P 4096 -n 256 -g 16x16x16 --hints cb_buffer_size=16777216; then
  expect direct 3 256 "P=4096 direct calls per process"
  expect direct 4 16384 "P=4096 direct file bytes"
  expect twophase 5 16384 "P=4096 twophase bytes sent (most)"
  expect twophase 6 16 "P=4096 twophase messages (most)"
  expect twophase 7 1 "P=4096 twophase cycles"
  expect sieve 2 - "P=4096 sieve writes no candidate"
fi
if run 0 -P 4096 -n 256 -g 16x16x16 \
    --hints striping_unit=16384,striping_factor=4,cb_buffer_size=16777216
then
  grep -q "servers per aggregator per cycle 1, aggregators per server per cycle 1024" \
    "$out" || fail "striped: 1 server per aggregator, 1024 per server"
fi
run 1 -P 5 --pattern btio &&
  { grep -q "darray-plan: .*MULTIPARTITION\|darray-plan: .*square" "$out" ||
    fail "btio at 5 processes: the library's message"; }
run 2 -P 0
run 2 --pattern nope -P 4
run 2 -n 64
run 0 --help && { grep -q "^usage: darray-plan" "$out" || fail "--help"; }
run 0 --version &&
  { grep -q "darray-plan (darrayio) $version" "$out" || fail "--version"; }

[ $fails -eq 0 ] || exit 1
echo "plan_cli: all checks passed"
