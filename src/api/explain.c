/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * explain.c - say, in words a user can follow, how a call would move its
 * bytes: the pattern derived from the description, whether it conforms to
 * the storage order, the strategy chosen and why, and (for small 1-D and
 * 2-D cases) a picture of which process owns which part of the file.
 */
#include "agree.h"
#include "strategy.h"
#include "async/async.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dist_name(darray_dist_t d) {
  switch (d) {
  case DARRAY_DIST_NONE: return "*";
  case DARRAY_DIST_BLOCK: return "BLOCK";
  case DARRAY_DIST_CYCLIC: return "CYCLIC";
  default: return "MULTIPARTITION";
  }
}

static void describe_array(const struct darray_s *a, bool write, FILE *out) {
  char h[32];
  fprintf(out, "darrayio: %s of a %d-D array of %" PRId64 "-byte elements, ",
          write ? "write" : "read", a->d.ndims, a->d.esize);
  for (int d = 0; d < a->d.ndims; d++)
    fprintf(out, "%s%" PRId64, d ? " x " : "", a->d.gsizes[d]);
  int64_t total = a->d.fstride[a->d.perm[0]] * a->d.gsizes[a->d.perm[0]];
  fprintf(out, " (%s) at file offset %" PRId64 "\n",
          darray__human_bytes(total, h, sizeof h), a->d.disp);
  fprintf(out, "  distribution:");
  for (int d = 0; d < a->d.ndims; d++) {
    fprintf(out, "%s %s", d ? " x" : "", dist_name(a->d.dist[d]));
    if (a->d.dist[d] == DARRAY_DIST_BLOCK || a->d.dist[d] == DARRAY_DIST_CYCLIC)
      fprintf(out, "(%" PRId64 ")", a->d.block[d]);
  }
  fprintf(out, " over %d processes (grid", a->d.nprocs);
  for (int d = 0; d < a->d.ndims; d++)
    fprintf(out, "%s%d", d ? " x " : " ", a->d.psizes[d]);
  fprintf(out, ")\n  file storage order, slowest dimension first:");
  for (int d = 0; d < a->d.ndims; d++)
    fprintf(out, " %d", a->d.perm[d]);
  fprintf(out, "\n");
}

