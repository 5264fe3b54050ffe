/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * mapped.c - the file's own pages as the shared image (independent; no
 * communication).
 *
 * Where all of a file's processes run on one node and the file lives on a
 * file system of that node, the node keeps one copy of each page of the
 * file, which every process that maps it shares (src/io/io_map.c). Then
 * the image two-phase I/O and writer groups build in memory already
 * exists: each process copies its own runs straight between its buffer
 * and the file's pages, in windows of darray_map_window bytes. Each byte
 * is copied once (the physical floor: a pwrite copies it once too), no
 * byte moves between processes, and the processes' pieces may interleave
 * as finely as they like: each writes only its own bytes of a page, and
 * there is one copy of the page.
 *
 * A window starts at the first run not yet moved, rounded down to an alignment
 * (2 MiB, the page cache's large folios, for windows of at least that; a page
 * otherwise), and spans the window size rounded up to it: windows of 2 MiB or
 * more, aligned, map large folios whole, where 1 MiB windows were 100x slower
 * to populate for writing on ext4. Its pages from the one of its first run on
 * (those before hold none of the call's bytes: populating them for writing
 * would dirty other data, up to 2 MiB of it) are populated before they are
 * touched (an I/O error is then a failure, not a signal); a write first
 * reserves its extent's blocks (fallocate), so that running out of space is a
 * failure too, and the file reaches the end of every window mapped. Under
 * darray_concurrent_writers=locked a window's writes hold a shared lock over
 * its bytes, as plain writes do, so another writer's locked read-modify-write
 * never reads them half done.
 *
 * Where the file cannot be mapped, or the call's bytes reach the last
 * page below 2^63, which no mapping may reach (the strategy is not a
 * candidate there, but darray_strategy=mapped forces it), where the file
 * system cannot
 * reserve blocks, and for a read that would pass the end of the file
 * (whose error direct runs report, with its bytes read up to there), the
 * call moves its runs as the direct strategy does.
 *
 * The estimate: per process, its runs' bytes copied at darray_cb_exchange_mbs
 * (a memory copy, as writer groups' members' copies are charged: from mapped
 * pages it ran 1.6-1.8x faster than the same bytes read with pread,
 * bench/RESULTS.md), its extent's pages made ready at darray_map_rd_mbs or
 * darray_map_wr_mbs (pages of a new file cost more to write), per window a call
 * (darray_ds_*_latency_ns) and its mapping's own cost (darray_map_rd_window_ns,
 * darray_map_wr_window_ns: small windows of a new file cost far more than their
 * bytes), and a call for the reservation or the size; the windows and the
 * making ready are the process's own kernel work, so where the node runs more
 * of the file's processes than it has cores they count that many times over;
 * the slowest process is the call's time. A candidate only where the file may
 * be mapped and every process of the file runs on one node. Its switch is
 * darray_map, for reads and writes (plan.c): disable takes it out; where the
 * extents interleave and no collective strategy is a candidate
 * (romio_cb_*=disable) it maps windows of other processes' data, as sieving
 * reads them, so it is then a candidate only under enable, which also maps a
 * file system not known to be one node's.
 */
#include "agree.h" /* darray__cores */
#include "strategy.h"
#include "crc/crc_share.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

DARRAY_HIDDEN extern const strategy_t darray__strategy_direct;

#define MAP_ALIGN (INT64_C(2) << 20)

/* ---- windows ------------------------------------------------------------- */

typedef struct mwin {
  int64_t map_lo; /* where the mapping starts (aligned) */
  int64_t ready;  /* where its populated pages start: lo's page */
  int64_t lo, hi; /* the bytes this window moves: [lo, hi) */
} mwin_t;

typedef struct wsize {
  int64_t span, align, page;
} wsize_t;

static wsize_t window_size(const darray_hints_t *h) {
  long pg = sysconf(_SC_PAGESIZE);
  int64_t page = pg > 0 ? pg : 4096;
  wsize_t w = {h->map_window, h->map_window >= MAP_ALIGN ? MAP_ALIGN : page,
               page};
  w.span = (w.span + w.align - 1) / w.align * w.align; /* hint <= 2^40 */
  return w;
}

