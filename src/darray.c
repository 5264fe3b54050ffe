/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray.c - array descriptions: create, set, commit, free.
 *
 * The dispatcher's job: check arguments, say which one is wrong, and make
 * every collective call end with the same code on every process.
 */
#include "array.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Element sizes of the predefined types, indexed by darray_type_t. */
static int64_t type_size(darray_type_t t) {
  switch (t) {
  case DARRAY_CHAR: case DARRAY_INT8: case DARRAY_UINT8: return 1;
  case DARRAY_INT16: case DARRAY_UINT16: return 2;
  case DARRAY_INT32: case DARRAY_UINT32: case DARRAY_FLOAT: return 4;
  case DARRAY_INT64: case DARRAY_UINT64: case DARRAY_DOUBLE: return 8;
  case DARRAY_LONG_DOUBLE: return (int64_t)sizeof(long double);
  case DARRAY_OPAQUE: return 0;
  }
  return -1;
}

int darray__array_check(darray_t a) {
  if (a == NULL)
    return darray__err(darray__errbuf_nohandle(), DARRAY_EBADHANDLE,
                       "array handle is NULL");
  if (a->magic != DARRAY_MAGIC_ARRAY)
    return darray__err(darray__errbuf_nohandle(), DARRAY_EBADHANDLE,
                       "array handle is not live (freed or corrupt)");
  a->errmsg[0] = '\0';
  return DARRAY_SUCCESS;
}

static int check_mutable(darray_t a) {
  int rc = darray__array_check(a);
  if (rc == DARRAY_SUCCESS && a->committed)
    rc = darray__err(a->errmsg, DARRAY_ESTATE,
                     "the array is committed; only the displacement may "
                     "change");
  return rc;
}

