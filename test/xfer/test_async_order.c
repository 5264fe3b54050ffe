/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_order.c - requests posted on two files in different orders
 * on different processes (issue 39, item 2).
 *
 * Two files, A and B, each with its own array (A: 64 x 48 int64, BLOCK
 * rows; B: 40 x 72 int32, CYCLIC(5) columns, so that the strategies
 * differ). Even ranks post a write of A, then of B; odd ranks B, then A;
 * each then waits for its requests in the order it posted them. Then the
 * same with reads into buffers filled with 0xEE. The oracle: element e (in
 * storage order) of each file is tu_value(seed, e); rank 0 reads both
 * files with stdio after the writes, every rank compares its read buffers
 * with the values of its own elements.
 *
 * The order is free where posting waits for no other process:
 * darray_async = thread (MPI_THREAD_MULTIPLE), with requests started when
 * posted, and also when started at the wait (darray_async_start = wait),
 * where the waits, which then run the requests, are made in one order (A,
 * then B) on every process; and darray_async = files (what
 * MPI_THREAD_FUNNELED/SERIALIZED give), whose begins agree in nonblocking
 * collectives, progressed by later calls: there the waits are made in one
 * order (a transfer that calls MPI, here two-phase forced or the mpiio
 * back end, runs in its file's wait), by darray_wait and by darray_wait_all
 * (each file's request with a darray_file_isync behind it), and with
 * section requests (each process its rows), whose begins run in the
 * waits. Under
 * darray_async = none (MPI_THREAD_SINGLE) a request runs when posted:
 * the documented rule (include/darrayio.h, doc/reliability.md) is that
 * every process posts in the same order there, and the test runs it so.
 * Before issue 39 the first post on each file agreed in a collective even
 * under thread, and every post under files did: the crossed posts hung
 * there. A hang fails the test (tu_hang_limit), well before the
 * launcher's limit.
 * Run: mpiexec -n 2 ./test_async_order  (any P >= 2; DARRAY_TEST_THREAD =
 * funneled or serialized: MPI below MPI_THREAD_MULTIPLE, as async_levels.sh
 * runs it)
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANG_S 90

static int P, me;

typedef struct one {
  darray_t a;
  darray_file_t f;
  char path[512];
  uint64_t seed;
  int64_t n, es;
  char *buf, *back;
  /* a section request: my rows [lo, hi) of the array, all columns, in C
   * order: their bytes in the reference file, and a buffer to read */
  int64_t start[2], count[2];
  char *sbuf, *sback;
  size_t sbytes;
} one_t;

static void make(one_t *o, int which) {
  int64_t g[2][2] = {{64, 48}, {40, 72}}, k[2] = {DARRAY_DEFAULT_ARG, 5};
  darray_dist_t d[2][2] = {{DARRAY_DIST_BLOCK, DARRAY_DIST_NONE},
                           {DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC}};
  o->seed = 0x0de7 + (uint64_t)which;
  o->es = which == 0 ? 8 : 4;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g[which],
                      which == 0 ? DARRAY_INT64 : DARRAY_INT32, &o->a));
  TU_OK(darray_set_distribution(o->a, d[which], which == 0 ? NULL : k));
  TU_OK(darray_commit(o->a));
  TU_OK(darray_local_count(o->a, &o->n));
  char stem[32];
  snprintf(stem, sizeof stem, "test_async_order_%c", 'A' + which);
  tu_tmpname(o->path, sizeof o->path, stem);
  size_t bytes = (size_t)(o->n * o->es > 0 ? o->n * o->es : 1);
  o->buf = malloc(bytes);
  o->back = malloc(bytes);
  /* my elements' values: the reference file's bytes of each */
  int64_t gs[2];
  int nd;
  TU_OK(darray_global_shape(o->a, &nd, gs));
  int64_t i = 0, idx[2];
  for (idx[0] = 0; idx[0] < gs[0]; idx[0]++)
    for (idx[1] = 0; idx[1] < gs[1]; idx[1]++) {
      int rank = -1;
      TU_OK(darray_locate(o->a, idx, &rank, NULL, NULL, NULL));
      if (rank == me && i < o->n) /* row-major order is my local order */
        tu_fill_bytes(o->buf + i++ * o->es, o->es, o->seed,
                      (idx[0] * gs[1] + idx[1]) * o->es);
    }
  TU_EQ_I64(i, o->n);
  int64_t lo = gs[0] * me / P, hi = gs[0] * (me + 1) / P;
  o->start[0] = lo;
  o->start[1] = 0;
  o->count[0] = hi - lo;
  o->count[1] = gs[1];
  o->sbytes = (size_t)((hi - lo) * gs[1] * o->es);
  o->sbuf = malloc(o->sbytes + 1);
  o->sback = malloc(o->sbytes + 1);
  tu_fill_bytes(o->sbuf, (int64_t)o->sbytes, o->seed, lo * gs[1] * o->es);
}

