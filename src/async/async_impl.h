/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_impl.h - the inside of nonblocking requests, shared by the post
 * side (async.c), the I/O thread (async_thread.c) and completion
 * (async_complete.c): a request, a file's requests, and what one side
 * asks of the other. The rest of the library uses async.h.
 */
#ifndef DARRAYIO_ASYNC_IMPL_H
#define DARRAYIO_ASYNC_IMPL_H

#include "async/async.h"
#include "pool.h"

#include <pthread.h>

/* A request's progress. */
enum {
  R_NEW,      /* posted, not yet begun or handed over */
  R_BEGINNING, /* files: the begin's agreement is posted (async_files.c) */
  R_BEGUN,    /* files: agreed on; its transfer not yet started */
  R_QUEUED,   /* the I/O thread has its work to do */
  R_RAN,      /* files: transferred, the final agreement still to come */
  R_AGREEING, /* files: the final agreement is posted */
  R_DONE      /* the result is known, the same everywhere */
};

typedef struct async_req {
  darray_request_t id;
  xcall_t c;
  int64_t start[DARRAY_MAX_DIMS], count[DARRAY_MAX_DIMS];
  section_t *sec;     /* the request's copy of the array's cells */
  void *copy;         /* a buffered write's data */
  int64_t copy_bytes;
  bool sync;          /* darray_file_isync: no call, the file's sync */
  int64_t lo, hi;     /* the file bytes the call may touch */
  int state;          /* R_*: under the file's mutex while queued */
  int rc;
  nbagree_t ag;
  /* files, a request begun without blocking (async_files.c): its begin's
   * agreement, the values it checks, the result before the plan */
  nbagree_t bg;
  int64_t vals[DARRAY_AGREE_EACH_VALS];
  int pre;
  bool failed_begin; /* its agreement failed: what follows it waits */
  struct async_req *next;
  int64_t order; /* its place among the file's posts, 1, 2, ... */
} async_req_t;

struct async_file {
  int mode; /* DARRAY_ASYNC_THREAD, _FILES or _NONE */
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  bool thread_on, stop;
  async_req_t *head, *tail; /* posted, not yet collected, in post order */
  int queued;               /* requests with work for the thread */
  uint32_t seq;
  /* thread: the thread starts only requests whose order is at most go;
   * lazy (darray_async_start = wait): go moves to the last post when the
   * program waits, tests or syncs (darray__async_release), else at every
   * post */
  int64_t posted, go;
  bool lazy;
  int64_t held;             /* bytes of buffered copies */
  MPI_Comm end_comm;        /* files: the final agreements */
  /* files (async_files.c): the begins' agreements, on a communicator of
   * their own; both made by MPI_Comm_idup at the first post, usable once
   * dups[] complete (ready) */
  MPI_Comm begin_comm;
  MPI_Request dups[2];
  bool ready;
  struct async_file *next_file; /* the process's files below MULTIPLE */
};

/* The I/O thread and what runs a request (async_thread.c): the back
 * end's sync of a sync request; a request's whole call in the mode's way
 * (thread: begin, run, end; files: the transfer); giving r to the file's
 * thread (started at the first request that needs it), false when no
 * thread can be started (the caller runs r itself). */
DARRAY_HIDDEN int darray__async_sync_file(xcall_t *c);
DARRAY_HIDDEN int darray__async_execute(int mode, xcall_t *c, bool sync);
DARRAY_HIDDEN bool darray__async_hand_over(async_file_t *q, async_req_t *r);
/* The program's thread waits until the file's I/O thread has nothing
 * left to do (async_complete.c). */
DARRAY_HIDDEN void darray__async_thread_idle(async_file_t *q);
/* Let the thread start every request posted so far (async_thread.c). */
DARRAY_HIDDEN void darray__async_release(async_file_t *q);
/* A count the tests read (darray__async_merged, darray__async_ran_here),
 * kept by whichever thread moves the requests. */
typedef struct async_count {
  pthread_mutex_t mu;
  int64_t n;
} async_count_t;
#define ASYNC_COUNT_INIT {PTHREAD_MUTEX_INITIALIZER, 0}
static inline void darray__async_count_add(async_count_t *c, int64_t n) {
  pthread_mutex_lock(&c->mu);
  c->n += n;
  pthread_mutex_unlock(&c->mu);
}
static inline int64_t darray__async_count_get(async_count_t *c) {
  pthread_mutex_lock(&c->mu);
  int64_t n = c->n;
  pthread_mutex_unlock(&c->mu);
  return n;
}

