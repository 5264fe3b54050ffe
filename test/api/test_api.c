/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_api.c - the public queries of a committed array, and the file runs
 * of every rank, against first-principles oracles (1-4 ranks).
 *
 * For a table of descriptions (BLOCK, BLOCK(k), CYCLIC, CYCLIC(k), NONE,
 * MULTIPARTITION; C, Fortran and permuted storage; ghosts, padding,
 * displacements; uneven sizes and ranks that own nothing):
 *  - darray_grid, darray_num_cells, darray_local_shape/start/count/bytes,
 *    darray_global_shape, darray_elem_size against layout_oracle.h;
 *  - darray_locate, darray_file_offset and darray_global_index over every
 *    element, and their round trip;
 *  - the elements named by darray_global_index over every rank's local
 *    indices cover the array exactly once (summed over ranks);
 *  - the run iterator and copy (internal) on this rank's committed sections
 *    and on every rank's sections from darray__dist_sections.
 * The grid oracle is MPI_Dims_create (as documented), plus hand values.
 */
#include "array.h"
#include "layout/layout.h"
#include "layout_oracle.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GRID_AUTO = 0, GRID_ROW = 1, GRID_COL = 2 }; /* {P,1..}, {1,..,P} */

typedef struct api_case {
  const char *name;
  int ndims;
  int64_t gsizes[DARRAY_MAX_DIMS];
  darray_type_t type;
  int64_t esize; /* for DARRAY_OPAQUE */
  darray_dist_t dist[DARRAY_MAX_DIMS];
  int64_t dargs[DARRAY_MAX_DIMS]; /* 0 = DARRAY_DEFAULT_ARG */
  int grid;
  darray_order_t forder;
  int perm[DARRAY_MAX_DIMS];
  int64_t disp;
  darray_order_t morder;
  int64_t ghost[DARRAY_MAX_DIMS];
  int pad_extra; /* padded = largest local extent + 2 ghost + pad_extra */
  int bt;        /* BT memory: padded = N/q + 1 + 4 on the MP dims */
} api_case_t;

#define B DARRAY_DIST_BLOCK
#define C DARRAY_DIST_CYCLIC
#define N DARRAY_DIST_NONE
#define M DARRAY_DIST_MULTIPARTITION
#define OC DARRAY_ORDER_C
#define OF DARRAY_ORDER_FORTRAN
#define OP DARRAY_ORDER_PERM

