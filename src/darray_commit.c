/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_commit.c - finish a description: choose the grid, check it, agree
 * on it across processes, and derive this process's cells.
 */
#include "array.h"
#include "agree.h"
#include "layout/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve_multipartition(darray_desc_t *a, char *msg) {
  a->q = darray__dist_isqrt(a->nprocs);
  if (a->q < 1)
    return darray__err(msg, DARRAY_EDIST,
                       "dist: MULTIPARTITION needs a perfect-square number of "
                       "processes, not %d", a->nprocs);
  for (int d = 0; d < a->ndims; d++) {
    bool mp = a->dist[d] == DARRAY_DIST_MULTIPARTITION;
    int want = mp ? a->q : 1;
    if (a->psizes[d] != 0 && a->psizes[d] != want)
      return darray__err(msg, DARRAY_EGRID,
                         "%s = %d: a MULTIPARTITION grid has %d there",
                         DARRAY_ARG_AT("psizes", d), a->psizes[d], want);
    a->psizes[d] = want;
    a->block[d] = a->gsizes[d];
    if (mp && a->gsizes[d] < a->q)
      return darray__err(msg, DARRAY_EDIST,
                         "%s = %lld is smaller than q = %d: "
                         "MULTIPARTITION cells would be empty",
                         DARRAY_ARG_AT("gsizes", d), (long long)a->gsizes[d],
                         a->q);
  }
  return DARRAY_SUCCESS;
}

static int resolve_grid(darray_desc_t *a, char *msg) {
  int64_t fixed = 1;
  bool any_free = false;
  for (int d = 0; d < a->ndims; d++) {
    if (a->dist[d] == DARRAY_DIST_NONE) {
      if (a->psizes[d] > 1)
        return darray__err(msg, DARRAY_EGRID,
                           "%s = %d but dimension %lld is not "
                           "distributed (DARRAY_DIST_NONE)",
                           DARRAY_ARG_AT("psizes", d), a->psizes[d],
                           darray__ix(darray__fortran(), d));
      a->psizes[d] = 1;
    }
    if (a->psizes[d] == 0)
      any_free = true;
    else
      fixed *= a->psizes[d];
    if (fixed > a->nprocs)
      break;
  }
  if (fixed > a->nprocs || a->nprocs % fixed != 0 ||
      (!any_free && fixed != a->nprocs))
    return darray__err(msg, DARRAY_EGRID,
                       "psizes: the grid does not fit %d processes",
                       a->nprocs);
  if (any_free &&
      MPI_Dims_create(a->nprocs, a->ndims, a->psizes) != MPI_SUCCESS)
    return darray__err(msg, DARRAY_EGRID,
                       "MPI_Dims_create could not complete the grid");
  return DARRAY_SUCCESS;
}

static int resolve_blocks(darray_desc_t *a, char *msg) {
  for (int d = 0; d < a->ndims; d++) {
    int64_t n = a->gsizes[d], p = a->psizes[d], k = a->dargs[d];
    int64_t ceil_np = n / p + (n % p != 0); /* no overflow near INT64_MAX */
    switch (a->dist[d]) {
    case DARRAY_DIST_BLOCK:
      a->block[d] = k > 0 ? k : ceil_np;
      if (a->block[d] > n)
        a->block[d] = n; /* larger blocks mean the same ownership */
      if (a->block[d] < ceil_np) /* block * p < n */
        return darray__err(msg, DARRAY_EDIST,
                           "%s = %lld: BLOCK(%lld) over %lld processes "
                           "covers only %lld of %lld indices",
                           DARRAY_ARG_AT("dargs", d), (long long)k,
                           (long long)k, (long long)p, (long long)(k * p),
                           (long long)n);
      break;
    case DARRAY_DIST_CYCLIC:
      a->block[d] = k > 0 ? (k < n ? k : n) : 1;
      break;
    default:
      a->block[d] = n;
      break;
    }
  }
  return DARRAY_SUCCESS;
}

