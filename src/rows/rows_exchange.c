/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows_exchange.c - one cycle of the rows strategy: every member moves
 * one window of its piece, the others' bytes of it travelling inside the
 * group.
 *
 * Between two members flows one byte stream per cycle: the sender's
 * pieces inside the receiver's window, in file order, cut into messages
 * of at most M bytes; both ends know its length from the distribution
 * (the piece walks of src/twophase). The window's owner keeps the streams
 * side by side in its staging buffer and copies them, with its own bytes,
 * into the window's image, row by row of runs (a stream is its sender's
 * cell packed in file order); each extent the window spans is one dense
 * stretch of the image and of the file, moved with one call (long
 * pieces go as vectors instead: rows_vector.c). A stream contiguous in its
 * sender's buffer goes straight from (into) it; a strided one through the
 * M-byte pack buffer.
 *
 * Ordering, as in two-phase: receives that can be posted early are posted
 * before any send of the cycle, and a member blocks only on messages whose
 * other end is posted already (or will be, without that member's help).
 */
#include "rows/rows.h"
#include "agree.h"
#include "crc/crc_share.h"
#include "twophase/twophase.h"

#include <string.h>

#define ROWS_TAG 0x2fa6

static void fail(rows_t *t, int rc) {
  if (t->rc == DARRAY_SUCCESS && rc != DARRAY_SUCCESS)
    t->rc = rc;
}

/* Member k's cells (mine: the call's own, with my buffer's layout). */
static const section_t *cells(const rows_t *t, int k, int *n) {
  *n = k == t->me ? t->x->nsec : 1;
  return k == t->me ? t->x->sec : t->sec[k];
}

/* Nonblocking transfer of a stream of n bytes at p, cut every M bytes;
 * prepare sized the requests for the most a cycle posts. */
static void post(rows_t *t, char *p, int64_t n, int k, bool send) {
  for (int64_t at = 0; at < n; at += t->p.M) {
    int len = (int)(n - at < t->p.M ? n - at : t->p.M);
    if (t->nreq == t->req_cap) {
      fail(t, DARRAY_ENOMEM); /* not reached: a safety net */
      return;
    }
    MPI_Request *rq = &t->req[t->nreq];
    int err = send ? MPI_Isend(p + at, len, MPI_BYTE, k, ROWS_TAG, t->comm, rq)
                   : MPI_Irecv(p + at, len, MPI_BYTE, k, ROWS_TAG, t->comm, rq);
    if (err != MPI_SUCCESS)
      fail(t, DARRAY_EMPI);
    else
      t->nreq++;
    t->x->stats.messages += send && err == MPI_SUCCESS;
  }
  if (send)
    t->x->stats.bytes_exchanged += n;
}

static int timed_wait(rows_t *t, int n, MPI_Request *req) {
  int64_t t0 = darray__now_ns();
  int rc = darray__wait_all(n, req);
  t->x->stats.exchange_ns += darray__now_ns() - t0;
  return rc;
}

static void wait_all(rows_t *t) {
  if (t->nreq > 0 && timed_wait(t, t->nreq, t->req) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
  t->nreq = 0;
}

static void one_message(rows_t *t, int len, int k, bool send) {
  MPI_Request rq;
  int err = send ? MPI_Isend(t->pack, len, MPI_BYTE, k, ROWS_TAG, t->comm, &rq)
                 : MPI_Irecv(t->pack, len, MPI_BYTE, k, ROWS_TAG, t->comm,
                             &rq);
  if (err != MPI_SUCCESS || timed_wait(t, 1, &rq) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
  if (send)
    t->x->stats.bytes_exchanged += len;
  t->x->stats.messages += send && err == MPI_SUCCESS;
}

/* ---- my streams to or from the other members' windows ------------------ */

/* A strided stream of n bytes, M bytes at a time through the pack buffer
 * with blocking calls (the other end is posted): packed and sent, or
 * received and unpacked. */
static void stream_packed(rows_t *t, int k, int64_t n, bool send) {
  int64_t fill = 0, avail = 0, M = t->p.M;
  pwalk_t w;
  for (darray__tp_walk_start(&w, &t->self, t->wlo[k], t->whi[k]); w.valid;
       darray__tp_walk_next(&w)) {
    for (int64_t b = w.b0; b < w.b1;) {
      if (!send && avail == 0) {
        avail = n < M ? n : M;
        one_message(t, (int)avail, k, false);
        n -= avail;
        fill = 0;
      }
      int64_t room = send ? M - fill : avail;
      int64_t take = w.b1 - b < room ? w.b1 - b : room;
      t->x->stats.bytes_copied +=
          darray__layout_copy(&t->x->a->d, &t->x->sec[w.run.sec], &w.run, b,
                              b + take, t->x->buf, t->pack + fill, send);
      b += take;
      fill += take;
      avail -= send ? 0 : take;
      if (send && fill == M) {
        one_message(t, (int)fill, k, true);
        fill = 0;
      }
    }
  }
  if (send && fill > 0)
    one_message(t, (int)fill, k, true);
}

/* Phase 0: the streams contiguous in my buffer, posted; phase 1: the
 * strided ones, blocking. */
static void my_streams(rows_t *t, int phase) {
  for (int k = 0; k < t->p.g; k++) {
    if (k == t->me || t->wlo[k] >= t->whi[k])
      continue;
    bool contig;
    int64_t first;
    int64_t n = darray__tp_stream(&t->self, t->wlo[k], t->whi[k], &contig,
                                  &first);
    if (n > 0 && contig && phase == 0)
      post(t, t->x->buf + first, n, k, t->x->write);
    else if (n > 0 && !contig && phase == 1)
      stream_packed(t, k, n, t->x->write);
  }
}

/* ---- my window ---------------------------------------------------------- */

/* Where each other member's stream sits in staging, off[k] .. off[k+1];
 * in vector mode my own strided pieces are staged too. */
static void place(rows_t *t, int64_t lo, int64_t hi) {
  int64_t at = 0;
  for (int k = 0; k < t->p.g; k++) {
    int n;
    const section_t *s = cells(t, k, &n);
    t->off[k] = at;
    bool staged = k != t->me || (!t->p.image && !t->self_contig);
    if (staged && lo < hi)
      at += darray__layout_bytes_before(&t->x->a->d, s, n, hi) -
            darray__layout_bytes_before(&t->x->a->d, s, n, lo);
  }
  t->off[t->p.g] = at;
}

static void post_window(rows_t *t, bool send) {
  for (int k = 0; k < t->p.g; k++)
    if (k != t->me && t->off[k + 1] > t->off[k])
      post(t, t->stage + t->off[k], t->off[k + 1] - t->off[k], k, send);
}

/* Every member's bytes of the segment [a, b) of window [lo, hi) between
 * its image img and their place: mine my buffer, the others' their
 * streams, staged from lo on. */
static void image(rows_t *t, int64_t lo, int64_t a, int64_t b, char *img,
                  bool to_img) {
  const darray_desc_t *d = &t->x->a->d;
  t->x->stats.bytes_copied += darray__layout_copy_window(
      d, t->x->sec, t->x->nsec, a, b, t->x->buf, img, to_img);
  for (int k = 0; k < t->p.g; k++) {
    if (k == t->me || t->off[k + 1] == t->off[k])
      continue;
    section_t ps;
    int64_t b0 = darray__layout_bytes_before(d, t->sec[k], 1, lo);
    darray__layout_pack_section(d, &t->sec[k][0], -b0, &ps);
    t->x->stats.bytes_copied += darray__layout_copy_window(
        d, &ps, 1, a, b, t->stage + t->off[k], img, to_img);
  }
}

/* Image mode: the window's segments (its parts inside each extent of the
 * region), one after another in the image, each moved with one call. A
 * segment that could not be read is scattered as zeros (the call fails
 * anyway); after a failure nothing more is written. */
static void image_window(rows_t *t, int64_t lo, int64_t hi) {
  bool write = t->x->write;
  char *img = t->img;
  pwalk_t w;
  for (darray__tp_walk_start(&w, &t->segs, lo, hi); w.valid;
       darray__tp_walk_next(&w)) {
    int64_t a = w.run.foff + w.b0, n = w.b1 - w.b0;
    if (write) {
      image(t, lo, a, a + n, img, true);
      darray__xfer_crc(t->x, a, img, n);
      if (t->rc == DARRAY_SUCCESS)
        fail(t, darray__io_pwrite(&t->x->io, img, n, a));
    } else {
      int rc = darray__io_pread(&t->x->io, img, n, a);
      if (rc != DARRAY_SUCCESS)
        memset(img, 0, (size_t)n);
      else /* a checked read's share: the bytes as read */
        darray__xfer_crc(t->x, a, img, n);
      fail(t, rc);
      image(t, lo, a, a + n, img, false);
    }
    img += n;
  }
}

/* After a failure nothing more is written (a failed receive leaves its
 * bytes undefined, and the call fails anyway); the exchanges go on, so
 * that nobody waits for a message that never comes. */
static void write_cycle(rows_t *t, int64_t lo, int64_t hi) {
  place(t, lo, hi);
  post_window(t, false); /* the others' bytes of my window */
  my_streams(t, 0);
  my_streams(t, 1);
  wait_all(t);
  if (lo >= hi || t->rc != DARRAY_SUCCESS)
    return;
  if (t->p.image) {
    image_window(t, lo, hi);
    return;
  }
  darray__rows_stage_mine(t, lo, hi, true);
  darray__rows_vector(t, lo, hi);
}

/* My window read and its streams filled (a window that could not be
 * read sends what it holds: the call fails anyway). */
static void read_window(rows_t *t, int64_t lo, int64_t hi) {
  if (t->p.image) {
    image_window(t, lo, hi);
    return;
  }
  darray__rows_vector(t, lo, hi);
  darray__rows_stage_mine(t, lo, hi, false);
}

static void read_cycle(rows_t *t, int64_t lo, int64_t hi) {
  my_streams(t, 0); /* contiguous receives first */
  place(t, lo, hi);
  if (lo < hi) {
    read_window(t, lo, hi);
    post_window(t, true);
  }
  my_streams(t, 1);
  wait_all(t);
}

void darray__rows_cycle(rows_t *t) {
  int64_t lo = t->wlo[t->me], hi = t->whi[t->me];
  t->nreq = 0;
  if (t->x->write)
    write_cycle(t, lo, hi);
  else
    read_cycle(t, lo, hi);
}
