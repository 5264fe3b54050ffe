/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * twophase.c - chunked two-phase collective I/O with no metadata exchange.
 *
 * The generalized two-phase method (Thakur, Gropp & Lusk, "Optimizing
 * Noncontiguous Accesses in MPI-IO", section 6): the union of all
 * processes' accesses is split into contiguous file domains, one per
 * aggregator; each aggregator moves its domain in chunks of at most
 * cb_buffer_size bytes, and the data travels
 * between the owners and the aggregators by message passing.
 *
 * What differs from ROMIO: every process can compute every other process's
 * runs from the distribution (layout iterators that seek to a chunk's
 * start), so nobody sends offset/length lists. The only messages carry
 * data: contiguous byte streams, cut every M bytes, whose layout both ends
 * derive from the same walk over the same runs. No MPI derived datatype is
 * used (on this MPI a strided receive is several times slower than a
 * contiguous one). When the pieces are long, the aggregator hands the
 * kernel a vector of pieces (pwritev/preadv) that point into the other
 * processes' staged streams and straight into its own buffer, so its own
 * data is never copied; when they are short (image mode, see
 * choose_aggregators), it copies them into an image of the chunk, row by
 * row of runs, and moves the chunk with one call. Stream lengths come in
 * closed form from the distribution, so no run is walked to size them.
 * Steps, per call:
 *
 *   1. prepare: the access extent, the file domains, the number of cycles
 *      (the same everywhere, computed locally), buffers.
 *   2. per cycle (tp_exchange.c, tp_chunk.c): receives are posted before
 *      any send; aggregators write (or read) their chunk with vector calls;
 *      owners send (or receive) their pieces straight from (into) their
 *      buffer when those are contiguous there, packed through M bytes
 *      otherwise.
 */
#include "twophase.h"
#include "crc/crc_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. prepare --------------------------------------------------------- */

/* The buffers of the call (tp_domain.c), or a refusal with a message
 * when they cannot be had. */
static void size_buffers(tp_t *t) {
  const darray_hints_t *h = &t->x->f->hints;
  tp_sizes_t s;
  darray__tp_size(&t->dom, h, t->x->write, t->acc, &s);
  t->C = s.C;
  t->M = s.M;
  t->ntimes = s.ntimes;
  t->image = s.image;
  t->pipeline = s.pipeline;
  long long es = (long long)t->dom.es;
  if (s.refuse == TP_HUGE_ELEMENT) /* MPI counts are int */
    t->rc = darray__err(t->x->msg, DARRAY_ELIMIT,
                        "%lld-byte elements are too large for two-phase: "
                        "its messages carry whole elements, and MPI counts "
                        "at most %d bytes in one", es, (int)INT32_MAX);
  else if (s.refuse == TP_OVER_LIMIT)
    t->rc = darray__err(t->x->msg, DARRAY_ELIMIT,
                        "darray_temp_limit = %lld bytes is less than the "
                        "%lld bytes two-phase needs on an aggregator: %d "
                        "chunk buffer%s of %lld bytes and a message buffer "
                        "of %lld, in whole %lld-byte elements",
                        (long long)h->temp_limit, (long long)s.need, s.parts,
                        s.parts > 1 ? "s" : "", (long long)s.C,
                        (long long)s.M, es);
}

static void choose_aggregators(tp_t *t) {
  darray__tp_domains(t->x, t->acc, &t->dom);
  t->dense = t->acc->dense;
  t->myagg = -1;
  for (int i = 0; i < t->dom.A; i++)
    if (darray__tp_agg_rank(i, t->P, t->dom.A) == t->me)
      t->myagg = i;
  size_buffers(t);
}

static bool all_mem_contig(const xfer_t *x) {
  bool contig = true;
  for (int s = 0; s < x->nsec; s++)
    contig &= darray__layout_mem_contig(&x->a->d, &x->sec[s]);
  return contig;
}

/* The most staging any of my chunks needs. The streams of one chunk add
 * up to at most the chunk, except for section reads whose boxes overlap
 * (the same bytes go to several processes); choose_aggregators shrank the
 * chunks of such calls so that even then this stays within
 * cb_buffer_size - M. */
static int64_t largest_chunk_streams(tp_t *t) {
  int64_t most = t->C;
  for (int64_t c = 0; c < t->ntimes; c++) {
    int64_t clo, chi, sum = 0;
    for (int64_t j = 0;
         darray__tp_part(&t->dom, t->C, t->myagg, c, j, &clo, &chi); j++)
      for (int r = 0; r < t->P && clo < chi; r++)
        sum += darray__tp_stream_bytes(&t->peer[r], clo, chi);
    most = sum > most ? sum : most;
  }
  return most;
}

static int slot_alloc(tp_slot_t *s, int64_t stage, int P) {
  s->stage = malloc((size_t)stage);
  s->bytes = calloc((size_t)P, sizeof *s->bytes);
  s->stage_off = calloc((size_t)P, sizeof *s->stage_off);
  return s->stage && s->bytes && s->stage_off ? DARRAY_SUCCESS
                                               : DARRAY_ENOMEM;
}

/*
 * A slot's requests, allocated here so that no cycle allocates: a cycle
 * that could not post a message would leave its peer waiting for it, or
 * leave it unmatched for a later call to receive. Per cycle an aggregator
 * posts at most stage_cap bytes to or from the others and an owner at most
 * C bytes to or from each other aggregator, as streams cut every M bytes:
 * one request per M bytes, plus one per stream for its last piece.
 */
static int slot_requests(tp_t *t, tp_slot_t *s) {
  int64_t stage = t->myagg >= 0 ? t->stage_cap : 0;
  int64_t n = (stage + (int64_t)t->dom.A * t->C) / t->M + t->P + t->dom.A + 1;
  if (t->split) /* a message run per part: one more request per part */
    n += ((int64_t)t->P + t->dom.A) * t->mparts;
  s->req = malloc(sizeof *s->req * (size_t)n);
  s->req_cap = (int)n;
  return s->req != NULL ? DARRAY_SUCCESS : DARRAY_ENOMEM;
}

static void slot_free(tp_slot_t *s) {
  free(s->stage);
  free(s->bytes);
  free(s->stage_off);
  free(s->req);
}

/* Buffers of an aggregator: every process's cells and runs, staging,
 * walkers, the vector. */
static int prepare_aggregator(tp_t *t) {
  size_t P = (size_t)t->P;
  t->peer_sec = calloc(P, sizeof *t->peer_sec);
  t->peer_nsec = calloc(P, sizeof *t->peer_nsec);
  t->peer = calloc(P, sizeof *t->peer);
  if (!t->peer_sec || !t->peer_nsec || !t->peer)
    return DARRAY_ENOMEM;
  t->stage_cap = t->C;
  for (int r = 0; r < t->P; r++) {
    int rc = darray__xfer_sections(t->x, r, &t->peer_sec[r], &t->peer_nsec[r]);
    if (rc == DARRAY_SUCCESS)
      rc = darray__layout_iter_init(&t->peer[r], &t->a->d, t->peer_sec[r],
                                    t->peer_nsec[r]);
    if (rc != DARRAY_SUCCESS)
      return rc;
    t->npeer = r + 1;
  }
  if (t->x->boxes != NULL && !t->x->write)
    t->stage_cap = largest_chunk_streams(t);
  if (slot_alloc(&t->cur, t->stage_cap, t->P) != DARRAY_SUCCESS ||
      (t->pipeline && slot_alloc(&t->alt, t->stage_cap, t->P) !=
                          DARRAY_SUCCESS))
    return DARRAY_ENOMEM;
  t->cursor = calloc(P, sizeof *t->cursor);
  t->spos = calloc(P, sizeof *t->spos);
  t->walk = calloc(P, sizeof *t->walk);
  t->iov = malloc(sizeof *t->iov * DARRAY_IOV_MAX);
  t->roff = malloc(sizeof *t->roff * 2 * DARRAY_IOV_MAX);
  t->rlen = t->roff + DARRAY_IOV_MAX;
  /* page-aligned, so that a chunk of whole pages may be written directly
   * (darray_direct_write) */
  if (t->image && posix_memalign((void **)&t->img, DARRAY_DIO_PAGE,
                                 (size_t)t->C) != 0)
    t->img = NULL;
  if (!t->cursor || !t->spos || !t->walk || !t->iov || !t->roff ||
      (t->image && !t->img))
    return DARRAY_ENOMEM;
  return DARRAY_SUCCESS;
}

static int tp_prepare(xfer_t *x) {
  tp_t *t = calloc(1, sizeof *t);
  if (t == NULL)
    return DARRAY_ENOMEM;
  x->state = t;
  t->x = x;
  t->a = x->a;
  t->P = x->a->d.nprocs;
  t->me = x->a->rank;
  int rc = darray__xfer_access(x, &t->acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  choose_aggregators(t);
  if (t->rc != DARRAY_SUCCESS)
    return t->rc; /* the buffers do not fit */
  t->split = darray__tp_split(&t->dom, t->C, t->M, t->P);
  t->mparts = darray__tp_parts_max(&t->dom, t->C);
  t->self_contig = all_mem_contig(x);
  rc = darray__layout_iter_init(&t->self, &t->a->d, x->sec, x->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  t->self_ok = true;
  bool agg = t->myagg >= 0;
  if (agg && (rc = prepare_aggregator(t)) != DARRAY_SUCCESS)
    return rc;
  t->pack = malloc((size_t)t->M); /* streams that are strided in memory;
                                      scratch for back ends without
                                      vector calls */
  if (t->pack == NULL || slot_requests(t, &t->cur) != DARRAY_SUCCESS ||
      (t->pipeline && slot_requests(t, &t->alt) != DARRAY_SUCCESS))
    return DARRAY_ENOMEM;
  int64_t peak = (agg ? t->stage_cap * (t->pipeline ? 2 : 1) +
                            (t->image ? t->C : 0)
                      : 0) +
                 t->M;
  if (peak > x->stats.peak_temp_bytes)
    x->stats.peak_temp_bytes = peak;
  return DARRAY_SUCCESS;
}

static void tp_finish(xfer_t *x) {
  tp_t *t = x->state;
  if (t == NULL)
    return;
  for (int r = 0; r < t->npeer; r++)
    darray__layout_iter_free(&t->peer[r]);
  if (t->self_ok)
    darray__layout_iter_free(&t->self);
  for (int r = 0; t->peer_sec && r < t->P; r++)
    free(t->peer_sec[r]);
  free(t->peer_sec);
  free(t->peer_nsec);
  free(t->peer);
  slot_free(&t->cur);
  slot_free(&t->alt);
  free(t->img);
  free(t->pack);
  free(t->cursor);
  free(t->spos);
  free(t->walk);
  free(t->iov);
  free(t->roff);
  free(t);
  x->state = NULL;
}

/* ---- the planner's estimate --------------------------------------------- */

/* The cost model over the call's domains (darray__tp_cost, tp_domain.c). */
static int tp_estimate(const xfer_t *x, const access_t *acc, estimate_t *e) {
  if (!acc->interleaved) {
    snprintf(e->why, sizeof e->why, "the processes' extents do not "
             "interleave: each moves its own runs, with no communication");
    return DARRAY_SUCCESS;
  }
  tp_domains_t d;
  darray__tp_domains(x, acc, &d);
  e->ns = darray__tp_cost(x, acc, &d);
  return DARRAY_SUCCESS;
}

/* ---- 2. the cycles ------------------------------------------------------ */

static int tp_run(xfer_t *x) {
  tp_t *t = x->state;
  /* lists feed no CRC share (set by now; a dataset's members are not
   * subfiles anyway) */
  t->lists = t->myagg >= 0 && x->io.file->ops->plist != NULL &&
             !darray__xfer_crc_fed(x);
  if (t->pipeline) {
    darray__tp_write_pipelined(t);
    return t->rc;
  }
  for (int64_t c = 0; c < t->ntimes; c++) {
    darray__tp_cycle(t, c);
    x->stats.cycles++;
  }
  return t->rc;
}

const strategy_t darray__strategy_twophase = {
    .name = "twophase",
    .collective = true,
    .switches = {"romio_cb_read", "romio_cb_write"},
    .estimate = tp_estimate,
    .prepare = tp_prepare,
    .run = tp_run,
    .finish = tp_finish,
    .crc_share = true,
    .tally = darray__tp_tally,
    .explain = darray__tp_explain, /* its file domains */
};
