#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# man.sh - the hand-written manual pages (doc/man) keep up with the code:
#  - darrayio.3 names every function include/darrayio.h marks DARRAY_API;
#  - darrayio-fortran.3 and doc/fortran.md name every public procedure of
#    the Fortran module (fortran/darrayio.F90);
#  - the pages name the guides where they are installed (@docdir@), never
#    in the sources;
#  - each tool's page, darray-TOOL.1, names every option its usage text
#    (the usage() of tools/darray-TOOL.c) lists, and no other;
#  - groff, when installed, formats each page without a warning.
# A text check: it runs in every build.

src=${srcdir:-.}
[ -f "$src/include/darrayio.h" ] || src=$(dirname "$0")/..
man=$src/doc/man
tmp=${DARRAY_TEST_TMPDIR:-/tmp}/man.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

fail=0
sed -n 's/^DARRAY_API [^(]*[ *]\(darray_[a-z_0-9]*\)(.*/\1/p' \
  "$src/include/darrayio.h" | sort -u >"$tmp/declared"
n=$(wc -l <"$tmp/declared")
if [ "$n" -lt 40 ]; then
  echo "FAIL: only $n DARRAY_API functions found in darrayio.h"
  fail=1
fi
# A function is named when it appears as a word: roff writes darray_x(...)
# in the synopsis and ".BR darray_x ()" in the text.
grep -o 'darray_[a-z_0-9]*' "$man/darrayio.3" | sort -u >"$tmp/named"
missing=$(comm -23 "$tmp/declared" "$tmp/named")
if [ -n "$missing" ]; then
  echo "FAIL: public in darrayio.h but not in doc/man/darrayio.3:"
  echo "$missing"
  fail=1
fi

# The Fortran module: every public procedure (the "public ::" statements
# under its "public procedures" line) is named in darrayio-fortran(3) and
# in the guide doc/fortran.md, which gives its C counterpart.
sed -n '/! ---- public procedures/,/^ *$/p' "$src/fortran/darrayio.F90" |
  grep -o 'darray_[a-z_0-9]*' | sort -u >"$tmp/fdeclared"
nf=$(wc -l <"$tmp/fdeclared")
if [ "$nf" -lt 40 ]; then
  echo "FAIL: only $nf public procedures found in fortran/darrayio.F90"
  fail=1
fi
for doc in "$man/darrayio-fortran.3" "$src/doc/fortran.md"; do
  grep -o 'darray_[a-z_0-9]*' "$doc" | sort -u >"$tmp/fnamed"
  missing=$(comm -23 "$tmp/fdeclared" "$tmp/fnamed")
  if [ -n "$missing" ]; then
    echo "FAIL: public in fortran/darrayio.F90 but not in $doc:"
    echo "$missing"
    fail=1
  fi
done

# The pages name installed files through @docdir@ and @htmldir@ (make
# writes the directories in); no other placeholder, and no path into the
# sources, which an installed user does not have.
for page in "$man"/*.[0-9]; do
  other=$(grep -o '@[A-Za-z_]*@' "$page" | grep -v '^@docdir@$' |
    grep -v '^@htmldir@$' | sort -u)
  if [ -n "$other" ]; then
    echo "FAIL: $page has placeholders make does not replace: $other"
    fail=1
  fi
  if grep -n 'in the darrayio sources' "$page"; then
    echo "FAIL: $page points into the sources"
    fail=1
  fi
done

# Options: "--name" in the C source's usage(), "\-\-name" in roff.
for tool in darray-advise darray-inspect darray-calibrate darray-plan \
  darray-subfile; do
  c=$src/tools/$tool.c page=$man/$tool.1
  sed -n '/^static void usage/,/^}/p' "$c" | grep -o -- '--[a-z][a-z-]*' |
    sort -u >"$tmp/$tool.usage"
  grep -o -- '\\-\\-[a-z][a-z-]*' "$page" | sed 's/\\-/-/g' |
    sort -u >"$tmp/$tool.page"
  if [ "$(wc -l <"$tmp/$tool.usage")" -lt 4 ]; then
    echo "FAIL: no usage text found in $c"
    fail=1
  fi
  if ! cmp -s "$tmp/$tool.usage" "$tmp/$tool.page"; then
    echo "FAIL: the options of $tool's usage text and of its page differ" \
      "(<: usage only, >: page only):"
    diff "$tmp/$tool.usage" "$tmp/$tool.page" | grep '^[<>]'
    fail=1
  fi
done

if command -v groff >/dev/null 2>&1; then
  for page in "$man"/*.[0-9]; do
    warnings=$(groff -man -ww -z "$page" 2>&1)
    if [ -n "$warnings" ]; then
      echo "FAIL: groff warns about $page:"
      echo "$warnings"
      fail=1
    fi
  done
fi

[ "$fail" -eq 0 ] && echo "PASS: $n functions in darrayio(3), $nf Fortran procedures in darrayio-fortran(3) and doc/fortran.md, the tools' options in their pages"
exit $fail
