/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows.c - collective I/O in grid-derived groups ("rows").
 *
 * The distribution says which processes' data, taken together, forms long
 * contiguous stretches of the file: those that share the slower (in file
 * order) process-grid coordinates. Such a group's region is a few long
 * extents (rows_group.c). Each member takes one contiguous piece of its
 * group's region, an even share in file order, and moves it itself; the
 * data meets inside the group only, in one exchange per window whose
 * message lengths every member computes from the distribution (no file
 * domains over the whole file, no metadata messages, no traffic between
 * groups). Where a group is every process this is two-phase with every
 * process an aggregator; its gain is where the groups are smaller.
 * Steps, per call:
 *
 *   1. prepare (local): the grouping, my group's members and region,
 *      every member's piece and its windows (W bytes of it each, over as
 *      many extents as they span), the number of cycles (the group's most
 *      windows), buffers;
 *   2. run: the group's communicator (made once per file and grouping,
 *      rows_comm.c), then one cycle per window (rows_exchange.c): writes
 *      gather every member's bytes of my window and write them with one
 *      call per extent it spans; reads read them so and scatter them.
 */
#include "rows/rows.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the planner's estimate --------------------------------------------- */

/*
 * The call's time (ns) by two-phase's cost model: the largest piece at
 * the file bandwidth, one file call and one synchronization per window
 * (ceil(piece / W) windows; a window that spans several extents moves
 * each with a call of its own, which the model counts as one: its
 * extents are darray_rows_extent long, so their calls cost less than
 * their bytes), and the exchange of the slowest process's bytes that lie
 * in the other members' pieces, (g - 1) / g of them, both ways.
 */
static int rows_estimate(const xfer_t *x, const access_t *acc,
                         estimate_t *e) {
  const darray_hints_t *h = &x->f->hints;
  rows_plan_t p;
  const char *sw = x->write ? "romio_cb_write" : "romio_cb_read";
  if (darray__hints_enum(h, sw) == DARRAY_TRI_DISABLE) {
    snprintf(e->why, sizeof e->why, "%s=disable", sw);
    return DARRAY_SUCCESS;
  }
  if (x->boxes != NULL) {
    snprintf(e->why, sizeof e->why, "section calls are not supported");
    return DARRAY_SUCCESS;
  }
  if (!acc->interleaved) {
    snprintf(e->why, sizeof e->why, "the processes' extents do not "
             "interleave: each moves its own runs, with no communication");
    return DARRAY_SUCCESS;
  }
  if (!darray__rows_choose(&x->a->d, h, acc, &p, e->why, sizeof e->why))
    return DARRAY_SUCCESS;
  cost_rates_t c = darray__cost_rates(x);
  int64_t most = darray__access_most(acc);
  double win = (double)((p.piece + p.W - 1) / p.W);
  e->ns = (double)p.piece * c.bw + win * (c.lat + c.cyc) +
          2.0 * (double)most * (p.g - 1) / p.g * c.xw;
  return DARRAY_SUCCESS;
}

/* ---- 1. prepare --------------------------------------------------------- */

/* My group's ranks, in rank order, and my place among them. */
static int find_members(rows_t *t) {
  const darray_desc_t *d = &t->x->a->d;
  int mine = darray__rows_color(d, t->p.keep, t->x->a->rank), k = 0;
  t->member = malloc(sizeof *t->member * (size_t)t->p.g);
  if (t->member == NULL)
    return DARRAY_ENOMEM;
  for (int r = 0; r < d->nprocs && k < t->p.g; r++)
    if (darray__rows_color(d, t->p.keep, r) == mine) {
      if (r == t->x->a->rank)
        t->me = k;
      t->member[k++] = r;
    }
  return DARRAY_SUCCESS;
}

/* Every member's cells and pieces, and the cycles: the group's most
 * windows. */
static int plan_pieces(rows_t *t) {
  const darray_desc_t *d = &t->x->a->d;
  int g = t->p.g;
  int64_t nruns, bytes;
  darray__layout_count(d, &t->region, 1, &nruns, &bytes);
  for (int k = 0; k < g; k++) {
    int nsec, rc = DARRAY_SUCCESS;
    if (k != t->me)
      rc = darray__xfer_sections(t->x, t->member[k], &t->sec[k], &nsec);
    if (rc == DARRAY_SUCCESS && k != t->me &&
        (rc = darray__layout_iter_init(&t->it[k], d, t->sec[k], 1)) ==
            DARRAY_SUCCESS)
      t->nit = k + 1; /* iterators 0 .. k are initialized, but mine */
    if (rc == DARRAY_SUCCESS)
      rc = darray__layout_iter_init(&t->cur[k].it, d, &t->region, 1);
    if (rc != DARRAY_SUCCESS)
      return rc;
    rows_cursor_t *c = &t->cur[k];
    c->ok = true;
    c->lo = darray__rows_piece_start(d, &t->region, bytes, g, k);
    c->hi = darray__rows_piece_start(d, &t->region, bytes, g, k + 1);
    int64_t n = 0, wlo, whi;
    darray__rows_cursor_start(c);
    while (darray__rows_cursor_next(c, t->p.W, &wlo, &whi))
      n++;
    t->ncycles = n > t->ncycles ? n : t->ncycles;
    darray__rows_cursor_start(c);
  }
  return DARRAY_SUCCESS;
}

/* Buffers: staging and image of W bytes, the pack buffer of M, and the
 * most requests a cycle posts (streams cut every M bytes: to and from
 * every other member, at most W bytes each way per member). */
