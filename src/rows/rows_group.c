/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows_group.c - which processes form a group, their region, each
 * member's piece of it and the windows a piece moves in: numbers from the
 * description alone, the same on every process.
 *
 * Keeping the first `keep` file-order dimensions and merging the rest, a
 * group's region is a product of index sets whose merged dimensions are
 * whole, so its extents are the runs of one section (layout_runs.c):
 * the kept run dimension's blocks times every faster dimension. Fewer
 * kept dimensions give longer extents and larger groups; the grouping
 * keeps as many as it can while every group's extents stay at least
 * darray_rows_extent bytes long on average (or keeps none: one group
 * whose region is the whole array).
 */
#include "rows/rows.h"

#include <stdio.h>
#include <string.h>

void darray__rows_region(const darray_desc_t *d, int keep, int r,
                         section_t *s) {
  int coords[DARRAY_MAX_DIMS];
  memset(s, 0, sizeof *s);
  darray__dist_coords(d->ndims, d->psizes, r, coords);
  for (int i = 0; i < d->ndims; i++) {
    int k = d->perm[i];
    if (i < keep)
      darray__dist_set_blockcyclic(&s->set[k], d->gsizes[k], d->psizes[k],
                                   coords[k], d->block[k],
                                   d->dist[k] == DARRAY_DIST_CYCLIC);
    else
      darray__dist_set_range(&s->set[k], 0, d->gsizes[k]);
  }
}

int darray__rows_color(const darray_desc_t *d, int keep, int r) {
  int coords[DARRAY_MAX_DIMS], c = 0;
  darray__dist_coords(d->ndims, d->psizes, r, coords);
  for (int i = 0; i < keep; i++)
    c = c * d->psizes[d->perm[i]] + coords[d->perm[i]];
  return c;
}

static int group_size(const darray_desc_t *d, int keep) {
  int g = 1;
  for (int i = keep; i < d->ndims; i++)
    g *= d->psizes[d->perm[i]];
  return g;
}

/* The shortest mean extent of any non-empty group's region and the
 * largest piece a member gets (whole elements, rounded up). */
static void group_numbers(const darray_desc_t *d, int keep, int g,
                          rows_plan_t *p) {
  int64_t *extent = &p->extent, *piece = &p->piece;
  *extent = INT64_MAX;
  *piece = 0;
  for (int r = 0; r < d->nprocs; r++) {
    section_t s;
    layout_summary_t sum;
    darray__rows_region(d, keep, r, &s);
    darray__layout_summary(d, &s, 1, &sum);
    if (sum.nruns == 0)
      continue;
    int64_t mean = sum.bytes / sum.nruns, ne = sum.bytes / d->esize;
    *extent = mean < *extent ? mean : *extent;
    int64_t pc = (ne / g + (ne % g != 0)) * d->esize;
    *piece = pc > *piece ? pc : *piece;
  }
  if (*extent == INT64_MAX)
    *extent = 0; /* nothing anywhere */
}

/* The buffers: a quarter of cb_buffer_size for messages, the rest for a
 * window's staging, and as much again for its image in image mode; whole
 * elements each. */
static void size_buffers(const darray_desc_t *d, const darray_hints_t *h,
                         rows_plan_t *p) {
  int64_t es = d->esize, cb = h->cb_buffer_size;
  int64_t cap = (int64_t)INT32_MAX / es * es; /* MPI counts are int */
  int parts = p->image ? 2 : 1;
  p->M = cb / 4 / es * es;
  p->M = p->M < es ? es : p->M > cap ? cap : p->M;
  p->W = (cb - p->M) / parts / es * es;
  p->W = p->W < es ? es : p->W;
  p->need = parts * p->W + p->M; /* cb_buffer_size <= 2^30: no overflow */
}

