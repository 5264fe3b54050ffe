/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io.c - the back-end table and the mapping of system errors to codes.
 */
#include "hints.h"
#include "io/io.h"

#include <errno.h>
#include <string.h>

/*
 * The back-end table: every way of reaching a file's bytes. The value of
 * the darray_backend hint is a line's index (hints.c takes the names from
 * here), the first line the default.
 *
 * Adding a back end: a file or folder under src/io/ that defines
 * `const io_ops_t darray__io_NAME_ops` (io.h says what each slot and
 * property means; designated initializers, the slots it lacks left out),
 * its files in Makefile.am, one line in the list below, and its tests
 * (doc/backends.md). Keep posix first: it is the default. Appending keeps
 * the other lines' numbers.
 */
#define BACKENDS(X) X(posix) X(mpiio) X(subfiles)

#define DECLARE(name)                                                          \
  DARRAY_HIDDEN extern const io_ops_t darray__io_##name##_ops;
#define ENTRY(name) &darray__io_##name##_ops,
BACKENDS(DECLARE)
static const io_ops_t *const backends[] = {BACKENDS(ENTRY) NULL};

const io_ops_t *darray__io_backend(int which) {
  for (int k = 0; backends[k] != NULL; k++)
    if (k == which)
      return backends[k];
  return backends[0];
}

const char *darray__io_backend_name(int i) {
  for (int k = 0; backends[k] != NULL; k++)
    if (k == i)
      return backends[k]->name;
  return NULL;
}

int darray__io_backend_index(const io_ops_t *ops) {
  for (int k = 0; backends[k] != NULL; k++)
    if (backends[k] == ops)
      return k;
  return -1;
}

