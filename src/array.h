/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * array.h - the array handle: a description and this process's cells.
 */
#ifndef DARRAYIO_ARRAY_H
#define DARRAYIO_ARRAY_H

#include "dist/dist.h"

/* An array handle: a description (d) and this process's part of it. */
typedef struct darray_s {
  uint32_t magic;
  bool committed;
  MPI_Comm comm;
  int rank;
  darray_desc_t d;
  /* derived at commit */
  int coords[DARRAY_MAX_DIMS];
  int nsec;
  section_t *sec;
  int64_t local_count;
  int64_t local_bytes;
  int64_t desc_hash; /* of the parts every process must share */
  uint64_t id; /* unique in the process (darray__next_id) */
  char errmsg[DARRAY_ERRMSG_LEN];
} darray_s_t;

/* Check that a is a live array handle and clear its message; on failure
 * the message goes to the no-handle buffer. */
DARRAY_HIDDEN int darray__array_check(struct darray_s *a);
/* DARRAY_SUCCESS for an array over real processes; DARRAY_ECOMM, with a
 * message into msg, for a virtual one (darray_create_virtual): no data
 * moves through it. */
DARRAY_HIDDEN int darray__array_real(const struct darray_s *a, char *msg);

#endif /* DARRAYIO_ARRAY_H */