/* Post, on the file of each entry of order[], then wait in wait_order;
 * all: each file's request with a sync behind it, both completed by
 * darray_wait_all; sec: section requests (my rows) instead of the whole
 * array. */
static bool sec;

static void run(one_t *o, const int *post_order, const int *wait_order,
                bool write, bool all, const char *what) {
  darray_request_t req[2][2] = {{DARRAY_REQUEST_NULL, DARRAY_REQUEST_NULL},
                                {DARRAY_REQUEST_NULL, DARRAY_REQUEST_NULL}};
  for (int i = 0; i < 2; i++) {
    int w = post_order[i];
    one_t *x = &o[w];
    int rc;
    if (sec)
      rc = write ? darray_iwrite_section(x->f, x->a, x->start, x->count,
                                         DARRAY_ORDER_C, x->sbuf, &req[w][0])
                 : darray_iread_section(x->f, x->a, x->start, x->count,
                                        DARRAY_ORDER_C, x->sback,
                                        &req[w][0]);
    else
      rc = write ? darray_iwrite(x->f, x->a, x->buf, &req[w][0])
                 : darray_iread(x->f, x->a, x->back, &req[w][0]);
    if (rc == DARRAY_SUCCESS && all)
      rc = darray_file_isync(x->f, &req[w][1]);
    if (!TU_OK(rc))
      TU_FAIL("  (%s: post on file %c)", what, 'A' + w);
  }
  for (int i = 0; i < 2; i++) {
    int w = wait_order[i];
    one_t *x = &o[w];
    int codes[2] = {-1, -1};
    int rc = all ? darray_wait_all(x->f, 2, req[w], codes)
                 : darray_wait(x->f, &req[w][0]);
    if (!TU_OK(rc) || (all && !TU_EQ_INT(codes[0] | codes[1], 0)))
      TU_FAIL("  (%s: wait on file %c: %s)", what, 'A' + w,
              darray_file_errmsg(x->f));
  }
}

