#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# doc.sh - the documentation site builds without a single Doxygen warning
# (`make doc`, which fails on any), and holds what it should:
#  - the page of error codes (doc/errors.md, generated from the header's
#    DARRAY_ERROR_TABLE by doc/error-table) has one row per code of the
#    header, with the code's value, and no other row; the names and values
#    are read here from the header's text, not through the compiler; the
#    header's table itself is aligned (its backslashes in column 80);
#  - every guide, the README, the benchmark's two pages and the error
#    codes are pages of the site, and the main page links to each, and to
#    every group of the API reference;
#  - no link was left pointing at a .md file: Doxygen turns a Markdown
#    link to one of its pages into a link to the page, and leaves one it
#    cannot resolve as it was, without a warning.
# Skipped when the build was configured without --enable-doxygen
# (tools/quickstart.sh enables it for the tests).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
if ! grep -q '^DOXYGEN = .*doxygen' "$top/Makefile" 2>/dev/null; then
  echo "SKIP: configured without --enable-doxygen"
  exit 77
fi
make -C "$top" doc || exit 1

src=$(sed -n 's/^abs_top_srcdir = //p' "$top/Makefile")
html=$top/doc/api
page=$top/doc/errors.md
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The codes as the header's text lists them: "X(DARRAY_NAME, value,".
codes=$(sed -n 's/.*X(\(DARRAY_[A-Z0-9_]*\), *\(-\{0,1\}[0-9][0-9]*\),.*/\1 \2/p' \
  "$src/include/darrayio.h")
ncodes=$(printf '%s\n' "$codes" | grep -c .)
[ "$ncodes" -ge 30 ] || bad "only $ncodes codes found in the header's table"
printf '%s\n' "$codes" | while read -r name value; do
  grep -q "^| $name | $value | ..* |\$" "$page" ||
    echo "FAIL: $name ($value) has no row in doc/errors.md"
  grep -q "$name" "$html/errors.html" ||
    echo "FAIL: $name is missing from the site's errors.html"
done | grep . && fail=1
# The header's table reads as a table: every continued line of the
# X-macro ends with its backslash in column 80.
awk '/^#define DARRAY_ERROR_TABLE/ { on = 1 }
     on && /\\$/ && length($0) != 80 {
       print "FAIL: DARRAY_ERROR_TABLE line " NR ": backslash in column " \
             length($0) ", not 80: " $0 }
     on && !/\\$/ { exit }' "$src/include/darrayio.h" | grep . && fail=1
nrows=$(grep -c '^| DARRAY_' "$page")
[ "$nrows" -eq "$ncodes" ] ||
  bad "doc/errors.md has $nrows rows for the header's $ncodes codes"

for p in readme porting fortran sieving planner advisor formats reliability bench \
         bench_results errors; do
  [ -f "$html/$p.html" ] || bad "no page $p.html"
  grep -q "href=\"$p.html" "$html/index.html" ||
    bad "the main page does not link to $p.html"
done
for g in errors describe queries files nonblocking datasets advisor; do
  [ -f "$html/group__api__$g.html" ] || bad "no API group page api_$g"
  grep -q "href=\"group__api__$g.html" "$html/index.html" ||
    bad "the main page does not link to API group api_$g"
done

# A link that Doxygen could not resolve still ends in .md (or .md#...).
left=$(grep -o 'href="[^"]*\.md\(#[^"]*\)\{0,1\}"' "$html"/*.html | sort -u)
[ -z "$left" ] || bad "links left pointing at .md files:
$left"

[ "$fail" -eq 0 ] && echo "PASS: the site has every page, code and link"
exit "$fail"