/* The window from `from` on: false when no run ends after from. */
static bool next_window(layout_iter_t *it, int64_t from, int64_t hi,
                        wsize_t ws, mwin_t *w) {
  layout_run_t r;
  darray__layout_seek(it, from);
  if (from >= hi || !darray__layout_next(it, &r))
    return false;
  w->lo = r.foff > from ? r.foff : from;
  w->map_lo = w->lo - w->lo % ws.align;
  w->ready = w->lo - w->lo % ws.page;
  w->hi = hi - w->map_lo > ws.span ? w->map_lo + ws.span : hi;
  return true;
}

/* ---- the estimate -------------------------------------------------------- */

static int not_one(estimate_t *e, const char *why) {
  snprintf(e->why, sizeof e->why, "%s", why);
  return DARRAY_SUCCESS;
}

/* Why the file's pages cannot serve this call, whose bytes end at hi (the
 * call's, the same on every process, when planning; this process's when
 * it runs), or NULL. No mapping may reach the last page below 2^63: the
 * kernel maps no page past the largest file offset, so a window whose
 * page-rounded end passes 2^63 - page fails (mmap's EOVERFLOW). */
static const char *why_not(const xfer_t *x, int64_t hi) {
  const struct darray_file_s *f = x->f;
  if (!f->io.map_ok)
    return f->io.map_why != NULL ? f->io.map_why : "the file is not mapped";
  if (f->node_procs != f->nprocs)
    return "the file's processes run on more than one node, each with its "
           "own copy of the file's pages";
  if (hi > INT64_MAX - window_size(&f->hints).page + 1)
    return "its bytes reach the last page below 2^63, which no mapping "
           "may reach";
  return NULL;
}

static int mapped_estimate(const xfer_t *x, const access_t *acc,
                           estimate_t *e) {
  const char *why = why_not(x, acc->hi);
  if (why != NULL)
    return not_one(e, why);
  const darray_hints_t *h = &x->f->hints;
  cost_rates_t c = darray__cost_rates(x);
  double bw = c.xw; /* a memory copy */
  double ready = 1000.0 / (double)(x->write ? h->map_wr_mbs : h->map_rd_mbs);
  double lat = c.lat;
  double win = lat + (double)(x->write ? h->map_wr_window_ns
                                       : h->map_rd_window_ns);
  wsize_t ws = window_size(h);
  /* making pages ready is the calling process's own kernel work: where
   * the node runs more of the file's processes than it has cores, they
   * share them (BTIO at 4 processes on 2 cores: twice the time a window
   * takes at 2) */
  int cores = darray__cores(), np = x->f->node_procs;
  double share = np > cores && cores > 0 ? (double)np / cores : 1;
  e->ns = 0;
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *k = &acc->rank[r];
    int64_t ext = k->hi > k->lo ? k->hi - k->lo : 0;
    double windows = k->bytes > 0 ? (double)(ext / ws.span + 1) : 0;
    double t = lat + (double)k->bytes * bw +
               share * (windows * win + (double)ext * ready);
    e->ns = t > e->ns ? t : e->ns;
  }
  return DARRAY_SUCCESS;
}

/* ---- the call ------------------------------------------------------------ */

/* The call's runs as direct runs move them. */
static int as_direct(xfer_t *x) {
  const strategy_t *d = &darray__strategy_direct;
  void *mine = x->state;
  x->state = NULL;
  int rc = d->prepare != NULL ? d->prepare(x) : DARRAY_SUCCESS;
  if (rc == DARRAY_SUCCESS)
    rc = d->run(x);
  if (d->finish != NULL)
    d->finish(x);
  x->state = mine;
  return rc;
}

/* One window: its runs' bytes copied between the buffer and the file's
 * pages, under a shared lock over them when writes take locks. */
