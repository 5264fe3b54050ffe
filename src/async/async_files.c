/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_files.c - requests below MPI_THREAD_MULTIPLE (darray_async =
 * files): a post waits for no other process (issue 39), so that requests
 * may be posted on several files in different orders on different
 * processes.
 *
 * A whole-array request outside a dataset begins when posted with its
 * local half (access, plan, preparation: darray__xcall_begin_local) and
 * its agreement as a nonblocking collective (async_agree.c) on the
 * file's begin communicator, which carries nothing else: begins are
 * posted there in request order on every process. The agreement is then
 * progressed by every later post, test, wait or sync of the process, on
 * any of its files (darray__files_progress); once complete, a transfer
 * that calls no MPI (direct or sieve on posix or subfiles: what the
 * planner chooses for a request in the background unless a hint forces
 * another) starts in the file's I/O thread at once, as before.
 *
 * Everything else that is collective waits for the file's wait,
 * wait_all, sync or close (or a blocking call on it, which first drains
 * the file's requests): a transfer that calls MPI (two-phase, rows, the
 * mpiio back end), a begin whose agreement failed (its failure path is
 * collective), a section request's begin (it gathers every process's
 * box), a member of a dataset, a sync on mpiio. There it runs in the
 * program's thread in request order, as a blocking call would, so those
 * waits are made in the same order on every process, as blocking calls
 * are (include/darrayio.h, doc/reliability.md). Never at a post or a
 * test, where it could meet another process's collective on another
 * file.
 *
 * A request's transfer starts only after every earlier request of the
 * file whose bytes it may meet (one of them a write) has completed,
 * agreement included, on this process: below MPI_THREAD_MULTIPLE nothing
 * else orders one process's transfer after another's. A sync starts in
 * the thread only behind every earlier request's transfer.
 */
#include "async/async_impl.h"
#include "format/format.h"

#include <stdlib.h>

/* How long a post tries its begin's agreement before it returns (s):
 * when every process posts at about the same time, the agreement
 * completes there and the transfer starts at once. */
#define POST_SPIN_S 0.01

/* The process's files that have requests under files (their begins are
 * progressed at each call on any of them, below MPI_THREAD_MULTIPLE,
 * where one program thread at a time calls the library). */
static pthread_mutex_t files_mu = PTHREAD_MUTEX_INITIALIZER;
static async_file_t *files;

int darray__files_setup(darray_file_t f, async_file_t *q, char *msg) {
  q->end_comm = q->begin_comm = MPI_COMM_NULL;
  q->dups[0] = q->dups[1] = MPI_REQUEST_NULL;
  darray__coll(); /* two dups: every process makes them at its first post */
  darray__coll();
  if (MPI_Comm_idup(f->comm, &q->begin_comm, &q->dups[0]) != MPI_SUCCESS ||
      MPI_Comm_idup(f->comm, &q->end_comm, &q->dups[1]) != MPI_SUCCESS)
    return darray__err(msg, DARRAY_EMPI, "MPI_Comm_idup failed");
  pthread_mutex_lock(&files_mu);
  q->next_file = files;
  files = q;
  pthread_mutex_unlock(&files_mu);
  return DARRAY_SUCCESS;
}

void darray__files_forget(async_file_t *q) {
  pthread_mutex_lock(&files_mu);
  for (async_file_t **p = &files; *p != NULL; p = &(*p)->next_file)
    if (*p == q) {
      *p = q->next_file;
      break;
    }
  pthread_mutex_unlock(&files_mu);
}

bool darray__files_ready(async_file_t *q, bool block) {
  if (q->ready)
    return true;
  int flag = 1;
  MPI_Status st[2];
  if (block)
    darray__wait_all(2, q->dups); /* a failure shows in the next use */
  else if (MPI_Testall(2, q->dups, &flag, st) != MPI_SUCCESS)
    flag = 1;
  q->ready = flag != 0;
  return q->ready;
}

/* Whether r begins without blocking: a whole-array call outside a
 * dataset (a section's begin gathers the boxes, a member's may be
 * collective). */
static bool nb_begin(const async_req_t *r) {
  return !r->sync && !r->c.section && r->c.member < 0;
}

/* Whether r's transfer calls no MPI, so that it may run in the I/O thread
 * while the program's thread calls MPI: an independent strategy on a back
 * end whose transfers are local (posix, subfiles). */
static bool mpi_free(const xcall_t *c) {
  return !c->x.strategy->collective && c->x.f->io.ops->local &&
         !darray__format_after_collective(c->x.f, c->member, c->x.write,
                                          !c->section);
}

/* Whether an earlier request's bytes may meet r's, one of them a write,
 * and it has not completed. */
static bool hazard(async_file_t *q, async_req_t *r) {
  for (async_req_t *p = q->head; p != r; p = p->next)
    if (darray__async_state(q, p) != R_DONE &&
        (p->c.x.write || r->c.x.write) && p->lo < r->hi && r->lo < p->hi)
      return true;
  return false;
}

/* Whether every earlier request's transfer has been given to the thread
 * or has run. */
static bool all_started(async_file_t *q, async_req_t *r) {
  for (async_req_t *p = q->head; p != r; p = p->next)
    if (darray__async_state(q, p) < R_QUEUED)
      return false;
  return true;
}

/* r's begin agreement is complete with rc: on success what follows it
 * (local: darray__xcall_begin_agreed is collective on the failure path
 * only, which waits for the file's wait). */