/* clang-format off */
static const api_case_t cases[] = {
    {"10x7 int32 BLOCK", 2, {10, 7}, DARRAY_INT32, 0, {B, B}, {0}, GRID_AUTO,
     OC, {0}, 0, OC, {0}, -1, 0},
    {"10x7 double BLOCK x CYCLIC(2), Fortran file, ghost {1,2}", 2, {10, 7},
     DARRAY_DOUBLE, 0, {B, C}, {0, 2}, GRID_AUTO, OF, {0}, 0, OC, {1, 2}, -1,
     0},
    {"13 int16 CYCLIC(1)", 1, {13}, DARRAY_INT16, 0, {C}, {0}, GRID_AUTO, OC,
     {0}, 3, OC, {0}, -1, 0},
    {"11 int32 CYCLIC(2) (partial last block), ghost 1, padded", 1, {11},
     DARRAY_INT32, 0, {C}, {2}, GRID_AUTO, OC, {0}, 0, OC, {1}, 1, 0},
    {"5 int64 BLOCK (empty ranks at P=4)", 1, {5}, DARRAY_INT64, 0, {B}, {0},
     GRID_AUTO, OC, {0}, 0, OC, {1}, -1, 0},
    {"2 int32 BLOCK, ghost 1 (empty ranks at P>2)", 1, {2}, DARRAY_INT32, 0,
     {B}, {0}, GRID_AUTO, OC, {0}, 0, OC, {1}, -1, 0},
    {"3 BLOCK(4): rank 0 owns all", 1, {3}, DARRAY_INT32, 0, {B}, {4},
     GRID_AUTO, OC, {0}, 0, OC, {0}, -1, 0},
    {"5x4x6 float CYCLIC(2) x * x BLOCK, perm {2,0,1}, Fortran memory", 3,
     {5, 4, 6}, DARRAY_FLOAT, 0, {C, N, B}, {2, 0, 0}, GRID_AUTO, OP,
     {2, 0, 1}, 0, OF, {0, 1, 0}, 1, 0},
    {"6x9 char grid {1,P} BLOCK x CYCLIC(3), disp 17", 2, {6, 9}, DARRAY_CHAR,
     0, {B, C}, {0, 3}, GRID_COL, OC, {0}, 17, OC, {0}, -1, 0},
    {"7x5 uint16 grid {P,1} CYCLIC x BLOCK(5), Fortran/Fortran", 2, {7, 5},
     DARRAY_UINT16, 0, {C, B}, {0, 5}, GRID_ROW, OF, {0}, 0, OF, {1, 0}, -1,
     0},
    {"3x5x7 opaque(3) CYCLIC^3", 3, {3, 5, 7}, DARRAY_OPAQUE, 3, {C, C, C},
     {0}, GRID_AUTO, OC, {0}, 5, OC, {0}, -1, 0},
    {"2x3x2x5 uint8 BLOCK^4 ghost 1 padded", 4, {2, 3, 2, 5}, DARRAY_UINT8, 0,
     {B, B, B, B}, {0}, GRID_AUTO, OF, {0}, 0, OC, {1, 1, 1, 1}, 2, 0},
    {"8-D 2x1x3x1x2x2x1x3 int16 mixed", 8, {2, 1, 3, 1, 2, 2, 1, 3},
     DARRAY_INT16, 0, {B, C, C, N, B, C, B, C}, {0, 0, 2, 0, 0, 0, 0, 2},
     GRID_AUTO, OF, {0}, 2, OC, {1, 0, 0, 1, 0, 1, 0, 0}, -1, 0},
    {"3x2 BLOCK grid auto", 2, {3, 2}, DARRAY_INT64, 0, {B, B}, {0},
     GRID_AUTO, OP, {1, 0}, 0, OC, {0}, -1, 0},
    {"BT class S: {5,12,12,12} MP, Fortran, ghost {0,2,2,2}", 4,
     {5, 12, 12, 12}, DARRAY_DOUBLE, 0, {N, M, M, M}, {0}, GRID_AUTO, OF, {0},
     0, OF, {0, 2, 2, 2}, -1, 1},
    {"BT N=7: {5,7,7,7} MP (uneven slabs)", 4, {5, 7, 7, 7}, DARRAY_DOUBLE, 0,
     {N, M, M, M}, {0}, GRID_AUTO, OF, {0}, 40, OF, {0, 2, 2, 2}, -1, 1},
    {"6x5x7 int32 MP, C file, C memory ghost 1", 3, {6, 5, 7}, DARRAY_INT32,
     0, {M, M, M}, {0}, GRID_AUTO, OC, {0}, 0, OC, {1, 1, 1}, -1, 0},
    {"4x5x3x2 MP on dims 0,2,3, perm {3,1,0,2}", 4, {4, 5, 3, 2},
     DARRAY_INT16, 0, {M, N, M, M}, {0}, GRID_AUTO, OP, {3, 1, 0, 2}, 0, OF,
     {0}, -1, 0},
};
/* clang-format on */

static int esize_of(const api_case_t *tc) {
  switch (tc->type) {
  case DARRAY_CHAR:
  case DARRAY_UINT8:
    return 1;
  case DARRAY_INT16:
  case DARRAY_UINT16:
    return 2;
  case DARRAY_INT32:
  case DARRAY_FLOAT:
    return 4;
  case DARRAY_INT64:
  case DARRAY_DOUBLE:
    return 8;
  default:
    return (int)tc->esize;
  }
}

static int is_mp(const api_case_t *tc) {
  for (int d = 0; d < tc->ndims; d++)
    if (tc->dist[d] == M)
      return 1;
  return 0;
}

static int isqrt_brute(int p) {
  for (int r = 1; r * r <= p; r++)
    if (r * r == p)
      return r;
  return -1;
}

