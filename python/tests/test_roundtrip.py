# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
"""Round trips of the Python package against an independent oracle: the
global array is computed with NumPy on every process; each process's
local piece comes from the distribution's definition written here (not
from the library); the file's bytes are compared, by rank 0, with the
global array in the storage order (raw files) or with numpy.load
(datasets); reads are compared with the local piece. Run under mpiexec
at any number of processes; the last line is "N passed, N failed".

Usage: python3 test_roundtrip.py DIR
"""

import os
import sys
import traceback

import numpy
from mpi4py import MPI

import darrayio

comm = MPI.COMM_WORLD
rank, nprocs = comm.rank, comm.size
tmp = sys.argv[1] if len(sys.argv) > 1 else "."
passed = failed = 0


def case(fn):
    """Run one test on every process; it passes when it passes on all."""
    global passed, failed
    ok, why = True, ""
    try:
        fn()
    except Exception:  # noqa: BLE001 - any failure fails the case
        ok, why = False, traceback.format_exc()
    oks = comm.allgather(ok)
    if all(oks):
        passed += 1
    else:
        failed += 1
        if not ok:
            sys.stdout.write("FAIL %s (rank %d):\n%s" % (fn.__name__, rank,
                                                         why))
        elif rank == 0:
            sys.stdout.write("FAIL %s on ranks %s\n" % (
                fn.__name__, [r for r, o in enumerate(oks) if not o]))
    sys.stdout.flush()


def path(name):
    return os.path.join(tmp, "py_%s" % name)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


# ---- the oracle ------------------------------------------------------------

def global_array(shape, dtype, k=0):
    n = int(numpy.prod(shape))
    dt = numpy.dtype(dtype)
    if dt.kind == "V":
        raw = (numpy.arange(n * dt.itemsize) * 7 + k) % 251
        return raw.astype(numpy.uint8).view(dt).reshape(shape)
    vals = numpy.arange(n) * 3 + k - n // 2
    if dt.kind == "u":
        vals = numpy.abs(vals)
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        vals = vals % (int(info.max) + 1) if dt.kind == "u" else (
            vals % 100 - 50 if dt.itemsize == 1 else vals)
    return vals.astype(dt).reshape(shape)


