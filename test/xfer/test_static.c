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
 * The arrays, the serial reference and the round of the sweep are
 * cube_util.c's, shared with test_groups.
 * Run: mpiexec -n 1..4 ./test_static
 */
#include "cube_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file after the write: the serial reference and nothing else. */
static void check_file(const cube_t *A, const char *path, int salt,
                       const char *what) {
  cube_check_file(A->c->n, A->perm, path, salt, what);
}

/* What the rule above makes of my call. */
typedef struct expect {
  int64_t K, cycles, sent_w, sent_r, file_bytes, calls;
  bool calls_known; /* a cycle's pieces fit one vector */
} expect_t;

static void expected(const cube_t *A, expect_t *e) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t cb = cube_hint(A->c->hints, "cb_buffer_size=", 4 << 20);
  int64_t cbn = cube_hint(A->c->hints, "cb_nodes=", 0), most = 0;
  int Ag = cbn > 0 && cbn < P ? (int)cbn : P, gmax = (P + Ag - 1) / Ag;
  int grp = 0;
  while ((int64_t)(grp + 1) * P / Ag <= me)
    grp++;
  int first = (int)((int64_t)grp * P / Ag);
  int last = (int)((int64_t)(grp + 1) * P / Ag);
  for (int r = 0; r < P; r++)
    most = cube_rank_bytes(A, r) > most ? cube_rank_bytes(A, r) : most;
  memset(e, 0, sizeof *e);
  e->K = cb / (gmax + 1) / 4 * 4;
  e->K = most > 0 && e->K > most ? most : e->K;
  e->cycles = (most + e->K - 1) / e->K;
  for (int r = first; r < last && me == first; r++) {
    e->file_bytes += cube_rank_bytes(A, r);
    e->sent_r += r != me ? cube_rank_bytes(A, r) : 0;
  }
  e->sent_w = me != first ? cube_rank_bytes(A, me) : 0;
  e->calls_known = (last - first) * e->K / 4 <= 1024;
  if (me != first)
    return;
  /* the cycle each of my group's elements moves in, by file position;
   * a call per stretch of one cycle's elements */
  int64_t n3 = A->c->n * A->c->n * A->c->n, s[4] = {0, 0, 0, 0}, prev = -1;
  for (int64_t f = 0; f < n3; f++) {
    int64_t x[3], l[3], cyc = -1;
    cube_at_file(A->c->n, A->perm, f, x);
    int r = cube_owner(A, x, l);
    if (r >= first && r < last)
      cyc = s[r]++ * 4 / e->K;
    e->calls += cyc >= 0 && cyc != prev;
    prev = cyc;
  }
}

static void check_counters(const cube_t *A, const darray_stats_t *sw,
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
                   cube_hint(A->c->hints, "cb_buffer_size=", 4 << 20));
  if (e.calls_known && strstr(A->c->hints, "mpiio") == NULL) {
    bad += !TU_EQ_I64(sw->write_calls, e.calls);
    bad += !TU_EQ_I64(sr->read_calls, e.calls);
  }
  if (bad)
    TU_FAIL("rank %d: counters of %s", tu_rank(), what);
}

/* A file of its own for each case. */
static darray_file_t open_case(const char *path, const cube_case_t *c,
                               const char *hints) {
  (void)c;
  return cube_open_new(path, hints);
}

static const cube_test_t this_test = {"static", 0, open_case, check_file,
                                      check_counters};

static void sweep(const char *path) {
  const cube_case_t all[] = {
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
    cube_run(&this_test, &all[i], path, (int)i);
}

/* darray_explain lists static: an estimate where the extents interleave
 * (1x1xP: every row), why not where they do not (one process). */
static void explained(const char *path) {
  const cube_case_t c = {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""};
  cube_t A;
  darray_t a = cube_make(&c, 0, &A);
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
  cube_refused(path, "static");
  explained(path);
  tu_remove(path);
  return tu_finish();
}
