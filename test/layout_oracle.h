/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout_oracle.h - brute-force, first-principles model of a distributed
 * array, shared by test_layout_unit.c and test_api.c (header only: every
 * function is static).
 *
 * Nothing here calls darrayio to compute an expected value. The model walks
 * every global element and applies the definitions:
 *  - file offset: disp + esize * (linear index in the storage order perm,
 *    perm[0] slowest);
 *  - the distributions as dist_oracle.h reads them (BLOCK/CYCLIC/NONE per
 *    dimension, row-major ranks, MULTIPARTITION slabs and owners), the
 *    cell of a MULTIPARTITION element being its z slab;
 *  - memory: each cell an array of extents padded[d] (or interior + 2 ghost),
 *    in C or Fortran order, interior starting at ghost[d]; cells one after
 *    another; a cell that owns nothing takes no bytes.
 * Then the runs of a rank are its owned elements in file order, merged where
 * the file bytes touch.
 */
#ifndef DARRAYIO_LAYOUT_ORACLE_H
#define DARRAYIO_LAYOUT_ORACLE_H

#include "dist_oracle.h"
#include "array.h"
#include "layout/layout.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lo_array {
  int ndims;
  int64_t gsizes[DARRAY_MAX_DIMS];
  int64_t esize;
  int perm[DARRAY_MAX_DIMS]; /* storage order, slowest .. fastest */
  int64_t disp;
  int nprocs;
  darray_dist_t dist[DARRAY_MAX_DIMS];
  int64_t block[DARRAY_MAX_DIMS]; /* effective BLOCK/CYCLIC block size */
  int psizes[DARRAY_MAX_DIMS];    /* 1 on NONE and MULTIPARTITION dims */
  int q;                          /* multipartition q, 0 if none */
  int mem_fortran;                /* memory order: 0 = C, 1 = Fortran */
  int64_t ghost[DARRAY_MAX_DIMS];
  int64_t padded[DARRAY_MAX_DIMS]; /* 0 = tight */
} lo_array_t;

/* Bytes after every test buffer, checked to stay untouched. */
#define LO_GUARD 64

typedef struct lo_run {
  int64_t foff, len;
} lo_run_t;

static inline int64_t lo_nelems(const lo_array_t *A) {
  int64_t n = 1;
  for (int d = 0; d < A->ndims; d++)
    n *= A->gsizes[d];
  return n;
}

/* The file-order linear index L as a global index. */
static inline void lo_gidx_of_linear(const lo_array_t *A, int64_t L,
                                     int64_t g[]) {
  for (int i = A->ndims - 1; i >= 0; i--) {
    int d = A->perm[i];
    g[d] = L % A->gsizes[d];
    L /= A->gsizes[d];
  }
}

static inline int64_t lo_file_offset(const lo_array_t *A, const int64_t g[]) {
  int64_t L = 0;
  for (int i = 0; i < A->ndims; i++)
    L = L * A->gsizes[A->perm[i]] + g[A->perm[i]];
  return A->disp + L * A->esize;
}

/* Owner rank, cell and interior index of global element g. */
static inline void lo_owner(const lo_array_t *A, const int64_t g[], int *rank,
                            int *cell, int64_t lidx[]) {
  if (A->q > 0) {
    int xyz[3], m = 0;
    for (int d = 0; d < A->ndims; d++) {
      if (A->dist[d] != DARRAY_DIST_MULTIPARTITION) {
        lidx[d] = g[d];
        continue;
      }
      int s = dor_slab_of(A->gsizes[d], A->q, g[d]);
      int64_t st, ln;
      dor_slab(A->gsizes[d], A->q, s, &st, &ln);
      lidx[d] = g[d] - st;
      xyz[m++] = s;
    }
    *rank = dor_owner_of_cell(A->q, xyz);
    *cell = xyz[2];
    return;
  }
  int coords[DARRAY_MAX_DIMS];
  for (int d = 0; d < A->ndims; d++)
    dor_owner_dim(A->dist[d], A->block[d], A->psizes[d], g[d], &coords[d],
                  &lidx[d]);
  *rank = dor_coords_rank(A->ndims, A->psizes, coords);
  *cell = 0;
}

static inline int lo_ncells(const lo_array_t *A) { return A->q > 0 ? A->q : 1; }

