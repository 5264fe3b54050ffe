/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_static.c - the static segmentation strategy (src/static) on 3-D
 * int32 arrays distributed BLOCK, CYCLIC(k) or '*' per dimension: bytes
 * on disk against a serial reference (element (i, j, k) at its offset in
 * the storage order), bytes read back (ghost cells untouched), and the
 * counters against the rule the manual gives, recomputed here element by
 * element: A = cb_nodes groups (P when unset or larger), group i the
 * ranks [i P / A, (i + 1) P / A), its first rank its aggregator; K =
 * cb_buffer_size / (largest group + 1), whole elements, at most the
 * largest process's bytes; ceil(largest process's bytes / K) cycles on
 * every process; in cycle c a process's elements number s (in file
 * order) with s * 4 / K == c travel to its aggregator. So: a member
 * sends its bytes on writes and its aggregator sends them on reads
 * (nothing else travels), an aggregator writes and reads its group's
 * bytes, with one file call per cycle and stretch of touching elements
 * of its group moved in that cycle (checked where a cycle's pieces fit
 * one vector).
 *
 * Sweeps grids 1x1xP, Px1x1, 1xPx1 with CYCLIC(k) and '*', both storage
 * orders, ghost cells (streams strided in memory), tiny cb_buffer_size
 * (many cycles), cb_nodes 1..P, uneven and empty processes (n = 5 over
 * 4), the MPI-IO back end (no vector calls). A cb_buffer_size that holds
 * no element per member is refused with DARRAY_ELIMIT on every process,
 * nothing written; darray_explain prints static's estimate where the
 * extents interleave, and says why not where they do not.
 * Run: mpiexec -n 1..4 ./test_static
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t val(int64_t n, const int64_t x[3], int salt) {
  return (int32_t)(((x[0] * n + x[1]) * n + x[2]) * 2654435761u +
                   (uint32_t)salt);
}

typedef struct tcase {
  int64_t n;
  char dist[3];  /* 'B' BLOCK, 'C' CYCLIC(k), '*' */
  int64_t k[3];  /* CYCLIC's block */
  int grid[3];   /* -1: P */
  bool fortran;  /* storage order */
  int64_t ghost;
  const char *hints;
} tcase_t;

/* Coordinate and local index of global index x along one dimension. */
static void place(const tcase_t *c, int d, int p, int64_t x, int *co,
                  int64_t *l) {
  int64_t n = c->n, b = (n + p - 1) / p, k = c->k[d];
  if (c->dist[d] == '*') {
    *co = 0, *l = x;
  } else if (c->dist[d] == 'B') {
    *co = (int)(x / b), *l = x % b;
  } else {
    *co = (int)(x / k % p), *l = x / (k * p) * k + x % k;
  }
}

typedef struct arr {
  const tcase_t *c;
  int ps[3], perm[3];
  int64_t ln[4][3]; /* every process's local shape */
} arr_t;

static int owner(const arr_t *A, const int64_t x[3], int64_t l[3]) {
  int r = 0;
  for (int d = 0; d < 3; d++) {
    int co;
    place(A->c, d, A->ps[d], x[d], &co, &l[d]);
    r = r * A->ps[d] + co;
  }
  return r;
}

static void at_file(const arr_t *A, int64_t f, int64_t x[3]) {
  int64_t n = A->c->n;
  x[A->perm[0]] = f / (n * n);
  x[A->perm[1]] = f / n % n;
  x[A->perm[2]] = f % n;
}

/* Every process's local shape, counted from the placement. */
static void shapes(arr_t *A) {
  int P = tu_nprocs();
  memset(A->ln, 0, sizeof A->ln);
  for (int d = 0; d < 3; d++)
    for (int64_t x = 0; x < A->c->n; x++) {
      int co;
      int64_t l;
      place(A->c, d, A->ps[d], x, &co, &l);
      for (int r = 0; r < P; r++) {
        int q = r, rc[3];
        for (int e = 2; e >= 0; e--)
          rc[e] = q % A->ps[e], q /= A->ps[e];
        A->ln[r][d] += rc[d] == co;
      }
    }
}