int darray__io_detect(const char *path, int mode, struct darray_hints *h,
                      char *msg, size_t msglen) {
  int rc = DARRAY_SUCCESS;
  for (int k = 0; backends[k] != NULL && rc == DARRAY_SUCCESS; k++)
    if (backends[k]->detect != NULL)
      rc = backends[k]->detect(path, mode, h, msg, msglen);
  return rc;
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

void darray__io_call_init(io_call_t *c, io_file_t *f, darray_stats_t *stats) {
  *c = (io_call_t){.file = f, .stats = stats, .locks = f->locks};
}

const char *darray__io_call_cause(const io_call_t *c) {
  if (c->err_text[0] != '\0')
    return c->err_text;
  return c->err_errno != 0 ? strerror(c->err_errno) : "";
}

/* Before a back-end operation: its failure slot holds nothing stale. */
static void before(io_call_t *c) {
  c->file->err_errno = 0;
  c->file->err_text[0] = '\0';
}

/* After it: a failure's cause goes to the call, if it has none yet. */
static int after(io_call_t *c, int rc) {
  if (rc != DARRAY_SUCCESS && c->err_errno == 0 && c->err_text[0] == '\0') {
    c->err_errno = c->file->err_errno;
    memcpy(c->err_text, c->file->err_text, sizeof c->err_text);
  }
  return rc;
}

int darray__io_pread(io_call_t *c, void *buf, int64_t len, int64_t off) {
  c->stats->read_calls++;
  c->stats->bytes_read += len;
  before(c);
  int64_t t = darray__now_ns();
  int rc = c->file->ops->pread(c->file, buf, len, off);
  c->stats->io_ns += darray__now_ns() - t;
  return after(c, rc);
}

/* A plain write: [off, off+len) from buf (one piece) or from iov (n
 * pieces), under a shared lock over its bytes when the call takes locks
 * (io_lock.c), unless it holds one there already. */
static int write_span(io_call_t *c, const void *buf, const struct iovec *iov,
                      int n, int64_t len, int64_t off) {
  bool held = darray__io_write_needs_lock(c, off, len);
  int rc = held ? darray__io_lock(c, off, len, false) : DARRAY_SUCCESS;
  if (rc != DARRAY_SUCCESS)
    return rc;
  c->stats->write_calls++;
  c->stats->bytes_written += len;
  before(c);
  io_file_t *f = c->file;
  int64_t t = darray__now_ns();
  rc = iov != NULL ? f->ops->pwritev(f, iov, n, off)
                   : f->ops->pwrite(f, buf, len, off);
  c->stats->io_ns += darray__now_ns() - t;
  rc = after(c, rc);
  int rc2 = held ? darray__io_unlock(c, off, len) : DARRAY_SUCCESS;
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

int darray__io_pwrite(io_call_t *c, const void *buf, int64_t len,
                      int64_t off) {
  return write_span(c, buf, NULL, 0, len, off);
}

static int64_t iov_bytes(const struct iovec *iov, int n) {
  int64_t b = 0;
  for (int i = 0; i < n; i++)
    b += (int64_t)iov[i].iov_len;
  return b;
}

/* Without a native vector call: move the pieces through scratch, one
 * file call per scratch load. */
static int vector_by_scratch(io_call_t *c, const struct iovec *iov,
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
      c->stats->bytes_copied += (int64_t)take; /* in, or out below */
      fill += (int64_t)take;
      jn += take;
      if (jn == iov[j].iov_len) {
        j++;
        jn = 0;
      }
    }
    int rc = write ? darray__io_pwrite(c, scratch, fill, off)
                   : darray__io_pread(c, scratch, fill, off);
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

int darray__io_pwritev(io_call_t *c, const struct iovec *iov, int n,
                       int64_t off, char *scratch, int64_t scratch_len) {
  if (c->file->ops->pwritev == NULL)
    return vector_by_scratch(c, iov, n, off, scratch, scratch_len, true);
  return write_span(c, NULL, iov, n, iov_bytes(iov, n), off);
}

bool darray__io_backend_lists(int which) {
  return darray__io_backend(which)->plist != NULL;
}

/* Without a list call: each range from its share of the memory pieces,
 * with a vector call (the share of one range has at most n pieces). */
static int list_by_range(io_call_t *c, const struct iovec *iov, int n,
                         int nr, const int64_t *off, const int64_t *len,
                         bool write, char *scratch, int64_t scratch_len) {
  struct iovec v[DARRAY_IOV_MAX];
  int i = 0;
  (void)n; /* the ranges hold as many bytes as the n pieces */
  size_t in = 0; /* bytes of iov[i] already taken */
  for (int k = 0; k < nr; k++) {
    int m = 0;
    for (int64_t need = len[k]; need > 0;) {
      size_t take = iov[i].iov_len - in;
      if ((int64_t)take > need)
        take = (size_t)need;
      v[m++] = (struct iovec){(char *)iov[i].iov_base + in, take};
      need -= (int64_t)take;
      in += take;
      if (in == iov[i].iov_len)
        i++, in = 0;
    }
    int rc = write ? darray__io_pwritev(c, v, m, off[k], scratch, scratch_len)
                   : darray__io_preadv(c, v, m, off[k], scratch, scratch_len);
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  return DARRAY_SUCCESS;
}

int darray__io_xfer_list(io_call_t *c, const struct iovec *iov, int n,
                         int nr, const int64_t *off, const int64_t *len,
                         bool write, char *scratch, int64_t scratch_len) {
  io_file_t *f = c->file;
  if (nr <= 1 || f->ops->plist == NULL)
    return list_by_range(c, iov, n, nr, off, len, write, scratch,
                         scratch_len);
  int64_t lo = off[0], span = off[nr - 1] + len[nr - 1] - lo, bytes = 0;
  for (int k = 0; k < nr; k++)
    bytes += len[k];
  bool held = write && darray__io_write_needs_lock(c, lo, span);
  int rc = held ? darray__io_lock(c, lo, span, false) : DARRAY_SUCCESS;
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (write) {
    c->stats->write_calls++;
    c->stats->bytes_written += bytes;
  } else {
    c->stats->read_calls++;
    c->stats->bytes_read += bytes;
  }
  before(c);
  int64_t t = darray__now_ns();
  rc = after(c, f->ops->plist(f, iov, n, nr, off, len, write));
  c->stats->io_ns += darray__now_ns() - t;
  int rc2 = held ? darray__io_unlock(c, lo, span) : DARRAY_SUCCESS;
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

int darray__io_preadv(io_call_t *c, const struct iovec *iov, int n,
                      int64_t off, char *scratch, int64_t scratch_len) {
  if (c->file->ops->preadv == NULL)
    return vector_by_scratch(c, iov, n, off, scratch, scratch_len, false);
  c->stats->read_calls++;
  c->stats->bytes_read += iov_bytes(iov, n);
  before(c);
  int64_t t = darray__now_ns();
  int rc = c->file->ops->preadv(c->file, iov, n, off);
  c->stats->io_ns += darray__now_ns() - t;
  return after(c, rc);
}
