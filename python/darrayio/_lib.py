# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the darrayio authors (AUTHORS)
"""The shared library, found and loaded, and the prototypes of the C calls
the package makes (include/darrayio.h is their documentation).

Where the library comes from, first found first:
  1. the environment variable DARRAYIO_LIBRARY (a path to libdarrayio.so),
     which the tests set to the build tree's;
  2. the library installed beside this package by `make install` (the
     path configure's prefix gives, written into _config.py);
  3. the dynamic loader's search (ctypes.util.find_library, then
     "libdarrayio.so.1").

Before any call that needs MPI, the MPI the library was compiled with
(darray_mpi_library) is compared with the one mpi4py runs on: two MPI
libraries in one process would cross their calls, so a mismatch is an
ImportError that names both, never a crash.
"""

import ctypes
import ctypes.util
import os

from mpi4py import MPI

try:  # written by `make install`
    from . import _config  # type: ignore
except ImportError:  # a checkout: no installed library known
    _config = None

c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_int_p = ctypes.POINTER(ctypes.c_int)
# MPI_Fint is a C int in every MPI this package meets (the Fortran INTEGER)
c_fint = ctypes.c_int


def _candidates():
    env = os.environ.get("DARRAYIO_LIBRARY")
    if env:
        yield env
        return
    if _config is not None and getattr(_config, "LIBRARY", None):
        yield _config.LIBRARY
    found = ctypes.util.find_library("darrayio")
    if found:
        yield found
    yield "libdarrayio.so.1"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("darrayio: the shared library libdarrayio was not "
                      "found (set DARRAYIO_LIBRARY to its path): "
                      + "; ".join(errors))


lib, path = _load()

lib.darray_mpi_library.restype = ctypes.c_char_p
lib.darray_mpi_library.argtypes = []
lib.darray_version_string.restype = ctypes.c_char_p
lib.darray_version_string.argtypes = []

#: the MPI the library was compiled against ("MPICH 4.0.2", ...)
library_mpi = lib.darray_mpi_library().decode()


def _vendor_of(text):
    for name in ("Open MPI", "MPICH"):
        if text.startswith(name):
            return name
    return None


def _check_mpi():
    vendor, version = MPI.get_vendor()
    ours = _vendor_of(library_mpi)
    theirs = _vendor_of(vendor) or vendor
    if ours is not None and ours != theirs:
        raise ImportError(
            "darrayio: the library %s was compiled with %s, but mpi4py runs "
            "on %s %s (%s): both must use the same MPI library (build "
            "darrayio with that MPI's compiler wrapper, or use an mpi4py "
            "built on %s)" % (path, library_mpi, vendor,
                              ".".join(str(v) for v in version),
                              MPI.Get_library_version().splitlines()[0],
                              library_mpi))


_check_mpi()


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_i = ctypes.c_int
_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_s = ctypes.c_char_p
_i64 = ctypes.c_int64

_proto("darray_strerror", _s, _i)
_proto("darray_err_name", _s, _i)
_proto("darray_errmsg", _s, _p)
_proto("darray_file_errmsg", _s, _p)
_proto("darray_get_version", _i, c_int_p, c_int_p, c_int_p)
_proto("darray_create_fint", _i, c_fint, _i, c_int64_p, _i, _pp)
_proto("darray_free", _i, _pp)
_proto("darray_set_elem_size", _i, _p, _i64)
_proto("darray_set_distribution", _i, _p, c_int_p, c_int64_p)
_proto("darray_set_grid", _i, _p, c_int_p)
_proto("darray_set_storage_order", _i, _p, _i, c_int_p)
_proto("darray_set_displacement", _i, _p, _i64)
_proto("darray_set_memory_layout", _i, _p, _i, c_int64_p, c_int64_p)
_proto("darray_commit", _i, _p)
_proto("darray_grid", _i, _p, c_int_p)
_proto("darray_num_cells", _i, _p, c_int_p)
_proto("darray_local_shape", _i, _p, _i, c_int64_p)
_proto("darray_local_start", _i, _p, _i, c_int64_p)
_proto("darray_local_count", _i, _p, c_int64_p)
_proto("darray_local_bytes", _i, _p, c_int64_p)
_proto("darray_file_open_fint", _i, c_fint, _s, _i, c_fint, _pp)
_proto("darray_dataset_open_fint", _i, c_fint, _s, _i, c_fint, _pp)
_proto("darray_file_delete_fint", _i, _s, c_fint)
_proto("darray_file_close", _i, _pp)
_proto("darray_file_sync", _i, _p)
_proto("darray_define", _i, _p, _s, _p)
_proto("darray_num_members", _i, _p, c_int_p)
_proto("darray_verify", _i, _p)
_proto("darray_wait", _i, _p, c_int64_p)
_proto("darray_test", _i, _p, c_int64_p, c_int_p)
_proto("darray_file_get_hint", _i, _p, _s, ctypes.c_char_p, _i)


class XferArgs(ctypes.Structure):
    """darray_xfer_args_t"""
    _fields_ = [("how", ctypes.c_uint),
                ("start", c_int64_p),
                ("count", c_int64_p),
                ("order", ctypes.c_int),
                ("buf", ctypes.c_void_p),
                ("nbytes", ctypes.c_int64),
                ("req", c_int64_p),
                ("refuse", ctypes.c_int),
                ("why", ctypes.c_char_p)]


_proto("darray_xfer", _i, _p, _p, ctypes.POINTER(XferArgs))

STATS_FIELDS = ("bytes_read", "bytes_written", "read_calls", "write_calls",
                "bytes_exchanged", "cycles", "peak_temp_bytes", "calls",
                "io_ns", "exchange_ns", "call_ns", "strategy",
                "collectives", "bytes_copied", "messages")


class Stats(ctypes.Structure):
    """darray_stats_t"""
    _fields_ = [(n, ctypes.c_char * 16 if n == "strategy" else ctypes.c_int64)
                for n in STATS_FIELDS]


class MemberInfo(ctypes.Structure):
    """darray_member_info_t"""
    _fields_ = [("name", ctypes.c_char * 201),
                ("type", ctypes.c_int),
                ("elem_size", ctypes.c_int64),
                ("ndims", ctypes.c_int),
                ("gsizes", ctypes.c_int64 * 8),
                ("order", ctypes.c_int),
                ("perm", ctypes.c_int * 8),
                ("offset", ctypes.c_int64),
                ("bytes", ctypes.c_int64),
                ("has_crc", ctypes.c_int),
                ("crc32", ctypes.c_uint32),
                ("status", ctypes.c_int),
                ("scalar", ctypes.c_int),
                ("descr", ctypes.c_char * 32)]


_proto("darray_inquire", _i, _p, _i, ctypes.POINTER(MemberInfo))
_proto("darray_file_get_stats", _i, _p, ctypes.POINTER(Stats))
_proto("darray_file_reset_stats", _i, _p)

# darray_explain prints to a FILE *: the C library's open_memstream gives
# one whose text the package reads back.
libc = ctypes.CDLL(None)
libc.open_memstream.restype = ctypes.c_void_p
libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_size_t)]
libc.fclose.restype = ctypes.c_int
libc.fclose.argtypes = [ctypes.c_void_p]
libc.free.restype = None
libc.free.argtypes = [ctypes.c_void_p]
_proto("darray_explain", _i, _p, _p, _i, ctypes.c_void_p)