/* Interior shape and first global index of a cell, by counting owners. */
static inline void lo_cell_shape(const lo_array_t *A, int rank, int cell,
                                 int64_t lshape[], int64_t start[]) {
  if (A->q > 0) {
    /* find the slab numbers (x, y) of the cell with z = cell owned by rank */
    int xyz[3] = {-1, -1, cell};
    for (int x = 0; x < A->q; x++)
      for (int y = 0; y < A->q; y++)
        if (dor_owner_of_cell(A->q, (const int[3]){x, y, cell}) == rank) {
          xyz[0] = x;
          xyz[1] = y;
        }
    int m = 0;
    for (int d = 0; d < A->ndims; d++) {
      if (A->dist[d] != DARRAY_DIST_MULTIPARTITION) {
        lshape[d] = A->gsizes[d];
        start[d] = 0;
        continue;
      }
      dor_slab(A->gsizes[d], A->q, xyz[m++], &start[d], &lshape[d]);
    }
    return;
  }
  int coords[DARRAY_MAX_DIMS];
  dor_rank_coords(A->ndims, A->psizes, rank, coords);
  for (int d = 0; d < A->ndims; d++) {
    lshape[d] = 0;
    start[d] = 0;
    for (int64_t g = A->gsizes[d] - 1; g >= 0; g--) {
      int c;
      int64_t l;
      dor_owner_dim(A->dist[d], A->block[d], A->psizes[d], g, &c, &l);
      if (c == coords[d]) {
        lshape[d]++;
        start[d] = g;
      }
    }
  }
}

static inline void lo_cell_extents(const lo_array_t *A, const int64_t lshape[],
                                   int64_t ext[]) {
  for (int d = 0; d < A->ndims; d++)
    ext[d] = A->padded[d] > 0 ? A->padded[d] : lshape[d] + 2 * A->ghost[d];
}

static inline int64_t lo_cell_alloc(const lo_array_t *A, int rank, int cell) {
  int64_t lshape[DARRAY_MAX_DIMS], start[DARRAY_MAX_DIMS], ext[DARRAY_MAX_DIMS];
  lo_cell_shape(A, rank, cell, lshape, start);
  lo_cell_extents(A, lshape, ext);
  int64_t bytes = A->esize;
  for (int d = 0; d < A->ndims; d++) {
    if (lshape[d] == 0)
      return 0;
    bytes *= ext[d];
  }
  return bytes;
}

static inline int64_t lo_local_bytes(const lo_array_t *A, int rank) {
  int64_t sum = 0;
  for (int c = 0; c < lo_ncells(A); c++)
    sum += lo_cell_alloc(A, rank, c);
  return sum;
}

/* Byte offset of interior index lidx of a cell in the rank's buffer. */
static inline int64_t lo_mem_offset(const lo_array_t *A, int rank, int cell,
                                    const int64_t lidx[]) {
  int64_t base = 0;
  for (int c = 0; c < cell; c++)
    base += lo_cell_alloc(A, rank, c);
  int64_t lshape[DARRAY_MAX_DIMS], start[DARRAY_MAX_DIMS], ext[DARRAY_MAX_DIMS];
  lo_cell_shape(A, rank, cell, lshape, start);
  lo_cell_extents(A, lshape, ext);
  int64_t lin = 0;
  for (int i = 0; i < A->ndims; i++) {
    int d = A->mem_fortran ? A->ndims - 1 - i : i; /* slowest first */
    lin = lin * ext[d] + lidx[d] + A->ghost[d];
  }
  return base + lin * A->esize;
}

/* Merged file runs of rank's owned elements, in file order. Caller frees. */
static inline lo_run_t *lo_runs(const lo_array_t *A, int rank, int *nruns) {
  int64_t n = lo_nelems(A), cap = 16;
  lo_run_t *r = malloc(sizeof *r * (size_t)cap);
  int k = 0;
  for (int64_t L = 0; L < n; L++) {
    int64_t g[DARRAY_MAX_DIMS], lidx[DARRAY_MAX_DIMS];
    int owner, cell;
    lo_gidx_of_linear(A, L, g);
    lo_owner(A, g, &owner, &cell, lidx);
    if (owner != rank)
      continue;
    int64_t foff = A->disp + L * A->esize;
    if (k > 0 && r[k - 1].foff + r[k - 1].len == foff) {
      r[k - 1].len += A->esize;
      continue;
    }
    if (k == cap) {
      cap *= 2;
      r = realloc(r, sizeof *r * (size_t)cap);
    }
    r[k].foff = foff;
    r[k].len = A->esize;
    k++;
  }
  *nruns = k;
  return r;
}

