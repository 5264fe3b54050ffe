#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
"""btio_post.py - post-processing of a BTIO file at any process count:
the dumps examples/btio wrote (with MULTIPARTITION over a square number
of processes) are read here over however many processes run this, each
a slab of z-planes of every dump, and reduced with NumPy: the mean, the
smallest and the largest value of each of the 5 components in each dump.

The file is K dumps of u(5, N, N, N) in Fortran order, one after
another: in C terms a (K, N, N, N, 5) array of float64 (z, y, x, the
component fastest), BLOCK over z.

Run:  mpiexec -n 4 examples/btio --class S --dumps 3 --write-only --keep \\
          --file bt.dat
      mpiexec -n 3 python3 examples/btio_post.py bt.dat --class S --check

--class S|W|A|B|C gives N (12, 24, 64, 102, 162; or -n N); the number of
dumps comes from the file's size. --check: rank 0 also reads the whole
file with numpy.fromfile and compares (the test's independent oracle);
"btio_post: OK" then, else the first difference and exit 1.
"""

import argparse
import os
import sys

import numpy
from mpi4py import MPI

import darrayio

CLASSES = {"S": 12, "W": 24, "A": 64, "B": 102, "C": 162}


def reduce_dumps(comm, path, n):
    dumps = os.path.getsize(path) // (40 * n ** 3)
    shape = (dumps, n, n, n, 5)
    a = darrayio.Array(comm, shape, "f8",
                       dist=(None, "block", None, None, None),
                       grid=(1, comm.size, 1, 1, 1))
    with darrayio.open(comm, path, "r") as f:
        u = f.read(a)  # this process's z-planes of every dump
    # per dump and component: sum, count, min, max over the local planes
    flat = u.reshape(dumps, -1, 5)
    big = numpy.finfo("f8").max
    s = flat.sum(axis=1) if flat.shape[1] else numpy.zeros((dumps, 5))
    lo = flat.min(axis=1) if flat.shape[1] else numpy.full((dumps, 5), big)
    hi = flat.max(axis=1) if flat.shape[1] else numpy.full((dumps, 5), -big)
    out = []
    for mine, op in ((s, MPI.SUM), (lo, MPI.MIN), (hi, MPI.MAX)):
        mine = numpy.ascontiguousarray(mine, "f8")
        r = numpy.empty_like(mine)
        comm.Allreduce(mine, r, op=op)
        out.append(r)
    return out[0] / n ** 3, out[1], out[2]


def main():
    p = argparse.ArgumentParser(prog="btio_post.py")
    p.add_argument("file")
    p.add_argument("--class", dest="cls", default="S", choices=CLASSES)
    p.add_argument("-n", type=int, default=0)
    p.add_argument("--check", action="store_true")
    o = p.parse_args()
    comm = MPI.COMM_WORLD
    n = o.n or CLASSES[o.cls]
    try:
        mean, lo, hi = reduce_dumps(comm, o.file, n)
    except darrayio.Error as e:
        sys.stderr.write("btio_post: %s\n" % e)
        return 2
    if comm.rank != 0:
        return 0
    for d in range(mean.shape[0]):
        print("dump %d: mean %s" % (d, " ".join("%.6g" % v for v in mean[d])))
    if not o.check:
        return 0
    whole = numpy.fromfile(o.file, "<f8").reshape(mean.shape[0], -1, 5)
    want = (whole.mean(axis=1), whole.min(axis=1), whole.max(axis=1))
    for name, got, exp in zip(("mean", "min", "max"), (mean, lo, hi), want):
        if not numpy.allclose(got, exp, rtol=1e-12, atol=0):
            bad = numpy.argwhere(~numpy.isclose(got, exp, rtol=1e-12))[0]
            print("btio_post: %s of dump %d component %d is %r, numpy %r"
                  % (name, bad[0], bad[1], got[tuple(bad)], exp[tuple(bad)]))
            return 1
    print("btio_post: OK (%d dumps of N=%d over %d processes)"
          % (mean.shape[0], n, comm.size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
