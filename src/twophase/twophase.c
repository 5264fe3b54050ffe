/*
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
 *   2. per cycle (tp_exchange.c): receives are posted before any send;
 *      aggregators write (or read) their chunk with vector calls; owners
 *      send (or receive) their pieces straight from (into) their buffer
 *      when those are contiguous there, packed through M bytes otherwise.
 */
#include "twophase.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. prepare --------------------------------------------------------- */

/* The smallest base + k * unit (k >= 0) at or after b, or hi when that
 * lies past hi (base <= hi, unit >= 1): b + unit - 1 may pass INT64_MAX
 * when the array ends near it, so the remainder is taken first. */
static int64_t round_up_to(int64_t b, int64_t base, int64_t unit,
                           int64_t hi) {
  if (b <= base)
    return base;
  int64_t r = (b - base) % unit;
  if (r == 0)
    return b;
  return b - r > hi - unit ? hi : b - r + unit;
}

/* Start of aggregator i's domain: an even split of [lo, hi), moved to the
 * nearest striping_unit boundary if that hint is set, then up to an element
 * boundary so that no element is split between domains or chunks. Every
 * step stays within [0, hi]: an array may end at INT64_MAX. */
static int64_t boundary(const tp_t *t, int i) {
  if (i <= 0)
    return t->lo;
  if (i >= t->A)
    return t->hi;
  int64_t span = t->hi - t->lo, su = t->x->f->hints.striping_unit;
  /* lo + span * i / A without forming span * i */
  int64_t b = t->lo + span / t->A * i + span % t->A * i / t->A;
  if (su > 0) /* to the nearest multiple of su; halves round up */
    b = b % su < su - su / 2 ? b - b % su : round_up_to(b, 0, su, t->hi);
  b = round_up_to(b, t->a->d.disp, t->a->d.esize, t->hi);
  return b < t->lo ? t->lo : b > t->hi ? t->hi : b;
}

/* Cycle `cycle` covers [dlo + cycle * C, + C) of the domain [dlo, dhi);
 * past the domain's end the chunk is empty, at dhi. The offsets are
 * compared as distances into the domain, never formed past dhi, which may
 * be INT64_MAX. */
void darray__tp_chunk(const tp_t *t, int i, int64_t cycle, int64_t *clo,
                      int64_t *chi) {
  int64_t dlo = boundary(t, i), dhi = boundary(t, i + 1), len = dhi - dlo;
  if (len <= 0 || cycle > (len - 1) / t->C) {
    *clo = *chi = dhi;
    return;
  }
  int64_t at = cycle * t->C; /* < len */
  *clo = dlo + at;
  *chi = len - at > t->C ? *clo + t->C : dhi;
}

int darray__tp_agg_rank(const tp_t *t, int i) {
  return (int)((int64_t)i * t->P / t->A);
}

static int extent_and_density(tp_t *t) {
  const struct darray_s *a = t->a;
  int64_t owned = 0;
  bool any = false;
  for (int r = 0; r < t->P; r++) {
    int rc = darray__xfer_sections(t->x, r, &t->peer_sec[r], &t->peer_nsec[r]);
    if (rc != DARRAY_SUCCESS)
      return rc;
    int64_t lo, hi;
    darray__layout_extent(&a->d, t->peer_sec[r], t->peer_nsec[r], &lo, &hi);
    if (hi > lo) {
      t->lo = any && t->lo < lo ? t->lo : lo;
      t->hi = any && t->hi > hi ? t->hi : hi;
      any = true;
    }
    int64_t nruns, bytes;
    darray__layout_count(&a->d, t->peer_sec[r], t->peer_nsec[r], &nruns, &bytes);
    t->nruns += nruns;
    t->nbytes += bytes;
    for (int s = 0; s < t->peer_nsec[r]; s++) {
      int64_t n = a->d.esize;
      for (int d = 0; d < a->d.ndims; d++)
        n *= darray__dist_set_size(&t->peer_sec[r][s].set[d]);
      owned += n;
    }
  }
  t->dense = owned == t->hi - t->lo; /* every byte of the extent is owned */
  return DARRAY_SUCCESS;
}

/*
 * cb_buffer_size bounds all temporary memory of a process: the message/pack
 * buffer (M = a quarter) plus an aggregator's staging of the others'
 * streams (C per chunk, times the overlap depth of section reads whose
 * boxes overlap: the same bytes then go to several processes) plus, in
 * image mode, the chunk's image (C).
 *
 * Image mode: a vector call costs the kernel a few tens of nanoseconds per
 * piece, copying a piece costs about its length at memory speed, so short
 * pieces are copied into a contiguous image of the chunk that moves with
 * one call, and long ones go to the kernel as a vector with no copy. The
 * mean piece (every process's bytes over its runs, the same number
 * everywhere) is compared with darray_cb_image_piece.
 */
/* Chunk size C from cb_buffer_size - M shared by `parts` buffers of C
 * bytes, no larger than the largest domain; M no larger than C; the
 * number of cycles. */
