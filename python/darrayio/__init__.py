# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
"""darrayio for Python: distributed NumPy arrays in and out of files, in
parallel, over mpi4py.

A thin layer over the C library (include/darrayio.h documents every call
it makes): an :class:`Array` describes a global array and how it is
distributed over the processes of a communicator; :func:`open` and
:func:`open_dataset` open a raw file or a ``.npy``/``.npz`` dataset, whose
``write``/``read`` move each process's local piece (a NumPy array, passed
by pointer, never copied) to and from the file::

    from mpi4py import MPI
    import numpy, darrayio
    a = darrayio.Array(MPI.COMM_WORLD, (64, 64, 64), "f8",
                       dist=("block", "block", None))
    u = a.empty(); u[...] = MPI.COMM_WORLD.rank
    with darrayio.open_dataset(MPI.COMM_WORLD, "out.npz", "w") as f:
        f.define("u", a)
        f.write(a, u)          # numpy.load("out.npz")["u"] reads it

Calls that are collective in C are collective here: every process makes
them, and a failure raises :class:`Error` with the same code on every
process (the failing process's message). A buffer of the wrong dtype,
shape, order or contiguity is refused before any byte moves, on every
process, with the expected and the given values in the message.
"""

import ctypes

import numpy
from mpi4py import MPI

from . import _lib
from ._lib import lib

__all__ = ["Array", "File", "Request", "Error", "open", "open_dataset",
           "delete", "wait_all", "version", "library_mpi"]

#: the MPI the C library was compiled against
library_mpi = _lib.library_mpi

SUCCESS = 0
EINVAL = -1
EBUFSIZE = -22
ETYPE = -4


class Error(Exception):
    """A darrayio call failed: ``code`` (the C library's negative status),
    ``name`` (``"DARRAY_EIO"``, ...) and ``message`` (what failed, naming
    the argument, path or system error)."""

    def __init__(self, code, message):
        self.code = code
        self.name = lib.darray_err_name(code).decode()
        self.message = message or lib.darray_strerror(code).decode()
        super().__init__("%s: %s" % (self.name, self.message))


def _check(rc, msg_fn, handle):
    if rc != SUCCESS:
        raise Error(rc, msg_fn(handle).decode(errors="replace"))


def version():
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return lib.darray_version_string().decode()


def _i64(values):
    return (ctypes.c_int64 * len(values))(*[int(v) for v in values])


def _ints(values):
    return (ctypes.c_int * len(values))(*[int(v) for v in values])


# ---- element types -------------------------------------------------------

_TYPES = {  # NumPy kind+size -> darray_type_t
    "i1": 2, "u1": 3, "i2": 4, "u2": 5, "i4": 6, "u4": 7, "i8": 8, "u8": 9,
    "f4": 10, "f8": 11}
_LONG_DOUBLE = 12
_OPAQUE = 13


def _type_of(dtype):
    """(darray_type_t, element size) of a NumPy dtype, or Error."""
    dt = numpy.dtype(dtype)
    if dt.byteorder not in ("=", "|") and dt.byteorder != (
            "<" if numpy.little_endian else ">"):
        raise Error(ETYPE, "dtype %s is not in this machine's byte order: "
                    "darrayio moves native values (use %s)"
                    % (dt.str, dt.newbyteorder("=").str))
    if dt.hasobject or dt.kind in "OMm":
        raise Error(ETYPE, "dtype %s has no fixed bytes darrayio can move"
                    % dt.str)
    key = "%s%d" % (dt.kind, dt.itemsize)
    if key in _TYPES:
        return _TYPES[key], dt.itemsize
    if dt.kind == "f" and dt == numpy.dtype(numpy.longdouble):
        return _LONG_DOUBLE, dt.itemsize
    if dt.kind == "V" and dt.fields is None:
        return _OPAQUE, dt.itemsize
    raise Error(ETYPE, "dtype %s has no darrayio element type (integers, "
                "float32, float64, longdouble and raw bytes 'V<n>' have)"
                % dt.str)


