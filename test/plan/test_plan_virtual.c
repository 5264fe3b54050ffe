/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_plan_virtual.c - a call planned on paper equals the real call
 * (run at 1-4 processes):
 *  (a) for several descriptions (3-D BLOCK over grids that split the
 *      fastest or the slowest dimension, 2-D CYCLIC x BLOCK with an
 *      uneven last block, MULTIPARTITION at square process counts), for
 *      writes and reads, with each strategy forced and with small buffers
 *      (many cycles, pipelined writes, sieve windows, layout-aware
 *      domains on 3 servers, on a plain file and on a set of 3 subfiles,
 *      whose back end moves a chunk's parts with one call; rows forced
 *      where it has no grouping is refused by the real call and has none
 *      on paper; static segmentation in groups of one, and of every
 *      process under cb_nodes=1; writer groups of two ranks; the file's
 *      pages mapped, in one window and in windows of a page, with
 *      darray_map=enable taking the processes to share one node on
 *      paper, as they do here), the numbers
 *      darray_plan_virtual computes for a virtual array of P processes
 *      equal the counters of
 *      the real call at P processes, summed and maximized over the
 *      processes by darray_file_stats_summary: bytes moved to or from the
 *      file (most on one process), file calls (all, most), data bytes
 *      sent to other processes (all, most), cycles; and the strategy
 *      the planner marks chosen, with no strategy forced, is the one the
 *      real call uses (the cost model's constants given as hints to both,
 *      so neither measures anything);
 *  (b) errors: a virtual array refused by darray_write and darray_explain
 *      (DARRAY_ECOMM), a real array refused by darray_plan_virtual
 *      (DARRAY_ECOMM), an uncommitted one (DARRAY_ESTATE), too few rows
 *      (DARRAY_EINVAL), a bad hint (DARRAY_EHINT), nprocs out of range
 *      (DARRAY_EGRID), NULL outputs (DARRAY_ENULL).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int P, me;

/* The cost model's constants, given so that the real open measures
 * nothing the paper plan cannot know. */
#define MODEL "darray_cb_cycle_ns=20000;darray_ds_wr_latency_ns=10000;"     \
              "darray_ds_rd_latency_ns=5000;darray_ds_bandwidth_mbs=2000;" \
              "darray_cb_exchange_mbs=3000;darray_map=enable"

typedef struct desc {
  const char *name;
  int nd;
  int64_t g[3];
  darray_dist_t dist[3];
  int64_t dargs[3];
  int grid[3]; /* 0: chosen; a value -1 stands for P */
  darray_order_t order;
  bool square; /* MULTIPARTITION: P must be a square */
} desc_t;

static const desc_t descs[] = {
    {"block 1x1xP", 3, {12, 10, 36},
     {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK},
     {0, 0, 0}, {1, 1, -1}, DARRAY_ORDER_C, false},
    {"block Px1x1 fortran", 3, {12, 10, 9},
     {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK},
     {0, 0, 0}, {-1, 1, 1}, DARRAY_ORDER_FORTRAN, false},
    {"cyclic(3) x block", 2, {37, 29, 0},
     {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK, DARRAY_DIST_NONE},
     {3, DARRAY_DEFAULT_ARG, 0}, {0, 0, 0}, DARRAY_ORDER_C, false},
    {"multipartition", 3, {11, 13, 12},
     {DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_MULTIPARTITION,
      DARRAY_DIST_MULTIPARTITION},
     {0, 0, 0}, {0, 0, 0}, DARRAY_ORDER_FORTRAN, true},
};

