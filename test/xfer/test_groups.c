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
 * Run: mpiexec -n 1..4 ./test_groups
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISP 40
#define PAD 24
#define PATTERN 0xa5

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
  TU_OK(darray_set_displacement(a, DISP));
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

/* The array at DISP, between PAD bytes of the pattern before and after
 * it, which the write must leave alone. */
static void check_file(const arr_t *A, const char *path, int salt,
                       const char *what) {
  if (tu_rank() == 0) {
    int64_t size, bad = 0, n = A->c->n, len = n * n * n * 4;
    unsigned char *file = tu_read_file(path, &size);
    TU_EQ_I64(size, DISP + len + PAD);
    for (int64_t f = 0; file && size == DISP + len + PAD && f < len / 4;
         f++) {
      int64_t x[3];
      int32_t v;
      at_file(A, f, x);
      memcpy(&v, file + DISP + 4 * f, 4);
      bad += v != val(n, x, salt);
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

static int64_t hint_num(const char *hints, const char *key, int64_t dflt) {
  const char *p = strstr(hints, key);
  return p != NULL ? strtoll(p + strlen(key), NULL, 10) : dflt;
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

static void expected(const arr_t *A, expect_t *e) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t cb = hint_num(A->c->hints, "cb_buffer_size=", 4 << 20);
  int64_t s = hint_num(A->c->hints, "cb_group_size=", 0);
  memset(e, 0, sizeof *e);
  e->known = s > 0 || one_node();
  s = s <= 0 || s > P ? P : s;
  int first = (int)(me / s * s), last = first + (int)s < P ? first + (int)s
                                                           : P;
  int64_t C = cb / 2 / 4 * 4, n3 = A->c->n * A->c->n * A->c->n;
  int64_t glo = -1, ghi = -1, prev = -2;
  e->mine = rank_bytes(A, me);
  for (int64_t f = 0; f < n3; f++) { /* the group's extent, in elements */
    int64_t x[3], l[3];
    at_file(A, f, x);
    int r = owner(A, x, l);
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
    at_file(A, f, x);
    int r = owner(A, x, l);
    if (r >= first && r < last) {
      chunk = (f - glo) * 4 / C;
      e->file_bytes += 4;
    }
    e->calls += chunk >= 0 && chunk != prev;
    prev = chunk;
  }
}

static void check_counters(const arr_t *A, const darray_stats_t *sw,
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
                   hint_num(A->c->hints, "cb_buffer_size=", 4 << 20));
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

static darray_file_t open_groups(const char *path, const char *more) {
  char hints[300];
  snprintf(hints, sizeof hints, "darray_strategy=groups;%s", more);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  return f;
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
  prefill(path, c->n * c->n * c->n * 4);
  darray_file_t f = open_groups(path, c->hints);
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
    fprintf(stderr, "test_groups: after %s\n", what);
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

static void sweep(const char *path) {
  static const tcase_t all[] = {
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
    run_case(&all[i], path, (int)i);
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
  int64_t gs[3] = {8, 8, 8};
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
  TU_OK(darray_commit(a));
  int64_t nb;
  darray_local_bytes(a, &nb);
  char *buf = calloc((size_t)nb + 1, 1);
  MPI_Info info = tu_info("darray_strategy=groups;cb_buffer_size=7");
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
  TU_CONTAINS(darray_file_errmsg(f), "darray_strategy=groups: cb_buffer_size");
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
  const char *bad[] = {"cb_group_size=-1", "cb_group_size=two",
                       "cb_group_size=4294967296"};
  for (int i = 0; i < 3; i++) {
    info = tu_info(bad[i]);
    f = NULL;
    TU_EQ_CODE(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info,
                                &f),
               DARRAY_EHINT);
    TU_CHECK(f == NULL);
    MPI_Info_free(&info);
  }
  free(buf);
  darray_free(&a);
}

/* darray_explain lists groups: an estimate where the extents interleave
 * (1x1xP) and cb_group_size is given, why not on one process. */
static void explained(const char *path) {
  const tcase_t c = {12, "BBB", {0, 0, 0}, {1, 1, -1}, false, 0, ""};
  arr_t A;
  darray_t a = make_array(&c, &A);
  MPI_Info info = tu_info("cb_group_size=1");
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
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
