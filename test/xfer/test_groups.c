/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_groups.c - the writer-group strategy (src/groups) on 3-D int32
 * arrays distributed BLOCK, CYCLIC(k) or '*' per dimension, at a
 * displacement inside a file filled with a pattern: bytes on disk
 * against a serial reference (element (i, j, k) at its offset in the
 * storage order; the pattern before and after the array untouched),
 * bytes read back (ghost cells untouched), and the counters against the
 * rule the manual gives, recomputed here element by element: groups of
 * cb_group_size consecutive ranks (by node when 0: on this machine every
 * process, checked), the first rank the writer; chunks of C =
 * cb_buffer_size / 2 bytes (whole elements) from the group's first byte
 * to its last, one cycle each on every member; the writer moves its
 * group's bytes, one file call per stretch of the group's elements within
 * a chunk (the posix and MPI-IO back ends have no list call); every
 * process copies its own bytes once (into the shared image, or out of
 * it); nothing is sent.
 *
 * Sweeps grids 1x1xP, Px1x1, 1xPx1 with CYCLIC(k) and '*', both storage
 * orders, ghost cells, tiny cb_buffer_size (many cycles), cb_group_size
 * 0..P, uneven and empty processes (n = 5 over 4), the MPI-IO back end.
 * Against another strategy's file (direct runs, on the same pattern):
 * MULTIPARTITION where P is a square, and section writes and reads
 * (boxes of a quarter of the array; the pattern must survive around
 * them). A cb_buffer_size that holds no two elements is refused with
 * DARRAY_ELIMIT on every process, nothing written; a bad cb_group_size
 * is refused at open (DARRAY_EHINT); darray_explain prints groups'
 * estimate where cb_group_size is given and the extents interleave.
 * The arrays, the serial reference and the round of the sweep are
 * cube_util.c's, shared with test_static.
 * Run: mpiexec -n 1..4 ./test_groups
 */
#include "cube_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISP 40
#define PAD 24
#define PATTERN 0xa5

/* The array at DISP, between PAD bytes of the pattern before and after
 * it, which the write must leave alone. */