/* lazy: run in the program's thread the queued requests nothing has
 * started, up to and including last (NULL: all), after what the thread
 * was given (async_thread.c). */
DARRAY_HIDDEN void darray__async_run_here(async_file_t *q,
                                          const async_req_t *last);
/* A request's state, read under the file's mutex (async_thread.c). */
DARRAY_HIDDEN int darray__async_state(async_file_t *q, async_req_t *r);
/* A request's state changes under the file's mutex: the thread reads
 * every request's while it looks for work (async_thread.c). */
DARRAY_HIDDEN void darray__async_set_state(async_file_t *q, async_req_t *r,
                                           int state);
/* Move every request up to and including last as far as it goes (to its
 * end when block; async_complete.c). */
DARRAY_HIDDEN void darray__async_advance(async_file_t *q, async_req_t *last,
                                         bool block);

/* thread: run b[0] and, if every process has them queued, the requests
 * b[1..nb) with it, sharing their agreements (async_batch.c; nb <=
 * DARRAY_AGREE_EACH_MAX, the I/O thread's, b in post order); chain: b is
 * a chain of requests that may move as one access (async_merge.c; then
 * nb < DARRAY_AGREE_EACH_MAX). Sets the results of those it ran (the
 * first n) and returns n. */
DARRAY_HIDDEN int darray__async_batch(async_req_t **b, int nb, bool chain);
/* A batch's first agreement carries MERGE_BASE + nb - 1 for a chain,
 * nb - 1 otherwise (nb <= DARRAY_AGREE_EACH_MAX < MERGE_BASE). */
#define MERGE_BASE 64
/* Begin b[0..n) together: their local halves, one agreement, what
 * follows it; rcs[i], each one's result (async_batch.c). */
DARRAY_HIDDEN void darray__async_begin_group(async_req_t **b, int n,
                                             int *rcs);
/* This process's box of section request r, as gathered: (start, count),
 * nd values each (async_chain.c). */
DARRAY_HIDDEN void darray__async_box_of(const async_req_t *r, int nd,
                                        int64_t *box);
/* Whether p, queued right after prev, continues a chain that first
 * starts: requests that may move as one access (async_merge.c says
 * which; async_chain.c). Local, from the descriptions and extents. */
DARRAY_HIDDEN bool darray__merge_follows(const async_req_t *first,
                                         const async_req_t *prev,
                                         const async_req_t *p);
/* Move the chain b[0..n) (n >= 2, b[0] begun and agreed on with success)
 * as one access: begin the others, prepare the merged access, agree, run;
 * rcs[0..n): the results to agree on at the end (async_merge.c; rcs has
 * room for n + 1). */
/* Returns whether one access moved them all (async_batch.c reads a
 * merged read that met the file's end again, request by request). */
DARRAY_HIDDEN bool darray__async_merge(async_req_t **b, int n, int *rcs);

/* files: posts without waiting for the other processes (async_files.c).
 * setup: the file's communicators (MPI_Comm_idup: nonblocking); post:
 * start r (begin's local half and agreement posted, or left for the
 * file's wait); step: carry every request of q up to last as far as it
 * goes without blocking (last NULL: all), or, block, until last has begun
 * and its transfer has started (in the program's thread if it calls MPI);
 * progress: step every file of this process (below MPI_THREAD_MULTIPLE;
 * else only q); forget: q leaves that list (its close). */
DARRAY_HIDDEN int darray__files_setup(darray_file_t f, async_file_t *q,
                                      char *msg);
DARRAY_HIDDEN void darray__files_post(darray_file_t f, async_file_t *q,
                                      async_req_t *r);
DARRAY_HIDDEN void darray__files_step(async_file_t *q, async_req_t *last,
                                      bool block);
DARRAY_HIDDEN void darray__files_progress(async_file_t *q);
/* Whether q's communicators are usable (block: wait until they are). */
DARRAY_HIDDEN bool darray__files_ready(async_file_t *q, bool block);
DARRAY_HIDDEN void darray__files_forget(async_file_t *q);

#endif /* DARRAYIO_ASYNC_IMPL_H */
