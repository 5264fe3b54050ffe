/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * cube_util.c - the strategy tests' n^3 int32 arrays, their serial
 * reference and their shared checks (cube_util.h).
 */
#include "cube_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- every strategy test ------------------------------------------------ */

int32_t cube_val(int64_t n, const int64_t x[3], int salt) {
  return (int32_t)(((x[0] * n + x[1]) * n + x[2]) * 2654435761u +
                   (uint32_t)salt);
}

void cube_at_file(int64_t n, const int perm[3], int64_t f, int64_t x[3]) {
  x[perm[0]] = f / (n * n);
  x[perm[1]] = f / n % n;
  x[perm[2]] = f % n;
}

void cube_check_file(int64_t n, const int perm[3], const char *path,
                     int salt, const char *what) {
  if (tu_rank() == 0) {
    int64_t size, bad = 0;
    unsigned char *file = tu_read_file(path, &size);
    TU_EQ_I64(size, n * n * n * 4);
    for (int64_t f = 0; file && f < size / 4; f++) {
      int64_t x[3];
      int32_t v;
      cube_at_file(n, perm, f, x);
      memcpy(&v, file + 4 * f, 4);
      bad += v != cube_val(n, x, salt);
    }
    if (!TU_EQ_I64(bad, 0))
      TU_FAIL("%s: wrong elements on disk", what);
    free(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void cube_check_read(darray_t a, const int32_t *buf, int64_t nbytes,
                     int64_t bad, const char *what) {
  int64_t sentinels = 0, count;
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("%s: wrong elements read", what);
  for (int64_t e = 0; e < nbytes / 4; e++)
    sentinels += buf[e] == 0x7f7f7f7f;
  darray_local_count(a, &count);
  TU_EQ_I64(sentinels, nbytes / 4 - count);
}

int cube_agreed(int rc) {
  int lo = rc, hi = rc;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  TU_EQ_INT(lo, hi);
  return rc;
}

darray_file_t cube_open_new(const char *path, const char *hints) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
  return f;
}

/* A write or a read, blocking or as a request (darray_async as the file
 * says: in the I/O thread at MPI_THREAD_MULTIPLE). */
static int move(darray_file_t f, darray_t a, int32_t *buf, bool write,
                bool nb) {
  darray_request_t rq;
  if (!nb)
    return write ? darray_write(f, a, buf) : darray_read(f, a, buf);
  int rc = write ? darray_iwrite(f, a, buf, &rq) : darray_iread(f, a, buf, &rq);
  return rc != DARRAY_SUCCESS ? rc : darray_wait(f, &rq);
}

void cube_write(darray_file_t f, darray_t a, int32_t *buf, bool nb,
                darray_stats_t *st) {
  darray_file_reset_stats(f);
  TU_OK(move(f, a, buf, true, nb));
  darray_file_get_stats(f, st);
  darray_file_reset_stats(f);
}

void cube_read(darray_file_t f, darray_t a, int32_t *buf, int64_t nbytes,
               bool nb, darray_stats_t *st) {
  memset(buf, 0x7f, (size_t)nbytes); /* sentinel: ghosts must keep it */
  TU_OK(move(f, a, buf, false, nb));
  darray_file_get_stats(f, st);
}

/* ---- the placement (test_groups, test_static) --------------------------- */

/* Coordinate and local index of global index x along one dimension. */
static void place(const cube_case_t *c, int d, int p, int64_t x, int *co,
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

int cube_owner(const cube_t *A, const int64_t x[3], int64_t l[3]) {
  int r = 0;
  for (int d = 0; d < 3; d++) {
    int co;
    place(A->c, d, A->ps[d], x[d], &co, &l[d]);
    r = r * A->ps[d] + co;
  }
  return r;
}

/* Every process's local shape, counted from the placement. */
static void shapes(cube_t *A) {
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

int64_t cube_rank_bytes(const cube_t *A, int r) {
  return A->ln[r][0] * A->ln[r][1] * A->ln[r][2] * 4;
}

void cube_fill_or_check(const cube_t *A, int32_t *buf, int salt, int check,
                        int64_t *bad) {
  int me = tu_rank();
  int64_t g = A->c->ghost, n = A->c->n;
  const int64_t *ln = A->ln[me];
  int64_t ext[3] = {ln[0] + 2 * g, ln[1] + 2 * g, ln[2] + 2 * g};
  for (int64_t f = 0; f < n * n * n; f++) {
    int64_t x[3], l[3];
    cube_at_file(n, A->perm, f, x);
    if (cube_owner(A, x, l) != me)
      continue;
    int64_t p = ((l[0] + g) * ext[1] + (l[1] + g)) * ext[2] + (l[2] + g);
    if (!check)
      buf[p] = cube_val(n, x, salt);
    else if (buf[p] != cube_val(n, x, salt))
      (*bad)++;
  }
}

darray_t cube_make(const cube_case_t *c, int64_t disp, cube_t *A) {
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
  if (disp != 0)
    TU_OK(darray_set_displacement(a, disp));
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
  TU_EQ_I64(count * 4, cube_rank_bytes(A, tu_rank()));
  return a;
}

int64_t cube_hint(const char *hints, const char *key, int64_t dflt) {
  const char *p = strstr(hints, key);
  return p != NULL ? strtoll(p + strlen(key), NULL, 10) : dflt;
}

/* ---- the round of a sweep ----------------------------------------------- */

void cube_run(const cube_test_t *t, const cube_case_t *c, const char *path,
              int salt) {
  cube_t A;
  darray_t a = cube_make(c, t->disp, &A);
  if (a == NULL)
    return;
  int64_t nbytes;
  darray_local_bytes(a, &nbytes);
  int32_t *buf = calloc((size_t)nbytes / 4 + 1, 4);
  cube_fill_or_check(&A, buf, salt, 0, NULL);
  char hints[300];
  snprintf(hints, sizeof hints, "darray_strategy=%s;%s", t->strategy,
           c->hints);
  darray_file_t f = t->open(path, c, hints);
  char what[200];
  snprintf(what, sizeof what, "n=%lld %c%c%c grid %dx%dx%d %s ghost %lld '%s'",
           (long long)c->n, c->dist[0], c->dist[1], c->dist[2], A.ps[0],
           A.ps[1], A.ps[2], c->fortran ? "F" : "C", (long long)c->ghost,
           c->hints);
  darray_stats_t sw, sr;
  cube_write(f, a, buf, false, &sw);
  t->check_file(&A, path, salt, what);
  cube_read(f, a, buf, nbytes, false, &sr);
  int64_t bad = 0;
  cube_fill_or_check(&A, buf, salt, 1, &bad);
  cube_check_read(a, buf, nbytes, bad, what);
  t->check_counters(&A, &sw, &sr, what);
  if (tu_any_failed() && tu_rank() == 0)
    fprintf(stderr, "test_%s: after %s\n", t->strategy, what);
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

void cube_refused(const char *path, const char *strategy) {
  int64_t gs[3] = {8, 8, 8};
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a));
  TU_OK(darray_commit(a));
  int64_t nb;
  darray_local_bytes(a, &nb);
  char *buf = calloc((size_t)nb + 1, 1);
  char hints[100], why[100];
  snprintf(hints, sizeof hints, "darray_strategy=%s;cb_buffer_size=7",
           strategy);
  snprintf(why, sizeof why, "darray_strategy=%s: cb_buffer_size", strategy);
  darray_file_t f = cube_open_new(path, hints);
  TU_EQ_CODE(cube_agreed(darray_write(f, a, buf)), DARRAY_ELIMIT);
  TU_CONTAINS(darray_file_errmsg(f), why);
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
