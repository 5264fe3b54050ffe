/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_layout_unit.c - the run iterator and the copy of src/layout, and the
 * memory side of src/dist (1 rank; internal functions from src/dist/dist.h
 * and src/layout/layout.h).
 *
 * Part 1: arrays committed through the public API on MPI_COMM_SELF, with
 *         hand-computed exact runs (foff, len, moff, mem_contig).
 * Part 2: multi-process patterns at one rank. The global description comes
 *         from a real commit; the sections of a pretend rank r of P are
 *         (a) built here from the index sets and a hand memory layout, and
 *         (b) made by darray__dist_sections on a copy of the descriptor with
 *         the distribution fields of the P-process array.
 *         Both are checked against the brute-force oracle of
 *         layout_oracle.h, and so is the window copy of the sieve
 *         (darray__layout_copy_window); a few get exact hand-computed runs.
 */
#include "array.h"
#include "layout/layout.h"
#include "layout_oracle.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xrun {
  int64_t foff, len, moff;
  int contig;
} xrun_t;

#define MAXRUNS 16

/* Compare the iterator's runs with an exact list. */
static void check_exact(const darray_desc_t *a, const section_t *sec,
                        int nsec, const xrun_t *want, int nwant,
                        const char *what) {
  layout_iter_t it;
  if (!TU_OK(darray__layout_iter_init(&it, a, sec, nsec)))
    return;
  layout_run_t r;
  int n = 0;
  while (darray__layout_next(&it, &r)) {
    if (n < nwant) {
      const xrun_t *w = &want[n];
      if (!TU_EQ_I64(r.foff, w->foff) || !TU_EQ_I64(r.len, w->len) ||
          !TU_EQ_I64(r.moff, w->moff) || !TU_EQ_INT(r.mem_contig, w->contig))
        fprintf(stderr, "  %s: run %d\n", what, n);
    }
    n++;
  }
  if (!TU_EQ_INT(n, nwant))
    fprintf(stderr, "  %s: number of runs\n", what);
  darray__layout_iter_free(&it);
}

/* ---- part 1: real 1-rank arrays --------------------------------------- */

typedef struct one_case {
  const char *name;
  int ndims;
  int64_t gsizes[4];
  darray_type_t type;
  darray_order_t forder;
  int perm[4];
  int64_t disp;
  darray_order_t morder;
  int64_t ghost[4], padded[4];
  int mp; /* NONE, MP, MP, MP on 4 dims */
  xrun_t runs[MAXRUNS];
  int nruns;
  int64_t local_bytes;
} one_case_t;

