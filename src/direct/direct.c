/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * direct.c - independent I/O of this process's own runs.
 *
 * Runs come in file order. A run that is contiguous in the buffer and does
 * not touch the next one moves with one call straight from/to the user's
 * buffer. Runs that touch are merged: their bytes are packed into (or
 * unpacked from) one temporary buffer of at most ind_wr_buffer_size /
 * ind_rd_buffer_size bytes and moved with one call per buffer load. A run
 * that is strided in memory goes through the same buffer; a contiguous one
 * at least as long as the buffer moves alone. So under a darray_temp_limit
 * below one element (darray__xfer_buffer_cap) contiguous runs use no
 * buffer at all.
 *
 * The planner's estimate counts those calls: one per stretch of touching
 * runs that fits the buffer, one per buffer load of a longer stretch, one
 * per lone run, each costing a call's latency, plus the bytes at the
 * bandwidth (darray_ds_*_latency_ns, darray_ds_bandwidth_mbs). The
 * slowest process is the call's time.
 */
#include "strategy.h"

#include <stdlib.h>

#define MAX_PIECES 256 /* pieces per buffer load: bounded metadata */

/* The temporary buffer of a call that moves `bytes` bytes: the buffer-size
 * hint in whole elements (darray__xfer_buffer_cap), no larger than the
 * data it may hold. */
static int64_t direct_cap(const xfer_t *x, int64_t bytes) {
  int64_t hint = x->write ? x->f->hints.ind_wr_buffer_size
                          : x->f->hints.ind_rd_buffer_size;
  int64_t cap = darray__xfer_buffer_cap(x, hint);
  return bytes > 0 && cap > bytes ? bytes : cap;
}

typedef struct piece {
  layout_run_t run;
  int64_t b0, b1; /* byte range of the run */
  int64_t at;     /* offset in the temporary buffer */
} piece_t;

typedef struct batch {
  xfer_t *x;
  char *tmp;
  int64_t cap;
  int64_t start, len;
  int npieces;
  piece_t pieces[MAX_PIECES];
} batch_t;

static int flush(batch_t *b) {
  if (b->len == 0)
    return DARRAY_SUCCESS;
  const struct darray_s *a = b->x->a;
  int rc;
  if (b->x->write) {
    for (int i = 0; i < b->npieces; i++) {
      piece_t *p = &b->pieces[i];
      b->x->stats.bytes_copied +=
          darray__layout_copy(&a->d, &b->x->sec[p->run.sec], &p->run, p->b0,
                              p->b1, b->x->buf, b->tmp + p->at, true);
    }
    rc = darray__io_pwrite(&b->x->io, b->tmp, b->len, b->start);
  } else {
    rc = darray__io_pread(&b->x->io, b->tmp, b->len, b->start);
    for (int i = 0; rc == DARRAY_SUCCESS && i < b->npieces; i++) {
      piece_t *p = &b->pieces[i];
      b->x->stats.bytes_copied +=
          darray__layout_copy(&a->d, &b->x->sec[p->run.sec], &p->run, p->b0,
                              p->b1, b->x->buf, b->tmp + p->at, false);
    }
  }
  b->len = 0;
  b->npieces = 0;
  return rc;
}

/* Add a run to the batch, flushing whenever the buffer fills. */
static int add_run(batch_t *b, const layout_run_t *r) {
  if (b->tmp == NULL) {
    b->tmp = malloc((size_t)b->cap);
    if (b->tmp == NULL)
      return DARRAY_ENOMEM;
    if (b->x->stats.peak_temp_bytes < b->cap)
      b->x->stats.peak_temp_bytes = b->cap;
  }
  for (int64_t off = 0; off < r->len;) {
    if (b->len > 0 && (b->start + b->len != r->foff + off ||
                       b->len == b->cap || b->npieces == MAX_PIECES)) {
      int rc = flush(b);
      if (rc != DARRAY_SUCCESS)
        return rc;
    }
    if (b->len == 0)
      b->start = r->foff + off;
    int64_t take = r->len - off;
    if (take > b->cap - b->len)
      take = b->cap - b->len;
    b->pieces[b->npieces++] = (piece_t){*r, off, off + take, b->len};
    b->len += take;
    off += take;
  }
  return DARRAY_SUCCESS;
}

