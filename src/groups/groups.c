/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups.c - collective I/O by writer groups over shared memory
 * ("groups").
 *
 * Chaarawi, Chandok & Gabriel's dynamic segmentation with multiple
 * writers, in two levels: the processes form groups (a node's, by
 * MPI_Comm_split_type, or cb_group_size consecutive ranks, so that one
 * node can stand in for many), the first rank of each is its writer, and
 * each writer moves its group's bytes, chunk after chunk in file order,
 * with no exchange between groups. Within a group the bytes meet in a
 * shared memory segment that the writer makes (groups_comm.c): in each
 * cycle every member copies its own pieces of the chunk straight to their
 * place in the chunk's image (each byte is copied once, by its owner: the
 * copying is spread over the group), one synchronization of the group
 * follows, and the writer writes the stretches some member covers with
 * one list call (never a hole: no byte outside the call's is touched, so
 * no lock beyond the list call's own is needed). Reads run backwards:
 * the writer reads the chunk's stretches into the image, the members copy
 * their pieces out.
 *
 * The segment is two halves, used by turns: members fill chunk c + 1
 * while the writer writes chunk c (or on reads, copy out chunk c while
 * the writer reads chunk c + 1). No offset or length is exchanged: a
 * member's pieces are its runs (layout iterators, from the distribution),
 * and the writer walks every member's runs for the stretches.
 *
 * Steps, per call:
 *   1. prepare (local): the chunk (groups_size.c);
 *   2. run: the file's groups (made by its first groups call, kept until
 *      close), the group's extent and cycles, then the cycles.
 */
#include "groups/groups.h"

#include "agree.h"
#include "file.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* A call's state, from prepare to finish. */
typedef struct gr {
  xfer_t *x;
  gr_plan_t p;
  const access_t *acc;
  gr_cache_t *c;   /* the file's groups (run) */
  gr_walk_t walk;  /* the writer's: every member's runs */
  bool walking;
  int64_t lo, ncycles; /* the group's extent's start, its chunks */
  struct iovec *iov;   /* the writer's list: DARRAY_IOV_MAX stretches */
  int64_t *roff, *rlen;
  int nr;
  char *img;           /* the chunk's image */
  int64_t clo;         /* ... and its first byte's file offset */
  int rc;              /* first local failure */
} gr_t;

static void fail(gr_t *t, int rc) {
  if (t->rc == DARRAY_SUCCESS && rc != DARRAY_SUCCESS)
    t->rc = rc;
}

/* ---- the planner's estimate --------------------------------------------- */

/*
 * Group i (ranks [i s, (i + 1) s)): its writer's time, its own copy into
 * the image then the group's bytes at the file bandwidth and its calls at
 * the file latency, against its busiest member's copy, which overlaps
 * (double buffer); and its cycles. A chunk with a hole is written as its
 * stretches: about one call per stretch without list calls, else one per
 * DARRAY_IOV_MAX stretches; the stretches are at most the members' runs,
 * and one per chunk where the group's bytes are its whole extent.
 */
static double group_ns(const xfer_t *x, const access_t *acc,
                       const gr_plan_t *p, int i, int64_t *ncycles) {
  const darray_hints_t *h = &x->f->hints;
  int lo = i * p->s, hi = lo + p->s < acc->P ? lo + p->s : acc->P;
  int64_t bytes = 0, most = 0, runs = 0, elo = INT64_MAX, ehi = INT64_MIN;
  for (int r = lo; r < hi; r++) {
    const access_rank_t *k = &acc->rank[r];
    bytes += k->bytes;
    runs += k->nruns;
    if (r > lo && k->bytes > most)
      most = k->bytes;
    if (k->bytes > 0) {
      elo = k->lo < elo ? k->lo : elo;
      ehi = k->hi > ehi ? k->hi : ehi;
    }
  }
  *ncycles = 0;
  if (elo < ehi)
    *ncycles = (ehi - elo) / p->C + ((ehi - elo) % p->C != 0);
  double calls = (double)*ncycles;
  if (bytes < ehi - elo) {
    double lists = darray__io_backend_lists(h->backend)
                       ? (double)runs / DARRAY_IOV_MAX
                       : (double)runs;
    calls = lists > calls ? lists : calls;
  }
  cost_rates_t c = darray__cost_rates(x); /* xw: one copy per byte */
  double writer = (double)acc->rank[lo].bytes * c.xw + (double)bytes * c.bw +
                  calls * c.lat;
  double member = (double)most * c.xw;
  return writer > member ? writer : member;
}

