#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
#
# npz_deflate_model.py - a model of the compressed .npz member that
# doc/compression.md designs (issue #34; not yet built into darrayio):
# it writes, serially, the archive the parallel writer is to write, and
# checks what other readers make of it.
#
#   /usr/bin/python3 tools/npz_deflate_model.py OUT.npz [N [BLOCK [LEVEL]]]
#
# The member u.npy holds N float64 (default 300000: a smooth field with
# noise). Its bytes (the .npy header and the data) are cut into blocks of
# BLOCK bytes (default 65536), each deflated alone at LEVEL (default 1),
# all but the last ended by a full flush; the pieces laid end to end are
# the member's one deflate stream (ZIP method 8). The index table (one
# little-endian 64-bit offset per piece, from the member's first
# compressed byte) follows the compressed bytes, 8-aligned, outside every
# member; the central directory entry points at it with the extra field
# 0xD936 of doc/compression.md. Checks, each printed: every piece
# inflates alone into its block; numpy.load lists exactly ['u'] and reads
# the array equal; zipfile.testzip() finds no error; `unzip -t` passes
# (where unzip is installed). Exit status 1 when a check fails.
import io
import shutil
import struct
import subprocess
import sys
import zlib

import numpy as np

ID_INDEX = 0xD936


def pieces(u, block, level):
    out, offs, at = [], [], 0
    nblocks = (len(u) + block - 1) // block
    for k in range(nblocks):
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        last = k == nblocks - 1
        p = c.compress(u[k * block:(k + 1) * block])
        p += c.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH)
        offs.append(at)
        at += len(p)
        out.append(p)
    return b"".join(out), offs


def archive(a, block, level):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, version=(1, 0))
    u = buf.getvalue()
    z, offs = pieces(u, block, level)
    crc, name = zlib.crc32(u), b"u.npy"
    # local header: version 2.0, no flags, method 8, time 0, date 1980-01-01
    lh = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc,
                     len(z), len(u), len(name), 0) + name
    table_at = len(lh) + len(z)
    table_at += -table_at % 8
    gap = b"\0" * (table_at - len(lh) - len(z))
    table = b"".join(struct.pack("<Q", o) for o in offs)
    extra = struct.pack("<HHBBBBQQQII", ID_INDEX, 36, 1, 1, level, 0, block,
                        len(offs), table_at, zlib.crc32(table), 0)
    cd_at = table_at + len(table)
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0,
                     0x21, crc, len(z), len(u), len(name), len(extra), 0, 0,
                     0, 0, 0) + name + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(cd), cd_at, 0)
    return lh + z + gap + table + cd + end, u, z, offs, len(lh)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__ if __doc__ else "usage: npz_deflate_model.py OUT.npz")
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    block = int(sys.argv[3]) if len(sys.argv) > 3 else 65536
    level = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    x = np.arange(n, dtype=np.float64)
    a = np.sin(x / 1000.0) + 1e-6 * np.random.default_rng(1).random(n)
    data, u, z, offs, _ = archive(a, block, level)
    with open(path, "wb") as f:
        f.write(data)
    bad = 0
    for k, o in enumerate(offs):
        e = offs[k + 1] if k + 1 < len(offs) else len(z)
        if zlib.decompressobj(-15).decompress(z[o:e]) != \
                u[k * block:(k + 1) * block]:
            print("piece %d does not inflate alone into its block" % k)
            bad = 1
    print("%d pieces of %d bytes, ratio %.4f, each inflating alone: %s"
          % (len(offs), block, len(u) / len(z), "no" if bad else "yes"))
    npz = np.load(path)
    ok = npz.files == ["u"] and np.array_equal(npz["u"], a)
    print("numpy %s: files %s, array equal: %s" % (np.__version__, npz.files,
                                                   ok))
    bad |= not ok
    import zipfile
    with zipfile.ZipFile(path) as zf:
        t = zf.testzip()
    print("zipfile.testzip(): %s" % ("ok" if t is None else t))
    bad |= t is not None
    if shutil.which("unzip"):
        r = subprocess.run(["unzip", "-tq", path], capture_output=True,
                           text=True)
        print("unzip -t: %s" % r.stdout.strip())
        bad |= r.returncode != 0
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
