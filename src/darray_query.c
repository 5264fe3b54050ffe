/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_query.c - local questions about a committed array: shapes, sizes,
 * owners and offsets. All computed from the distribution formulas.
 */
#include "array.h"
#include "layout/layout.h"

#include <stdlib.h>
#include <string.h>

static int check_committed(darray_t a) {
  int rc = darray__array_check(a);
  if (rc == DARRAY_SUCCESS && !a->committed)
    rc = darray__err(a->errmsg, DARRAY_ESTATE, "the array is not committed "
                                               "(call darray_commit first)");
  return rc;
}

static int check_cell(darray_t a, int cell) {
  int n = a->nsec > 0 ? a->nsec : 1;
  bool F = darray__fortran();
  if (cell < 0 || cell >= n)
    return darray__err(a->errmsg, DARRAY_EINDEX, "cell = %lld is not in %s",
                       darray__ix(F, cell), darray__ix_range(F, n, DARRAY_IXBUF));
  return DARRAY_SUCCESS;
}

static int check_gidx(darray_t a, const int64_t gidx[]) {
  if (gidx == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "gidx is NULL");
  bool F = darray__fortran();
  for (int d = 0; d < a->d.ndims; d++)
    if (gidx[d] < 0 || gidx[d] >= a->d.gsizes[d])
      return darray__err(a->errmsg, DARRAY_EINDEX, "%s = %lld is not in %s",
                         darray__ix_arg(F, "gidx", d, DARRAY_IXBUF),
                         darray__ix(F, gidx[d]),
                         darray__ix_range(F, a->d.gsizes[d], DARRAY_IXBUF));
  return DARRAY_SUCCESS;
}

int darray_global_shape(darray_t a, int *ndims, int64_t gsizes[]) {
  int rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (ndims)
    *ndims = a->d.ndims;
  if (gsizes)
    memcpy(gsizes, a->d.gsizes, sizeof(int64_t) * (size_t)a->d.ndims);
  return DARRAY_SUCCESS;
}

int darray_elem_size(darray_t a, int64_t *size) {
  int rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (size == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "size is NULL");
  if (a->d.esize < 1)
    return darray__err(a->errmsg, DARRAY_ETYPE,
                       "DARRAY_OPAQUE type without darray_set_elem_size()");
  *size = a->d.esize;
  return DARRAY_SUCCESS;
}

