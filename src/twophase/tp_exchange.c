/*
 * tp_exchange.c - one two-phase cycle: the data exchange between owners
 * and aggregators, and the aggregators' file access.
 *
 * Both ends of every message walk the same runs (the owner its own, the
 * aggregator the owner's, computed from the distribution), clipped to the
 * aggregator's chunk, and cut a message after every TP_MAX_BLOCKS pieces.
 * So both ends agree on every message's size without sending a byte of
 * metadata. Each end describes its side of a message with a datatype over
 * its own buffer: the chunk buffer at the aggregator; at the owner, the
 * user's buffer itself when its runs are contiguous there, else a packed
 * copy.
 */
#include "twophase.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TP_TAG 0x2fa5

typedef struct msg {
  tp_t *t;
  int peer;
  bool send;
  char *base;      /* the buffer the pieces are in */
  int n;           /* blocks (pieces merged when adjacent in base) */
  int npieces;     /* pieces: the unit both ends count */
  int64_t bytes;
  int64_t at;      /* next offset in the pack buffer, or chunk start */
  int64_t clo;     /* chunk start (aggregator side) */
} msg_t;

typedef void (*piece_fn)(msg_t *m, const layout_run_t *r, int64_t b0,
                         int64_t b1);

/* Call fn on every piece of the iterator's runs inside [lo, hi). */
static void walk(layout_iter_t *it, int64_t lo, int64_t hi, piece_fn fn,
                 msg_t *m) {
  if (lo >= hi)
    return;
  darray__layout_seek(it, lo);
  layout_run_t r;
  while (darray__layout_next(it, &r) && r.foff < hi) {
    int64_t b0 = r.foff < lo ? lo - r.foff : 0;
    int64_t b1 = r.foff + r.len > hi ? hi - r.foff : r.len;
    fn(m, &r, b0, b1);
  }
}

static MPI_Request *next_request(tp_t *t) {
  if (t->nreq == t->req_cap) {
    int cap = t->req_cap ? 2 * t->req_cap : 64;
    MPI_Request *q = realloc(t->req, sizeof *q * (size_t)cap);
    if (q == NULL)
      return NULL;
    t->req = q;
    t->req_cap = cap;
  }
  return &t->req[t->nreq++];
}

static void fail(tp_t *t, int rc) {
  if (t->rc == DARRAY_SUCCESS)
    t->rc = rc;
}

static void msg_post(msg_t *m) {
  tp_t *t = m->t;
  if (m->n == 0)
    return;
  MPI_Comm comm = t->x->f->comm;
  MPI_Request *rq = next_request(t);
  MPI_Datatype ty = MPI_BYTE;
  int count = t->blen[0], err;
  char *p = m->base + t->bdisp[0];
  if (rq == NULL) {
    fail(t, DARRAY_ENOMEM); /* the peer then waits: see darray__tp_cycle */
    m->n = 0;
    return;
  }
  if (m->n > 1) {
    MPI_Type_create_hindexed(m->n, t->blen, t->bdisp, MPI_BYTE, &ty);
    MPI_Type_commit(&ty);
    count = 1;
    p = m->base;
  }
  if (m->send)
    err = MPI_Isend(p, count, ty, m->peer, TP_TAG, comm, rq);
  else
    err = MPI_Irecv(p, count, ty, m->peer, TP_TAG, comm, rq);
  if (m->n > 1)
    MPI_Type_free(&ty);
  if (err != MPI_SUCCESS)
    fail(t, DARRAY_EMPI);
  if (m->send)
    t->x->f->stats.bytes_exchanged += m->bytes;
  m->n = 0;
  m->npieces = 0;
  m->bytes = 0;
}

/* Add a piece at disp in m->base. */
static void msg_add(msg_t *m, int64_t disp, int64_t len) {
  tp_t *t = m->t;
  if (m->npieces == TP_MAX_BLOCKS)
    msg_post(m);
  m->npieces++;
  m->bytes += len;
  int k = m->n - 1;
  if (k >= 0 && t->bdisp[k] + t->blen[k] == disp &&
      t->blen[k] <= INT_MAX - len) {
    t->blen[k] += (int)len;
    return;
  }
  t->bdisp[m->n] = (MPI_Aint)disp;
  t->blen[m->n++] = (int)len;
}

