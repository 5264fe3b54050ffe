/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows_comm.c - the group communicators, kept on the file.
 *
 * MPI_Comm_split is collective over the file's communicator and costs
 * several collective rounds (at np=2 on this 2-core machine, loaded, a
 * darray_write of 8 MiB took 36 ms with it and 9 ms without), so one
 * group of every process uses the file's communicator itself, and a
 * smaller grouping's communicator is made once, by the first call that
 * uses it, and kept on the file for its later calls; a file keeps the
 * last few. A grouping is
 * named by the grid, the storage order and the kept dimensions, which
 * every process of the call shares; the calls of a file run in the same
 * order on every process and one at a time (src/async: one thread at
 * most uses the file's communicator), so every process finds, makes and
 * evicts the same communicators in the same calls.
 */
#include "rows/rows.h"

#include "agree.h"

#include <string.h>

#define NCOMMS ((int)(sizeof ((darray_file_s_t *)0)->rows_comm /             \
                  sizeof ((darray_file_s_t *)0)->rows_comm[0]))

static bool same(const darray_file_s_t *f, int i, const darray_desc_t *d,
                 int keep) {
  size_t n = sizeof(int) * (size_t)d->ndims;
  return f->rows_comm[i].used && f->rows_comm[i].keep == keep &&
         f->rows_comm[i].ndims == d->ndims &&
         memcmp(f->rows_comm[i].psizes, d->psizes, n) == 0 &&
         memcmp(f->rows_comm[i].perm, d->perm, n) == 0;
}

static void forget(darray_file_s_t *f, int i) {
  if (f->rows_comm[i].used) {
    darray__coll(); /* collective: an eviction is part of a call */
    MPI_Comm_free(&f->rows_comm[i].comm);
  }
  f->rows_comm[i].used = false;
}

static void keep_comm(darray_file_s_t *f, const darray_desc_t *d, int keep,
                      MPI_Comm comm) {
  int i = f->rows_next;
  size_t n = sizeof(int) * (size_t)d->ndims;
  f->rows_next = (i + 1) % NCOMMS;
  forget(f, i); /* the oldest */
  f->rows_comm[i].used = true;
  f->rows_comm[i].keep = keep;
  f->rows_comm[i].ndims = d->ndims;
  memcpy(f->rows_comm[i].psizes, d->psizes, n);
  memcpy(f->rows_comm[i].perm, d->perm, n);
  f->rows_comm[i].comm = comm;
}

/* Collective on f->comm. A split that fails anywhere is freed
 * everywhere: no process may exchange on a group whose other members
 * have no communicator. */
int darray__rows_comm(darray_file_s_t *f, const darray_desc_t *d, int keep,
                      MPI_Comm *comm) {
  if (darray__rows_color(d, keep, d->nprocs - 1) == 0) {
    *comm = f->comm; /* one group of all, in rank order: the file's own
                        (no other message of the call uses rows' tag) */
    return DARRAY_SUCCESS;
  }
  for (int i = 0; i < NCOMMS; i++)
    if (same(f, i, d, keep)) {
      *comm = f->rows_comm[i].comm;
      return DARRAY_SUCCESS;
    }
  MPI_Comm c = MPI_COMM_NULL;
  int color = darray__rows_color(d, keep, f->rank);
  darray__coll(); /* the split and the allreduce */
  darray__coll();
  int ok = MPI_Comm_split(f->comm, color, f->rank, &c) == MPI_SUCCESS, all;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm) != MPI_SUCCESS)
    all = 0;
  if (!all) {
    if (c != MPI_COMM_NULL) {
      darray__coll();
      MPI_Comm_free(&c);
    }
    return DARRAY_EMPI;
  }
  keep_comm(f, d, keep, c);
  *comm = c;
  return DARRAY_SUCCESS;
}

void darray__rows_close(darray_file_s_t *f) {
  for (int i = 0; i < NCOMMS; i++)
    forget(f, i);
}
