#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# mpirun.sh - run one MPI test program at each of its process counts.
#
# Usage: mpirun.sh PROGRAM [ARGS...]
#
# Automake's test harness calls this as LOG_COMPILER for every test program;
# test/dist3d_small.sh calls it for the dist3d example. PROGRAM runs once per
# process count; the test passes only if every run passes.
#
# Environment:
#   DARRAY_TEST_NP       process counts to use instead of the table below,
#                        e.g. DARRAY_TEST_NP="1 2"
#   DARRAY_TEST_NP_ONE   when 1, one process count of the test's own: 2
#                        where its list has 2, else its first (`make
#                        distcheck` in tools/quickstart.sh: the tarball's
#                        build, not every count again)
#   TESTMPIRUN           launcher command; the word NP is replaced by the
#                        process count (default: "$DARRAY_MPIEXEC -n NP",
#                        or "mpiexec -n NP")
#   DARRAY_MPIEXEC       launcher found by configure (set by `make check`)
#   DARRAY_TEST_TIMEOUT  seconds allowed for one run (default 300); a run
#                        that takes longer is killed and fails
#   DARRAY_TEST_LOCK     lock file; when set, runs of different tests never
#                        overlap, even under `make -j check`
#
# Exit status: 0 if all runs passed, 77 (skip) if there is no launcher or
# every run skipped, 99 if a run reported a hard error, else 1.