static void check_file(const cube_t *A, const char *path, int salt,
                       const char *what) {
  if (tu_rank() == 0) {
    int64_t size, bad = 0, n = A->c->n, len = n * n * n * 4;
    unsigned char *file = tu_read_file(path, &size);
    TU_EQ_I64(size, DISP + len + PAD);
    for (int64_t f = 0; file && size == DISP + len + PAD && f < len / 4;
         f++) {
      int64_t x[3];
      int32_t v;
      cube_at_file(n, A->perm, f, x);
      memcpy(&v, file + DISP + 4 * f, 4);
      bad += v != cube_val(n, x, salt);
    }
    for (int64_t b = 0; file && size == DISP + len + PAD && b < DISP + PAD;
         b++)
      bad += file[b < DISP ? b : len + b] != PATTERN;
    if (!TU_EQ_I64(bad, 0))
      TU_FAIL("%s: wrong bytes on disk", what);
    free(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Every process of the world on one node (the by-node groups are then
 * every process). */
static bool one_node(void) {
  MPI_Comm node;
  int n, P = tu_nprocs();
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n == P;
}

/* The file: the pattern, as long as the array and its padding (rank 0
 * writes it; then a barrier). */
static void prefill(const char *path, int64_t len) {
  if (tu_rank() == 0) {
    unsigned char *p = malloc((size_t)(DISP + len + PAD));
    memset(p, PATTERN, (size_t)(DISP + len + PAD));
    TU_CHECK(tu_write_file(path, p, DISP + len + PAD) == 0);
    free(p);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* What the rule above makes of my call. */
typedef struct expect {
  int64_t cycles, file_bytes, calls, mine;
  bool known; /* the groups are known here */
} expect_t;

static void expected(const cube_t *A, expect_t *e) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t cb = cube_hint(A->c->hints, "cb_buffer_size=", 4 << 20);
  int64_t s = cube_hint(A->c->hints, "cb_group_size=", 0);
  memset(e, 0, sizeof *e);
  e->known = s > 0 || one_node();
  s = s <= 0 || s > P ? P : s;
  int first = (int)(me / s * s), last = first + (int)s < P ? first + (int)s
                                                           : P;
  int64_t C = cb / 2 / 4 * 4, n3 = A->c->n * A->c->n * A->c->n;
  int64_t glo = -1, ghi = -1, prev = -2;
  e->mine = cube_rank_bytes(A, me);
  for (int64_t f = 0; f < n3; f++) { /* the group's extent, in elements */
    int64_t x[3], l[3];
    cube_at_file(A->c->n, A->perm, f, x);
    int r = cube_owner(A, x, l);
    if (r >= first && r < last)
      glo = glo < 0 ? f : glo, ghi = f + 1;
  }
  if (glo < 0)
    return;
  e->cycles = ((ghi - glo) * 4 + C - 1) / C;
  if (me != first)
    return;
  for (int64_t f = glo; f < ghi; f++) { /* a call per stretch per chunk */
    int64_t x[3], l[3], chunk = -1;
    cube_at_file(A->c->n, A->perm, f, x);
    int r = cube_owner(A, x, l);
    if (r >= first && r < last) {
      chunk = (f - glo) * 4 / C;
      e->file_bytes += 4;
    }
    e->calls += chunk >= 0 && chunk != prev;
    prev = chunk;
  }
}

static void check_counters(const cube_t *A, const darray_stats_t *sw,
                           const darray_stats_t *sr, const char *what) {
  expect_t e;
  expected(A, &e);
  int bad = 0;
  bad += !TU_EQ_STR(sw->strategy, "groups");
  bad += !TU_EQ_STR(sr->strategy, "groups");
  bad += !TU_EQ_I64(sw->bytes_exchanged, 0);
  bad += !TU_EQ_I64(sr->bytes_exchanged, 0);
  bad += !TU_EQ_I64(sw->bytes_copied, e.mine);
  bad += !TU_EQ_I64(sr->bytes_copied, e.mine);
  bad += !TU_CHECK(sw->peak_temp_bytes <=
                   cube_hint(A->c->hints, "cb_buffer_size=", 4 << 20));
  if (e.known) {
    bad += !TU_EQ_I64(sw->cycles, e.cycles);
    bad += !TU_EQ_I64(sr->cycles, e.cycles);
    bad += !TU_EQ_I64(sw->bytes_written, e.file_bytes);
    bad += !TU_EQ_I64(sr->bytes_read, e.file_bytes);
    bad += !TU_EQ_I64(sw->write_calls, e.calls);
    bad += !TU_EQ_I64(sr->read_calls, e.calls);
  }
  if (bad)
    TU_FAIL("rank %d: counters of %s", tu_rank(), what);
}

/* The case's file over the pattern. */
static darray_file_t open_case(const char *path, const cube_case_t *c,
                               const char *hints) {
  prefill(path, c->n * c->n * c->n * 4);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  return f;
}

static const cube_test_t this_test = {"groups", DISP, open_case, check_file,
                                      check_counters};

static void sweep(const char *path) {
  static const cube_case_t all[] = {
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, "cb_buffer_size=64"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "cb_buffer_size=1000"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, true, 0, "cb_buffer_size=200"},
      {12, "BBB", {0, 0, 0}, {-1, 1, 1}, true, 1, "cb_buffer_size=96"},
      {13, "BBB", {0, 0, 0}, {-1, 1, 1}, false, 0, "cb_group_size=1"},
      {12, "*C*", {0, 2, 0}, {1, -1, 1}, false, 0, "cb_buffer_size=300"},
      {11, "**C", {0, 0, 3}, {1, 1, -1}, true, 1, "cb_group_size=1;"
                                                  "cb_buffer_size=128"},
      {12, "B*C", {0, 0, 1}, {1, 1, -1}, false, 0, "cb_group_size=2;"
                                                   "cb_buffer_size=40"},
      {12, "B*C", {0, 0, 1}, {1, 1, -1}, true, 1, "cb_group_size=3;"
                                                  "cb_buffer_size=56"},
      {6, "**C", {0, 0, 2}, {1, 1, -1}, false, 0, "cb_group_size=4;"
                                                   "cb_buffer_size=8"},
      {5, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, "cb_buffer_size=48"},
      {5, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "cb_group_size=3"},
      {6, "**C", {0, 0, 9}, {1, 1, -1}, false, 0, "cb_group_size=2"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 1, "darray_backend=mpiio;"
                                                   "cb_buffer_size=100"},
      {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""},
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    cube_run(&this_test, &all[i], path, (int)i);
}

/* ---- against direct runs' file ------------------------------------------ */

/* Write a's buf (whole, or my box) to path with strategy s over the
 * pattern; read it back into back (sentinels first). */
static void write_read(const char *path, const char *s, darray_t a,
                       const int64_t *box, const void *buf, void *back,
                       int64_t nb) {
  int nd;
  int64_t gs[3];
  darray_global_shape(a, &nd, gs);
  prefill(path, gs[0] * gs[1] * gs[2] * 4);
  char hints[120];
  snprintf(hints, sizeof hints, "darray_strategy=%s;cb_buffer_size=72", s);
  MPI_Info info = tu_info(hints);
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  memset(back, 0x7f, (size_t)nb);
  if (box == NULL) {
    TU_OK(darray_write(f, a, buf));
    TU_OK(darray_read(f, a, back));
  } else {
    TU_OK(darray_write_section(f, a, box, box + 3, DARRAY_ORDER_C, buf));
    TU_OK(darray_read_section(f, a, box, box + 3, DARRAY_ORDER_C, back));
  }
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  TU_EQ_STR(st.strategy, s);
  TU_OK(darray_file_close(&f));
}

/* Both files and both read-backs the same. */
static void versus_direct(const char *p1, const char *p2, darray_t a,
                          const int64_t *box, int64_t nb, const char *what) {
  unsigned char *buf = malloc((size_t)nb + 1), *b1 = malloc((size_t)nb + 1),
                *b2 = malloc((size_t)nb + 1);
  for (int64_t i = 0; i < nb; i++)
    buf[i] = (unsigned char)(i * 7 + tu_rank() * 31 + 1);
  write_read(p1, "direct", a, box, buf, b1, nb);
  write_read(p2, "groups", a, box, buf, b2, nb);
  tu_compare_bytes(b1, b2, nb, what);
  if (tu_rank() == 0) {
    int64_t n1, n2;
    unsigned char *f1 = tu_read_file(p1, &n1), *f2 = tu_read_file(p2, &n2);
    TU_EQ_I64(n1, n2);
    if (f1 && f2 && n1 == n2)
      tu_compare_bytes(f1, f2, n1, what);
    free(f1);
    free(f2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  free(b1);
  free(b2);
}

/* MULTIPARTITION (P a square), then a box per process: the array's
 * quarter [0, n/2)^2 x [0, n) cut along the last dimension, so the
 * boxes interleave in the file and leave holes between them. */
static void against_direct(const char *p1, const char *p2) {
  int P = tu_nprocs(), q = 1;
  while ((q + 1) * (q + 1) <= P)
    q++;
  int64_t gs[3] = {9, 8, 10};
  darray_t a;
  int64_t nb;
  if (q * q == P) {
    darray_dist_t mp[3] = {DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION};
    TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
    TU_OK(darray_set_distribution(a, mp, NULL));
    TU_OK(darray_set_displacement(a, DISP));
    TU_OK(darray_commit(a));
    darray_local_bytes(a, &nb);
    versus_direct(p1, p2, a, NULL, nb, "multipartition");
    darray_free(&a);
  }
  TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_FORTRAN, NULL));
  TU_OK(darray_set_displacement(a, DISP));
  TU_OK(darray_commit(a));
  int64_t w = (gs[2] + P - 1) / P, lo = w * tu_rank();
  lo = lo < gs[2] ? lo : gs[2];
  int64_t box[6] = {0, 0, lo, gs[0] / 2, gs[1] / 2,
                    lo + w < gs[2] ? w : gs[2] - lo};
  nb = box[3] * box[4] * box[5] * 4;
  versus_direct(p1, p2, a, box, nb, "sections");
  darray_free(&a);
}

/* ---- refusals and explanations ------------------------------------------ */

/* cb_buffer_size too small for two elements: DARRAY_ELIMIT on every
 * process, nothing written; a bad cb_group_size: DARRAY_EHINT at open. */
static void refused(const char *path) {
  cube_refused(path, "groups");
  const char *bad[] = {"cb_group_size=-1", "cb_group_size=two",
                       "cb_group_size=4294967296"};
  for (int i = 0; i < 3; i++) {
    MPI_Info info = tu_info(bad[i]);
    darray_file_t f = NULL;
    TU_EQ_CODE(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info,
                                &f),
               DARRAY_EHINT);
    TU_CHECK(f == NULL);
    MPI_Info_free(&info);
  }
}

/* darray_explain lists groups: an estimate where the extents interleave
 * (1x1xP) and cb_group_size is given, why not on one process. */
static void explained(const char *path) {
  const cube_case_t c = {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""};
  cube_t A;
  darray_t a = cube_make(&c, DISP, &A);
  darray_file_t f = cube_open_new(path, "cb_group_size=1");
  char *text = tu_explain(f, a, 1);
  double us = -1;
  TU_EQ_INT(tu_estimate(text ? text : "", "groups", &us),
            tu_nprocs() > 1 ? 1 : 0);
  if (tu_nprocs() > 1)
    TU_CHECK(us > 0);
  free(text);
  darray_file_close(&f);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char path[512], p2[512];
  tu_tmpname(path, sizeof path, "groups");
  tu_tmpname(p2, sizeof p2, "groups2");
  sweep(path);
  against_direct(path, p2);
  refused(path);
  explained(path);
  tu_remove(path);
  tu_remove(p2);
  return tu_finish();
}
