/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_mpiio.c - the MPI-IO back end: MPI_File_read_at / write_at, so that
 * any file system MPI-IO reaches (through ROMIO's drivers, say) works.
 */
#include "agree.h"
#include "io/io.h"

#include <errno.h>
#include <stdio.h>

/*
 * The darray code of an MPI error, by its class (doc/reliability.md,
 * section 3). Classes that name no cause (MPI_ERR_IO, MPI_ERR_OTHER,
 * MPI_ERR_BAD_FILE) are refined by e, the errno the failing call left
 * (callers clear errno before the call), mapped as the posix back end maps
 * it: MPICH's ROMIO reports a full disk on a write as MPI_ERR_IO and only
 * its errno (and its text) says ENOSPC. Only ROMIO (every MPI whose mpio.h
 * defines ROMIO_VERSION: MPICH and its derivatives) fails with the errno of
 * the system call that failed; Open MPI's OMPIO makes further calls (closing,
 * unlinking its lock files) that leave another errno, so there the class
 * alone decides.
 */
#ifdef ROMIO_VERSION
#define MPI_ERRNO_RELIABLE 1
#else
#define MPI_ERRNO_RELIABLE 0
#endif

static int mpi_code(int mpierr, int e) {
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(mpierr, &cls);
  if (cls == MPI_ERR_NO_SUCH_FILE)
    return DARRAY_ENOENT;
  if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY)
    return DARRAY_EACCESS;
  if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA)
    return DARRAY_ENOSPC;
  if (cls == MPI_ERR_NO_MEM)
    return DARRAY_ENOMEM;
  bool vague = cls == MPI_ERR_IO || cls == MPI_ERR_OTHER ||
               cls == MPI_ERR_BAD_FILE;
  if (MPI_ERRNO_RELIABLE && vague && e != 0 &&
      darray__io_errno_code(e) != DARRAY_EIO)
    return darray__io_errno_code(e);
  return cls == MPI_ERR_BAD_FILE ? DARRAY_ENOENT : DARRAY_EIO;
}

/* MPI's text of an error on one line, shortened to max characters in the
 * middle if need be (its cause may be at either end). */
static void mpi_text(int mpierr, size_t max, char *buf, size_t n) {
  char text[MPI_MAX_ERROR_STRING + 1] = "";
  int len = 0;
  if (MPI_Error_string(mpierr, text, &len) != MPI_SUCCESS)
    snprintf(text, sizeof text, "MPI error %d", mpierr);
  text[MPI_MAX_ERROR_STRING] = '\0';
  for (char *c = text; *c != '\0'; c++)
    if (*c == '\n' || *c == '\t')
      *c = ' ';
  darray__short_text(text, max, buf, n);
}

/* Record a failed call for the message the user sees (err_text: the call
 * and MPI's text) and return its code; e: errno after the call. */
static int mpi_fail(io_file_t *f, const char *call, int mpierr, int e) {
  size_t n = sizeof f->err_text;
  int k = snprintf(f->err_text, n, "%s: ", call);
  if (k > 0 && (size_t)k < n - 8)
    mpi_text(mpierr, n - 1 - (size_t)k, f->err_text + k, n - (size_t)k);
  return mpi_code(mpierr, e);
}

