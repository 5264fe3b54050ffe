/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc_share.c - each process's share of a member's CRC-32 (crc.c): from
 * the runs a whole-array call moved between its buffer and the file, or
 * from an equal slice of the member read back. The shares are combined by
 * one MPI_Allreduce(MPI_BXOR) (src/format, format_close.c).
 */
#include "crc/crc.h"
#include "layout/layout.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

/* Runs strided in memory are packed through this many bytes at most (at
 * least one element). */
#define CRC_COPY_BYTES (INT64_C(64) << 10)

/* Pieces gathered for one streamed feed (darray__crc_acc_add_pieces: one
 * reduction per batch, not per run; the gaps between a process's runs
 * cost a fold each on the wide path). Where the processor has no wide
 * path, each run is added alone (the accumulator shifts over equal gaps
 * by one product). */
#define CRC_BATCH 64

typedef struct runs_feed {
  crc_acc_t *acc;
  bool batch;
  int n;
  crc_piece_t pc[CRC_BATCH];
} runs_feed_t;

static void feed_flush(runs_feed_t *f) {
  darray__crc_acc_add_pieces(f->acc, f->pc, f->n);
  f->n = 0;
}

static void feed_add(runs_feed_t *f, int64_t off, const char *p, int64_t n) {
  if (n <= 0)
    return;
  if (!f->batch) {
    darray__crc_acc_add(f->acc, off, p, n);
    return;
  }
  crc_piece_t *last = f->n > 0 ? &f->pc[f->n - 1] : NULL;
  if (last != NULL && last->off + last->n == off &&
      (const char *)last->p + last->n == p) {
    last->n += n; /* touching in the message and in memory */
    return;
  }
  if (f->n == CRC_BATCH)
    feed_flush(f);
  f->pc[f->n++] = (crc_piece_t){off, p, n};
}

/* Feed bytes [b0, b1) of one strided run through tmp, cap bytes (whole
 * elements). */
static void strided_run(const struct darray_s *v, const layout_run_t *run,
                        const char *buf, char *tmp, int64_t cap,
                        int64_t off, int64_t b0, int64_t b1,
                        runs_feed_t *f) {
  feed_flush(f); /* tmp is reused */
  for (; b0 < b1; b0 += cap) {
    int64_t e = b1 - b0 < cap ? b1 : b0 + cap;
    darray__layout_copy(&v->d, &v->sec[run->sec], run, b0, e, (char *)buf,
                        tmp, true);
    darray__crc_acc_add(f->acc, off + b0, tmp, e - b0);
  }
}

/* Add the parts of v's runs inside file range [lo, hi) to acc, read from
 * buf, at member offsets (the member's data at file offset data_off);
 * lo = INT64_MIN: from the first run. */
