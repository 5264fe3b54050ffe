/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_chunk.c - an aggregator's file access in one two-phase cycle
 * (tp_exchange.c runs it): every process's pieces of its chunk, part after
 * part, merged in file order and moved as vectors (or lists) of pieces
 * that point into the staged streams and the aggregator's own buffer, or
 * copied through the chunk's image (image mode), where a written chunk
 * with holes is read, filled and written back under a lock when the file
 * allows it.
 */
#include "twophase.h"
#include "crc/crc_share.h"

#include <string.h>

static void flush_vector(tp_t *t) {
  if (t->niov == 0)
    return;
  io_call_t *io = &t->x->io;
  bool w = t->x->write;
  int rc;
  if (t->lists) { /* no CRC share: lists are off for such calls */
    rc = darray__io_xfer_list(io, t->iov, t->niov, t->nr, t->roff, t->rlen,
                              w, t->pack, t->M);
  } else if (w) { /* a dataset member's CRC share, if it has one */
    darray__xfer_crc_vec(t->x, t->iov_off, t->iov, t->niov);
    rc = darray__io_pwritev(io, t->iov, t->niov, t->iov_off, t->pack, t->M);
  } else { /* a checked read's share: the bytes as read */
    rc = darray__io_preadv(io, t->iov, t->niov, t->iov_off, t->pack, t->M);
    if (rc == DARRAY_SUCCESS)
      darray__xfer_crc_vec(t->x, t->iov_off, t->iov, t->niov);
  }
  if (rc != DARRAY_SUCCESS && t->rc == DARRAY_SUCCESS)
    t->rc = rc;
  t->niov = t->nr = 0;
}

/* Append a piece; a hole in the file starts a new range of the list, or
 * a new vector call. */
static void add_piece(tp_t *t, int64_t foff, char *mem, int64_t len) {
  struct iovec *last = t->niov > 0 ? &t->iov[t->niov - 1] : NULL;
  bool hole = last != NULL && foff != t->iov_end;
  if (hole && (!t->lists || t->nr == DARRAY_IOV_MAX))
    flush_vector(t), last = NULL, hole = false;
  if (last != NULL && (char *)last->iov_base + last->iov_len == mem) {
    last->iov_len += (size_t)len; /* memory runs on: one piece */
  } else {
    if (t->niov == DARRAY_IOV_MAX)
      flush_vector(t), hole = false;
    t->iov[t->niov++] = (struct iovec){mem, (size_t)len};
  }
  if (t->niov == 1 && t->nr == 0) { /* a new call */
    t->iov_off = foff;
    t->roff[0] = foff;
    t->rlen[0] = 0;
    t->nr = 1;
  } else if (hole) {
    t->roff[t->nr] = foff;
    t->rlen[t->nr++] = 0;
  }
  t->rlen[t->nr - 1] += len;
  t->iov_end = foff + len;
}

/*
 * Image mode: every piece of a part [clo, chi) of the chunk copied between
 * its place in the part's image img and its stream (mine: my buffer), row
 * by row of the runs (darray__layout_copy_window). A stream holds the
 * earlier parts' pieces first (t->spos). A one-cell process's stream is
 * its pieces packed in file order, i.e. the cell with a packed memory
 * layout that starts bytes_before(clo) before the part's pieces; so is,
 * cell after cell, the stream of a process whose cells follow one another
 * in the file (a merged access's arrays); a process with several cells
 * that interleave has its pieces merged across cells, walked one by one.
 */
static int64_t ordered_copy(tp_t *t, int r, int64_t clo, int64_t chi,
                            char *p, char *img, bool to_img) {
  const darray_desc_t *d = &t->a->d;
  int64_t n = 0; /* the part's bytes of r's earlier cells */
  for (int s = 0; s < t->peer_nsec[r]; s++) {
    const section_t *cs = &t->peer_sec[r][s];
    int64_t b0 = darray__layout_bytes_before(d, cs, 1, clo);
    section_t ps;
    darray__layout_pack_section(d, cs, n - b0, &ps);
    n += darray__layout_copy_window(d, &ps, 1, clo, chi, p, img, to_img);
  }
  return n;
}

