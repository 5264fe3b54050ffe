/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_subfiles.c - the striped subfile back end (darray_backend=subfiles,
 * doc/subfiles.md): one logical file kept as a small descriptor at the
 * user's path plus S = striping_factor subfiles "<path>.sub<j>of<S>";
 * logical stripe k (striping_unit bytes) lives in subfile k mod S at
 * offset (k div S)*unit.
 *
 * The part of one contiguous logical range that falls in one subfile is
 * contiguous in that subfile, so every transfer becomes at most one
 * (vector) call per subfile, split only at DARRAY_IOV_MAX pieces.
 *
 * Each subfile has a handle of its own whose bytes move through the posix
 * back end's retry loops and the parent's system-call table and fault
 * state (shared: DARRAYIO_FAULT counts the calls on all subfiles
 * together). Byte-range locks stay on the descriptor, over logical
 * offsets (io_lock.c locks f->fd; fcntl locks reach beyond a file's end),
 * so every darrayio writer of the logical file honours them.
 *
 * Creation: rank 0 creates (or truncates) the descriptor and every
 * subfile, and writes the record, before the other ranks open them
 * (io_subfiles_open.c: open, sync and close).
 *
 * Transfers and sync make no MPI call (ops.local): every subfile is opened
 * at open, locks are fcntl on the descriptor, and the logical size goes
 * into the record only at a blocking sync or the close, after the file's
 * requests have completed. So darray_async=files runs them in the file's
 * I/O thread, which then alone uses the handle, the subfiles' handles and
 * the fault state until the program's thread waits for it.
 */
#define _DEFAULT_SOURCE
#include "agree.h"
#include "io/io_subfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- transfers -------------------------------------------------------- */

/* One subfile's share of a transfer, gathered as memory pieces. */
typedef struct batch {
  io_file_t *f;
  io_file_t *p; /* the subfile's handle */
  bool write, eof;
  struct iovec v[DARRAY_IOV_MAX];
  int m;
  int64_t soff, len; /* the subfile range the pieces cover */
} batch_t;

/* Zero the pieces' bytes at and past the subfile's end (a hole of the
 * logical file, when the subfile was read short). */
static int zero_tail(batch_t *b) {
  struct stat st;
  if (fstat(b->p->fd, &st) != 0) {
    b->f->err_errno = errno;
    return darray__io_errno_code(errno);
  }
  int64_t skip = (int64_t)st.st_size - b->soff;
  for (int i = 0; i < b->m; i++) {
    int64_t l = (int64_t)b->v[i].iov_len, k = skip > 0 ? skip : 0;
    if (k < l)
      memset((char *)b->v[i].iov_base + k, 0, (size_t)(l - k));
    skip -= l;
  }
  b->eof = true;
  return DARRAY_SUCCESS;
}

static int flush(batch_t *b) {
  if (b->m == 0)
    return DARRAY_SUCCESS;
  const io_ops_t *px = &darray__io_posix_ops;
  int rc;
  if (b->m == 1)
    rc = b->write ? px->pwrite(b->p, b->v[0].iov_base, b->len, b->soff)
                  : px->pread(b->p, b->v[0].iov_base, b->len, b->soff);
  else
    rc = b->write ? px->pwritev(b->p, b->v, b->m, b->soff)
                  : px->preadv(b->p, b->v, b->m, b->soff);
  if (rc == DARRAY_EEOF && !b->write)
    rc = zero_tail(b);
  else if (rc != DARRAY_SUCCESS)
    b->f->err_errno = b->p->err_errno;
  b->soff += b->len;
  b->len = 0;
  b->m = 0;
  return rc;
}

/* Where the memory of a transfer is: piece i, `in` bytes into it, `pos`
 * bytes from the start of the transfer. */
typedef struct cursor {
  const struct iovec *iov;
  int i;
  size_t in;
  int64_t pos;
} cursor_t;

/* Append memory [at, at+len) of the transfer to the batch. */
static int take(batch_t *b, cursor_t *c, int64_t at, int64_t len) {
  while (c->pos < at) { /* forward to at */
    size_t step = c->iov[c->i].iov_len - c->in;
    if ((int64_t)step > at - c->pos)
      step = (size_t)(at - c->pos);
    c->in += step;
    c->pos += (int64_t)step;
    if (c->in == c->iov[c->i].iov_len) {
      c->i++;
      c->in = 0;
    }
  }
  while (len > 0) {
    size_t step = c->iov[c->i].iov_len - c->in;
    if ((int64_t)step > len)
      step = (size_t)len;
    if (step > 0) {
      if (b->m == DARRAY_IOV_MAX) {
        int rc = flush(b);
        if (rc != DARRAY_SUCCESS)
          return rc;
      }
      b->v[b->m++] = (struct iovec){(char *)c->iov[c->i].iov_base + c->in,
                                    step};
      b->len += (int64_t)step;
    }
    c->in += step;
    c->pos += (int64_t)step;
    len -= (int64_t)step;
    if (c->in == c->iov[c->i].iov_len) {
      c->i++;
      c->in = 0;
    }
  }
  return DARRAY_SUCCESS;
}

/* Subfile j's share of the logical ranges [off[r], off[r] + len[r]),
 * whose memory follows one another in iov: its stripes' pieces, gathered
 * into one call as long as they follow one another in the subfile (the
 * stripes of one range do; so do a layout-aware chunk's rounds). */
static int one_subfile(batch_t *b, const struct iovec *iov, int64_t j,
                       int nr, const int64_t *off, const int64_t *len) {
  const sub_layout_t *l = &b->f->sub->lay;
  b->p = &b->f->sub->part[j];
  b->m = 0;
  b->len = 0;
  cursor_t c = {iov, 0, 0, 0};
  int rc = DARRAY_SUCCESS;
  for (int64_t r = 0, pos = 0; r < nr && rc == DARRAY_SUCCESS;
       pos += len[r], r++) {
    int64_t k = off[r] / l->unit, end = off[r] + len[r];
    k += ((j - k % l->factor) + l->factor) % l->factor; /* first of j's */
    for (; rc == DARRAY_SUCCESS && k * l->unit < end; k += l->factor) {
      int64_t a = k * l->unit > off[r] ? k * l->unit : off[r];
      int64_t z = end - k * l->unit > l->unit ? (k + 1) * l->unit : end;
      int64_t so = (k / l->factor) * l->unit + (a - k * l->unit);
      if (b->m > 0 && so != b->soff + b->len)
        rc = flush(b); /* not where the gathered pieces end */
      if (b->m == 0)
        b->soff = so;
      if (rc == DARRAY_SUCCESS)
        rc = take(b, &c, pos + a - off[r], z - a);
    }
  }
  return rc == DARRAY_SUCCESS ? flush(b) : rc;
}

static int xfer_list(io_file_t *f, const struct iovec *iov, int n, int nr,
                     const int64_t *off, const int64_t *len, bool write) {
  int64_t bytes = 0, end = 0;
  for (int i = 0; i < n; i++)
    bytes += (int64_t)iov[i].iov_len;
  /* the stripe walk looks up to one row past a range's end (unit <=
   * 2^40, factor <= SUB_FACTOR_MAX: the row fits); ranges in increasing
   * order, apart, and as many bytes as the memory */
  int64_t row = f->sub->lay.unit * f->sub->lay.factor, sum = 0;
  for (int r = 0; r < nr; r++) {
    if (off[r] < end || len[r] < 0 || !darray__add_ok(off[r], len[r], &end) ||
        end > INT64_MAX - row)
      return DARRAY_EINVAL;
    sum += len[r];
  }
  if (sum != bytes)
    return DARRAY_EINVAL;
  if (write)
    f->sub->written = true;
  batch_t b;
  b.f = f;
  b.write = write;
  b.eof = false;
  int rc = DARRAY_SUCCESS;
  for (int64_t j = 0; j < f->sub->lay.factor && rc == DARRAY_SUCCESS; j++)
    rc = one_subfile(&b, iov, j, nr, off, len);
  if (rc == DARRAY_SUCCESS && b.eof) { /* holes, or past the end? */
    int64_t lend;
    rc = darray__sub_logical_end(f, &lend);
    if (rc == DARRAY_SUCCESS && end > lend)
      rc = DARRAY_EEOF;
  }
  return rc;
}

static int xfer(io_file_t *f, const struct iovec *iov, int n, int64_t off,
                bool write) {
  int64_t len = 0;
  for (int i = 0; i < n; i++)
    len += (int64_t)iov[i].iov_len;
  return xfer_list(f, iov, n, 1, &off, &len, write);
}

static int sub_pread(io_file_t *f, void *buf, int64_t len, int64_t off) {
  struct iovec v = {buf, (size_t)len};
  return xfer(f, &v, 1, off, false);
}

static int sub_pwrite(io_file_t *f, const void *buf, int64_t len,
                      int64_t off) {
  struct iovec v = {(void *)buf, (size_t)len};
  return xfer(f, &v, 1, off, true);
}

static int sub_preadv(io_file_t *f, const struct iovec *iov, int n,
                      int64_t off) {
  return xfer(f, iov, n, off, false);
}

static int sub_pwritev(io_file_t *f, const struct iovec *iov, int n,
                       int64_t off) {
  return xfer(f, iov, n, off, true);
}

/* darray_explain's words for the set. */
static void sub_describe(const io_file_t *f, char *buf, size_t len) {
  snprintf(buf, len, "subfiles: %" PRId64 " subfiles (striping_factor), "
                     "stripes of %" PRId64 " bytes (striping_unit)",
           f->stripe_factor, f->stripe_unit);
}

const io_ops_t darray__io_subfiles_ops = {
    .name = "subfiles",
    .open = darray__sub_open,
    .pread = sub_pread,
    .pwrite = sub_pwrite,
    .sync = darray__sub_sync,
    .close = darray__sub_close,
    .preadv = sub_preadv,
    .pwritev = sub_pwritev,
    .plist = xfer_list,
    .local = true,
    .own_fd = true,
    .close_local = true,
    .no_dataset = "cannot be kept as striped subfiles (darray_backend="
                  "subfiles); write a raw file, or join the subfiles "
                  "(darray-subfile join)",
    .detect = darray__io_subfiles_detect,
    .settle = darray__io_subfiles_settle,
    .describe = sub_describe,
};
