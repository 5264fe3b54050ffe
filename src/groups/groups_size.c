/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups_size.c - the numbers of a writer-group call (its groups, its
 * chunk and each group's cycles), sized the same way for the strategy's
 * run, its estimate and its count on paper; and the walk that finds the
 * stretches of file a chunk covers, which the writers and the tally
 * share.
 */
#include "groups/groups.h"

#include "file.h"

#include <stdio.h>
#include <stdlib.h>

/* Two halves in cb_buffer_size: the segment is the writer's temporary
 * memory, and the only one the strategy has. */
int64_t darray__groups_half(const darray_hints_t *h) {
  return h->cb_buffer_size / 2;
}

/*
 * By node (cb_group_size 0) the groups are what MPI_Comm_split_type says,
 * which a process learns only by asking, collectively: the planner, which
 * decides alike everywhere without a word (and on paper, with no node at
 * all), has no numbers for them (s = 0), and only a forced call runs by
 * node.
 */
void darray__groups_plan(const darray_file_s_t *f, const access_t *acc,
                         const darray_desc_t *d, gr_plan_t *p) {
  const darray_hints_t *h = &f->hints;
  int P = acc->P;
  int64_t es = d->esize;
  *p = (gr_plan_t){0};
  p->half = darray__groups_half(h);
  p->C = p->half / es * es;
  if (h->cb_group_size > 0)
    p->s = h->cb_group_size < P ? (int)h->cb_group_size : P;
  if (p->C < es) {
    p->refuse = DARRAY_ELIMIT;
    snprintf(p->why, sizeof p->why,
             "cb_buffer_size = %lld bytes holds no two %lld-byte elements "
             "(the shared segment's two halves)",
             (long long)h->cb_buffer_size, (long long)es);
  }
}

int64_t darray__groups_extent(const access_t *acc, const int *ranks, int g,
                              int64_t C, int64_t *lo, int64_t *hi) {
  *lo = INT64_MAX, *hi = INT64_MIN;
  for (int k = 0; k < g; k++) {
    const access_rank_t *r = &acc->rank[ranks[k]];
    if (r->bytes == 0)
      continue;
    *lo = r->lo < *lo ? r->lo : *lo;
    *hi = r->hi > *hi ? r->hi : *hi;
  }
  if (*lo >= *hi) {
    *lo = *hi = 0;
    return 0;
  }
  int64_t n = *hi - *lo;
  return n / C + (n % C != 0);
}

/* ---- the stretches of a chunk ------------------------------------------- */

int darray__groups_walk_init(gr_walk_t *w, const xfer_t *x, const int *ranks,
                             int g) {
  *w = (gr_walk_t){.g = g};
  w->sec = calloc((size_t)g, sizeof *w->sec);
  w->it = calloc((size_t)g, sizeof *w->it);
  w->run = calloc((size_t)g, sizeof *w->run);
  w->valid = calloc((size_t)g, sizeof *w->valid);
  if (!w->sec || !w->it || !w->run || !w->valid)
    return DARRAY_ENOMEM;
  for (int k = 0; k < g; k++) {
    int nsec;
    int rc = darray__xfer_sections(x, ranks[k], &w->sec[k], &nsec);
    if (rc == DARRAY_SUCCESS)
      rc = darray__layout_iter_init(&w->it[k], &x->a->d, w->sec[k], nsec);
    if (rc != DARRAY_SUCCESS)
      return rc;
    w->nit = k + 1;
  }
  return DARRAY_SUCCESS;
}

void darray__groups_walk_free(gr_walk_t *w) {
  for (int k = 0; k < w->nit; k++)
    darray__layout_iter_free(&w->it[k]);
  for (int k = 0; w->sec != NULL && k < w->g; k++)
    free(w->sec[k]);
  free(w->sec);
  free(w->it);
  free(w->run);
  free(w->valid);
  *w = (gr_walk_t){0};
}

/*
 * The members' runs, each member's from the first that ends after lo
 * (a seek: no run before the chunk is walked), merged in file order:
 * the member whose run starts lowest goes next, clipped to [lo, hi). A
 * piece that touches or overlaps the stretch being built (overlapping
 * section reads) joins it.
 */
void darray__groups_stretches(gr_walk_t *w, int64_t lo, int64_t hi,
                              gr_visit_t visit, void *ctx) {
  for (int k = 0; k < w->g; k++) {
    darray__layout_seek(&w->it[k], lo);
    w->valid[k] = darray__layout_next(&w->it[k], &w->run[k]);
  }
  int64_t s0 = 0, s1 = 0; /* the stretch being built; s0 == s1: none */
  for (;;) {
    int best = -1;
    for (int k = 0; k < w->g; k++)
      if (w->valid[k] && w->run[k].foff < hi &&
          (best < 0 || w->run[k].foff < w->run[best].foff))
        best = k;
    if (best < 0)
      break;
    const layout_run_t *r = &w->run[best];
    int64_t a = r->foff > lo ? r->foff : lo;
    int64_t b = r->foff + r->len < hi ? r->foff + r->len : hi;
    if (a < b && s0 < s1 && a <= s1) {
      s1 = b > s1 ? b : s1;
    } else if (a < b) {
      if (s0 < s1)
        visit(ctx, s0, s1 - s0);
      s0 = a, s1 = b;
    }
    w->valid[best] = darray__layout_next(&w->it[best], &w->run[best]);
  }
  if (s0 < s1)
    visit(ctx, s0, s1 - s0);
}
