/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_rows.c - the rows strategy (grid-derived groups, src/rows) on
 * n^3 int32 arrays: bytes on disk against a serial reference (element
 * (i, j, k) at its offset in the storage order), bytes read back, and
 * the counters: each byte written and read once, cycles, temporary
 * memory within cb_buffer_size, and the bytes exchanged exactly those
 * whose owner is not the member whose piece holds them, counted element
 * by element from the rule the manual gives (a group is the processes
 * sharing the coordinates of the first `keep` file-order dimensions; its
 * elements, in file order, are split evenly among its members in rank
 * order). Nothing crosses between groups.
 *
 * Sweeps grids 1x1xP, 1xPx1, Px1x1, 1x2x2 and 2x2x1, C and Fortran
 * storage orders, ghost cells (streams strided in memory), tiny
 * cb_buffer_size (many cycles), uneven and empty processes (n = 5 over 4),
 * windows built in an image and moved as vectors of pieces.
 * Where rows cannot apply (MULTIPARTITION; one process) a forced call is
 * refused with DARRAY_EHINT on every process and the planner never picks
 * it; where it is cheapest by the cost model, the planner picks it and
 * darray_explain prints its estimate. The values, the serial reference,
 * the write and read-back and their checks are cube_util.c's.
 * Run: mpiexec -n 1..4 ./test_rows
 */
#define _GNU_SOURCE /* open_memstream */
#include "cube_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void block_of(int64_t n, int p, int c, int64_t *s, int64_t *len) {
  int64_t b = (n + p - 1) / p;
  *s = c * b < n ? c * b : n;
  *len = *s + b < n ? b : n - *s;
}

typedef struct tcase {
  int64_t n;
  int grid[3];      /* -1: P */
  bool fortran;     /* storage order */
  int64_t ghost;
  int keep;         /* the grouping the rule gives */
  const char *hints;
} tcase_t;

typedef struct arr {
  int64_t n, ghost;
  int ps[3], perm[3], co[3];
  int64_t st[3], ln[3];
} arr_t;

/* Element at file position f: its indices. */
static void at_file(const arr_t *A, int64_t f, int64_t x[3]) {
  cube_at_file(A->n, A->perm, f, x);
}

static int owner_of(const arr_t *A, const int64_t x[3], int co[3]) {
  int r = 0;
  for (int d = 0; d < 3; d++) {
    int64_t s, len;
    co[d] = 0;
    while (block_of(A->n, A->ps[d], co[d], &s, &len), x[d] >= s + len)
      co[d]++;
    r = r * A->ps[d] + co[d];
  }
  return r;
}

static int color_of(const arr_t *A, const int co[3], int keep) {
  int c = 0;
  for (int i = 0; i < keep; i++)
    c = c * A->ps[A->perm[i]] + co[A->perm[i]];
  return c;
}

/* The bytes my call sends (see the header), element by element. */
static int64_t expected_exchange(const arr_t *A, int keep, int write) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t n3 = A->n * A->n * A->n, sent = 0;
  int64_t *ne = calloc((size_t)P, sizeof *ne), *seen = calloc((size_t)P, 8);
  int *color = calloc((size_t)P, sizeof *color), co[3];
  for (int r = 0; r < P; r++) {
    int64_t x[3] = {0, 0, 0};
    int rc[3];
    int q = r;
    for (int d = 2; d >= 0; d--)
      rc[d] = q % A->ps[d], q /= A->ps[d];
    (void)x;
    color[r] = color_of(A, rc, keep);
  }
  for (int64_t f = 0; f < n3; f++) {
    int64_t x[3];
    at_file(A, f, x);
    ne[color[owner_of(A, x, co)]]++;
  }
  for (int64_t f = 0; f < n3; f++) {
    int64_t x[3];
    at_file(A, f, x);
    int own = owner_of(A, x, co), c = color[own], g = 0, k = 0, mem = -1;
    for (int r = 0; r < P; r++)
      g += color[r] == c;
    int64_t i = seen[c]++; /* index in the group's region */
    while (k + 1 < g && (k + 1) * ne[c] / g <= i)
      k++;
    for (int r = 0, m = 0; r < P && mem < 0; r++)
      if (color[r] == c && m++ == k)
        mem = r;
    sent += write ? (own == me && mem != me) : (mem == me && own != me);
  }
  free(ne);
  free(seen);
  free(color);
  return sent * 4;
}

