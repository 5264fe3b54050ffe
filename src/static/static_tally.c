/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * static_tally.c - a static segmentation call counted on paper
 * (darray_plan_virtual): the groups, K and cycles prepare sizes
 * (static_size.c), and each aggregator's cycles merged with the cycles'
 * own walk (darray__static_merge), its vectors built by the rules of
 * static_cycle.c's add_piece: a piece that does not touch the last one in
 * the file starts a call, and so does a vector of DARRAY_IOV_MAX entries;
 * a piece that touches the last one in memory too (the same share, or the
 * next slot's first bytes after a full slot) grows its entry. Every
 * process whose buffer holds its stream as it is (one cell packed in file
 * order, as a virtual array's are) is taken at its word: an aggregator's
 * own share is then not staged. A process sends, on writes, its own bytes
 * to its aggregator (none when it is one) in one message per cycle with
 * bytes; on reads the aggregator sends each member its share.
 */
#include "static/static.h"

#include <stdlib.h>

/* The vector being built, in numbers: addresses are slot offsets in the
 * stage, or an aggregator's own buffer far from it. */
typedef struct vec {
  int64_t K, own; /* slot size; the aggregator's member index, or -1 */
  int n;          /* entries */
  int64_t end, mem_end;
  int64_t calls, pieces;
} vec_t;

#define OWN_BUFFER (INT64_C(1) << 62)

static void flush(vec_t *v) {
  v->calls += v->n > 0;
  v->n = 0;
}

static void visit(void *ctx, int k, int64_t foff, int64_t len, int64_t pos) {
  vec_t *v = ctx;
  int64_t mem = (k == v->own ? OWN_BUFFER : (int64_t)k * v->K) + pos;
  v->pieces++;
  if (v->n > 0 && foff != v->end)
    flush(v);
  if (v->n == 0 || v->mem_end != mem) {
    if (v->n == DARRAY_IOV_MAX)
      flush(v);
    v->n++;
  }
  v->end = foff + len;
  v->mem_end = mem + len;
}

/* Whether process r's buffer holds its stream as it is. */
static int packed_rank(const xfer_t *x, int r, bool *packed) {
  section_t *sec;
  int nsec;
  int rc = darray__xfer_sections(x, r, &sec, &nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  *packed = nsec == 1 && darray__layout_file_packed(&x->a->d, &sec[0]);
  free(sec);
  return DARRAY_SUCCESS;
}

typedef struct walkers {
  section_t **sec;
  layout_iter_t *it;
  st_cursor_t *cur;
  int64_t *n, *pos;
  int nit;
} walkers_t;

static void walkers_free(walkers_t *w, int g) {
  for (int k = 0; k < w->nit; k++)
    darray__layout_iter_free(&w->it[k]);
  for (int k = 0; w->sec != NULL && k < g; k++)
    free(w->sec[k]);
  free(w->sec);
  free(w->it);
  free(w->cur);
  free(w->n);
  free(w->pos);
}

/* Group i's file calls and pieces over every cycle (its aggregator's). */
static int group_calls(const xfer_t *x, const access_t *acc,
                       const st_plan_t *p, int i, vec_t *v) {
  int first = darray__static_first(i, acc->P, p->A);
  int g = darray__static_first(i + 1, acc->P, p->A) - first;
  bool packed = false;
  int rc = packed_rank(x, first, &packed);
  walkers_t w = {calloc((size_t)g, sizeof *w.sec),
                 calloc((size_t)g, sizeof *w.it),
                 calloc((size_t)g, sizeof *w.cur),
                 calloc((size_t)g, sizeof *w.n),
                 calloc((size_t)g, sizeof *w.pos), 0};
  if (!w.sec || !w.it || !w.cur || !w.n || !w.pos)
    rc = DARRAY_ENOMEM;
  for (int k = 0; k < g && rc == DARRAY_SUCCESS; k++) {
    int nsec;
    rc = darray__xfer_sections(x, first + k, &w.sec[k], &nsec);
    if (rc == DARRAY_SUCCESS)
      rc = darray__layout_iter_init(&w.it[k], &x->a->d, w.sec[k], nsec);
    if (rc == DARRAY_SUCCESS) {
      w.nit = k + 1;
      darray__static_cursor_start(&w.cur[k], &w.it[k]);
    }
  }
  *v = (vec_t){.K = p->K, .own = packed ? 0 : -1};
  for (int64_t c = 0; c < p->ncycles && rc == DARRAY_SUCCESS; c++) {
    for (int k = 0; k < g; k++)
      w.n[k] = darray__static_share(p, acc->rank[first + k].bytes, c);
    darray__static_merge(w.cur, w.n, g, w.pos, visit, v);
    flush(v);
  }
  walkers_free(&w, g);
  return rc;
}

static void keep_max(int64_t v, int64_t *max) { *max = v > *max ? v : *max; }

/* Messages of a stream of `bytes` bytes: one per cycle it moves in. */
static int64_t messages(const st_plan_t *p, int64_t bytes) {
  return bytes / p->K + (bytes % p->K != 0);
}

/* Group i's counts into row. */
static int tally_group(const xfer_t *x, const access_t *acc,
                       const st_plan_t *p, int i, darray_plan_row_t *row) {
  int first = darray__static_first(i, acc->P, p->A);
  int last = darray__static_first(i + 1, acc->P, p->A);
  int64_t bytes = 0, agg_sent = 0, agg_msgs = 0;
  for (int r = first; r < last; r++) {
    int64_t b = acc->rank[r].bytes;
    bytes += b;
    if (r == first)
      continue;
    int64_t sent = x->write ? b : 0, msgs = x->write ? messages(p, b) : 0;
    agg_sent += x->write ? 0 : b;
    agg_msgs += x->write ? 0 : messages(p, b);
    row->sent_bytes_sum += sent;
    keep_max(sent, &row->sent_bytes_max);
    row->messages_sum += msgs;
    keep_max(msgs, &row->messages_max);
  }
  row->sent_bytes_sum += agg_sent;
  keep_max(agg_sent, &row->sent_bytes_max);
  row->messages_sum += agg_msgs;
  keep_max(agg_msgs, &row->messages_max);
  vec_t v;
  int rc = group_calls(x, acc, p, i, &v);
  row->file_calls_sum += v.calls;
  keep_max(v.calls, &row->file_calls_max);
  keep_max(bytes, &row->file_bytes_max);
  keep_max(v.pieces, &row->agg_pieces_max);
  row->aggregators += bytes > 0;
  return rc;
}

int darray__static_tally(const xfer_t *x, const access_t *acc,
                         darray_plan_row_t *row) {
  st_plan_t p;
  darray__static_plan(acc, &x->f->hints, &x->a->d, &p);
  if (p.refuse != DARRAY_SUCCESS)
    return DARRAY_SUCCESS; /* refused: nothing to count */
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->sent_bytes_max = row->sent_bytes_sum = 0;
  row->messages_max = row->messages_sum = row->agg_pieces_max = 0;
  row->aggregators = 0;
  row->cycles = p.ncycles;
  row->temp_bytes_max = p.need;
  for (int i = 0; i < p.A; i++) {
    int rc = tally_group(x, acc, &p, i, row);
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  return DARRAY_SUCCESS;
}
