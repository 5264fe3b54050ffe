#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# doc.sh - the API reference builds without a single Doxygen warning
# (`make doc`, which fails on any). Skipped when the build was configured
# without --enable-doxygen (tools/quickstart.sh enables it for the tests).

top=${DARRAY_TOP_BUILDDIR:-$(pwd)}
if ! grep -q '^DOXYGEN = .*doxygen' "$top/Makefile" 2>/dev/null; then
  echo "SKIP: configured without --enable-doxygen"
  exit 77
fi
make -C "$top" doc