/* The oracle model of a case at P ranks, and the psizes to request. */
static void build_model(const api_case_t *tc, int P, lo_array_t *A, int req[]) {
  memset(A, 0, sizeof *A);
  A->ndims = tc->ndims;
  A->esize = esize_of(tc);
  A->disp = tc->disp;
  A->nprocs = P;
  A->mem_fortran = tc->morder == OF;
  A->q = is_mp(tc) ? isqrt_brute(P) : 0;
  for (int d = 0; d < tc->ndims; d++) {
    A->gsizes[d] = tc->gsizes[d];
    A->dist[d] = tc->dist[d];
    A->perm[d] = tc->forder == OC   ? d
                 : tc->forder == OF ? tc->ndims - 1 - d
                                    : tc->perm[d];
    A->ghost[d] = tc->ghost[d];
    req[d] = 0;
    if (tc->grid == GRID_ROW)
      req[d] = d == 0 ? P : 1;
    else if (tc->grid == GRID_COL)
      req[d] = d == tc->ndims - 1 ? P : 1;
  }
  if (A->q > 0) {
    for (int d = 0; d < tc->ndims; d++) {
      A->psizes[d] = 1; /* the oracle's owner formula needs no grid */
      A->block[d] = A->gsizes[d];
    }
  } else {
    int ps[DARRAY_MAX_DIMS];
    for (int d = 0; d < tc->ndims; d++)
      ps[d] = tc->dist[d] == N ? 1 : req[d];
    MPI_Dims_create(P, tc->ndims, ps);
    for (int d = 0; d < tc->ndims; d++) {
      int64_t n = A->gsizes[d], p = ps[d];
      A->psizes[d] = ps[d];
      if (tc->dist[d] == B)
        A->block[d] = tc->dargs[d] > 0 ? tc->dargs[d] : (n + p - 1) / p;
      else if (tc->dist[d] == C)
        A->block[d] = tc->dargs[d] > 0 ? tc->dargs[d] : 1;
      else
        A->block[d] = n;
    }
  }
  for (int d = 0; d < tc->ndims; d++) {
    A->padded[d] = 0;
    if (tc->bt && tc->dist[d] == M)
      A->padded[d] = tc->gsizes[d] / A->q + 1 + 4; /* IMAX + 4 */
    else if (tc->bt)
      A->padded[d] = tc->gsizes[d];
    else if (tc->pad_extra >= 0) {
      int64_t m = 0, ls[DARRAY_MAX_DIMS], st[DARRAY_MAX_DIMS];
      for (int r = 0; r < P; r++)
        for (int c = 0; c < lo_ncells(A); c++) {
          lo_cell_shape(A, r, c, ls, st);
          m = ls[d] > m ? ls[d] : m;
        }
      A->padded[d] = m + 2 * tc->ghost[d] + tc->pad_extra;
    }
  }
}

static darray_t make_array(const api_case_t *tc, const lo_array_t *A,
                           const int req[]) {
  darray_t a = NULL;
  if (!TU_OK(
          darray_create(MPI_COMM_WORLD, tc->ndims, tc->gsizes, tc->type, &a)))
    return NULL;
  int64_t dargs[DARRAY_MAX_DIMS];
  for (int d = 0; d < DARRAY_MAX_DIMS; d++)
    dargs[d] = tc->dargs[d] > 0 ? tc->dargs[d] : DARRAY_DEFAULT_ARG;
  if (tc->type == DARRAY_OPAQUE)
    TU_OK(darray_set_elem_size(a, tc->esize));
  TU_OK(darray_set_distribution(a, tc->dist, dargs));
  if (!is_mp(tc))
    TU_OK(darray_set_grid(a, req));
  TU_OK(darray_set_storage_order(a, tc->forder, tc->perm));
  TU_OK(darray_set_displacement(a, tc->disp));
  TU_OK(darray_set_memory_layout(a, tc->morder, tc->ghost, A->padded));
  int rc = darray_commit(a);
  if (!TU_OK(rc)) {
    fprintf(stderr, "  %s: commit: %s\n", tc->name, darray_errmsg(a));
    darray_free(&a);
    return NULL;
  }
  return a;
}