/* Element of the file at byte offset foff: its owner, cell, interior index
 * and buffer offset there. Returns 0 if foff is outside the array. */
static inline int lo_locate_byte(const lo_array_t *A, int64_t foff, int *rank,
                                 int *cell, int64_t lidx[], int64_t *moff) {
  int64_t rel = foff - A->disp;
  if (rel < 0 || rel >= lo_nelems(A) * A->esize || rel % A->esize != 0)
    return 0;
  int64_t g[DARRAY_MAX_DIMS];
  lo_gidx_of_linear(A, rel / A->esize, g);
  lo_owner(A, g, rank, cell, lidx);
  *moff = lo_mem_offset(A, *rank, *cell, lidx);
  return 1;
}

/*
 * Check the run iterator over sections sec[0..nsec) of `rank` of array a
 * (whose global description A models) against the oracle:
 *  - runs come in strictly increasing, non-overlapping file order;
 *  - every element of a run is owned by rank, in the run's section;
 *  - moff is the oracle's buffer offset of the run's first element, and
 *    mem_contig runs really are contiguous in the buffer;
 *  - merged, the runs equal the oracle's merged runs;
 *  - darray__layout_copy (whole runs and an inner piece) packs the bytes
 *    the oracle expects, and unpacks them to the right places only.
 * Returns the number of runs the iterator produced (-1 on setup failure).
 */
