/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_data.c - the values the benchmark writes, and the checks.
 *
 * Every element's value is a closed form of its index in the file (dumps
 * included), of the data kind (--data: index, smooth or random; the forms
 * are in bench_gen.h) and of a salt that changes with every write, so a
 * read that returns stale data, a write that put bytes at the wrong
 * offset, and a read that put them at the wrong place in memory all fail
 * the check. Doubles are compared as bits. Before a timed read the buffer
 * is filled with the values of salt + 1000, which differ from the
 * expected ones in every element (bench_gen.h says how surely).
 */
#include "bench.h"
#include "bench_gen.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline uint32_t v32(const pattern_t *p, int64_t idx, int salt) {
  return bench_gen32(p->data, idx, p->gen_n, salt);
}

static inline uint64_t v64(const pattern_t *p, int64_t idx, int salt) {
  return bench_gen64(p->data, idx, p->gen_n, salt);
}

static double as_double(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* ---- walking the boxes, one row (innermost dimension) at a time --------- */

typedef struct walk {
  const pattern_t *p;
  char *buf;
  int64_t base; /* file element index of the dump's first element */
  int salt, rank;
  int64_t bad;
  void (*row)(struct walk *w, int64_t f, int64_t m, int64_t n, int64_t fs,
              int64_t ms);
} walk_t;

static void walk_box(walk_t *w, const box_t *bx, int nd) {
  int64_t idx[BENCH_MAXD] = {0};
  int in = nd - 1;
  for (int d = 0; d < nd; d++)
    if (bx->count[d] <= 0)
      return;
  for (;;) {
    int64_t f = bx->foff, m = bx->moff;
    for (int d = 0; d < in; d++) {
      f += idx[d] * bx->fstride[d];
      m += idx[d] * bx->mstride[d];
    }
    w->row(w, f, m, bx->count[in], bx->fstride[in], bx->mstride[in]);
    int d = in - 1;
    while (d >= 0 && ++idx[d] == bx->count[d])
      idx[d--] = 0;
    if (d < 0)
      return;
  }
}

static void walk(walk_t *w) {
  for (int i = 0; i < w->p->nbox; i++)
    walk_box(w, &w->p->box[i], w->p->nd);
}

static void row_fill(walk_t *w, int64_t f, int64_t m, int64_t n, int64_t fs,
                     int64_t ms) {
  f += w->base;
  if (w->p->esize == 4) {
    uint32_t *u = (uint32_t *)w->buf + m;
    for (int64_t e = 0; e < n; e++)
      u[e * ms] = v32(w->p, f + e * fs, w->salt);
  } else {
    uint64_t *u = (uint64_t *)w->buf + m;
    for (int64_t e = 0; e < n; e++)
      u[e * ms] = v64(w->p, f + e * fs, w->salt);
  }
}

static void mismatch(walk_t *w, int64_t idx, double got, double want) {
  if (w->bad++ == 0)
    fprintf(stderr, "darrayio-bench: rank %d: file element %" PRId64
            " (byte %" PRId64 ") is %.17g in memory, expected %.17g\n",
            w->rank, idx, idx * w->p->esize, got, want);
}

static void row_check(walk_t *w, int64_t f, int64_t m, int64_t n, int64_t fs,
                      int64_t ms) {
  f += w->base;
  for (int64_t e = 0; e < n; e++) {
    int64_t idx = f + e * fs;
    if (w->p->esize == 4) {
      uint32_t got = ((const uint32_t *)w->buf)[m + e * ms];
      if (got != v32(w->p, idx, w->salt))
        mismatch(w, idx, got, v32(w->p, idx, w->salt));
    } else {
      uint64_t got = ((const uint64_t *)w->buf)[m + e * ms];
      if (got != v64(w->p, idx, w->salt))
        mismatch(w, idx, as_double(got), as_double(v64(w->p, idx, w->salt)));
    }
  }
}

void bench_fill(const pattern_t *p, void *buf, int dump, int salt) {
  walk_t w = {p, buf, dump * p->dump_elems, salt, 0, 0, row_fill};
  walk(&w);
}

int64_t bench_check(const pattern_t *p, const void *buf, int dump, int salt,
                    int rank) {
  walk_t w = {p, (char *)buf, dump * p->dump_elems, salt, rank, 0, row_check};
  walk(&w);
  return w.bad;
}

/* ---- file-order stretches (reference and conforming methods) ------------ */

static int64_t check_stretch(const pattern_t *p, const void *buf, int64_t lo,
                             int64_t hi, int dump, int salt, int rank) {
  walk_t w = {p, (char *)buf, dump * p->dump_elems, salt, rank, 0, row_check};
  if (hi > lo)
    row_check(&w, lo, 0, hi - lo, 1, 1);
  return w.bad;
}

/* The share [lo, hi) of the current step's stretches laid end to end, held
 * densely in a buffer: fn(ctx, file byte, buffer byte, bytes) for each
 * piece of it that is contiguous in the file (offsets within a dump). */
int bench_pieces(const pattern_t *p, int64_t lo, int64_t hi, run_fn fn,
                 void *ctx) {
  int64_t at = 0, es = p->esize;
  int rc = 0;
  for (int i = 0; i < p->nstr && rc == 0 && at < hi; i++) {
    int64_t len = p->str_hi[i] - p->str_lo[i];
    int64_t a = lo > at ? lo : at, e = hi < at + len ? hi : at + len;
    if (a < e)
      rc = fn(ctx, (p->str_lo[i] + a - at) * es, (a - lo) * es, (e - a) * es);
    at += len;
  }
  return rc;
}

static int piece_row(void *ctx, int64_t foff, int64_t moff, int64_t len) {
  walk_t *w = ctx;
  int64_t es = w->p->esize;
  w->row(w, foff / es, moff / es, len / es, 1, 1);
  return 0;
}

void bench_fill_share(const pattern_t *p, void *buf, int64_t lo, int64_t hi,
                      int dump, int salt) {
  walk_t w = {p, buf, dump * p->dump_elems, salt, 0, 0, row_fill};
  bench_pieces(p, lo, hi, piece_row, &w);
}

int64_t bench_check_share(const pattern_t *p, const void *buf, int64_t lo,
                          int64_t hi, int dump, int salt, int rank) {
  walk_t w = {p, (char *)buf, dump * p->dump_elems, salt, rank, 0, row_check};
  bench_pieces(p, lo, hi, piece_row, &w);
  return w.bad;
}

/* ---- contiguous runs (level-0 methods) ---------------------------------- */

/* Runs are merged while they stay contiguous both in the file and in
 * memory, and handed out in pieces of at most 1 GiB (int counts). */
typedef struct runs {
  walk_t w; /* must be first */
  run_fn fn;
  void *ctx;
  int64_t f, m, len;
  int rc;
} runs_t;

static void emit(runs_t *r) {
  int64_t es = r->w.p->esize, max = (INT64_C(1) << 30) / es;
  for (int64_t at = 0; at < r->len && r->rc == 0; at += max) {
    int64_t n = r->len - at < max ? r->len - at : max;
    r->rc = r->fn(r->ctx, (r->f + at) * es, (r->m + at) * es, n * es);
  }
  r->len = 0;
}

static void add(runs_t *r, int64_t f, int64_t m, int64_t n) {
  if (r->len > 0 && r->f + r->len == f && r->m + r->len == m) {
    r->len += n;
    return;
  }
  if (r->len > 0)
    emit(r);
  r->f = f;
  r->m = m;
  r->len = n;
}

static void row_runs(walk_t *w, int64_t f, int64_t m, int64_t n, int64_t fs,
                     int64_t ms) {
  runs_t *r = (runs_t *)w;
  if (fs == 1 && ms == 1)
    add(r, f, m, n);
  else
    for (int64_t e = 0; e < n; e++)
      add(r, f + e * fs, m + e * ms, 1);
}

int bench_runs(const pattern_t *p, run_fn fn, void *ctx) {
  runs_t r = {{p, NULL, 0, 0, 0, 0, row_runs}, fn, ctx, 0, 0, 0, 0};
  walk(&r.w);
  if (r.len > 0)
    emit(&r);
  return r.rc;
}

/* ---- the file on disk ---------------------------------------------------- */

/* The file as written: a plain file, or a striped subfile set
 * (darray_backend=subfiles; doc/subfiles.md), read here by the layout's
 * closed form: logical stripe k is at (k div S) * unit of subfile k mod S,
 * the logical size in the descriptor's record. */
#define MAX_SUBFILES 1024
typedef struct ondisk {
  int fd;                  /* the plain file, or the descriptor */
  int64_t size;            /* logical bytes */
  int64_t unit, S;         /* S > 0: a subfile set */
  int sub[MAX_SUBFILES];
} ondisk_t;

static int ondisk_open(const char *path, ondisk_t *d) {
  struct stat st;
  char rec[97] = "";
  long long u, f, z;
  d->S = 0;
  d->size = -1;
  d->fd = open(path, O_RDONLY);
  if (d->fd < 0 || fstat(d->fd, &st) != 0)
    return -1;
  d->size = st.st_size;
  if (pread(d->fd, rec, 96, 0) != 96 ||
      sscanf(rec, "darrayio-subfiles 1\nunit %lld\nfactor %lld\nsize %lld",
             &u, &f, &z) != 3 || u < 1 || f < 1 || f > MAX_SUBFILES)
    return 0; /* a plain file */
  d->unit = u, d->S = f, d->size = z;
  for (int64_t j = 0; j < d->S; j++) {
    char name[4200];
    snprintf(name, sizeof name, "%s.sub%lldof%lld", path, (long long)j, f);
    if ((d->sub[j] = open(name, O_RDONLY)) < 0)
      return -1;
  }
  return 0;
}

static int ondisk_read(const ondisk_t *d, char *buf, int64_t len,
                       int64_t off) {
  if (d->S == 0)
    return bench_pread_all(d->fd, buf, len, off);
  while (len > 0) {
    int64_t k = off / d->unit, in = off % d->unit;
    int64_t n = d->unit - in < len ? d->unit - in : len;
    if (bench_pread_all(d->sub[k % d->S], buf, n,
                        (k / d->S) * d->unit + in) != 0)
      return -1;
    buf += n, off += n, len -= n;
  }
  return 0;
}

static void ondisk_close(ondisk_t *d) {
  for (int64_t j = 0; j < d->S; j++)
    if (d->sub[j] >= 0)
      close(d->sub[j]);
  if (d->fd >= 0)
    close(d->fd);
}

/* Each rank checks a contiguous share of the file, rank 0 its size.
 * Returns the number of wrong elements, summed over ranks. */
int64_t bench_check_file(const bench_t *b, const char *path, int64_t base,
                         int salt) {
  const pattern_t *p = &b->p;
  int64_t total = p->ndumps * p->dump_elems, bad = 0, chunk = 1 << 20;
  int64_t share = (total + b->nprocs - 1) / b->nprocs;
  int64_t lo = b->rank * share < total ? b->rank * share : total;
  int64_t hi = lo + share < total ? lo + share : total;
  char *buf = malloc((size_t)(chunk * p->esize));
  ondisk_t d = {.fd = -1, .size = -1};
  for (int j = 0; j < MAX_SUBFILES; j++)
    d.sub[j] = -1;
  if (ondisk_open(path, &d) != 0 || buf == NULL ||
      (b->rank == 0 && base == 0 && d.size != total * p->esize) ||
      d.size < base + total * p->esize) {
    fprintf(stderr, "darrayio-bench: %s: missing or %lld bytes long, "
            "expected %s%lld\n", path, d.fd < 0 ? -1LL : (long long)d.size,
            base ? "at least " : "", (long long)(base + total * p->esize));
    bad = 1;
  }
  for (int64_t at = lo; at < hi && bad == 0; at += chunk) {
    int64_t n = hi - at < chunk ? hi - at : chunk;
    if (ondisk_read(&d, buf, n * p->esize, base + at * p->esize) != 0)
      bad = 1;
    else
      bad = check_stretch(p, buf, at, at + n, 0, salt, b->rank);
  }
  ondisk_close(&d);
  free(buf);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return bad;
}