int darray_grid(darray_t a, int psizes[]) {
  int rc = check_committed(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (psizes == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "psizes is NULL");
  memcpy(psizes, a->d.psizes, sizeof(int) * (size_t)a->d.ndims);
  return DARRAY_SUCCESS;
}

int darray_num_cells(darray_t a, int *ncells) {
  int rc = check_committed(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (ncells == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "ncells is NULL");
  *ncells = a->d.q > 0 ? a->d.q : (a->local_count > 0 ? 1 : 0);
  return DARRAY_SUCCESS;
}

/* Shared body of local_shape and local_start. */
static int cell_query(darray_t a, int cell, int64_t out[], bool start) {
  int rc = check_committed(a);
  if (rc == DARRAY_SUCCESS && out == NULL)
    rc = darray__err(a->errmsg, DARRAY_ENULL, start ? "start is NULL"
                                                    : "lshape is NULL");
  if (rc == DARRAY_SUCCESS)
    rc = check_cell(a, cell);
  if (rc != DARRAY_SUCCESS)
    return rc;
  for (int d = 0; d < a->d.ndims; d++) {
    const dist_set_t *s = &a->sec[cell].set[d];
    if (a->local_count == 0)
      out[d] = 0;
    else
      out[d] = start ? s->first : darray__dist_set_size(s);
  }
  return DARRAY_SUCCESS;
}

int darray_local_shape(darray_t a, int cell, int64_t lshape[]) {
  return cell_query(a, cell, lshape, false);
}

int darray_local_start(darray_t a, int cell, int64_t start[]) {
  return cell_query(a, cell, start, true);
}

int darray_local_count(darray_t a, int64_t *count) {
  int rc = check_committed(a);
  if (rc == DARRAY_SUCCESS && count == NULL)
    rc = darray__err(a->errmsg, DARRAY_ENULL, "count is NULL");
  if (rc == DARRAY_SUCCESS)
    *count = a->local_count;
  return rc;
}

int darray_local_bytes(darray_t a, int64_t *bytes) {
  int rc = check_committed(a);
  if (rc == DARRAY_SUCCESS && bytes == NULL)
    rc = darray__err(a->errmsg, DARRAY_ENULL, "bytes is NULL");
  if (rc == DARRAY_SUCCESS)
    *bytes = a->local_bytes;
  return rc;
}

/* Owner, cell and interior index of a global index (checked in range). */
static void owner_of(darray_t a, const int64_t gidx[], int *rank, int *cell,
                     int64_t lidx[]) {
  if (a->d.q > 0) {
    int xyz[3], m = 0;
    for (int d = 0; d < a->d.ndims; d++) {
      lidx[d] = gidx[d];
      if (a->d.dist[d] != DARRAY_DIST_MULTIPARTITION)
        continue;
      int s = darray__dist_mp_slab_of(a->d.gsizes[d], a->d.q, gidx[d]);
      int64_t start, len;
      darray__dist_mp_slab(a->d.gsizes[d], a->d.q, s, &start, &len);
      lidx[d] = gidx[d] - start;
      xyz[m++] = s;
    }
    darray__dist_mp_owner(a->d.q, xyz, rank, cell);
    return;
  }
  int r = 0;
  for (int d = 0; d < a->d.ndims; d++) {
    int c;
    darray__dist_owner_blockcyclic(gidx[d], a->d.psizes[d], a->d.block[d],
                                   a->d.dist[d] == DARRAY_DIST_CYCLIC, &c,
                                   &lidx[d]);
    r = r * a->d.psizes[d] + c;
  }
  *rank = r;
  *cell = 0;
}

/* Byte offset of interior index lidx of a rank's cell in its buffer. */
static int local_offset(darray_t a, int rank, int cell, const int64_t lidx[],
                        int64_t *offset) {
  section_t *sec = a->sec;
  int nsec = a->nsec;
  if (rank != a->rank &&
      darray__dist_sections(&a->d, rank, &sec, &nsec) != DARRAY_SUCCESS)
    return darray__err(a->errmsg, DARRAY_ENOMEM, "out of memory");
  int64_t off = sec[cell].mem_base;
  for (int d = 0; d < a->d.ndims; d++)
    off += lidx[d] * sec[cell].mem_stride[d];
  if (sec != a->sec)
    free(sec);
  *offset = off;
  return DARRAY_SUCCESS;
}

int darray_locate(darray_t a, const int64_t gidx[], int *rank, int *cell,
                  int64_t lidx[], int64_t *offset) {
  int rc = check_committed(a);
  if (rc == DARRAY_SUCCESS)
    rc = check_gidx(a, gidx);
  if (rc != DARRAY_SUCCESS)
    return rc;
  int r, c;
  int64_t l[DARRAY_MAX_DIMS];
  owner_of(a, gidx, &r, &c, l);
  if (rank)
    *rank = r;
  if (cell)
    *cell = c;
  if (lidx)
    memcpy(lidx, l, sizeof(int64_t) * (size_t)a->d.ndims);
  return offset ? local_offset(a, r, c, l, offset) : DARRAY_SUCCESS;
}

int darray_global_index(darray_t a, int rank, int cell, const int64_t lidx[],
                        int64_t gidx[]) {
  int rc = check_committed(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (lidx == NULL || gidx == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "%s is NULL",
                       lidx == NULL ? "lidx" : "gidx");
  if (rank < 0 || rank >= a->d.nprocs)
    return darray__err(a->errmsg, DARRAY_EINDEX,
                       "rank = %d is not in [0, %d)", rank, a->d.nprocs);
  if (check_cell(a, cell) != DARRAY_SUCCESS)
    return DARRAY_EINDEX;
  section_t *sec;
  int nsec;
  if (darray__dist_sections(&a->d, rank, &sec, &nsec) != DARRAY_SUCCESS)
    return darray__err(a->errmsg, DARRAY_ENOMEM, "out of memory");
  for (int d = 0; d < a->d.ndims && rc == DARRAY_SUCCESS; d++) {
    int64_t n = darray__dist_set_size(&sec[cell].set[d]);
    if (lidx[d] < 0 || lidx[d] >= n)
      rc = darray__err(a->errmsg, DARRAY_EINDEX,
                       "%s = %lld is not in %s on rank %d",
                       darray__ix_arg(darray__fortran(), "lidx", d,
                                      DARRAY_IXBUF),
                       darray__ix(darray__fortran(), lidx[d]),
                       darray__ix_range(darray__fortran(), n, DARRAY_IXBUF),
                       rank);
    else
      gidx[d] = darray__dist_set_global(&sec[cell].set[d], lidx[d]);
  }
  free(sec);
  return rc;
}

int darray_file_offset(darray_t a, const int64_t gidx[], int64_t *offset) {
  int rc = check_committed(a);
  if (rc == DARRAY_SUCCESS)
    rc = check_gidx(a, gidx);
  if (rc == DARRAY_SUCCESS && offset == NULL)
    rc = darray__err(a->errmsg, DARRAY_ENULL, "offset is NULL");
  if (rc != DARRAY_SUCCESS)
    return rc;
  int64_t off = 0; /* inside the array: commit checked its byte size */
  for (int d = 0; d < a->d.ndims; d++)
    off += gidx[d] * a->d.fstride[d];
  if (!darray__add_ok(a->d.disp, off, &off))
    return darray__err(a->errmsg, DARRAY_ESIZE,
                       "disp + the element's offset overflows 64 bits");
  *offset = off;
  return DARRAY_SUCCESS;
}
