/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups_comm.c - a file's writer groups: the group communicator and the
 * shared window, made once by the file's first groups call and kept on
 * the file until it closes.
 *
 * A split and a window allocation are collective and cost several
 * rounds (rows_comm.c measured a split at 27 ms per call at np=2), and
 * the groups depend only on the file (its communicator, cb_group_size and
 * cb_buffer_size never change while it is open): one pair serves every
 * later call. The calls of a file run in the same order on every process
 * and one at a time (src/async), so every process makes the pair in the
 * same call.
 *
 * The window: the writer's 2 x half bytes (members allocate none; they
 * find the writer's memory with MPI_Win_shared_query), locked once for
 * the window's life (MPI_Win_lock_all, no check): each cycle then
 * synchronizes the memory with MPI_Win_sync around a barrier of the group
 * (groups.c), the unified memory model's way.
 */
#include "groups/groups.h"

#include "agree.h"
#include "file.h"

#include <stdlib.h>

static void cache_free(gr_cache_t *c) {
  if (c == NULL)
    return;
  if (c->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(c->win);
    darray__coll(); /* collective: the window's free */
    MPI_Win_free(&c->win);
  }
  if (c->comm != MPI_COMM_NULL && c->own_comm) {
    darray__coll();
    MPI_Comm_free(&c->comm);
  }
  free(c->ranks);
  free(c);
}

/* The group communicator: by node, or cb_group_size consecutive ranks;
 * the members in rank order, so the lowest rank is the writer. One group
 * of every process is the file's own communicator (no split: at 4
 * processes on 2 cores MPI_Comm_split_type waits busily for 40 ms, and
 * wait.c already knows when every process shares one node); no other
 * collective of a call runs while the groups synchronize on it. */
static int split(darray_file_s_t *f, MPI_Comm *comm, bool *own) {
  int64_t s = f->hints.cb_group_size;
  *own = !(s <= 0 ? f->node_procs == f->nprocs : s >= f->nprocs);
  if (!*own) {
    *comm = f->comm;
    return MPI_SUCCESS;
  }
  darray__coll();
  if (s <= 0)
    return MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank,
                               MPI_INFO_NULL, comm);
  return MPI_Comm_split(f->comm, (int)(f->rank / s), f->rank, comm);
}

/* Whether every process of the file says ok (one allreduce; a failed
 * allreduce is a no). */
static bool all_ok(darray_file_s_t *f, bool ok) {
  int v = ok, all = 0;
  darray__coll();
  if (MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, f->comm) != MPI_SUCCESS)
    return false;
  return all != 0;
}

/* The members' ranks in the file's communicator, in group order. */
static bool member_ranks(darray_file_s_t *f, gr_cache_t *c) {
  MPI_Group mine, file;
  bool ok = MPI_Comm_group(c->comm, &mine) == MPI_SUCCESS;
  if (ok && MPI_Comm_group(f->comm, &file) != MPI_SUCCESS) {
    MPI_Group_free(&mine);
    ok = false;
  }
  if (!ok)
    return false;
  int *in = malloc(sizeof *in * (size_t)c->g);
  c->ranks = malloc(sizeof *c->ranks * (size_t)c->g);
  ok = in != NULL && c->ranks != NULL;
  for (int k = 0; ok && k < c->g; k++)
    in[k] = k;
  ok = ok && MPI_Group_translate_ranks(mine, c->g, in, file, c->ranks) ==
                 MPI_SUCCESS;
  free(in);
  MPI_Group_free(&mine);
  MPI_Group_free(&file);
  return ok;
}

/* The window on a made communicator: the writer's memory, seen here. */
static bool window(gr_cache_t *c) {
  MPI_Aint size = c->me == 0 ? (MPI_Aint)(2 * c->half) : 0, qsize;
  int unit;
  void *mem = NULL;
  darray__coll();
  if (MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, c->comm, &mem,
                              &c->win) != MPI_SUCCESS) {
    c->win = MPI_WIN_NULL;
    return false;
  }
  if (MPI_Win_shared_query(c->win, 0, &qsize, &unit, &mem) != MPI_SUCCESS ||
      MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win) != MPI_SUCCESS)
    return false; /* unlock_all of an unlocked window fails: harmless */
  c->base = mem;
  return (int64_t)qsize >= 2 * c->half;
}

int darray__groups_cache(darray_file_s_t *f, gr_cache_t **out) {
  if (f->groups != NULL) {
    *out = f->groups;
    return DARRAY_SUCCESS;
  }
  gr_cache_t *c = calloc(1, sizeof *c);
  bool ok = c != NULL;
  if (c != NULL) {
    c->comm = MPI_COMM_NULL;
    c->win = MPI_WIN_NULL;
    c->half = darray__groups_half(&f->hints);
  }
  MPI_Comm comm = MPI_COMM_NULL;
  bool own;
  /* every process splits, even one out of memory: the split is collective */
  ok = split(f, &comm, &own) == MPI_SUCCESS && ok;
  if (c != NULL)
    c->comm = comm, c->own_comm = own;
  else if (comm != MPI_COMM_NULL && own)
    darray__coll(), MPI_Comm_free(&comm);
  ok = ok && MPI_Comm_size(c->comm, &c->g) == MPI_SUCCESS &&
       MPI_Comm_rank(c->comm, &c->me) == MPI_SUCCESS && member_ranks(f, c);
  /* a window only on groups whose every member has its communicator;
   * then one more agreement, on the windows */
  if (!all_ok(f, ok) || !all_ok(f, window(c))) {
    cache_free(c);
    return DARRAY_EMPI;
  }
  f->groups = c;
  *out = c;
  return DARRAY_SUCCESS;
}

void darray__groups_close(darray_file_s_t *f) {
  cache_free(f->groups);
  f->groups = NULL;
}
