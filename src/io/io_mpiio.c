/*
 * io_mpiio.c - the MPI-IO back end: MPI_File_read_at / write_at, so that
 * any file system MPI-IO reaches (through ROMIO's drivers, say) works.
 */
#include "internal.h"

#include <stdio.h>

#define IO_MAX_CALL (INT64_C(1) << 30) /* bytes per MPI call: fits an int */

static int mpi_code(int mpierr) {
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(mpierr, &cls);
  if (cls == MPI_ERR_NO_SUCH_FILE)
    return DARRAY_ENOENT;
  if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY)
    return DARRAY_EACCESS;
  if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA)
    return DARRAY_ENOSPC;
  return DARRAY_EIO;
}

static int mpiio_open(io_file_t *f, MPI_Comm comm, const char *path, int mode,
                      MPI_Info info, char *msg, size_t msglen) {
  int amode = (mode & DARRAY_MODE_RDWR) ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
  if (mode & DARRAY_MODE_CREATE)
    amode |= MPI_MODE_CREATE;
  f->fh = MPI_FILE_NULL;
  const char *call = "MPI_File_open";
  int err = MPI_File_open(comm, (char *)path, amode, info, &f->fh);
  if (err != MPI_SUCCESS)
    f->fh = MPI_FILE_NULL;
  else if (mode & DARRAY_MODE_TRUNC) {
    call = "MPI_File_set_size";
    err = MPI_File_set_size(f->fh, 0);
  }
  /* A file that is open stays open, even if its truncation failed here:
   * MPI_File_close is collective, and darray_file_open closes it on every
   * process once they have agreed that the open failed. */
  if (err != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    snprintf(msg, msglen, "%s('%s'): %s", call, path, text);
    return mpi_code(err);
  }
  return DARRAY_SUCCESS;
}

static int mpiio_pread(io_file_t *f, void *buf, int64_t len, int64_t off) {
  char *p = buf;
  while (len > 0) {
    int n = (int)(len < IO_MAX_CALL ? len : IO_MAX_CALL), got = 0;
    MPI_Status st;
    int err = MPI_File_read_at(f->fh, (MPI_Offset)off, p, n, MPI_BYTE, &st);
    if (err != MPI_SUCCESS)
      return mpi_code(err);
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
    int n = (int)(len < IO_MAX_CALL ? len : IO_MAX_CALL), put = 0;
    MPI_Status st;
    int err = MPI_File_write_at(f->fh, (MPI_Offset)off, (void *)p, n,
                                MPI_BYTE, &st);
    if (err != MPI_SUCCESS)
      return mpi_code(err);
    MPI_Get_count(&st, MPI_BYTE, &put);
    if (put <= 0)
      return DARRAY_EIO;
    p += put;
    off += put;
    len -= put;
  }
  return DARRAY_SUCCESS;
}

/* MPI_File_sync is collective; darray_file_sync calls it on every rank. */
static int mpiio_sync(io_file_t *f) {
  int err = MPI_File_sync(f->fh);
  return err == MPI_SUCCESS ? DARRAY_SUCCESS : mpi_code(err);
}

/* Collective as well. */
static int mpiio_close(io_file_t *f) {
  darray__io_lock_free(f);
  if (f->fh == MPI_FILE_NULL)
    return DARRAY_SUCCESS;
  int err = MPI_File_close(&f->fh);
  return err == MPI_SUCCESS ? DARRAY_SUCCESS : mpi_code(err);
}

/* MPI-IO has no vector calls on memory: those entries are NULL. Its
 * byte-range locks are io_lock.c's, on a descriptor of their own. */
const io_ops_t darray__io_mpiio_ops = {
    "mpiio",    mpiio_open,  mpiio_pread, mpiio_pwrite, mpiio_sync,
    mpiio_close, NULL,       NULL,
};
