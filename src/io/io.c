/*
 * io.c - the back-end table and the mapping of system errors to codes.
 */
#include "internal.h"

#include <errno.h>

extern const io_ops_t darray__io_posix_ops DARRAY_HIDDEN;
extern const io_ops_t darray__io_mpiio_ops DARRAY_HIDDEN;

const io_ops_t *darray__io_backend(int which) {
  return which == DARRAY_BACKEND_MPIIO ? &darray__io_mpiio_ops
                                       : &darray__io_posix_ops;
}

int darray__io_errno_code(int e) {
  switch (e) {
  case ENOENT:
  case ENOTDIR:
    return DARRAY_ENOENT;
  case EACCES:
  case EPERM:
  case EROFS:
    return DARRAY_EACCESS;
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
    return DARRAY_ENOSPC;
  case EISDIR:
    return DARRAY_EISDIR;
  case ENOMEM:
    return DARRAY_ENOMEM;
  case ENOLCK:
    return DARRAY_ELOCK;
  default:
    return DARRAY_EIO;
  }
}

int darray__io_pread(struct darray_file_s *f, void *buf, int64_t len,
                     int64_t off) {
  f->stats.read_calls++;
  f->stats.bytes_read += len;
  return f->io.ops->pread(&f->io, buf, len, off);
}

int darray__io_pwrite(struct darray_file_s *f, const void *buf, int64_t len,
                      int64_t off) {
  f->stats.write_calls++;
  f->stats.bytes_written += len;
  return f->io.ops->pwrite(&f->io, buf, len, off);
}