/* Grid, cells, shapes, counts, bytes. */
static void check_local(const api_case_t *tc, const lo_array_t *A, darray_t a) {
  int me = tu_rank(), nd = -1, ps[DARRAY_MAX_DIMS];
  int64_t g[DARRAY_MAX_DIMS], es = -1;
  TU_OK(darray_global_shape(a, &nd, g));
  TU_EQ_INT(nd, tc->ndims);
  for (int d = 0; d < tc->ndims; d++)
    TU_EQ_I64(g[d], tc->gsizes[d]);
  TU_OK(darray_elem_size(a, &es));
  TU_EQ_I64(es, A->esize);
  TU_OK(darray_grid(a, ps));
  for (int d = 0; d < tc->ndims; d++) {
    int want = A->q > 0 ? (tc->dist[d] == M ? A->q : 1) : A->psizes[d];
    if (!TU_EQ_INT(ps[d], want))
      fprintf(stderr, "  %s: grid dim %d\n", tc->name, d);
  }
  int64_t count = 0;
  for (int c = 0; c < lo_ncells(A); c++) {
    int64_t ls[DARRAY_MAX_DIMS], st[DARRAY_MAX_DIMS], n = 1;
    lo_cell_shape(A, me, c, ls, st);
    for (int d = 0; d < tc->ndims; d++)
      n *= ls[d];
    if (n == 0) /* documented: a process that owns nothing gets zeros */
      for (int d = 0; d < tc->ndims; d++)
        ls[d] = st[d] = 0;
    count += n;
    int64_t gls[DARRAY_MAX_DIMS], gst[DARRAY_MAX_DIMS];
    TU_OK(darray_local_shape(a, c, gls));
    TU_OK(darray_local_start(a, c, gst));
    for (int d = 0; d < tc->ndims; d++)
      if (!TU_EQ_I64(gls[d], ls[d]) || !TU_EQ_I64(gst[d], st[d]))
        fprintf(stderr, "  %s: rank %d cell %d dim %d\n", tc->name, me, c, d);
  }
  int ncells = -1;
  TU_OK(darray_num_cells(a, &ncells));
  TU_EQ_INT(ncells, A->q > 0 ? A->q : (count > 0 ? 1 : 0));
  int64_t lc = -1, lb = -1;
  TU_OK(darray_local_count(a, &lc));
  TU_EQ_I64(lc, count);
  TU_OK(darray_local_bytes(a, &lb));
  if (!TU_EQ_I64(lb, lo_local_bytes(A, me)))
    fprintf(stderr, "  %s: local_bytes on rank %d\n", tc->name, me);
  if (tc->bt) { /* BTIO.md: q cells of 5*(IMAX+4)^3 doubles */
    int64_t e = tc->gsizes[1] / A->q + 1 + 4;
    TU_EQ_I64(lb, (int64_t)A->q * 5 * e * e * e * 8);
  }
}

/* locate, file_offset, global_index over every element. */
static void check_elements(const api_case_t *tc, const lo_array_t *A,
                           darray_t a) {
  int me = tu_rank(), bad = 0;
  int64_t n = lo_nelems(A);
  for (int64_t L = 0; L < n && bad < 3; L++) {
    int64_t g[DARRAY_MAX_DIMS], lidx[DARRAY_MAX_DIMS], glidx[DARRAY_MAX_DIMS],
        back[DARRAY_MAX_DIMS];
    int owner, cell, grank = -1, gcell = -1;
    int64_t goff = -1, foff = -1;
    lo_gidx_of_linear(A, L, g);
    lo_owner(A, g, &owner, &cell, lidx);
    int ok = TU_OK(darray_locate(a, g, &grank, &gcell, glidx, &goff));
    ok = ok && TU_EQ_INT(grank, owner) && TU_EQ_INT(gcell, cell);
    for (int d = 0; ok && d < tc->ndims; d++)
      ok = TU_EQ_I64(glidx[d], lidx[d]);
    ok = ok && TU_EQ_I64(goff, lo_mem_offset(A, owner, cell, lidx));
    ok = ok && TU_OK(darray_file_offset(a, g, &foff)) &&
         TU_EQ_I64(foff, lo_file_offset(A, g));
    ok = ok && TU_OK(darray_global_index(a, owner, cell, lidx, back));
    for (int d = 0; ok && d < tc->ndims; d++)
      ok = TU_EQ_I64(back[d], g[d]);
    if (!ok) {
      bad++;
      fprintf(stderr, "  %s: rank %d element %lld\n", tc->name, me,
              (long long)L);
    }
  }
  /* the outputs may be NULL */
  int64_t zero[DARRAY_MAX_DIMS] = {0};
  TU_OK(darray_locate(a, zero, NULL, NULL, NULL, NULL));
}

