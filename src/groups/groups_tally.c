/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups_tally.c - a writer-group call counted on paper
 * (darray_plan_virtual): the groups of cb_group_size consecutive ranks
 * and the chunk the run uses (groups_size.c), and each writer's chunks
 * walked for their stretches with the run's own walk: a back end with
 * list calls moves each DARRAY_IOV_MAX stretches of a chunk with one call,
 * others one call per stretch. Nothing is sent; every member of a group
 * counts the group's cycles. Groups by node (cb_group_size 0) are not
 * known on paper: nothing is counted then.
 */
#include "groups/groups.h"

#include "file.h"

#include <stdlib.h>

typedef struct count {
  bool lists;
  int n;              /* stretches of the chunk's current list */
  int64_t calls, bytes, stretches;
} count_t;

static void flush(count_t *k) {
  k->calls += k->lists ? k->n > 0 : k->n;
  k->n = 0;
}

static void visit(void *ctx, int64_t off, int64_t len) {
  count_t *k = ctx;
  (void)off;
  if (k->n == DARRAY_IOV_MAX)
    flush(k);
  k->n++;
  k->stretches++;
  k->bytes += len;
}

static void keep_max(int64_t v, int64_t *max) { *max = v > *max ? v : *max; }

/* Group [first, first + g): its writer's calls and bytes, its cycles. */
static int tally_group(const xfer_t *x, const access_t *acc,
                       const gr_plan_t *p, int first, int g,
                       darray_plan_row_t *row) {
  int *ranks = malloc(sizeof *ranks * (size_t)g);
  if (ranks == NULL)
    return DARRAY_ENOMEM;
  for (int k = 0; k < g; k++)
    ranks[k] = first + k;
  int64_t lo, hi;
  int64_t n = darray__groups_extent(acc, ranks, g, p->C, &lo, &hi);
  count_t k = {.lists = darray__io_backend_lists(x->f->hints.backend)};
  gr_walk_t w;
  int rc = n > 0 ? darray__groups_walk_init(&w, x, ranks, g) : DARRAY_SUCCESS;
  for (int64_t c = 0; c < n && rc == DARRAY_SUCCESS; c++) {
    darray__groups_stretches(&w, lo + c * p->C, lo + (c + 1) * p->C, visit,
                             &k);
    flush(&k);
  }
  if (n > 0)
    darray__groups_walk_free(&w);
  free(ranks);
  row->file_calls_sum += k.calls;
  keep_max(k.calls, &row->file_calls_max);
  keep_max(k.bytes, &row->file_bytes_max);
  keep_max(k.stretches, &row->agg_pieces_max);
  keep_max(n, &row->cycles);
  row->aggregators += k.bytes > 0;
  if (n > 0)
    keep_max(2 * p->half, &row->temp_bytes_max);
  return rc;
}

int darray__groups_tally(const xfer_t *x, const access_t *acc,
                         darray_plan_row_t *row) {
  gr_plan_t p;
  darray__groups_plan(x->f, acc, &x->a->d, &p);
  if (p.refuse != DARRAY_SUCCESS || x->f->hints.cb_group_size <= 0)
    return DARRAY_SUCCESS; /* refused, or by node: nothing to count */
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->sent_bytes_max = row->sent_bytes_sum = 0;
  row->messages_max = row->messages_sum = row->agg_pieces_max = 0;
  row->aggregators = row->cycles = row->temp_bytes_max = 0;
  for (int first = 0; first < acc->P; first += p.s) {
    int g = acc->P - first < p.s ? acc->P - first : p.s;
    int rc = tally_group(x, acc, &p, first, g, row);
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  return DARRAY_SUCCESS;
}
