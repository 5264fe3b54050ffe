/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * sieve_tally.c - a sieved call counted on paper (darray_plan_virtual):
 * every process's windows, found by the strategy's own scan
 * (darray__sieve_scan) over that process's runs, and the file calls and
 * bytes each window costs as sieve.c moves it: one call for a window of
 * one piece or a read; for a write, one call when it has no hole, one
 * locked read-modify-write (its read is a read call) when that pays, else
 * one call per stretch of touching pieces.
 */
#include "sieve/sieve.h"

#include <stdlib.h>

typedef struct count {
  int64_t calls, bytes;
} count_t;

static void window_cost(const sieve_t *s, const window_t *w, count_t *c) {
  int64_t span = w->hi - w->lo;
  if (!s->x->write || w->pieces == 1) {
    c->calls++, c->bytes += span;
  } else if (w->segs > 1 && s->rmw_ok && darray__sieve_rmw_pays(s, w)) {
    c->calls++, c->bytes += span;
  } else if (w->segs > 1) {
    c->calls += w->segs, c->bytes += w->data;
  } else {
    c->calls++, c->bytes += span;
  }
}

/* Whether [lo, hi) meets another process's extent. */
static bool overlaps_other(const access_t *acc, int r, int64_t lo,
                           int64_t hi) {
  for (int q = 0; q < acc->P; q++) {
    const access_rank_t *k = &acc->rank[q];
    if (q != r && k->lo < k->hi && k->lo < hi && lo < k->hi)
      return true;
  }
  return false;
}

/* Process r's windows, as sieve_setup and sieve_run would find them. */
static int rank_cost(const xfer_t *x, const access_t *acc, int r,
                     count_t *c) {
  const darray_hints_t *h = &x->f->hints;
  const access_rank_t *k = &acc->rank[r];
  if (k->hi <= k->lo)
    return DARRAY_SUCCESS;
  sieve_t s = {.x = (xfer_t *)x,
               .lat_rd = (double)h->ds_rd_latency_ns,
               .lat_wr = (double)h->ds_wr_latency_ns,
               .ns_per_byte = darray__cost_rates(x).bw,
               .rmw_ok = x->write && x->f->io.rmw,
               .locks = x->write && x->f->io.locks};
  s.cap = darray__sieve_window_cap(x);
  if (s.cap > k->hi - k->lo)
    s.cap = k->hi - k->lo;
  if (x->write && h->concurrency == DARRAY_CONC_NONE && acc->P > 1 &&
      overlaps_other(acc, r, k->lo, k->hi))
    s.locks = s.rmw_ok = x->f->io.can_lock;
  section_t *sec;
  int nsec;
  if (darray__xfer_sections(x, r, &sec, &nsec) != DARRAY_SUCCESS)
    return DARRAY_ENOMEM;
  int rc = darray__layout_iter_init(&s.scan, &x->a->d, sec, nsec);
  if (rc == DARRAY_SUCCESS) {
    s.have = darray__layout_next(&s.scan, &s.cur);
    while (s.have) {
      window_t w;
      darray__sieve_scan(&s, &w);
      window_cost(&s, &w, c);
    }
    darray__layout_iter_free(&s.scan);
  }
  free(sec);
  return rc;
}

int darray__sieve_tally(const xfer_t *x, const access_t *acc,
                        darray_plan_row_t *row) {
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->aggregators = row->agg_pieces_max = row->temp_bytes_max = 0;
  int64_t cap = darray__sieve_window_cap(x);
  for (int r = 0; r < acc->P; r++) {
    count_t c = {0, 0};
    int rc = rank_cost(x, acc, r, &c);
    if (rc != DARRAY_SUCCESS)
      return rc;
    const access_rank_t *k = &acc->rank[r];
    int64_t ext = k->hi - k->lo, temp = ext < cap ? ext : cap;
    row->file_calls_sum += c.calls;
    row->file_calls_max = c.calls > row->file_calls_max ? c.calls
                                                        : row->file_calls_max;
    row->file_bytes_max = c.bytes > row->file_bytes_max ? c.bytes
                                                        : row->file_bytes_max;
    row->aggregators += k->bytes > 0;
    row->agg_pieces_max = k->nruns > row->agg_pieces_max
                              ? k->nruns : row->agg_pieces_max;
    row->temp_bytes_max = temp > row->temp_bytes_max ? temp
                                                     : row->temp_bytes_max;
  }
  row->sent_bytes_max = row->sent_bytes_sum = 0;
  row->messages_max = row->messages_sum = row->cycles = 0;
  return DARRAY_SUCCESS;
}
