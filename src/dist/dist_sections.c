/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist_sections.c - the local cells (sections) of any rank, and where each
 * one sits in that rank's local buffer.
 *
 * Only O(ndims) numbers per cell: no list of indices is ever built, so any
 * process can compute any other process's piece cheaply.
 */
#include "dist/dist.h"

#include <stdlib.h>

void darray__dist_coords(int ndims, const int psizes[], int rank,
                         int coords[]) {
  for (int d = ndims - 1; d >= 0; d--) {
    coords[d] = rank % psizes[d];
    rank /= psizes[d];
  }
}

/* Index sets of cell `cell` of `rank` (cell is 0 unless multipartition). */
static void cell_sets(const darray_desc_t *a, int rank, int cell,
                      dist_set_t set[]) {
  if (a->q > 0) {
    int xyz[3], m = 0;
    darray__dist_mp_cell(a->q, rank, cell, xyz);
    for (int d = 0; d < a->ndims; d++) {
      if (a->dist[d] != DARRAY_DIST_MULTIPARTITION) {
        darray__dist_set_range(&set[d], 0, a->gsizes[d]);
        continue;
      }
      int64_t start, len;
      darray__dist_mp_slab(a->gsizes[d], a->q, xyz[m++], &start, &len);
      darray__dist_set_range(&set[d], start, len);
    }
    return;
  }
  int coords[DARRAY_MAX_DIMS];
  darray__dist_coords(a->ndims, a->psizes, rank, coords);
  for (int d = 0; d < a->ndims; d++)
    darray__dist_set_blockcyclic(&set[d], a->gsizes[d], a->psizes[d],
                                 coords[d], a->block[d],
                                 a->dist[d] == DARRAY_DIST_CYCLIC);
}

/* Memory strides and allocated bytes of one cell; false on overflow. */
static bool cell_memory(const darray_desc_t *a, section_t *s) {
  int64_t alloc[DARRAY_MAX_DIMS];
  for (int d = 0; d < a->ndims; d++) {
    int64_t n = darray__dist_set_size(&s->set[d]);
    alloc[d] = a->padded[d] > 0 ? a->padded[d] : n + 2 * a->ghost[d];
  }
  int64_t stride = a->esize;
  for (int i = 0; i < a->ndims; i++) {
    int d = a->mem_order == DARRAY_ORDER_C ? a->ndims - 1 - i : i;
    s->mem_stride[d] = stride;
    if (!darray__mul_ok(stride, alloc[d], &stride))
      return false;
  }
  s->alloc_bytes = stride;
  s->mem_base = 0;
  for (int d = 0; d < a->ndims; d++)
    if (s->set[d].count == 0)
      s->alloc_bytes = 0; /* owns nothing: no buffer needed */
  for (int d = 0; d < a->ndims; d++)
    s->mem_base += a->ghost[d] * s->mem_stride[d];
  return true;
}

int darray__dist_sections(const darray_desc_t *a, int rank, section_t **sec,
                          int *nsec) {
  int n = a->q > 0 ? a->q : 1;
  section_t *s = calloc((size_t)n, sizeof *s);
  if (s == NULL)
    return DARRAY_ENOMEM;
  int64_t base = 0;
  for (int c = 0; c < n; c++) {
    cell_sets(a, rank, c, s[c].set);
    if (!cell_memory(a, &s[c]) || !darray__add_ok(s[c].mem_base, base,
                                                   &s[c].mem_base) ||
        !darray__add_ok(base, s[c].alloc_bytes, &base)) {
      free(s);
      return DARRAY_ESIZE;
    }
  }
  *sec = s;
  *nsec = n;
  return DARRAY_SUCCESS;
}
