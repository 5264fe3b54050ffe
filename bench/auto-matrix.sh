#!/bin/sh
# auto-matrix.sh - darrayio's automatic choice against every forced strategy
# over the pattern matrix, in one run per pattern (issue: planner).
#
# For each pattern, darrayio-bench runs darrayio-auto and every strategy
# forced (-direct, -sieve, -twophase, -rows, -static, -groups, -mapped; a
# strategy a pattern has no use for reports unavailable and is left out)
# on the same data (every byte checked); this script prints, per
# pattern and operation, the median bandwidth of each, the best forced
# strategy, auto / best, chose / best (the forced run of the strategy auto
# chose against the best: the quality of the decision without the noise of
# auto's own runs) and auto / two-phase, then how many rows have each ratio
# within 10 %. The methods take turns run by run (--rotate), so that drifts
# of a shared machine touch all alike. The first method of a run is slower
# on this VM however the page cache is pre-touched (up to 5x for writes), so
# a throw-away darrayio-direct goes first. Reads use --same-file: every
# method reads a file written the same way (page-cache layout otherwise
# favours some methods).
#
# Usage: bench/auto-matrix.sh [-n NP] [--runs K] [--dir D] [--bench PATH]
#                             [--quick] [--patterns "p1;p2;..."]
#   -n NP        processes (default 2; BTIO needs a perfect square and is
#                skipped otherwise)
#   --runs K     runs per method and operation (default 5)
#   --dir D      directory for the files (default .)
#   --bench P    the darrayio-bench binary (default: next to this script in
#                the build tree, bench/darrayio-bench)
#   --quick      small sizes (a smoke test, not a measurement)
#   --patterns   ';'-separated darrayio-bench pattern options, replacing the
#                default matrix
# Needs mpiexec on PATH (MPIEXEC overrides it).
#
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
set -e
np=2
runs=5
dir=.
bench=
quick=
patterns=
while [ $# -gt 0 ]; do
  case $1 in
    -n) np=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --patterns) patterns=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "auto-matrix.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$bench" ] || bench=bench/darrayio-bench
[ -x "$bench" ] || { echo "auto-matrix.sh: no $bench (run make)" >&2; exit 2; }
mpiexec=${MPIEXEC:-mpiexec}

if [ -z "$patterns" ]; then
  if [ -n "$quick" ]; then n2=256; n3=32; cls=S
  else n2=4096; n3=256; cls=W; fi
  patterns="rowblock -n $n2;colblock -n $n2;cyclic -n $n2 -k 4"
  patterns="$patterns;cyclic -n $n2 -k 1;dist3d -n $n3 -g 1x1x$np"
  patterns="$patterns;dist3d -n $n3 -g ${np}x1x1;slabs -n $n3 -g 1x1x$np"
  sq=$(awk -v p="$np" 'BEGIN { q = int(sqrt(p) + 0.5); print (q * q == p) }')
  [ "$sq" = 1 ] && patterns="$patterns;btio --class $cls"
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
IFS=';'
for p in $patterns; do
  IFS=' '
  # shellcheck disable=SC2086
  "$mpiexec" -n "$np" "$bench" --pattern $p --runs "$runs" --dir "$dir" \
    --same-file --rotate \
    --methods darrayio-direct,darrayio-auto,darrayio-direct,darrayio-sieve,darrayio-twophase,darrayio-rows,darrayio-static,darrayio-groups,darrayio-mapped \
    2>&1 | grep '^RESULT' | sed "s|^RESULT|RESULT case=$(echo "$p" | tr ' ' '_')|" \
    >> "$out" || true
  IFS=';'
done
IFS=' '

awk '
function field(line, key,   i, n, a, kv) {
  n = split(line, a, " ")
  for (i = 1; i <= n; i++) {
    split(a[i], kv, "=")
    if (kv[1] == key) return substr(a[i], length(key) + 2)
  }
  return ""
}
{
  c = field($0, "case"); op = field($0, "op"); m = field($0, "method")
  sub("darrayio-", "", m)
  key = c " " op
  if (!(key in seen)) { seen[key] = 1; order[++nrows] = key }
  if (field($0, "status") == "ok") {
    bw[key, m] = field($0, "mib_s") + 0
    strat[key, m] = field($0, "strategy")
  }
}
END {
  printf "%-26s %-5s %9s %9s %9s %9s %9s %9s %9s %9s  %-9s %7s %7s %7s  %s\n",
         "pattern", "op", "auto", "direct", "sieve", "twophase", "rows",
         "static", "groups", "mapped", "best", "auto/b", "chose/b", "auto/tp",
         "auto chose"
  ok = 0; rows = 0; conf = 0; okc = 0
  for (i = 1; i <= nrows; i++) {
    k = order[i]; split(k, kk, " ")
    best = ""; bb = 0
    n = split("direct sieve twophase rows static groups mapped", ms, " ")
    for (j = 1; j <= n; j++)
      if (bw[k, ms[j]] > bb) { bb = bw[k, ms[j]]; best = ms[j] }
    a = bw[k, "auto"]; tp = bw[k, "twophase"]
    r = bb > 0 ? a / bb : 0; rt = tp > 0 ? a / tp : 0
    rc = bb > 0 ? bw[k, strat[k, "auto"]] / bb : 0
    printf "%-26s %-5s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %-9s %7.2f %7.2f %7.2f  %s\n",
           kk[1], kk[2], a, bw[k, "direct"], bw[k, "sieve"], tp,
           bw[k, "rows"], bw[k, "static"], bw[k, "groups"], bw[k, "mapped"],
           best, r, rc, rt, strat[k, "auto"]
    rows++
    if (r >= 0.9) ok++
    if (rc >= 0.9) okc++
  }
  printf "auto within 10%% of the best forced strategy: %d of %d\n", ok, rows
  printf "the strategy auto chose, forced, within 10%% of the best: %d of %d\n",
         okc, rows
}' "$out"
