/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_exchange.c - one two-phase cycle.
 *
 * Between an owner and an aggregator flows one byte stream per cycle: the
 * owner's pieces inside the aggregator's chunk, in file order, cut into
 * messages of at most M bytes. Both ends know its length and cuts from the
 * distribution alone. At the owner the stream is its own buffer when the
 * pieces are contiguous there (no copy), else it is packed or unpacked M
 * bytes at a time. At the aggregator the streams land side by side in a
 * staging buffer, and one vector of pieces in file order, pointing into the
 * staging buffer and into the aggregator's own buffer, goes to the kernel
 * (tp_chunk.c).
 *
 * Ordering (no deadlock, no unexpected messages): every receive that can
 * be posted early is posted before any send of the cycle; an aggregator
 * posts its sends before it blocks anywhere; owners block only on
 * messages whose other end is already posted.
 */
#include "twophase.h"

#include <stdlib.h>

#define TP_TAG 0x2fa5

static void fail(tp_t *t, int rc) {
  if (t->rc == DARRAY_SUCCESS && rc != DARRAY_SUCCESS)
    t->rc = rc;
}

/* prepare allocated the most requests a cycle posts (slot_requests);
 * growing here is a safety net that no cycle reaches */
static MPI_Request *next_request(tp_t *t) {
  if (t->cur.nreq == t->cur.req_cap) {
    int cap = t->cur.req_cap ? 2 * t->cur.req_cap : 64;
    MPI_Request *q = realloc(t->cur.req, sizeof *q * (size_t)cap);
    if (q == NULL)
      return NULL;
    t->cur.req = q;
    t->cur.req_cap = cap;
  }
  return &t->cur.req[t->cur.nreq++];
}

/* Nonblocking transfer of a stream of n bytes at p, cut every M bytes. */
static void post_stream(tp_t *t, char *p, int64_t n, int peer, bool send) {
  MPI_Comm comm = t->x->f->comm;
  for (int64_t at = 0; at < n; at += t->M) {
    int len = (int)(n - at < t->M ? n - at : t->M);
    MPI_Request *rq = next_request(t);
    int err = rq == NULL ? MPI_ERR_NO_MEM
              : send ? MPI_Isend(p + at, len, MPI_BYTE, peer, TP_TAG, comm, rq)
                     : MPI_Irecv(p + at, len, MPI_BYTE, peer, TP_TAG, comm, rq);
    if (err != MPI_SUCCESS) {
      fail(t, rq == NULL ? DARRAY_ENOMEM : DARRAY_EMPI);
      if (rq != NULL)
        t->cur.nreq--;
    } else if (send) {
      t->x->stats.messages++;
    }
  }
  if (send)
    t->x->stats.bytes_exchanged += n;
}

/* Waiting for messages, timed into the call's exchange_ns. */
static int timed_wait(tp_t *t, int n, MPI_Request *req) {
  int64_t t0 = darray__now_ns();
  int rc = darray__wait_all(n, req);
  t->x->stats.exchange_ns += darray__now_ns() - t0;
  return rc;
}

