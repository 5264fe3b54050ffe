#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# subfile_cli.sh - tools/darray-subfile against the library:
#   - examples/dist3d writes one array at 2 processes as a plain file and,
#     with DARRAYIO_HINTS=darray_backend=subfiles (stripes of 100 bytes,
#     3 subfiles), as a set; `join` of the set is cmp-identical to the
#     plain file;
#   - `split` of the plain file with the same layout is cmp-identical to
#     the set the library wrote (descriptor and every subfile), and a split
#     with another layout (7-byte stripes, 4 subfiles) joins back to the
#     plain file;
#   - errors: a missing set, a file that is not a descriptor, a missing
#     and a truncated subfile, an existing output without --force give
#     status 1 and a message naming the file; `split --force` onto a set
#     of another factor removes the old subfiles; a FIFO in place of a
#     subfile or of split's input is refused at once (under timeout); a
#     sparse 2^62-byte subfile whose logical end passes 2^63 - 1 is status
#     1 naming it (where /dev/shm or the test directory holds one); usage
#     errors give 2; --help and --version 0.
#
# Exit status: 0, 1 on failure, 77 (skip) without a launcher.

. "${srcdir:-.}/test/cli.sh"
tmp=${DARRAY_TEST_TMPDIR:-$top/test/tmp}/subfile_cli.$$
tool=$top/tools/darray-subfile
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
out="$tmp/out"

# run EXPECTED-STATUS TEXT ARGS...: the tool's status and output
run() {
  want_rc=$1 want_text=$2
  shift 2
  "$tool" "$@" >"$out" 2>&1
  got=$?
  cli_expect "darray-subfile $*" "$want_rc" "$want_text"
}

same() { # same A B WHAT
  if cmp "$1" "$2"; then echo "ok: $3"; else
    echo "FAIL: $3: $1 and $2 differ"
    fails=$((fails + 1))
  fi
}

dist3d() { # dist3d FILE [HINTS]
  DARRAYIO_HINTS=$2 DARRAY_TEST_NP=2 /bin/sh "$wrapper" \
    "$top/examples/dist3d" -n 10 --file "$1" --keep >"$out" 2>&1
  rc=$?
  [ $rc -eq 77 ] && exit 77
  if [ $rc -ne 0 ]; then
    echo "FAIL: dist3d --file $1 (hints '$2'): status $rc"
    cat "$out"
    fails=$((fails + 1))
  fi
}

run 0 "usage: darray-subfile" --help
run 0 "darray-subfile (darrayio) $version" --version
run 2 "give a command"
run 2 "unknown option" join --bogus a b
run 2 "split needs --unit and --factor" split --unit 8 a b
run 2 "--factor needs a number" split --unit 8 --factor 0 a b
run 2 "--unit needs a number" split --unit x --factor 2 a b
run 2 "give two paths" join a
run 2 "--unit and --factor are for split" join --unit 8 a b

dist3d plain.dat ""
dist3d set.dat "darray_backend=subfiles;striping_unit=100;striping_factor=3"
run 0 "" join set.dat joined.dat && same joined.dat plain.dat "join = plain"
run 0 "" split --unit 100 --factor 3 plain.dat split.dat
same split.dat set.dat "split: the descriptor is the library's"
for j in 0 1 2; do
  same split.dat.sub${j}of3 set.dat.sub${j}of3 "split: subfile $j"
done
run 0 "" split --unit 7 --factor 4 plain.dat s74.dat
run 0 "" join s74.dat j74.dat && same j74.dat plain.dat "split 7x4, join"

run 1 "missing.dat" join missing.dat x.dat
run 1 "is not a subfile descriptor" join plain.dat x.dat
run 1 "exists" join set.dat joined.dat
run 0 "" join --force set.dat joined.dat
run 1 "exists" split --unit 7 --factor 4 plain.dat s74.dat
# --force onto a set of another factor: the old subfiles go with it
run 0 "" split --unit 7 --factor 4 plain.dat s42.dat
run 0 "" split --force --unit 9 --factor 2 plain.dat s42.dat
left=$(ls s42.dat.sub*of4 2>/dev/null)
if [ -n "$left" ]; then
  echo "FAIL: split --force left the old set's subfiles: $left"
  fails=$((fails + 1))
fi
run 0 "" join s42.dat j42.dat && same j42.dat plain.dat "split --force 9x2, join"
head -c 50 s74.dat.sub2of4 >cut && mv cut s74.dat.sub2of4
run 1 "truncated" join s74.dat x2.dat && run 1 "s74.dat.sub2of4" join s74.dat x2.dat
rm -f s74.dat.sub1of4
run 1 "s74.dat.sub1of4" join s74.dat x3.dat

# A FIFO where a subfile or the input is: refused at once (status 1, the
# message naming it), not a wait for a writer; timeout is the watchdog
# (status 124: a hang)
run 0 "" split --unit 7 --factor 2 plain.dat pipe.dat
rm -f pipe.dat.sub1of2 && mkfifo pipe.dat.sub1of2 && mkfifo in.fifo || exit 99
timeout 20 "$tool" join pipe.dat xp.dat >"$out" 2>&1
got=$?
cli_expect "darray-subfile join (a FIFO subfile)" 1 "pipe.dat.sub1of2"
cli_expect "darray-subfile join (a FIFO subfile)" 1 "FIFO"
timeout 20 "$tool" split --unit 8 --factor 2 in.fifo xs.dat >"$out" 2>&1
got=$?
cli_expect "darray-subfile split (a FIFO input)" 1 "FIFO"

# A sparse subfile of 2^62 bytes in a set of 4 stripes of 2^40 bytes: its
# last byte's logical offset passes 2^63 - 1 (the join's arithmetic
# overflowed, and the set joined as empty); where a file system here
# (tmpfs at /dev/shm, or the test directory) holds such a file
big=
for d in /dev/shm "$tmp"; do
  b=$(mktemp -d "$d/subfile_big.XXXXXX" 2>/dev/null) || continue
  : >"$b/empty"
  "$tool" split --unit 1099511627776 --factor 4 "$b/empty" "$b/big" \
    >/dev/null 2>&1 &&
    truncate -s 4611686018427387904 "$b/big.sub0of4" 2>/dev/null &&
    big=$b && break
  rm -rf "$b"
done
if [ -n "$big" ]; then
  run 1 "would pass 2^63 - 1" join "$big/big" "$big/joined"
  run 1 "big.sub0of4" join "$big/big" "$big/joined"
  [ -e "$big/joined" ] && [ -s "$big/joined" ] &&
    { echo "FAIL: join wrote bytes for an impossible set"; fails=$((fails + 1)); }
  rm -rf "$big"
else
  echo "skip: no file system here holds a sparse 2^62-byte file"
fi

[ $fails -eq 0 ] || exit 1
echo "subfile_cli: all checks passed"
