/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * access.c - what one call accesses: the array's own cells for whole-array
 * calls, one dense box per process for section calls.
 *
 * Strategies see only cells (section_t), whoever they belong to, so the
 * same code serves whole arrays and sections. The call's summary in
 * numbers (access.h) is computed here, once per call.
 */
#include "strategy.h"
#include "agree.h"
#include "xfer.h"

#include <stdlib.h>
#include <string.h>

void darray__access_rank(const darray_desc_t *a, const section_t *sec,
                         int nsec, access_rank_t *r) {
  layout_summary_t s;
  darray__layout_summary(a, sec, nsec, &s);
  layout_rank_t n = {s.lo, s.hi, s.nruns, s.bytes};
  *r = (access_rank_t){s.lo, s.hi, s.nruns, s.bytes, s.min_run, s.max_run,
                       nsec, darray__layout_conforms(&n, nsec)};
}

/* The extents interleave: the test sorts, so it sorts a copy (rank[] is
 * indexed by rank). */
static int interleaved(access_t *acc) {
  acc->interleaved = false;
  if (acc->P < 2)
    return DARRAY_SUCCESS; /* one process never interleaves with itself */
  layout_rank_t *rr = malloc(sizeof *rr * (size_t)acc->P);
  if (rr == NULL)
    return DARRAY_ENOMEM;
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *k = &acc->rank[r];
    rr[r] = (layout_rank_t){k->lo, k->hi, k->nruns, k->bytes};
  }
  acc->interleaved = darray__layout_interleave(rr, acc->P);
  free(rr);
  return DARRAY_SUCCESS;
}

/* a + b, or INT64_MAX past it (the sums of section boxes that overlap
 * may pass it; a process's own numbers never do) */
static int64_t sum(int64_t a, int64_t b, bool *over) {
  int64_t r;
  if (darray__add_ok(a, b, &r))
    return r;
  *over = true;
  return INT64_MAX;
}

int darray__access_totals(access_t *acc) {
  bool any = false, over = false;
  acc->lo = acc->hi = acc->nruns = acc->bytes = 0;
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *k = &acc->rank[r];
    if (k->hi > k->lo) {
      acc->lo = any && acc->lo < k->lo ? acc->lo : k->lo;
      acc->hi = any && acc->hi > k->hi ? acc->hi : k->hi;
      any = true;
    }
    acc->nruns = sum(acc->nruns, k->nruns, &over);
    acc->bytes = sum(acc->bytes, k->bytes, &over);
  }
  /* the bytes of overlapping section boxes count once per box, as they
   * are moved once per box */
  acc->dense = !over && acc->bytes == acc->hi - acc->lo;
  return interleaved(acc);
}

void darray__access_free(access_t *acc) {
  if (acc != NULL)
    free(acc->rank);
  free(acc);
}

int darray__access_samples(const access_t *acc) {
  return acc->P < DARRAY_SAMPLE_RANKS ? acc->P : DARRAY_SAMPLE_RANKS;
}

int darray__access_sample(const access_t *acc, int i) {
  return (int)((int64_t)i * acc->P / darray__access_samples(acc));
}

/* Every process's numbers, for a call. */
static int access_compute(const xfer_t *x, access_t *acc) {
  for (int r = 0; r < acc->P; r++) {
    section_t *sec;
    int nsec;
    if (darray__xfer_sections(x, r, &sec, &nsec) != DARRAY_SUCCESS)
      return DARRAY_ENOMEM;
    darray__access_rank(&x->a->d, sec, nsec, &acc->rank[r]);
    free(sec);
  }
  acc->depth = darray__boxes_depth(x);
  return darray__access_totals(acc);
}

int darray__xfer_access(xfer_t *x, const access_t **out) {
  *out = x->access;
  if (x->access != NULL)
    return DARRAY_SUCCESS;
  access_t *acc = calloc(1, sizeof *acc);
  if (acc == NULL)
    return DARRAY_ENOMEM;
  acc->P = x->a->d.nprocs;
  acc->rank = malloc(sizeof *acc->rank * (size_t)acc->P);
  int rc = acc->rank != NULL ? access_compute(x, acc) : DARRAY_ENOMEM;
  if (rc != DARRAY_SUCCESS) {
    darray__access_free(acc);
    return rc;
  }
  *out = x->access = acc;
  return DARRAY_SUCCESS;
}