def owned(n, p, kind, k, coord):
    """Global indices of dimension length n that grid coordinate coord of
    p owns, in local order (the distributions' definitions)."""
    if kind is None:
        return numpy.arange(n)
    if kind == "block":
        b = k if k > 0 else -(-n // p)
        return numpy.arange(coord * b, min(n, (coord + 1) * b))
    b = k if k > 0 else 1  # cyclic
    idx = numpy.arange(n)
    return idx[(idx // b) % p == coord]


def local_piece(g, dist, grid):
    coords = numpy.unravel_index(rank, grid)  # row-major grid
    idx = []
    for d, spec in enumerate(dist):
        kind, k = (spec if isinstance(spec, tuple) else (spec, -1))
        idx.append(owned(g.shape[d], grid[d], kind, k, coords[d]))
    return g[numpy.ix_(*idx)]


def storage_bytes(g, order):
    if order == "C":
        return g.tobytes(order="C")
    if order == "F":
        return g.tobytes(order="F")
    return numpy.ascontiguousarray(g.transpose(order)).tobytes()


def on_disk(name):
    comm.Barrier()
    with open(path(name), "rb") as fh:
        return fh.read()


# ---- raw round trips ---------------------------------------------------------

DTYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8",
          numpy.longdouble, "V3"]


def grid2():
    return (nprocs, 1)


def raw_roundtrip(shape, dtype, dist, grid, order="C", memory_order="C"):
    g = global_array(shape, dtype)
    a = darrayio.Array(comm, shape, dtype, dist=dist, grid=grid, order=order,
                       memory_order=memory_order)
    want = local_piece(g, dist, grid)
    expect(a.local_shape() == want.shape,
           "local shape %s, oracle %s" % (a.local_shape(), want.shape))
    u = a.empty()
    u[...] = want
    name = "raw_%s_%s.raw" % (numpy.dtype(dtype).str.strip("<>|="),
                              "".join(str(o) for o in order))
    with darrayio.open(comm, path(name), "w") as f:
        f.write(a, u)
    data = on_disk(name)
    if numpy.dtype(dtype) == numpy.dtype(numpy.longdouble):
        # its padding bytes are not values: NumPy's copies need not keep
        # them; compare the values stored
        mine = numpy.frombuffer(storage_bytes(g, order), g.dtype)
        ok = numpy.array_equal(numpy.frombuffer(data, g.dtype), mine)
    else:
        ok = data == storage_bytes(g, order)
    expect(ok, "%s %s: the file's bytes differ from the global array's"
           % (name, dist))
    with darrayio.open(comm, path(name), "r") as f:
        v = f.read(a)
    expect(numpy.array_equal(v.view(numpy.uint8), want.copy(
        order=memory_order).view(numpy.uint8)) if want.dtype.kind == "V"
        else numpy.array_equal(v, want), "%s: read differs" % name)
    comm.Barrier()
    if rank == 0:
        os.remove(path(name))


def test_dtypes_block():
    for dt in DTYPES:
        raw_roundtrip((2 * nprocs + 1, 5), dt, ("block", None), grid2())


def test_distributions():
    n = 3 * nprocs + 2
    for dist in [("block", None), (("block", -(-n // nprocs) + 1), None),
                 ("cyclic", None), (("cyclic", 2), None)]:
        raw_roundtrip((n, 4), "f8", dist, grid2())
    raw_roundtrip((4, 3 * nprocs + 1), "i4", (None, ("cyclic", 2)),
                  (1, nprocs))


def test_orders():
    for order in ["C", "F", (1, 0, 2), (2, 0, 1)]:
        raw_roundtrip((nprocs + 2, 3, 4), "f4", ("block", None, None),
                      (nprocs, 1, 1), order=order)
    raw_roundtrip((nprocs + 2, 3, 4), "f8", ("block", None, None),
                  (nprocs, 1, 1), memory_order="F")


def test_ghosts():
    shape, g = (2 * nprocs + 2, 6), None
    g = global_array(shape, "f8", 5)
    a = darrayio.Array(comm, shape, "f8", dist=("block", None),
                       grid=grid2(), ghosts=(1, 2))
    u = a.empty()
    u[...] = -1.0  # the ghosts: never written
    a.interior(u)[...] = local_piece(g, ("block", None), grid2())
    with darrayio.open(comm, path("ghosts.raw"), "w") as f:
        f.write(a, u)
    expect(on_disk("ghosts.raw") == g.tobytes(), "ghosts: file bytes")
    with darrayio.open(comm, path("ghosts.raw"), "r") as f:
        v = f.read(a)
    expect(numpy.array_equal(a.interior(v), a.interior(u)),
           "ghosts: read interior")


def test_displacement_and_sections():
    shape = (2 * nprocs, 5)
    g = global_array(shape, "i8", 1)
    a = darrayio.Array(comm, shape, "i8", dist=("block", None), grid=grid2(),
                       displacement=16)
    # each process writes its own rows as a section, in C order
    start, count = (2 * rank, 0), (2, 5)
    with darrayio.open(comm, path("sect.raw"), "w") as f:
        f.write_section(a, start, count, numpy.ascontiguousarray(
            g[2 * rank:2 * rank + 2]))
    data = on_disk("sect.raw")
    expect(data[16:] == g.tobytes(), "sections: file bytes")
    # every process reads a column (F-ordered box) that crosses the others'
    with darrayio.open(comm, path("sect.raw"), "r") as f:
        col = f.read_section(a, (0, rank % 5), (shape[0], 1))
    expect(numpy.array_equal(col[:, 0], g[:, rank % 5]), "sections: column")


def test_nonblocking():
    shape = (3 * nprocs, 4)
    g0, g1 = global_array(shape, "f8", 0), global_array(shape, "f8", 9)
    a0 = darrayio.Array(comm, shape, "f8", dist=("block", None), grid=grid2())
    a1 = darrayio.Array(comm, shape, "f8", dist=("block", None), grid=grid2(),
                        displacement=g0.nbytes)
    u0, u1 = a0.empty(), a1.empty()
    u0[...] = local_piece(g0, ("block", None), grid2())
    u1[...] = local_piece(g1, ("block", None), grid2())
    with darrayio.open(comm, path("nb.raw"), "w") as f:
        r0 = f.iwrite(a0, u0)
        r1 = f.iwrite(a1, u1.copy(), buffered=True)
        darrayio.wait_all([r0, r1])
    expect(on_disk("nb.raw") == g0.tobytes() + g1.tobytes(), "iwrite bytes")
    with darrayio.open(comm, path("nb.raw"), "r") as f:
        r = f.iread(a1)
        while not r.test():
            pass
        v = r.wait()
    expect(numpy.array_equal(v, u1), "iread")


# ---- datasets ------------------------------------------------------------------

def test_npz():
    shape = (2 * nprocs + 3, 7)
    gu = global_array(shape, "f8", 2)
    gw = global_array((11 * nprocs,), "i4", 4)
    a = darrayio.Array(comm, shape, "f8", dist=(("cyclic", 2), None),
                       grid=grid2())
    w = darrayio.Array(comm, gw.shape, "i4", dist=("block",))
    with darrayio.open_dataset(comm, path("d.npz"), "w") as f:
        f.define("u", a)
        f.define("w", w)
        u = a.empty()
        u[...] = local_piece(gu, (("cyclic", 2), None), grid2())
        f.write(a, u)
        wl = w.empty()
        wl[...] = local_piece(gw, ("block",), (nprocs,))
        f.write(w, wl)
        expect(f.num_members == 2, "two members")
    comm.Barrier()
    with numpy.load(path("d.npz")) as z:
        expect(sorted(z.files) == ["u", "w"], "members %s" % z.files)
        expect(numpy.array_equal(z["u"], gu), "numpy.load u")
        expect(numpy.array_equal(z["w"], gw), "numpy.load w")
    with darrayio.open_dataset(comm, path("d.npz"), "r") as f:
        f.verify()
        f.define("u", a)
        expect(numpy.array_equal(f.read(a), u), "dataset read")
    with darrayio.open_dataset(comm, path("d.npz"), "r") as f:
        ms = {m["name"]: m for m in f.members()}
        expect(sorted(ms) == ["u", "w"], "members() names %s" % sorted(ms))
        expect(ms["u"]["shape"] == gu.shape and ms["u"]["dtype"] == gu.dtype
               and ms["u"]["order"] == "C" and ms["u"]["readable"],
               "members() u: %s" % ms["u"])
        expect(ms["w"]["shape"] == gw.shape and ms["w"]["dtype"] == gw.dtype,
               "members() w: %s" % ms["w"])
        # read at another distribution than the one written
        b = f.array("u", dist=(None, "block"), grid=(1, nprocs))
        v = f.read(b)
        cols = owned(shape[1], nprocs, "block", -1, rank)
        expect(numpy.array_equal(v, gu[:, cols]), "array('u') read")


def test_npz_from_numpy():
    """An archive numpy.savez wrote: its members listed and read."""
    g = global_array((5, 3 * nprocs), "f4", 3)
    t = numpy.float64(0.5)
    if rank == 0:
        numpy.savez(path("np.npz"), g=g, t=t, c=numpy.zeros(2, "c16"))
    comm.Barrier()
    with darrayio.open_dataset(comm, path("np.npz"), "r") as f:
        ms = {m["name"]: m for m in f.members()}
        expect(ms["t"]["scalar"] and ms["t"]["shape"] == (1,),
               "a 0-d member: %s" % ms["t"])
        expect(not ms["c"]["readable"], "complex member: %s" % ms["c"])
        e = raises(ms["c"]["status"], lambda: f.array("c"))
        expect("c16" in e.message, "message: %s" % e.message)
        a = f.array("g", dist=(None, ("cyclic", 2)), grid=(1, nprocs))
        expect(numpy.array_equal(
            f.read(a), g[:, owned(g.shape[1], nprocs, "cyclic", 2, rank)]),
            "numpy.savez member read")
        v = f.read(f.array("t"))  # BLOCK: rank 0 holds the one element
        expect(list(v) == ([0.5] if rank == 0 else []), "0-d member %s" % v)


# ---- errors: the same on every process -------------------------------------------

def raises(code, fn):
    try:
        fn()
    except darrayio.Error as e:
        expect(e.code == code, "code %s, expected %d: %s" % (e.name, code, e))
        return e
    raise AssertionError("no error, expected code %d" % code)


def test_errors_agree():
    a = darrayio.Array(comm, (2 * nprocs, 3), "f8", dist=("block", None),
                       grid=grid2())
    with darrayio.open(comm, path("err.raw"), "w") as f:
        f.write(a, a.empty())
        # a wrong dtype on the last process only: every process fails
        bad = a.empty() if rank != nprocs - 1 else numpy.zeros(
            a.buffer_shape, "f4")
        e = raises(darrayio.ETYPE, lambda: f.write(a, bad))
        expect("float" in e.message or "f4" in e.message or
               "rank" in e.message, "message: %s" % e.message)
        # a shape that is too small on rank 0 only
        small = a.empty() if rank != 0 else numpy.zeros((1, 1))
        raises(darrayio.EBUFSIZE, lambda: f.read(a, small))
        # a non-contiguous buffer
        strided = numpy.zeros((a.buffer_shape[0], 6))[:, ::2]
        raises(darrayio.EINVAL, lambda: f.write(a, strided))
    codes = comm.allgather(raises(
        darrayio.Error(-203, "").code,
        lambda: darrayio.open(comm, path("missing.raw"), "r")).code)
    expect(len(set(codes)) == 1, "open of a missing file: codes %s" % codes)
    raises(-4, lambda: darrayio.Array(comm, (4,), numpy.complex128))
    raises(-4, lambda: darrayio.Array(comm, (4,), ">f8"))
    raises(-13, lambda: darrayio.open(comm, path("x.raw"), "rw"))


def test_hints_stats_explain():
    shape = (2 * nprocs, 8)
    g = global_array(shape, "f8", 6)
    a = darrayio.Array(comm, shape, "f8", dist=("block", None), grid=grid2())
    u = a.empty()
    u[...] = local_piece(g, ("block", None), grid2())
    hints = {"darray_strategy": "sieve"}
    with darrayio.open(comm, path("h.raw"), "w", hints=hints) as f:
        expect(f.hint("darray_strategy") == "sieve",
               "hint %r" % f.hint("darray_strategy"))
        raises(-12, lambda: f.hint("no_such_key"))
        text = f.explain(a)
        expect("sieve" in text, "explain: %s" % text[:300])
        f.write(a, u)
        st = f.stats()
        expect(st["strategy"] == "sieve" and st["calls"] == 1 and
               st["bytes_written"] > 0, "stats %s" % st)
        f.reset_stats()
        expect(f.stats()["calls"] == 0, "reset_stats")
    expect(on_disk("h.raw") == g.tobytes(), "the sieve's bytes")
    info = MPI.Info.Create()  # an mpi4py Info works as a dict does
    info.Set("darray_strategy", "direct")
    with darrayio.open(comm, path("h.raw"), "r", hints=info) as f:
        expect(f.hint("darray_strategy") == "direct", "an Info's hint")
    info.Free()
    e = raises(-12, lambda: darrayio.open(comm, path("h.raw"), "r",
                                          hints={"darray_stratgy": "sieve"}))
    expect("darray_stratgy" in e.message, "message: %s" % e.message)


def main():
    os.makedirs(tmp, exist_ok=True)
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            case(fn)
    if rank == 0:
        print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
