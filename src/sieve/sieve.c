/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * sieve.c - data sieving: independent access of many small runs through
 * one bounded buffer (independent; no communication).
 *
 * Thakur, Gropp & Lusk, "Optimizing Noncontiguous Accesses in MPI-IO",
 * section 5 (after PASSION): instead of one call per run, read one large
 * window that covers many runs and pick the runs out of it in memory; to
 * write, read the window, put the runs into it and write it back, holding
 * an exclusive byte-range lock over the window so that other processes'
 * data in its holes is not lost.
 *
 * Per call, the runs of this process come from the layout iterator in file
 * order. A window starts at the first run not yet moved and grows over the
 * following runs while they fit in ind_rd_buffer_size / ind_wr_buffer_size
 * and while the hole before the next run costs less to move than the call
 * it saves (the cost model below); a run longer than the buffer is moved in
 * buffer-sized pieces. Then:
 *
 *   - one piece: moved alone, straight from/to the user's buffer when it is
 *     contiguous there, else packed;
 *   - reads: one read of the window, runs copied out;
 *   - writes, no holes: runs packed, one write;
 *   - writes with holes: lock, read, runs copied in, write, unlock, when the
 *     model says the read-modify-write is cheaper than writing the window's
 *     stretches of touching runs one by one (which is what happens
 *     otherwise).
 *
 * The cost model (nanoseconds; hints darray_ds_rd_latency_ns,
 * darray_ds_wr_latency_ns, darray_ds_bandwidth_mbs): a call costs its
 * latency plus bytes / bandwidth; a lock and an unlock cost a read latency
 * each. Reads: a run joins the window when its hole costs no more than a
 * read call, gap / bw <= L_rd. Writes: the hole is read and written back and
 * the run read as well, so (2 gap + len) / bw <= L_wr. A window is one
 * piece (moved alone) or several pieces with small holes, so holes that
 * are large against what a call costs (BTIO's pattern) are never read.
 *
 * Locks (src/io/io_lock.c). A file on which no strategy may
 * read-modify-write (f->io.rmw false: darray_concurrent_writers=unlocked,
 * or a file that cannot be locked) gets its windows with holes written as
 * stretches of touching runs, as the direct strategy would; darray_explain
 * says so. Otherwise every read-modify-write holds an exclusive lock on
 * its window (when the file takes locks), and every plain write holds a
 * shared lock on its bytes (taken by the io layer), so a write of any
 * darrayio writer, of this call or another, that lands in a window's holes
 * waits for the window to be written back, and the window for it.
 *
 * A read-modify-write read that meets the end of the file is not an error:
 * the holes were zeroed before the read, and bytes past the end read as
 * zeros, as they would after the write.
 *
 * Memory: one buffer of at most the hint (never more than this process's
 * extent) plus two run iterators, whatever the array size.
 */
#include "sieve/sieve.h"
#include "crc/crc_share.h"

#include <stdlib.h>
#include <string.h>

/* ---- choosing windows ---------------------------------------------------- */

bool darray__sieve_joins(const sieve_t *s, int64_t gap, int64_t len) {
  if (gap == 0)
    return true;
  if (!s->x->write)
    return (double)gap * s->ns_per_byte <= s->lat_rd;
  return s->rmw_ok &&
         (double)(2 * gap + len) * s->ns_per_byte <= s->lat_wr;
}

void darray__sieve_scan(sieve_t *s, window_t *w) {
  int64_t lo = s->cur.foff + s->done, left = s->cur.len - s->done;
  *w = (window_t){lo, lo + left, left, 1, 1, s->cur, s->done};
  if (left > s->cap) { /* a long run: a full window of it */
    w->hi = lo + s->cap;
    w->data = s->cap;
    s->done += s->cap;
    return;
  }
  layout_run_t r;
  s->have = false;
  while (darray__layout_next(&s->scan, &r)) {
    int64_t gap = r.foff - w->hi;
    if (r.foff + r.len - lo > s->cap || !darray__sieve_joins(s, gap, r.len)) {
      s->cur = r;
      s->done = 0;
      s->have = true;
      return;
    }
    if (gap > 0) {
      w->segs++;
      if (s->x->write && s->buf != NULL)
        memset(s->buf + (w->hi - lo), 0, (size_t)gap);
    }
    w->hi = r.foff + r.len;
    w->data += r.len;
    w->pieces++;
  }
}

/* Whether locking, reading, filling and writing a window with holes beats
 * writing its stretches of touching runs one by one (each under a shared
 * lock when the file takes locks). */
bool darray__sieve_rmw_pays(const sieve_t *s, const window_t *w) {
  double lock = s->locks ? 2 * s->lat_rd : 0;
  double rmw = lock + s->lat_rd + s->lat_wr +
               2 * (double)(w->hi - w->lo) * s->ns_per_byte;
  double direct = (double)w->segs * (s->lat_wr + lock) +
                  (double)w->data * s->ns_per_byte;
  return rmw <= direct;
}

/* ---- moving bytes -------------------------------------------------------- */

static int io(sieve_t *s, void *p, int64_t len, int64_t off) {
  return s->x->write ? darray__io_pwrite(&s->x->io, p, len, off)
                     : darray__io_pread(&s->x->io, p, len, off);
}

static void copy(sieve_t *s, const layout_run_t *r, int64_t b0, int64_t b1,
                 char *packed, bool to_packed) {
  const struct darray_s *a = s->x->a;
  s->x->stats.bytes_copied += darray__layout_copy(
      &a->d, &s->x->sec[r->sec], r, b0, b1, s->x->buf, packed, to_packed);
}

/* Move bytes [b0, b1) of a run with one call. */
static int move_piece(sieve_t *s, const layout_run_t *r, int64_t b0,
                      int64_t b1) {
  if (r->mem_contig)
    return io(s, s->x->buf + r->moff + b0, b1 - b0, r->foff + b0);
  if (s->x->write)
    copy(s, r, b0, b1, s->buf, true);
  int rc = io(s, s->buf, b1 - b0, r->foff + b0);
  if (rc == DARRAY_SUCCESS && !s->x->write)
    copy(s, r, b0, b1, s->buf, false);
  return rc;
}

/* Copy every piece of the window between the user's buffer and the
 * window's image in buf. */
static void copy_window(sieve_t *s, const window_t *w, bool to_packed) {
  s->x->stats.bytes_copied +=
      darray__layout_copy_window(&s->x->a->d, s->x->sec, s->x->nsec, w->lo,
                                 w->hi, s->x->buf, s->buf, to_packed);
}

/* A stretch of touching pieces being gathered for one write. Its single
 * first piece is packed only once a second one joins, so that a lone
 * contiguous piece goes straight from the user's buffer. */
typedef struct stretch {
  int64_t lo, hi, pieces;
  layout_run_t run;
  int64_t b0;
} stretch_t;

static int flush_stretch(sieve_t *s, const stretch_t *t, int64_t wlo) {
  if (t->pieces == 0)
    return DARRAY_SUCCESS;
  if (t->pieces == 1)
    return move_piece(s, &t->run, t->b0, t->b0 + (t->hi - t->lo));
  return darray__io_pwrite(&s->x->io, s->buf + (t->lo - wlo), t->hi - t->lo,
                           t->lo);
}

/* Write a window with holes without reading it: one call per stretch of
 * touching pieces. */
static int write_stretches(sieve_t *s, const window_t *w) {
  stretch_t t = {0, 0, 0, {0}, 0};
  layout_run_t r;
  int rc = DARRAY_SUCCESS;
  darray__layout_seek(&s->replay, w->lo);
  while (rc == DARRAY_SUCCESS && darray__layout_next(&s->replay, &r) &&
         r.foff < w->hi) {
    int64_t b0 = w->lo > r.foff ? w->lo - r.foff : 0;
    int64_t b1 = w->hi - r.foff < r.len ? w->hi - r.foff : r.len;
    if (t.pieces > 0 && r.foff + b0 == t.hi) {
      if (t.pieces == 1)
        copy(s, &t.run, t.b0, t.b0 + (t.hi - t.lo), s->buf + (t.lo - w->lo),
             true);
      copy(s, &r, b0, b1, s->buf + (r.foff + b0 - w->lo), true);
      t.hi = r.foff + b1;
      t.pieces++;
      continue;
    }
    rc = flush_stretch(s, &t, w->lo);
    t = (stretch_t){r.foff + b0, r.foff + b1, 1, r, b0};
  }
  if (rc == DARRAY_SUCCESS)
    rc = flush_stretch(s, &t, w->lo);
  return rc;
}

/* A read window: its runs copied out slice by slice, each slice's runs
 * fed to a checked read's CRC share while they are in the cache. */
static int read_window(sieve_t *s, const window_t *w) {
  xfer_t *x = s->x;
  if (w->pieces == 1) {
    int rc = move_piece(s, &w->first, w->b0, w->b0 + (w->hi - w->lo));
    if (rc == DARRAY_SUCCESS)
      darray__xfer_crc_through(x, w->hi);
    return rc;
  }
  int rc = darray__io_pread(&x->io, s->buf, w->hi - w->lo, w->lo);
  for (int64_t lo = w->lo, hi; rc == DARRAY_SUCCESS && lo < w->hi;
       lo = hi) { /* not lo + the slice: it may pass 2^63 - 1 */
    hi = w->hi - lo < DARRAY_CRC_SLICE ? w->hi : lo + DARRAY_CRC_SLICE;
    x->stats.bytes_copied += darray__layout_copy_window(
        &x->a->d, x->sec, x->nsec, lo, hi, x->buf, s->buf + (lo - w->lo),
        false);
    darray__xfer_crc_through(x, hi);
  }
  return rc;
}

/* The write of a window, inside its lock if one is held. */
static int write_locked(sieve_t *s, const window_t *w, bool rmw) {
  if (w->pieces == 1)
    return move_piece(s, &w->first, w->b0, w->b0 + (w->hi - w->lo));
  if (w->segs > 1 && !rmw)
    return write_stretches(s, w);
  if (rmw) {
    int rc = darray__io_pread(&s->x->io, s->buf, w->hi - w->lo, w->lo);
    if (rc != DARRAY_SUCCESS && rc != DARRAY_EEOF)
      return rc;
  }
  copy_window(s, w, true);
  return darray__io_pwrite(&s->x->io, s->buf, w->hi - w->lo, w->lo);
}

/* A read-modify-write holds an exclusive lock over its window; plain
 * writes take their shared locks in the io layer. */
static int write_window(sieve_t *s, const window_t *w) {
  bool rmw = w->segs > 1 && s->rmw_ok && darray__sieve_rmw_pays(s, w);
  if (!rmw)
    return write_locked(s, w, false);
  io_call_t *io = &s->x->io;
  int rc = darray__io_lock(io, w->lo, w->hi - w->lo, true);
  if (rc != DARRAY_SUCCESS)
    return rc;
  rc = write_locked(s, w, true);
  int rc2 = darray__io_unlock(io, w->lo, w->hi - w->lo);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

/* ---- the strategy -------------------------------------------------------- */

/* Whether [lo, hi) overlaps the extent of another process's runs. */
static int overlaps_other(xfer_t *x, int64_t lo, int64_t hi, bool *over) {
  const access_t *acc;
  *over = false;
  int rc = darray__xfer_access(x, &acc);
  for (int r = 0; rc == DARRAY_SUCCESS && r < acc->P && !*over; r++) {
    const access_rank_t *k = &acc->rank[r];
    *over = r != x->a->rank && k->lo < k->hi && k->lo < hi && lo < k->hi;
  }
  return rc;
}

int64_t darray__sieve_window_cap(const xfer_t *x) {
  const darray_hints_t *h = &x->f->hints;
  int64_t hint = x->write ? h->ind_wr_buffer_size : h->ind_rd_buffer_size;
  return darray__xfer_buffer_cap(x, hint);
}

static int sieve_setup(sieve_t *s) {
  xfer_t *x = s->x;
  const struct darray_s *a = x->a;
  const darray_hints_t *h = &x->f->hints;
  int rc = darray__layout_iter_init(&s->scan, &a->d, x->sec, x->nsec);
  if (rc == DARRAY_SUCCESS)
    rc = darray__layout_iter_init(&s->replay, &a->d, x->sec, x->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  int64_t lo, hi;
  darray__layout_extent(&a->d, x->sec, x->nsec, &lo, &hi);
  s->cap = darray__sieve_window_cap(x);
  if (s->cap > hi - lo)
    s->cap = hi - lo;
  s->buf = malloc((size_t)s->cap);
  if (s->buf == NULL)
    return DARRAY_ENOMEM;
  if (x->stats.peak_temp_bytes < s->cap)
    x->stats.peak_temp_bytes = s->cap;
  s->lat_rd = (double)h->ds_rd_latency_ns;
  s->lat_wr = (double)h->ds_wr_latency_ns;
  s->ns_per_byte = darray__cost_rates(x).bw;
  s->rmw_ok = x->write && x->f->io.rmw;
  s->locks = x->write && x->f->io.locks;
  if (x->write && h->concurrency == DARRAY_CONC_NONE && a->d.nprocs > 1) {
    /* nobody else writes, but this call's windows may cover each other's
     * bytes: then lock as under `locked`, or write no window back */
    bool over;
    rc = overlaps_other(x, lo, hi, &over);
    if (over)
      s->locks = s->rmw_ok = x->f->io.can_lock;
  }
  return rc;
}

static void sieve_finish(xfer_t *x) {
  sieve_t *s = x->state;
  if (s == NULL)
    return;
  darray__layout_iter_free(&s->scan);
  darray__layout_iter_free(&s->replay);
  free(s->buf);
  free(s);
  x->state = NULL;
}

/* Local: iterators, the buffer and the lock analysis, so that running out
 * of memory is agreed on before anything moves. */
static int sieve_prepare(xfer_t *x) {
  int64_t lo, hi;
  x->state = NULL;
  darray__layout_extent(&x->a->d, x->sec, x->nsec, &lo, &hi);
  if (hi <= lo)
    return DARRAY_SUCCESS; /* nothing to move */
  sieve_t *s = calloc(1, sizeof *s);
  if (s == NULL)
    return DARRAY_ENOMEM;
  s->x = x;
  x->state = s;
  int rc = sieve_setup(s);
  if (rc != DARRAY_SUCCESS)
    sieve_finish(x);
  return rc;
}

static int sieve_run(xfer_t *x) {
  sieve_t *s = x->state;
  if (s == NULL)
    return DARRAY_SUCCESS; /* nothing to move */
  s->x = x;
  s->done = 0;
  s->have = darray__layout_next(&s->scan, &s->cur);
  if (x->write)
    x->io.locks = s->locks; /* this call's locking */
  int rc = DARRAY_SUCCESS;
  while (rc == DARRAY_SUCCESS && s->have) {
    window_t w;
    darray__sieve_scan(s, &w);
    rc = x->write ? write_window(s, &w) : read_window(s, &w);
  }
  return rc;
}

const strategy_t darray__strategy_sieve = {
    .name = "sieve",
    .switches = {"romio_ds_read", "romio_ds_write"},
    .estimate = darray__sieve_estimate,
    .prepare = sieve_prepare,
    .run = sieve_run,
    .finish = sieve_finish,
    .tally = darray__sieve_tally,
};
