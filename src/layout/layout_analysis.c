/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout_analysis.c - the two verdicts drawn from the numbers of every
 * rank's runs: whether the ranks' file extents interleave (the planner's
 * reason for two-phase collective I/O) and whether one rank's access
 * conforms to the storage order (darray_explain's verdict). The storage
 * advisor asks the same questions of arrays that exist only on paper, so
 * the three always agree.
 */
#include "layout/layout.h"

#include <stdlib.h>

static int cmp_lo(const void *p, const void *q) {
  const layout_rank_t *a = p, *b = q;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

bool darray__layout_interleave(layout_rank_t *rr, int n) {
  qsort(rr, (size_t)n, sizeof *rr, cmp_lo);
  bool inter = false;
  int64_t hi = 0;
  bool any = false;
  for (int i = 0; i < n; i++) {
    if (rr[i].hi <= rr[i].lo)
      continue;
    inter |= any && rr[i].lo < hi;
    hi = any && hi > rr[i].hi ? hi : rr[i].hi;
    any = true;
  }
  return inter;
}

bool darray__layout_conforms(const layout_rank_t *r, int nsec) {
  int64_t holes = r->hi - r->lo - r->bytes;
  return r->nruns <= (nsec > 0 ? nsec : 1) || holes == 0;
}
