/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist_oracle.h - the tests' one model of the distributions, from their
 * definitions (header only: every function is static inline; dor_ for
 * "distribution oracle"). Shared by layout_oracle.h (test_layout_unit,
 * test_api), test_rw_matrix, test_sieve and test_multipart, so that the
 * tests agree on one reading of the rules and a wrong rule shows up once.
 *
 * Nothing here calls darrayio:
 *  - BLOCK(b): index g on coordinate g / b, local index g mod b;
 *    CYCLIC(b) over p: coordinate (g / b) mod p, local index
 *    (g / (b p)) b + g mod b; NONE: everything on coordinate 0, local = g;
 *  - a rank is the row-major position of its coordinates in the grid;
 *  - MULTIPARTITION (BTIO.md): q slabs per dimension by running sums (the
 *    first n mod q one point longer); cell k of rank r has slabs
 *    ((r mod q + k) mod q, (r / q - k) mod q, k), and cell (x, y, z) is
 *    owned by ((x - z) mod q) + q ((y + z) mod q).
 */
#ifndef DARRAYIO_DIST_ORACLE_H
#define DARRAYIO_DIST_ORACLE_H

#include "darrayio.h"

#include <stdint.h>

/* a mod q in [0, q), for negative a too */
static inline int dor_mod(int64_t a, int q) {
  return (int)(((a % q) + q) % q);
}

/* Owner coordinate and local index of global index g of one dimension
 * (b: the effective block, p: processes along the dimension). */
static inline void dor_owner_dim(darray_dist_t dist, int64_t b, int p,
                                 int64_t g, int *coord, int64_t *local) {
  if (dist == DARRAY_DIST_BLOCK) {
    *coord = (int)(g / b);
    *local = g % b;
  } else if (dist == DARRAY_DIST_CYCLIC) {
    *coord = (int)(g / b % p);
    *local = g / (b * p) * b + g % b;
  } else {
    *coord = 0;
    *local = g;
  }
}

/* Global index of local index l on coordinate coord: the inverse. */
static inline int64_t dor_global_dim(darray_dist_t dist, int64_t b, int p,
                                     int coord, int64_t l) {
  if (dist == DARRAY_DIST_BLOCK)
    return coord * b + l;
  if (dist == DARRAY_DIST_CYCLIC)
    return (l / b * p + coord) * b + l % b;
  return l;
}

/* Indices of a dimension of n that coordinate coord owns, by counting. */
static inline int64_t dor_count_owned(darray_dist_t dist, int64_t n,
                                      int64_t b, int p, int coord) {
  int64_t k = 0;
  for (int64_t g = 0; g < n; g++) {
    int o;
    int64_t l;
    dor_owner_dim(dist, b, p, g, &o, &l);
    k += o == coord;
  }
  return k;
}

/* Row-major grid coordinates of a rank, and back. */
static inline void dor_rank_coords(int nd, const int grid[], int rank,
                                   int coords[]) {
  for (int d = nd - 1; d >= 0; d--) {
    coords[d] = rank % grid[d];
    rank /= grid[d];
  }
}

static inline int dor_coords_rank(int nd, const int grid[],
                                  const int coords[]) {
  int r = 0;
  for (int d = 0; d < nd; d++)
    r = r * grid[d] + coords[d];
  return r;
}

/* MULTIPARTITION slab s of q over n points: start and length by running
 * sums. */
static inline void dor_slab(int64_t n, int q, int s, int64_t *start,
                            int64_t *len) {
  int64_t pos = 0;
  *start = *len = 0;
  for (int t = 0; t < q; t++) {
    int64_t l = n / q + (t < n % q ? 1 : 0);
    if (t == s) {
      *start = pos;
      *len = l;
      return;
    }
    pos += l;
  }
}

/* The slab holding point g (-1 outside [0, n)). */
static inline int dor_slab_of(int64_t n, int q, int64_t g) {
  for (int s = 0; s < q; s++) {
    int64_t st, ln;
    dor_slab(n, q, s, &st, &ln);
    if (g >= st && g < st + ln)
      return s;
  }
  return -1;
}

/* Slab numbers (x, y, z) of cell k of rank r. */
static inline void dor_cell_of(int q, int r, int k, int xyz[3]) {
  xyz[0] = dor_mod(r % q + k, q);
  xyz[1] = dor_mod(r / q - k, q);
  xyz[2] = k;
}

/* Owner rank of cell (x, y, z). */
static inline int dor_owner_of_cell(int q, const int xyz[3]) {
  return dor_mod(xyz[0] - xyz[2], q) + q * dor_mod(xyz[1] + xyz[2], q);
}

#endif /* DARRAYIO_DIST_ORACLE_H */
