#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# exports.sh - the shared library exports the public API and nothing else:
# every function the header marks DARRAY_API, and no other symbol (the
# library is built with -fvisibility=hidden; internal darray__* functions,
# test wrappers and helpers must stay inside it). One MPI name besides:
# the library's MPI_Finalize (src/darray_final.c), exported exactly when
# configure defined DARRAY_FINALIZE_WRAPPER.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
src=${srcdir:-.}
lib=$top/src/.libs/libdarrayio.so
header=$src/include/darrayio.h
[ -f "$header" ] || header=$(dirname "$0")/../include/darrayio.h
if [ ! -f "$lib" ]; then
  echo "SKIP: no shared library at $lib (--disable-shared?)"
  exit 77
fi
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }

tmp=${DARRAY_TEST_TMPDIR:-/tmp}/exports.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ { print $3 }' |
  sed 's/@.*//' | sort -u >"$tmp/exported"
sed -n 's/^DARRAY_API [^(]*[ *]\(darray_[a-z_0-9]*\)(.*/\1/p' "$header" |
  sort -u >"$tmp/declared"
if grep -q '^#define DARRAY_FINALIZE_WRAPPER 1' "$top/config.h"; then
  echo MPI_Finalize >>"$tmp/declared"
  sort -u -o "$tmp/declared" "$tmp/declared"
fi

fail=0
n=$(wc -l <"$tmp/declared")
if [ "$n" -lt 30 ]; then
  echo "FAIL: only $n DARRAY_API functions found in $header"
  fail=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
  echo "FAIL: declared DARRAY_API but not exported:"; echo "$missing"; fail=1
fi
if [ -n "$extra" ]; then
  echo "FAIL: exported but not public API:"; echo "$extra"; fail=1
fi
echo "exports: $n public functions declared, $(wc -l <"$tmp/exported") symbols exported"
exit $fail
