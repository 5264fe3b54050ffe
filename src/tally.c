/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tally.c - what the strategies' estimates and tallies share, beneath the
 * strategy table so that a strategy calls only the core (doc/rooms.md):
 * the servers' time on a striped file, and the tallies of the strategies
 * in which each process moves its own runs (direct runs, mapped pages).
 */
#include "strategy.h"

double darray__servers_ns(const xfer_t *x, double sum_ns) {
  const darray_hints_t *h = &x->f->hints;
  if (h->striping_unit <= 0 || h->striping_factor <= 0)
    return 0;
  return sum_ns / (double)h->striping_factor;
}

void darray__tally_own_start(darray_plan_row_t *row) {
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->aggregators = row->agg_pieces_max = 0;
}

void darray__tally_own(darray_plan_row_t *row, const access_rank_t *k,
                       int64_t calls) {
  row->file_calls_sum += calls;
  row->file_calls_max = calls > row->file_calls_max ? calls
                                                    : row->file_calls_max;
  row->file_bytes_max = k->bytes > row->file_bytes_max ? k->bytes
                                                       : row->file_bytes_max;
  row->aggregators += k->bytes > 0;
  row->agg_pieces_max = k->nruns > row->agg_pieces_max ? k->nruns
                                                       : row->agg_pieces_max;
}

void darray__tally_own_end(darray_plan_row_t *row) {
  row->sent_bytes_max = row->sent_bytes_sum = 0;
  row->messages_max = row->messages_sum = row->cycles = 0;
}
