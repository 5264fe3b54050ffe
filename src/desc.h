/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * desc.h - an array on paper: what a description says (shape, element
 * size, distribution, grid, storage order, memory layout) and what commit
 * derives from it. The rooms below the entry points (dist/, layout/) and
 * the storage advisor take this value, never a handle: an advisor's
 * consumer is a description with its own process count and no
 * communicator.
 */
#ifndef DARRAYIO_DESC_H
#define DARRAYIO_DESC_H

#include "util.h"

typedef struct darray_desc {
  int nprocs;
  int ndims;
  int64_t gsizes[DARRAY_MAX_DIMS];
  darray_type_t type;
  int64_t esize; /* 0 until known (opaque without set_elem_size) */
  darray_dist_t dist[DARRAY_MAX_DIMS];
  int64_t dargs[DARRAY_MAX_DIMS];
  int psizes[DARRAY_MAX_DIMS];
  darray_order_t file_order;
  int perm[DARRAY_MAX_DIMS]; /* file dims, slowest to fastest */
  int64_t disp;
  darray_order_t mem_order;
  int64_t ghost[DARRAY_MAX_DIMS];
  int64_t padded[DARRAY_MAX_DIMS]; /* 0 = tight */
  /* derived at commit (darray__desc_resolve) */
  int q;                            /* multipartition: sqrt(P), else 0 */
  int64_t block[DARRAY_MAX_DIMS];   /* effective block size per dim */
  int64_t fstride[DARRAY_MAX_DIMS]; /* file byte stride per dim */
  /* a merged access of several whole arrays stored one after another
   * (src/async/async_merge.c): their descriptions, cell c's being
   * parts[c.part] (layout.h, darray__cell_desc); the description itself
   * then only spans them, as bytes. NULL otherwise. */
  const struct darray_desc *const *parts;
  int nparts;
} darray_desc_t;

/* Checks and derivations of a description (darray.c, darray_commit.c). */

/* ndims, gsizes and the element count (DARRAY_ENDIMS, DARRAY_ENULL,
 * DARRAY_ESIZE) and the type (DARRAY_ETYPE); message into msg. */
DARRAY_HIDDEN int darray__check_shape(int ndims, const int64_t gsizes[],
                                      darray_type_t type, char *msg);
/* A distribution as darray_set_distribution() takes it (dargs may be
 * NULL); DARRAY_EDIST with a message naming the entry. */
DARRAY_HIDDEN int darray__check_distribution(int ndims,
                                             const darray_dist_t dist[],
                                             const int64_t dargs[],
                                             char *msg);
/* What darray_commit derives from the description fields (ndims, gsizes,
 * esize, dist, dargs, psizes, perm, nprocs): the grid (MPI_Dims_create
 * fills zero entries, so MPI must be initialized then), q, the effective
 * block sizes and the file strides. Messages go to msg. Calling it
 * again on its own result changes nothing. */
DARRAY_HIDDEN int darray__desc_resolve(darray_desc_t *a, char *msg);
/* The file strides alone, from esize, gsizes and perm (DARRAY_ESIZE when
 * the array's bytes overflow). */
DARRAY_HIDDEN int darray__desc_strides(darray_desc_t *a, char *msg);

/* A description in words, for a message ("gsizes 8x8, type, element size
 * 10 and 8; dist BLOCK x CYCLIC(2); psizes 2x1; C order, perm 0,1"),
 * cut to n bytes. */
DARRAY_HIDDEN void darray__desc_text(const darray_desc_t *d, char *buf,
                                     size_t n);

#endif /* DARRAYIO_DESC_H */
