/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * static_size.c - the numbers of a static segmentation call: its groups,
 * its share K and its cycles, sized the same way for the strategy's
 * preparation, its estimate and its count on paper; and the walks along
 * the processes' streams that its cycles and its tally share.
 */
#include "static/static.h"

#include <stdio.h>

int darray__static_first(int i, int P, int A) {
  return (int)((int64_t)i * P / A);
}

/* The largest i with first(i) <= r: i * P / A <= r  <=>  i * P < (r + 1) A. */
int darray__static_group(int r, int P, int A) {
  return (int)((((int64_t)r + 1) * A - 1) / P); /* below 2^62: no overflow */
}

/*
 * K is whole elements, the same for every process, and no more than the
 * largest process's bytes (a small call needs no more). The budget is
 * cb_buffer_size, for the aggregator of the largest group: a slot of K
 * bytes per member (its own too, when it is strided in memory) plus one
 * more, the pack buffer of a strided process and the scratch of back
 * ends without vector calls. MPI counts messages in int: K <= INT32_MAX.
 */
void darray__static_plan(const access_t *acc, const darray_hints_t *h,
                         const darray_desc_t *d, st_plan_t *p) {
  int P = acc->P;
  int64_t es = d->esize;
  *p = (st_plan_t){0};
  p->A = h->cb_nodes > 0 && h->cb_nodes < P ? (int)h->cb_nodes : P;
  p->gmax = (P + p->A - 1) / p->A;
  for (int r = 0; r < P; r++)
    p->most = acc->rank[r].bytes > p->most ? acc->rank[r].bytes : p->most;
  int64_t K = h->cb_buffer_size / (p->gmax + 1) / es * es;
  int64_t cap = INT32_MAX / es * es;
  K = K > cap ? cap : K;
  if (K < es) {
    p->refuse = DARRAY_ELIMIT;
    snprintf(p->why, sizeof p->why,
             "cb_buffer_size = %lld bytes holds no %lld-byte element per "
             "process of a group of %d and its pack buffer",
             (long long)h->cb_buffer_size, (long long)es, p->gmax);
    return;
  }
  if (p->most > 0 && K > p->most)
    K = p->most; /* whole elements: every process's bytes are */
  p->K = K;
  p->ncycles = p->most / K + (p->most % K != 0);
  p->need = (int64_t)(p->gmax + 1) * K;
}

int64_t darray__static_share(const st_plan_t *p, int64_t bytes, int64_t c) {
  int64_t at = c * p->K; /* c < ncycles: at < most + K, no overflow */
  if (at >= bytes)
    return 0;
  return bytes - at < p->K ? bytes - at : p->K;
}

/* ---- streams ------------------------------------------------------------- */

/* Past the walked and the empty runs. */
static void settle(st_cursor_t *c) {
  while (c->valid && c->b == c->run.len) {
    c->valid = darray__layout_next(c->it, &c->run);
    c->b = 0;
  }
}

void darray__static_cursor_start(st_cursor_t *c, layout_iter_t *it) {
  c->it = it;
  darray__layout_seek(it, 0);
  c->valid = darray__layout_next(it, &c->run);
  c->b = 0;
  settle(c);
}

bool darray__static_cursor_take(st_cursor_t *c, int64_t left,
                                layout_run_t *run, int64_t *b0,
                                int64_t *len) {
  if (!c->valid || left <= 0)
    return false;
  *run = c->run;
  *b0 = c->b;
  *len = c->run.len - c->b < left ? c->run.len - c->b : left;
  c->b += *len;
  settle(c);
  return true;
}

int64_t darray__static_cursor_at(const st_cursor_t *c) {
  return c->valid ? c->run.foff + c->b : INT64_MAX;
}

void darray__static_merge(st_cursor_t *cur, const int64_t *n, int g,
                          int64_t *pos, st_visit_t visit, void *ctx) {
  for (int k = 0; k < g; k++)
    pos[k] = 0;
  for (;;) {
    int best = -1;
    int64_t at = INT64_MAX;
    for (int k = 0; k < g; k++) {
      int64_t f = darray__static_cursor_at(&cur[k]);
      if (pos[k] < n[k] && (best < 0 || f < at))
        best = k, at = f;
    }
    layout_run_t run;
    int64_t b0, len;
    if (best < 0 || !darray__static_cursor_take(&cur[best], n[best] - pos[best],
                                                &run, &b0, &len))
      return;
    visit(ctx, best, run.foff + b0, len, pos[best]);
    pos[best] += len;
  }
}