/* Pieces described at the aggregator: positions in the chunk. */
static void piece_chunk(msg_t *m, const layout_run_t *r, int64_t b0,
                        int64_t b1) {
  msg_add(m, r->foff + b0 - m->clo, b1 - b0);
}

/* Pieces described at the owner, in its buffer or packed. */
static void piece_owner(msg_t *m, const layout_run_t *r, int64_t b0,
                        int64_t b1) {
  tp_t *t = m->t;
  if (t->self_contig) {
    msg_add(m, r->moff + b0, b1 - b0);
    return;
  }
  if (m->send)
    darray__layout_copy(t->a, &t->a->sec[r->sec], r, b0, b1, t->x->buf,
                        t->pack + m->at, true);
  msg_add(m, m->at, b1 - b0);
  m->at += b1 - b0;
}

static void piece_unpack(msg_t *m, const layout_run_t *r, int64_t b0,
                         int64_t b1) {
  darray__layout_copy(m->t->a, &m->t->a->sec[r->sec], r, b0, b1,
                      m->t->x->buf, m->t->pack + m->at, false);
  m->at += b1 - b0;
}

/* An aggregator's own runs: straight between the user's buffer and the
 * chunk. */
static void piece_self(msg_t *m, const layout_run_t *r, int64_t b0,
                       int64_t b1) {
  darray__layout_copy(m->t->a, &m->t->a->sec[r->sec], r, b0, b1,
                      m->t->x->buf, m->base + (r->foff + b0 - m->clo),
                      m->send);
}

static void piece_count(msg_t *m, const layout_run_t *r, int64_t b0,
                        int64_t b1) {
  (void)r;
  m->bytes += b1 - b0;
}

static void piece_span(msg_t *m, const layout_run_t *r, int64_t b0,
                       int64_t b1) {
  int64_t s = r->foff + b0, e = r->foff + b1;
  if (m->npieces++ == 0 || s < m->clo)
    m->clo = s;
  if (e > m->at)
    m->at = e;
}

/* Make room for this cycle's packed pieces (owners with strided memory);
 * done before any message of the cycle is posted, so nothing moves under
 * a pending request. */
static bool reserve_pack(tp_t *t, int64_t cycle) {
  if (t->self_contig)
    return true;
  msg_t m = {.t = t};
  for (int i = 0; i < t->A; i++) {
    int64_t clo, chi;
    darray__tp_chunk(t, i, cycle, &clo, &chi);
    if (darray__tp_agg_rank(t, i) != t->me)
      walk(&t->self, clo, chi, piece_count, &m);
  }
  if (m.bytes <= t->pack_cap)
    return true;
  free(t->pack);
  t->pack = malloc((size_t)m.bytes);
  t->pack_cap = t->pack ? m.bytes : 0;
  return t->pack != NULL;
}

/* Owner side: one message per aggregator (other than me) and cycle. */
static void owner_messages(tp_t *t, int64_t cycle, bool send) {
  msg_t m = {.t = t, .send = send,
             .base = t->self_contig ? t->x->buf : t->pack};
  for (int i = 0; i < t->A; i++) {
    int64_t clo, chi;
    int ar = darray__tp_agg_rank(t, i);
    darray__tp_chunk(t, i, cycle, &clo, &chi);
    if (ar == t->me || clo == chi)
      continue;
    m.peer = ar;
    walk(&t->self, clo, chi, piece_owner, &m);
    msg_post(&m);
  }
}

static void owner_unpack(tp_t *t, int64_t cycle) {
  msg_t m = {.t = t};
  for (int i = 0; i < t->A && !t->self_contig; i++) {
    int64_t clo, chi;
    darray__tp_chunk(t, i, cycle, &clo, &chi);
    if (darray__tp_agg_rank(t, i) != t->me)
      walk(&t->self, clo, chi, piece_unpack, &m);
  }
}