/* clang-format off */
static const one_case_t one_cases[] = {
    {"4x6 C/C", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 0,
     DARRAY_ORDER_C, {0}, {0}, 0, {{0, 96, 0, 1}}, 1, 96},
    /* ghost 1: rows of 8 ints; interior starts at (1*8 + 1)*4 = 36. The
     * file run is the whole array; memory is not contiguous. */
    {"4x6 C/C ghost 1", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 0,
     DARRAY_ORDER_C, {1, 1}, {0}, 0, {{0, 96, 36, 0}}, 1, 6 * 8 * 4},
    /* ghost on the slowest dimension only keeps memory contiguous */
    {"4x6 C/C ghost {1,0}", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 0,
     DARRAY_ORDER_C, {1, 0}, {0}, 0, {{0, 96, 24, 1}}, 1, 6 * 6 * 4},
    /* padding of the slowest dimension: contiguous; of the fastest: not */
    {"4x6 C/C padded {5,6}", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 0,
     DARRAY_ORDER_C, {0}, {5, 6}, 0, {{0, 96, 0, 1}}, 1, 5 * 6 * 4},
    {"4x6 C/C padded {4,7}", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 0,
     DARRAY_ORDER_C, {0}, {4, 7}, 0, {{0, 96, 0, 0}}, 1, 4 * 7 * 4},
    {"4x6 Fortran file, C memory", 2, {4, 6}, DARRAY_INT32,
     DARRAY_ORDER_FORTRAN, {0}, 0, DARRAY_ORDER_C, {0}, {0}, 0,
     {{0, 96, 0, 0}}, 1, 96},
    {"4x6 Fortran file, Fortran memory, disp 100", 2, {4, 6}, DARRAY_INT32,
     DARRAY_ORDER_FORTRAN, {0}, 100, DARRAY_ORDER_FORTRAN, {0}, {0}, 0,
     {{100, 96, 0, 1}}, 1, 96},
    {"4x6 C/C disp 100", 2, {4, 6}, DARRAY_INT32, DARRAY_ORDER_C, {0}, 100,
     DARRAY_ORDER_C, {0}, {0}, 0, {{100, 96, 0, 1}}, 1, 96},
    /* Fortran memory with ghost 1: column-major 6x8 box; interior at
     * (1 + 1*6)*8 = 56 bytes */
    {"4x6 doubles Fortran/Fortran ghost 1", 2, {4, 6}, DARRAY_DOUBLE,
     DARRAY_ORDER_FORTRAN, {0}, 8, DARRAY_ORDER_FORTRAN, {1, 1}, {0}, 0,
     {{8, 192, 56, 0}}, 1, 6 * 8 * 8},
    {"2x3x4 PERM {1,2,0}", 3, {2, 3, 4}, DARRAY_INT16, DARRAY_ORDER_PERM,
     {1, 2, 0}, 0, DARRAY_ORDER_C, {0}, {0}, 0, {{0, 48, 0, 0}}, 1, 48},
    {"2x3x4 PERM {0,1,2} = C", 3, {2, 3, 4}, DARRAY_INT16, DARRAY_ORDER_PERM,
     {0, 1, 2}, 7, DARRAY_ORDER_C, {0}, {0}, 0, {{7, 48, 0, 1}}, 1, 48},
    {"2x3x4 PERM {2,1,0} = Fortran", 3, {2, 3, 4}, DARRAY_INT16,
     DARRAY_ORDER_PERM, {2, 1, 0}, 0, DARRAY_ORDER_FORTRAN, {0}, {0}, 0,
     {{0, 48, 0, 1}}, 1, 48},
    /* 3-D C with ghost {0,0,2}: interior at 2*2 = 4 bytes */
    {"3x2x5 C ghost {0,0,2}", 3, {3, 2, 5}, DARRAY_INT16, DARRAY_ORDER_C, {0},
     0, DARRAY_ORDER_C, {0, 0, 2}, {0}, 0, {{0, 60, 4, 0}}, 1,
     3 * 2 * 9 * 2},
    /* BT at P = 1, N = 4: u(5, -2:IMAX+1, ...) with IMAX = N + 1, padded
     * N + 5 = 9; interior at 40*(2 + 9*(2 + 9*2)) = 7280 */
    {"BT N=4 P=1", 4, {5, 4, 4, 4}, DARRAY_DOUBLE, DARRAY_ORDER_FORTRAN, {0},
     0, DARRAY_ORDER_FORTRAN, {0, 2, 2, 2}, {5, 9, 9, 9}, 1,
     {{0, 40 * 64, 7280, 0}}, 1, 5 * 9 * 9 * 9 * 8},
};
/* clang-format on */

/* File byte strides of a storage order, by hand. */
static void oracle_fstride(int ndims, const int64_t g[], int64_t es,
                           const int perm[], int64_t fs[]) {
  for (int i = ndims - 1; i >= 0; i--) {
    fs[perm[i]] = es;
    es *= g[perm[i]];
  }
}

static void lo_from_one(const one_case_t *tc, lo_array_t *A) {
  memset(A, 0, sizeof *A);
  A->ndims = tc->ndims;
  A->nprocs = 1;
  A->esize = tc->type == DARRAY_INT16 ? 2 : tc->type == DARRAY_INT32 ? 4 : 8;
  A->disp = tc->disp;
  A->q = tc->mp ? 1 : 0;
  A->mem_fortran = tc->morder == DARRAY_ORDER_FORTRAN;
  for (int d = 0; d < tc->ndims; d++) {
    A->gsizes[d] = tc->gsizes[d];
    A->perm[d] = tc->forder == DARRAY_ORDER_C         ? d
                 : tc->forder == DARRAY_ORDER_FORTRAN ? tc->ndims - 1 - d
                                                      : tc->perm[d];
    A->dist[d] =
        tc->mp && d > 0 ? DARRAY_DIST_MULTIPARTITION : DARRAY_DIST_BLOCK;
    A->block[d] = tc->gsizes[d];
    A->psizes[d] = 1;
    A->ghost[d] = tc->ghost[d];
    A->padded[d] = tc->padded[d];
  }
}