int darray__xfer_sample_runs(const xfer_t *x, int r,
                             void (*visit)(void *ctx, const layout_run_t *run),
                             void *ctx) {
  return darray__xfer_walk_runs(x, r, DARRAY_SAMPLE_RUNS, visit, ctx);
}

int darray__xfer_walk_runs(const xfer_t *x, int r, int64_t limit,
                           void (*visit)(void *ctx, const layout_run_t *run),
                           void *ctx) {
  section_t *sec;
  int nsec;
  layout_iter_t it;
  if (darray__xfer_sections(x, r, &sec, &nsec) != DARRAY_SUCCESS)
    return DARRAY_ENOMEM;
  int rc = darray__layout_iter_init(&it, &x->a->d, sec, nsec);
  layout_run_t run;
  for (int64_t n = 0; rc == DARRAY_SUCCESS && (limit < 0 || n < limit) &&
                      darray__layout_next(&it, &run);
       n++)
    visit(ctx, &run);
  if (rc == DARRAY_SUCCESS)
    darray__layout_iter_free(&it);
  free(sec);
  return rc;
}

void darray__xfer_access_free(xfer_t *x) {
  darray__access_free(x->access);
  x->access = NULL;
}

void darray__section_box(const struct darray_s *a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         section_t *s) {
  memset(s, 0, sizeof *s);
  int64_t stride = a->d.esize;
  for (int i = 0; i < a->d.ndims; i++) {
    int d = order == DARRAY_ORDER_FORTRAN ? i : a->d.ndims - 1 - i;
    darray__dist_set_range(&s->set[d], start[d], count[d]);
    s->mem_stride[d] = stride;
    stride *= count[d];
  }
  s->alloc_bytes = stride;
}

bool darray__boxes_meet(const int64_t *p, const int64_t *q, int nd) {
  for (int d = 0; d < nd; d++) {
    if (p[nd + d] == 0 || q[nd + d] == 0)
      return false;
    if (p[d] + p[nd + d] <= q[d] || q[d] + q[nd + d] <= p[d])
      return false;
  }
  return true;
}

/* A point inside box i lies only in boxes that meet box i, so the most
 * boxes meeting any one box bounds how many cover a point. */
int darray__boxes_depth(const xfer_t *x) {
  if (x->boxes == NULL)
    return 1;
  int nd = x->a->d.ndims, most = 1;
  int64_t nb = (int64_t)x->a->d.nprocs * (x->msec > 0 ? x->msec : 1);
  for (int64_t i = 0; i < nb; i++) {
    int n = 0;
    for (int64_t j = 0; j < nb; j++)
      n += darray__boxes_meet(x->boxes + 2 * nd * i, x->boxes + 2 * nd * j,
                              nd);
    most = n > most ? n : most;
  }
  return most;
}

/* Rank r's cells in a merged access of several whole arrays (the
 * description's parts, src/async/async_merge.c): each array's cells of
 * rank r, tagged with their array, in the arrays' order (the calling
 * rank's own are laid out the same way). Memory offsets are not the
 * rank's own. */
static int parts_sections(const xfer_t *x, int r, section_t **sec,
                          int *nsec) {
  const darray_desc_t *d = &x->a->d;
  section_t *all = NULL;
  int total = 0, rc = DARRAY_SUCCESS;
  for (int k = 0; k < d->nparts && rc == DARRAY_SUCCESS; k++) {
    section_t *one, *grown;
    int n;
    rc = darray__dist_sections(d->parts[k], r, &one, &n);
    if (rc != DARRAY_SUCCESS)
      break;
    grown = realloc(all, sizeof *all * (size_t)(total + n > 0 ? total + n
                                                              : 1));
    if (grown == NULL)
      rc = DARRAY_ENOMEM;
    else
      all = grown;
    for (int c = 0; c < n && rc == DARRAY_SUCCESS; c++) {
      all[total + c] = one[c];
      all[total + c].part = k;
    }
    total += rc == DARRAY_SUCCESS ? n : 0;
    free(one);
  }
  if (rc != DARRAY_SUCCESS) {
    free(all);
    return rc;
  }
  *sec = all;
  *nsec = total;
  return DARRAY_SUCCESS;
}