/* The largest piece of my group, bytes: its elements split evenly in
 * rank order (member k from element k * ne / g on). */
static int64_t largest_piece(const arr_t *A, int keep) {
  int P = tu_nprocs(), co[3], g = 0, mine;
  int64_t n3 = A->n * A->n * A->n, ne = 0, most = 0;
  for (int d = 0; d < 3; d++)
    co[d] = A->co[d];
  mine = color_of(A, co, keep);
  for (int r = 0; r < P; r++) {
    int rc[3], q = r;
    for (int d = 2; d >= 0; d--)
      rc[d] = q % A->ps[d], q /= A->ps[d];
    g += color_of(A, rc, keep) == mine;
  }
  for (int64_t f = 0; f < n3; f++) {
    int64_t x[3];
    at_file(A, f, x);
    ne += color_of(A, (owner_of(A, x, co), co), keep) == mine;
  }
  for (int k = 0; k < g; k++) {
    int64_t n = (k + 1) * ne / g - k * ne / g;
    most = n > most ? n : most;
  }
  return most * 4;
}

static void fill_or_check(const arr_t *A, int32_t *buf, int salt, int check,
                          int64_t *bad) {
  int64_t g = A->ghost, ext[3];
  for (int d = 0; d < 3; d++)
    ext[d] = A->ln[d] + 2 * g;
  for (int64_t i = 0; i < A->ln[0]; i++)
    for (int64_t j = 0; j < A->ln[1]; j++)
      for (int64_t k = 0; k < A->ln[2]; k++) {
        int64_t p = ((i + g) * ext[1] + (j + g)) * ext[2] + (k + g);
        int64_t x[3] = {A->st[0] + i, A->st[1] + j, A->st[2] + k};
        if (!check)
          buf[p] = cube_val(A->n, x, salt);
        else if (buf[p] != cube_val(A->n, x, salt))
          (*bad)++;
      }
}

static darray_t make_array(const tcase_t *c, arr_t *A) {
  int P = tu_nprocs(), rank = tu_rank();
  int64_t gs[3] = {c->n, c->n, c->n}, gh[3] = {c->ghost, c->ghost, c->ghost};
  int grid[3];
  for (int d = 0; d < 3; d++)
    grid[d] = c->grid[d] < 0 ? P : c->grid[d];
  darray_t a;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a)))
    return NULL;
  TU_OK(darray_set_grid(a, grid));
  TU_OK(darray_set_storage_order(a, c->fortran ? DARRAY_ORDER_FORTRAN
                                               : DARRAY_ORDER_C, NULL));
  TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL));
  TU_OK(darray_commit(a));
  A->n = c->n;
  A->ghost = c->ghost;
  darray_grid(a, A->ps);
  A->co[0] = rank / (A->ps[1] * A->ps[2]);
  A->co[1] = rank / A->ps[2] % A->ps[1];
  A->co[2] = rank % A->ps[2];
  for (int d = 0; d < 3; d++) {
    A->perm[d] = c->fortran ? 2 - d : d;
    block_of(c->n, A->ps[d], A->co[d], &A->st[d], &A->ln[d]);
  }
  return a;
}

/* The file against the serial reference, on rank 0. */
static void check_file(const arr_t *A, const char *path, int salt,
                       const char *what) {
  cube_check_file(A->n, A->perm, path, salt, what);
}