static void image_copy(tp_t *t, int64_t clo, int64_t chi, char *img,
                       bool to_img) {
  const struct darray_s *a = t->a;
  int64_t n = darray__layout_copy_window(&a->d, t->x->sec, t->x->nsec, clo,
                                         chi, t->x->buf, img, to_img);
  for (int r = 0; r < t->P; r++) {
    char *p = t->cur.stage + t->cur.stage_off[r] + t->spos[r];
    if (r == t->me || t->cur.bytes[r] == 0)
      continue;
    if (t->peer[r].ordered) {
      n += ordered_copy(t, r, clo, chi, p, img, to_img);
      continue;
    }
    pwalk_t w;
    for (darray__tp_walk_start(&w, &t->peer[r], clo, chi); w.valid;
         darray__tp_walk_next(&w)) {
      int64_t len = w.b1 - w.b0;
      char *at = img + (w.run.foff + w.b0 - clo);
      n += len;
      if (to_img)
        memcpy(at, p, (size_t)len);
      else
        memcpy(p, at, (size_t)len);
      p += len;
    }
  }
  t->x->stats.bytes_copied += n;
}

/*
 * Every process's pieces of a part [clo, chi) of the chunk, merged in
 * file order, to or from the file as vectors (a hole in the file starts a
 * new call). img: the pieces sit at their places in the part's image;
 * NULL: mine sit in my buffer (when contiguous there) and the others' in
 * their staged streams, after their pieces of the earlier parts.
 */
static void vector_pieces(tp_t *t, int64_t clo, int64_t chi, char *img) {
  bool from_img = img != NULL;
  for (int r = 0; r < t->P; r++)
    darray__tp_walk_start(&t->walk[r], &t->peer[r], clo, chi);
  int64_t *cur = t->cursor; /* bytes of each stream consumed */
  for (int r = 0; r < t->P; r++)
    cur[r] = t->spos[r];
  for (;;) {
    int best = -1;
    for (int r = 0; r < t->P; r++)
      if (t->walk[r].valid &&
          (best < 0 || t->walk[r].run.foff + t->walk[r].b0 <
                           t->walk[best].run.foff + t->walk[best].b0))
        best = r;
    if (best < 0)
      break;
    pwalk_t *w = &t->walk[best];
    int64_t len = w->b1 - w->b0, foff = w->run.foff + w->b0;
    char *mem = from_img ? img + (foff - clo)
                : best == t->me && t->self_contig
                    ? t->x->buf + w->run.moff + w->b0
                    : t->cur.stage + t->cur.stage_off[best] + cur[best];
    cur[best] += len;
    add_piece(t, foff, mem, len);
    darray__tp_walk_next(w);
  }
  if (!t->lists) /* else the parts go as one list (darray__tp_chunk_io) */
    flush_vector(t);
}

/*
 * A written chunk with holes: the holes belong to no process of this
 * call, but they may be another writer's (another communicator, handle or
 * program). Where the file allows read-modify-write (src/io/io_lock.c),
 * the chunk is read, filled and written back with one call each, under an
 * exclusive lock that every darrayio writer honours; elsewhere only its
 * pieces are written, from the image, one call per stretch of touching
 * pieces.
 */