static int64_t rank_bytes(const arr_t *A, int r) {
  return A->ln[r][0] * A->ln[r][1] * A->ln[r][2] * 4;
}

/* My elements into (check: against) my ghosted buffer. */
static void fill_or_check(const arr_t *A, int32_t *buf, int salt, int check,
                          int64_t *bad) {
  int me = tu_rank();
  int64_t g = A->c->ghost, n = A->c->n;
  const int64_t *ln = A->ln[me];
  int64_t ext[3] = {ln[0] + 2 * g, ln[1] + 2 * g, ln[2] + 2 * g};
  for (int64_t f = 0; f < n * n * n; f++) {
    int64_t x[3], l[3];
    at_file(A, f, x);
    if (owner(A, x, l) != me)
      continue;
    int64_t p = ((l[0] + g) * ext[1] + (l[1] + g)) * ext[2] + (l[2] + g);
    if (!check)
      buf[p] = val(n, x, salt);
    else if (buf[p] != val(n, x, salt))
      (*bad)++;
  }
}

static darray_t make_array(const tcase_t *c, arr_t *A) {
  int P = tu_nprocs();
  int64_t gs[3] = {c->n, c->n, c->n}, gh[3] = {c->ghost, c->ghost, c->ghost};
  int64_t args[3];
  darray_dist_t dist[3];
  int grid[3];
  for (int d = 0; d < 3; d++) {
    grid[d] = c->grid[d] < 0 ? P : c->grid[d];
    dist[d] = c->dist[d] == 'B'   ? DARRAY_DIST_BLOCK
              : c->dist[d] == 'C' ? DARRAY_DIST_CYCLIC
                                  : DARRAY_DIST_NONE;
    args[d] = c->dist[d] == 'C' ? c->k[d] : DARRAY_DEFAULT_ARG;
  }
  darray_t a;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a)))
    return NULL;
  TU_OK(darray_set_distribution(a, dist, args));
  TU_OK(darray_set_grid(a, grid));
  TU_OK(darray_set_storage_order(a, c->fortran ? DARRAY_ORDER_FORTRAN
                                               : DARRAY_ORDER_C, NULL));
  TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL));
  TU_OK(darray_commit(a));
  A->c = c;
  darray_grid(a, A->ps);
  for (int d = 0; d < 3; d++) {
    A->perm[d] = c->fortran ? 2 - d : d;
    TU_EQ_INT(A->ps[d], grid[d]);
  }
  shapes(A);
  int64_t count;
  darray_local_count(a, &count);
  TU_EQ_I64(count * 4, rank_bytes(A, tu_rank()));
  return a;
}