/* Per-process table, from the call's access summary. */
static int process_table(xfer_t *x, FILE *out) {
  const access_t *acc;
  char h1[32], h2[32];
  int rc = darray__xfer_access(x, &acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  fprintf(out, "  %5s %10s %12s %26s %12s  %s\n", "rank", "runs", "bytes",
          "file extent", "holes", "run length min/mean/max");
  for (int r = 0; r < acc->P; r++) {
    const access_rank_t *s = &acc->rank[r];
    int64_t holes = s->hi - s->lo - s->bytes;
    if (acc->P > 16 && r >= 8 && r < acc->P - 2) {
      if (r == 8)
        fprintf(out, "  %5s\n", "...");
      continue;
    }
    char ext[64];
    snprintf(ext, sizeof ext, "[%" PRId64 ", %" PRId64 ")", s->lo, s->hi);
    fprintf(out, "  %5d %10" PRId64 " %12s %26s %12s  %" PRId64 "/%" PRId64
                 "/%" PRId64 " B\n",
            r, s->nruns, darray__human_bytes(s->bytes, h1, sizeof h1),
            s->nruns ? ext : "(nothing)",
            darray__human_bytes(holes, h2, sizeof h2),
            s->min_run, s->nruns ? s->bytes / s->nruns : 0, s->max_run);
  }
  return DARRAY_SUCCESS;
}

/* Owner of the element at a given file position (whole-array calls). */
static char owner_char(const struct darray_s *a, const int64_t *idx) {
  int r = 0, cell;
  darray_locate((darray_t)a, idx, &r, &cell, NULL, NULL);
  return (char)(r < 10 ? '0' + r : r < 36 ? 'a' + r - 10 : '+');
}

/* Sample k of m over n indices: floor(k * n / m) without forming k * n,
 * which passes INT64_MAX for extents near it. */
static int64_t sample_index(int64_t k, int64_t n, int64_t m) {
  return k * (n / m) + k * (n % m) / m;
}

/* A picture of the file for 1-D and 2-D arrays: one character per sampled
 * element, rows = the slower storage dimension. */
static void ownership_map(const struct darray_s *a, FILE *out) {
  if (a->d.ndims > 2 || a->d.nprocs > 36) {
    fprintf(out, "  (ownership map drawn for 1-D and 2-D arrays of at most "
                 "36 processes)\n");
    return;
  }
  int slow = a->d.perm[0], fast = a->d.perm[a->d.ndims - 1];
  int64_t nrow = a->d.ndims == 2 ? a->d.gsizes[slow] : 1;
  int64_t ncol = a->d.gsizes[fast];
  int64_t rows = nrow < 16 ? nrow : 16, cols = ncol < 64 ? ncol : 64;
  fprintf(out, "  ownership map of the file (%s): %" PRId64 " of %" PRId64
               " rows, %" PRId64 " of %" PRId64 " columns, character = rank\n",
          a->d.ndims == 2 ? "row = slower storage dimension" : "1-D", rows,
          nrow, cols, ncol);
  for (int64_t i = 0; i < rows; i++) {
    char line[80];
    for (int64_t j = 0; j < cols; j++) {
      int64_t idx[2];
      idx[a->d.ndims == 2 ? slow : 0] =
          a->d.ndims == 2 ? sample_index(i, nrow, rows) : 0;
      idx[fast] = sample_index(j, ncol, cols);
      line[j] = owner_char(a, idx);
    }
    line[cols] = '\0';
    fprintf(out, "    %s\n", line);
  }
}

/* What a write does about other writers of the file (io_lock.c). */
static void concurrency(const struct darray_file_s *f, FILE *out) {
  if (!(f->mode & DARRAY_MODE_RDWR))
    return; /* a read-only handle writes nothing */
  char m[16]; /* the hint's own name for the mode (hints.c) */
  darray__hints_get(&f->hints, "darray_concurrent_writers", m, sizeof m);
  if (f->io.locks)
    fprintf(out, "  concurrent writers: %s: writes hold shared byte-range "
                 "locks, a read-modify-write an exclusive one\n", m);
  else if (f->io.rmw)
    fprintf(out, "  concurrent writers: %s: no locks; windows and chunks "
                 "with holes may be read, filled and written back\n", m);
  else
    fprintf(out, "  concurrent writers: %s%s: no locks; only the asked-for "
                 "bytes are written (no read-modify-write)\n", m,
            f->hints.concurrency == DARRAY_CONC_LOCKED
                ? " (this file cannot be locked)"
                : "");
}

/* The planner's parameters, so that a surprising choice can be checked by
 * hand and the hints that would change it are named. */
static void cost_model(const struct darray_file_s *f, FILE *out) {
  const darray_hints_t *h = &f->hints;
  char cb[32], rd[32];
  darray__human_bytes(h->cb_buffer_size, cb, sizeof cb);
  darray__human_bytes(h->ind_rd_buffer_size, rd, sizeof rd);
  fprintf(out,
          "  cost model: a file call costs %" PRId64 " ns (reads) or %" PRId64
          " ns (writes) plus its bytes at %" PRId64 " MB/s; two-phase "
          "exchanges at %" PRId64 " MB/s and one cycle costs %" PRId64
          " ns%s; chunks of %s (cb_buffer_size), sieve windows of up to %s "
          "(ind_rd_buffer_size)\n",
          h->ds_rd_latency_ns, h->ds_wr_latency_ns, h->ds_bandwidth_mbs,
          h->cb_exchange_mbs, h->cb_cycle_ns,
          !f->cycle_at_open ? " (darray_cb_cycle_ns given)"
          : h->cb_cycle_ns == DARRAY_CYCLE_SHARED_NS
              ? " (set at open: a node runs more processes than it has cores)"
              : " (set at open: a core per process)",
          cb, rd);
}

/* What a nonblocking call would do (src/async): where it runs, and below
 * MPI_THREAD_MULTIPLE the strategy the planner picks for it. */
static int nonblocking(darray_file_t f, const struct darray_s *a, bool write,
                       FILE *out) {
  fprintf(out, "  nonblocking requests: %s\n", darray__async_text(f));
  if (darray__async_mode(f) != DARRAY_ASYNC_FILES)
    return DARRAY_SUCCESS;
  xfer_t x = {.f = f, .a = a, .write = write, .sec = a->sec,
              .nsec = a->nsec, .background = true};
  darray__io_call_init(&x.io, &f->io, &x.stats);
  plan_t p;
  int rc = darray__plan_explain(&x, &p);
  darray__xfer_access_free(&x);
  if (rc == DARRAY_SUCCESS)
    fprintf(out, "  a nonblocking %s: strategy %s, %s\n",
            write ? "write" : "read", p.s->name,
            !p.s->collective && f->io.ops->local
                ? "in the background"
                : "when posted (it calls MPI)");
  return rc;
}

/* What darray_explain refuses, out aside (the same as the calls it
 * describes). */
static int explain_check(darray_file_t f, darray_t a) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS)
    rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (!a->committed)
    return darray__err(f->errmsg, DARRAY_ESTATE,
                       "a: the array is not committed");
  if (darray__array_real(a, f->errmsg) != DARRAY_SUCCESS)
    return DARRAY_ECOMM;
  int64_t end, bytes = a->d.fstride[a->d.perm[0]] * a->d.gsizes[a->d.perm[0]];
  if (!darray__add_ok(a->d.disp, bytes, &end)) /* as darray_write refuses */
    return darray__err(f->errmsg, DARRAY_ESIZE,
                       "displacement + array bytes overflows 64 bits");
  return DARRAY_SUCCESS;
}