if [ $# -lt 1 ]; then
  echo "usage: $0 PROGRAM [ARGS...]" >&2
  exit 99
fi
prog=$1
shift
case $prog in
  /*) ;;
  *) [ -e "$prog" ] && prog="$(pwd)/${prog#./}" ;;
esac

# Process counts per test, keyed by the program's base name.
name=$(basename "$prog")
name=${name%.exe}
case $name in
  test_*_unit) nps="1" ;; # pure index math: one process is enough
  test_errors) nps="2 3" ;;
  test_section_args) nps="2 3" ;; # a bad box on the last process
  test_async_order) nps="2" ;; # posts in two orders
  test_faults) nps="2 3" ;;
  test_faults_ext) nps="2 3" ;;
  test_format_faults) nps="1 2 3" ;;
  test_crc_slices) nps="1 2 3" ;; # P = 3: runs and slices out of step
  test_format_numpy) nps="1 3" ;; # P = 3: two ranks own no scalar
  test_badinput) nps="2 4" ;; # P = 4: a square grid for MULTIPARTITION rows
  test_large) nps="1 2" ;; # its 4 GiB part (check-long) runs at 2
  test_concurrent) nps="2 3 4" ;; # two or three groups writing at once
  test_groups) nps="1 2 3 4" ;; # P = 3: groups of two and one
  test_groups_waits) nps="1 2 4" ;; # 4 on 2 cores: the issue's case
  test_mapped) nps="1 2 3 4" ;; # every page holds every process's bytes
  test_mapped_end) nps="1 2 3" ;; # 3: the planner's choice was mapped
  test_bufbound) nps="1 2 3" ;;
  test_direct) nps="1 2 3 4" ;; # one run of whole pages at 1, slices at 2-4
  test_static) nps="1 2 3 4" ;; # P = 3: groups of one and two (cb_nodes=2)
  test_overflow) nps="1 2" ;;
  test_subfiles) nps="1 2 3 4" ;; # S = 1..4 subfiles at every P
  test_delete) nps="1 2" ;; # local: one process deletes, or all at once
  test_special) nps="1 2 3" ;; # rank 0 opens first, the others wait
  test_subfiles_close) nps="2 3" ;; # two halves of COMM_WORLD
  test_hint_names) nps="1 2 3" ;; # 2, 3: a key on the last rank only
  test_advisor) nps="1 2 4" ;; # local, but compared with the planner at P
  test_templimit) nps="1 2 3" ;;
  test_colls) nps="1 2 3 4" ;; # P = 1: no rows; 4: two-phase's 4 streams
  test_nospace) nps="1 2" ;; # needs root to mount a tmpfs, else skips
  test_async_merge) nps="1 2 3 4" ;; # 1 and 4 also merge MULTIPARTITION
  test_noinit) nps="1" ;; # MPI's lifetime, not a parallel pattern
  test_version) nps="1" ;; # local calls, checked outside MPI's lifetime
  test_format) nps="1 2 3 4" ;; # P = 3: uneven pieces of every member
  test_plan_virtual) nps="2 3 4" ;; # P = 1 is one run: nothing to count
  test_fortran_api) nps="1 2 3 4" ;; # 1 and 4 also run MULTIPARTITION
  test_fortran_async) nps="1 2 3 4" ;; # each darray_async mode
  test_fortran_stop) nps="1 2" ;; # run by fortran_stop.sh: must fail
  test_fortran_section_args) nps="2 3" ;; # a bad box on the last process
  *) nps="1 2 3 4" ;;
esac
if [ -n "${DARRAY_TEST_NP:-}" ]; then
  nps=$DARRAY_TEST_NP
elif [ "${DARRAY_TEST_NP_ONE:-0}" = 1 ]; then
  case " $nps " in
    *" 2 "*) nps=2 ;;
    *) nps=${nps%% *} ;;
  esac
fi

# Quote the program and its arguments once, for eval below.
quote() {
  printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
qargs=
for a in "$prog" "$@"; do
  qargs="$qargs $(quote "$a")"
done

# The launcher.
if [ -n "${TESTMPIRUN:-}" ]; then
  launcher=$TESTMPIRUN
elif [ -n "${DARRAY_MPIEXEC:-}" ]; then
  launcher="$DARRAY_MPIEXEC -n NP"
else
  launcher="mpiexec -n NP"
fi
set -f # the launcher is split into words, never globbed
# shellcheck disable=SC2086
set -- $launcher
set +f
launcher_cmd=${1:-}
if ! command -v "$launcher_cmd" >/dev/null 2>&1; then
  echo "SKIP: MPI launcher '$launcher_cmd' not found (set TESTMPIRUN)"
  exit 77
fi

# A run that hangs fails instead of blocking the test suite.
limit=${DARRAY_TEST_TIMEOUT:-300}
# ... and says before, on stderr, where it is (test/testutil.c: the last
# check each process made, then again every as many seconds)
: "${DARRAY_TEST_WATCHDOG:=$((limit * 4 / 5))}"
export DARRAY_TEST_WATCHDOG
if command -v timeout >/dev/null 2>&1; then
  tmo="timeout -k 10 $limit"
else
  tmo=
fi

# Open MPI refuses to run as root or to oversubscribe unless told; MPICH
# ignores these.
: "${OMPI_ALLOW_RUN_AS_ROOT:=1}" "${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:=1}"
: "${OMPI_MCA_rmaps_base_oversubscribe:=1}"
: "${PRTE_MCA_rmaps_default_mapping_policy:=:oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
  OMPI_MCA_rmaps_base_oversubscribe PRTE_MCA_rmaps_default_mapping_policy

# Serialize MPI runs across concurrently running tests: on a small machine,
# two mpiexec at once oversubscribe the cores and can time out.
if [ -n "${DARRAY_TEST_LOCK:-}" ] && command -v flock >/dev/null 2>&1; then
  exec 9>"$DARRAY_TEST_LOCK"
  flock 9
fi

status=0
ran=0
for np in $nps; do
  words=
  set -f
  for w in $launcher; do
    case $w in
      *NP*) w=$(printf '%s' "$w" | sed "s/NP/$np/g") ;;
    esac
    words="$words $(quote "$w")"
  done
  set +f
  echo "== $name: NP=$np:$words$qargs"
  eval "$tmo $words $qargs" 9>&-
  rc=$?
  case $rc in
    0) ran=$((ran + 1)); echo "== $name: NP=$np passed" ;;
    77) echo "== $name: NP=$np skipped" ;;
    124 | 137)
      echo "== $name: NP=$np FAILED: timed out after $limit s"
      [ $status -eq 99 ] || status=1 ;;
    99)
      echo "== $name: NP=$np FAILED: hard error (exit 99)"
      status=99 ;;
    *)
      echo "== $name: NP=$np FAILED: exit status $rc"
      [ $status -eq 99 ] || status=1 ;;
  esac
done

if [ $status -eq 0 ] && [ $ran -eq 0 ]; then
  exit 77
fi
exit $status
