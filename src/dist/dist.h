/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist.h - which indices of each dimension a process owns, and the cells
 * (sections) of a rank's local piece.
 */
#ifndef DARRAYIO_DIST_H
#define DARRAYIO_DIST_H

#include "desc.h"

/*
 * A block-cyclic index set of one dimension: the indices
 *   first + j*stride + t,  0 <= j < count, 0 <= t < block,
 * where the last block (j = count-1) holds only `last` indices (it is
 * clipped at the end of the dimension). count == 0 means empty. A set with a
 * single block has count == 1 and stride == block.
 * The local index of first + j*stride + t is j*block + t.
 */
typedef struct dist_set {
  int64_t first;
  int64_t block;
  int64_t stride;
  int64_t count;
  int64_t last;
} dist_set_t;

/* Number of indices in a set. */
DARRAY_HIDDEN int64_t darray__dist_set_size(const dist_set_t *s);

/* The set of indices of a dimension of size n owned by grid coordinate c of p
 * under BLOCK(b) (cyclic = false) or CYCLIC(b) (cyclic = true); b >= 1. */
DARRAY_HIDDEN void darray__dist_set_blockcyclic(dist_set_t *s, int64_t n,
                                                int p, int c, int64_t b,
                                                bool cyclic);

/* A single block [start, start+len). */
DARRAY_HIDDEN void darray__dist_set_range(dist_set_t *s, int64_t start,
                                          int64_t len);

/* Global index of local index l of a set (l < size). */
DARRAY_HIDDEN int64_t darray__dist_set_global(const dist_set_t *s, int64_t l);

/* Owner coordinate and local index of global index g under BLOCK/CYCLIC(b). */
DARRAY_HIDDEN void darray__dist_owner_blockcyclic(int64_t g, int p, int64_t b,
                                                  bool cyclic, int *coord,
                                                  int64_t *local);

/* Multipartition slab s of q slabs over n points. */
DARRAY_HIDDEN void darray__dist_mp_slab(int64_t n, int q, int s,
                                        int64_t *start, int64_t *len);

/* Slab holding global index g (0 <= g < n). */
DARRAY_HIDDEN int darray__dist_mp_slab_of(int64_t n, int q, int64_t g);

/* Cell k of rank r: its (x, y, z) slab numbers. */
DARRAY_HIDDEN void darray__dist_mp_cell(int q, int r, int k, int xyz[3]);

/* Owner rank and cell number of the cell with slab numbers (x, y, z). */
DARRAY_HIDDEN void darray__dist_mp_owner(int q, const int xyz[3], int *rank,
                                         int *cell);

/* Integer square root if p is a perfect square, else -1. */
DARRAY_HIDDEN int darray__dist_isqrt(int p);

/* One local cell: a box of per-dimension index sets, placed in the local
 * buffer at byte offset mem_base (offset of the interior's first element),
 * with byte strides mem_stride per local index step. */
typedef struct section {
  dist_set_t set[DARRAY_MAX_DIMS];
  int64_t mem_base;
  int64_t mem_stride[DARRAY_MAX_DIMS];
  int64_t alloc_bytes; /* bytes of this cell's allocated box */
  int part; /* the cell's array in a merged access of several (desc.h,
               parts); 0 otherwise */
} section_t;

/* Build the sections of rank `rank` of array a (committed description
 * fields must be set): allocates *sec; returns a darray code. Usable for any
 * rank, so that a process can compute another's pattern. */
DARRAY_HIDDEN int darray__dist_sections(const darray_desc_t *a, int rank,
                                        section_t **sec, int *nsec);

/* Grid coordinates of a rank in a row-major grid. */
DARRAY_HIDDEN void darray__dist_coords(int ndims, const int psizes[], int rank,
                                       int coords[]);

#endif /* DARRAYIO_DIST_H */
