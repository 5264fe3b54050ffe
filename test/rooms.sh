#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# rooms.sh - the rooms of src/ call each other without a circle (doc/rooms.md,
# issue #33): tools/rooms.py reads the built library's objects with nm and
# fails, naming the calls that make it, when a room calls a room above it.

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
src=${srcdir:-.}
tool=$src/tools/rooms.py
[ -f "$tool" ] || tool=$(dirname "$0")/../tools/rooms.py
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
py=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3"; exit 77; }
[ -d "$top/src" ] || { echo "FAIL: no build at $top"; exit 99; }
"$py" "$tool" "$top"