void darray__tp_set_chunks(tp_t *t, int parts) {
  const darray_hints_t *h = &t->x->f->hints;
  int64_t es = t->a->d.esize, cb = h->cb_buffer_size;
  t->M = cb / 4 / es * es;
  if (t->M < es)
    t->M = es;
  t->C = (cb - t->M) / parts / es * es;
  if (t->C < es && t->M > es) { /* a smaller M before chunks too small */
    t->M = es;
    t->C = (cb - t->M) / parts / es * es;
  }
  if (t->C < es)
    t->C = es;
  int64_t dmax = 0; /* the largest domain: no chunk needs more */
  for (int i = 0; i < t->A; i++) {
    int64_t len = boundary(t, i + 1) - boundary(t, i);
    dmax = len > dmax ? len : dmax;
  }
  if (dmax > 0 && t->C > dmax)
    t->C = dmax; /* a multiple of es: domains start on element boundaries */
  if (t->M > t->C)
    t->M = t->C;
  t->ntimes = 0;
  for (int i = 0; i < t->A; i++) { /* ceil(len / C): len + C may overflow */
    int64_t len = boundary(t, i + 1) - boundary(t, i);
    int64_t n = len / t->C + (len % t->C != 0);
    t->ntimes = n > t->ntimes ? n : t->ntimes;
  }
  /* Buffers of whole elements can exceed cb_buffer_size, and so
   * darray_temp_limit: refuse rather than exceed (the automatic pipeline
   * gives up its second buffer first). A message is M bytes or less, and
   * MPI counts them in an int. */
  int64_t lim = h->temp_limit, need = 0;
  if (t->M <= INT32_MAX) /* then C <= max(cb, M) < 2^31: no overflow */
    need = t->M + parts * t->C;
  if (t->M > INT32_MAX) { /* MPI counts are int */
    t->rc = darray__err(t->x->msg, DARRAY_ELIMIT,
                        "%lld-byte elements are too large for two-phase: "
                        "its messages carry whole elements, and MPI counts "
                        "at most %d bytes in one", (long long)es,
                        (int)INT32_MAX);
  } else if (lim > 0 && need > lim && t->pipeline &&
             h->cb_pipeline == DARRAY_TRI_AUTO) {
    t->pipeline = false;
    darray__tp_set_chunks(t, parts - 1);
  } else if (lim > 0 && need > lim) {
    t->rc = darray__err(t->x->msg, DARRAY_ELIMIT,
                        "darray_temp_limit = %lld bytes is less than the "
                        "%lld bytes two-phase needs on an aggregator: %d "
                        "chunk buffer%s of %lld bytes and a message buffer "
                        "of %lld, in whole %lld-byte elements",
                        (long long)lim, (long long)need, parts,
                        parts > 1 ? "s" : "", (long long)t->C,
                        (long long)t->M, (long long)es);
  }
}

static void choose_aggregators(tp_t *t) {
  const darray_hints_t *h = &t->x->f->hints;
  t->A = h->cb_nodes > 0 && h->cb_nodes < t->P ? (int)h->cb_nodes : t->P;
  t->image = t->nruns > 0 && t->nbytes / t->nruns < h->cb_image_piece;
  t->myagg = -1;
  for (int i = 0; i < t->A; i++)
    if (darray__tp_agg_rank(t, i) == t->me)
      t->myagg = i;
  int parts = (t->x->write ? 1 : darray__boxes_depth(t->x)) + t->image;
  darray__tp_set_chunks(t, parts);
  /* pipelined writes need a second staging slot: worth it with two
   * aggregators or more taking turns and two cycles or more */
  int pl = h->cb_pipeline;
  t->pipeline = t->x->write && pl != DARRAY_TRI_DISABLE &&
                (pl == DARRAY_TRI_ENABLE || (t->A >= 2 && t->ntimes >= 2));
  if (t->pipeline)
    darray__tp_set_chunks(t, parts + 1);
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
    darray__tp_chunk(t, t->myagg, c, &clo, &chi);
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
  int64_t n = (stage + (int64_t)t->A * t->C) / t->M + t->P + t->A + 1;
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

/* Buffers of an aggregator: staging, walkers, the vector. */
static int prepare_aggregator(tp_t *t) {
  size_t P = (size_t)t->P;
  t->peer = calloc(P, sizeof *t->peer);
  if (t->peer == NULL)
    return DARRAY_ENOMEM;
  t->stage_cap = t->C;
  for (int r = 0; r < t->P; r++) {
    int rc = darray__layout_iter_init(&t->peer[r], &t->a->d, t->peer_sec[r],
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
  t->walk = calloc(P, sizeof *t->walk);
  t->iov = malloc(sizeof *t->iov * DARRAY_IOV_MAX);
  if (t->image)
    t->img = malloc((size_t)t->C);
  if (!t->cursor || !t->walk || !t->iov || (t->image && !t->img))
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
  t->peer_sec = calloc((size_t)t->P, sizeof *t->peer_sec);
  t->peer_nsec = calloc((size_t)t->P, sizeof *t->peer_nsec);
  if (!t->peer_sec || !t->peer_nsec)
    return DARRAY_ENOMEM;
  int rc = extent_and_density(t);
  if (rc != DARRAY_SUCCESS)
    return rc;
  choose_aggregators(t);
  if (t->rc != DARRAY_SUCCESS)
    return t->rc; /* darray__tp_set_chunks: the buffers do not fit */
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
  free(t->walk);
  free(t->iov);
  free(t);
  x->state = NULL;
}

/* ---- 2. the cycles ------------------------------------------------------ */

static int tp_run(xfer_t *x) {
  tp_t *t = x->state;
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

const strategy_t darray__strategy_twophase = {"twophase", tp_prepare, tp_run,
                                              tp_finish};