static void test_one_rank(void) {
  int ncases = (int)(sizeof one_cases / sizeof one_cases[0]);
  for (int i = 0; i < ncases; i++) {
    const one_case_t *tc = &one_cases[i];
    darray_t a = NULL;
    if (!TU_OK(
            darray_create(MPI_COMM_SELF, tc->ndims, tc->gsizes, tc->type, &a)))
      continue;
    if (tc->mp) {
      darray_dist_t dist[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                               DARRAY_DIST_MULTIPARTITION,
                               DARRAY_DIST_MULTIPARTITION};
      TU_OK(darray_set_distribution(a, dist, NULL));
    }
    TU_OK(darray_set_storage_order(a, tc->forder, tc->perm));
    TU_OK(darray_set_displacement(a, tc->disp));
    TU_OK(darray_set_memory_layout(a, tc->morder, tc->ghost, tc->padded));
    if (!TU_OK(darray_commit(a))) {
      fprintf(stderr, "  case %s: %s\n", tc->name, darray_errmsg(a));
      darray_free(&a);
      continue;
    }
    struct darray_s *s = a;
    int64_t fs[DARRAY_MAX_DIMS];
    lo_array_t A;
    lo_from_one(tc, &A);
    oracle_fstride(tc->ndims, tc->gsizes, A.esize, A.perm, fs);
    for (int d = 0; d < tc->ndims; d++)
      TU_EQ_I64(s->d.fstride[d], fs[d]);
    TU_EQ_INT(s->nsec, 1);
    TU_EQ_I64(s->local_bytes, tc->local_bytes);
    TU_EQ_I64(s->local_bytes, lo_local_bytes(&A, 0));
    check_exact(&s->d, s->sec, s->nsec, tc->runs, tc->nruns, tc->name);
    lo_check_iter(&A, &s->d, s->sec, s->nsec, 0, tc->name);
    TU_OK(darray_free(&a));
  }
}

/* ---- part 2: pretend ranks -------------------------------------------- */

/* Sections of rank r of the oracle's array, built by hand: index sets from
 * the distribution, memory strides from the oracle's layout. */
static section_t *hand_sections(const lo_array_t *A, int r, int *nsec) {
  int n = lo_ncells(A);
  section_t *sec = calloc((size_t)n, sizeof *sec);
  int64_t base = 0;
  for (int c = 0; c < n; c++) {
    int64_t lshape[DARRAY_MAX_DIMS], start[DARRAY_MAX_DIMS],
        ext[DARRAY_MAX_DIMS];
    lo_cell_shape(A, r, c, lshape, start);
    lo_cell_extents(A, lshape, ext);
    int coords[DARRAY_MAX_DIMS];
    for (int d = A->ndims - 1, rr = r; d >= 0; d--) {
      coords[d] = rr % A->psizes[d];
      rr /= A->psizes[d];
    }
    for (int d = 0; d < A->ndims; d++) {
      if (A->q > 0 || A->dist[d] == DARRAY_DIST_NONE)
        darray__dist_set_range(&sec[c].set[d], start[d], lshape[d]);
      else
        darray__dist_set_blockcyclic(&sec[c].set[d], A->gsizes[d], A->psizes[d],
                                     coords[d], A->block[d],
                                     A->dist[d] == DARRAY_DIST_CYCLIC);
    }
    int64_t stride = A->esize;
    for (int i = 0; i < A->ndims; i++) {
      int d = A->mem_fortran ? i : A->ndims - 1 - i; /* fastest first */
      sec[c].mem_stride[d] = stride;
      stride *= ext[d];
    }
    sec[c].mem_base = base;
    for (int d = 0; d < A->ndims; d++)
      sec[c].mem_base += A->ghost[d] * sec[c].mem_stride[d];
    sec[c].alloc_bytes = lo_cell_alloc(A, r, c);
    base += sec[c].alloc_bytes;
  }
  *nsec = n;
  return sec;
}

static darray_type_t type_of_size(int64_t es) {
  switch (es) {
  case 1:
    return DARRAY_UINT8;
  case 2:
    return DARRAY_INT16;
  case 4:
    return DARRAY_FLOAT;
  case 8:
    return DARRAY_INT64;
  default:
    return DARRAY_OPAQUE;
  }
}

/* The 1-rank array with A's global description (shape, element size,
 * storage order, displacement). */
