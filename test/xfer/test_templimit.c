/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_templimit.c - darray_temp_limit holds (doc/reliability.md,
 * section 2): every read and write either stays within it
 * (stats.peak_temp_bytes) and moves the right bytes, or is refused with
 * DARRAY_ELIMIT on every rank before any byte moves, with a message that
 * names darray_temp_limit and the size needed. Never more, silently.
 *
 * At a 1 KiB limit, with every strategy (forced, and the planner's) and
 * both directions:
 *  - 1,000,003-byte elements, contiguous in memory: direct and sieve move
 *    pieces of elements straight between the file and the buffer and use
 *    no more than the limit; two-phase, whose buffers hold whole elements,
 *    refuses; the planner's choice falls back to direct when it refuses;
 *  - the same elements strided in memory (Fortran-order buffers of a
 *    C-order file), on every rank or on rank 1 only: every strategy copies
 *    whole elements through a buffer, so every one refuses, everywhere;
 *  - 600-byte elements: two-phase needs two of them and refuses, whether
 *    forced by darray_strategy or by romio_cb_*; when the planner chose it
 *    (with free cycles, darray_cb_cycle_ns=0, it does at P > 1) direct
 *    runs take over and the call succeeds;
 *  - 400-byte and 8-byte elements: everything fits; the automatic
 *    two-phase pipeline gives up its second buffer to fit, a forced one
 *    makes writes refuse.
 * The oracle: byte o of the file is the low byte of tu_value(seed, o), and
 * the buffer's layout is computed here from the distribution by hand.
 * Run: mpiexec -n 1..3 ./test_templimit
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 1024
#define BIG INT64_C(1000003)
#define SENTINEL 0x5a

enum { CONTIG, STRIDED, STRIDED_ON_1 };

typedef struct tcase {
  int64_t esize;
  int layout;
  const char *hints; /* besides darray_temp_limit=1k */
  int expect_write, expect_read;
  const char *used; /* the strategy that must have run, or NULL */
} tcase_t;

#define OK DARRAY_SUCCESS
#define NO DARRAY_ELIMIT

static const tcase_t cases[] = {
    {BIG, CONTIG, "darray_strategy=direct", OK, OK, NULL},
    {BIG, CONTIG, "darray_strategy=sieve", OK, OK, NULL},
    {BIG, CONTIG, "darray_strategy=twophase", NO, NO, NULL},
    {BIG, CONTIG, "darray_strategy=auto;darray_map=disable", OK, OK,
     "direct"},
    {BIG, CONTIG, "darray_strategy=auto", OK, OK, NULL},
    {BIG, CONTIG, "darray_strategy=direct;darray_backend=mpiio", OK, OK, NULL},
    {BIG, STRIDED, "darray_strategy=direct", NO, NO, NULL},
    {BIG, STRIDED, "darray_strategy=sieve", NO, NO, NULL},
    {BIG, STRIDED, "darray_strategy=twophase", NO, NO, NULL},
    {BIG, STRIDED, "darray_strategy=auto", NO, NO, NULL},
    {BIG, STRIDED_ON_1, "darray_strategy=direct", NO, NO, NULL},
    {BIG, STRIDED_ON_1, "darray_strategy=auto", NO, NO, NULL},
    /* 600-byte elements: two-phase needs two, 1200 bytes; with free
     * cycles the planner prefers it at P > 1 (the file's pages mapped left
     * out), and then direct takes over */
    {600, CONTIG, "darray_strategy=twophase;darray_cb_cycle_ns=0", NO, NO,
     NULL},
    {600, CONTIG, "darray_cb_cycle_ns=0;darray_map=disable", OK, OK,
     "direct"},
    /* the file's pages mapped need no buffer at all */
    {600, CONTIG, "darray_cb_cycle_ns=0;darray_strategy=mapped", OK, OK,
     "mapped"},
    {600, CONTIG, "romio_cb_write=enable;romio_cb_read=enable", NO, NO, NULL},
    {400, CONTIG, "darray_strategy=direct", OK, OK, NULL},
    {400, CONTIG, "darray_strategy=sieve", OK, OK, NULL},
    {400, CONTIG, "darray_strategy=twophase", OK, OK, NULL},
    {400, CONTIG, "darray_strategy=twophase;darray_cb_pipeline=enable", NO,
     OK, NULL},
    {400, CONTIG, "darray_strategy=auto", OK, OK, NULL},
    {400, STRIDED, "darray_strategy=direct", OK, OK, NULL},
    {400, STRIDED, "darray_strategy=sieve", OK, OK, NULL},
    {400, STRIDED, "darray_strategy=twophase", OK, OK, NULL},
    {8, CONTIG, "darray_strategy=twophase", OK, OK, NULL},
    {8, CONTIG, "darray_strategy=sieve", OK, OK, NULL},
    {8, STRIDED, "darray_strategy=auto", OK, OK, NULL},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int P, me;

/*
 * The arrays. CONTIG: 1-D, n = 2P (BIG) or 6P elements, CYCLIC(1), so that
 * the processes' extents interleave (at P > 1) and each element is a run.
 * STRIDED: 2-D 2P x 2, BLOCK rows, a C-order file and a Fortran-order
 * buffer: each rank's two rows are runs of two elements, strided in its
 * memory. For each local element k (in buffer order) its global element
 * index in file order.
 */
static int64_t nelems(const tcase_t *c) {
  if (c->layout != CONTIG)
    return 4 * (int64_t)P;
  return (c->esize == BIG ? 2 : 6) * (int64_t)P;
}

static int64_t local_count(const tcase_t *c) { return nelems(c) / P; }

static bool fortran_here(const tcase_t *c) {
  return c->layout == STRIDED || (c->layout == STRIDED_ON_1 && me == 1);
}

static int64_t global_of(const tcase_t *c, int64_t k) {
  if (c->layout == CONTIG)
    return me + k * P;
  int64_t li = fortran_here(c) ? k % 2 : k / 2, j = fortran_here(c) ? k / 2
                                                                    : k % 2;
  return (2 * me + li) * 2 + j;
}

static darray_t make_array(const tcase_t *c) {
  darray_t a = NULL;
  int nd = c->layout == CONTIG ? 1 : 2;
  int64_t g[2] = {c->layout == CONTIG ? nelems(c) : 2 * P, 2};
  darray_dist_t d1[1] = {DARRAY_DIST_CYCLIC};
  darray_dist_t d2[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  if (!TU_OK(darray_create(MPI_COMM_WORLD, nd, g, DARRAY_OPAQUE, &a)))
    return NULL;
  TU_OK(darray_set_elem_size(a, c->esize));
  TU_OK(darray_set_distribution(a, nd == 1 ? d1 : d2, NULL));
  if (fortran_here(c))
    TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_FORTRAN, NULL, NULL));
  if (!TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* This rank's buffer as the file image of seed holds it. */
static void local_image(const tcase_t *c, uint64_t seed, unsigned char *buf) {
  for (int64_t k = 0; k < local_count(c); k++)
    tu_fill_bytes(buf + k * c->esize, c->esize, seed,
                  global_of(c, k) * c->esize);
}

/* Rank 0 writes the whole file image of seed. */
static void prefill(const char *path, int64_t bytes, uint64_t seed) {
  if (me == 0) {
    unsigned char *img = malloc((size_t)bytes);
    tu_fill_bytes(img, bytes, seed, 0);
    TU_EQ_INT(tu_write_file(path, img, bytes), 0);
    free(img);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0: the file holds the image of seed. */
static void check_file(const char *path, int64_t bytes, uint64_t seed,
                       const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    int64_t size = -1;
    unsigned char *got = tu_read_file(path, &size);
    unsigned char *img = malloc((size_t)bytes);
    tu_fill_bytes(img, bytes, seed, 0);
    if (TU_EQ_I64(size, bytes))
      tu_compare_bytes(got, img, bytes, what);
    free(img);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The code, the message and the counters of one call. */
static void check_call(const tcase_t *c, darray_file_t f, int rc, int expect,
                       const char *what) {
  char msg[512]; /* before get_stats, which clears it */
  snprintf(msg, sizeof msg, "%s", darray_file_errmsg(f));
  if (!TU_EQ_CODE(rc, expect))
    fprintf(stderr, "  %s: %s\n", what, msg);
  darray_stats_t st;
  TU_OK(darray_file_get_stats(f, &st));
  if (!TU_CHECK(st.peak_temp_bytes <= LIMIT))
    fprintf(stderr, "  %s: peak %lld bytes > the limit, strategy %s\n", what,
            (long long)st.peak_temp_bytes, st.strategy);
  if (expect == DARRAY_SUCCESS && c->used != NULL)
    TU_EQ_STR(st.strategy, c->used);
  if (expect == DARRAY_SUCCESS)
    return;
  /* refused: nothing moved here, and the refusing rank says why */
  TU_EQ_I64(st.bytes_read + st.bytes_written, 0);
  TU_EQ_I64(st.read_calls + st.write_calls, 0);
  int refused = strstr(msg, "failed on rank") == NULL, any = 0;
  MPI_Allreduce(&refused, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  TU_CHECK(any);
  if (refused) {
    char need[32];
    snprintf(need, sizeof need, "%lld", (long long)c->esize);
    TU_CONTAINS(msg, "darray_temp_limit = 1024");
    TU_CONTAINS(msg, need); /* the size needed: whole elements */
  }
}

/* Write the image of seed `new` over the image of `old`, then read the
 * file back, whichever image it then holds. */
static void write_then_read(const tcase_t *c, darray_file_t f, darray_t a,
                            const char *path, uint64_t old, uint64_t new,
                            const char *what) {
  int64_t bytes = nelems(c) * c->esize, lb = local_count(c) * c->esize;
  unsigned char *buf = malloc((size_t)lb), *want = malloc((size_t)lb);
  local_image(c, new, buf);
  int rc = darray_write(f, a, buf);
  check_call(c, f, rc, c->expect_write, what);
  uint64_t held = rc == DARRAY_SUCCESS ? new : old;
  check_file(path, bytes, held, what);

  darray_file_reset_stats(f);
  memset(buf, SENTINEL, (size_t)lb);
  rc = darray_read(f, a, buf);
  check_call(c, f, rc, c->expect_read, what);
  if (rc == DARRAY_SUCCESS)
    local_image(c, held, want);
  else
    memset(want, SENTINEL, (size_t)lb); /* untouched */
  if (tu_compare_bytes(buf, want, lb, what) != 0)
    fprintf(stderr, "  (rank %d, after the read)\n", me);
  free(buf);
  free(want);
}

static void run_case(const tcase_t *c, const char *path, int i) {
  char hints[160], what[200];
  snprintf(hints, sizeof hints, "darray_temp_limit=1k;%s", c->hints);
  snprintf(what, sizeof what, "case %d (%lld-byte elements, %s, %s)", i,
           (long long)c->esize,
           c->layout == CONTIG    ? "contiguous"
           : c->layout == STRIDED ? "strided"
                                  : "strided on rank 1",
           c->hints);
  uint64_t old = 100 + (uint64_t)i, new = 200 + (uint64_t)i;
  prefill(path, nelems(c) * c->esize, old);
  darray_t a = make_array(c);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  if (a != NULL && TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                                          DARRAY_MODE_RDWR, info, &f)))
    write_then_read(c, f, a, path, old, new, what);
  darray_file_close(&f);
  MPI_Info_free(&info);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  unsetenv("DARRAYIO_HINTS");
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_templimit") == NULL)
    return tu_finish();
  for (int i = 0; i < NCASES; i++) {
    if (cases[i].layout == STRIDED_ON_1 && P < 2) {
      tu_skip_part("strided on rank 1", "there is no rank 1");
      continue;
    }
    run_case(&cases[i], path, i);
  }
  tu_remove(path);
  return tu_finish();
}
