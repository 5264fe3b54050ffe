/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * static.c - collective I/O by static segmentation ("static").
 *
 * One of the collective write algorithms of Chaarawi, Chandok & Gabriel:
 * the processes form A groups of consecutive ranks (cb_nodes; the first
 * rank of each is its aggregator, the ranks two-phase would pick), and in
 * every cycle every process hands its aggregator the same share of its
 * own data, the next K bytes of it in file order. The communication is
 * balanced (every process sends as much per cycle, and a cycle's
 * exchange never waits for a domain's worth of other processes' data),
 * at the price of noncontiguous file access: an aggregator writes the
 * pieces of its members' shares, merged in file order, with one vector
 * call per stretch of touching pieces. It suits file systems that do not
 * care about noncontiguity, and calls whose exchange dominates.
 *
 * As elsewhere in darrayio no offset or length is exchanged: an
 * aggregator walks its members' runs, computed from the distribution
 * (layout iterators), along their streams. Steps, per call:
 *
 *   1. prepare (local): the groups, K and the cycles (static_size.c: the
 *      same numbers on every process, ceil(largest process's bytes / K)
 *      cycles), my group, and for an aggregator its members' runs and a
 *      slot of K bytes for each;
 *   2. run: one cycle after another (static_cycle.c): writes send each
 *      share to the aggregator, which writes the group's pieces; reads
 *      read them so and send each member its share.
 */
#include "static/static.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the planner's estimate --------------------------------------------- */

/* Group i's bytes, its aggregator's own, and the most calls it makes:
 * its members' pieces of a cycle lie side by side where their runs
 * interleave (matched distributions), so a cycle costs about one call
 * per run of the densest member's share, and no more than the group's
 * runs. */
static void group_numbers(const access_t *acc, const st_plan_t *p, int i,
                          int64_t *bytes, int64_t *own, double *calls) {
  int lo = darray__static_first(i, acc->P, p->A);
  int hi = darray__static_first(i + 1, acc->P, p->A);
  double runs = 0, dens = 0;
  *bytes = 0;
  *own = acc->rank[lo].bytes;
  for (int r = lo; r < hi; r++) {
    const access_rank_t *k = &acc->rank[r];
    *bytes += k->bytes;
    runs += (double)k->nruns;
    if (k->bytes > 0 && (double)k->nruns / (double)k->bytes > dens)
      dens = (double)k->nruns / (double)k->bytes;
  }
  double per_cycle = 1.0 + (double)p->K * dens;
  *calls = (double)p->ncycles * per_cycle;
  *calls = runs < *calls ? runs : *calls;
}

/*
 * The call's time (ns) by two-phase's cost model: the busiest
 * aggregator's group bytes at the file bandwidth and its calls at the
 * file latency, one synchronization per cycle, and the exchange at the
 * process that moves most: each byte counted when sent (every member, its
 * own bytes) and when received (an aggregator, its members' bytes).
 */
static int st_estimate(const xfer_t *x, const access_t *acc, estimate_t *e) {
  const darray_hints_t *h = &x->f->hints;
  const char *sw = x->write ? "romio_cb_write" : "romio_cb_read";
  st_plan_t p;
  if (darray__hints_enum(h, sw) == DARRAY_TRI_DISABLE) {
    snprintf(e->why, sizeof e->why, "%s=disable", sw);
    return DARRAY_SUCCESS;
  }
  if (!acc->interleaved) {
    snprintf(e->why, sizeof e->why, "the processes' extents do not "
             "interleave: each moves its own runs, with no communication");
    return DARRAY_SUCCESS;
  }
  darray__static_plan(acc, h, &x->a->d, &p);
  if (p.refuse != DARRAY_SUCCESS) {
    snprintf(e->why, sizeof e->why, "%s", p.why);
    return DARRAY_SUCCESS;
  }
  cost_rates_t c = darray__cost_rates(x);
  double bw = c.bw, xw = c.xw, lat = c.lat, cyc = c.cyc;
  double file = 0, xch = 0;
  for (int i = 0; i < p.A; i++) {
    int64_t bytes, own;
    double calls;
    group_numbers(acc, &p, i, &bytes, &own, &calls);
    double f = (double)bytes * bw + calls * lat;
    file = f > file ? f : file;
    xch = (double)(bytes - own) > xch ? (double)(bytes - own) : xch;
  }
  for (int r = 0; r < acc->P; r++) /* members send their own */
    if (r != darray__static_first(darray__static_group(r, acc->P, p.A),
                                  acc->P, p.A) &&
        (double)acc->rank[r].bytes > xch)
      xch = (double)acc->rank[r].bytes;
  e->ns = file + (double)p.ncycles * cyc + xch * xw;
  return DARRAY_SUCCESS;
}

/* ---- 1. prepare --------------------------------------------------------- */

/* An aggregator's members: their runs, cursors and slots. */
static int prepare_aggregator(st_t *t) {
  size_t g = (size_t)t->g;
  t->sec = calloc(g, sizeof *t->sec);
  t->it = calloc(g, sizeof *t->it);
  t->cur = calloc(g, sizeof *t->cur);
  t->n = calloc(g, sizeof *t->n);
  t->pos = calloc(g, sizeof *t->pos);
  t->base = calloc(g, sizeof *t->base);
  t->iov = malloc(sizeof *t->iov * DARRAY_IOV_MAX);
  t->stage = malloc((size_t)t->p.K * g);
  if (!t->sec || !t->it || !t->cur || !t->n || !t->pos || !t->base ||
      !t->iov || !t->stage)
    return DARRAY_ENOMEM;
  for (int k = 0; k < t->g; k++) {
    int nsec;
    int rc = darray__xfer_sections(t->x, t->first + k, &t->sec[k], &nsec);
    if (rc == DARRAY_SUCCESS)
      rc = darray__layout_iter_init(&t->it[k], &t->x->a->d, t->sec[k], nsec);
    if (rc != DARRAY_SUCCESS)
      return rc;
    t->nit = k + 1;
    darray__static_cursor_start(&t->cur[k], &t->it[k]);
  }
  return DARRAY_SUCCESS;
}

static int st_prepare(xfer_t *x) {
  st_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return DARRAY_ENOMEM;
  x->state = t;
  t->x = x;
  t->P = x->a->d.nprocs;
  t->me = x->a->rank;
  int rc = darray__xfer_access(x, &t->acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__static_plan(t->acc, &x->f->hints, &x->a->d, &t->p);
  if (t->p.refuse != DARRAY_SUCCESS)
    return darray__err(x->msg, t->p.refuse, "darray_strategy=static: %s",
                       t->p.why);
  t->group = darray__static_group(t->me, t->P, t->p.A);
  t->first = darray__static_first(t->group, t->P, t->p.A);
  t->g = darray__static_first(t->group + 1, t->P, t->p.A) - t->first;
  t->agg = t->me == t->first;
  t->self_packed =
      x->nsec == 1 && darray__layout_file_packed(&x->a->d, &x->sec[0]);
  if (!t->self_packed) {
    rc = darray__layout_iter_init(&t->self, &x->a->d, x->sec, x->nsec);
    if (rc != DARRAY_SUCCESS)
      return rc;
    t->self_ok = true;
    darray__static_cursor_start(&t->mine, &t->self);
  }
  t->pack = malloc((size_t)t->p.K);
  t->req = malloc(sizeof *t->req * (size_t)t->g);
  if (t->pack == NULL || t->req == NULL)
    return DARRAY_ENOMEM;
  if (t->agg && (rc = prepare_aggregator(t)) != DARRAY_SUCCESS)
    return rc;
  int64_t peak = (t->agg ? (int64_t)t->g * t->p.K : 0) + t->p.K;
  if (peak > x->stats.peak_temp_bytes)
    x->stats.peak_temp_bytes = peak;
  return DARRAY_SUCCESS;
}

static void st_finish(xfer_t *x) {
  st_t *t = x->state;
  if (t == NULL)
    return;
  for (int k = 0; k < t->nit; k++)
    darray__layout_iter_free(&t->it[k]);
  for (int k = 0; t->sec != NULL && k < t->g; k++)
    free(t->sec[k]);
  if (t->self_ok)
    darray__layout_iter_free(&t->self);
  free(t->sec);
  free(t->it);
  free(t->cur);
  free(t->n);
  free(t->pos);
  free(t->base);
  free(t->iov);
  free(t->stage);
  free(t->pack);
  free(t->req);
  free(t);
  x->state = NULL;
}

/* ---- 2. the cycles ------------------------------------------------------ */

static int st_run(xfer_t *x) {
  st_t *t = x->state;
  for (int64_t c = 0; c < t->p.ncycles; c++) {
    darray__static_cycle(t, c);
    x->stats.cycles++;
  }
  return t->rc;
}

/* No switch of its own in the table, as rows: romio_cb_*=enable means
 * two-phase, so its estimate reads romio_cb_*=disable itself. Its
 * aggregators write noncontiguous vectors in cycle order, not in file
 * order: the owners' runs feed a dataset member's CRC (crc_share false). */
const strategy_t darray__strategy_static = {
    .name = "static",
    .collective = true,
    .estimate = st_estimate,
    .prepare = st_prepare,
    .run = st_run,
    .finish = st_finish,
    .tally = darray__static_tally,
};