static inline int64_t lo_check_iter(const lo_array_t *A,
                                    const darray_desc_t *a,
                                    const section_t *sec, int nsec, int rank,
                                    const char *what) {
  const int64_t es = A->esize;
  int64_t lbytes = lo_local_bytes(A, rank);
  unsigned char *user = malloc((size_t)lbytes + LO_GUARD);
  unsigned char *back = calloc((size_t)lbytes + LO_GUARD, 1);
  unsigned char *want_back = calloc((size_t)lbytes + LO_GUARD, 1);
  tu_fill_bytes(user, lbytes + LO_GUARD, 0x5eedu + (uint64_t)rank, 0);
  int nwant = 0;
  lo_run_t *want = lo_runs(A, rank, &nwant);
  lo_run_t *merged = malloc(sizeof *merged * (size_t)(nwant + 1));
  int nmerged = 0, bad = 0, npiece = 0;
  int64_t nruns = 0, prev_end = -1, total = 0;

  layout_iter_t it;
  if (!TU_OK(darray__layout_iter_init(&it, a, sec, nsec))) {
    free(user), free(back), free(want_back), free(want), free(merged);
    return -1;
  }
  layout_run_t run;
  while (darray__layout_next(&it, &run)) {
    nruns++;
    if (bad > 3)
      continue;
    /* len > 0 and foff >= previous end: increasing, non-overlapping */
    if (!TU_CHECK(run.len > 0 && run.len % es == 0) ||
        !TU_CHECK(run.foff >= prev_end) ||
        !TU_CHECK(run.sec >= 0 && run.sec < nsec)) {
      fprintf(stderr,
              "  %s rank %d: run %lld foff %lld len %lld sec %d "
              "(previous end %lld)\n",
              what, rank, (long long)nruns, (long long)run.foff,
              (long long)run.len, run.sec, (long long)prev_end);
      bad++;
      continue;
    }
    prev_end = run.foff + run.len;
    total += run.len;
    /* merge for the comparison with the oracle */
    if (nmerged > 0 &&
        merged[nmerged - 1].foff + merged[nmerged - 1].len == run.foff)
      merged[nmerged - 1].len += run.len;
    else if (nmerged <= nwant)
      merged[nmerged++] = (lo_run_t){run.foff, run.len};
    else
      bad++;

    /* element by element: owner, section, memory offsets; the section's
     * own memory description must give the oracle's offsets too (checked
     * before any copy, so a wrong section cannot make the copy write out
     * of bounds) */
    const section_t *rs = &sec[run.sec];
    unsigned char *packed = calloc((size_t)run.len + LO_GUARD, 1);
    unsigned char *expect = calloc((size_t)run.len + LO_GUARD, 1);
    unsigned char *piece = calloc((size_t)run.len + LO_GUARD, 1);
    int64_t *moffs = calloc((size_t)(run.len / es), sizeof *moffs);
    int elem_bad = 0;
    for (int64_t e = 0; e < run.len / es && !elem_bad; e++) {
      int owner = -1, cell = -1;
      int64_t moff = -1, lidx[DARRAY_MAX_DIMS];
      if (!TU_CHECK(lo_locate_byte(A, run.foff + e * es, &owner, &cell, lidx,
                                   &moff)) ||
          !TU_EQ_INT(owner, rank) || !TU_EQ_INT(cell, run.sec) ||
          !TU_CHECK(moff >= 0 && moff + es <= lbytes)) {
        elem_bad = 1;
        break;
      }
      int64_t smoff = rs->mem_base;
      for (int d = 0; d < A->ndims; d++)
        smoff += lidx[d] * rs->mem_stride[d];
      if (!TU_EQ_I64(smoff, moff))
        elem_bad = 1;
      if (e == 0 && !TU_EQ_I64(run.moff, moff))
        elem_bad = 1;
      if (run.mem_contig && !TU_EQ_I64(moff, run.moff + e * es))
        elem_bad = 1;
      moffs[e] = moff;
      memcpy(expect + e * es, user + moff, (size_t)es);
      memcpy(want_back + moff, user + moff, (size_t)es);
    }
    if (!elem_bad) {
      darray__layout_copy(a, rs, &run, 0, run.len, (char *)user, (char *)packed,
                          true);
      if (tu_compare_bytes(packed, expect, run.len + LO_GUARD,
                           "layout_copy to packed") != 0)
        elem_bad = 1;
    }
    /* an inner piece [es, len - es) of a run of >= 3 elements, packed:
     * nothing may be written past its end */
    if (!elem_bad && run.len >= 3 * es) {
      memset(packed, 0, (size_t)run.len + LO_GUARD);
      memset(piece, 0, (size_t)run.len + LO_GUARD);
      memcpy(piece, expect + es, (size_t)(run.len - 2 * es));
      darray__layout_copy(a, rs, &run, es, run.len - es, (char *)user,
                          (char *)packed, true);
      if (tu_compare_bytes(packed, piece, run.len + LO_GUARD,
                           "layout_copy of an inner piece") != 0)
        elem_bad = 1;
    }
    /* and unpacked (for the first few runs: it scans the whole buffer) */
    if (!elem_bad && run.len >= 3 * es && npiece < 8) {
      npiece++;
      unsigned char *b2 = calloc((size_t)lbytes + LO_GUARD, 1);
      unsigned char *w2 = calloc((size_t)lbytes + LO_GUARD, 1);
      for (int64_t e = 1; e < run.len / es - 1; e++)
        memcpy(w2 + moffs[e], expect + e * es, (size_t)es);
      darray__layout_copy(a, rs, &run, es, run.len - es, (char *)b2,
                          (char *)expect + es, false);
      if (tu_compare_bytes(b2, w2, lbytes + LO_GUARD,
                           "layout_copy of an inner piece from packed") != 0)
        elem_bad = 1;
      free(b2);
      free(w2);
    }
    /* unpack the expected bytes into a zeroed buffer */
    if (!elem_bad)
      darray__layout_copy(a, rs, &run, 0, run.len, (char *)back, (char *)expect,
                          false);
    if (elem_bad) {
      fprintf(stderr,
              "  %s rank %d: run foff %lld len %lld moff %lld sec %d "
              "contig %d\n",
              what, rank, (long long)run.foff, (long long)run.len,
              (long long)run.moff, run.sec, (int)run.mem_contig);
      bad++;
    }
    free(packed);
    free(expect);
    free(piece);
    free(moffs);
  }
  darray__layout_iter_free(&it);

  if (bad == 0) {
    int64_t want_total = 0;
    for (int i = 0; i < nwant; i++)
      want_total += want[i].len;
    TU_EQ_I64(total, want_total);
    int same = TU_EQ_INT(nmerged, nwant);
    for (int i = 0; same && i < nwant; i++)
      if (!TU_EQ_I64(merged[i].foff, want[i].foff) ||
          !TU_EQ_I64(merged[i].len, want[i].len)) {
        fprintf(stderr, "  %s rank %d: merged run %d\n", what, rank, i);
        break;
      }
    if (!same)
      fprintf(stderr, "  %s rank %d: %d merged runs, oracle has %d\n", what,
              rank, nmerged, nwant);
    tu_compare_bytes(back, want_back, lbytes + LO_GUARD,
                     "layout_copy from packed");
  }
  free(user);
  free(back);
  free(want_back);
  free(want);
  free(merged);
  return nruns;
}