static int resolve_file(darray_desc_t *a, char *msg) {
  if (a->esize < 1)
    return darray__err(msg, DARRAY_ETYPE,
                       "DARRAY_OPAQUE type without darray_set_elem_size()");
  int64_t s = a->esize;
  for (int i = a->ndims - 1; i >= 0; i--) {
    int d = a->perm[i];
    a->fstride[d] = s;
    if (!darray__mul_ok(s, a->gsizes[d], &s))
      return darray__err(msg, DARRAY_ESIZE,
                         "the array's size in bytes overflows 64 bits");
  }
  return DARRAY_SUCCESS;
}

int darray__desc_strides(darray_desc_t *a, char *msg) {
  return resolve_file(a, msg);
}

int darray__desc_resolve(darray_desc_t *a, char *msg) {
  bool mp = false;
  for (int d = 0; d < a->ndims; d++)
    mp |= a->dist[d] == DARRAY_DIST_MULTIPARTITION;
  int rc = mp ? resolve_multipartition(a, msg) : resolve_grid(a, msg);
  if (rc == DARRAY_SUCCESS && !mp)
    rc = resolve_blocks(a, msg);
  if (rc == DARRAY_SUCCESS)
    rc = resolve_file(a, msg);
  return rc;
}

static int resolve_local(darray_t a) {
  int rc = darray__dist_sections(&a->d, a->rank, &a->sec, &a->nsec);
  if (rc != DARRAY_SUCCESS)
    return darray__err(a->errmsg, rc, rc == DARRAY_ENOMEM
                                          ? "out of memory for the local cells"
                                          : "the local buffer size overflows");
  a->local_count = 0;
  a->local_bytes = 0;
  for (int c = 0; c < a->nsec; c++) {
    int64_t n = 1;
    for (int d = 0; d < a->d.ndims; d++) {
      int64_t len = darray__dist_set_size(&a->sec[c].set[d]);
      int64_t pad = a->d.padded[d];
      if (len > 0 && pad > 0 && pad < len + 2 * a->d.ghost[d])
        return darray__err(a->errmsg, DARRAY_EGHOST,
                           "%s = %lld is smaller than the local extent %lld "
                           "plus 2 * %s = %lld", DARRAY_ARG_AT("padded", d),
                           (long long)a->d.padded[d], (long long)len,
                           DARRAY_ARG_AT("ghost", d),
                           (long long)(2 * a->d.ghost[d]));
      n *= len;
    }
    a->local_count += n;
    a->local_bytes += a->sec[c].alloc_bytes;
  }
  return DARRAY_SUCCESS;
}

/* Hashes of the parts of a description that every process must share. */
enum { PART_SHAPE, PART_DIST, PART_GRID, PART_ORDER, NPARTS };
static const char *const part_names[NPARTS] = {
    "gsizes/type/element size", "distribution (dist/dargs)",
    "process grid (psizes)", "storage order"};

static void description_hash(const darray_t a, int64_t h[NPARTS]) {
  size_t n = (size_t)a->d.ndims;
  uint64_t x = darray__hash(0, a->d.gsizes, n * sizeof(int64_t));
  x = darray__hash(x, &a->d.type, sizeof a->d.type);
  h[PART_SHAPE] = (int64_t)darray__hash(x, &a->d.esize, sizeof a->d.esize);
  x = darray__hash(0, a->d.dist, n * sizeof a->d.dist[0]);
  h[PART_DIST] = (int64_t)darray__hash(x, a->d.dargs, n * sizeof(int64_t));
  h[PART_GRID] = (int64_t)darray__hash(0, a->d.psizes, n * sizeof(int));
  x = darray__hash(0, &a->d.file_order, sizeof a->d.file_order);
  h[PART_ORDER] = (int64_t)darray__hash(x, a->d.perm, n * sizeof(int));
}

/* Append ", " (after the first) and n numbers joined by sep to buf. */
static void put_list(char *buf, size_t n, const char *label,
                     const int64_t *v, const int *iv, int count,
                     const char *sep) {
  size_t k = strlen(buf);
  if (k < n)
    k += (size_t)snprintf(buf + k, n - k, "%s%s ", k ? ", " : "", label);
  for (int i = 0; i < count && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? sep : "",
                          (long long)(v ? v[i] : iv[i]));
}