/* Every rank names its own elements with global_index; summed over ranks,
 * each element must be named exactly once. */
static void check_cover(const api_case_t *tc, const lo_array_t *A, darray_t a) {
  int64_t n = lo_nelems(A);
  int *mark = calloc((size_t)n, sizeof *mark);
  int *sum = calloc((size_t)n, sizeof *sum);
  int ncells = 0, me = tu_rank();
  darray_num_cells(a, &ncells);
  for (int c = 0; c < ncells; c++) {
    int64_t ls[DARRAY_MAX_DIMS], l[DARRAY_MAX_DIMS] = {0}, tot = 1;
    darray_local_shape(a, c, ls);
    for (int d = 0; d < tc->ndims; d++)
      tot *= ls[d];
    for (int64_t k = 0; k < tot; k++) {
      int64_t rem = k, g[DARRAY_MAX_DIMS];
      for (int d = tc->ndims - 1; d >= 0; d--) {
        l[d] = rem % ls[d];
        rem /= ls[d];
      }
      if (!TU_OK(darray_global_index(a, me, c, l, g)))
        break;
      int64_t L = 0;
      for (int d = 0; d < tc->ndims; d++)
        L = L * tc->gsizes[d] + g[d];
      if (TU_CHECK(L >= 0 && L < n))
        mark[L]++;
    }
  }
  MPI_Allreduce(mark, sum, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int64_t wrong = 0, first = -1;
  for (int64_t L = 0; L < n; L++)
    if (sum[L] != 1) {
      wrong++;
      first = first < 0 ? L : first;
    }
  if (!TU_EQ_I64(wrong, 0))
    fprintf(stderr,
            "  %s: %lld elements not named exactly once (first %lld,"
            " %d times)\n",
            tc->name, (long long)wrong, (long long)first, sum[first]);
  free(mark);
  free(sum);
}

/* Runs of this rank (committed sections) and of every rank. */
static void check_runs(const api_case_t *tc, const lo_array_t *A, darray_t a) {
  const struct darray_s *s = a;
  char what[300];
  snprintf(what, sizeof what, "%s (own sections)", tc->name);
  lo_check_iter(A, &s->d, s->sec, s->nsec, tu_rank(), what);
  for (int r = 0; r < A->nprocs; r++) {
    section_t *sec = NULL;
    int nsec = 0;
    if (!TU_OK(darray__dist_sections(&s->d, r, &sec, &nsec)))
      continue;
    snprintf(what, sizeof what, "%s (sections of rank %d)", tc->name, r);
    lo_check_iter(A, &s->d, sec, nsec, r, what);
    free(sec);
  }
}

/* The displacement may change after commit; offsets follow it. */
static void check_displacement(const api_case_t *tc, lo_array_t *A,
                               darray_t a) {
  int64_t g[DARRAY_MAX_DIMS] = {0}, o1 = -1, o2 = -1;
  for (int d = 0; d < tc->ndims; d++)
    g[d] = tc->gsizes[d] - 1;
  TU_OK(darray_file_offset(a, g, &o1));
  TU_OK(darray_set_displacement(a, A->disp + 1000));
  TU_OK(darray_file_offset(a, g, &o2));
  TU_EQ_I64(o2 - o1, 1000);
  A->disp += 1000;
  TU_EQ_I64(o2, lo_file_offset(A, g));
  const struct darray_s *s = a;
  lo_check_iter(A, &s->d, s->sec, s->nsec, tu_rank(), "after set_displacement");
  A->disp -= 1000;
  TU_OK(darray_set_displacement(a, A->disp));
}

/* Hand values of the grid, so the MPI_Dims_create oracle is not alone. */
static void check_grid_literal(void) {
  int P = tu_nprocs();
  int64_t g[3] = {8, 8, 8};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)))
    return;
  if (TU_OK(darray_commit(a))) {
    int ps[2] = {-1, -1};
    static const int want[5][2] = {{0, 0}, {1, 1}, {2, 1}, {3, 1}, {2, 2}};
    TU_OK(darray_grid(a, ps));
    if (P <= 4) {
      TU_EQ_INT(ps[0], want[P][0]);
      TU_EQ_INT(ps[1], want[P][1]);
    }
  }
  darray_free(&a);
  /* {*, BLOCK, BLOCK} with a free grid: the NONE dimension gets 1 */
  darray_dist_t dist[3] = {N, B, B};
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, g, DARRAY_INT32, &a)))
    return;
  TU_OK(darray_set_distribution(a, dist, NULL));
  if (TU_OK(darray_commit(a))) {
    int ps[3] = {-1, -1, -1};
    static const int want[5][2] = {{0, 0}, {1, 1}, {2, 1}, {3, 1}, {2, 2}};
    TU_OK(darray_grid(a, ps));
    TU_EQ_INT(ps[0], 1);
    if (P <= 4) {
      TU_EQ_INT(ps[1], want[P][0]);
      TU_EQ_INT(ps[2], want[P][1]);
    }
  }
  darray_free(&a);
}