static int check_comm(MPI_Comm comm, char *msg) {
  int inter = 0;
  int rc = darray__mpi_ready(msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (comm == MPI_COMM_NULL)
    return darray__err(msg, DARRAY_ECOMM, "comm is MPI_COMM_NULL");
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return darray__err(msg, DARRAY_ECOMM,
                       "comm is an intercommunicator or invalid");
  return DARRAY_SUCCESS;
}

int darray__check_shape(int ndims, const int64_t gsizes[], darray_type_t type,
                        char *msg) {
  if (ndims < 1 || ndims > DARRAY_MAX_DIMS)
    return darray__err(msg, DARRAY_ENDIMS, "ndims = %d is not in [1, %d]",
                       ndims, DARRAY_MAX_DIMS);
  if (gsizes == NULL)
    return darray__err(msg, DARRAY_ENULL, "gsizes is NULL");
  int64_t count = 1;
  for (int d = 0; d < ndims; d++) {
    if (gsizes[d] < 1)
      return darray__err(msg, DARRAY_ESIZE, "%s = %lld is < 1",
                         darray__ix_arg(darray__fortran(), "gsizes", d,
                                        DARRAY_IXBUF),
                         (long long)gsizes[d]);
    if (!darray__mul_ok(count, gsizes[d], &count))
      return darray__err(msg, DARRAY_ESIZE,
                         "gsizes: the element count overflows 64 bits");
  }
  if (type_size(type) < 0)
    return darray__err(msg, DARRAY_ETYPE, "type = %d is not a darray_type_t",
                       (int)type);
  return DARRAY_SUCCESS;
}

static void set_defaults(darray_t a, int ndims, const int64_t gsizes[],
                         darray_type_t type) {
  a->magic = DARRAY_MAGIC_ARRAY;
  a->id = darray__next_id();
  a->d.ndims = ndims;
  a->d.type = type;
  a->d.esize = type_size(type);
  a->d.file_order = DARRAY_ORDER_C;
  a->d.mem_order = DARRAY_ORDER_C;
  for (int d = 0; d < ndims; d++) {
    a->d.gsizes[d] = gsizes[d];
    a->d.dist[d] = DARRAY_DIST_BLOCK;
    a->d.dargs[d] = DARRAY_DEFAULT_ARG;
    a->d.perm[d] = d;
  }
}

/* DARRAY_EINCONSISTENT at create: two processes' shapes, into msg
 * (collective). */
static void name_difference(MPI_Comm comm, int64_t mine, int ndims,
                            const int64_t gsizes[], darray_type_t type,
                            char *msg) {
  char text[200];
  int k = snprintf(text, sizeof text, "ndims %d, gsizes ", ndims);
  for (int d = 0; d < ndims && d < DARRAY_MAX_DIMS && k > 0 &&
                  (size_t)k < sizeof text;
       d++)
    k += snprintf(text + k, sizeof text - (size_t)k, "%s%lld", d ? "x" : "",
                  (long long)gsizes[d]);
  if (k > 0 && (size_t)k < sizeof text)
    snprintf(text + k, sizeof text - (size_t)k, ", type %s",
             darray__type_name((int)type));
  darray__err(msg, DARRAY_EINCONSISTENT,
              "darray_create: processes passed different ndims, gsizes or "
              "type");
  darray__agree_differ(comm, mine, text, msg, DARRAY_ERRMSG_LEN);
}

int darray_create(MPI_Comm comm, int ndims, const int64_t gsizes[],
                  darray_type_t type, darray_t *out) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (out == NULL)
    return darray__err(msg, DARRAY_ENULL, "a (the output handle) is NULL");
  *out = NULL;
  int rc = check_comm(comm, msg);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable communicator: nothing to agree over */
  rc = darray__check_shape(ndims, gsizes, type, msg);
  uint64_t h = darray__hash(0, &ndims, sizeof ndims);
  if (rc == DARRAY_SUCCESS)
    h = darray__hash(h, gsizes, sizeof(int64_t) * (size_t)ndims);
  h = darray__hash(h, &type, sizeof type);
  darray_t a = rc == DARRAY_SUCCESS ? calloc(1, sizeof *a) : NULL;
  if (rc == DARRAY_SUCCESS && a == NULL)
    rc = darray__err(msg, DARRAY_ENOMEM, "out of memory for the handle");
  /* MPI_Comm_dup is collective: every process makes it, before the
   * agreement, so that a failure of it on one process is agreed on too */
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
    dup = MPI_COMM_NULL;
    if (rc == DARRAY_SUCCESS)
      rc = darray__err(msg, DARRAY_EMPI, "MPI_Comm_dup failed");
  }
  int64_t hv = (int64_t)h;
  rc = darray__agree_check(comm, rc, msg, &hv, 1, NULL);
  if (rc == DARRAY_EINCONSISTENT)
    name_difference(comm, hv, ndims, gsizes, type, msg);
  if (rc != DARRAY_SUCCESS) {
    if (dup != MPI_COMM_NULL)
      MPI_Comm_free(&dup);
    free(a);
    return rc;
  }
  a->comm = dup;
  MPI_Comm_set_errhandler(a->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(a->comm, &a->rank);
  MPI_Comm_size(a->comm, &a->d.nprocs);
  set_defaults(a, ndims, gsizes, type);
  *out = a;
  return DARRAY_SUCCESS;
}