static void wait_all(tp_t *t) {
  if (t->cur.nreq > 0 &&
      timed_wait(t, t->cur.nreq, t->cur.req) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
  t->cur.nreq = 0;
}

/* Blocking send or receive of one message, waiting politely. */
static int one_message(tp_t *t, void *p, int len, int peer, bool send) {
  MPI_Comm comm = t->x->f->comm;
  MPI_Request rq;
  int err = send ? MPI_Isend(p, len, MPI_BYTE, peer, TP_TAG, comm, &rq)
                 : MPI_Irecv(p, len, MPI_BYTE, peer, TP_TAG, comm, &rq);
  if (err != MPI_SUCCESS)
    return DARRAY_EMPI;
  return timed_wait(t, 1, &rq);
}

/* ---- owner side --------------------------------------------------------- */

/*
 * A strided owner's stream, moved M bytes at a time through the pack
 * buffer with blocking calls (the other end is posted already): packed and
 * sent for writes, received and unpacked for reads.
 */
static void send_fill(tp_t *t, int64_t *fill, int peer) {
  if (*fill == 0)
    return;
  fail(t, one_message(t, t->pack, (int)*fill, peer, true));
  t->x->stats.bytes_exchanged += *fill;
  t->x->stats.messages++;
  *fill = 0;
}

static void stream_packed(tp_t *t, int i, int64_t cycle, int64_t n,
                          int peer, bool send) {
  int64_t fill = 0, avail = 0; /* send: bytes packed; recv: bytes left */
  int64_t lo, hi;
  pwalk_t w;
  for (int64_t j = 0; darray__tp_part(&t->dom, t->C, i, cycle, j, &lo, &hi);
       j++) {
    if (t->split) { /* each part's pieces are messages of their own */
      if (send)
        send_fill(t, &fill, peer);
      n = darray__tp_stream_bytes(&t->self, lo, hi);
    }
  for (darray__tp_walk_start(&w, &t->self, lo, hi); w.valid;
       darray__tp_walk_next(&w)) {
    for (int64_t b = w.b0; b < w.b1;) {
      if (!send && avail == 0) {
        avail = n < t->M ? n : t->M;
        fail(t, one_message(t, t->pack, (int)avail, peer, false));
        n -= avail;
        fill = 0;
      }
      int64_t room = send ? t->M - fill : avail;
      int64_t take = w.b1 - b < room ? w.b1 - b : room;
      darray__layout_copy(&t->a->d, &t->x->sec[w.run.sec], &w.run, b, b + take,
                          t->x->buf, t->pack + fill, send);
      t->x->stats.bytes_copied += take;
      b += take;
      fill += take;
      avail -= send ? 0 : take;
      if (send && fill == t->M)
        send_fill(t, &fill, peer);
    }
  }
  }
  if (send)
    send_fill(t, &fill, peer);
}

/* My stream to or from aggregator i in a cycle: my pieces in its chunk's
 * parts, one part after another; *contig: one stretch of my buffer, from
 * *first (split streams: each part's pieces one stretch). */
static int64_t my_stream(tp_t *t, int i, int64_t cycle, bool *contig,
                         int64_t *first) {
  int64_t lo, hi, n = 0;
  *contig = true;
  *first = 0;
  for (int64_t j = 0; darray__tp_part(&t->dom, t->C, i, cycle, j, &lo, &hi);
       j++) {
    bool c;
    int64_t f, k = lo < hi ? darray__tp_stream(&t->self, lo, hi, &c, &f) : 0;
    if (k == 0)
      continue;
    if (n == 0)
      *first = f;
    else if (f != *first + n && !t->split)
      *contig = false;
    *contig = *contig && c;
    n += k;
  }
  return n;
}

/* A split stream whose parts' pieces each lie in one stretch of my buffer:
 * each part's posted from where it lies. */
static void post_parts(tp_t *t, int i, int64_t cycle, int peer) {
  int64_t lo, hi, first;
  bool contig;
  for (int64_t j = 0; darray__tp_part(&t->dom, t->C, i, cycle, j, &lo, &hi);
       j++) {
    int64_t k = lo < hi ? darray__tp_stream(&t->self, lo, hi, &contig, &first)
                        : 0;
    if (k > 0)
      post_stream(t, t->x->buf + first, k, peer, t->x->write);
  }
}

/*
 * My streams to or from every other aggregator. Contiguous ones are posted
 * (phase 0); strided ones move through the pack buffer, after the
 * aggregators have posted their side (phase 1).
 */
static void owner_streams(tp_t *t, int64_t cycle, int phase) {
  for (int i = 0; i < t->dom.A; i++) {
    int64_t first;
    int peer = darray__tp_agg_rank(i, t->P, t->dom.A);
    if (peer == t->me)
      continue;
    bool contig;
    int64_t n = my_stream(t, i, cycle, &contig, &first);
    if (n > 0 && contig && phase == 0 && t->split)
      post_parts(t, i, cycle, peer);
    else if (n > 0 && contig && phase == 0)
      post_stream(t, t->x->buf + first, n, peer, t->x->write);
    else if (n > 0 && !contig && phase == 1)
      stream_packed(t, i, cycle, n, peer, t->x->write);
  }
}

/* ---- aggregator side ---------------------------------------------------- */

/* Where each process's stream sits in staging (sized in prepare for the
 * largest chunk): its pieces in my chunk's parts, one part after another;
 * mine stays in my buffer when it is contiguous there. */
static void place_streams(tp_t *t, int64_t cycle) {
  int64_t at = 0, lo, hi;
  for (int r = 0; r < t->P; r++)
    t->cur.bytes[r] = 0;
  for (int64_t j = 0;
       darray__tp_part(&t->dom, t->C, t->myagg, cycle, j, &lo, &hi); j++)
    for (int r = 0; r < t->P && lo < hi; r++)
      t->cur.bytes[r] += darray__tp_stream_bytes(&t->peer[r], lo, hi);
  for (int r = 0; r < t->P; r++) {
    if (r == t->me && (t->self_contig || t->image))
      t->cur.bytes[r] = 0; /* not staged */
    t->cur.stage_off[r] = at;
    at += t->cur.bytes[r];
  }
}

/* The others' streams into or out of staging; a split stream as one
 * message run per part. */
static void post_peer_streams(tp_t *t, int64_t cycle, bool send) {
  for (int r = 0; r < t->P; r++) {
    char *p = t->cur.stage + t->cur.stage_off[r];
    int64_t lo, hi;
    if (r == t->me || t->cur.bytes[r] == 0)
      continue;
    if (!t->split) {
      post_stream(t, p, t->cur.bytes[r], r, send);
      continue;
    }
    for (int64_t j = 0;
         darray__tp_part(&t->dom, t->C, t->myagg, cycle, j, &lo, &hi); j++) {
      int64_t b = darray__tp_stream_bytes(&t->peer[r], lo, hi);
      if (b > 0)
        post_stream(t, p, b, r, send);
      p += b;
    }
  }
  if (!send)
    t->cur.nrecv = t->cur.nreq; /* posted first in a write cycle */
}

/* Pack (to_stage) or unpack my own strided pieces through staging. */
static void stage_mine(tp_t *t, int64_t cycle, bool to_stage) {
  if (t->self_contig || t->image)
    return;
  pwalk_t w;
  int64_t clo, chi;
  char *p = t->cur.stage + t->cur.stage_off[t->me];
  for (int64_t j = 0;
       darray__tp_part(&t->dom, t->C, t->myagg, cycle, j, &clo, &chi); j++)
  for (darray__tp_walk_start(&w, &t->self, clo, chi); w.valid;
       darray__tp_walk_next(&w)) {
    darray__layout_copy(&t->a->d, &t->x->sec[w.run.sec], &w.run, w.b0, w.b1,
                        t->x->buf, p, to_stage);
    t->x->stats.bytes_copied += w.b1 - w.b0;
    p += w.b1 - w.b0;
  }
}

/* ---- the cycle ---------------------------------------------------------- */

static bool my_chunk(const tp_t *t, int64_t cycle) {
  return t->myagg >= 0 && darray__tp_busy(&t->dom, t->C, t->myagg, cycle);
}

/* A write cycle up to its file call: every transfer is posted (strided
 * owners' ones done, blocking). */
static void post_write(tp_t *t, int64_t cycle) {
  bool agg = my_chunk(t, cycle);
  t->cur.nrecv = 0;
  if (agg) {
    place_streams(t, cycle);
    post_peer_streams(t, cycle, false); /* receive the others' streams */
  }
  owner_streams(t, cycle, 0); /* contiguous streams: posted */
  if (agg)
    stage_mine(t, cycle, true);
  owner_streams(t, cycle, 1); /* strided streams: blocking, packed */
}

/* After a failure nothing more is written: a receive that failed leaves
 * its bytes undefined, and the call fails anyway. (The exchanges go on, so
 * that nobody waits for a message that never comes.) */
static void write_chunk(tp_t *t, int64_t cycle) {
  if (my_chunk(t, cycle) && t->rc == DARRAY_SUCCESS)
    darray__tp_chunk_io(t, cycle);
}

void darray__tp_cycle(tp_t *t, int64_t cycle) {
  if (t->x->write) {
    post_write(t, cycle);
    wait_all(t);
    write_chunk(t, cycle);
    return;
  }
  bool agg = my_chunk(t, cycle);
  if (agg)
    place_streams(t, cycle);
  owner_streams(t, cycle, 0); /* contiguous streams: posted */
  if (agg) {
    darray__tp_chunk_io(t, cycle); /* read the chunk */
    stage_mine(t, cycle, false);
    post_peer_streams(t, cycle, true); /* send the others' streams */
  }
  owner_streams(t, cycle, 1); /* strided streams: blocking, packed */
  wait_all(t);
}

/* ---- pipelined writes ---------------------------------------------------- */

static void swap_slots(tp_t *t) {
  tp_slot_t c = t->cur;
  t->cur = t->alt;
  t->alt = c;
}

static void wait_some(tp_t *t, int from, int to) {
  if (to > from &&
      timed_wait(t, to - from, t->cur.req + from) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
}

/*
 * On a file system that serializes the writes of one file (ext4 takes
 * the inode lock for each buffered write), two aggregators that exchange
 * and then write in lockstep wait for each other twice per cycle. Here the
 * exchange of chunk c+1 is posted before chunk c is written, into the
 * other slot, and aggregators take turns: even ones write chunk c at once
 * and then complete c+1's transfers, odd ones first complete their
 * receives of c+1 (pulled from the senders' buffers while the even ones
 * write) and then write. Correct in any order: a chunk is written only
 * after its receives completed, and a slot is reused only after its
 * chunk was written.
 */
void darray__tp_write_pipelined(tp_t *t) {
  bool odd = t->myagg >= 0 && t->myagg % 2 == 1;
  if (t->ntimes > 0) {
    post_write(t, 0);
    wait_all(t);
  }
  for (int64_t c = 0; c < t->ntimes; c++) {
    bool next = c + 1 < t->ntimes;
    swap_slots(t); /* to c+1's slot */
    if (next)
      post_write(t, c + 1);
    if (odd)
      wait_some(t, 0, t->cur.nrecv);
    swap_slots(t); /* back to c's, complete */
    write_chunk(t, c);
    swap_slots(t);
    wait_some(t, odd ? t->cur.nrecv : 0, t->cur.nreq);
    t->cur.nreq = t->cur.nrecv = 0;
    t->x->stats.cycles++;
  }
}