static void agreed(async_file_t *q, async_req_t *r, int rc) {
  xcall_t *c = &r->c;
  r->failed_begin = rc != DARRAY_SUCCESS;
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_begin_agreed(c, rc, -1, r->vals, r->pre);
  r->rc = rc;
  darray__async_set_state(q, r, R_BEGUN);
}

/* Post r's begin agreement (the communicators ready). */
static void post_begin(async_file_t *q, async_req_t *r) {
  xcall_t *c = &r->c;
  c->x.f->rounds++; /* the program's thread makes every agreement */
  c->x.stats.collectives++;
  darray__nbagree_post(&r->bg, q->begin_comm, r->rc, r->vals, 4);
  darray__async_set_state(q, r, R_BEGINNING);
}

/* Carry r's begin as far as it goes (to its end when block); false when
 * its agreement is still unposted or incomplete (the later ones wait:
 * begins are agreed on in request order). */
static bool begin_step(async_file_t *q, async_req_t *r, bool block) {
  int st = darray__async_state(q, r);
  if (!nb_begin(r) || st >= R_BEGUN)
    return true;
  if (st == R_NEW) {
    if (!darray__files_ready(q, block))
      return false;
    post_begin(q, r);
  }
  bool done = false;
  int rc = darray__nbagree_progress(&r->bg, q->begin_comm, block, &done,
                                    r->c.x.msg);
  if (!done)
    return false;
  agreed(q, r, rc);
  return true;
}

/* Start r's transfer in the thread if nothing needs to wait for the
 * file's wait (see above); whether it did. */
static bool launch(async_file_t *q, async_req_t *r) {
  if (darray__async_state(q, r) != (r->sync || !nb_begin(r) ? R_NEW
                                                             : R_BEGUN))
    return false;
  if (r->sync)
    return r->c.x.f->io.ops->local && all_started(q, r) &&
           darray__async_hand_over(q, r);
  if (!nb_begin(r) || r->rc != DARRAY_SUCCESS || !mpi_free(&r->c) ||
      hazard(q, r))
    return false;
  return darray__async_hand_over(q, r);
}

/* r's turn at the file's wait (every earlier request has completed):
 * what waited for it, in the program's thread. */
static void run_here(darray_file_t f, async_file_t *q, async_req_t *r) {
  xcall_t *c = &r->c;
  /* the dups of the file's communicator complete before its blocking
   * collectives (Open MPI mismatches a pending MPI_Comm_idup with them) */
  darray__files_ready(q, true);
  if (r->sync) { /* mpiio's MPI_File_sync (collective), or an fsync
                   behind requests that had not started */
    darray__async_thread_idle(q);
    r->rc = darray__async_sync_file(c);
    darray__async_set_state(q, r, R_RAN);
    return;
  }
  int rc = r->rc;
  if (!nb_begin(r)) { /* the whole begin: collective */
    rc = darray__xcall_begin(c);
  } else if (r->failed_begin) { /* its failure path, collective */
    r->failed_begin = false;
    rc = darray__xcall_begin_agreed(c, rc, r->bg.bad, r->vals, r->pre);
  }
  if (rc == DARRAY_SUCCESS && mpi_free(c) && darray__async_hand_over(q, r))
    return;
  if (rc == DARRAY_SUCCESS) {
    darray__async_thread_idle(q); /* after the transfers queued before */
    rc = darray__xcall_run(c);
  }
  if (c->x.strategy != NULL &&
      !darray__format_after_collective(f, c->member, c->x.write,
                                       !c->section)) {
    r->rc = rc; /* its final agreement comes at completion */
    darray__async_set_state(q, r, R_RAN);
    return;
  }
  r->rc = darray__xcall_end(c, rc);
  darray__async_set_state(q, r, R_DONE);
}

void darray__files_step(async_file_t *q, async_req_t *last, bool block) {
  bool begins = true; /* begins are agreed on in request order */
  for (async_req_t *r = q->head; r != NULL; r = r->next) {
    bool here = block && r == last;
    if (begins)
      begins = begin_step(q, r, here);
    if (!launch(q, r) && here &&
        darray__async_state(q, r) < R_QUEUED)
      run_here(r->c.x.f, q, r);
    if (r == last)
      return;
  }
}

void darray__files_progress(async_file_t *q) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level >= MPI_THREAD_MULTIPLE) { /* other threads may use the others */
    if (q != NULL && q->mode == DARRAY_ASYNC_FILES)
      darray__files_step(q, NULL, false);
    return;
  }
  pthread_mutex_lock(&files_mu);
  async_file_t *all = files;
  pthread_mutex_unlock(&files_mu);
  for (async_file_t *p = all; p != NULL; p = p->next_file)
    darray__files_step(p, NULL, false);
}

void darray__files_post(darray_file_t f, async_file_t *q, async_req_t *r) {
  (void)f;
  xcall_t *c = &r->c;
  c->x.background = true;
  if (nb_begin(r)) {
    int64_t *prev = darray__coll_into(&c->x.stats.collectives);
    r->rc = darray__xcall_begin_local(c, r->vals, &r->pre);
    darray__coll_into(prev);
  }
  double until = MPI_Wtime() + POST_SPIN_S;
  do
    darray__files_progress(q);
  while (nb_begin(r) && darray__async_state(q, r) < R_BEGUN &&
         MPI_Wtime() < until);
}