static int describe(const desc_t *d, bool virt, darray_t *a) {
  int grid[3];
  int64_t dargs[3];
  for (int i = 0; i < d->nd; i++) {
    grid[i] = d->grid[i] < 0 ? P : d->grid[i];
    dargs[i] = d->dargs[i] ? d->dargs[i] : DARRAY_DEFAULT_ARG;
  }
  int rc = virt ? darray_create_virtual(P, d->nd, d->g, DARRAY_INT64, a)
                : darray_create(MPI_COMM_WORLD, d->nd, d->g, DARRAY_INT64, a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_distribution(*a, d->dist, dargs);
  if (rc == DARRAY_SUCCESS && d->grid[0] != 0)
    rc = darray_set_grid(*a, grid);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_storage_order(*a, d->order, NULL);
  if (rc == DARRAY_SUCCESS)
    rc = darray_commit(*a);
  return rc;
}

/* The real call's counters over every process. */
/* The real call's counters over every process; want: the code the call
 * must return (a forced strategy that cannot run: DARRAY_EHINT). */
static void real_call(const desc_t *d, const char *hints, bool write,
                      int want, darray_stats_summary_t *s,
                      char strategy[16]) {
  darray_t a;
  darray_file_t f;
  char path[256];
  if (!TU_OK(describe(d, false, &a)))
    return;
  int64_t bytes;
  TU_OK(darray_local_bytes(a, &bytes));
  char *buf = malloc((size_t)bytes + 1);
  tu_fill_bytes(buf, bytes, 7, 0);
  tu_tmpname(path, sizeof path, "plan_virtual");
  MPI_Info info = tu_info(hints);
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f));
  if (!write) /* something to read: written without counting */
    TU_EQ_CODE(darray_write(f, a, buf), want);
  TU_OK(darray_file_reset_stats(f));
  TU_EQ_CODE(write ? darray_write(f, a, buf) : darray_read(f, a, buf), want);
  TU_OK(darray_file_stats_summary(f, s));
  darray_stats_t st;
  TU_OK(darray_file_get_stats(f, &st));
  memcpy(strategy, st.strategy, 16);
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  if (tu_rank() == 0) /* a subfile set goes with its subfiles */
    TU_OK(darray_file_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  darray_free(&a);
}

static const darray_plan_row_t *row_of(const darray_plan_row_t *r, int n,
                                       const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(r[i].strategy, name))
      return &r[i];
  return NULL;
}

static void paper(const desc_t *d, const char *hints, bool write,
                  darray_plan_row_t rows[8], int *n) {
  darray_t v;
  *n = 0;
  if (!TU_OK(describe(d, true, &v)))
    return;
  MPI_Info info = tu_info(hints);
  TU_OK(darray_plan_virtual(v, info, write, 8, rows, n));
  MPI_Info_free(&info);
  darray_free(&v);
}

static void compare(const char *what, const darray_plan_row_t *r,
                    const darray_stats_summary_t *s, bool write) {
  int bad = 0;
  bad += !TU_EQ_I64(r->file_bytes_max,
                    write ? s->bytes_written_max : s->bytes_read_max);
  bad += !TU_EQ_I64(r->file_calls_sum,
                    write ? s->write_calls_sum : s->read_calls_sum);
  bad += !TU_EQ_I64(r->file_calls_max,
                    write ? s->write_calls_max : s->read_calls_max);
  bad += !TU_EQ_I64(r->sent_bytes_sum, s->bytes_exchanged_sum);
  bad += !TU_EQ_I64(r->sent_bytes_max, s->bytes_exchanged_max);
  bad += !TU_EQ_I64(r->cycles, s->cycles_max);
  if (r->messages_sum >= 0) { /* counted on paper */
    bad += !TU_EQ_I64(r->messages_sum, s->messages_sum);
    bad += !TU_EQ_I64(r->messages_max, s->messages_max);
  }
  if (bad && me == 0)
    fprintf(stderr, "  ... in %s\n", what);
}

static void one(const desc_t *d, const char *extra, const char *strategy,
                bool write) {
  char hints[512], what[700];
  snprintf(hints, sizeof hints, "%s;%s%s%s", MODEL, extra,
           strategy ? ";darray_strategy=" : "", strategy ? strategy : "");
  snprintf(what, sizeof what, "%s, %s, %s, P=%d", d->name,
           write ? "write" : "read", hints, P);
  darray_stats_summary_t s;
  char used[16] = "";
  darray_plan_row_t rows[8];
  int n = 0;
  paper(d, hints, write, rows, &n);
  /* rows forced where it has no grouping: refused, and so on paper */
  const darray_plan_row_t *f = strategy ? row_of(rows, n, strategy) : NULL;
  bool refused = f != NULL && !strcmp(strategy, "rows") && f->cycles < 0;
  real_call(d, hints, write, refused ? DARRAY_EHINT : DARRAY_SUCCESS, &s,
            used);
  if (refused) {
    TU_CHECK(f->why[0] != '\0');
    return;
  }
  const darray_plan_row_t *r = row_of(rows, n, used);
  if (!TU_CHECK(r != NULL && r->chosen)) {
    if (me == 0)
      fprintf(stderr, "  the real call used %s; in %s\n", used, what);
    return;
  }
  compare(what, r, &s, write);
}

