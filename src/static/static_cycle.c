/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * static_cycle.c - one static segmentation cycle.
 *
 * Between a member and its aggregator flows one message per cycle: the
 * member's share, the next K bytes (fewer at its end) of its stream, its
 * data in file order. Both ends know its length and where its pieces lie
 * in the file from the distribution, so no offset or length travels. At
 * the member the share is its own buffer when that holds the stream as it
 * is (no copy), else it is packed or unpacked through K bytes. At the
 * aggregator the shares land side by side in a slot each, and the pieces
 * of every member, merged in file order, go to the kernel as vectors: one
 * call per stretch of touching pieces. The gaps between the stretches
 * are other groups' bytes (or nobody's): never written here.
 *
 * Ordering (no deadlock, no unexpected message): receives are posted
 * before the sends they match or any wait; every process takes part in
 * every cycle, even after a local failure, so nobody waits for a message
 * that never comes (after a failure nothing more is read or written).
 */
#include "static/static.h"
#include "agree.h" /* darray__wait_all */

#include <string.h>

#define ST_TAG 0x57a7

static void fail(st_t *t, int rc) {
  if (t->rc == DARRAY_SUCCESS && rc != DARRAY_SUCCESS)
    t->rc = rc;
}

/* Post one share's message (n bytes at p, n <= K <= INT32_MAX). */
static void post(st_t *t, char *p, int64_t n, int peer, bool send) {
  MPI_Comm comm = t->x->f->comm;
  MPI_Request *rq = &t->req[t->nreq];
  int err = send ? MPI_Isend(p, (int)n, MPI_BYTE, peer, ST_TAG, comm, rq)
                 : MPI_Irecv(p, (int)n, MPI_BYTE, peer, ST_TAG, comm, rq);
  if (err != MPI_SUCCESS)
    fail(t, DARRAY_EMPI);
  else
    t->nreq++;
  if (send)
    t->x->stats.bytes_exchanged += n;
  t->x->stats.messages += send && err == MPI_SUCCESS;
}

static void wait_all(st_t *t) {
  int64_t t0 = darray__now_ns();
  if (t->nreq > 0 && darray__wait_all(t->nreq, t->req) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
  t->x->stats.exchange_ns += darray__now_ns() - t0;
  t->nreq = 0;
}

/* My share of n bytes between my buffer and p, along my runs (to_p:
 * packed into p). */
static void copy_mine(st_t *t, char *p, int64_t n, bool to_p) {
  layout_run_t run;
  int64_t b0, len;
  while (n > 0 && darray__static_cursor_take(&t->mine, n, &run, &b0, &len)) {
    darray__layout_copy(&t->x->a->d, &t->x->sec[run.sec], &run, b0, b0 + len,
                        t->x->buf, p, to_p);
    t->x->stats.bytes_copied += len;
    p += len;
    n -= len;
  }
}

/* ---- the aggregator's vectors -------------------------------------------- */

static void flush_vector(st_t *t) {
  if (t->niov == 0)
    return;
  io_call_t *io = &t->x->io;
  int rc = t->x->write ? darray__io_pwritev(io, t->iov, t->niov, t->iov_off,
                                            t->pack, t->p.K)
                       : darray__io_preadv(io, t->iov, t->niov, t->iov_off,
                                           t->pack, t->p.K);
  fail(t, rc);
  t->niov = 0;
}

/* A piece of member k's share, at pos in it: one more entry of the
 * vector (or the last one grown, where it touches in file and memory);
 * a piece that does not touch the last one in the file starts a call. */
static void add_piece(void *ctx, int k, int64_t foff, int64_t len,
                      int64_t pos) {
  st_t *t = ctx;
  char *mem = t->base[k] + pos;
  struct iovec *last = t->niov > 0 ? &t->iov[t->niov - 1] : NULL;
  if (last != NULL && foff != t->iov_end)
    flush_vector(t), last = NULL;
  if (last != NULL && (char *)last->iov_base + last->iov_len == mem) {
    last->iov_len += (size_t)len;
  } else {
    if (t->niov == DARRAY_IOV_MAX)
      flush_vector(t);
    if (t->niov == 0)
      t->iov_off = foff;
    t->iov[t->niov++] = (struct iovec){mem, (size_t)len};
  }
  t->iov_end = foff + len;
}

/* Every member's share of cycle c, merged in file order, to or from the
 * file. Nothing after a failure (a share that failed to arrive is not
 * written; the call fails anyway). */
static void group_io(st_t *t) {
  if (t->rc != DARRAY_SUCCESS)
    return;
  darray__static_merge(t->cur, t->n, t->g, t->pos, add_piece, t);
  flush_vector(t);
}

/* ---- the cycle ----------------------------------------------------------- */

/* My share of cycle c: where it sits (my buffer, when it holds my stream
 * as it is; else p) and its bytes. An empty share points nowhere in my
 * buffer, which may be NULL then. */
static char *my_share(st_t *t, int64_t c, char *p, int64_t *n) {
  *n = darray__static_share(&t->p, t->acc->rank[t->me].bytes, c);
  if (t->self_packed && *n > 0)
    return t->x->buf + t->x->sec[0].mem_base + c * t->p.K;
  return p;
}

/* The aggregator's slots: each member's share's bytes and place. */
static void place_shares(st_t *t, int64_t c) {
  for (int k = 0; k < t->g; k++) {
    t->n[k] = darray__static_share(&t->p, t->acc->rank[t->first + k].bytes, c);
    t->base[k] = t->stage + (int64_t)k * t->p.K;
  }
  int64_t n;
  int k = t->me - t->first;
  t->base[k] = my_share(t, c, t->base[k], &n);
}

static void post_members(st_t *t, bool send) {
  for (int k = 0; k < t->g; k++)
    if (t->first + k != t->me && t->n[k] > 0)
      post(t, t->base[k], t->n[k], t->first + k, send);
}

static void write_cycle(st_t *t, int64_t c) {
  int64_t n;
  if (t->agg) {
    place_shares(t, c);
    post_members(t, false);
    char *mine = my_share(t, c, t->base[t->me - t->first], &n);
    if (!t->self_packed)
      copy_mine(t, mine, n, true);
    wait_all(t);
    group_io(t);
    return;
  }
  char *mine = my_share(t, c, t->pack, &n);
  if (n > 0 && !t->self_packed)
    copy_mine(t, mine, n, true);
  if (n > 0)
    post(t, mine, n, t->first, true);
  wait_all(t);
}

static void read_cycle(st_t *t, int64_t c) {
  int64_t n;
  if (t->agg) {
    place_shares(t, c);
    group_io(t);
    post_members(t, true);
    char *mine = my_share(t, c, t->base[t->me - t->first], &n);
    if (!t->self_packed)
      copy_mine(t, mine, n, false);
    wait_all(t);
    return;
  }
  char *mine = my_share(t, c, t->pack, &n);
  if (n > 0)
    post(t, mine, n, t->first, false);
  wait_all(t);
  if (n > 0 && !t->self_packed)
    copy_mine(t, mine, n, false);
}

void darray__static_cycle(st_t *t, int64_t c) {
  if (t->x->write)
    write_cycle(t, c);
  else
    read_cycle(t, c);
}