static int alloc_buffers(rows_t *t) {
  size_t g = (size_t)t->p.g;
  t->sec = calloc(g, sizeof *t->sec);
  t->cur = calloc(g, sizeof *t->cur);
  t->wlo = calloc(g, sizeof *t->wlo);
  t->whi = calloc(g, sizeof *t->whi);
  t->off = calloc(g + 1, sizeof *t->off);
  t->it = calloc(g, sizeof *t->it);
  t->walk = calloc(g, sizeof *t->walk);
  t->used = calloc(g, sizeof *t->used);
  t->iov = malloc(sizeof *t->iov * DARRAY_IOV_MAX);
  t->stage = malloc((size_t)t->p.W);
  t->img = t->p.image ? malloc((size_t)t->p.W) : NULL;
  t->pack = malloc((size_t)t->p.M);
  int64_t n = ((int64_t)g + 1) * (t->p.W / t->p.M + 2);
  t->req_cap = n < INT32_MAX ? (int)n : INT32_MAX;
  t->req = malloc(sizeof *t->req * (size_t)t->req_cap);
  bool ok = t->sec && t->cur && t->wlo && t->whi && t->off && t->it &&
            t->walk && t->used && t->iov && t->stage &&
            (t->img || !t->p.image) && t->pack && t->req;
  return ok ? DARRAY_SUCCESS : DARRAY_ENOMEM;
}

static int rows_prepare(xfer_t *x) {
  rows_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return DARRAY_ENOMEM;
  x->state = t;
  t->x = x;
  t->comm = MPI_COMM_NULL;
  char why[200];
  const access_t *acc;
  if (x->boxes != NULL)
    return darray__err(x->msg, DARRAY_EHINT, "darray_strategy=rows: "
                       "section calls are not supported");
  int rc = darray__xfer_access(x, &acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (!darray__rows_choose(&x->a->d, &x->f->hints, acc, &t->p, why,
                           sizeof why))
    return darray__err(x->msg, t->p.refuse, "darray_strategy=rows: not "
                       "possible for this array: %s", why);
  darray__rows_region(&x->a->d, t->p.keep, x->a->rank, &t->region);
  t->self_contig = true;
  for (int s = 0; s < x->nsec; s++)
    t->self_contig &= darray__layout_mem_contig(&x->a->d, &x->sec[s]);
  rc = alloc_buffers(t);
  if (rc == DARRAY_SUCCESS)
    rc = find_members(t);
  if (rc == DARRAY_SUCCESS)
    rc = plan_pieces(t);
  if (rc == DARRAY_SUCCESS)
    rc = darray__layout_iter_init(&t->self, &x->a->d, x->sec, x->nsec);
  t->self_ok = rc == DARRAY_SUCCESS;
  if (rc == DARRAY_SUCCESS)
    rc = darray__layout_iter_init(&t->segs, &x->a->d, &t->region, 1);
  t->segs_ok = rc == DARRAY_SUCCESS;
  if (t->p.need > x->stats.peak_temp_bytes)
    x->stats.peak_temp_bytes = t->p.need;
  return rc;
}

static void rows_finish(xfer_t *x) {
  rows_t *t = x->state;
  if (t == NULL)
    return;
  for (int k = 0; t->cur != NULL && k < t->p.g; k++)
    if (t->cur[k].ok)
      darray__layout_iter_free(&t->cur[k].it);
  for (int k = 0; k < t->nit; k++)
    if (k != t->me)
      darray__layout_iter_free(&t->it[k]);
  for (int k = 0; t->sec != NULL && k < t->p.g; k++)
    free(t->sec[k]);
  if (t->self_ok)
    darray__layout_iter_free(&t->self);
  if (t->segs_ok)
    darray__layout_iter_free(&t->segs);
  free(t->sec);
  free(t->it);
  free(t->walk);
  free(t->used);
  free(t->iov);
  free(t->cur);
  free(t->wlo);
  free(t->whi);
  free(t->off);
  free(t->member);
  free(t->stage);
  free(t->img);
  free(t->pack);
  free(t->req);
  free(t);
  x->state = NULL;
}

/* ---- 2. the cycles ------------------------------------------------------ */

static int rows_run(xfer_t *x) {
  rows_t *t = x->state;
  int rc = darray__rows_comm(x->f, &x->a->d, t->p.keep, &t->comm);
  if (rc != DARRAY_SUCCESS) /* the same everywhere: nothing moved */
    return darray__err(x->msg, rc, "rows: MPI_Comm_split of the file's "
                       "communicator into groups of %d failed", t->p.g);
  for (int64_t c = 0; c < t->ncycles; c++) {
    for (int k = 0; k < t->p.g; k++)
      darray__rows_cursor_next(&t->cur[k], t->p.W, &t->wlo[k], &t->whi[k]);
    darray__rows_cycle(t);
    x->stats.cycles++;
  }
  return t->rc;
}

/* No switch of its own in the table: romio_cb_*=enable means two-phase
 * (rule 1 of plan.c takes the first entry whose switch is enabled, and
 * rows comes first), so its estimate reads romio_cb_*=disable itself. */
const strategy_t darray__strategy_rows = {
    .name = "rows",
    .collective = true,
    .estimate = rows_estimate,
    .prepare = rows_prepare,
    .run = rows_run,
    .finish = rows_finish,
    .crc_share = true,
    .tally = darray__rows_tally,
    /* one cell per process of its group (plan_pieces): a merged access
     * gives each process B cells */
    .unmerged = true,
    .close = darray__rows_close, /* its group communicators */
};
