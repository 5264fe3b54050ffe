/*
 * plan.c - choose how a call moves its bytes.
 *
 * Every process computes the same answer from the description and the
 * hints alone (any process can compute any other's pattern), so no
 * communication is needed to agree on it.
 *
 * The rule for now: hints that force a strategy win (darray_strategy, or
 * romio_cb_read / romio_cb_write = enable | disable); otherwise, when the
 * file extents of different processes interleave, two-phase collective I/O
 * lets a few processes access large contiguous pieces; when they do not,
 * each process accesses its own runs directly.
 */
#include "internal.h"

#include <stdlib.h>

typedef struct extent {
  int64_t lo, hi;
} extent_t;

static int cmp_extent(const void *p, const void *q) {
  const extent_t *a = p, *b = q;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Whether the extents of the processes' runs overlap. */
static int extents_interleave(const struct darray_s *a, bool *inter) {
  extent_t *e = malloc(sizeof *e * (size_t)a->nprocs);
  if (e == NULL)
    return DARRAY_ENOMEM;
  int n = 0;
  for (int r = 0; r < a->nprocs; r++) {
    section_t *sec;
    int nsec;
    if (darray__dist_sections(a, r, &sec, &nsec) != DARRAY_SUCCESS) {
      free(e);
      return DARRAY_ENOMEM;
    }
    darray__layout_extent(a, sec, nsec, &e[n].lo, &e[n].hi);
    free(sec);
    if (e[n].hi > e[n].lo)
      n++;
  }
  qsort(e, (size_t)n, sizeof *e, cmp_extent);
  *inter = false;
  for (int i = 1; i < n; i++)
    *inter |= e[i].lo < e[i - 1].hi;
  free(e);
  return DARRAY_SUCCESS;
}

int darray__plan_choose(const xfer_t *x, const strategy_t **s) {
  const darray_hints_t *h = &x->f->hints;
  int cb = x->write ? h->cb_write : h->cb_read;
  bool inter = false;
  *s = &darray__strategy_direct;
  if (h->strategy == DARRAY_STRATEGY_DIRECT)
    return DARRAY_SUCCESS;
  if (h->strategy == DARRAY_STRATEGY_TWOPHASE || cb == DARRAY_TRI_ENABLE) {
    *s = &darray__strategy_twophase;
    return DARRAY_SUCCESS;
  }
  if (cb == DARRAY_TRI_DISABLE || x->a->nprocs == 1)
    return DARRAY_SUCCESS;
  int rc = extents_interleave(x->a, &inter);
  if (inter)
    *s = &darray__strategy_twophase;
  return rc;
}