/* Part `part` of a description in words (for a disagreement). */
static void part_text(const darray_desc_t *d, int part, char *buf, size_t n) {
  static const char *const dn[] = {"*", "BLOCK", "CYCLIC", "MULTIPARTITION"};
  size_t k = strlen(buf);
  buf += k; /* after what is there */
  n -= k < n ? k : n;
  if (n == 0)
    return;
  buf[0] = '\0';
  if (part == PART_SHAPE) {
    put_list(buf, n, "gsizes", d->gsizes, NULL, d->ndims, "x");
    size_t k = strlen(buf);
    if (k < n)
      snprintf(buf + k, n - k, ", type %s of %lld bytes",
               darray__type_name((int)d->type), (long long)d->esize);
  } else if (part == PART_DIST) {
    k = (size_t)snprintf(buf, n, "dist");
    for (int i = 0; i < d->ndims && k < n; i++) {
      unsigned t = (unsigned)d->dist[i];
      k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? " x " : " ",
                            t < 4 ? dn[t] : "?");
      if (d->dargs[i] != DARRAY_DEFAULT_ARG && k < n)
        k += (size_t)snprintf(buf + k, n - k, "(%lld)",
                              (long long)d->dargs[i]);
    }
  } else if (part == PART_GRID) {
    put_list(buf, n, "psizes", NULL, d->psizes, d->ndims, "x");
  } else {
    put_list(buf, n, d->file_order == DARRAY_ORDER_C         ? "C order, perm"
                     : d->file_order == DARRAY_ORDER_FORTRAN ? "Fortran "
                                                               "order, perm"
                                                             : "perm",
             NULL, d->perm, d->ndims, ",");
  }
}

void darray__desc_text(const darray_desc_t *d, char *buf, size_t n) {
  if (n == 0)
    return;
  buf[0] = '\0';
  for (int part = 0; part < NPARTS; part++) {
    size_t k = strlen(buf);
    if (part > 0 && k + 2 < n)
      snprintf(buf + k, n - k, "; ");
    part_text(d, part, buf, n);
  }
}

int darray_commit(darray_t a) {
  int rc = darray__array_check(a);
  if (rc == DARRAY_SUCCESS)
    rc = darray__mpi_ready(a->errmsg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (a->committed)
    return darray__err(a->errmsg, DARRAY_ESTATE, "the array is already "
                                                 "committed");
  int64_t h[NPARTS];
  description_hash(a, h); /* before the grid is filled in */
  bool mp = false;
  for (int d = 0; d < a->d.ndims; d++)
    mp |= a->d.dist[d] == DARRAY_DIST_MULTIPARTITION;
  int save_psizes[DARRAY_MAX_DIMS];
  memcpy(save_psizes, a->d.psizes, sizeof save_psizes);
  rc = darray__desc_resolve(&a->d, a->errmsg);
  bool virt = a->comm == MPI_COMM_NULL; /* no process, nothing to agree */
  if (rc == DARRAY_SUCCESS && !virt)
    rc = resolve_local(a);
  int bad = -1;
  if (!virt)
    rc = darray__agree_check(a->comm, rc, a->errmsg, h, NPARTS, &bad);
  if (rc != DARRAY_SUCCESS) {
    free(a->sec);
    a->sec = NULL;
    a->nsec = 0;
    a->d.q = 0;
    memcpy(a->d.psizes, save_psizes, sizeof save_psizes);
  }
  if (rc == DARRAY_EINCONSISTENT) {
    char text[200];
    text[0] = '\0';
    part_text(&a->d, bad, text, sizeof text);
    darray__err(a->errmsg, rc, "darray_commit: processes passed different %s",
                part_names[bad]);
    darray__agree_differ(a->comm, h[bad], text, a->errmsg,
                         sizeof a->errmsg);
  }
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (!mp && !virt)
    darray__dist_coords(a->d.ndims, a->d.psizes, a->rank, a->coords);
  a->desc_hash = (int64_t)darray__hash(0, h, sizeof h);
  a->committed = true;
  return DARRAY_SUCCESS;
}