int darray_create_virtual(int nprocs, int ndims, const int64_t gsizes[],
                          darray_type_t type, darray_t *out) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (out == NULL)
    return darray__err(msg, DARRAY_ENULL, "a (the output handle) is NULL");
  *out = NULL;
  int rc = darray__mpi_ready(msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (nprocs < 1 || nprocs > DARRAY_VIRTUAL_MAX_NPROCS)
    return darray__err(msg, DARRAY_EGRID, "nprocs = %d: a virtual array "
                       "has 1 .. %d processes", nprocs,
                       DARRAY_VIRTUAL_MAX_NPROCS);
  rc = darray__check_shape(ndims, gsizes, type, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray_t a = calloc(1, sizeof *a);
  if (a == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory for the handle");
  a->comm = MPI_COMM_NULL; /* what makes it virtual */
  a->rank = -1;            /* it is no process's: no local cells */
  a->d.nprocs = nprocs;
  set_defaults(a, ndims, gsizes, type);
  *out = a;
  return DARRAY_SUCCESS;
}

int darray__array_real(const struct darray_s *a, char *msg) {
  if (a->comm != MPI_COMM_NULL)
    return DARRAY_SUCCESS;
  return darray__err(msg, DARRAY_ECOMM, "a is a virtual array "
                     "(darray_create_virtual): it describes calls on paper, "
                     "for darray_plan_virtual, and moves no data");
}

int darray_free(darray_t *pa) {
  if (pa == NULL || *pa == NULL)
    return DARRAY_SUCCESS;
  darray_t a = *pa;
  int rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  /* after MPI_Finalize the communicator cannot be freed (MPI has released
   * it): the memory is, and the call says what happened */
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  bool virt = a->comm == MPI_COMM_NULL; /* nothing of MPI's to free */
  bool mpi = virt || darray__mpi_ready(msg) == DARRAY_SUCCESS;
  a->magic = DARRAY_MAGIC_DEAD;
  if (mpi && !virt)
    MPI_Comm_free(&a->comm);
  free(a->sec);
  free(a);
  *pa = NULL;
  return mpi ? DARRAY_SUCCESS
             : darray__err(msg, DARRAY_EMPI,
                           "MPI has been finalized: the array handle was "
                           "released, its communicator was not freed (free "
                           "arrays before MPI_Finalize)");
}

int darray_set_elem_size(darray_t a, int64_t size) {
  int rc = check_mutable(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (a->d.type != DARRAY_OPAQUE)
    return darray__err(a->errmsg, DARRAY_ETYPE,
                       "darray_set_elem_size: the type is not DARRAY_OPAQUE");
  if (size < 1)
    return darray__err(a->errmsg, DARRAY_ETYPE, "size = %lld is < 1",
                       (long long)size);
  a->d.esize = size;
  return DARRAY_SUCCESS;
}

int darray__check_distribution(int ndims, const darray_dist_t dist[],
                               const int64_t dargs[], char *msg) {
  int nmp = 0;
  for (int d = 0; d < ndims; d++) {
    if (dist[d] < DARRAY_DIST_NONE || dist[d] > DARRAY_DIST_MULTIPARTITION)
      return darray__err(msg, DARRAY_EDIST,
                         "%s = %d is not a darray_dist_t",
                         darray__ix_arg(darray__fortran(), "dist", d,
                                        DARRAY_IXBUF),
                         (int)dist[d]);
    nmp += dist[d] == DARRAY_DIST_MULTIPARTITION;
    int64_t k = dargs ? dargs[d] : DARRAY_DEFAULT_ARG;
    bool takes_arg = dist[d] == DARRAY_DIST_BLOCK ||
                     dist[d] == DARRAY_DIST_CYCLIC;
    if (takes_arg && k != DARRAY_DEFAULT_ARG && k < 1)
      return darray__err(msg, DARRAY_EDIST,
                         "%s = %lld: a block size must be >= 1 or "
                         "DARRAY_DEFAULT_ARG",
                         darray__ix_arg(darray__fortran(), "dargs", d,
                                        DARRAY_IXBUF),
                         (long long)k);
  }
  if (nmp != 0 && nmp != 3)
    return darray__err(msg, DARRAY_EDIST,
                       "dist: MULTIPARTITION must be given on exactly three "
                       "dimensions (given on %d)", nmp);
  for (int d = 0; d < ndims && nmp > 0; d++)
    if (dist[d] != DARRAY_DIST_MULTIPARTITION && dist[d] != DARRAY_DIST_NONE)
      return darray__err(msg, DARRAY_EDIST,
                         "%s: with MULTIPARTITION every other "
                         "dimension must be DARRAY_DIST_NONE",
                         darray__ix_arg(darray__fortran(), "dist", d,
                                        DARRAY_IXBUF));
  return DARRAY_SUCCESS;
}

int darray_set_distribution(darray_t a, const darray_dist_t dist[],
                            const int64_t dargs[]) {
  int rc = check_mutable(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (dist == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "dist is NULL");
  rc = darray__check_distribution(a->d.ndims, dist, dargs, a->errmsg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  for (int d = 0; d < a->d.ndims; d++) {
    a->d.dist[d] = dist[d];
    a->d.dargs[d] = dargs ? dargs[d] : DARRAY_DEFAULT_ARG;
  }
  return DARRAY_SUCCESS;
}

int darray_set_grid(darray_t a, const int psizes[]) {
  int rc = check_mutable(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (psizes == NULL)
    return darray__err(a->errmsg, DARRAY_ENULL, "psizes is NULL");
  for (int d = 0; d < a->d.ndims; d++)
    if (psizes[d] < 0)
      return darray__err(a->errmsg, DARRAY_EGRID, "%s = %d is < 0",
                         darray__ix_arg(darray__fortran(), "psizes", d,
                                        DARRAY_IXBUF),
                         psizes[d]);
  memcpy(a->d.psizes, psizes, sizeof(int) * (size_t)a->d.ndims);
  return DARRAY_SUCCESS;
}

int darray_set_storage_order(darray_t a, darray_order_t order,
                             const int perm[]) {
  int rc = check_mutable(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  int p[DARRAY_MAX_DIMS];
  if (order == DARRAY_ORDER_C || order == DARRAY_ORDER_FORTRAN) {
    for (int i = 0; i < a->d.ndims; i++)
      p[i] = order == DARRAY_ORDER_C ? i : a->d.ndims - 1 - i;
  } else if (order == DARRAY_ORDER_PERM) {
    if (perm == NULL)
      return darray__err(a->errmsg, DARRAY_ENULL,
                         "perm is NULL with DARRAY_ORDER_PERM");
    bool seen[DARRAY_MAX_DIMS] = {false}, F = darray__fortran();
    for (int i = 0; i < a->d.ndims; i++) {
      if (perm[i] < 0 || perm[i] >= a->d.ndims || seen[perm[i]])
        return darray__err(a->errmsg, DARRAY_EORDER,
                           "perm is not a permutation of %lld..%lld (%s = "
                           "%lld)", darray__ix(F, 0),
                           darray__ix(F, a->d.ndims - 1),
                           darray__ix_arg(F, "perm", i, DARRAY_IXBUF),
                           darray__ix(F, perm[i]));
      seen[perm[i]] = true;
      p[i] = perm[i];
    }
  } else {
    return darray__err(a->errmsg, DARRAY_EORDER,
                       "order = %d is not C, Fortran or PERM", (int)order);
  }
  a->d.file_order = order;
  memcpy(a->d.perm, p, sizeof(int) * (size_t)a->d.ndims);
  return DARRAY_SUCCESS;
}

int darray_set_displacement(darray_t a, int64_t disp) {
  int rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (disp < 0)
    return darray__err(a->errmsg, DARRAY_EDISP, "disp = %lld is negative",
                       (long long)disp);
  a->d.disp = disp;
  return DARRAY_SUCCESS;
}

int darray_set_memory_layout(darray_t a, darray_order_t order,
                             const int64_t ghost[], const int64_t padded[]) {
  int rc = check_mutable(a);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (order != DARRAY_ORDER_C && order != DARRAY_ORDER_FORTRAN)
    return darray__err(a->errmsg, DARRAY_EORDER,
                       "order = %d: memory order must be C or Fortran",
                       (int)order);
  bool F = darray__fortran();
  for (int d = 0; d < a->d.ndims; d++) {
    const char *g = darray__ix_arg(F, "ghost", d, DARRAY_IXBUF);
    const char *p = darray__ix_arg(F, "padded", d, DARRAY_IXBUF);
    if (ghost && ghost[d] < 0)
      return darray__err(a->errmsg, DARRAY_EGHOST, "%s = %lld is < 0", g,
                         (long long)ghost[d]);
    if (padded && padded[d] < 0)
      return darray__err(a->errmsg, DARRAY_EGHOST, "%s = %lld is < 0", p,
                         (long long)padded[d]);
    /* so that extents (interior + 2 ghosts) and ghost offsets fit in 64
     * bits: a padded extent must hold both ghosts and one element anyway */
    if (ghost && ghost[d] > (INT64_MAX - a->d.gsizes[d]) / 2)
      return darray__err(a->errmsg, DARRAY_EGHOST,
                         "%s = %lld: the extent overflows 64 bits", g,
                         (long long)ghost[d]);
    if (ghost && padded && padded[d] > 0 && padded[d] <= 2 * ghost[d])
      return darray__err(a->errmsg, DARRAY_EGHOST,
                         "%s = %lld is smaller than 2 * %s + 1 = %lld", p,
                         (long long)padded[d], g,
                         (long long)(2 * ghost[d] + 1));
  }
  a->d.mem_order = order;
  for (int d = 0; d < a->d.ndims; d++) {
    a->d.ghost[d] = ghost ? ghost[d] : 0;
    a->d.padded[d] = padded ? padded[d] : 0;
  }
  return DARRAY_SUCCESS;
}