static void matrix(void) {
  const char *extras[] = {"", "cb_buffer_size=4096",
                          "cb_buffer_size=2048;darray_cb_pipeline=enable",
                          "cb_nodes=1;cb_buffer_size=8192",
                          "ind_wr_buffer_size=64;ind_rd_buffer_size=64",
                          "striping_unit=96;striping_factor=3;"
                          "darray_cb_domains=layout;cb_buffer_size=512",
                          "darray_backend=subfiles;striping_unit=96;"
                          "striping_factor=3;darray_cb_domains=layout;"
                          "cb_buffer_size=512",
                          "cb_nodes=2;cb_buffer_size=1024",
                          "striping_unit=64;striping_factor=2;"
                          "darray_cb_domains=layout;cb_buffer_size=4096"};
  const char *strategies[] = {NULL,   "direct", "twophase",
                              "sieve", "rows",   "static",
                              "groups;cb_group_size=2", "mapped",
                              "mapped;darray_map_window=4096"};
  int q = 1;
  while ((q + 1) * (q + 1) <= P)
    q++;
  for (size_t i = 0; i < sizeof descs / sizeof *descs; i++) {
    if (descs[i].square && q * q != P)
      continue;
    for (size_t e = 0; e < sizeof extras / sizeof *extras; e++)
      for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++)
        for (int w = 0; w < 2; w++)
          one(&descs[i], extras[e], strategies[s], w == 1);
  }
}

static void errors(void) {
  const desc_t *d = &descs[0];
  darray_t v, a, u;
  darray_file_t f;
  darray_plan_row_t rows[8];
  int n;
  char path[256];
  TU_OK(describe(d, true, &v));
  TU_OK(describe(d, false, &a));
  tu_tmpname(path, sizeof path, "plan_virtual_err");
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, MPI_INFO_NULL,
                         &f));
  int64_t buf[8];
  TU_EQ_CODE(darray_write(f, v, buf), DARRAY_ECOMM);
  TU_CONTAINS(darray_file_errmsg(f), "virtual array");
  TU_EQ_CODE(darray_explain(f, v, 1, stderr), DARRAY_ECOMM);
  TU_EQ_CODE(darray_plan_virtual(a, MPI_INFO_NULL, 1, 8, rows, &n),
             DARRAY_ECOMM);
  TU_CONTAINS(darray_errmsg(a), "darray_create_virtual");
  TU_EQ_CODE(darray_plan_virtual(v, MPI_INFO_NULL, 1, 2, rows, &n),
             DARRAY_EINVAL);
  TU_CONTAINS(darray_errmsg(v), "nrows = 2");
  TU_EQ_CODE(darray_plan_virtual(v, MPI_INFO_NULL, 1, 8, NULL, &n),
             DARRAY_ENULL);
  MPI_Info bad = tu_info("cb_buffer_size=lots");
  TU_EQ_CODE(darray_plan_virtual(v, bad, 1, 8, rows, &n), DARRAY_EHINT);
  TU_CONTAINS(darray_errmsg(v), "cb_buffer_size");
  MPI_Info_free(&bad);
  int64_t g[2] = {4, 4};
  TU_EQ_CODE(darray_create_virtual(0, 2, g, DARRAY_INT32, &u), DARRAY_EGRID);
  TU_EQ_CODE(darray_create_virtual(DARRAY_VIRTUAL_MAX_NPROCS + 1, 2, g,
                                   DARRAY_INT32, &u), DARRAY_EGRID);
  TU_OK(darray_create_virtual(5, 2, g, DARRAY_INT32, &u));
  TU_EQ_CODE(darray_plan_virtual(u, MPI_INFO_NULL, 0, 8, rows, &n),
             DARRAY_ESTATE);
  int64_t cnt = -1;
  TU_OK(darray_commit(u));
  TU_OK(darray_local_count(u, &cnt));
  TU_EQ_I64(cnt, 0); /* no process of its own */
  int rank = -1, cell = -1;
  int64_t gi[2] = {3, 3};
  TU_OK(darray_locate(u, gi, &rank, &cell, NULL, NULL)); /* grid 5x1 */
  TU_EQ_INT(rank, 3);
  TU_OK(darray_plan_virtual(u, MPI_INFO_NULL, 0, 8, rows, &n));
  TU_CHECK(n >= 2 && rows[0].plan_ns >= 0);
  darray_free(&u);
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  darray_free(&a);
  darray_free(&v);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  matrix();
  errors();
  return tu_finish();
}