static darray_t commit_global(const lo_array_t *A) {
  darray_t a = NULL;
  darray_type_t t = type_of_size(A->esize);
  if (!TU_OK(darray_create(MPI_COMM_SELF, A->ndims, A->gsizes, t, &a)))
    return NULL;
  if (t == DARRAY_OPAQUE)
    TU_OK(darray_set_elem_size(a, A->esize));
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_PERM, A->perm));
  TU_OK(darray_set_displacement(a, A->disp));
  if (!TU_OK(darray_commit(a))) {
    darray_free(&a);
    return NULL;
  }
  return a;
}

/* A copy of the committed 1-rank descriptor describing the P-rank array,
 * for darray__dist_sections. */
static void pretend_descriptor(const struct darray_s *a, const lo_array_t *A,
                               darray_desc_t *p) {
  *p = a->d;
  p->nprocs = A->nprocs;
  p->q = A->q;
  p->mem_order = A->mem_fortran ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int d = 0; d < A->ndims; d++) {
    p->dist[d] = A->dist[d];
    p->psizes[d] = A->psizes[d];
    p->block[d] =
        A->dist[d] == DARRAY_DIST_BLOCK || A->dist[d] == DARRAY_DIST_CYCLIC
            ? A->block[d]
            : A->gsizes[d];
    p->ghost[d] = A->ghost[d];
    p->padded[d] = A->padded[d];
  }
}

/* darray__dist_sections of a pretend rank against the oracle. */
static void check_lib_sections(const lo_array_t *A, const darray_desc_t *p,
                               int r, const char *what) {
  section_t *sec = NULL;
  int nsec = 0;
  if (!TU_OK(darray__dist_sections(p, r, &sec, &nsec)))
    return;
  if (!TU_EQ_INT(nsec, lo_ncells(A))) {
    free(sec);
    return;
  }
  int64_t sum = 0;
  for (int c = 0; c < nsec; c++) {
    int64_t lshape[DARRAY_MAX_DIMS], start[DARRAY_MAX_DIMS], n = 1;
    lo_cell_shape(A, r, c, lshape, start);
    for (int d = 0; d < A->ndims; d++)
      n *= lshape[d];
    for (int d = 0; d < A->ndims; d++) {
      if (!TU_EQ_I64(darray__dist_set_size(&sec[c].set[d]), lshape[d]))
        fprintf(stderr, "  %s rank %d cell %d dim %d\n", what, r, c, d);
      else if (lshape[d] > 0 &&
               !TU_EQ_I64(darray__dist_set_global(&sec[c].set[d], 0), start[d]))
        fprintf(stderr, "  %s rank %d cell %d dim %d\n", what, r, c, d);
    }
    if (n > 0) { /* an empty cell has no meaningful memory offsets */
      int64_t zero[DARRAY_MAX_DIMS] = {0};
      TU_EQ_I64(sec[c].mem_base, lo_mem_offset(A, r, c, zero));
      for (int d = 0; d < A->ndims; d++) {
        int64_t one[DARRAY_MAX_DIMS] = {0};
        if (lshape[d] < 2)
          continue;
        one[d] = 1;
        if (!TU_EQ_I64(sec[c].mem_stride[d], lo_mem_offset(A, r, c, one) -
                                                 lo_mem_offset(A, r, c, zero)))
          fprintf(stderr, "  %s rank %d cell %d: stride of dim %d\n", what, r,
                  c, d);
      }
    }
    TU_EQ_I64(sec[c].alloc_bytes, lo_cell_alloc(A, r, c));
    sum += sec[c].alloc_bytes;
  }
  TU_EQ_I64(sum, lo_local_bytes(A, r));
  lo_check_iter(A, p, sec, nsec, r, what);
  lo_check_copy_window(A, p, sec, nsec, r, what);
  free(sec);
}

static void check_pretend(const lo_array_t *A, const char *what) {
  darray_t a = commit_global(A);
  if (a == NULL)
    return;
  darray_desc_t p;
  pretend_descriptor(a, A, &p);
  int64_t total = 0;
  for (int r = 0; r < A->nprocs; r++) {
    int nsec;
    section_t *sec = hand_sections(A, r, &nsec);
    lo_check_iter(A, &a->d, sec, nsec, r, what);
    free(sec);
    check_lib_sections(A, &p, r, what);
    int nr;
    lo_run_t *runs = lo_runs(A, r, &nr);
    for (int i = 0; i < nr; i++)
      total += runs[i].len;
    free(runs);
  }
  /* the oracle itself: the ranks' runs cover the array exactly */
  TU_EQ_I64(total, lo_nelems(A) * A->esize);
  darray_free(&a);
}

