/*
 * io.c - the back-end table and the mapping of system errors to codes.
 */
#include "file.h"

#include <errno.h>
#include <string.h>

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

/* A plain write holds a shared lock over its bytes when the file takes
 * locks (io_lock.c), unless this handle holds one there already. */
static int shared_lock(struct darray_file_s *f, int64_t off, int64_t len,
                       bool *held) {
  *held = darray__io_write_needs_lock(&f->io, off, len);
  return *held ? darray__io_lock(&f->io, off, len, false) : DARRAY_SUCCESS;
}

static int shared_unlock(struct darray_file_s *f, int64_t off, int64_t len,
                         bool held, int rc) {
  int rc2 = held ? darray__io_unlock(&f->io, off, len) : DARRAY_SUCCESS;
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

int darray__io_pwrite(struct darray_file_s *f, const void *buf, int64_t len,
                      int64_t off) {
  bool held;
  int rc = shared_lock(f, off, len, &held);
  if (rc != DARRAY_SUCCESS)
    return rc;
  f->stats.write_calls++;
  f->stats.bytes_written += len;
  rc = f->io.ops->pwrite(&f->io, buf, len, off);
  return shared_unlock(f, off, len, held, rc);
}

static int64_t iov_bytes(const struct iovec *iov, int n) {
  int64_t b = 0;
  for (int i = 0; i < n; i++)
    b += (int64_t)iov[i].iov_len;
  return b;
}

/* Without a native vector call: move the pieces through scratch, one
 * file call per scratch load. */
static int vector_by_scratch(struct darray_file_s *f, const struct iovec *iov,
                             int n, int64_t off, char *scratch, int64_t slen,
                             bool write) {
  int i = 0;
  size_t in = 0; /* bytes of iov[i] already done */
  while (i < n) {
    int64_t fill = 0;
    int j = i;
    size_t jn = in;
    while (j < n && fill < slen) { /* how much fits, from (i, in) */
      size_t take = iov[j].iov_len - jn;
      if ((int64_t)take > slen - fill)
        take = (size_t)(slen - fill);
      if (write)
        memcpy(scratch + fill, (char *)iov[j].iov_base + jn, take);
      fill += (int64_t)take;
      jn += take;
      if (jn == iov[j].iov_len) {
        j++;
        jn = 0;
      }
    }
    int rc = write ? darray__io_pwrite(f, scratch, fill, off)
                   : darray__io_pread(f, scratch, fill, off);
    if (rc != DARRAY_SUCCESS)
      return rc;
    for (int64_t at = 0; !write && at < fill;) { /* scatter what was read */
      size_t take = iov[i].iov_len - in;
      if ((int64_t)take > fill - at)
        take = (size_t)(fill - at);
      memcpy((char *)iov[i].iov_base + in, scratch + at, take);
      at += (int64_t)take;
      in += take;
      if (in == iov[i].iov_len) {
        i++;
        in = 0;
      }
    }
    i = j;
    in = jn;
    off += fill;
  }
  return DARRAY_SUCCESS;
}

int darray__io_pwritev(struct darray_file_s *f, const struct iovec *iov,
                       int n, int64_t off, char *scratch,
                       int64_t scratch_len) {
  if (f->io.ops->pwritev == NULL)
    return vector_by_scratch(f, iov, n, off, scratch, scratch_len, true);
  int64_t len = iov_bytes(iov, n);
  bool held;
  int rc = shared_lock(f, off, len, &held);
  if (rc != DARRAY_SUCCESS)
    return rc;
  f->stats.write_calls++;
  f->stats.bytes_written += len;
  rc = f->io.ops->pwritev(&f->io, iov, n, off);
  return shared_unlock(f, off, len, held, rc);
}

int darray__io_preadv(struct darray_file_s *f, const struct iovec *iov, int n,
                      int64_t off, char *scratch, int64_t scratch_len) {
  if (f->io.ops->preadv == NULL)
    return vector_by_scratch(f, iov, n, off, scratch, scratch_len, false);
  f->stats.read_calls++;
  f->stats.bytes_read += iov_bytes(iov, n);
  return f->io.ops->preadv(&f->io, iov, n, off);
}