static int move_window(xfer_t *x, const mwin_t *w) {
  io_call_t *io = &x->io;
  bool held = x->write && darray__io_write_needs_lock(io, w->lo,
                                                      w->hi - w->lo);
  int rc = held ? darray__io_lock(io, w->lo, w->hi - w->lo, false)
                : DARRAY_SUCCESS;
  char *p = NULL;
  if (rc == DARRAY_SUCCESS)
    rc = darray__io_map(io, w->map_lo, w->hi - w->map_lo, w->ready - w->map_lo,
                        x->write, &p);
  if (rc == DARRAY_SUCCESS) {
    int64_t t = darray__now_ns(), n = 0;
    for (int64_t lo = w->lo, hi; lo < w->hi; lo = hi) { /* hi <= w->hi */
      hi = w->hi - lo < DARRAY_CRC_SLICE ? w->hi : lo + DARRAY_CRC_SLICE;
      n += darray__layout_copy_window(&x->a->d, x->sec, x->nsec, lo, hi,
                                      x->buf, p + (lo - w->map_lo), x->write);
      if (!x->write) { /* a checked read: this slice's runs, while cached */
        int64_t c = darray__now_ns();
        darray__xfer_crc_through(x, hi);
        t += darray__now_ns() - c; /* not the I/O's time */
      }
    }
    darray__io_unmap(p, w->hi - w->map_lo);
    x->stats.io_ns += darray__now_ns() - t;
    x->stats.bytes_copied += n;
    if (x->write)
      x->stats.bytes_written += n;
    else
      x->stats.bytes_read += n;
  }
  int rc2 = held ? darray__io_unlock(io, w->lo, w->hi - w->lo)
                 : DARRAY_SUCCESS;
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

/* Reads: the file must hold every byte of the extent; writes: its blocks
 * reserved. *direct: the call moves its runs as direct runs do instead. */
static int ready_file(xfer_t *x, int64_t lo, int64_t hi, bool *direct) {
  *direct = false;
  if (!x->write) {
    int64_t size;
    int rc = darray__io_map_size(&x->io, &size);
    *direct = rc == DARRAY_SUCCESS && size < hi;
    return rc;
  }
  int rc = darray__io_map_reserve(&x->io, lo, hi - lo);
  if (rc == DARRAY_ENOTSUP) {
    *direct = true;
    return DARRAY_SUCCESS;
  }
  return rc;
}

static int mapped_run(xfer_t *x) {
  int64_t lo, hi;
  darray__layout_extent(&x->a->d, x->sec, x->nsec, &lo, &hi);
  if (hi <= lo)
    return DARRAY_SUCCESS; /* nothing to move */
  if (why_not(x, hi) != NULL)
    return as_direct(x); /* forced where it cannot map */
  bool direct;
  int rc = ready_file(x, lo, hi, &direct);
  if (rc != DARRAY_SUCCESS || direct)
    return rc != DARRAY_SUCCESS ? rc : as_direct(x);
  layout_iter_t it;
  rc = darray__layout_iter_init(&it, &x->a->d, x->sec, x->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  wsize_t ws = window_size(&x->f->hints);
  mwin_t w;
  for (int64_t from = lo; rc == DARRAY_SUCCESS &&
                          next_window(&it, from, hi, ws, &w);
       from = w.hi)
    rc = move_window(x, &w);
  darray__layout_iter_free(&it);
  return rc;
}

/* ---- on paper ------------------------------------------------------------ */

/* Process r's windows, as mapped_run finds them (the file taken mappable
 * and long enough). */
static int rank_windows(const xfer_t *x, int r, const access_rank_t *k,
                        int64_t *n) {
  *n = 0;
  if (k->hi <= k->lo)
    return DARRAY_SUCCESS;
  section_t *sec;
  int nsec;
  if (darray__xfer_sections(x, r, &sec, &nsec) != DARRAY_SUCCESS)
    return DARRAY_ENOMEM;
  layout_iter_t it;
  int rc = darray__layout_iter_init(&it, &x->a->d, sec, nsec);
  if (rc == DARRAY_SUCCESS) {
    wsize_t ws = window_size(&x->f->hints);
    mwin_t w;
    for (int64_t from = k->lo; next_window(&it, from, k->hi, ws, &w);
         from = w.hi)
      (*n)++;
    darray__layout_iter_free(&it);
  }
  free(sec);
  return rc;
}

static int mapped_tally(const xfer_t *x, const access_t *acc,
                        darray_plan_row_t *row) {
  if (why_not(x, acc->hi) != NULL) /* forced there: direct runs move the
                                      bytes */
    return darray__strategy_direct.tally(x, acc, row);
  darray__tally_own_start(row);
  row->temp_bytes_max = 0;
  for (int r = 0; r < acc->P; r++) {
    int64_t calls;
    int rc = rank_windows(x, r, &acc->rank[r], &calls);
    if (rc != DARRAY_SUCCESS)
      return rc;
    darray__tally_own(row, &acc->rank[r], calls);
  }
  darray__tally_own_end(row);
  return DARRAY_SUCCESS;
}

const strategy_t darray__strategy_mapped = {
    .name = "mapped",
    .switches = {"darray_map", "darray_map"},
    .estimate = mapped_estimate,
    .run = mapped_run,
    .tally = mapped_tally,
};
