#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
"""dist3d.py - examples/dist3d in Python: an N x N x N array of int32,
(BLOCK, BLOCK, BLOCK) over a 3-D process grid, stored in C order; each
process writes its block, reads it back and checks every element. It
writes the same bytes as examples/dist3d with the same options
(test/python.sh compares the two files).

Run:  mpiexec -n 4 python3 examples/dist3d.py -n 128
      mpiexec -n 2 python3 examples/dist3d.py -n 256 -g 1x1x2 --reps 3

Options (as examples/dist3d): -n N, -g PxQxR (0 entries chosen), --ops
write,read, --reps K, --file PATH (.npy, .npz with the array "u", or raw;
default ./dist3d.dat, removed at the end), --keep, --hints K=V;...

Element (i, j, k) is 7*((i*N + j)*N + k) + the repetition's number.
Prints, from rank 0, the grid, one line per phase and repetition, and
"dist3d: verified N^3 elements, OK" (exit 0), or the count of wrong
elements (exit 1); a darrayio error prints its message and exits 2.
"""

import argparse
import os
import sys

import numpy
from mpi4py import MPI

import darrayio


def options():
    p = argparse.ArgumentParser(prog="dist3d.py")
    p.add_argument("-n", type=int, default=64)
    p.add_argument("-g", default="0x0x0")
    p.add_argument("--ops", default="write,read")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--file", default="./dist3d.dat")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--hints", default="")
    o = p.parse_args()
    o.grid = [int(x) for x in o.g.split("x")]
    ops = o.ops.split(",")
    o.write, o.read = "write" in ops, "read" in ops
    o.hints = dict(kv.split("=", 1) for kv in o.hints.split(";") if kv)
    return o


def values(a, n, r):
    """The closed form over this process's block."""
    i, j, k = (numpy.arange(s, s + c, dtype=numpy.int64)
               for s, c in zip(a.local_start(), a.local_shape()))
    v = ((i[:, None, None] * n + j[None, :, None]) * n + k[None, None, :])
    return (v * 7 + r).astype(numpy.int32)


def run(o, comm):
    n = o.n
    a = darrayio.Array(comm, (n, n, n), "i4", grid=o.grid)
    nbytes = n * n * n * 4
    if comm.rank == 0:
        print("dist3d: N=%d grid %s, %d bytes"
              % (n, "x".join(str(g) for g in a.grid), nbytes))
    npy, npz = o.file.endswith(".npy"), o.file.endswith(".npz")
    if npy or npz:
        f = darrayio.open_dataset(comm, o.file, "w" if o.write else "r",
                                  o.hints)
        f.define("u" if npz else None, a)
    else:
        f = darrayio.open(comm, o.file, "a", o.hints)
    bad = 0
    buf = a.empty()
    with f:
        for r in range(o.reps):
            for op in ("write", "read"):
                if not getattr(o, op):
                    continue
                if op == "write":
                    buf[...] = values(a, n, r)
                else:
                    buf[...] = 0
                comm.Barrier()
                t = MPI.Wtime()
                if op == "write":
                    f.write(a, buf)
                else:
                    f.read(a, buf)
                t = comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)
                if comm.rank == 0:
                    print("%-6s rep %d: %d bytes in %.4f s = %.1f MiB/s"
                          % (op, r, nbytes, t, nbytes / t / 2**20))
                if op == "read":
                    want = values(a, n, r if o.write else 0)
                    bad += int(numpy.count_nonzero(buf != want))
    bad = comm.allreduce(bad)
    if comm.rank == 0 and not o.keep:
        os.remove(o.file)
    if comm.rank == 0 and o.read:
        print("dist3d: %d wrong elements, FAILED" % bad if bad
              else "dist3d: verified %d^3 elements, OK" % n)
    return 1 if bad else 0


def main():
    o = options()
    try:
        return run(o, MPI.COMM_WORLD)
    except darrayio.Error as e:
        sys.stderr.write("dist3d: %s\n" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