static int write_image_holes(tp_t *t, int64_t clo, int64_t chi, char *img) {
  io_call_t *io = &t->x->io;
  if (!io->file->rmw) {
    image_copy(t, clo, chi, img, true);
    vector_pieces(t, clo, chi, img);
    flush_vector(t);
    return DARRAY_SUCCESS; /* failures are in t->rc */
  }
  darray__xfer_crc_lost(t->x); /* the holes' bytes are not the call's */
  int rc = darray__io_lock(io, clo, chi - clo, true);
  if (rc != DARRAY_SUCCESS)
    return rc;
  memset(img, 0, (size_t)(chi - clo)); /* past the end: zeros */
  rc = darray__io_pread(io, img, chi - clo, clo);
  rc = rc == DARRAY_EEOF ? DARRAY_SUCCESS : rc;
  image_copy(t, clo, chi, img, true);
  if (rc == DARRAY_SUCCESS)
    rc = darray__io_pwrite(io, img, chi - clo, clo);
  int rc2 = darray__io_unlock(io, clo, chi - clo);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

static void next_part(tp_t *t, int64_t clo, int64_t chi);

/* A part [clo, chi) read into its image img: its pieces copied out. A
 * checked read's CRC share is fed slice by slice (DARRAY_CRC_SLICE), each
 * slice just before its pieces are copied out, so that the copy reads the
 * bytes the CRC brought into the cache instead of a second pass over the
 * part from memory (the streams' positions move on per slice and are put
 * back: the caller moves them over the whole part). */
static void read_slices(tp_t *t, int64_t clo, int64_t chi, char *img) {
  if (!darray__xfer_crc_fed(t->x)) {
    image_copy(t, clo, chi, img, false);
    return;
  }
  memcpy(t->cursor, t->spos, (size_t)t->P * sizeof *t->spos);
  for (int64_t lo = clo, hi; lo < chi; lo = hi) { /* no lo + slice: 2^63 */
    hi = chi - lo < DARRAY_CRC_SLICE ? chi : lo + DARRAY_CRC_SLICE;
    darray__xfer_crc(t->x, lo, img + (lo - clo), hi - lo);
    image_copy(t, lo, hi, img + (lo - clo), false);
    next_part(t, lo, hi);
  }
  memcpy(t->spos, t->cursor, (size_t)t->P * sizeof *t->spos);
}

/* A part of the chunk through its image img: reads read the part's span
 * with its holes with one call; writes of a dense part write it with one
 * call. A part that holds no process's bytes (sections leave such gaps)
 * is skipped. */
static void chunk_image(tp_t *t, int64_t clo, int64_t chi, char *img) {
  io_call_t *io = &t->x->io;
  int64_t data = 0;
  int rc;
  for (int r = 0; r < t->P; r++)
    data += darray__tp_stream_bytes(&t->peer[r], clo, chi);
  if (data == 0)
    return;
  if (t->x->write && !t->dense) {
    rc = write_image_holes(t, clo, chi, img);
  } else if (t->x->write) {
    image_copy(t, clo, chi, img, true);
    darray__xfer_crc(t->x, clo, img, chi - clo);
    rc = darray__io_pwrite(io, img, chi - clo, clo);
  } else {
    rc = darray__io_pread(io, img, chi - clo, clo);
    if (rc == DARRAY_SUCCESS)
      read_slices(t, clo, chi, img);
  }
  if (rc != DARRAY_SUCCESS && t->rc == DARRAY_SUCCESS)
    t->rc = rc;
}

static void next_part(tp_t *t, int64_t clo, int64_t chi) {
  for (int r = 0; r < t->P; r++)
    t->spos[r] += darray__tp_stream_bytes(&t->peer[r], clo, chi);
}

/*
 * A dense chunk in image mode on a back end with list calls: its parts
 * side by side in the image, moved with one list call (per DARRAY_IOV_MAX
 * parts): copied in before a write, out after a read.
 */
static void image_lists(tp_t *t, int64_t cycle) {
  io_call_t *io = &t->x->io;
  bool write = t->x->write, more = true;
  char *img = t->img;
  for (int64_t j = 0; more && t->rc == DARRAY_SUCCESS;) {
    int64_t clo, chi, n = 0;
    t->nr = 0;
    while (t->nr < DARRAY_IOV_MAX &&
           (more = darray__tp_part(&t->dom, t->C, t->myagg, cycle, j++, &clo,
                                   &chi))) {
      if (clo == chi)
        continue;
      if (write)
        image_copy(t, clo, chi, img + n, true), next_part(t, clo, chi);
      t->roff[t->nr] = clo;
      t->rlen[t->nr++] = chi - clo;
      n += chi - clo;
    }
    if (t->nr == 0)
      break;
    struct iovec v = {img, (size_t)n};
    int rc = darray__io_xfer_list(io, &v, 1, t->nr, t->roff, t->rlen, write,
                                  t->pack, t->M);
    if (rc != DARRAY_SUCCESS && t->rc == DARRAY_SUCCESS)
      t->rc = rc;
    char *at = img;
    for (int k = 0; !write && rc == DARRAY_SUCCESS && k < t->nr; k++) {
      clo = t->roff[k], chi = clo + t->rlen[k];
      image_copy(t, clo, chi, at, false);
      next_part(t, clo, chi);
      at += chi - clo;
    }
    img += n;
    t->nr = 0;
  }
}

/* Every process's pieces of my chunk, part after part, merged in file
 * order, to or from the file: through the chunk's image (each part at the
 * next place in it), or mine from my buffer and the others' from their
 * staged streams; with list calls the parts go together. A write stops
 * at its first failure. */
void darray__tp_chunk_io(tp_t *t, int64_t cycle) {
  int64_t clo, chi;
  char *img = t->img;
  for (int r = 0; r < t->P; r++)
    t->spos[r] = 0;
  if (t->image && t->lists && t->dense) {
    image_lists(t, cycle);
    return;
  }
  for (int64_t j = 0;
       darray__tp_part(&t->dom, t->C, t->myagg, cycle, j, &clo, &chi) &&
       !(t->x->write && t->rc != DARRAY_SUCCESS);
       j++) {
    if (clo == chi)
      continue;
    if (t->image)
      chunk_image(t, clo, chi, img), img += chi - clo;
    else
      vector_pieces(t, clo, chi, NULL);
    next_part(t, clo, chi);
  }
  flush_vector(t);
}