static int move_alone(xfer_t *x, const layout_run_t *r) {
  char *p = x->buf + r->moff;
  return x->write ? darray__io_pwrite(&x->io, p, r->len, r->foff)
                  : darray__io_pread(&x->io, p, r->len, r->foff);
}

static int direct_run(xfer_t *x) {
  const struct darray_s *a = x->a;
  layout_iter_t it;
  int rc = darray__layout_iter_init(&it, &a->d, x->sec, x->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  batch_t *b = calloc(1, sizeof *b);
  if (b == NULL) {
    darray__layout_iter_free(&it);
    return DARRAY_ENOMEM;
  }
  b->x = x;
  int64_t nruns, bytes;
  darray__layout_count(&a->d, x->sec, x->nsec, &nruns, &bytes);
  b->cap = direct_cap(x, bytes);
  /* writes: one shared lock over the whole extent instead of one per
   * write call (src/io/io_lock.c); no MPI call is made while it is held */
  int64_t lo = 0, hi = 0;
  if (x->write)
    darray__layout_extent(&a->d, x->sec, x->nsec, &lo, &hi);
  rc = darray__io_lock(&x->io, lo, hi - lo, false);
  bool locked = rc == DARRAY_SUCCESS;
  layout_run_t cur, next;
  bool have = locked && darray__layout_next(&it, &cur);
  while (have && rc == DARRAY_SUCCESS) {
    bool more = darray__layout_next(&it, &next);
    bool touches = more && next.foff == cur.foff + cur.len;
    /* a contiguous run as long as the buffer gains nothing from it */
    bool alone = cur.mem_contig &&
                 ((b->len == 0 && !touches) || cur.len >= b->cap);
    if (alone && (rc = flush(b)) == DARRAY_SUCCESS)
      rc = move_alone(x, &cur);
    else if (!alone)
      rc = add_run(b, &cur);
    if (rc == DARRAY_SUCCESS && !touches)
      rc = flush(b);
    cur = next;
    have = more;
  }
  int rc2 = locked ? darray__io_unlock(&x->io, lo, hi - lo)
                   : DARRAY_SUCCESS;
  rc = rc != DARRAY_SUCCESS ? rc : rc2;
  free(b->tmp);
  free(b);
  darray__layout_iter_free(&it);
  return rc;
}

/* ---- the estimate ------------------------------------------------------ */

/* Calls for a stretch of `runs` touching runs holding len bytes: a lone
 * run moves with one call (straight from the buffer when it is contiguous
 * there, else in buffer loads: how another process's buffer is laid out
 * is not known here, so a lone run counts as one call), a longer stretch
 * in buffer loads of cap bytes. */
static int64_t stretch_calls(int64_t len, int64_t runs, int64_t cap) {
  if (runs <= 1)
    return runs;
  return len / cap + (len % cap != 0);
}

/* The calls of a sample of runs, stretch by stretch. */
typedef struct tally {
  int64_t cap, n, calls;
  int64_t len, runs, end; /* the stretch so far */
} tally_t;

static void count_run(void *p, const layout_run_t *run) {
  tally_t *t = p;
  if (t->n++ > 0 && run->foff != t->end) {
    t->calls += stretch_calls(t->len, t->runs, t->cap);
    t->len = t->runs = 0;
  }
  t->len += run->len;
  t->runs++;
  t->end = run->foff + run->len;
}

/* The calls of process r, from its first runs scaled to all of them (its
 * runs repeat with a short period; access.h). */
static int sampled_calls(const xfer_t *x, int r, const access_rank_t *k,
                         double *calls) {
  tally_t t = {direct_cap(x, k->bytes), 0, 0, 0, 0, 0};
  int rc = darray__xfer_sample_runs(x, r, count_run, &t);
  t.calls += stretch_calls(t.len, t.runs, t.cap);
  /* exactly its runs when no run touches another (the usual case) */
  *calls = t.n == 0 || t.calls == t.n
               ? (double)k->nruns
               : (double)t.calls * ((double)k->nruns / (double)t.n);
  return rc;
}

/* The slowest process: every sampled process's calls from its runs; the
 * others' (beyond DARRAY_SAMPLE_RANKS processes) one per run. */
static int direct_estimate(const xfer_t *x, const access_t *acc,
                           estimate_t *e) {
  cost_rates_t c = darray__cost_rates(x);
  double bw = c.bw, lat = c.lat;
  int n = darray__access_samples(acc), i = 0;
  double sum = 0;
  e->ns = 0;
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *k = &acc->rank[r];
    double calls = (double)k->nruns;
    if (i < n && darray__access_sample(acc, i) == r) {
      i++;
      int rc = k->nruns > 1 ? sampled_calls(x, r, k, &calls) : DARRAY_SUCCESS;
      if (rc != DARRAY_SUCCESS)
        return rc;
    }
    double t = calls * lat + (double)k->bytes * bw;
    e->ns = t > e->ns ? t : e->ns;
    sum += t;
  }
  double servers = darray__servers_ns(x, sum);
  e->ns = servers > e->ns ? servers : e->ns;
  return DARRAY_SUCCESS;
}

