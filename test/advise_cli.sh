#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# advise_cli.sh - the command-line storage advisor (tools/darray-advise):
# its recommendation for row and column readers, --quiet, --order, and its
# exit status on usage errors (2) and on descriptions the advisor rejects
# (1, with the library's message); --help and --version (0). One process.

. "${srcdir:-.}/test/cli.sh"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" || exit 99
out="$tmp/advise_cli.out"
DARRAY_TEST_NP=1
export DARRAY_TEST_NP

# run EXPECTED-STATUS TEXT ARGS...: the tool's status and output
run() {
  want_rc=$1 want_text=$2
  shift 2
  cli_mpi 1 tools/darray-advise "$@"
  cli_expect "darray-advise $*" "$want_rc" "$want_text"
}

rows='rows,w=3,np=4,dist=block:*'
cols='cols,w=1,np=4,dist=*:block'
run 0 "recommended storage order: 0 1 (C)" --shape 1024x1024 --esize 4 \
  --consumer "$rows" --consumer "$cols"
run 0 "need collective I/O: cols (weight 1)" --shape 1024x1024 --esize 4 \
  --consumer "$rows" --consumer "$cols"
run 0 "1 0" --quiet --shape 64x64 --consumer 'a,w=1,np=2,dist=*:block' \
  --consumer 'b,w=3,np=3,dist=*:cyclic(4),grid=1x3'
run 0 "rows             interleaved" --shape 64x32 --consumer "$rows" \
  --consumer "$cols" --order F
run 0 "recommended storage order: 1 0 2" --shape 8x8x8 \
  --consumer 'bt,np=4,dist=mp:mp:mp' --consumer 'y,np=2,dist=*:block:*'
run 2 "--shape is required" --consumer "$rows"
run 2 "dist '*' does not have one entry per dimension" --shape 4x4 \
  --consumer 'x,np=2,dist=*'
run 2 "unknown key 'q'" --shape 4x4 --consumer 'x,np=2,dist=*:*,q=1'
run 2 "block(K)" --shape 4x4 --consumer 'x,np=2,dist=block(0):*'
run 1 "DARRAY_EGRID: consumers[0] (x): psizes" --shape 8x8 \
  --consumer 'x,np=4,dist=*:*'
run 1 "DARRAY_EDIST: consumers[1] (mp): dist: MULTIPARTITION needs" \
  --shape 8x8x8 --consumer 'ok,np=2,dist=block:*:*' \
  --consumer 'mp,np=3,dist=mp:mp:mp'
# --help and --version answer with status 0 (the version is the one
# configure read from the header, tools/version.sh).
run 0 "usage: darray-advise" --help
run 0 "darray-advise (darrayio) $version" \
  --version
[ $fails -eq 0 ]