/* Exact runs of pretend ranks, computed by hand. */
static void test_pretend_exact(void) {
  lo_array_t A;
  /* 4x6 int32 C file, grid {1,2} BLOCK columns, rank 1 owns cols 3..5;
   * C memory ghost 1: local 4x3 in a 6x5 box, interior at (5+1)*4 = 24 */
  memset(&A, 0, sizeof A);
  A.ndims = 2, A.gsizes[0] = 4, A.gsizes[1] = 6, A.esize = 4;
  A.perm[0] = 0, A.perm[1] = 1, A.nprocs = 2;
  A.dist[0] = DARRAY_DIST_NONE, A.dist[1] = DARRAY_DIST_BLOCK;
  A.block[0] = 4, A.block[1] = 3, A.psizes[0] = 1, A.psizes[1] = 2;
  A.ghost[0] = A.ghost[1] = 1;
  darray_t a = commit_global(&A);
  if (a != NULL) {
    int nsec;
    section_t *sec = hand_sections(&A, 1, &nsec);
    xrun_t want[4] = {
        {12, 12, 24, 1}, {36, 12, 44, 1}, {60, 12, 64, 1}, {84, 12, 84, 1}};
    check_exact(&a->d, sec, nsec, want, 4, "4x6 BLOCK cols rank 1 ghost 1");
    free(sec);
    darray_free(&a);
  }
  /* same array, CYCLIC(1) columns, rank 0 owns cols 0,2,4; tight memory */
  A.dist[1] = DARRAY_DIST_CYCLIC, A.block[1] = 1;
  A.ghost[0] = A.ghost[1] = 0;
  a = commit_global(&A);
  if (a != NULL) {
    int nsec;
    section_t *sec = hand_sections(&A, 0, &nsec);
    xrun_t want[12];
    for (int r = 0, k = 0; r < 4; r++)
      for (int j = 0; j < 3; j++, k++)
        want[k] = (xrun_t){r * 24 + j * 8, 4, (r * 3 + j) * 4, 1};
    check_exact(&a->d, sec, nsec, want, 12, "4x6 CYCLIC cols rank 0");
    free(sec);
    darray_free(&a);
  }
  /* 4x6 Fortran file, BLOCK rows over 2, rank 1 owns rows 2..3; C memory
   * 2x6: per column c one run of rows 2..3 at (4c + 2)*4, moff 4c */
  A.perm[0] = 1, A.perm[1] = 0;
  A.dist[0] = DARRAY_DIST_BLOCK, A.block[0] = 2, A.psizes[0] = 2;
  A.dist[1] = DARRAY_DIST_NONE, A.block[1] = 6, A.psizes[1] = 1;
  a = commit_global(&A);
  if (a != NULL) {
    int nsec;
    section_t *sec = hand_sections(&A, 1, &nsec);
    xrun_t want[6];
    for (int c = 0; c < 6; c++)
      want[c] = (xrun_t){16 * c + 8, 8, 4 * c, 0};
    check_exact(&a->d, sec, nsec, want, 6,
                "4x6 Fortran file BLOCK rows rank 1");
    free(sec);
    darray_free(&a);
  }
  /* 4x4x4 doubles, MULTIPARTITION q=2, Fortran file and memory, rank 0:
   * cell 0 = slabs (0,0,0), cell 1 = (1,1,1). x-rows of 2 points. */
  memset(&A, 0, sizeof A);
  A.ndims = 3, A.esize = 8, A.nprocs = 4, A.q = 2, A.mem_fortran = 1;
  for (int d = 0; d < 3; d++) {
    A.gsizes[d] = 4, A.perm[d] = 2 - d, A.psizes[d] = 1;
    A.dist[d] = DARRAY_DIST_MULTIPARTITION;
  }
  a = commit_global(&A);
  if (a != NULL) {
    int nsec;
    section_t *sec = hand_sections(&A, 0, &nsec);
    xrun_t want[8] = {{0, 16, 0, 1},    {32, 16, 16, 1},  {128, 16, 32, 1},
                      {160, 16, 48, 1}, {336, 16, 64, 1}, {368, 16, 80, 1},
                      {464, 16, 96, 1}, {496, 16, 112, 1}};
    check_exact(&a->d, sec, nsec, want, 8, "MP q=2 rank 0");
    darray_desc_t p;
    pretend_descriptor(a, &A, &p);
    section_t *lsec = NULL;
    if (TU_OK(darray__dist_sections(&p, 0, &lsec, &nsec))) {
      check_exact(&p, lsec, nsec, want, 8, "MP q=2 rank 0 (dist_sections)");
      free(lsec);
    }
    free(sec);
    darray_free(&a);
  }
}

