#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# fortran_coverage.sh - module darrayio (fortran/darrayio.F90) covers the
# public C API, so the next public function cannot be forgotten:
#  - every function include/darrayio.h marks DARRAY_API is a public name of
#    the module, and the module defines it (a subroutine, a function or a
#    generic interface of that name), but the C-only calls named below;
#  - every status code of the header's error table is a module constant of
#    the same value.
# A text check: it needs no Fortran compiler and runs in every build.

src=${srcdir:-.}
header=$src/include/darrayio.h
[ -f "$header" ] || header=$(dirname "$0")/../include/darrayio.h
module=$(dirname "$header")/../fortran/darrayio.F90
if [ ! -f "$header" ] || [ ! -f "$module" ]; then
  echo "FAIL: cannot find $header or $module"
  exit 99
fi

tmp=${DARRAY_TEST_TMPDIR:-/tmp}/fortran_coverage.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

# The C calls for what every call of the module does already, which the
# module therefore does not repeat: darray_xfer (its read and write calls
# pass the buffer's size and their own refusals through it),
# darray_set_index_style (its messages are always in Fortran's terms), and
# the calls for other languages' bindings, darray_*_fint (Fortran passes
# its handles to the shims of fortran/darrayio_shim.c) and
# darray_mpi_library (the module is compiled with the library's MPI).
c_only='darray_set_index_style darray_xfer darray_create_fint
darray_file_open_fint darray_dataset_open_fint darray_file_delete_fint
darray_mpi_library'
sed -n 's/^DARRAY_API [^(]*[ *]\(darray_[a-z_0-9]*\)(.*/\1/p' "$header" |
  grep -vxF "$(printf '%s\n' $c_only)" | sort -u >"$tmp/declared"
# The names of the module's `public ::' statements, continuation lines
# included, in lower case (Fortran names are case-insensitive).
awk '{ line = $0; sub(/!.*/, "", line) }
     cont || line ~ /^[ \t]*public[ \t]*::/ {
       cont = line ~ /&[ \t]*$/
       sub(/^[ \t]*public[ \t]*::/, "", line)
       gsub(/[&,]/, " ", line)
       n = split(line, w, /[ \t]+/)
       for (i = 1; i <= n; i++) if (w[i] != "") print tolower(w[i])
     }' "$module" | sort -u >"$tmp/public"
# The procedures and generic interfaces the module defines.
sed -n 's/^ *\(subroutine\|function\|interface\) \([A-Za-z_0-9]*\).*/\2/p' \
  "$module" | tr 'A-Z' 'a-z' | sort -u >"$tmp/defined"

fail=0
n=$(wc -l <"$tmp/declared")
if [ "$n" -lt 40 ]; then
  echo "FAIL: only $n DARRAY_API functions found in $header"
  fail=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/public")
if [ -n "$missing" ]; then
  echo "FAIL: public in darrayio.h but not a public name of module darrayio:"
  echo "$missing"
  fail=1
fi
undefined=$(comm -23 "$tmp/declared" "$tmp/defined")
if [ -n "$undefined" ]; then
  echo "FAIL: no subroutine, function or interface of that name in the module:"
  echo "$undefined"
  fail=1
fi

# Status codes: "X(DARRAY_NAME, value," in the header; "DARRAY_NAME = value"
# in the module.
codes=$(sed -n 's/^ *X(\(DARRAY_[A-Z0-9_]*\), *\(-*[0-9][0-9]*\),.*/\1 \2/p' \
  "$header")
nc=$(printf '%s\n' "$codes" | grep -c DARRAY_)
if [ "$nc" -lt 30 ]; then
  echo "FAIL: only $nc status codes found in $header"
  fail=1
fi
absent=$(printf '%s\n' "$codes" | while read -r name value; do
  grep -Eq "(^|[ ,])$name = $value([^0-9]|\$)" "$module" ||
    echo "$name = $value"
done)
if [ -n "$absent" ]; then
  echo "FAIL: status codes that are not constants of the module (same value):"
  echo "$absent"
  fail=1
fi

[ "$fail" -eq 0 ] && echo "PASS: $n functions and $nc status codes in module darrayio"
exit $fail