static void check_counters(const tcase_t *c, const arr_t *A,
                           const darray_stats_t *sw,
                           const darray_stats_t *sr) {
  int64_t total = c->n * c->n * c->n * 4;
  int64_t t[2] = {sw->bytes_written, sr->bytes_read};
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  TU_EQ_I64(t[0], total); /* each byte written once */
  TU_EQ_I64(t[1], total); /* and read once */
  TU_EQ_STR(sw->strategy, "rows");
  TU_EQ_STR(sr->strategy, "rows");
  TU_EQ_I64(sw->bytes_exchanged, expected_exchange(A, c->keep, 1));
  TU_EQ_I64(sr->bytes_exchanged, expected_exchange(A, c->keep, 0));
  const char *cb = strstr(c->hints, "cb_buffer_size=");
  int64_t cap = cb != NULL ? strtoll(cb + 15, NULL, 10) : 4 << 20;
  TU_CHECK(sw->peak_temp_bytes <= cap && sr->peak_temp_bytes <= cap);
  /* an image is one call per window and extent: one extent when every
   * process is one group (a vector may take several calls) */
  if (c->keep == 0 && strstr(c->hints, "image_piece=0") == NULL)
    TU_CHECK(sw->write_calls <= sw->cycles && sr->read_calls <= sr->cycles);
  /* windows of W bytes over as many extents as they span: my group's
   * cycles are its largest piece's ceil(piece / W), W = cb_buffer_size
   * less a quarter (the messages), whole elements, or half that with an
   * image (pieces shorter than 256 bytes on average) */
  int64_t M = cap / 4 / 4 * 4, W = (cap - M) / 4 * 4, Wi = (cap - M) / 8 * 4;
  int64_t pc = largest_piece(A, c->keep);
  int64_t cyc = (pc + W - 1) / W, cyci = (pc + Wi - 1) / Wi;
  bool vec = strstr(c->hints, "image_piece=0") != NULL;
  if (!TU_CHECK(sw->cycles == cyc || (!vec && sw->cycles == cyci)) ||
      !TU_CHECK(sr->cycles == sw->cycles))
    TU_FAIL("cycles %lld and %lld, not %lld%s%lld", (long long)sw->cycles,
            (long long)sr->cycles, (long long)cyc, vec ? "" : " or ",
            vec ? 0LL : (long long)cyci);
}

/* Write, check the file, read back and check, on f (a file of its own
 * when NULL). */
