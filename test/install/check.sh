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
#     darray-calibrate(1), darray-plan(1), darray-subfile(1), darrayio(3),
#     darrayio-fortran(3) are installed where man finds them, and every
#     file of the prefix they name exists (the guides, the site);
#   - the documentation: the README, license, changes and authors in
#     docdir, the guides in docdir/doc, the benchmark's pages in
#     docdir/bench, every relative link between them leads to an installed
#     file; the HTML site in htmldir/html when DARRAY_SITE=1 (configured
#     with --enable-doxygen), with a page per guide;
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
#     wrapper darrayio was built with;
#   - the prefix moved: a copy of it elsewhere serves the pkg-config and
#     the CMake projects alike (their files find the prefix from their own
#     directory), which build and run against the copy, and nothing in
#     their flags, caches or programs names the original prefix.
# Each check prints "ok:" or "FAIL:"; the last line is
# "N passed, N failed[, N skipped]"; the exit status is 1 if one failed.
#
# Environment (the Makefile sets it): DARRAY_PREFIX, DARRAY_BINDIR,
# DARRAY_LIBDIR, DARRAY_INCLUDEDIR, DARRAY_MANDIR, DARRAY_DOCDIR,
# DARRAY_HTMLDIR, DARRAY_SITE (1: the site must be installed), DARRAY_VERSION,
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
docdir=${DARRAY_DOCDIR:-$prefix/share/doc/darrayio}
htmldir=${DARRAY_HTMLDIR:-$docdir}
site=${DARRAY_SITE:-0}
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
  man1/darray-plan.1 man1/darray-subfile.1 man3/darrayio.3 \
  man3/darrayio-fortran.3; do
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

# Every file of the prefix a page names exists; the site's only when it
# was to be installed (the pages say so).
for page in "$mandir"/man1/darray-*.1 "$mandir"/man3/darrayio*.3; do
  [ -f "$page" ] || continue
  named=$(grep -o "$prefix/[^ ,;)\"]*" "$page" | sed 's/\\-/-/g' | sort -u)
  if [ -z "$named" ]; then
    : >"$log"
    bad "$(basename "$page") names no installed file"
    continue
  fi
  for path in $named; do
    : >"$log"
    if [ -e "$path" ]; then
      ok "$(basename "$page") names $path, installed"
    elif [ "$site" != 1 ] && [ "$path" = "$htmldir/html/index.html" ]; then
      echo "skip: $(basename "$page") names the site, not built here"
      skip=$((skip + 1))
    else
      bad "$(basename "$page") names $path, which is not installed"
    fi
  done
done

# --- the documentation -----------------------------------------------------
for doc in README.md LICENSE NEWS AUTHORS doc/porting.md doc/fortran.md \
  doc/sieving.md doc/planner.md doc/scaling.md doc/advisor.md doc/formats.md \
  doc/reliability.md doc/subfiles.md doc/backends.md doc/rooms.md \
  doc/compression.md bench/README.md bench/RESULTS.md; do
  : >"$log"
  if [ -s "$docdir/$doc" ]; then ok "$docdir/$doc is installed"
  else bad "$docdir/$doc is not installed"; fi
done
# Relative links between the installed pages ([text](path.md#anchor)).
: >"$log"
for md in "$docdir"/*.md "$docdir"/doc/*.md "$docdir"/bench/*.md; do
  [ -f "$md" ] || continue
  grep -o '](\([^)#:]*\)\(#[^)]*\)\{0,1\})' "$md" |
    sed 's/^](\([^)#]*\).*/\1/' | sort -u | while read -r target; do
      case $target in /* | "") continue ;; esac
      [ -e "$(dirname "$md")/$target" ] ||
        echo "${md#"$docdir"/} links to $target, not installed"
    done
done >"$log"
if [ -s "$log" ]; then bad "links between the installed guides"
else ok "every relative link between the installed guides leads to a file"; fi
if [ "$site" = 1 ]; then
  for p in index readme porting fortran planner errors; do
    : >"$log"
    if [ -f "$htmldir/html/$p.html" ]; then ok "the site has $p.html"
    else bad "$htmldir/html/$p.html is not installed"; fi
  done
else
  echo "skip: the site (configured without --enable-doxygen)"
  skip=$((skip + 1))
fi

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

# --- the prefix moved -------------------------------------------------------
# A copy of the prefix under another name, the original left in place: the
# projects are pointed at the copy only, and must not reach the original.
case $libdir in
  "$prefix"/*) rel_lib=${libdir#"$prefix"/} ;;
  *) rel_lib= ;;
esac
moved=$tmp/moved/darrayio
case $moved in "$prefix"/*) rel_lib= ;; esac
# names_original FILES...: whether one of FILES names the original prefix.
names_original() {
  grep -l -F "$prefix/" "$@" 2>/dev/null | grep -q .
}
if [ -z "$rel_lib" ]; then
  echo "skip: libdir $libdir is not under the prefix: the package does not move"
  skip=$((skip + 1))
elif ! mkdir -p "$tmp/moved" || ! cp -a "$prefix" "$moved"; then
  : >"$log"
  bad "copying $prefix to $moved"
else
  mlib=$moved/$rel_lib
  echo "==> the prefix copied to $moved"
  flags=$(PKG_CONFIG_PATH=$mlib/pkgconfig pkg-config --cflags --libs darrayio 2>"$log")
  case $flags in
    *"$prefix/"*) bad "pkg-config of the copy names the original: $flags" ;;
    *"$moved"/*) ok "pkg-config of the copy names the copy: $flags" ;;
    *) bad "pkg-config of the copy: '$flags'" ;;
  esac
  mkdir -p "$tmp/moved-make"
  if try "make with pkg-config against the copy" env \
       PKG_CONFIG_PATH="$mlib/pkgconfig" \
       make -C "$tmp/moved-make" -f "$mk" CC="$cc"; then
    runs "the pkg-config program of the copy" "$tmp/moved-make/install_check"
    # The run path is the copy's (the library found there at run time).
    lib=$(ldd "$tmp/moved-make/install_check" 2>/dev/null |
      sed -n 's/^.*libdarrayio\.so[^ ]* => \([^ ]*\).*/\1/p')
    : >"$log"
    case $lib in
      "$moved"/*) ok "the pkg-config program loads $lib" ;;
      *) bad "the pkg-config program loads '$lib', not the copy's" ;;
    esac
  fi
  if command -v cmake >/dev/null 2>&1; then
    if try "cmake finds darrayio in the copy" cmake \
         -S "$src/test/install/cmake" -B "$tmp/moved-cmake" \
         -DCMAKE_PREFIX_PATH="$moved" -DMPI_C_COMPILER="$cc" &&
       try "cmake --build against the copy" \
         cmake --build "$tmp/moved-cmake" --verbose; then
      runs "the CMake program of the copy" "$tmp/moved-cmake/install_check"
      : >"$log"
      if names_original "$tmp/moved-cmake/CMakeCache.txt" \
           $(find "$tmp/moved-cmake/CMakeFiles" -name '*.make' -o \
             -name link.txt); then
        grep -r -n -F "$prefix/" "$tmp/moved-cmake/CMakeCache.txt" \
          "$tmp/moved-cmake/CMakeFiles" >"$log" 2>/dev/null
        bad "the CMake project of the copy names the original prefix"
      elif grep -q -F "$moved/" "$tmp/moved-cmake/CMakeCache.txt"; then
        ok "the CMake project of the copy names the copy only"
      else
        bad "the CMake project of the copy does not name the copy"
      fi
    fi
  fi
fi

line="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && line="$line, $skip skipped"
echo "$line"
[ "$fail" -eq 0 ]
