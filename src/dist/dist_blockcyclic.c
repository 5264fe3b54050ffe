/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist_blockcyclic.c - BLOCK(b), CYCLIC(b) and NONE: the index set one grid
 * coordinate owns along one dimension, and the owner of one index.
 *
 * The formulas are those of HPF and MPI_Type_create_darray: BLOCK(b) gives
 * coordinate c the indices [c*b, min((c+1)*b, n)); CYCLIC(b) deals blocks of
 * b indices round-robin, so coordinate c owns blocks c, c+p, c+2p, ...
 * BLOCK is CYCLIC with a single round (b*p >= n), which is why one set type
 * serves both.
 */
#include "dist/dist.h"

int64_t darray__dist_set_size(const dist_set_t *s) {
  if (s->count == 0)
    return 0;
  return (s->count - 1) * s->block + s->last;
}

void darray__dist_set_range(dist_set_t *s, int64_t start, int64_t len) {
  s->first = start;
  s->block = len;
  s->stride = len;
  s->count = len > 0 ? 1 : 0;
  s->last = len;
}

void darray__dist_set_blockcyclic(dist_set_t *s, int64_t n, int p, int c,
                                  int64_t b, bool cyclic) {
  if (c > 0 && b > (n - 1) / c) { /* c*b >= n, without overflow */
    darray__dist_set_range(s, 0, 0);
    return;
  }
  int64_t first = (int64_t)c * b;
  if (cyclic && b > (n - 1) / p) /* p*b >= n: a single round, one block */
    cyclic = false;
  if (!cyclic || p == 1) {
    /* one block (p == 1 CYCLIC covers everything: blocks touch) */
    int64_t len = cyclic ? n : (n - first < b ? n - first : b);
    darray__dist_set_range(s, first, len);
    return;
  }
  int64_t stride = (int64_t)p * b;
  int64_t count = (n - first - 1) / stride + 1;
  int64_t lastfirst = first + (count - 1) * stride;
  int64_t last = n - lastfirst < b ? n - lastfirst : b;
  if (count == 1) {
    darray__dist_set_range(s, first, last);
    return;
  }
  s->first = first;
  s->block = b;
  s->stride = stride;
  s->count = count;
  s->last = last;
}

int64_t darray__dist_set_global(const dist_set_t *s, int64_t l) {
  int64_t j = l / s->block, t = l % s->block;
  return s->first + j * s->stride + t;
}

void darray__dist_owner_blockcyclic(int64_t g, int p, int64_t b, bool cyclic,
                                    int *coord, int64_t *local) {
  int64_t blk = g / b;
  if (!cyclic) {
    *coord = (int)blk;
    *local = g - blk * b;
    return;
  }
  *coord = (int)(blk % p);
  *local = (blk / p) * b + g % b;
}