/* ---- part 2b: a deterministic matrix of random small cases ------------ */

static uint64_t rnd_state = 12345;
static int64_t rnd(int64_t lo, int64_t hi) { /* inclusive */
  uint64_t v = tu_value(rnd_state++, 7);
  return lo + (int64_t)(v % (uint64_t)(hi - lo + 1));
}

static void random_perm(int n, int perm[]) {
  for (int i = 0; i < n; i++)
    perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)rnd(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* Largest interior extent of dimension d over all ranks and cells. */
static int64_t max_extent(const lo_array_t *A, int d) {
  int64_t m = 0;
  for (int r = 0; r < A->nprocs; r++)
    for (int c = 0; c < lo_ncells(A); c++) {
      int64_t ls[DARRAY_MAX_DIMS], st[DARRAY_MAX_DIMS];
      lo_cell_shape(A, r, c, ls, st);
      if (ls[d] > m)
        m = ls[d];
    }
  return m;
}

static void random_memory(lo_array_t *A) {
  static const int64_t sizes[] = {1, 2, 4, 8, 3, 12};
  A->esize = sizes[rnd(0, 5)];
  A->disp = rnd(0, 3) == 0 ? rnd(1, 100) : 0;
  A->mem_fortran = (int)rnd(0, 1);
  int order = (int)rnd(0, 2);
  for (int d = 0; d < A->ndims; d++)
    A->perm[d] = order == 0 ? d : A->ndims - 1 - d;
  if (order == 2)
    random_perm(A->ndims, A->perm);
  for (int d = 0; d < A->ndims; d++) {
    A->ghost[d] = rnd(0, 2) == 0 ? rnd(1, 2) : 0;
    A->padded[d] = 0;
    if (rnd(0, 3) == 0)
      A->padded[d] = max_extent(A, d) + 2 * A->ghost[d] + rnd(0, 2);
  }
}

static void random_blockcyclic(lo_array_t *A) {
  memset(A, 0, sizeof *A);
  A->ndims = (int)rnd(1, 3);
  A->nprocs = 1;
  for (int d = 0; d < A->ndims; d++) {
    A->gsizes[d] = rnd(1, 9);
    A->dist[d] = (darray_dist_t)rnd(0, 2);
    int p = A->dist[d] == DARRAY_DIST_NONE ? 1 : (int)rnd(1, 3);
    int64_t n = A->gsizes[d], dflt = (n + p - 1) / p;
    A->psizes[d] = p;
    A->nprocs *= p;
    if (A->dist[d] == DARRAY_DIST_BLOCK)
      A->block[d] = rnd(0, 1) ? dflt : rnd(dflt, n);
    else if (A->dist[d] == DARRAY_DIST_CYCLIC)
      A->block[d] = rnd(0, 1) ? 1 : rnd(1, 4 < n ? 4 : n);
    else
      A->block[d] = n;
  }
  random_memory(A);
}

static void random_multipartition(lo_array_t *A) {
  memset(A, 0, sizeof *A);
  A->ndims = (int)rnd(3, 4);
  A->q = (int)rnd(1, 3);
  A->nprocs = A->q * A->q;
  int none = A->ndims == 4 ? (int)rnd(0, 3) : -1;
  for (int d = 0; d < A->ndims; d++) {
    A->dist[d] = d == none ? DARRAY_DIST_NONE : DARRAY_DIST_MULTIPARTITION;
    A->gsizes[d] = d == none ? rnd(1, 5) : rnd(A->q, A->q + 4);
    A->psizes[d] = 1;
    A->block[d] = A->gsizes[d];
  }
  random_memory(A);
}

static void describe(const lo_array_t *A, char *buf, size_t n) {
  int k = snprintf(buf, n, "P=%d q=%d es=%lld disp=%lld mem%c g=", A->nprocs,
                   A->q, (long long)A->esize, (long long)A->disp,
                   A->mem_fortran ? 'F' : 'C');
  for (int d = 0; d < A->ndims && k > 0 && (size_t)k < n; d++)
    k += snprintf(buf + k, n - (size_t)k, "%s%lld:%c%lld:p%d:gh%lld:pad%lld",
                  d ? "," : "", (long long)A->gsizes[d], "NBCM"[A->dist[d]],
                  (long long)A -> block[d], A -> psizes[d],
                  (long long)A -> ghost[d], (long long)A -> padded[d]);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, " perm=%d%d%d%d", A->perm[0], A->perm[1],
             A->ndims > 2 ? A->perm[2] : 9, A->ndims > 3 ? A->perm[3] : 9);
}

