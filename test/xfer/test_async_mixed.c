/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_mixed.c - a dump of arrays that differ in everything (shape,
 * number of dimensions, distribution, storage order, element size, memory
 * layout), stored one right after another, moves as one access
 * (darray_async = thread, src/async/async_merge.c: each cell read through
 * its own array's description).
 *
 * The arrays, from byte 0 of the file, each where the one before ends:
 *   0: 6x5x7 int64, BLOCK x BLOCK x BLOCK, C order;
 *   1: 9x4 int32, CYCLIC(2) x BLOCK, Fortran storage order, ghosts 1;
 *   2: 13 elements of 3 bytes (opaque), BLOCK: 39 bytes, so every array
 *      after it starts at an odd byte;
 *   3: 4x6x3 double, CYCLIC(1) x * x BLOCK, Fortran memory order;
 *   4: 3x4 double, BLOCK x CYCLIC(1), Fortran storage order;
 *   5: 5x7 int16, BLOCK x CYCLIC(3), ghosts 0 and 1.
 * With elements of 8, 4, 3, 8, 8 and 2 bytes a boundary drawn in the file
 * for all of them (a two-phase domain, a buffer's or window's end) falls
 * inside elements, which the tiny buffer hints below make happen often;
 * arrays 3 and 4 alone differ in shape but not in element size.
 *
 * The oracle: file byte o of array k (at displacement D_k) is the low byte
 * of tu_value(500 + k, o - D_k); rank 0 writes that reference file with
 * stdio and compares written files with it byte by byte, every byte
 * outside the written arrays being BG. The local buffers come from
 * blocking reads of the reference file, one array at a time; merged reads
 * into zeroed buffers must give the same bytes, ghosts included.
 *
 * For each strategy (chosen, or forced with small buffers), at 1-4
 * processes: all six arrays written with darray_iwrite and one
 * darray_wait_all (one merged access, 3 agreement rounds), then read
 * back the same way; arrays 1..3, and 3..4, alone (the others' bytes
 * stay BG); the six posted in reverse file order (no chain: each request
 * alone, bytes still right).
 * Run: mpiexec -n 1..4 ./test_async_mixed
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the library's test hooks (src/async/async.h) */
int64_t darray__async_rounds(const struct darray_file_s *f);
int64_t darray__async_merged(void);
void darray__async_hold(bool on);

#define NA 6
#define BG 0x5a

typedef struct {
  int nd;
  int64_t g[3];
  darray_type_t type;
  int64_t esize; /* for DARRAY_OPAQUE */
  darray_dist_t dist[3];
  int64_t dargs[3];
  darray_order_t file, mem;
  int64_t ghost[3];
} spec_t;

#define B DARRAY_DIST_BLOCK
#define C DARRAY_DIST_CYCLIC
#define N DARRAY_DIST_NONE
#define DA DARRAY_DEFAULT_ARG
#define CO DARRAY_ORDER_C
#define FO DARRAY_ORDER_FORTRAN
static const spec_t specs[NA] = {
    {3, {6, 5, 7}, DARRAY_INT64, 8, {B, B, B}, {DA, DA, DA}, CO, CO, {0}},
    {2, {9, 4}, DARRAY_INT32, 4, {C, B}, {2, DA}, FO, CO, {1, 1}},
    {1, {13}, DARRAY_OPAQUE, 3, {B}, {DA}, CO, CO, {0}},
    {3, {4, 6, 3}, DARRAY_DOUBLE, 8, {C, N, B}, {1, DA, DA}, CO, FO, {0}},
    {2, {3, 4}, DARRAY_DOUBLE, 8, {B, C}, {DA, 1}, FO, CO, {0}},
    {2, {5, 7}, DARRAY_INT16, 2, {B, C}, {DA, 3}, CO, CO, {0, 1}},
};

typedef struct {
  darray_t a[NA];
  int64_t disp[NA + 1]; /* disp[NA]: the file's size */
  int64_t local[NA];
  char *buf[NA], *back[NA];
} dump_t;

static int64_t spec_bytes(const spec_t *s) {
  int64_t n = s->esize;
  for (int d = 0; d < s->nd; d++)
    n *= s->g[d];
  return n;
}

static darray_t make_array(const spec_t *s, int64_t disp) {
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, s->nd, s->g, s->type, &a)) ||
      (s->type == DARRAY_OPAQUE &&
       !TU_OK(darray_set_elem_size(a, s->esize))) ||
      !TU_OK(darray_set_distribution(a, s->dist, s->dargs)) ||
      !TU_OK(darray_set_storage_order(a, s->file, NULL)) ||
      !TU_OK(darray_set_memory_layout(a, s->mem, s->ghost, NULL)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* The file with arrays k where want[k], BG elsewhere (malloc'ed). */
static unsigned char *file_bytes(const dump_t *t, const bool *want) {
  unsigned char *b = malloc((size_t)t->disp[NA]);
  memset(b, BG, (size_t)t->disp[NA]);
  for (int k = 0; k < NA; k++)
    if (want[k])
      tu_fill_bytes(b + t->disp[k], t->disp[k + 1] - t->disp[k],
                    (uint64_t)(500 + k), 0);
  return b;
}

/* Collective: rank 0 writes the file of want with stdio. */
static void file_write(const dump_t *t, const char *path, const bool *want) {
  if (tu_rank() == 0) {
    unsigned char *b = file_bytes(t, want);
    TU_CHECK(tu_write_file(path, b, t->disp[NA]) == 0);
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Collective: rank 0 compares path with the file of want. */
static void file_check(const dump_t *t, const char *path, const bool *want,
                       const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) {
    int64_t n = -1;
    unsigned char *got = tu_read_file(path, &n), *b = file_bytes(t, want);
    if (TU_EQ_I64(n, t->disp[NA]))
      tu_compare_bytes(got, b, n, what);
    free(got);
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static darray_file_t open_file(const char *path, const char *hints) {
  char h[300];
  snprintf(h, sizeof h, "%s%sdarray_async=thread", hints,
           hints[0] ? ";" : "");
  return tu_open(path, h, DARRAY_MODE_RDWR);
}

static void dump_make(dump_t *t, const char *ref) {
  bool all[NA] = {true, true, true, true, true, true};
  t->disp[0] = 0;
  for (int k = 0; k < NA; k++)
    t->disp[k + 1] = t->disp[k] + spec_bytes(&specs[k]);
  file_write(t, ref, all);
  darray_file_t f = open_file(ref, "");
  for (int k = 0; k < NA; k++) {
    t->a[k] = make_array(&specs[k], t->disp[k]);
    tu_arrays_local(f, t->a[k], &t->local[k], &t->buf[k], &t->back[k]);
  }
  TU_OK(darray_file_close(&f));
}

static void dump_free(dump_t *t) {
  for (int k = 0; k < NA; k++) {
    darray_free(&t->a[k]);
    free(t->buf[k]);
    free(t->back[k]);
  }
}

/* Post requests for arrays idx[0..n), writes or reads, with the thread
 * held; wait for all; check their codes; *merged and *rounds, what they
 * took. */
static void held(dump_t *t, darray_file_t f, int n, const int *idx,
                 bool write, int64_t *merged, int64_t *rounds) {
  darray_request_t req[NA];
  int codes[NA];
  int64_t r0 = darray__async_rounds(f), m0 = darray__async_merged();
  darray__async_hold(true);
  for (int i = 0; i < n; i++) {
    int k = idx[i];
    if (write) {
      TU_OK(darray_iwrite(f, t->a[k], t->buf[k], &req[i]));
    } else {
      memset(t->back[k], 0, (size_t)t->local[k]);
      TU_OK(darray_iread(f, t->a[k], t->back[k], &req[i]));
    }
  }
  darray__async_hold(false);
  darray_wait_all(f, n, req, codes);
  for (int i = 0; i < n; i++)
    TU_EQ_CODE(codes[i], DARRAY_SUCCESS);
  *merged = darray__async_merged() - m0;
  *rounds = darray__async_rounds(f) - r0;
}

/* Arrays idx[0..n) written, then read back, under the hints: one merged
 * access of 3 rounds each way where they form a chain (chain), else
 * none. */
static void dump_case(dump_t *t, const char *path, const char *hints,
                      int n, const int *idx, bool chain, const char *what) {
  bool none[NA] = {false}, want[NA] = {false};
  int64_t m, rounds;
  char text[300];
  for (int i = 0; i < n; i++)
    want[idx[i]] = true;
  file_write(t, path, none);
  darray_file_t f = open_file(path, hints);
  snprintf(text, sizeof text, "%s under \"%s\": writes", what, hints);
  held(t, f, n, idx, true, &m, &rounds);
  if (!TU_EQ_I64(m, chain ? 1 : 0) | (chain && !TU_EQ_I64(rounds, 3)))
    TU_FAIL("%s: %lld merged, %lld rounds", text, (long long)m,
            (long long)rounds);
  TU_OK(darray_file_sync(f));
  file_check(t, path, want, text);
  snprintf(text, sizeof text, "%s under \"%s\": reads", what, hints);
  held(t, f, n, idx, false, &m, &rounds);
  TU_EQ_I64(m, chain ? 1 : 0);
  for (int i = 0; i < n; i++)
    tu_compare_bytes(t->back[idx[i]], t->buf[idx[i]], t->local[idx[i]],
                     text);
  TU_OK(darray_file_close(&f));
}

/* Whether every array moves alone under the hints (a forced strategy may
 * refuse some: then it refuses the merged access too). */
static bool all_move(dump_t *t, const char *path, const char *hints) {
  bool all[NA] = {true, true, true, true, true, true}, ok = true;
  file_write(t, path, all);
  darray_file_t f = open_file(path, hints);
  for (int k = 0; k < NA; k++)
    ok = darray_write(f, t->a[k], t->buf[k]) == DARRAY_SUCCESS && ok;
  TU_OK(darray_file_close(&f));
  return ok;
}

int main(int argc, char **argv) {
  int got = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  if (got < MPI_THREAD_MULTIPLE)
    return tu_skip("merged requests need MPI_THREAD_MULTIPLE");
  char dir[256], ref[300], path[300];
  if (tu_tmpname(dir, sizeof dir, "darray_mixed") == NULL)
    return tu_finish();
  snprintf(ref, sizeof ref, "%s_ref", dir);
  snprintf(path, sizeof path, "%s_out", dir);
  static const char *const hints[] = {
      "",
      "darray_strategy=twophase;cb_buffer_size=64",
      "darray_strategy=twophase;cb_buffer_size=1000",
      "darray_strategy=direct;ind_wr_buffer_size=16;ind_rd_buffer_size=16",
      "darray_strategy=sieve;ind_rd_buffer_size=50;ind_wr_buffer_size=37",
      "darray_strategy=static;cb_buffer_size=96",
      "darray_strategy=groups;cb_buffer_size=128",
      "darray_strategy=mapped",
      "darray_strategy=rows"};
  bool slow = getenv("DARRAY_TEST_VALGRIND") != NULL;
  size_t nh = slow ? 2 : sizeof hints / sizeof *hints;
  static const int all[NA] = {0, 1, 2, 3, 4, 5}, mid[3] = {1, 2, 3};
  static const int same[2] = {3, 4}, back[NA] = {5, 4, 3, 2, 1, 0};
  dump_t t;
  dump_make(&t, ref);
  for (size_t h = 0; h < nh; h++) {
    if (!all_move(&t, path, hints[h])) { /* nothing to merge */
      if (!TU_CHECK(strstr(hints[h], "=rows") != NULL))
        TU_FAIL("\"%s\" refuses an array alone", hints[h]); /* only
                  rows may (one process: no grouping) */
      continue;
    }
    bool merges = strstr(hints[h], "=rows") == NULL;
    dump_case(&t, path, hints[h], NA, all, merges, "six arrays");
    dump_case(&t, path, hints[h], 3, mid, merges, "arrays 1..3");
    dump_case(&t, path, hints[h], 2, same, merges, "arrays 3..4");
  }
  dump_case(&t, path, "", NA, back, false, "reverse file order");
  dump_free(&t);
  tu_remove(path);
  tu_remove(ref);
  return tu_finish();
}