/* Whether the call's buffers can be had (else why, and DARRAY_ELIMIT). */
static bool buffers_fit(const darray_desc_t *d, const darray_hints_t *h,
                        rows_plan_t *p, char *why, size_t n) {
  p->refuse = DARRAY_ELIMIT;
  if (d->esize > INT32_MAX) {
    snprintf(why, n, "%lld-byte elements: messages carry whole elements, "
             "at most %d bytes", (long long)d->esize, (int)INT32_MAX);
    return false;
  }
  size_buffers(d, h, p);
  if (h->temp_limit > 0 && p->need > h->temp_limit) {
    snprintf(why, n, "it needs %lld bytes of buffers, more than "
             "darray_temp_limit", (long long)p->need);
    return false;
  }
  return true;
}

bool darray__rows_choose(const darray_desc_t *d, const darray_hints_t *h,
                         const access_t *acc, rows_plan_t *p, char *why,
                         size_t n) {
  memset(p, 0, sizeof *p);
  p->refuse = DARRAY_EHINT;
  if (d->q > 0) {
    snprintf(why, n, "MULTIPARTITION: a process's cells lie in every "
             "slab, so no grid dimension can be merged");
    return false;
  }
  /* short pieces are copied into an image, long ones move as vectors
   * (two-phase's rule, darray_cb_image_piece) */
  p->image = acc->nruns > 0 && acc->bytes / acc->nruns < h->cb_image_piece;
  if (!buffers_fit(d, h, p, why, n))
    return false;
  p->refuse = DARRAY_EHINT;
  for (p->keep = d->ndims; p->keep >= 0; p->keep--) {
    p->g = group_size(d, p->keep);
    group_numbers(d, p->keep, p->g, p);
    if (p->keep == 0 || p->extent >= h->rows_extent)
      break;
  }
  if (p->g == 1) {
    snprintf(why, n, "every group is one process: its own extents are "
             "%lld bytes or more (darray_rows_extent)",
             (long long)p->extent);
    return false;
  }
  return true;
}

int64_t darray__rows_piece_start(const darray_desc_t *d, const section_t *reg,
                                 int64_t bytes, int g, int k) {
  int64_t es = d->esize, ne = bytes / es, nel = 1;
  /* k * ne / g without overflow: k * (ne % g) < g^2 < 2^62 */
  int64_t want = ((int64_t)k * (ne / g) + (int64_t)k * (ne % g) / g) * es;
  for (int i = 0; i < d->ndims; i++)
    nel *= d->gsizes[i]; /* the array's bytes fit (commit checked them) */
  int64_t lo = 0, hi = nel; /* the first element with `want` bytes before */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (darray__layout_bytes_before(d, reg, 1, d->disp + mid * es) >= want)
      hi = mid;
    else
      lo = mid + 1;
  }
  return d->disp + lo * es;
}

/* ---- the windows of a piece -------------------------------------------- */

static void next_extent(rows_cursor_t *c) {
  c->valid = darray__layout_next(&c->it, &c->run) && c->run.foff < c->hi;
}

void darray__rows_cursor_start(rows_cursor_t *c) {
  c->pos = c->lo;
  c->valid = false;
  if (c->lo >= c->hi)
    return;
  darray__layout_seek(&c->it, c->lo);
  next_extent(c);
}

bool darray__rows_cursor_next(rows_cursor_t *c, int64_t W, int64_t *wlo,
                              int64_t *whi) {
  int64_t data = 0;
  *wlo = *whi = 0;
  for (; c->valid; next_extent(c)) {
    int64_t end = c->run.foff + c->run.len;
    int64_t at = c->pos > c->run.foff ? c->pos : c->run.foff;
    end = end < c->hi ? end : c->hi;
    if (at >= end)
      continue;
    int64_t take = end - at < W - data ? end - at : W - data;
    *wlo = data == 0 ? at : *wlo;
    data += take;
    c->pos = *whi = at + take;
    if (data == W)
      return true; /* the next window starts here */
  }
  return data > 0;
}
