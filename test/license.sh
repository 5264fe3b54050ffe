#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# license.sh - every source file of darrayio names its license (LICENSE,
# BSD 3-Clause) in its header comment: a line that ends with
# "SPDX-License-Identifier: BSD-3-Clause".
#
# The files: in a git checkout, those git tracks (and new ones it does not
# ignore); elsewhere (the unpacked tarball of `make distcheck') those a
# find over the source tree gives. Either list goes through the same
# patterns below: C sources and headers, Fortran, shell scripts, our m4,
# Makefile.am and the Makefile.inc fragments, configure.ac, the cmake,
# pkg-config and Doxygen templates, the CMake consumer of test/install and
# the man pages. Not checked: generated files, LICENSE and the other text
# documents, data (fuzz corpora and past findings, dictionaries, the
# valgrind and sanitizer suppressions).
# A text check: it runs in every build.

src=${srcdir:-.}
[ -f "$src/include/darrayio.h" ] || src=$(dirname "$0")/..
if [ ! -f "$src/include/darrayio.h" ]; then
  echo "FAIL: cannot find the source tree"
  exit 99
fi
src=$(cd "$src" && pwd -P)
tmp=${DARRAY_TEST_TMPDIR:-/tmp}/license.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

# Whether a path (relative to the top of the tree) is one of our sources.
# Only our own folders, so that a build inside the tree adds nothing.
wanted() {
  case $1 in
    fuzz/corpus/* | fuzz/regressions/*) return 1 ;;
    src/* | include/* | test/* | bench/* | fuzz/* | tools/* | examples/* | \
      fortran/*) ;;
    .ci/run | m4/darray_*.m4 | Makefile.am | configure.ac | cmake/*.in | \
      darrayio*.pc.in | doc/Doxyfile.in | doc/man/*.[1-9]) return 0 ;;
    *) return 1 ;;
  esac
  case $1 in
    *.[ch] | *.[Ff]90 | *.sh | */Makefile.inc | */CMakeLists.txt) return 0 ;;
  esac
  return 1
}

top=
if command -v git >/dev/null 2>&1; then
  top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)
  [ -n "$top" ] && top=$(cd "$top" && pwd -P)
fi
if [ "$top" = "$src" ]; then
  how="git ls-files"
  (cd "$src" && git ls-files --cached --others --exclude-standard) \
    >"$tmp/all" || exit 99
else
  how="find"
  (cd "$src" && find . -type f ! -path './.git/*' | sed 's|^\./||') \
    >"$tmp/all" || exit 99
fi
sort -u "$tmp/all" | while IFS= read -r f; do
  if wanted "$f" && [ -f "$src/$f" ]; then echo "$f"; fi
done >"$tmp/files"

n=$(wc -l <"$tmp/files")
fail=0
if [ "$n" -lt 100 ]; then # the tree has about 180: a broken list
  echo "FAIL: only $n source files found (by $how) under $src"
  fail=1
fi
# The header comment: the lines before the first one that is not a comment
# line (nor blank, nor the shebang) in the file's syntax.
while IFS= read -r f; do
  case $f in
    *.[ch]) re='^(/\*|[ \t]*\*|[ \t]*$)' ;;
    *.[Ff]90) re='^([ \t]*!|[ \t]*$)' ;;
    doc/man/*) re='^\.\\"' ;;
    *) re='^([ \t]*#|[ \t]*$)' ;;
  esac
  RE=$re awk '$0 !~ ENVIRON["RE"] { exit }
    /SPDX-License-Identifier: BSD-3-Clause[ \t]*$/ { found = 1; exit }
    END { exit !found }' "$src/$f" || echo "$f"
done <"$tmp/files" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
  echo "FAIL: no 'SPDX-License-Identifier: BSD-3-Clause' in the header comment of:"
  cat "$tmp/missing"
  fail=1
fi

[ "$fail" -eq 0 ] &&
  echo "PASS: $n source files (by $how) name their license"
exit $fail
