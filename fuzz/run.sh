#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# fuzz/run.sh - build the fuzz targets and run each for a while.
#
#   fuzz/run.sh [-t SECONDS] [-o DIR] [TARGET...]
#
# Targets (default: all): fuzz_hints (DARRAYIO_HINTS, MPI_Info values and
# DARRAYIO_FAULT parsers), fuzz_desc (the description validator), fuzz_xfer
# (whole transfers on one process against a model of the file), fuzz_plan
# (darray_explain and the storage advisor), fuzz_format (the .npy header
# parser and the .npz reader on files in memory). Each runs SECONDS seconds
# (default 20; CI passes FUZZ_SECONDS) from the seeds in fuzz/corpus/TARGET,
# after replaying the inputs of past findings in fuzz/regressions/TARGET
# (a finding that is not fixed fails its target at once); inputs that found
# new code paths go to DIR/corpus/TARGET, crashes to DIR/crash-* (DIR
# defaults to ./fuzz-out).
#
# With clang and libFuzzer (Debian: clang, libclang-rt-dev) the targets are
# libFuzzer programs with AddressSanitizer and UndefinedBehaviorSanitizer;
# without them they are built with the MPI compiler wrapper and driven by
# fuzz/driver.c, a deterministic random-input driver, and the script says
# so (FUZZ_DRIVER=1 forces the driver). The MPI compiler wrapper is used
# either way (MPICH_CC / OMPI_CC pick clang for it); the library's files
# compile JOBS (default 2) at a time. Exit status 0 when no target crashed;
# the last line is "N passed, N failed" (one per target).

set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
secs=20
out=$PWD/fuzz-out
while getopts "t:o:" opt; do
  case $opt in
    t) secs=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS] [-o DIR] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_hints fuzz_desc fuzz_xfer fuzz_plan fuzz_format)
mkdir -p "$out/obj" || exit 1

say() { printf '==> %s\n' "$*"; }

# Pick the tool chain: libFuzzer if it links, else the driver.
probe=$out/obj/probe.c
cat >"$probe" <<'EOF'
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  (void)d; (void)n; return MPI_Initialized(&(int){0});
}
EOF
# The MPICH wrapper by its own name when there is one: Debian points the
# generic mpicc at whichever MPI was installed last (configure does the same).
mpicc=${MPICC:-$(command -v mpicc.mpich || echo mpicc)}
export MPICH_CC=clang OMPI_CC=clang
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
if [ -z "${FUZZ_DRIVER:-}" ] && command -v clang >/dev/null 2>&1 &&
   "$mpicc" -fsanitize=fuzzer $san "$probe" -o "$out/obj/probe" >/dev/null 2>&1; then
  mode=libfuzzer
  cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san"
  ldflags="-fsanitize=fuzzer $san"
else
  mode=driver
  unset MPICH_CC OMPI_CC
  cflags="-g -O1 -fno-omit-frame-pointer $san"
  ldflags=$san
  if ! "$mpicc" $san "$here/fuzz/driver.c" -c -o "$out/obj/probe.o" \
      >/dev/null 2>&1; then
    cflags="-g -O1"
    ldflags=
    say "no sanitizers with this compiler: the driver only catches crashes"
  fi
  say "libFuzzer not available: using the deterministic random-input driver"
fi
say "fuzz: $mode build in $out"

# The library, compiled once with the fuzzing flags, JOBS files at a time.
objs=()
pids=()
for src in "$here"/src/*.c "$here"/src/*/*.c; do
  o=$out/obj/$(basename "${src%.c}").o
  "$mpicc" -std=c11 -D_POSIX_C_SOURCE=200809L -I"$here/include" -I"$here/src" \
    $cflags -c "$src" -o "$o" &
  pids+=($!)
  objs+=("$o")
  if [ ${#pids[@]} -ge "${JOBS:-2}" ]; then
    wait "${pids[0]}" || { echo "compiling the library failed"; exit 1; }
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "compiling the library failed"; exit 1; }
done

# The files fuzz_xfer and fuzz_plan write: on tmpfs when there is one, in
# a directory removed at the end even when a target crashed.
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
FUZZ_SCRATCH=$(mktemp -d "$base/darrayio-fuzz-XXXXXX") || exit 1
export FUZZ_SCRATCH
trap 'rm -rf "$FUZZ_SCRATCH"' EXIT

# LeakSanitizer: MPI's own allocations (see test/lsan.supp).
export LSAN_OPTIONS="suppressions=$here/test/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export HWLOC_PLUGINS_PATH="${HWLOC_PLUGINS_PATH-/nonexistent}"

pass=0
fail=0
for t in "${targets[@]}"; do
  src=$here/fuzz/$t.c
  if [ ! -f "$src" ]; then
    echo "no such target: $t"
    fail=$((fail + 1))
    continue
  fi
  exe=$out/$t
  extra=()
  [ "$mode" = driver ] && extra=("$here/fuzz/driver.c")
  if ! "$mpicc" -std=c11 -D_POSIX_C_SOURCE=200809L -I"$here/include" \
      -I"$here/src" $cflags "$src" "${extra[@]}" "${objs[@]}" $ldflags -lm \
      -o "$exe"; then
    echo "building $t failed"
    fail=$((fail + 1))
    continue
  fi
  corpus=$out/corpus/$t
  mkdir -p "$corpus"
  args=()
  if [ "$mode" = libfuzzer ]; then
    args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix="$out/crash-$t-")
    [ -f "$here/fuzz/$t.dict" ] && args+=(-dict="$here/fuzz/$t.dict")
    [ "$t" = fuzz_hints ] && args+=(-dict="$here/fuzz/hints.dict")
  else
    args=(-max_total_time="$secs" -timeout=10 -runs=100000000)
  fi
  say "$t: $secs s"
  log=$out/$t.log
  seeds=("$here/fuzz/corpus/$t")
  if [ -d "$here/fuzz/regressions/$t" ]; then # past findings first
    seeds=("$here/fuzz/regressions/$t" "${seeds[@]}")
  fi
  if (cd "$out" && "$exe" "${args[@]}" "$corpus" "${seeds[@]}") \
      >"$log" 2>&1; then
    pass=$((pass + 1))
    grep -E '^(Done|stat::(number_of_executed_units|average_exec_per_sec))' \
      "$log" | tail -n 3
    echo "$t: no crash"
  else
    fail=$((fail + 1))
    tail -n 60 "$log"
    echo "$t: FAILED (log: $log)"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