static void test_pretend_random(void) {
  char what[400];
  for (int i = 0; i < 300; i++) {
    lo_array_t A;
    if (i % 4 == 3)
      random_multipartition(&A);
    else
      random_blockcyclic(&A);
    describe(&A, what, sizeof what);
    long before = tu_failures();
    check_pretend(&A, what);
    if (tu_failures() != before)
      fprintf(stderr, "  failing case %d: %s\n", i, what);
  }
}

/* BTIO.md, class A at P = 4 (q = 2): every rank has 2048 runs of 1280 bytes
 * per dump, at byte 40*(i + N*(j + N*k)) of the row's first point, read
 * from BT's buffer u(5, -2:IMAX+1, -2:JMAX+1, -2:KMAX+1, 2), IMAX = 33. */
static void test_bt_class_a(void) {
  const int64_t n = 64, e = 37; /* IMAX + 4 */
  lo_array_t A;
  memset(&A, 0, sizeof A);
  A.ndims = 4, A.esize = 8, A.nprocs = 4, A.q = 2, A.mem_fortran = 1;
  int64_t gs[4] = {5, n, n, n}, gh[4] = {0, 2, 2, 2}, pad[4] = {5, e, e, e};
  for (int d = 0; d < 4; d++) {
    A.gsizes[d] = gs[d], A.perm[d] = 3 - d, A.psizes[d] = 1;
    A.block[d] = gs[d], A.ghost[d] = gh[d], A.padded[d] = pad[d];
    A.dist[d] = d == 0 ? DARRAY_DIST_NONE : DARRAY_DIST_MULTIPARTITION;
  }
  darray_t a = commit_global(&A);
  if (a == NULL)
    return;
  darray_desc_t p;
  pretend_descriptor(a, &A, &p);
  for (int r = 0; r < 4; r++) {
    section_t *sec = NULL;
    int nsec = 0;
    layout_iter_t it;
    if (!TU_OK(darray__dist_sections(&p, r, &sec, &nsec)))
      continue;
    if (!TU_OK(darray__layout_iter_init(&it, &p, sec, nsec))) {
      free(sec);
      continue;
    }
    layout_run_t run;
    int64_t k = 0, bad = 0;
    while (darray__layout_next(&it, &run)) {
      /* run k: cell c = k / 1024 (slabs x, y, z = c), row (j, kz) */
      int c = (int)(k / 1024), i0 = r % 2, j0 = r / 2;
      int sx = (i0 + c) % 2, sy = ((j0 - c) % 2 + 2) % 2, sz = c;
      int64_t jl = (k % 1024) % 32, kl = (k % 1024) / 32;
      int64_t i = 32 * sx, j = 32 * sy + jl, kz = 32 * sz + kl;
      int64_t foff = 40 * (i + n * (j + n * kz));
      int64_t moff =
          c * 5 * e * e * e * 8 + 40 * (2 + e * (jl + 2 + e * (kl + 2)));
      if (bad < 3 && (!TU_EQ_I64(run.foff, foff) || !TU_EQ_I64(run.len, 1280) ||
                      !TU_EQ_I64(run.moff, moff) || !TU_EQ_INT(run.sec, c) ||
                      !TU_CHECK(run.mem_contig))) {
        fprintf(stderr, "  BT class A rank %d run %lld\n", r, (long long)k);
        bad++;
      }
      k++;
    }
    TU_EQ_I64(k, 2048);
    darray__layout_iter_free(&it);
    free(sec);
  }
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  test_one_rank();
  test_pretend_exact();
  test_pretend_random();
  test_bt_class_a();
  return tu_finish();
}