static int gr_estimate(const xfer_t *x, const access_t *acc, estimate_t *e) {
  const darray_hints_t *h = &x->f->hints;
  const char *sw = x->write ? "romio_cb_write" : "romio_cb_read";
  if (darray__hints_enum(h, sw) == DARRAY_TRI_DISABLE) {
    snprintf(e->why, sizeof e->why, "%s=disable", sw);
    return DARRAY_SUCCESS;
  }
  if (!acc->interleaved) {
    snprintf(e->why, sizeof e->why, "the processes' extents do not "
             "interleave: each moves its own runs, with no communication");
    return DARRAY_SUCCESS;
  }
  gr_plan_t p;
  darray__groups_plan(x->f, acc, &x->a->d, &p);
  if (p.refuse != DARRAY_SUCCESS || p.s == 0) {
    snprintf(e->why, sizeof e->why, "%s",
             p.s == 0 ? "groups by node are known only by asking MPI "
                        "(set cb_group_size to weigh them)"
                      : p.why);
    return DARRAY_SUCCESS;
  }
  double most = 0, cyc = darray__cost_rates(x).cyc;
  for (int i = 0; i * p.s < acc->P; i++) {
    int64_t n;
    double ns = group_ns(x, acc, &p, i, &n);
    ns += (double)n * cyc;
    most = ns > most ? ns : most;
  }
  e->ns = most;
  return DARRAY_SUCCESS;
}

/* ---- 1. prepare --------------------------------------------------------- */

