/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * sieve_estimate.c - the planner's estimate of a sieved call: the slowest
 * process's time by the cost model of sieve.c (latencies L_r, L_w and
 * bandwidth B; windows of darray__sieve_window_cap bytes, the strategy's
 * own), or why sieving is not a candidate.
 *
 *  - Extents that do not interleave (a process's holes are nobody's data,
 *    as in section calls): per process over its whole extent E with n runs
 *    and D data bytes, holes assumed spread evenly, w = ceil(E / window)
 *    windows: reads take w L_r + E / B, writes (locked read-modify-writes)
 *    w (3 L_r + L_w) + 2 E / B, where that is less than moving the runs
 *    one by one (n L + D / B); elsewhere the process moves its runs (the
 *    strategy decides again per window). Not a candidate where it is less
 *    for no process, nor for writes to a file without read-modify-write.
 *  - Interleaved extents, reads: the windows the strategy would read,
 *    found with its join rule from the first runs of the sampled processes
 *    (access.h) and scaled to the whole access: one call per window plus
 *    every byte of the windows, holes included. The windows carry the
 *    other processes' data, so sieving loses while a two-phase cycle is
 *    cheap, and wins where synchronizing is dear (more processes than
 *    cores: no process waits for another).
 *  - Interleaved extents, writes: not a candidate: every window would be a
 *    locked read-modify-write of other processes' data.
 */
#include "sieve/sieve.h"

#include <stdio.h>

/* One process's time over its whole extent; *pays: sieving is the
 * cheaper there. */
static double rank_time(const xfer_t *x, const access_rank_t *r,
                        bool *pays) {
  const darray_hints_t *h = &x->f->hints;
  double bw = darray__cost_rates(x).bw;
  double lr = (double)h->ds_rd_latency_ns, lw = (double)h->ds_wr_latency_ns;
  int64_t ext = r->hi - r->lo, holes = ext - r->bytes;
  double runs = (double)r->nruns * (x->write ? lw : lr) +
                (double)r->bytes * bw;
  *pays = false;
  if (ext <= 0 || holes <= 0 || r->nruns < 2)
    return runs;
  int64_t cap = darray__sieve_window_cap(x);
  /* ceil(ext / cap); ext + cap - 1 may pass INT64_MAX */
  double loads = (double)(ext / cap + (ext % cap != 0));
  double sieved = x->write ? loads * (3 * lr + lw) + 2 * (double)ext * bw
                           : loads * lr + (double)ext * bw;
  *pays = sieved < runs;
  return *pays ? sieved : runs;
}

/* The windows of a sample of runs. */
typedef struct windows {
  sieve_t s; /* the join rule's parameters */
  int64_t n, data, span, breaks, end;
} windows_t;

static void window_run(void *p, const layout_run_t *run) {
  windows_t *w = p;
  int64_t gap = run->foff - w->end;
  if (w->n > 0 && darray__sieve_joins(&w->s, gap, run->len))
    w->span += gap;
  else if (w->n > 0)
    w->breaks++;
  w->n++;
  w->data += run->len;
  w->span += run->len;
  w->end = run->foff + run->len;
}

/*
 * A sieved read by process r, whose runs hold k->bytes bytes: one call
 * per window plus every byte of the windows. Windows end where a hole is
 * too large to read through (darray__sieve_joins) and every cap bytes; the
 * holes are found from the first runs (access.h) and the rest is scaled
 * by bytes.
 */
static int read_windows(const xfer_t *x, int r, const access_rank_t *k,
                        double *ns) {
  const darray_hints_t *h = &x->f->hints;
  windows_t w = {.s = {.x = (xfer_t *)x,
                       .lat_rd = (double)h->ds_rd_latency_ns,
                       .ns_per_byte = darray__cost_rates(x).bw},
                 .breaks = 1};
  *ns = 0;
  if (k->bytes <= 0)
    return DARRAY_SUCCESS;
  int rc = darray__xfer_sample_runs(x, r, window_run, &w);
  if (rc != DARRAY_SUCCESS || w.data == 0)
    return rc;
  double cap = (double)darray__sieve_window_cap(x);
  double scale = (double)k->bytes / (double)w.data;
  double windows = scale * (double)w.breaks + scale * (double)w.span / cap;
  *ns = windows * w.s.lat_rd + scale * (double)w.span * w.s.ns_per_byte;
  return DARRAY_SUCCESS;
}

/* The slowest process, and at least what a striped file's servers need
 * for every process's windows (the samples' mean, times P). */
static int interleaved_read(const xfer_t *x, const access_t *acc,
                            estimate_t *e) {
  double sum = 0;
  int n = darray__access_samples(acc);
  e->ns = 0;
  for (int i = 0; i < n; i++) {
    int r = darray__access_sample(acc, i);
    double t;
    int rc = read_windows(x, r, &acc->rank[r], &t);
    if (rc != DARRAY_SUCCESS)
      return rc;
    e->ns = t > e->ns ? t : e->ns;
    sum += t;
  }
  double servers = n > 0 ? darray__servers_ns(x, sum / n * acc->P) : 0;
  e->ns = servers > e->ns ? servers : e->ns;
  return DARRAY_SUCCESS;
}

static int not_one(estimate_t *e, const char *why) {
  snprintf(e->why, sizeof e->why, "%s", why);
  return DARRAY_SUCCESS;
}

int darray__sieve_estimate(const xfer_t *x, const access_t *acc,
                           estimate_t *e) {
  if (acc->interleaved && x->write)
    return not_one(e, "its holes would be other processes' data: every "
                      "window a locked read-modify-write");
  if (acc->interleaved)
    return interleaved_read(x, acc, e);
  if (x->write && !x->f->io.rmw)
    return not_one(e, "no read-modify-write on this file "
                      "(darray_concurrent_writers)");
  bool any = false;
  double sum = 0;
  e->ns = 0;
  for (int r = 0; r < acc->P; r++) {
    bool pays;
    double t = rank_time(x, &acc->rank[r], &pays);
    e->ns = t > e->ns ? t : e->ns;
    sum += t;
    any |= pays;
  }
  double servers = darray__servers_ns(x, sum);
  e->ns = servers > e->ns ? servers : e->ns;
  if (!any)
    return not_one(e, "sieving would not pay: no process's holes are "
                      "small enough to read through (cost model)");
  return DARRAY_SUCCESS;
}
