/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows_vector.c - a window moved as a vector of pieces (long pieces).
 *
 * A vector call costs the kernel a few tens of nanoseconds per piece,
 * copying a piece about its length at memory speed: where the pieces are
 * long (darray_cb_image_piece, two-phase's rule), a window goes to the
 * kernel as the vector of its pieces in file order, pointing into my
 * buffer for my own contiguous pieces and into the staged streams for
 * the others' (and my strided ones), so no byte is copied into an image
 * and the window may take the image's memory too. Every member's pieces
 * come from the distribution (the piece walks of src/twophase).
 */
#include "rows/rows.h"
#include "crc/crc_share.h"
#include "twophase/twophase.h"

static void flush(rows_t *t) {
  if (t->niov == 0)
    return;
  io_call_t *io = &t->x->io;
  int rc;
  if (t->x->write) { /* a dataset member's CRC share, if it has one */
    darray__xfer_crc_vec(t->x, t->iov_off, t->iov, t->niov);
    rc = darray__io_pwritev(io, t->iov, t->niov, t->iov_off, t->pack,
                            t->p.M);
  } else { /* a checked read's share: the bytes as read */
    rc = darray__io_preadv(io, t->iov, t->niov, t->iov_off, t->pack, t->p.M);
    if (rc == DARRAY_SUCCESS)
      darray__xfer_crc_vec(t->x, t->iov_off, t->iov, t->niov);
  }
  if (rc != DARRAY_SUCCESS && t->rc == DARRAY_SUCCESS)
    t->rc = rc;
  t->niov = 0;
}

/* Append a piece; the end of an extent (the file between two extents of
 * a window is other groups') starts a new call, and pieces that touch in
 * memory too become one. */
static void add(rows_t *t, int64_t foff, char *mem, int64_t len) {
  if (t->niov > 0 && foff != t->iov_end)
    flush(t);
  struct iovec *last = t->niov > 0 ? &t->iov[t->niov - 1] : NULL;
  if (last != NULL && (char *)last->iov_base + last->iov_len == mem) {
    last->iov_len += (size_t)len;
  } else {
    if (t->niov == DARRAY_IOV_MAX)
      flush(t);
    if (t->niov == 0)
      t->iov_off = foff;
    t->iov[t->niov++] = (struct iovec){mem, (size_t)len};
  }
  t->iov_end = foff + len;
}

static layout_iter_t *runs_of(rows_t *t, int k) {
  return k == t->me ? &t->self : &t->it[k];
}

void darray__rows_vector(rows_t *t, int64_t lo, int64_t hi) {
  pwalk_t *walk = t->walk;
  for (int k = 0; k < t->p.g; k++) {
    darray__tp_walk_start(&walk[k], runs_of(t, k), lo, hi);
    t->used[k] = 0;
  }
  for (;;) {
    int b = -1;
    for (int k = 0; k < t->p.g; k++)
      if (walk[k].valid &&
          (b < 0 || walk[k].run.foff + walk[k].b0 <
                        walk[b].run.foff + walk[b].b0))
        b = k;
    if (b < 0)
      break;
    pwalk_t *w = &walk[b];
    int64_t len = w->b1 - w->b0;
    char *mem = b == t->me && t->self_contig
                    ? t->x->buf + w->run.moff + w->b0
                    : t->stage + t->off[b] + t->used[b];
    t->used[b] += len;
    add(t, w->run.foff + w->b0, mem, len);
    darray__tp_walk_next(w);
  }
  flush(t);
}

void darray__rows_stage_mine(rows_t *t, int64_t lo, int64_t hi,
                             bool to_stage) {
  if (t->self_contig || t->p.image)
    return;
  pwalk_t w;
  char *p = t->stage + t->off[t->me];
  for (darray__tp_walk_start(&w, &t->self, lo, hi); w.valid;
       darray__tp_walk_next(&w)) {
    t->x->stats.bytes_copied +=
        darray__layout_copy(&t->x->a->d, &t->x->sec[w.run.sec], &w.run, w.b0,
                            w.b1, t->x->buf, p, to_stage);
    p += w.b1 - w.b0;
  }
}