static int mpiio_open(io_file_t *f, MPI_Comm comm, const char *path, int mode,
                      MPI_Info info, char *msg, size_t msglen) {
  int amode = (mode & DARRAY_MODE_RDWR) ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
  if (mode & DARRAY_MODE_CREATE)
    amode |= MPI_MODE_CREATE;
  f->fh = MPI_FILE_NULL;
  /* A FIFO opened for reading would hold MPI_File_open until a writer
   * comes: each process looks at the path first, and all agree before the
   * collective open (a path made a FIFO between the look and the open
   * still waits: the look cannot be the open itself here). If that
   * agreement fails on this process alone, it joins the others' open all
   * the same and fails it afterwards (late), so that darray_file_open's
   * agreement on the open closes the file everywhere: no process is left
   * waiting in MPI_File_open. */
  int late = DARRAY_SUCCESS;
  int rc = darray__io_check_kind(darray__io_system_path(path), msg, msglen);
  rc = darray__agree_first(comm, rc, msg, NULL, 0, NULL, &late);
  if (rc != DARRAY_SUCCESS)
    return rc;
  errno = 0;
  const char *call = "MPI_File_open";
  int err = MPI_File_open(comm, (char *)path, amode, info, &f->fh);
  if (err != MPI_SUCCESS)
    f->fh = MPI_FILE_NULL;
  else if (mode & DARRAY_MODE_TRUNC) {
    errno = 0;
    call = "MPI_File_set_size";
    err = MPI_File_set_size(f->fh, 0);
  }
  /* A file that is open stays open, even if its truncation failed here:
   * MPI_File_close is collective, and darray_file_open closes it on every
   * process once they have agreed that the open failed. */
  if (err != MPI_SUCCESS) {
    int e = errno;
    char sp[DARRAY_PATH_SHOWN + 1], text[DARRAY_IO_TEXT_LEN];
    mpi_text(err, sizeof text - 1, text, sizeof text);
    snprintf(msg, msglen, "%s('%s'): %s", call,
             darray__short_path(path, sp, sizeof sp), text);
    return mpi_code(err, e);
  }
  return late; /* its message in msg (darray__agree_first) */
}

static int mpiio_pread(io_file_t *f, void *buf, int64_t len, int64_t off) {
  char *p = buf;
  while (len > 0) {
    int n = (int)(len < DARRAY_IO_MAX_CALL ? len : DARRAY_IO_MAX_CALL),
        got = 0;
    MPI_Status st;
    errno = 0;
    int err = MPI_File_read_at(f->fh, (MPI_Offset)off, p, n, MPI_BYTE, &st);
    if (err != MPI_SUCCESS)
      return mpi_fail(f, "MPI_File_read_at", err, errno);
    MPI_Get_count(&st, MPI_BYTE, &got);
    if (got <= 0)
      return DARRAY_EEOF;
    p += got;
    off += got;
    len -= got;
  }
  return DARRAY_SUCCESS;
}

static int mpiio_pwrite(io_file_t *f, const void *buf, int64_t len,
                        int64_t off) {
  const char *p = buf;
  while (len > 0) {
    int n = (int)(len < DARRAY_IO_MAX_CALL ? len : DARRAY_IO_MAX_CALL),
        put = 0;
    MPI_Status st;
    errno = 0;
    int err = MPI_File_write_at(f->fh, (MPI_Offset)off, (void *)p, n,
                                MPI_BYTE, &st);
    if (err != MPI_SUCCESS)
      return mpi_fail(f, "MPI_File_write_at", err, errno);
    MPI_Get_count(&st, MPI_BYTE, &put);
    if (put <= 0) { /* as posix: a write that moves nothing found no room */
      snprintf(f->err_text, sizeof f->err_text,
               "MPI_File_write_at wrote nothing of %d bytes", n);
      return DARRAY_ENOSPC;
    }
    p += put;
    off += put;
    len -= put;
  }
  return DARRAY_SUCCESS;
}

/* MPI_File_sync is collective; darray_file_sync calls it on every rank. */
static int mpiio_sync(io_file_t *f) {
  errno = 0;
  int err = MPI_File_sync(f->fh);
  return err == MPI_SUCCESS ? DARRAY_SUCCESS
                            : mpi_fail(f, "MPI_File_sync", err, errno);
}

/* Collective as well. */
static int mpiio_close(io_file_t *f) {
  darray__io_lock_free(f);
  if (f->fh == MPI_FILE_NULL)
    return DARRAY_SUCCESS;
  errno = 0;
  int err = MPI_File_close(&f->fh);
  return err == MPI_SUCCESS ? DARRAY_SUCCESS
                            : mpi_fail(f, "MPI_File_close", err, errno);
}

/* MPI-IO has no vector calls on memory: those entries are NULL. Its
 * byte-range locks are io_lock.c's, on a descriptor of their own. */
const io_ops_t darray__io_mpiio_ops = {
    .name = "mpiio",
    .open = mpiio_open,
    .pread = mpiio_pread,
    .pwrite = mpiio_pwrite,
    .sync = mpiio_sync,
    .close = mpiio_close,
};