static void check(one_t *o, const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int w = 0; w < 2; w++) {
    if (me == 0) {
      int64_t size = 0, gs[2];
      int nd;
      TU_OK(darray_global_shape(o[w].a, &nd, gs));
      unsigned char *got = tu_read_file(o[w].path, &size);
      int64_t want = gs[0] * gs[1] * o[w].es, bad = 0;
      unsigned char *ref = malloc((size_t)want);
      tu_fill_bytes(ref, want, o[w].seed, 0);
      if (TU_EQ_I64(size, want))
        for (int64_t b = 0; b < want; b++)
          bad += got[b] != ref[b];
      if (!TU_EQ_I64(bad, 0))
        TU_FAIL("  (%s: file %c)", what, 'A' + w);
      free(ref);
      free(got);
    }
    if (!TU_EQ_INT(sec ? memcmp(o[w].sback, o[w].sbuf, o[w].sbytes)
                       : memcmp(o[w].back, o[w].buf,
                                (size_t)(o[w].n * o[w].es)),
                   0))
      TU_FAIL("  (%s: read of file %c)", what, 'A' + w);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void one_mode(one_t *o, const char *hints, bool crossed,
                     bool crossed_waits, bool all) {
  char what[200];
  snprintf(what, sizeof what, "%s, %sposts %s, %s %s", hints,
           sec ? "section " : "", crossed ? "crossed" : "in one order",
           all ? "wait_all" : "waits",
           crossed_waits ? "crossed" : "in one order");
  if (me == 0)
    printf("test_async_order: P=%d %s\n", P, what);
  static const int ab[2] = {0, 1}, ba[2] = {1, 0};
  const int *post = crossed && me % 2 ? ba : ab;
  const int *wait = crossed_waits && me % 2 ? ba : ab;
  for (int w = 0; w < 2; w++) {
    o[w].f = tu_open(o[w].path, hints, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                            DARRAY_MODE_TRUNC);
    memset(o[w].back, 0xEE, (size_t)(o[w].n * o[w].es > 0 ? o[w].n * o[w].es
                                                           : 1));
    memset(o[w].sback, 0xEE, o[w].sbytes);
  }
  if (o[0].f != NULL && o[1].f != NULL) {
    run(o, post, wait, true, all, what);
    run(o, post, wait, false, all, what);
  }
  for (int w = 0; w < 2; w++)
    if (o[w].f != NULL)
      TU_OK(darray_file_close(&o[w].f));
  check(o, what);
}

int main(int argc, char **argv) {
  /* the level DARRAY_TEST_THREAD names (async_levels.sh): multiple, the
   * default; funneled or serialized, where the library progresses every
   * file's begins at each call on any of them */
  const char *lv = getenv("DARRAY_TEST_THREAD");
  int want = MPI_THREAD_MULTIPLE;
  if (lv != NULL && strcmp(lv, "serialized") == 0)
    want = MPI_THREAD_SERIALIZED;
  else if (lv != NULL && strcmp(lv, "funneled") == 0)
    want = MPI_THREAD_FUNNELED;
  int provided = tu_init_thread(&argc, &argv, want);
  tu_hang_limit(HANG_S);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (P < 2)
    return tu_skip("posts in different orders need two processes");
  one_t o[2];
  memset(o, 0, sizeof o);
  make(&o[0], 0);
  make(&o[1], 1);
  if (provided >= MPI_THREAD_MULTIPLE) {
    one_mode(o, "darray_async=thread", true, true, false);
    one_mode(o, "darray_async=thread;darray_async_start=wait", true, false,
             false);
  } else {
    tu_skip_part("crossed posts under thread",
                 "MPI_THREAD_MULTIPLE not provided");
  }
  /* below MPI_THREAD_MULTIPLE: posts in any order, waits in one; the
   * strategies the planner picks in the background (direct, sieve), and
   * transfers that call MPI, which run in the waits */
  static const char *const files[] = {
      "darray_async=files",
      "darray_async=files;darray_strategy=sieve",
      "darray_async=files;darray_strategy=twophase;cb_buffer_size=512",
      "darray_async=files;darray_backend=mpiio;darray_strategy=direct"};
  for (int k = 0; k < 4; k++) {
    one_mode(o, files[k], true, false, false);
    one_mode(o, files[k], true, false, true);
  }
  sec = true; /* section begins gather the boxes: they run in the waits */
  one_mode(o, "darray_async=files", true, false, false);
  one_mode(o, "darray_async=files;darray_strategy=twophase", true, false,
           true);
  sec = false;
  one_mode(o, "darray_async=files", false, false, false);
  /* none runs each request when posted: one order */
  one_mode(o, "darray_async=none", false, false, false);
  for (int w = 0; w < 2; w++) {
    tu_remove(o[w].path);
    free(o[w].buf);
    free(o[w].back);
    free(o[w].sbuf);
    free(o[w].sback);
    darray_free(&o[w].a);
  }
  return tu_finish();
}
