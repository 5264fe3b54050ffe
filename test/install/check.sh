#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# check.sh - an installed darrayio works for its users: `make installcheck'
# runs this after `make install' (so does `make distcheck'), and
# tools/quickstart.sh install-check in CI. It checks, against the
# installed prefix only (nothing from the build tree):
#   - the tools: darray-advise, darray-inspect, darray-calibrate,
#     darray-plan and darray-subfile in bindir answer --help
#     and --version (the release) with status 0;
#   - the manual pages: darray-advise(1), darray-inspect(1),
#     darray-calibrate(1), darray-plan(1), darray-subfile(1), darrayio(3)
#     are installed where man finds them;
#   - pkg-config: test/install/make/Makefile builds main.c with the MPI C
#     wrapper and `pkg-config darrayio', and it runs at 1 and 2 processes
#     (the header's version is the library's; bytes written and read back,
#     and the file, match the oracle);
#   - the same program built against a copy of the header whose version
#     differs fails and says so (the version check can fail);
#   - the README's first program, cut from README.md, builds the way the
#     README says and writes its 64^3 doubles at 2 processes;
#   - CMake: test/install/cmake finds the package with find_package(darrayio)
#     and links darrayio::darrayio (and, when the Fortran module is
#     installed, main_f.f90 with darrayio::darrayiof); they run at 1 and 2
#     processes. Without MPI_C_COMPILER, the package picks the MPI C
#     wrapper darrayio was built with.
# Each check prints "ok:" or "FAIL:"; the last line is
# "N passed, N failed[, N skipped]"; the exit status is 1 if one failed.
#
# Environment (the Makefile sets it): DARRAY_PREFIX, DARRAY_BINDIR,
# DARRAY_LIBDIR, DARRAY_INCLUDEDIR, DARRAY_MANDIR, DARRAY_VERSION,
# DARRAY_CC (the MPI C wrapper), DARRAY_FC (the MPI Fortran wrapper, empty
# when the Fortran module was not built), DARRAY_MPIEXEC (the launcher),
# DARRAY_SRCDIR; DARRAY_REQUIRE_CMAKE=1 makes a missing cmake a failure
# instead of a skip.

set -u
src=${DARRAY_SRCDIR:-$(dirname "$0")/../..}
src=$(cd "$src" && pwd)
prefix=${DARRAY_PREFIX:?}
bindir=${DARRAY_BINDIR:-$prefix/bin}
libdir=${DARRAY_LIBDIR:-$prefix/lib}
includedir=${DARRAY_INCLUDEDIR:-$prefix/include}
mandir=${DARRAY_MANDIR:-$prefix/share/man}
version=${DARRAY_VERSION:-$(sh "$src/tools/version.sh")}
cc=${DARRAY_CC:-mpicc}
fc=${DARRAY_FC:-}
mpiexec=${DARRAY_MPIEXEC:-mpiexec}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/darrayio-installcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log
pass=0 fail=0 skip=0
ok() { echo "ok: $*"; pass=$((pass + 1)); }
bad() {
  echo "FAIL: $*"
  [ -s "$log" ] && sed 's/^/  | /' "$log"
  fail=$((fail + 1))
}
# try WHAT CMD...: run CMD, its output in $log; ok when it succeeds.
try() {
  what=$1
  shift
  if "$@" >"$log" 2>&1; then ok "$what"; return 0; fi
  bad "$what"
  return 1
}
# runs WHAT PROG: PROG under the launcher at 1 and 2 processes; the file
# it writes is in $tmp.
runs() {
  what=$1 prog=$2
  for np in 1 2; do
    if (cd "$tmp" && $mpiexec -n $np "$prog" "$tmp/out.$np.dat") \
         >"$log" 2>&1 && grep -q ': OK' "$log"; then
      ok "$what at $np process(es)"
    else
      bad "$what at $np process(es)"
    fi
  done
}
# The library must come from the prefix, not from a variable.
unset LD_LIBRARY_PATH

echo "==> darrayio $version installed in $prefix"

# --- the tools -------------------------------------------------------------
for tool in darray-advise darray-inspect darray-calibrate darray-plan \
  darray-subfile; do
  if [ ! -x "$bindir/$tool" ]; then
    : >"$log"
    bad "$tool is not installed in $bindir"
    continue
  fi
  if "$bindir/$tool" --help >"$log" 2>&1 && grep -q "^usage: $tool" "$log"
  then ok "$tool --help"; else bad "$tool --help"; fi
  if "$bindir/$tool" --version >"$log" 2>&1 &&
     grep -qx "$tool (darrayio) $version" "$log"
  then ok "$tool --version says $version"; else bad "$tool --version"; fi
done

