/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_tally.c - a two-phase call counted on paper (darray_plan_virtual):
 * the domains, chunks and cycles prepare would size (tp_domain.c), and
 * every process's runs cut by them, as the exchange (tp_exchange.c) cuts
 * them into streams: one stream per (owner, aggregator, cycle) with bytes
 * in it, sent as messages of at most M bytes, by the owner on writes and
 * by the aggregator on reads, nothing sent to oneself. A layout chunk has
 * several parts, so an owner's run may leave a stream for other
 * aggregators' stripes and come back to it: streams stay open per
 * aggregator until the owner's last run (those it touched are listed).
 *
 * Beside it, what ROMIO's two-phase algorithm would exchange as metadata
 * for the same access and domains before moving any data: each process's
 * count of pieces per aggregator (an int to every other process), then,
 * for each aggregator, its pieces' offsets and lengths (two 8-byte
 * MPI_Offset values per piece; pieces are runs, touching runs merged as a
 * flattened file view merges them, cut at domain boundaries).
 *
 * On a striped file (striping_unit and striping_factor hints) the servers
 * each aggregator's chunk touches per cycle, and the aggregators that
 * touch one server in one cycle: the contention LACIO measures.
 */
#include "twophase.h"

#include <stdlib.h>

typedef struct tally {
  const tp_domains_t *d;
  int64_t C, M;
  int P, r;
  bool write;
  int64_t *sent, *msgs, *meta; /* per process */
  int64_t *pieces;             /* per aggregator */
  int64_t *entries; /* per aggregator: vector entries (a piece that
                       touches its stream's previous one extends it) */
  /* per aggregator, the owner's open stream: its cycle (-1: none), bytes
   * and last byte + 1; the aggregators with one open, nopen of them */
  int64_t *cycle, *n, *end;
  int *open, nopen;
  bool split;       /* streams cut at part boundaries too: per aggregator,
                       the open part's end and bytes, and the messages of
                       the stream's parts closed before it */
  int64_t *pend, *pn, *pmsgs;
  int64_t meta_dom, meta_end;  /* ROMIO's last piece */
} tally_t;

static int64_t messages(const tally_t *t, int64_t n) {
  return n / t->M + (n % t->M != 0);
}

static void close_stream(tally_t *t, int i) {
  int64_t n = t->n[i];
  int agg = darray__tp_agg_rank(i, t->P, t->d->A);
  if (n > 0 && agg != t->r) {
    int from = t->write ? t->r : agg;
    t->sent[from] += n;
    t->msgs[from] += t->split ? t->pmsgs[i] + messages(t, t->pn[i])
                              : messages(t, n);
  }
  t->n[i] = 0;
  if (t->split)
    t->pmsgs[i] = t->pn[i] = 0, t->pend[i] = -1;
}

static void close_all(tally_t *t) {
  for (int k = 0; k < t->nopen; k++) {
    close_stream(t, t->open[k]);
    t->cycle[t->open[k]] = -1;
  }
  t->nopen = 0;
}

/* One piece of a run inside domain i, cycle c, in the part that ends at
 * pend. */
static void piece(tally_t *t, int i, int64_t c, int64_t lo, int64_t hi,
                  int64_t pend) {
  if (t->cycle[i] < 0) {
    t->open[t->nopen++] = i;
    t->cycle[i] = c;
  } else if (c != t->cycle[i]) {
    close_stream(t, i);
    t->cycle[i] = c;
  } else if (lo == t->end[i]) {
    t->entries[i]--; /* one entry with the previous piece */
  }
  if (t->split && pend != t->pend[i]) { /* the stream's next part */
    t->pmsgs[i] += messages(t, t->pn[i]);
    t->pn[i] = 0;
    t->pend[i] = pend;
  }
  if (t->split)
    t->pn[i] += hi - lo;
  t->n[i] += hi - lo;
  t->pieces[i]++;
  t->entries[i]++;
  t->end[i] = hi;
  if (i != t->meta_dom || lo != t->meta_end) { /* a new ROMIO piece */
    if (darray__tp_agg_rank(i, t->P, t->d->A) != t->r)
      t->meta[t->r] += 16;
    t->meta_dom = i;
  }
  t->meta_end = hi;
}

static void visit_run(void *p, const layout_run_t *run) {
  tally_t *t = p;
  int64_t off = run->foff, end = run->foff + run->len;
  while (off < end) {
    int agg;
    int64_t c, chi;
    darray__tp_locate(t->d, t->C, off, &agg, &c, &chi);
    int64_t hi = end < chi ? end : chi;
    piece(t, agg, c, off, hi, chi);
    off = hi;
  }
}

/* Servers per aggregator and aggregators per server, cycle by cycle. */
static int contention(const tp_domains_t *d, int64_t C, int64_t ntimes,
                      darray_plan_row_t *row) {
  if (d->su <= 0 || d->S <= 0)
    return DARRAY_SUCCESS;
  int *cnt = malloc(sizeof *cnt * 2 * (size_t)d->S);
  if (cnt == NULL)
    return DARRAY_ENOMEM;
  row->aggs_per_server_max = darray__tp_contention(
      d, C, ntimes, INT64_MAX, cnt, &row->servers_per_agg_max);
  free(cnt);
  return DARRAY_SUCCESS;
}