static int gr_prepare(xfer_t *x) {
  gr_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return DARRAY_ENOMEM;
  x->state = t;
  t->x = x;
  int rc = darray__xfer_access(x, &t->acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__groups_plan(x->f, t->acc, &x->a->d, &t->p);
  if (t->p.refuse != DARRAY_SUCCESS)
    return darray__err(x->msg, t->p.refuse, "darray_strategy=groups: %s",
                       t->p.why);
  t->iov = malloc(sizeof *t->iov * DARRAY_IOV_MAX);
  t->roff = malloc(sizeof *t->roff * DARRAY_IOV_MAX);
  t->rlen = malloc(sizeof *t->rlen * DARRAY_IOV_MAX);
  if (!t->iov || !t->roff || !t->rlen)
    return DARRAY_ENOMEM;
  return DARRAY_SUCCESS;
}

static void gr_finish(xfer_t *x) {
  gr_t *t = x->state;
  if (t == NULL)
    return;
  if (t->walking)
    darray__groups_walk_free(&t->walk);
  free(t->iov);
  free(t->roff);
  free(t->rlen);
  free(t);
  x->state = NULL;
}

/* ---- 2. the cycles ------------------------------------------------------ */

/* One synchronization of the group: what this process wrote into the
 * segment becomes visible to the others, and theirs to it (a full fence
 * on both sides of the barrier, waited for politely). Taken even after a
 * failure. */
static void group_sync(gr_t *t) {
  MPI_Request req;
  atomic_thread_fence(memory_order_seq_cst);
  darray__coll();
  int64_t t0 = darray__now_ns();
  if (MPI_Ibarrier(t->c->comm, &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    fail(t, DARRAY_EMPI);
  t->x->stats.exchange_ns += darray__now_ns() - t0;
  atomic_thread_fence(memory_order_seq_cst);
}

/* The list gathered so far to or from the image: one call. */
static void flush_list(gr_t *t) {
  if (t->nr == 0 || t->rc != DARRAY_SUCCESS) {
    t->nr = 0;
    return;
  }
  io_call_t *io = &t->x->io;
  bool w = t->x->write;
  int rc = DARRAY_SUCCESS;
  if (io->file->ops->plist != NULL)
    rc = darray__io_xfer_list(io, t->iov, t->nr, t->nr, t->roff, t->rlen, w,
                              NULL, 0);
  for (int k = 0; io->file->ops->plist == NULL && k < t->nr; k++)
    if (rc == DARRAY_SUCCESS) /* one call per stretch, from the image */
      rc = w ? darray__io_pwrite(io, t->iov[k].iov_base, t->rlen[k],
                                 t->roff[k])
             : darray__io_pread(io, t->iov[k].iov_base, t->rlen[k],
                                t->roff[k]);
  fail(t, rc);
  t->nr = 0;
}

static void add_stretch(void *ctx, int64_t off, int64_t len) {
  gr_t *t = ctx;
  if (t->nr == DARRAY_IOV_MAX)
    flush_list(t);
  t->iov[t->nr] = (struct iovec){t->img + (off - t->clo), (size_t)len};
  t->roff[t->nr] = off;
  t->rlen[t->nr++] = len;
}

/* The image of chunk c and its file range. */
static void chunk(gr_t *t, int64_t c, int64_t *lo, int64_t *hi) {
  *lo = t->lo + c * t->p.C;
  *hi = *lo + t->p.C;
  t->img = t->c->base + ((t->c->next + c) % 2) * t->c->half;
  t->clo = *lo;
}

/* The writer's file calls for chunk c: its covered stretches. */
static void writer_io(gr_t *t, int64_t c) {
  int64_t lo, hi;
  if (t->rc != DARRAY_SUCCESS)
    return;
  chunk(t, c, &lo, &hi);
  darray__groups_stretches(&t->walk, lo, hi, add_stretch, t);
  flush_list(t);
}

/* My pieces of chunk c between my buffer and the image. */
static void member_copy(gr_t *t, int64_t c) {
  xfer_t *x = t->x;
  int64_t lo, hi;
  if (t->acc->rank[x->a->rank].bytes == 0)
    return;
  chunk(t, c, &lo, &hi);
  x->stats.bytes_copied += darray__layout_copy_window(
      &x->a->d, x->sec, x->nsec, lo, hi, x->buf, t->img, x->write);
}

/* Writes: fill chunk c, synchronize, the writer writes it (while the
 * members fill chunk c + 1 in the other half: the writer enters the next
 * synchronization only when chunk c is written, so nobody fills its half
 * again before). */
static void write_cycles(gr_t *t, bool writer) {
  for (int64_t c = 0; c < t->ncycles; c++) {
    member_copy(t, c);
    group_sync(t);
    if (writer)
      writer_io(t, c);
    t->x->stats.cycles++;
  }
}

/* Reads: the writer reads chunk c + 1 into the other half before it
 * copies out its own pieces of chunk c; the members copy out of chunk c
 * meanwhile and have finished before the next synchronization, after
 * which the half of chunk c is read into again. */
static void read_cycles(gr_t *t, bool writer) {
  if (writer && t->ncycles > 0)
    writer_io(t, 0);
  for (int64_t c = 0; c < t->ncycles; c++) {
    group_sync(t);
    if (writer && c + 1 < t->ncycles)
      writer_io(t, c + 1);
    member_copy(t, c);
    t->x->stats.cycles++;
  }
}

static int gr_run(xfer_t *x) {
  gr_t *t = x->state;
  int rc = darray__groups_cache(x->f, &t->c);
  if (rc != DARRAY_SUCCESS)
    return darray__err(x->msg, rc, "darray_strategy=groups: the group "
                       "communicators or their shared segment could not be "
                       "made");
  gr_cache_t *c = t->c;
  int64_t hi;
  t->ncycles = darray__groups_extent(t->acc, c->ranks, c->g, t->p.C, &t->lo,
                                     &hi);
  bool writer = c->me == 0;
  if (writer && t->ncycles > 0) {
    fail(t, darray__groups_walk_init(&t->walk, x, c->ranks, c->g));
    t->walking = true;
    if (2 * c->half > x->stats.peak_temp_bytes)
      x->stats.peak_temp_bytes = 2 * c->half;
  }
  if (x->write)
    write_cycles(t, writer);
  else
    read_cycles(t, writer);
  c->next += t->ncycles;
  return t->rc;
}

/* Switched by romio_cb_* through its estimate, as static and rows. Its
 * writers write their groups' stretches chunk by chunk, not each
 * process's own bytes: the owners' runs feed a dataset member's CRC
 * (crc_share false). */
const strategy_t darray__strategy_groups = {
    .name = "groups",
    .collective = true,
    .estimate = gr_estimate,
    .prepare = gr_prepare,
    .run = gr_run,
    .finish = gr_finish,
    .tally = darray__groups_tally,
    .close = darray__groups_close, /* its communicator and segment */
};