/*
 * darray__layout_bytes_before and darray__layout_copy_window over sections
 * sec[0..nsec) of `rank`, for a
 * few element-aligned windows [lo, hi) (empty, partial runs at both ends,
 * beyond the array, the whole file), both ways, against the oracle's owner
 * and buffer offset of every byte: to the window, the rank's bytes land in
 * place and holes keep their filler; from the window, exactly the rank's
 * elements inside the window change in the buffer.
 */
static inline void lo_check_copy_window(const lo_array_t *A,
                                        const darray_desc_t *a,
                                        const section_t *sec, int nsec,
                                        int rank, const char *what) {
  const int64_t es = A->esize, total = lo_nelems(A) * es;
  int64_t lbytes = lo_local_bytes(A, rank);
  unsigned char *user = malloc((size_t)lbytes + LO_GUARD);
  unsigned char *back = malloc((size_t)lbytes + LO_GUARD);
  unsigned char *want = malloc((size_t)lbytes + LO_GUARD);
  unsigned char *win = malloc((size_t)total + 2 * es * 3 + LO_GUARD);
  unsigned char *ref = malloc((size_t)total + 2 * es * 3 + LO_GUARD);
  tu_fill_bytes(user, lbytes + LO_GUARD, 0xc0ffu + (uint64_t)rank, 0);
  int64_t n = total / es;
  int64_t wins[6][2] = {{0, n}, {1, n - 1}, {n / 3, n / 3},
                        {n / 4, n / 2 + 1}, {-3, n / 5}, {n / 2, n + 3}};
  for (int w = 0; w < 6; w++) {
    int64_t lo = A->disp + wins[w][0] * es, hi = A->disp + wins[w][1] * es;
    while (lo < 0) /* before the array, but on its element grid */
      lo += es;
    if (hi < lo)
      hi = lo;
    int64_t len = hi - lo;
    /* to the window */
    memset(win, 0xab, (size_t)len + LO_GUARD);
    memset(ref, 0xab, (size_t)len + LO_GUARD);
    memcpy(back, user, (size_t)lbytes + LO_GUARD);
    memcpy(want, user, (size_t)lbytes + LO_GUARD);
    int64_t mine = 0; /* the rank's bytes inside the window */
    for (int64_t off = lo; off < hi; off += es) {
      int owner, cell;
      int64_t lidx[DARRAY_MAX_DIMS], moff;
      if (lo_locate_byte(A, off, &owner, &cell, lidx, &moff) &&
          owner == rank) {
        mine += es;
        memcpy(ref + (off - lo), user + moff, (size_t)es);
        want[moff] ^= 0x5a; /* what the copy back must bring */
        for (int64_t b = 1; b < es; b++)
          want[moff + b] ^= 0x5a;
      }
    }
    if (!TU_EQ_I64(darray__layout_bytes_before(a, sec, nsec, hi) -
                       darray__layout_bytes_before(a, sec, nsec, lo),
                   mine))
      fprintf(stderr, "  %s rank %d: bytes in [%lld, %lld)\n", what, rank,
              (long long)lo, (long long)hi);
    darray__layout_copy_window(a, sec, nsec, lo, hi, (char *)user,
                               (char *)win, true);
    if (tu_compare_bytes(win, ref, len + LO_GUARD,
                         "layout_copy_window to the window") != 0)
      fprintf(stderr, "  %s rank %d: window [%lld, %lld)\n", what, rank,
              (long long)lo, (long long)hi);
    /* and back, from a changed image: holes of the image are ignored */
    for (int64_t i = 0; i < len; i++)
      win[i] = (unsigned char)(ref[i] ^ 0x5a);
    darray__layout_copy_window(a, sec, nsec, lo, hi, (char *)back,
                               (char *)win, false);
    if (tu_compare_bytes(back, want, lbytes + LO_GUARD,
                         "layout_copy_window from the window") != 0)
      fprintf(stderr, "  %s rank %d: window [%lld, %lld)\n", what, rank,
              (long long)lo, (long long)hi);
  }
  free(user);
  free(back);
  free(want);
  free(win);
  free(ref);
}

#endif /* DARRAYIO_LAYOUT_ORACLE_H */
