/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups_comm.c - a file's writer groups: the group communicator and the
 * shared segment, made once by the file's first groups call and kept on
 * the file until it closes.
 *
 * A split and a segment cost collectives (rows_comm.c measured a split
 * at 27 ms per call at np=2), and the groups depend only on the file (its
 * communicator, cb_group_size and cb_buffer_size never change while it is
 * open): one pair serves every later call. The calls of a file run in the
 * same order on every process and one at a time (src/async), so every
 * process makes the pair in the same call.
 *
 * The segment: the writer's 2 x half bytes of POSIX shared memory
 * (shm_open under a name of its own, O_EXCL, its size reserved with
 * posix_fallocate so that a full /dev/shm is a code and not a SIGBUS),
 * after a page that holds a key; the writer sends the name and the key to
 * the members (one nonblocking broadcast), each maps the segment and
 * checks the key (a member on another node would open nothing, or another
 * segment of the same name), every process of the file agrees, and the
 * writer unlinks the name: nothing outlives the processes. It was an MPI-3
 * window (MPI_Win_allocate_shared) until issue 38: MPICH 4.0 (ch4:ucx)
 * spent 125 ms making one at 2 processes on 2 cores and 175-340 ms at 4
 * (its waits inside poll busily), on every file that groups touched, and
 * 50 ms freeing it; the segment costs two collectives, both waited for
 * politely (wait.c), and closing it none. Each cycle synchronizes the
 * memory with a fence on each side of a barrier of the group (groups.c).
 */
#include "groups/groups.h"

#include "agree.h"
#include "file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The page before the halves: the key, and the halves page-aligned. */
#define GR_HEAD 4096

static void cache_free(gr_cache_t *c) {
  if (c == NULL)
    return;
  if (c->map != NULL)
    munmap(c->map, (size_t)c->map_len);
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

/* Whether every process of the file says ok (one allreduce, waited for
 * politely; a failed allreduce is a no). */
static bool all_ok(darray_file_s_t *f, bool ok) {
  int v = ok;
  MPI_Request req;
  darray__coll();
  if (MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, f->comm,
                     &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return false;
  return v != 0;
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

/* What the writer sends its members: whether it made the segment, its
 * name and its key. */
typedef struct gr_seg {
  int ok;
  uint64_t key;
  char name[64];
} gr_seg_t;

/* Map the named segment of len bytes (the writer creates it), and check
 * its key (the writer writes it). */
static bool seg_map(gr_cache_t *c, const gr_seg_t *s, bool create,
                    bool *made) {
  int fd = create ? shm_open(s->name, O_RDWR | O_CREAT | O_EXCL, 0600)
                  : shm_open(s->name, O_RDWR, 0);
  if (fd < 0)
    return false;
  *made = create;
  bool ok = !create || posix_fallocate(fd, 0, (off_t)c->map_len) == 0;
  void *m = ok ? mmap(NULL, (size_t)c->map_len, PROT_READ | PROT_WRITE,
                      MAP_SHARED, fd, 0)
               : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED)
    return false;
  c->map = m;
  if (create)
    memcpy(m, &s->key, sizeof s->key);
  return memcmp(m, &s->key, sizeof s->key) == 0;
}

/* The segment on a made communicator, the writer's memory seen here: the
 * name and key go out in one broadcast; every process of the file agrees
 * that it mapped it before the writer unlinks the name. */
static bool segment(darray_file_s_t *f, gr_cache_t *c) {
  gr_seg_t s = {0};
  bool made = false;
  c->map_len = GR_HEAD + 2 * c->half;
  if (c->me == 0) {
    s.key = darray__hash((uint64_t)darray__now_ns(), &c, sizeof c) |
            1; /* never 0: a segment of zeros is not ours */
    snprintf(s.name, sizeof s.name, "/darrayio-groups-%ld-%016llx",
             (long)getpid(), (unsigned long long)s.key);
    s.ok = seg_map(c, &s, true, &made);
  }
  MPI_Request req;
  darray__coll();
  bool ok = MPI_Ibcast(&s, (int)sizeof s, MPI_BYTE, 0, c->comm, &req) ==
                MPI_SUCCESS &&
            darray__wait(&req) == DARRAY_SUCCESS && s.ok;
  if (ok && c->me != 0)
    ok = seg_map(c, &s, false, &made);
  ok = all_ok(f, ok);
  if (c->me == 0 && made)
    shm_unlink(s.name);
  if (ok)
    c->base = (char *)c->map + GR_HEAD;
  return ok;
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
  /* a segment only on groups whose every member has its communicator;
   * the segment's own agreement follows */
  if (!all_ok(f, ok) || !segment(f, c)) {
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