int darray__xfer_sections(const xfer_t *x, int r, section_t **sec,
                          int *nsec) {
  if (r == x->a->rank) { /* mine, with my buffer's true layout */
    size_t n = (size_t)(x->nsec > 0 ? x->nsec : 1);
    *sec = malloc(sizeof **sec * n);
    if (*sec == NULL)
      return DARRAY_ENOMEM;
    memcpy(*sec, x->sec, sizeof **sec * (size_t)x->nsec);
    *nsec = x->nsec;
    return DARRAY_SUCCESS;
  }
  if (x->a->d.parts != NULL)
    return parts_sections(x, r, sec, nsec);
  if (x->boxes == NULL)
    return darray__dist_sections(&x->a->d, r, sec, nsec);
  int m = x->msec > 0 ? x->msec : 1, nd = x->a->d.ndims;
  section_t *s = malloc(sizeof *s * (size_t)m);
  if (s == NULL)
    return DARRAY_ENOMEM;
  /* the memory order of another process's buffers does not matter here:
   * only file offsets of its runs are used */
  for (int k = 0; k < m; k++) {
    const int64_t *b = x->boxes + ((size_t)r * (size_t)m + (size_t)k) * 2 *
                                      (size_t)nd;
    darray__section_box(x->a, b, b + nd, DARRAY_ORDER_C, &s[k]);
  }
  *sec = s;
  *nsec = m;
  return DARRAY_SUCCESS;
}

/* ---- a section call's boxes (xfer_begin.c) ------------------------------- */

/* Elements of a section; checks the box lies inside the array. */
int darray__region_args(xfer_t *x, const region_t *g, int64_t *n) {
  const struct darray_s *a = x->a;
  *n = 0;
  if (g->start == NULL || g->count == NULL)
    return darray__err(x->msg, DARRAY_ENULL, "%s is NULL",
                       g->start == NULL ? "start" : "count");
  if (g->order != DARRAY_ORDER_C && g->order != DARRAY_ORDER_FORTRAN)
    return darray__err(x->msg, DARRAY_EORDER,
                       "order = %d: a section buffer is in C or Fortran "
                       "order", (int)g->order);
  int64_t elems = 1;
  bool F = x->fortran; /* a request's checks run in its I/O thread */
  for (int d = 0; d < a->d.ndims; d++) {
    if (g->start[d] < 0 || g->count[d] < 0 ||
        g->count[d] > a->d.gsizes[d] - g->start[d])
      return darray__err(x->msg, DARRAY_EINDEX,
                         "%s = %lld, %s = %lld: not inside %s",
                         darray__ix_arg(F, "start", d, DARRAY_IXBUF),
                         darray__ix(F, g->start[d]),
                         darray__ix_arg(F, "count", d, DARRAY_IXBUF),
                         (long long)g->count[d],
                         darray__ix_range(F, a->d.gsizes[d], DARRAY_IXBUF));
    elems *= g->count[d];
  }
  *n = elems;
  return DARRAY_SUCCESS;
}

bool darray__boxes_first_meet(const int64_t *boxes, int64_t n, int nd,
                              int64_t *i, int64_t *j) {
  for (*i = 0; *i < n; ++*i)
    for (*j = *i + 1; *j < n; ++*j)
      if (darray__boxes_meet(boxes + 2 * nd * *i, boxes + 2 * nd * *j, nd))
        return true;
  return false;
}

int darray__allgather_boxes(xfer_t *x, const int64_t *mine, int nbox,
                            int64_t *all) {
  int per = 2 * x->a->d.ndims * nbox;
  MPI_Request req;
  darray__coll();
  if (MPI_Iallgather(mine, per, MPI_INT64_T, all, per, MPI_INT64_T,
                     x->f->comm, &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return darray__err(x->msg, DARRAY_EMPI, "MPI_Allgather failed");
  return DARRAY_SUCCESS;
}

/* Gather every process's box (collective; called by every process once
 * all have agreed that their arguments are good); writes must not
 * overlap. */
int darray__gather_boxes(xfer_t *x, const region_t *g, int64_t *all) {
  int nd = x->a->d.ndims;
  int64_t mine[2 * DARRAY_MAX_DIMS], i, j;
  for (int d = 0; d < nd; d++) {
    mine[d] = g->start[d];
    mine[nd + d] = g->count[d];
  }
  int rc = darray__allgather_boxes(x, mine, 1, all);
  if (rc == DARRAY_SUCCESS && x->write &&
      darray__boxes_first_meet(all, x->a->d.nprocs, nd, &i, &j))
    rc = darray__err(x->msg, DARRAY_EOVERLAP,
                     "darray_write_section: the sections of ranks %d and "
                     "%d overlap", (int)i, (int)j);
  return rc;
}