# ---- arrays ----------------------------------------------------------------

_DIST = {None: 0, "*": 0, "none": 0, "block": 1, "cyclic": 2,
         "multipartition": 3}


def _dist_of(spec, ndim):
    if spec is None:
        return None
    if isinstance(spec, str) or len(spec) != ndim:
        raise Error(EINVAL, "dist must give one entry per dimension (%d), "
                    "got %r" % (ndim, spec))
    kinds, args = [], []
    for d, s in enumerate(spec):
        k = -1
        if isinstance(s, tuple):
            if len(s) != 2:
                raise Error(EINVAL, "dist[%d] = %r: a tuple is (kind, block "
                            "size)" % (d, s))
            s, k = s
        name = s.lower() if isinstance(s, str) else s
        if name not in _DIST:
            raise Error(EINVAL, "dist[%d] = %r is not 'block', 'cyclic', "
                        "None or 'multipartition'" % (d, s))
        kinds.append(_DIST[name])
        args.append(k)
    return _ints(kinds), _i64(args)


class Array:
    """A global array of ``shape`` and ``dtype`` distributed over the
    processes of ``comm`` (collective: every process describes the same
    array).

    ``dist``: one entry per dimension, ``"block"``, ``("block", k)``,
    ``"cyclic"``, ``("cyclic", k)``, ``None`` (not distributed) or
    ``"multipartition"`` (three dimensions, NAS BT); default: the C
    library's. ``grid``: processes along each dimension (0: the library
    chooses). ``order``: how the array is stored in the file, ``"C"``,
    ``"F"`` or a permutation of the dimensions (slowest first).
    ``memory_order``, ``ghosts``, ``padded``: how the local piece sits in
    memory (darray_set_memory_layout). ``displacement``: where the array
    starts in a raw file (bytes).
    """

    def __init__(self, comm, shape, dtype, dist=None, grid=None, order="C",
                 memory_order="C", ghosts=None, padded=None, displacement=0):
        self._h = ctypes.c_void_p()
        self.comm = comm
        self.shape = tuple(int(n) for n in shape)
        self.dtype = numpy.dtype(dtype)
        self.ndim = len(self.shape)
        self.memory_order = memory_order.upper()
        if self.memory_order not in ("C", "F"):
            raise Error(-8, "memory_order = %r is not 'C' or 'F'"
                        % memory_order)
        code, size = _type_of(self.dtype)
        dists = _dist_of(dist, self.ndim)
        rc = lib.darray_create_fint(comm.py2f(), self.ndim, _i64(self.shape),
                                    code, ctypes.byref(self._h))
        _check(rc, lib.darray_errmsg, None)
        h = self._h
        if code == _OPAQUE:
            _check(lib.darray_set_elem_size(h, size), lib.darray_errmsg, h)
        if dists is not None:
            _check(lib.darray_set_distribution(h, *dists), lib.darray_errmsg,
                   h)
        if grid is not None:
            _check(lib.darray_set_grid(h, _ints(grid)), lib.darray_errmsg, h)
        if isinstance(order, str):
            o = {"C": 1, "F": 2}.get(order.upper())
            if o is None:
                raise Error(-8, "order = %r is not 'C', 'F' or a permutation"
                            % order)
            rc = lib.darray_set_storage_order(h, o, None)
        else:
            rc = lib.darray_set_storage_order(h, 3, _ints(order))
        _check(rc, lib.darray_errmsg, h)
        self.ghosts = tuple(ghosts) if ghosts is not None else (0,) * self.ndim
        mo = 1 if self.memory_order == "C" else 2
        if ghosts is not None or padded is not None or mo != 1:
            rc = lib.darray_set_memory_layout(
                h, mo, _i64(self.ghosts) if ghosts is not None else None,
                _i64(padded) if padded is not None else None)
            _check(rc, lib.darray_errmsg, h)
        self._padded = tuple(padded) if padded is not None else None
        if displacement:
            _check(lib.darray_set_displacement(h, displacement),
                   lib.darray_errmsg, h)
        _check(lib.darray_commit(h), lib.darray_errmsg, h)

    # -- queries (local) --
    def _q(self, fn, *args):
        _check(fn(self._h, *args), lib.darray_errmsg, self._h)

    @property
    def grid(self):
        g = (ctypes.c_int * self.ndim)()
        self._q(lib.darray_grid, g)
        return tuple(g)

    @property
    def num_cells(self):
        n = ctypes.c_int()
        self._q(lib.darray_num_cells, ctypes.byref(n))
        return n.value

    def local_shape(self, cell=0):
        """The interior shape of this process's piece (of its cell
        ``cell`` under multipartition)."""
        s = (ctypes.c_int64 * self.ndim)()
        self._q(lib.darray_local_shape, cell, s)
        return tuple(s)

    def local_start(self, cell=0):
        """The global index of the piece's first element."""
        s = (ctypes.c_int64 * self.ndim)()
        self._q(lib.darray_local_start, cell, s)
        return tuple(s)

    def local_ranges(self, cell=0):
        """The global index ranges of this process's piece, one
        ``range`` per dimension (BLOCK and not-distributed dimensions;
        under CYCLIC a piece is not one box: use local_start and the
        distribution)."""
        return tuple(range(s, s + n) for s, n in
                     zip(self.local_start(cell), self.local_shape(cell)))

    @property
    def local_bytes(self):
        """Bytes of the local buffer, ghosts and padding included."""
        n = ctypes.c_int64()
        self._q(lib.darray_local_bytes, ctypes.byref(n))
        return n.value

    @property
    def buffer_shape(self):
        """The shape of the local buffer (write/read take it): the
        interior plus ghosts on both sides, or the padded extents; under
        multipartition a flat buffer of every cell."""
        if self.num_cells != 1:
            return (self.local_bytes // self.dtype.itemsize,)
        interior = self.local_shape()
        if self._padded is not None:
            return tuple(p if p else n + 2 * g for p, n, g in
                         zip(self._padded, interior, self.ghosts))
        return tuple(n + 2 * g for n, g in zip(interior, self.ghosts))

    def empty(self):
        """A new, uninitialized local buffer of the right shape, dtype and
        memory order."""
        return numpy.empty(self.buffer_shape, self.dtype,
                           order=self.memory_order)

    def interior(self, buf):
        """The view of ``buf`` without its ghosts."""
        sl = tuple(slice(g, g + n) for g, n in
                   zip(self.ghosts, self.local_shape()))
        return buf[sl]

    def set_displacement(self, disp):
        """Where the array starts in a raw file (local; the same on every
        process)."""
        self._q(lib.darray_set_displacement, int(disp))

    def free(self):
        """Release the description (local; also when collected)."""
        if self._h:
            lib.darray_free(ctypes.byref(self._h))

    def __del__(self):
        try:
            self.free()
        except Exception:  # interpreter shutting down
            pass

    def __repr__(self):
        return "darrayio.Array(shape=%r, dtype=%s)" % (self.shape,
                                                       self.dtype.str)


# ---- files -----------------------------------------------------------------

_MODES = {"r": 1, "r+": 2, "w": 2 | 4 | 8, "a": 2 | 4}


def _info_of(hints):
    """(Fortran handle, MPI.Info to free or None) of hints: None, a dict
    or an mpi4py Info."""
    if hints is None:
        return MPI.INFO_NULL.py2f(), None
    if isinstance(hints, MPI.Info):
        return hints.py2f(), None
    info = MPI.Info.Create()
    for k, v in hints.items():
        info.Set(str(k), str(v))
    return info.py2f(), info


def _opener(fn, comm, path, mode, hints):
    if mode not in _MODES:
        raise Error(-13, "mode = %r is not 'r', 'r+', 'w' or 'a'" % mode)
    h = ctypes.c_void_p()
    finfo, info = _info_of(hints)
    try:
        rc = fn(comm.py2f(), str(path).encode(), _MODES[mode], finfo,
                ctypes.byref(h))
    finally:
        if info is not None:
            info.Free()
    _check(rc, lib.darray_file_errmsg, None)
    return File(h, comm, str(path))


def open(comm, path, mode="r", hints=None):  # noqa: A001 (like io.open)
    """Open a raw file (collective). ``mode``: ``"r"`` read,
    ``"r+"`` read and write, ``"w"`` create or truncate, ``"a"`` read and
    write, created if missing. ``hints``: a dict or an mpi4py Info of MPI
    and darrayio hints."""
    return _opener(lib.darray_file_open_fint, comm, path, mode, hints)


def open_dataset(comm, path, mode="r", hints=None):
    """Open a ``.npy`` or ``.npz`` dataset (collective), as :func:`open`;
    its members are defined with :meth:`File.define` and written and read
    with the same calls."""
    return _opener(lib.darray_dataset_open_fint, comm, path, mode, hints)


def delete(path, hints=None):
    """Delete a file, or a subfile set with all its pieces (local)."""
    finfo, info = _info_of(hints)
    try:
        rc = lib.darray_file_delete_fint(str(path).encode(), finfo)
    finally:
        if info is not None:
            info.Free()
    _check(rc, lib.darray_file_errmsg, None)


_WRITE, _SECTION, _POST, _BUFFERED = 1, 2, 4, 8


class Request:
    """A nonblocking read or write: complete it with :meth:`wait` (or
    :meth:`test`, or :func:`wait_all`); its buffer belongs to the library
    until then."""

    def __init__(self, f, buf):
        self._f = f
        self._id = ctypes.c_int64(0)
        self.buf = buf  # kept alive until completion

    def wait(self):
        """Complete the request (local, or collective as the C call
        says); returns the buffer (a read's result)."""
        if self._id.value:
            _check(lib.darray_wait(self._f._h, ctypes.byref(self._id)),
                   lib.darray_file_errmsg, self._f._h)
        return self.buf

    def test(self):
        """True when the request has completed (then as :meth:`wait`)."""
        if not self._id.value:
            return True
        flag = ctypes.c_int(0)
        _check(lib.darray_test(self._f._h, ctypes.byref(self._id),
                               ctypes.byref(flag)),
               lib.darray_file_errmsg, self._f._h)
        return bool(flag.value)


def wait_all(requests):
    """Wait for every request, in order; the first failure raises after
    all have completed."""
    first = None
    for r in requests:
        try:
            r.wait()
        except Error as e:
            if first is None:
                first = e
    if first is not None:
        raise first


class File:
    """An open raw file or dataset (from :func:`open` or
    :func:`open_dataset`); a context manager that closes it."""

    def __init__(self, h, comm, path):
        self._h = h
        self.comm = comm
        self.path = path

    def _c(self, rc):
        _check(rc, lib.darray_file_errmsg, self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Close the file (collective): pending requests complete, a
        dataset's headers are written."""
        if self._h:
            h = self._h
            rc = lib.darray_file_close(ctypes.byref(self._h))
            if rc != SUCCESS:
                raise Error(rc, lib.darray_file_errmsg(None).decode()
                            or lib.darray_file_errmsg(h).decode())

    def sync(self):
        """Flush to storage (collective)."""
        self._c(lib.darray_file_sync(self._h))

    def define(self, name, a):
        """Make ``a`` the dataset's member ``name`` (None: the array of a
        ``.npy``) (local; every process
        defines the same members in the same order)."""
        self._c(lib.darray_define(
            self._h, name.encode() if name is not None else None, a._h))

    @property
    def num_members(self):
        n = ctypes.c_int()
        self._c(lib.darray_num_members(self._h, ctypes.byref(n)))
        return n.value

    def members(self):
        """The dataset's members, in file order (local): one dict each
        with ``name``, ``shape``, ``dtype`` (a NumPy dtype; None for a
        member darrayio does not read), ``order`` (``"C"``, ``"F"`` or the
        permutation, slowest first), ``offset``, ``bytes``, ``crc32``
        (None without one), ``scalar``, ``readable``, ``status`` (the code
        define would return) and ``descr`` (NumPy's type string)."""
        out = []
        for i in range(self.num_members):
            m = _lib.MemberInfo()
            self._c(lib.darray_inquire(self._h, i, ctypes.byref(m)))
            nd = m.ndims
            order = {1: "C", 2: "F"}.get(m.order, tuple(m.perm[:nd]))
            descr = m.descr.decode()
            out.append({
                "name": m.name.decode(), "shape": tuple(m.gsizes[:nd]),
                "dtype": numpy.dtype(descr) if m.status == SUCCESS else None,
                "order": order, "offset": m.offset, "bytes": m.bytes,
                "crc32": m.crc32 if m.has_crc else None,
                "scalar": bool(m.scalar), "readable": m.status == SUCCESS,
                "status": m.status, "descr": descr})
        return out

    def array(self, name, dist=None, grid=None, memory_order="C",
              ghosts=None, padded=None):
        """An :class:`Array` of member ``name`` as the file stores it
        (shape, dtype, storage order), distributed as ``dist`` and
        ``grid`` say over the file's communicator, and defined as that
        member (collective: every process asks for the same member)."""
        for m in self.members():
            if m["name"] == name or (name is None and len(self.members())
                                     == 1):
                if not m["readable"]:
                    raise Error(m["status"], "member %r (%s) is not one "
                                "darrayio reads" % (m["name"], m["descr"]))
                a = Array(self.comm, m["shape"], m["dtype"], dist=dist,
                          grid=grid, order=m["order"],
                          memory_order=memory_order, ghosts=ghosts,
                          padded=padded)
                self.define(name, a)
                return a
        raise Error(-15, "no member %r in %s (members: %s)" % (
            name, self.path, ", ".join(m["name"] for m in self.members())))

    def verify(self):
        """Check every member's CRC-32 against its bytes (collective)."""
        self._c(lib.darray_verify(self._h))

    def hint(self, key):
        """The value a hint has on this file, as the file uses it (local;
        darray_file_get_hint); an unknown key raises Error
        (DARRAY_EHINT)."""
        buf = ctypes.create_string_buffer(4096)
        self._c(lib.darray_file_get_hint(self._h, key.encode(), buf,
                                         len(buf)))
        return buf.value.decode()

    def stats(self):
        """This process's counters (darray_stats_t) as a dict (local)."""
        s = _lib.Stats()
        self._c(lib.darray_file_get_stats(self._h, ctypes.byref(s)))
        return {n: (getattr(s, n).decode() if n == "strategy"
                    else getattr(s, n)) for n in _lib.STATS_FIELDS}

    def reset_stats(self):
        self._c(lib.darray_file_reset_stats(self._h))

    def explain(self, a, write=True):
        """What a write (or read) of ``a`` would do, as text
        (collective, as darray_explain)."""
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
        fp = _lib.libc.open_memstream(ctypes.byref(ptr), ctypes.byref(size))
        if not fp:
            raise Error(-205, "open_memstream failed")
        rc = lib.darray_explain(self._h, a._h, int(bool(write)), fp)
        _lib.libc.fclose(fp)
        text = ctypes.string_at(ptr, size.value).decode(errors="replace")
        _lib.libc.free(ptr)
        self._c(rc)
        return text

    # -- the buffer checks: a bad buffer is refused on every process --
    def _refusal(self, a, buf, count, write):
        """(code, message) when buf cannot be this call's buffer."""
        if not isinstance(buf, numpy.ndarray):
            return EINVAL, "the buffer is a %s, not a NumPy array" % (
                type(buf).__name__)
        if buf.dtype != a.dtype:
            return ETYPE, "the buffer's dtype is %s, the array's %s" % (
                buf.dtype.str, a.dtype.str)
        if not write and not buf.flags.writeable:
            return EINVAL, "the buffer of a read is not writeable"
        if count is None:  # the whole local piece
            want = a.buffer_shape
            if buf.shape != want:
                return EBUFSIZE if buf.size < numpy.prod(want) else EINVAL, (
                    "the buffer's shape is %s, the local piece's %s"
                    % (buf.shape, want))
            contiguous = (buf.flags.c_contiguous if a.memory_order == "C"
                          else buf.flags.f_contiguous)
            if not contiguous:
                return EINVAL, ("the buffer is not %s-contiguous, as the "
                                "array's memory order is (pass "
                                "numpy.ascontiguousarray / asfortranarray)"
                                % a.memory_order)
            return SUCCESS, None
        if buf.shape != tuple(count):
            return EINVAL, "the buffer's shape is %s, the section's count %s" \
                % (buf.shape, tuple(count))
        if not (buf.flags.c_contiguous or buf.flags.f_contiguous):
            return EINVAL, "the section's buffer is not contiguous"
        return SUCCESS, None

    def _xfer(self, a, buf, how, start=None, count=None, req=None):
        refuse, why = self._refusal(a, buf, count, how & _WRITE)
        args = _lib.XferArgs()
        args.how = how
        if isinstance(buf, numpy.ndarray) and refuse == SUCCESS:
            args.buf = buf.ctypes.data
            args.nbytes = buf.nbytes
        else:
            args.buf = None
            args.nbytes = 0
        if count is not None:
            st, ct = _i64(start), _i64(count)
            args.start = ctypes.cast(st, _lib.c_int64_p)
            args.count = ctypes.cast(ct, _lib.c_int64_p)
            c_order = (not isinstance(buf, numpy.ndarray)
                       or buf.flags.c_contiguous or buf.ndim <= 1)
            args.order = 1 if c_order else 2
        if req is not None:
            args.req = ctypes.cast(ctypes.byref(req._id), _lib.c_int64_p)
        args.refuse = refuse
        why_b = why.encode() if why else None
        args.why = why_b
        self._c(lib.darray_xfer(self._h, a._h, ctypes.byref(args)))

    def write(self, a, buf):
        """Write every process's local piece ``buf`` of ``a``
        (collective)."""
        self._xfer(a, buf, _WRITE)

    def read(self, a, out=None):
        """Read ``a``'s local piece into ``out`` (a new buffer when None);
        returns it (collective)."""
        if out is None:
            out = a.empty()
        self._xfer(a, out, 0)
        return out

    def write_section(self, a, start, count, buf):
        """Write the box ``start``, ``count`` (global indices) from
        ``buf``, a contiguous array of shape ``count`` (collective;
        processes' boxes do not overlap; an empty box writes nothing)."""
        self._xfer(a, buf, _WRITE | _SECTION, start, count)

    def read_section(self, a, start, count, out=None):
        """Read the box ``start``, ``count`` into ``out`` (new when None);
        returns it (collective)."""
        if out is None:
            out = numpy.empty(tuple(count), a.dtype)
        self._xfer(a, out, _SECTION, start, count)
        return out

    def iwrite(self, a, buf, buffered=False):
        """Post a write of the local piece; returns a :class:`Request`.
        ``buffered``: the library copies ``buf`` at once (darray_bwrite)."""
        r = Request(self, buf)
        self._xfer(a, buf, _WRITE | _POST | (_BUFFERED if buffered else 0),
                   req=r)
        return r

    def iread(self, a, out=None):
        """Post a read of the local piece into ``out`` (new when None);
        the request's wait() returns it."""
        if out is None:
            out = a.empty()
        r = Request(self, out)
        self._xfer(a, out, _POST, req=r)
        return r

    def iwrite_section(self, a, start, count, buf, buffered=False):
        r = Request(self, buf)
        self._xfer(a, buf, _WRITE | _SECTION | _POST |
                   (_BUFFERED if buffered else 0), start, count, req=r)
        return r

    def iread_section(self, a, start, count, out=None):
        if out is None:
            out = numpy.empty(tuple(count), a.dtype)
        r = Request(self, out)
        self._xfer(a, out, _SECTION | _POST, start, count, req=r)
        return r