/* Local misuse of the queries: codes and messages. */
static void check_query_errors(void) {
  int64_t g[2] = {6, 4}, idx[2] = {0, 0}, out[2], v;
  int ps[2], n;
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)))
    return;
  /* before commit */
  TU_EQ_CODE(darray_grid(a, ps), DARRAY_ESTATE);
  TU_EQ_CODE(darray_num_cells(a, &n), DARRAY_ESTATE);
  TU_EQ_CODE(darray_local_shape(a, 0, out), DARRAY_ESTATE);
  TU_EQ_CODE(darray_local_count(a, &v), DARRAY_ESTATE);
  TU_EQ_CODE(darray_local_bytes(a, &v), DARRAY_ESTATE);
  TU_EQ_CODE(darray_locate(a, idx, NULL, NULL, NULL, NULL), DARRAY_ESTATE);
  TU_EQ_CODE(darray_file_offset(a, idx, &v), DARRAY_ESTATE);
  TU_CHECK(darray_errmsg(a)[0] != '\0');
  if (!TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  TU_EQ_CODE(darray_commit(a), DARRAY_ESTATE);
  TU_EQ_CODE(darray_set_grid(a, ps), DARRAY_ESTATE);
  TU_EQ_CODE(darray_local_shape(a, 1, out), DARRAY_EINDEX);
  TU_CONTAINS(darray_errmsg(a), "cell");
  TU_EQ_CODE(darray_local_shape(a, -1, out), DARRAY_EINDEX);
  TU_EQ_CODE(darray_local_start(a, 1, out), DARRAY_EINDEX);
  TU_EQ_CODE(darray_local_shape(a, 0, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_local_count(a, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_local_bytes(a, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_num_cells(a, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_grid(a, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_elem_size(a, NULL), DARRAY_ENULL);
  int64_t bad1[2] = {6, 0}, bad2[2] = {0, -1};
  TU_EQ_CODE(darray_locate(a, bad1, NULL, NULL, NULL, NULL), DARRAY_EINDEX);
  TU_CONTAINS(darray_errmsg(a), "gidx");
  TU_EQ_CODE(darray_locate(a, bad2, NULL, NULL, NULL, NULL), DARRAY_EINDEX);
  TU_EQ_CODE(darray_locate(a, NULL, NULL, NULL, NULL, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_file_offset(a, bad1, &v), DARRAY_EINDEX);
  TU_EQ_CODE(darray_file_offset(a, idx, NULL), DARRAY_ENULL);
  TU_EQ_CODE(darray_global_index(a, tu_nprocs(), 0, idx, out), DARRAY_EINDEX);
  TU_CONTAINS(darray_errmsg(a), "rank");
  TU_EQ_CODE(darray_global_index(a, -1, 0, idx, out), DARRAY_EINDEX);
  TU_EQ_CODE(darray_global_index(a, 0, 1, idx, out), DARRAY_EINDEX);
  int64_t big[2] = {6, 0}; /* rank 0 owns at most 6 rows */
  TU_EQ_CODE(darray_global_index(a, 0, 0, big, out), DARRAY_EINDEX);
  TU_EQ_CODE(darray_global_index(a, 0, 0, NULL, out), DARRAY_ENULL);
  TU_EQ_CODE(darray_global_index(a, 0, 0, idx, NULL), DARRAY_ENULL);
  /* a successful call clears the message */
  TU_OK(darray_local_count(a, &v));
  TU_EQ_STR(darray_errmsg(a), "");
  darray_free(&a);
  TU_CHECK(a == NULL);
}

/* Element sizes of the predefined types (C's sizes). */
static void check_elem_sizes(void) {
  static const struct {
    darray_type_t t;
    int64_t size;
  } types[] = {
      {DARRAY_CHAR, sizeof(char)},
      {DARRAY_INT8, 1},
      {DARRAY_UINT8, 1},
      {DARRAY_INT16, 2},
      {DARRAY_UINT16, 2},
      {DARRAY_INT32, 4},
      {DARRAY_UINT32, 4},
      {DARRAY_INT64, 8},
      {DARRAY_UINT64, 8},
      {DARRAY_FLOAT, sizeof(float)},
      {DARRAY_DOUBLE, sizeof(double)},
      {DARRAY_LONG_DOUBLE, sizeof(long double)},
  };
  int64_t g[1] = {3};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    darray_t a = NULL;
    int64_t es = -1;
    if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, g, types[i].t, &a)))
      continue;
    TU_OK(darray_elem_size(a, &es)); /* known before commit */
    if (!TU_EQ_I64(es, types[i].size))
      fprintf(stderr, "  element size of type %d\n", (int)types[i].t);
    darray_free(&a);
  }
}

/* The header: with MULTIPARTITION "every other dimension must be
 * DARRAY_DIST_NONE". Refused by set_distribution or by commit. */
static void check_mp_other_dims(void) {
  int64_t g4[4] = {3, 6, 6, 6};
  darray_dist_t bmp[4] = {B, M, M, M}, cmp[4] = {M, M, C, M};
  const darray_dist_t *dists[2] = {bmp, cmp};
  for (int i = 0; i < 2; i++) {
    darray_t a = NULL;
    if (!TU_OK(darray_create(MPI_COMM_WORLD, 4, g4, DARRAY_INT32, &a)))
      continue;
    int rc = darray_set_distribution(a, dists[i], NULL);
    if (rc == DARRAY_SUCCESS)
      rc = darray_commit(a);
    if (!TU_EQ_CODE(rc, DARRAY_EDIST))
      fprintf(stderr,
              "  MULTIPARTITION with %s on another dimension was "
              "accepted\n",
              i == 0 ? "BLOCK" : "CYCLIC");
    darray_free(&a);
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  int P = tu_nprocs();
  int ncases = (int)(sizeof cases / sizeof cases[0]);
  for (int i = 0; i < ncases; i++) {
    const api_case_t *tc = &cases[i];
    if (is_mp(tc) && isqrt_brute(P) < 0) { /* test_errors checks the refusal */
      tu_skip_part(tc->name, "MULTIPARTITION needs a square P");
      continue;
    }
    lo_array_t A;
    int req[DARRAY_MAX_DIMS];
    build_model(tc, P, &A, req);
    darray_t a = make_array(tc, &A, req);
    if (a == NULL)
      continue;
    long before = tu_failures();
    check_local(tc, &A, a);
    check_elements(tc, &A, a);
    check_cover(tc, &A, a);
    check_runs(tc, &A, a);
    if (i % 3 == 0)
      check_displacement(tc, &A, a);
    if (tu_failures() != before)
      fprintf(stderr, "  ^ case \"%s\" at P=%d\n", tc->name, P);
    TU_OK(darray_free(&a));
  }
  check_grid_literal();
  check_elem_sizes();
  check_mp_other_dims();
  check_query_errors();
  return tu_finish();
}