static void run_on(const tcase_t *c, const char *path, int salt,
                   darray_file_t shared, bool nb) {
  arr_t A;
  darray_t a = make_array(c, &A);
  if (a == NULL)
    return;
  int64_t nbytes;
  darray_local_bytes(a, &nbytes);
  int32_t *buf = calloc((size_t)nbytes / 4 + 1, 4);
  fill_or_check(&A, buf, salt, 0, NULL);
  darray_file_t f = shared;
  if (shared == NULL)
    f = cube_open_new(path, c->hints);
  char what[160];
  snprintf(what, sizeof what, "n=%lld grid %dx%dx%d %s ghost %lld '%s'%s",
           (long long)c->n, A.ps[0], A.ps[1], A.ps[2],
           c->fortran ? "F" : "C", (long long)c->ghost, c->hints,
           nb ? " nonblocking" : "");
  darray_stats_t sw, sr;
  cube_write(f, a, buf, nb, &sw);
  check_file(&A, path, salt, what);
  cube_read(f, a, buf, nbytes, nb, &sr);
  int64_t bad = 0;
  fill_or_check(&A, buf, salt, 1, &bad);
  cube_check_read(a, buf, nbytes, bad, what);
  check_counters(c, &A, &sw, &sr);
  if (tu_any_failed() && tu_rank() == 0)
    fprintf(stderr, "test_rows: after %s\n", what);
  if (shared == NULL)
    darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

/* Both ways a member moves its window: the pieces of these int32 arrays
 * are short, so an image of the window; with darray_cb_image_piece=0 a
 * vector of pieces pointing into the buffers. */
static void run_modes(const tcase_t *c, const char *path, int salt) {
  char h[256];
  tcase_t v = *c;
  run_on(c, path, salt, NULL, false);
  snprintf(h, sizeof h, "%s;darray_cb_image_piece=0", c->hints);
  v.hints = h;
  run_on(&v, path, salt + 50, NULL, false);
}

#define RQ "darray_strategy=rows;"

static void sweep(const char *path) {
  int P = tu_nprocs();
  const tcase_t all[] = {
      {12, {1, 1, -1}, false, 0, 0, RQ "cb_buffer_size=64"},
      {12, {1, 1, -1}, false, 1, 0, RQ "cb_buffer_size=1000"},
      {12, {1, 1, -1}, true, 0, 0, RQ "cb_buffer_size=200"},
      {12, {1, -1, 1}, false, 1, 0, RQ "cb_buffer_size=200"},
      {13, {-1, 1, 1}, true, 1, 0, RQ "cb_buffer_size=96"},
      {13, {-1, 1, 1}, false, 0, 0, RQ "cb_buffer_size=4096"},
      {5, {1, 1, -1}, false, 0, 0, RQ "cb_buffer_size=48"},
      {16, {1, -1, 1}, false, 0, 0, RQ},
      /* vectors longer than DARRAY_IOV_MAX pieces: several calls */
      {40, {1, 1, -1}, false, 0, 0, RQ},
  };
  for (size_t i = 0; P > 1 && i < sizeof all / sizeof all[0]; i++)
    run_modes(&all[i], path, (int)i);
  /* groups smaller than P: grouping by the extent target */
  const tcase_t four[] = {
      /* extents of 6 elements (24 bytes) per process, 288 per pair
       * sharing the j coordinate: groups {0,1} and {2,3} */
      {12, {1, 2, 2}, false, 0, 2, RQ "darray_rows_extent=100;"
                                      "cb_buffer_size=64"},
      {12, {1, 2, 2}, false, 1, 2, RQ "darray_rows_extent=100"},
      /* Fortran order: the pairs sharing the j coordinate are {0,2} and
       * {1,3} */
      {12, {2, 2, 1}, true, 1, 2, RQ "darray_rows_extent=100;"
                                     "cb_buffer_size=100"},
      {12, {2, 2, 1}, true, 0, 0, RQ "cb_buffer_size=300"},
      {5, {1, 2, 2}, false, 0, 2, RQ "darray_rows_extent=13;"
                                     "cb_buffer_size=32"},
  };
  for (size_t i = 0; P == 4 && i < sizeof four / sizeof four[0]; i++)
    run_modes(&four[i], path, 100 + (int)i);
}

/* A forced call where rows cannot apply: DARRAY_EHINT on every process,
 * nothing written; the planner left alone does not pick it. */
static void refused(const char *path, bool multipartition) {
  int64_t gs[3] = {8, 8, 8};
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
  if (multipartition) {
    darray_dist_t d[3] = {DARRAY_DIST_MULTIPARTITION,
                          DARRAY_DIST_MULTIPARTITION,
                          DARRAY_DIST_MULTIPARTITION};
    TU_OK(darray_set_distribution(a, d, NULL));
  }
  TU_OK(darray_commit(a));
  int64_t nb;
  darray_local_bytes(a, &nb);
  char *buf = calloc((size_t)nb + 1, 1);
  for (int auto_ = 0; auto_ < 2; auto_++) {
    darray_file_t f = cube_open_new(path, auto_ ? "darray_strategy=auto"
                                                : "darray_strategy=rows");
    int rc = cube_agreed(darray_write(f, a, buf)); /* the same everywhere */
    char why[512]; /* before any other call on f clears it */
    snprintf(why, sizeof why, "%s", darray_file_errmsg(f));
    darray_stats_t st;
    darray_file_get_stats(f, &st);
    char *text = tu_explain(f, a, 1);
    double us;
    /* not a candidate, in words */
    TU_EQ_INT(tu_estimate(text ? text : "", "rows", &us), 0);
    if (auto_) {
      TU_OK(rc);
      TU_CHECK(strcmp(st.strategy, "rows") != 0);
    } else {
      TU_EQ_CODE(rc, DARRAY_EHINT);
      TU_EQ_I64(st.bytes_written, 0);
      TU_CONTAINS(why, multipartition ? "darray_strategy=rows: not possible "
                                        "for this array: MULTIPARTITION"
                                      : "every group is one process");
    }
    free(text);
    darray_file_close(&f);
  }
  free(buf);
  darray_free(&a);
}

/* Forced, with darray_temp_limit below its buffers (an image and its
 * staging of one int32 each, and a message: 12 bytes): DARRAY_ELIMIT on
 * every process, as two-phase's refusal; nothing is written. */
static void limited(const char *path) {
  const tcase_t c = {12, {1, 1, -1}, false, 0, 0,
                     RQ "darray_temp_limit=8"};
  arr_t A;
  darray_t a = make_array(&c, &A);
  darray_file_t f = cube_open_new(path, c.hints);
  int64_t nb;
  darray_local_bytes(a, &nb);
  char *buf = calloc((size_t)nb + 1, 1);
  TU_EQ_CODE(darray_write(f, a, buf), DARRAY_ELIMIT);
  TU_CONTAINS(darray_file_errmsg(f), "darray_temp_limit");
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  TU_EQ_I64(st.bytes_written, 0);
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

/* By the cost model the planner picks rows where it is the cheapest:
 * 1x2x2 at P = 4 in groups of 2, with an exchange so slow (1 MB/s) that
 * two-phase's (moving 3/4 of every process's bytes against rows' 1/2)
 * costs more than rows' seven file calls, and file calls so slow that
 * direct runs' 72 cost more still (the file's pages mapped, which move
 * no byte between processes, are left out: darray_map=disable). */
static void planner_picks(const char *path) {
  const tcase_t c = {12, {1, 2, 2}, false, 0, 2,
                     "darray_strategy=auto;darray_rows_extent=100;"
                     "darray_cb_exchange_mbs=1;darray_cb_cycle_ns=0;"
                     "darray_ds_wr_latency_ns=50000;"
                     "darray_ds_rd_latency_ns=50000;darray_map=disable"};
  arr_t A;
  darray_t a = make_array(&c, &A);
  darray_file_t f = cube_open_new(path, c.hints);
  char *text = tu_explain(f, a, 1);
  double rows = 0, tp = 0;
  TU_EQ_INT(tu_estimate(text ? text : "", "rows", &rows), 1);
  TU_EQ_INT(tu_estimate(text ? text : "", "twophase", &tp), 1);
  TU_CHECK(rows < tp);
  free(text);
  int64_t nb;
  darray_local_bytes(a, &nb);
  int32_t *buf = calloc((size_t)nb / 4 + 1, 4);
  fill_or_check(&A, buf, 7, 0, NULL);
  TU_OK(darray_write(f, a, buf));
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  TU_EQ_STR(st.strategy, "rows");
  check_file(&A, path, 7, "planner's choice");
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

/* One file, five groupings in turn, twice: the file keeps four group
 * communicators, so each pass makes them again as they are evicted. */
#define GROUPED RQ "darray_rows_extent=100;cb_buffer_size=128"
static void groupings(const char *path) {
  const tcase_t c[] = {
      {12, {1, 2, 2}, false, 0, 2, GROUPED}, /* pairs {0,1} {2,3} */
      {12, {2, 2, 1}, true, 1, 2, GROUPED},  /* pairs {0,2} {1,3} */
      {12, {1, 1, 4}, false, 0, 2, GROUPED}, /* one group of four */
      {12, {4, 1, 1}, true, 0, 2, GROUPED},  /* one group of four */
      {12, {2, 1, 2}, false, 1, 2, GROUPED}, /* pairs {0,1} {2,3} */
  };
  darray_file_t f = cube_open_new(path, GROUPED);
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < 5; i++)
      run_on(&c[i], path, 200 + 10 * pass + i, f, false);
  TU_OK(darray_file_close(&f));
}

/* Requests: in the file's I/O thread at MPI_THREAD_MULTIPLE (the group
 * communicators made there), else run by the program's thread. */
static void nonblocking(const char *path) {
  const tcase_t one = {12, {1, 1, -1}, false, 1, 0,
                       RQ "darray_async=thread;cb_buffer_size=64"};
  const tcase_t pairs = {12, {1, 2, 2}, false, 1, 2,
                         RQ "darray_async=thread;darray_rows_extent=100"};
  run_on(&one, path, 300, NULL, true);
  if (tu_nprocs() == 4)
    run_on(&pairs, path, 301, NULL, true);
}

int main(int argc, char **argv) {
  tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  char path[512];
  tu_tmpname(path, sizeof path, "rows");
  sweep(path);
  if (tu_nprocs() == 1 || tu_nprocs() == 4)
    refused(path, true);
  if (tu_nprocs() == 1)
    refused(path, false);
  if (tu_nprocs() == 4) {
    planner_picks(path);
    groupings(path);
  }
  if (tu_nprocs() > 1) {
    nonblocking(path);
    limited(path);
  }
  tu_remove(path);
  return tu_finish();
}