/* The facts of call x that darray_explain puts in words: its access
 * summary's verdicts and the planner's answer. */
static int facts(xfer_t *x, explain_facts_t *e) {
  const access_t *acc;
  int rc = darray__xfer_access(x, &acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  e->conforming = true;
  for (int r = 0; r < acc->P; r++)
    e->conforming &= acc->rank[r].conforms;
  e->interleaved = acc->interleaved;
  return darray__plan_explain(x, &e->plan);
}

int darray__explain_facts(darray_file_t f, darray_t a, int write,
                          explain_facts_t *e) {
  memset(e, 0, sizeof *e);
  int rc = explain_check(f, a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  xfer_t x = {.f = f, .a = a, .write = write != 0, .sec = a->sec,
              .nsec = a->nsec};
  darray__io_call_init(&x.io, &f->io, &x.stats);
  rc = facts(&x, e);
  darray__xfer_access_free(&x);
  if (rc != DARRAY_SUCCESS)
    return darray__err(f->errmsg, rc, "out of memory");
  return DARRAY_SUCCESS;
}

int darray_explain(darray_file_t f, darray_t a, int write, FILE *out) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS)
    rc = darray__array_check(a);
  if (rc == DARRAY_SUCCESS && out == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "out is NULL");
  if (rc == DARRAY_SUCCESS)
    rc = explain_check(f, a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  xfer_t x = {.f = f, .a = a, .write = write != 0, .sec = a->sec,
              .nsec = a->nsec};
  darray__io_call_init(&x.io, &f->io, &x.stats);
  describe_array(a, x.write, out);
  explain_facts_t e;
  rc = facts(&x, &e);
  if (rc == DARRAY_SUCCESS)
    rc = process_table(&x, out);
  /* each strategy's own line, in the table's order */
  char lines[DARRAY_MAX_STRATEGIES][700];
  for (int k = 0; darray__strategies[k] != NULL; k++) {
    lines[k][0] = '\0';
    if (rc == DARRAY_SUCCESS && darray__strategies[k]->explain != NULL)
      rc = darray__strategies[k]->explain(&x, lines[k], sizeof lines[k]);
  }
  darray__xfer_access_free(&x);
  if (rc != DARRAY_SUCCESS)
    return darray__err(f->errmsg, rc, "out of memory");
  fprintf(out, "  conforms to the storage order: %s\n",
          e.conforming ? "yes (each process's data is one stretch per cell)"
                       : "no (some process's data is split into many runs)");
  char est[DARRAY_ESTIMATES_LEN];
  fprintf(out, "  estimates: %s\n",
          darray__plan_estimates(&e.plan, est, sizeof est));
  fprintf(out, "  strategy: %s, because %s\n", e.plan.s->name, e.plan.why);
  for (int k = 0; darray__strategies[k] != NULL; k++)
    if (lines[k][0] != '\0')
      fprintf(out, "  %s\n", lines[k]);
  char be[160];
  snprintf(be, sizeof be, "%s", f->io.ops->name);
  if (f->io.ops->describe != NULL)
    f->io.ops->describe(&f->io, be, sizeof be);
  fprintf(out, "  back end: %s\n", be);
  int64_t missed = 0, dcalls = darray__io_direct_calls(&f->io, &missed);
  if (x.write && f->io.direct_on)
    fprintf(out, "  direct writes (darray_direct_write): on: writes of whole "
                 "pages from page-aligned memory go around the page cache "
                 "(O_DIRECT; %" PRId64 " so far on this process, %" PRId64
                 " others through it); two-phase domains and chunks on "
                 "whole pages\n", dcalls, missed);
  else if (x.write && f->hints.direct_write == 1 && f->io.direct_why != NULL)
    fprintf(out, "  direct writes (darray_direct_write): off: %s\n",
            f->io.direct_why);
  else if (x.write && f->hints.direct_write == 1) /* not io_ops_t.own_fd */
    fprintf(out, "  direct writes (darray_direct_write): off: the back end "
                 "is %s\n", f->io.ops->name);
  rc = nonblocking(f, a, x.write, out);
  if (rc != DARRAY_SUCCESS)
    return darray__err(f->errmsg, rc, "out of memory");
  if (x.write)
    concurrency(f, out);
  cost_model(f, out);
  ownership_map(a, out);
  return DARRAY_SUCCESS;
}