/* Aggregator side: one message per other process, and my own pieces. */
static void aggregator_messages(tp_t *t, int64_t clo, int64_t chi,
                                bool send) {
  msg_t m = {.t = t, .send = send, .base = t->chunk, .clo = clo};
  for (int r = 0; r < t->P; r++) {
    if (r == t->me)
      continue;
    m.peer = r;
    walk(&t->peer[r], clo, chi, piece_chunk, &m);
    msg_post(&m);
  }
}

static void aggregator_self(tp_t *t, int64_t clo, int64_t chi, bool write) {
  msg_t m = {.t = t, .send = write, .base = t->chunk, .clo = clo};
  walk(&t->self, clo, chi, piece_self, &m);
}

/* The part of a chunk that somebody accesses: all of it when dense. */
static void chunk_span(tp_t *t, int64_t clo, int64_t chi, int64_t *s0,
                       int64_t *s1, int64_t *covered) {
  *s0 = clo;
  *s1 = *covered = chi - clo;
  *s1 = chi;
  if (t->dense)
    return;
  msg_t span = {.t = t, .clo = chi, .at = clo};
  msg_t count = {.t = t};
  for (int r = 0; r < t->P; r++) {
    walk(&t->peer[r], clo, chi, piece_span, &span);
    walk(&t->peer[r], clo, chi, piece_count, &count);
  }
  *s0 = span.clo;
  *s1 = span.at > span.clo ? span.at : span.clo;
  *covered = count.bytes;
}

/* GCC 12 takes MPI_STATUSES_IGNORE for a zero-length array and warns. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
static void wait_all(tp_t *t) {
  if (MPI_Waitall(t->nreq, t->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    fail(t, DARRAY_EMPI);
  t->nreq = 0;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void io_fail(tp_t *t, int rc) {
  if (rc != DARRAY_SUCCESS)
    fail(t, rc);
}

static void write_cycle(tp_t *t, int64_t cycle) {
  int64_t clo = 0, chi = 0, s0, s1, covered;
  bool agg = t->myagg >= 0;
  if (agg)
    darray__tp_chunk(t, t->myagg, cycle, &clo, &chi);
  agg = agg && clo < chi;
  if (agg) {
    chunk_span(t, clo, chi, &s0, &s1, &covered);
    if (covered < chi - clo) { /* holes: read-modify-write */
      /* No lock: within one collective call the domains are disjoint,
       * so no other process of this call writes these bytes. */
      memset(t->chunk, 0, (size_t)(chi - clo));
      int rc = darray__io_pread(t->x->f, t->chunk, chi - clo, clo);
      if (rc != DARRAY_EEOF)
        io_fail(t, rc);
    }
    aggregator_messages(t, clo, chi, false);
  }
  if (!reserve_pack(t, cycle))
    fail(t, DARRAY_ENOMEM);
  else
    owner_messages(t, cycle, true);
  if (agg)
    aggregator_self(t, clo, chi, true);
  wait_all(t);
  if (agg && t->rc == DARRAY_SUCCESS)
    io_fail(t, darray__io_pwrite(t->x->f, t->chunk, chi - clo, clo));
}

static void read_cycle(tp_t *t, int64_t cycle) {
  int64_t clo = 0, chi = 0, s0, s1, covered;
  bool packed_ok = reserve_pack(t, cycle);
  if (!packed_ok)
    fail(t, DARRAY_ENOMEM);
  else
    owner_messages(t, cycle, false);
  bool agg = t->myagg >= 0;
  if (agg)
    darray__tp_chunk(t, t->myagg, cycle, &clo, &chi);
  if (agg && clo < chi) {
    chunk_span(t, clo, chi, &s0, &s1, &covered);
    if (s1 > s0)
      io_fail(t, darray__io_pread(t->x->f, t->chunk + (s0 - clo), s1 - s0,
                                  s0));
    aggregator_messages(t, clo, chi, true);
    aggregator_self(t, clo, chi, false);
  }
  wait_all(t);
  if (packed_ok)
    owner_unpack(t, cycle);
}

void darray__tp_cycle(tp_t *t, int64_t cycle) {
  if (t->x->write)
    write_cycle(t, cycle);
  else
    read_cycle(t, cycle);
}