static int feed_runs(const struct darray_s *v, const char *buf,
                     int64_t data_off, int64_t lo, int64_t hi,
                     crc_acc_t *acc) {
  if (v->nsec == 0 || v->local_count == 0 || lo >= hi)
    return DARRAY_SUCCESS;
  layout_iter_t it;
  int rc = darray__layout_iter_init(&it, &v->d, v->sec, v->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (lo != INT64_MIN) /* else from the first run */
    darray__layout_seek(&it, lo);
  runs_feed_t f = {.acc = acc, .batch = darray__crc_wide_available()};
  int64_t es = v->d.esize;
  int64_t cap = es < CRC_COPY_BYTES ? CRC_COPY_BYTES / es * es : es;
  char *tmp = NULL;
  layout_run_t run;
  while (rc == DARRAY_SUCCESS && darray__layout_next(&it, &run) &&
         run.foff < hi) {
    int64_t b0 = lo > run.foff ? lo - run.foff : 0;
    int64_t b1 = hi - run.foff < run.len ? hi - run.foff : run.len;
    int64_t off = run.foff - data_off;
    if (b1 <= b0)
      continue;
    if (run.mem_contig)
      feed_add(&f, off + b0, buf + run.moff + b0, b1 - b0);
    else if (tmp == NULL && (tmp = malloc((size_t)cap)) == NULL)
      rc = DARRAY_ENOMEM;
    else
      strided_run(v, &run, buf, tmp, cap, off, b0, b1, &f);
  }
  feed_flush(&f);
  free(tmp);
  darray__layout_iter_free(&it);
  return rc;
}

int darray__crc_runs(const struct darray_s *v, const char *buf,
                            int64_t data_off, int64_t data_len,
                            uint32_t *r) {
  crc_acc_t acc = DARRAY_CRC_ACC_INIT;
  int rc = feed_runs(v, buf, data_off, INT64_MIN, INT64_MAX, &acc);
  *r = darray__crc_acc_end(&acc, data_len);
  return rc;
}

int darray__crc_readback(struct darray_file_s *f, int64_t offset,
                         int64_t bytes, int64_t bufsize, uint32_t *r) {
  int64_t n = bytes, P = f->nprocs, q = n / P, rem = n % P;
  int64_t lo = q * f->rank + (f->rank < rem ? f->rank : rem);
  int64_t len = q + (f->rank < rem ? 1 : 0);
  int64_t cap = len < bufsize ? len : bufsize;
  crc_acc_t acc = DARRAY_CRC_ACC_INIT;
  *r = 0;
  char *b = cap > 0 ? malloc((size_t)cap) : NULL;
  if (cap > 0 && b == NULL)
    return DARRAY_ENOMEM;
  darray_stats_t st;
  memset(&st, 0, sizeof st);
  io_call_t c;
  darray__io_call_init(&c, &f->io, &st);
  int rc = DARRAY_SUCCESS;
  for (int64_t k = 0; rc == DARRAY_SUCCESS && k < len; k += cap) {
    int64_t piece = len - k < cap ? len - k : cap;
    rc = darray__io_pread(&c, b, piece, offset + lo + k);
    if (rc == DARRAY_SUCCESS)
      darray__crc_acc_add(&acc, lo + k, b, piece);
  }
  free(b);
  f->stats.bytes_read += st.bytes_read;
  f->stats.read_calls += st.read_calls;
  *r = darray__crc_acc_end(&acc, n);
  return rc;
}

/* ---- a whole-array write's share (crc.h: crc_share_t) */

void darray__xfer_crc(xfer_t *x, int64_t foff, const void *p, int64_t n) {
  crc_share_t *sh = x->crc;
  if (sh == NULL || sh->how != CRC_SHARE_STRATEGY)
    return;
  int64_t lo = foff > sh->lo ? foff : sh->lo;
  int64_t hi = foff + n < sh->lo + sh->len ? foff + n : sh->lo + sh->len;
  if (lo < hi) /* a chunk lies inside the member: clipping is a guard */
    darray__crc_acc_add(&sh->acc, lo - sh->lo, (const char *)p + (lo - foff),
                        hi - lo);
}

void darray__xfer_crc_vec(xfer_t *x, int64_t foff, const struct iovec *iov,
                          int n) {
  crc_share_t *sh = x->crc;
  if (sh == NULL || sh->how != CRC_SHARE_STRATEGY)
    return;
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    total += (int64_t)iov[i].iov_len;
  if (foff >= sh->lo && total <= sh->lo + sh->len - foff) {
    darray__crc_acc_addv(&sh->acc, foff - sh->lo, iov, n, total);
    return;
  }
  for (int i = 0; i < n; i++) { /* clipped piece by piece (a guard) */
    darray__xfer_crc(x, foff, iov[i].iov_base, (int64_t)iov[i].iov_len);
    foff += (int64_t)iov[i].iov_len;
  }
}

bool darray__xfer_crc_fed(const xfer_t *x) {
  return x->crc != NULL && x->crc->how == CRC_SHARE_STRATEGY;
}

void darray__xfer_crc_lost(xfer_t *x) {
  if (x->crc != NULL)
    x->crc->lost = true;
}

/* ---- a checked read's share from the owners' runs as they arrive */

void darray__xfer_crc_through(xfer_t *x, int64_t hi) {
  crc_share_t *sh = x->crc;
  if (sh == NULL || sh->how != CRC_SHARE_RUNS || hi <= sh->fed)
    return;
  int rc = feed_runs(sh->view, sh->buf, sh->lo, sh->fed, hi, &sh->acc);
  if (rc != DARRAY_SUCCESS && sh->rc == DARRAY_SUCCESS)
    sh->rc = rc;
  sh->fed = hi;
}

int darray__crc_runs_end(crc_share_t *sh, uint32_t *r) {
  int rc = feed_runs(sh->view, sh->buf, sh->lo, sh->fed, INT64_MAX,
                     &sh->acc);
  sh->fed = INT64_MAX;
  *r = darray__crc_acc_end(&sh->acc, sh->len);
  return sh->rc != DARRAY_SUCCESS ? sh->rc : rc;
}

static void share_job(void *q) {
  crc_share_t *sh = q;
  sh->rc = darray__crc_runs(sh->view, sh->buf, sh->lo, sh->len,
                                   &sh->r);
}

bool darray__crc_share_start(crc_share_t *sh) {
  return darray__pool_start(share_job, sh) == 0;
}

void darray__crc_share_join(crc_share_t *sh) { darray__pool_wait(sh); }