static void sum_max(const int64_t *v, int n, int64_t *sum, int64_t *max) {
  *sum = *max = 0;
  for (int i = 0; i < n; i++) {
    *sum = *sum > INT64_MAX - v[i] ? INT64_MAX : *sum + v[i];
    *max = v[i] > *max ? v[i] : *max;
  }
}

/* Each aggregator's file calls and bytes, part by part: a whole-array
 * access is dense, so every part that is not empty holds data and moves
 * with one call (image mode), or with one vector call per DARRAY_IOV_MAX
 * entries (vector mode, chosen where pieces are long: then a part has
 * fewer entries than that, and the count, one call per part at least, is
 * exact). On a back end with list calls (lists) a chunk's parts move
 * together, DARRAY_IOV_MAX of them per call. */
static void aggregators(const tally_t *t, const tp_sizes_t *s, bool lists,
                        darray_plan_row_t *row) {
  row->file_calls_max = row->file_calls_sum = row->file_bytes_max = 0;
  row->agg_pieces_max = 0;
  row->aggregators = t->d->A;
  for (int i = 0; i < t->d->A; i++) {
    int64_t calls = 0, bytes = 0;
    for (int64_t c = 0; c < s->ntimes; c++) {
      int64_t clo, chi, parts = 0;
      for (int64_t j = 0; darray__tp_part(t->d, s->C, i, c, j, &clo, &chi);
           j++) {
        parts += clo < chi;
        bytes += chi - clo;
      }
      calls += lists ? parts / DARRAY_IOV_MAX + (parts % DARRAY_IOV_MAX != 0)
                     : parts;
    }
    int64_t vec = t->entries[i] / DARRAY_IOV_MAX +
                  (t->entries[i] % DARRAY_IOV_MAX != 0);
    if (!s->image && vec > calls)
      calls = vec;
    row->file_calls_sum += calls;
    row->file_calls_max = calls > row->file_calls_max ? calls
                                                      : row->file_calls_max;
    row->file_bytes_max = bytes > row->file_bytes_max ? bytes
                                                      : row->file_bytes_max;
    row->agg_pieces_max = t->pieces[i] > row->agg_pieces_max
                              ? t->pieces[i] : row->agg_pieces_max;
  }
}

static int walk_all(tally_t *t, const xfer_t *x, const access_t *acc) {
  for (t->r = 0; t->r < t->P; t->r++) {
    t->meta_dom = -1;
    if (acc->rank[t->r].bytes > 0 &&
        darray__xfer_walk_runs(x, t->r, -1, visit_run, t) != DARRAY_SUCCESS)
      return DARRAY_ENOMEM;
    close_all(t);
    t->meta[t->r] += 4 * (int64_t)(t->P - 1); /* ROMIO's piece counts */
  }
  return DARRAY_SUCCESS;
}

int darray__tp_tally(const xfer_t *x, const access_t *acc,
                     darray_plan_row_t *row) {
  const darray_hints_t *h = &x->f->hints;
  tp_domains_t d;
  tp_sizes_t s;
  darray__tp_domains(x, acc, &d);
  darray__tp_size(&d, h, x->write, acc, &s);
  size_t P = (size_t)acc->P, A = (size_t)d.A;
  tally_t t = {.d = &d, .C = s.C, .M = s.M, .P = acc->P, .write = x->write};
  t.sent = calloc(3 * P, sizeof *t.sent);
  t.pieces = calloc(8 * A, sizeof *t.pieces);
  t.open = malloc(A * sizeof *t.open);
  int rc = t.sent && t.pieces && t.open ? DARRAY_SUCCESS : DARRAY_ENOMEM;
  if (rc == DARRAY_SUCCESS) {
    t.entries = t.pieces + A;
    t.cycle = t.pieces + 2 * A;
    t.n = t.pieces + 3 * A;
    t.end = t.pieces + 4 * A;
    t.pend = t.pieces + 5 * A;
    t.pn = t.pieces + 6 * A;
    t.pmsgs = t.pieces + 7 * A;
    t.split = darray__tp_split(&d, s.C, s.M, acc->P);
    for (size_t i = 0; i < A; i++)
      t.cycle[i] = t.pend[i] = -1;
  }
  if (rc == DARRAY_SUCCESS) {
    t.msgs = t.sent + P;
    t.meta = t.sent + 2 * P;
    rc = walk_all(&t, x, acc);
  }
  if (rc == DARRAY_SUCCESS) {
    sum_max(t.sent, t.P, &row->sent_bytes_sum, &row->sent_bytes_max);
    sum_max(t.msgs, t.P, &row->messages_sum, &row->messages_max);
    sum_max(t.meta, t.P, &row->romio_metadata_sum, &row->romio_metadata_max);
    aggregators(&t, &s, darray__io_backend_lists(h->backend), row);
    row->cycles = s.ntimes;
    row->temp_bytes_max = s.need;
    rc = contention(&d, s.C, s.ntimes, row);
  }
  free(t.sent);
  free(t.pieces);
  free(t.open);
  return rc;
}