/* ---- on paper ------------------------------------------------------------ */

/* direct_run's decisions over one process's runs, counting its calls
 * instead of making them (the buffer's fill, its pieces, the pending run
 * and whether the next one touches it), for darray_plan_virtual. */
typedef struct paper {
  int64_t cap, calls;
  int64_t start, len, npieces; /* the batch */
  layout_run_t cur;
  bool have;
} paper_t;

static void paper_flush(paper_t *p) {
  p->calls += p->len > 0;
  p->len = p->npieces = 0;
}

static void paper_add(paper_t *p, const layout_run_t *r) {
  for (int64_t off = 0; off < r->len;) {
    if (p->len > 0 && (p->start + p->len != r->foff + off ||
                       p->len == p->cap || p->npieces == MAX_PIECES))
      paper_flush(p);
    if (p->len == 0)
      p->start = r->foff + off;
    int64_t take = r->len - off < p->cap - p->len ? r->len - off
                                                  : p->cap - p->len;
    p->npieces++;
    p->len += take;
    off += take;
  }
}

static void paper_step(paper_t *p, bool touches) {
  const layout_run_t *cur = &p->cur;
  bool alone = cur->mem_contig &&
               ((p->len == 0 && !touches) || cur->len >= p->cap);
  if (alone) {
    paper_flush(p);
    p->calls++;
  } else {
    paper_add(p, cur);
  }
  if (!touches)
    paper_flush(p);
}

static void paper_run(void *ctx, const layout_run_t *run) {
  paper_t *p = ctx;
  if (p->have)
    paper_step(p, run->foff == p->cur.foff + p->cur.len);
  p->cur = *run;
  p->have = true;
}

static int direct_tally(const xfer_t *x, const access_t *acc,
                        darray_plan_row_t *row) {
  darray__tally_own_start(row);
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *k = &acc->rank[r];
    paper_t p = {.cap = direct_cap(x, k->bytes)};
    if (darray__xfer_walk_runs(x, r, -1, paper_run, &p) != DARRAY_SUCCESS)
      return DARRAY_ENOMEM;
    if (p.have)
      paper_step(&p, false);
    darray__tally_own(row, k, p.calls);
  }
  darray__tally_own_end(row);
  return DARRAY_SUCCESS;
}

const strategy_t darray__strategy_direct = {
    .name = "direct",
    .estimate = direct_estimate,
    .run = direct_run,
    .tally = direct_tally,
};
