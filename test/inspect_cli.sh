#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# inspect_cli.sh - tools/darray-inspect on files examples/dist3d writes
# (an 8^3 int32 array, "u" in a .npz, a .npy, a raw file): the listing
# (type, shape, order, the data offset the 4 KiB alignment gives, bytes,
# and the CRC-32 Python's zipfile reads from the archive), --verify at 1
# and 2 processes, then one flipped data byte that --verify must report
# (exit 1, the member named) while the listing still works; --explain's
# byte map; raw files described on the command line; usage errors (2);
# --help and --version (0).
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher.

. "${srcdir:-.}/test/cli.sh"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}
mkdir -p "$tmp" && cd "$tmp" || exit 99
out="$tmp/inspect_cli.$$.out"
base=inspect_cli.$$

# run NP EXPECTED-STATUS TEXT ARGS...: the tool's status and output
run() {
  np=$1 want_rc=$2 want_text=$3
  shift 3
  cli_mpi "$np" tools/darray-inspect "$@"
  cli_expect "NP=$np darray-inspect $*" "$want_rc" "$want_text"
}

for f in npz npy dat; do
  DARRAY_TEST_NP=2 /bin/sh "$wrapper" "$top/examples/dist3d" -n 8 \
    --file "$base.$f" --keep --ops write >/dev/null || exit 1
done

# The CRC-32 the archive's central directory records, read by Python (or
# by unzip -v when there is no python3).
crc=
if command -v python3 >/dev/null; then
  crc=$(python3 -c 'import sys, zipfile
print("%08x" % zipfile.ZipFile(sys.argv[1]).getinfo("u.npy").CRC)' "$base.npz")
elif command -v unzip >/dev/null; then
  crc=$(unzip -v "$base.npz" | awk '$NF == "u.npy" { print $7 }')
fi

row="u                int32    8x8x8                C                4096           2048"
run 1 0 "$row ${crc:-}" "$base.npz"
run 1 0 "$base.npz: npz, 1 array," "$base.npz"
run 1 0 "verify: ok, 1 CRC-32 checked by 1 process" --verify "$base.npz"
run 2 0 "verify: ok, 1 CRC-32 checked by 2 processes" --verify "$base.npz"
run 1 0 "[          4096,           6144)            2048 bytes  data of u" \
  --explain "$base.npz"
run 2 0 "ZIP central directory and end records" --explain "$base.npz"
run 2 0 "read in BLOCKs of dimension 0 by 2 processes" --explain "$base.npz"
run 1 0 "records no CRC-32" --verify "$base.npy"
run 1 0 "(array)          int32    8x8x8                C" "$base.npy"

# One byte of the data flipped (element 25 of u, 4096 + 100): the listing
# is unchanged, --verify fails at every process count and names u.
byte=$(od -An -tu1 -j 4196 -N 1 "$base.npz" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 255)))" |
  dd of="$base.npz" bs=1 seek=4196 conv=notrunc 2>/dev/null
run 1 0 "$row ${crc:-}" "$base.npz"
run 1 1 "verify failed (DARRAY_ECRC)" --verify "$base.npz"
run 2 1 "verify failed (DARRAY_ECRC)" --verify "$base.npz"
run 2 1 "u" --verify "$base.npz"

# Raw files, described here.
run 1 0 "-                int32    8x8x8                C                   0           2048 -" \
  --raw --type int32 --shape 8x8x8 "$base.dat"
run 2 0 "verify: ok, the file holds the array (a raw file" --verify --raw \
  --type int32 --shape 8x8x8 "$base.dat"
run 1 0 "double   4x4x8                F                   0           1024" \
  --raw --type double --shape 4x4x8 --order F "$base.dat"
run 1 1 "2048 bytes, the array ends at 4096" --verify --raw --type int32 \
  --shape 8x8x8 --offset 2048 "$base.dat"
run 1 0 "not described (before the array)" --explain --raw --type int32 \
  --shape 4x8x8 --offset 1024 "$base.dat"

# Usage and refusals.
run 1 0 "usage: darray-inspect" --help
run 1 0 "darray-inspect (darrayio) $version" --version
run 1 2 "--raw needs --type" --raw --shape 8 "$base.dat"
run 1 2 "--shape '8x0'" --raw --type int32 --shape 8x0 "$base.dat"
run 1 2 "go with --raw" --type int32 "$base.npz"
run 1 2 "no file given" --verify
run 1 1 "DARRAY_EINVAL" "$base.dat"
cp "$base.dat" "$base.bad.npz"
run 1 1 "DARRAY_EFORMAT" "$base.bad.npz"
rm -f "$base".* "$out"
[ $fails -eq 0 ]