static void check_file(const arr_t *A, const char *path, int salt,
                       const char *what) {
  if (tu_rank() == 0) {
    int64_t size, bad = 0, n = A->c->n;
    unsigned char *file = tu_read_file(path, &size);
    TU_EQ_I64(size, n * n * n * 4);
    for (int64_t f = 0; file && f < size / 4; f++) {
      int64_t x[3];
      int32_t v;
      at_file(A, f, x);
      memcpy(&v, file + 4 * f, 4);
      bad += v != val(n, x, salt);
    }
    if (!TU_EQ_I64(bad, 0))
      TU_FAIL("%s: wrong elements on disk", what);
    free(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static int64_t hint_num(const char *hints, const char *key, int64_t dflt) {
  const char *p = strstr(hints, key);
  return p != NULL ? strtoll(p + strlen(key), NULL, 10) : dflt;
}

/* What the rule above makes of my call. */
typedef struct expect {
  int64_t K, cycles, sent_w, sent_r, file_bytes, calls;
  bool calls_known; /* a cycle's pieces fit one vector */
} expect_t;

static void expected(const arr_t *A, expect_t *e) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t cb = hint_num(A->c->hints, "cb_buffer_size=", 4 << 20);
  int64_t cbn = hint_num(A->c->hints, "cb_nodes=", 0), most = 0;
  int Ag = cbn > 0 && cbn < P ? (int)cbn : P, gmax = (P + Ag - 1) / Ag;
  int grp = 0;
  while ((int64_t)(grp + 1) * P / Ag <= me)
    grp++;
  int first = (int)((int64_t)grp * P / Ag);
  int last = (int)((int64_t)(grp + 1) * P / Ag);
  for (int r = 0; r < P; r++)
    most = rank_bytes(A, r) > most ? rank_bytes(A, r) : most;
  memset(e, 0, sizeof *e);
  e->K = cb / (gmax + 1) / 4 * 4;
  e->K = most > 0 && e->K > most ? most : e->K;
  e->cycles = (most + e->K - 1) / e->K;
  for (int r = first; r < last && me == first; r++) {
    e->file_bytes += rank_bytes(A, r);
    e->sent_r += r != me ? rank_bytes(A, r) : 0;
  }
  e->sent_w = me != first ? rank_bytes(A, me) : 0;
  e->calls_known = (last - first) * e->K / 4 <= 1024;
  if (me != first)
    return;
  /* the cycle each of my group's elements moves in, by file position;
   * a call per stretch of one cycle's elements */
  int64_t n3 = A->c->n * A->c->n * A->c->n, s[4] = {0, 0, 0, 0}, prev = -1;
  for (int64_t f = 0; f < n3; f++) {
    int64_t x[3], l[3], cyc = -1;
    at_file(A, f, x);
    int r = owner(A, x, l);
    if (r >= first && r < last)
      cyc = s[r]++ * 4 / e->K;
    e->calls += cyc >= 0 && cyc != prev;
    prev = cyc;
  }
}

static void check_counters(const arr_t *A, const darray_stats_t *sw,
                           const darray_stats_t *sr, const char *what) {
  expect_t e;
  expected(A, &e);
  int bad = 0;
  bad += !TU_EQ_STR(sw->strategy, "static");
  bad += !TU_EQ_STR(sr->strategy, "static");
  bad += !TU_EQ_I64(sw->cycles, e.cycles);
  bad += !TU_EQ_I64(sr->cycles, e.cycles);
  bad += !TU_EQ_I64(sw->bytes_exchanged, e.sent_w);
  bad += !TU_EQ_I64(sr->bytes_exchanged, e.sent_r);
  bad += !TU_EQ_I64(sw->bytes_written, e.file_bytes);
  bad += !TU_EQ_I64(sr->bytes_read, e.file_bytes);
  bad += !TU_CHECK(sw->peak_temp_bytes <=
                   hint_num(A->c->hints, "cb_buffer_size=", 4 << 20));
  if (e.calls_known && strstr(A->c->hints, "mpiio") == NULL) {
    bad += !TU_EQ_I64(sw->write_calls, e.calls);
    bad += !TU_EQ_I64(sr->read_calls, e.calls);
  }
  if (bad)
    TU_FAIL("rank %d: counters of %s", tu_rank(), what);
}

/* Write, check the file, read back and check. */
static void run_case(const tcase_t *c, const char *path, int salt) {
  arr_t A;
  darray_t a = make_array(c, &A);
  if (a == NULL)
    return;
  int64_t nbytes;
  darray_local_bytes(a, &nbytes);
  int32_t *buf = calloc((size_t)nbytes / 4 + 1, 4);
  fill_or_check(&A, buf, salt, 0, NULL);
  darray_file_t f;
  char hints[300];
  snprintf(hints, sizeof hints, "darray_strategy=static;%s", c->hints);
  MPI_Info info = tu_info(hints);
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
  char what[200];
  snprintf(what, sizeof what, "n=%lld %c%c%c grid %dx%dx%d %s ghost %lld '%s'",
           (long long)c->n, c->dist[0], c->dist[1], c->dist[2], A.ps[0],
           A.ps[1], A.ps[2], c->fortran ? "F" : "C", (long long)c->ghost,
           c->hints);
  darray_stats_t sw, sr;
  darray_file_reset_stats(f);
  TU_OK(darray_write(f, a, buf));
  darray_file_get_stats(f, &sw);
  darray_file_reset_stats(f);
  check_file(&A, path, salt, what);
  memset(buf, 0x7f, (size_t)nbytes); /* sentinel: ghosts must keep it */
  TU_OK(darray_read(f, a, buf));
  darray_file_get_stats(f, &sr);
  int64_t bad = 0, sentinels = 0, count;
  fill_or_check(&A, buf, salt, 1, &bad);
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("%s: wrong elements read", what);
  for (int64_t e = 0; e < nbytes / 4; e++)
    sentinels += buf[e] == 0x7f7f7f7f;
  darray_local_count(a, &count);
  TU_EQ_I64(sentinels, nbytes / 4 - count);
  check_counters(&A, &sw, &sr, what);
  if (tu_any_failed() && tu_rank() == 0)
    fprintf(stderr, "test_static: after %s\n", what);
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

static void sweep(const char *path) {
  const tcase_t all[] = {
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, "cb_buffer_size=64"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "cb_buffer_size=1000"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, true, 0, "cb_buffer_size=200"},
      {12, "BBB", {0, 0, 0}, {-1, 1, 1}, true, 1, "cb_buffer_size=96"},
      {13, "BBB", {0, 0, 0}, {-1, 1, 1}, false, 0, "cb_nodes=1"},
      {12, "*C*", {0, 2, 0}, {1, -1, 1}, false, 0, "cb_buffer_size=300"},
      {11, "**C", {0, 0, 3}, {1, 1, -1}, true, 1, "cb_nodes=1;"
                                                  "cb_buffer_size=128"},
      {12, "B*C", {0, 0, 1}, {1, 1, -1}, false, 0, "cb_nodes=2;"
                                                   "cb_buffer_size=40"},
      {5, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, "cb_buffer_size=48"},
      {5, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "cb_nodes=3"},
      {6, "**C", {0, 0, 9}, {1, 1, -1}, false, 0, "cb_nodes=2"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "darray_backend=mpiio;"
                                                   "cb_buffer_size=100"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""},
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    run_case(&all[i], path, (int)i);
}

/* cb_buffer_size too small for one element per member and the pack
 * buffer: DARRAY_ELIMIT on every process, nothing written. */
static void refused(const char *path) {
  int64_t gs[3] = {8, 8, 8};
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
  TU_OK(darray_commit(a));
  int64_t nb;
  darray_local_bytes(a, &nb);
  char *buf = calloc((size_t)nb + 1, 1);
  MPI_Info info = tu_info("darray_strategy=static;cb_buffer_size=7");
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
  int rc = darray_write(f, a, buf), lo = rc, hi = rc;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  TU_EQ_INT(lo, hi);
  TU_EQ_CODE(rc, DARRAY_ELIMIT);
  TU_CONTAINS(darray_file_errmsg(f), "darray_strategy=static: cb_buffer_size");
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  TU_EQ_I64(st.bytes_written, 0);
  darray_file_close(&f);
  if (tu_rank() == 0) {
    int64_t size = -1;
    free(tu_read_file(path, &size));
    TU_EQ_I64(size, 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  darray_free(&a);
}

/* darray_explain lists static: an estimate where the extents interleave
 * (1x1xP: every row), why not where they do not (one process). */
static void explained(const char *path) {
  const tcase_t c = {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""};
  arr_t A;
  darray_t a = make_array(&c, &A);
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, MPI_INFO_NULL, &f));
  char *text = tu_explain(f, a, 1);
  double us = -1;
  TU_EQ_INT(tu_estimate(text ? text : "", "static", &us),
            tu_nprocs() > 1 ? 1 : 0);
  if (tu_nprocs() > 1)
    TU_CHECK(us > 0);
  free(text);
  darray_file_close(&f);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char path[512];
  tu_tmpname(path, sizeof path, "static");
  sweep(path);
  refused(path);
  explained(path);
  tu_remove(path);
  return tu_finish();
}
