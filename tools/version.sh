#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# version.sh - print darrayio's release number, MAJOR.MINOR.PATCH, from the
# one place it is kept: the DARRAYIO_VERSION_* macros of include/darrayio.h.
# configure.ac calls it when autoconf runs (from the top of the tree).
here=$(dirname "$0")
awk '/^#define DARRAYIO_VERSION_(MAJOR|MINOR|PATCH) / {
       printf "%s%s", sep, $3; sep = "."
     }' "$here/../include/darrayio.h"