# --- the manual pages --------------------------------------------------------
for page in man1/darray-advise.1 man1/darray-inspect.1 man1/darray-calibrate.1 \
  man1/darray-plan.1 man1/darray-subfile.1 man3/darrayio.3; do
  name=$(basename "$page")
  name=${name%.*}
  : >"$log"
  if [ ! -f "$mandir/$page" ]; then
    bad "$mandir/$page is not installed"
  elif command -v man >/dev/null 2>&1; then
    found=$(man -M "$mandir" -w "$name" 2>"$log")
    case $found in
      "$mandir"/*) ok "man finds $name: $found" ;;
      *) bad "man -M $mandir -w $name: '$found'" ;;
    esac
  else
    ok "$mandir/$page is installed (no man to look it up)"
  fi
done

# --- pkg-config and make ---------------------------------------------------
mk="$src/test/install/make/Makefile"
mkdir -p "$tmp/make" "$tmp/stale/include"
PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
if try "make with pkg-config ($cc)" make -C "$tmp/make" -f "$mk" CC="$cc"; then
  runs "the pkg-config program" "$tmp/make/install_check"
fi
# A header that is not the library's: one more patch number.
awk '/^#define DARRAYIO_VERSION_PATCH / { $3 = $3 + 1 } { print }' \
  "$includedir/darrayio.h" >"$tmp/stale/include/darrayio.h"
mkdir -p "$tmp/stale/make"
if make -C "$tmp/stale/make" -f "$mk" CC="$cc" \
     CPPFLAGS="-I$tmp/stale/include" >"$log" 2>&1; then
  if (cd "$tmp" && $mpiexec -n 1 "$tmp/stale/make/install_check" \
        "$tmp/stale.dat") >"$log" 2>&1; then
    bad "a program built with a header of another version runs as if all agreed"
  elif grep -q "darrayio.h is .* but the library is $version" "$log"; then
    ok "a header of another version than the library's is found out"
  else
    bad "a header of another version: the program failed, without saying why"
  fi
else
  bad "building against a header of another version"
fi

# --- the README's first program ---------------------------------------------
# The program of the README's section "A first program", as printed there,
# built the way the README says (pkg-config and the library's directory as
# the run path) and run at 2 processes: it writes out.dat, 64^3 doubles.
first=$tmp/first
mkdir -p "$first"
awk '/^## A first program/ { on = 1; next }
     on && /^```c$/ { copy = 1; next }
     copy && /^```$/ { exit }
     copy { print }' "$src/README.md" >"$first/first.c"
if [ ! -s "$first/first.c" ]; then
  : >"$log"
  bad "no C program under the README's 'A first program'"
elif try "the README's first program builds with pkg-config" \
       $cc -o "$first/first" "$first/first.c" \
       $(pkg-config --cflags darrayio) $(pkg-config --libs darrayio) \
       -Wl,-rpath,"$(pkg-config --variable=libdir darrayio)"; then
  size=
  if (cd "$first" && $mpiexec -n 2 ./first) >"$log" 2>&1; then
    size=$(wc -c <"$first/out.dat" 2>/dev/null)
  fi
  if [ "$size" = $((64 * 64 * 64 * 8)) ]; then
    ok "the README's first program runs at 2 processes (out.dat: $size bytes)"
  else
    bad "the README's first program at 2 processes (out.dat: '${size:-none}')"
  fi
fi

# --- CMake -----------------------------------------------------------------
if command -v cmake >/dev/null 2>&1; then
  set -- -S "$src/test/install/cmake" -B "$tmp/cmake" \
    -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$cc"
  if [ -n "$fc" ]; then
    set -- "$@" -DDARRAYIO_TEST_FORTRAN=ON -DMPI_Fortran_COMPILER="$fc"
  fi
  if try "cmake finds darrayio ${fc:+(C and Fortran) }in $prefix" cmake "$@" &&
     try "cmake --build" cmake --build "$tmp/cmake"; then
    runs "the CMake program" "$tmp/cmake/install_check"
    [ -n "$fc" ] && runs "the CMake Fortran program" "$tmp/cmake/install_check_f"
  fi
  # A project that names no MPI gets the one darrayio was built with.
  if try "cmake without MPI_C_COMPILER" cmake -S "$src/test/install/cmake" \
       -B "$tmp/cmake-default" -DCMAKE_PREFIX_PATH="$prefix"; then
    chosen=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$tmp/cmake-default/CMakeCache.txt")
    if [ "$chosen" = "$cc" ]; then
      ok "the package chose the MPI of the build: $chosen"
    else
      : >"$log"
      bad "the package chose MPI_C_COMPILER '$chosen', the build used '$cc'"
    fi
  fi
elif [ "${DARRAY_REQUIRE_CMAKE:-0}" = 1 ]; then
  : >"$log"
  bad "cmake is not installed"
else
  echo "skip: no cmake: the CMake project is not tried"
  skip=$((skip + 1))
fi

line="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && line="$line, $skip skipped"
echo "$line"
[ "$fail" -eq 0 ]
