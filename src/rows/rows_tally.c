/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows_tally.c - a rows call counted on paper (darray_plan_virtual):
 * every process's group, region and piece as prepare finds them
 * (rows_group.c), its windows walked with the strategy's own cursor, and
 * for each window one file call per extent of the region it spans (image
 * mode; vector mode too, where a window's part of an extent has fewer
 * than DARRAY_IOV_MAX pieces, which its long pieces make the rule). A
 * process sends, on writes, its bytes outside its own piece (to the
 * members whose pieces hold them) and, on reads, the others' bytes of its
 * piece. Messages are not counted (left at -1).
 */
#include "rows/rows.h"

#include <stdlib.h>

typedef struct rank_count {
  int64_t calls, windows, bytes, sent;
} rank_count_t;

/* Bytes of cells sec[0..n) in the file range [lo, hi). */
static int64_t bytes_in(const darray_desc_t *d, const section_t *sec, int n,
                        int64_t lo, int64_t hi) {
  return darray__layout_bytes_before(d, sec, n, hi) -
         darray__layout_bytes_before(d, sec, n, lo);
}

/* Process r's place in its group: its index k and the group's size. */
static void place_of(const darray_desc_t *d, int keep, int r, int *k) {
  int mine = darray__rows_color(d, keep, r);
  *k = 0;
  for (int q = 0; q < r; q++)
    *k += darray__rows_color(d, keep, q) == mine;
}

/* r's windows and their calls (one per extent segment). */
static int walk_windows(const darray_desc_t *d, const rows_plan_t *p,
                        const section_t *reg, int64_t lo, int64_t hi,
                        rank_count_t *c) {
  rows_cursor_t cur = {.lo = lo, .hi = hi};
  layout_iter_t segs;
  int rc = darray__layout_iter_init(&cur.it, d, reg, 1);
  if (rc != DARRAY_SUCCESS)
    return rc;
  rc = darray__layout_iter_init(&segs, d, reg, 1);
  if (rc != DARRAY_SUCCESS) {
    darray__layout_iter_free(&cur.it);
    return rc;
  }
  cur.ok = true;
  darray__rows_cursor_start(&cur);
  int64_t wlo, whi;
  while (darray__rows_cursor_next(&cur, p->W, &wlo, &whi)) {
    c->windows++;
    pwalk_t w;
    for (darray__tp_walk_start(&w, &segs, wlo, whi); w.valid;
         darray__tp_walk_next(&w))
      c->calls++;
  }
  darray__layout_iter_free(&segs);
  darray__layout_iter_free(&cur.it);
  return DARRAY_SUCCESS;
}

static int rank_counts(const xfer_t *x, const rows_plan_t *p, int r,
                       rank_count_t *c) {
  const darray_desc_t *d = &x->a->d;
  section_t reg, *sec;
  int k, nsec;
  darray__rows_region(d, p->keep, r, &reg);
  place_of(d, p->keep, r, &k);
  int64_t nruns, bytes;
  darray__layout_count(d, &reg, 1, &nruns, &bytes);
  int64_t lo = darray__rows_piece_start(d, &reg, bytes, p->g, k);
  int64_t hi = darray__rows_piece_start(d, &reg, bytes, p->g, k + 1);
  int rc = darray__xfer_sections(x, r, &sec, &nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  int64_t own, mine_in_piece = bytes_in(d, sec, nsec, lo, hi);
  int64_t dummy;
  darray__layout_count(d, sec, nsec, &dummy, &own);
  free(sec);
  c->bytes = bytes_in(d, &reg, 1, lo, hi);
  c->sent = x->write ? own - mine_in_piece : c->bytes - mine_in_piece;
  return lo < hi ? walk_windows(d, p, &reg, lo, hi, c) : DARRAY_SUCCESS;
}

static void keep_max(int64_t v, int64_t *max) { *max = v > *max ? v : *max; }

int darray__rows_tally(const xfer_t *x, const access_t *acc,
                       darray_plan_row_t *row) {
  rows_plan_t p;
  char why[200];
  if (!darray__rows_choose(&x->a->d, &x->f->hints, acc, &p, why, sizeof why))
    return DARRAY_SUCCESS; /* no grouping: nothing to count */
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->sent_bytes_max = row->sent_bytes_sum = row->cycles = 0;
  row->aggregators = 0;
  row->temp_bytes_max = p.need;
  for (int r = 0; r < acc->P; r++) {
    rank_count_t c = {0, 0, 0, 0};
    int rc = rank_counts(x, &p, r, &c);
    if (rc != DARRAY_SUCCESS)
      return rc;
    row->file_calls_sum += c.calls;
    keep_max(c.calls, &row->file_calls_max);
    keep_max(c.bytes, &row->file_bytes_max);
    row->sent_bytes_sum += c.sent;
    keep_max(c.sent, &row->sent_bytes_max);
    keep_max(c.windows, &row->cycles);
    row->aggregators += c.bytes > 0;
  }
  return DARRAY_SUCCESS;
}
