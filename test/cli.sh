# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# cli.sh - what the tests of the command-line tools (test/*_cli.sh) share;
# each sources it first (`. "${srcdir:-.}/test/cli.sh"`). It sets top
# (the build tree), wrapper (the test launcher, an absolute path), version
# (the header's, tools/version.sh) and fails=0, and defines:
#
#   cli_mpi NP PROG ARGS...  run $top/PROG through the launcher at NP
#                            processes, its output into $out (the test's
#                            file) and its exit status into got (the
#                            launcher reports a failing run as "== NAME:
#                            NP=N FAILED: exit status S"); exits 77 (skip)
#                            when there is no launcher;
#   cli_expect WHAT RC TEXT  got is RC and $out holds TEXT (anything when
#                            TEXT is empty): prints "ok: WHAT", or the
#                            failure and the output, counts it in fails and
#                            returns 1.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
wrapper=${DARRAY_TEST_WRAPPER:-${srcdir:-.}/test/mpirun.sh}
case $wrapper in /*) ;; *) wrapper="$(pwd)/$wrapper" ;; esac
version=$(sh "${srcdir:-.}/tools/version.sh")
fails=0

cli_mpi() {
  cli_np=$1 cli_prog=$2
  shift 2
  DARRAY_TEST_NP=$cli_np /bin/sh "$wrapper" "$top/$cli_prog" "$@" \
    >"$out" 2>&1
  [ $? -eq 77 ] && exit 77 # no launcher
  got=$(sed -n "s/^== ${cli_prog##*/}: NP=.* FAILED: exit status \([0-9]*\)\$/\1/p" "$out" | head -n 1)
  [ -n "$got" ] || got=0
}

cli_expect() {
  if [ "$got" != "$2" ] ||
    { [ -n "$3" ] && ! grep -F -- "$3" "$out" >/dev/null; }
  then
    echo "FAIL: $1: status $got (want $2, text '$3'), output:"
    cat "$out"
    fails=$((fails + 1))
    return 1
  fi
  echo "ok: $1"
}
