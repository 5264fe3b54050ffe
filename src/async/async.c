/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async.c - nonblocking requests: post, the I/O thread, completion
 * (async.h says where each phase of a request runs).
 */
#include "async/async.h"
#include "agree.h"
#include "format/format.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A request's progress. */
enum {
  R_NEW,      /* posted, not yet begun or handed over */
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
  struct async_req *next;
} async_req_t;

struct async_file {
  int mode; /* DARRAY_ASYNC_THREAD, _FILES or _NONE */
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  bool thread_on, stop;
  async_req_t *head, *tail; /* posted, not yet collected, in post order */
  int queued;               /* requests with work for the thread */
  uint32_t seq;
  int64_t held;             /* bytes of buffered copies */
  MPI_Comm end_comm;        /* files: the final agreements */
};

/* ---- the I/O thread ---------------------------------------------------- */

static async_req_t *first_queued(async_file_t *q) {
  for (async_req_t *r = q->head; r != NULL; r = r->next)
    if (r->state == R_QUEUED)
      return r;
  return NULL;
}

/* A sync request's work: the back end's sync of the file (fsync for
 * posix: no MPI; MPI_File_sync, collective, for mpiio). */
static int sync_file(xcall_t *c) {
  darray_file_t f = c->x.f;
  darray__file_clear_cause(f);
  int rc = f->io.ops->sync(&f->io);
  if (rc != DARRAY_SUCCESS) {
    const char *cause = darray__file_cause(f);
    darray__err(c->x.msg, rc, "darray_file_isync (backend %s): %s%s%s",
                f->io.ops->name, darray_strerror(rc), cause[0] ? ": " : "",
                cause);
  }
  return rc;
}

/* thread: the whole call (its collectives on the file's communicator);
 * files: its transfer, which calls no MPI */
static int execute(int mode, xcall_t *c, bool sync) {
  if (sync) {
    int rc = sync_file(c);
    return mode == DARRAY_ASYNC_FILES ? rc
                                      : darray__agree(c->x.f->comm, rc,
                                                      c->x.msg);
  }
  if (mode == DARRAY_ASYNC_FILES)
    return darray__xcall_run(c);
  int rc = darray__xcall_begin(c);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_run(c);
  return darray__xcall_end(c, rc);
}

/* The file's thread (async_pool.c): its requests, first come first
 * served, until the file closes. */
static void serve(void *arg) {
  async_file_t *q = arg;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    async_req_t *r = first_queued(q);
    if (r == NULL) {
      if (q->stop)
        break;
      pthread_cond_wait(&q->work, &q->mu);
      continue;
    }
    pthread_mutex_unlock(&q->mu);
    int rc = execute(q->mode, &r->c, r->sync);
    pthread_mutex_lock(&q->mu);
    r->rc = rc;
    r->state = q->mode == DARRAY_ASYNC_FILES ? R_RAN : R_DONE;
    q->queued--;
    pthread_cond_broadcast(&q->done);
  }
  pthread_mutex_unlock(&q->mu);
}

/* Let the file's thread go back to the pool (at close). */
static void let_go(async_file_t *q) {
  pthread_mutex_lock(&q->mu);
  q->stop = true;
  pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->mu);
  darray__pool_wait(q); /* then nothing touches q but the caller */
}

/* Give the thread r (started at the first request that needs it); false
 * when no thread can be started: the caller runs r itself. */
static bool hand_over(async_file_t *q, async_req_t *r) {
  if (!q->thread_on) {
    if (darray__pool_start(serve, q) != 0)
      return false;
    q->thread_on = true;
  }
  pthread_mutex_lock(&q->mu);
  r->state = R_QUEUED;
  q->queued++;
  pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->mu);
  return true;
}

void darray__async_idle(darray_file_t f) {
  async_file_t *q = f->async;
  if (q == NULL || !q->thread_on)
    return;
  pthread_mutex_lock(&q->mu);
  while (q->queued > 0)
    pthread_cond_wait(&q->done, &q->mu);
  pthread_mutex_unlock(&q->mu);
}

static int state_of(async_file_t *q, async_req_t *r) {
  pthread_mutex_lock(&q->mu);
  int s = r->state;
  pthread_mutex_unlock(&q->mu);
  return s;
}

/* A request's state changes under the file's mutex: the thread reads
 * every request's while it looks for work. */
static void set_state(async_file_t *q, async_req_t *r, int state) {
  pthread_mutex_lock(&q->mu);
  r->state = state;
  pthread_mutex_unlock(&q->mu);
}

static void wait_state(async_file_t *q, async_req_t *r) {
  pthread_mutex_lock(&q->mu);
  while (r->state == R_QUEUED)
    pthread_cond_wait(&q->done, &q->mu);
  pthread_mutex_unlock(&q->mu);
}

/* ---- the file's request state ------------------------------------------- */

/* The mode the thread level and the hint allow (local). */
static int mode_wanted(const darray_file_s_t *f) {
  int level = MPI_THREAD_SINGLE, want = f->hints.async_mode;
  MPI_Query_thread(&level);
  int can = level >= MPI_THREAD_MULTIPLE    ? DARRAY_ASYNC_THREAD
            : level >= MPI_THREAD_FUNNELED ? DARRAY_ASYNC_FILES
                                            : DARRAY_ASYNC_NONE;
  if (want == DARRAY_ASYNC_AUTO || want < can)
    return can; /* a hint beyond the level is lowered to it */
  return want;
}

/* At the file's first request (the same point on every process, and
 * nothing is in flight yet): the mode, agreed on (the most cautious any
 * process can take), and the communicator of the final agreements. */
static int async_setup(darray_file_t f, char *msg) {
  async_file_t *q = calloc(1, sizeof *q);
  if (q != NULL)
    q->end_comm = MPI_COMM_NULL;
  int rc = q == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                     : DARRAY_SUCCESS;
  int mode = rc == DARRAY_SUCCESS ? mode_wanted(f) : DARRAY_ASYNC_NONE;
  int64_t vals[1] = {0};
  rc = darray__agree_check(f->comm, rc, msg, vals, 1, NULL);
  int all = mode;
  if (rc == DARRAY_SUCCESS &&
      MPI_Allreduce(&mode, &all, 1, MPI_INT, MPI_MAX, f->comm) !=
          MPI_SUCCESS)
    rc = DARRAY_EMPI;
  if (rc == DARRAY_SUCCESS && all == DARRAY_ASYNC_FILES &&
      MPI_Comm_dup(f->comm, &q->end_comm) != MPI_SUCCESS)
    rc = darray__err(msg, DARRAY_EMPI, "MPI_Comm_dup failed");
  rc = darray__agree(f->comm, rc, msg);
  if (rc != DARRAY_SUCCESS) {
    if (q != NULL && q->end_comm != MPI_COMM_NULL)
      MPI_Comm_free(&q->end_comm);
    free(q);
    return rc;
  }
  q->mode = all;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->done, NULL);
  f->async = q;
  return DARRAY_SUCCESS;
}

/* ---- post ---------------------------------------------------------------- */

/* The request's own copies of what the caller may change or free once the
 * post returns: the region, the array's cells, a buffered write's data.
 * Failures go into c->rc0, agreed on when the call begins. */
static void own_copies(async_file_t *q, async_req_t *r, const darray_s_t *a,
                       bool buffered, const darray_file_s_t *f) {
  xcall_t *c = &r->c;
  int nd = a->d.ndims;
  if (c->section) {
    if (c->g.start != NULL)
      memcpy(r->start, c->g.start, sizeof *r->start * (size_t)nd);
    if (c->g.count != NULL)
      memcpy(r->count, c->g.count, sizeof *r->count * (size_t)nd);
    c->g.start = c->g.start != NULL ? r->start : NULL;
    c->g.count = c->g.count != NULL ? r->count : NULL;
  }
  if (a->nsec > 0) {
    r->sec = malloc(sizeof *r->sec * (size_t)a->nsec);
    if (r->sec == NULL && c->rc0 == DARRAY_SUCCESS)
      c->rc0 = darray__err(c->x.msg, DARRAY_ENOMEM, "out of memory");
    if (r->sec != NULL)
      memcpy(r->sec, a->sec, sizeof *r->sec * (size_t)a->nsec);
    c->view.sec = r->sec;
    c->view.nsec = r->sec != NULL ? a->nsec : 0;
  }
  if (!buffered || c->rc0 != DARRAY_SUCCESS)
    return;
  int64_t bytes = a->local_bytes;
  if (c->section) {
    bytes = a->d.esize;
    for (int d = 0; d < nd && c->g.count != NULL; d++)
      if (c->g.count[d] < 0 || !darray__mul_ok(bytes, c->g.count[d], &bytes))
        return; /* the region's checks refuse it */
  }
  if (c->x.buf == NULL || bytes == 0)
    return;
  int64_t cap = f->hints.nb_buffer_size;
  if (bytes > cap - q->held) {
    c->rc0 = darray__err(c->x.msg, DARRAY_ELIMIT,
                         "darray_bwrite: %lld bytes to copy, but pending "
                         "buffered requests of this file already hold %lld "
                         "of darray_nb_buffer_size = %lld",
                         (long long)bytes, (long long)q->held,
                         (long long)cap);
    return;
  }
  r->copy = malloc((size_t)bytes);
  if (r->copy == NULL) {
    c->rc0 = darray__err(c->x.msg, DARRAY_ENOMEM, "out of memory");
    return;
  }
  memcpy(r->copy, c->x.buf, (size_t)bytes);
  c->x.buf = r->copy;
  r->copy_bytes = bytes;
  q->held += bytes;
}

/* files: whether r's transfer calls no MPI, so that it may run in the
 * I/O thread while the program's thread calls MPI */
static bool mpi_free(const xcall_t *c) {
  return !c->x.strategy->collective &&
         c->x.f->hints.backend == DARRAY_BACKEND_POSIX &&
         !darray__format_after_collective(c->x.f, c->member, c->x.write,
                                          !c->section);
}

static void advance(async_file_t *q, async_req_t *last, bool block);

/* files: the requests before r whose bytes r's may meet, one of them a
 * write, complete first. Below MPI_THREAD_MULTIPLE nothing orders one
 * process's background transfer after another's but the final agreement
 * of the earlier request, so r waits for it (with a thread, each request
 * ends with its agreement before the next begins). The same decision on
 * every process: the extents come from the descriptions. */
static void after_hazards(async_file_t *q, async_req_t *r) {
  async_req_t *last = NULL;
  for (async_req_t *p = q->head; p != r; p = p->next)
    if (state_of(q, p) != R_DONE && (p->c.x.write || r->c.x.write) &&
        p->lo < r->hi && r->lo < p->hi)
      last = p;
  if (last != NULL)
    advance(q, last, true);
}

/* Begin r (files, none: collective, in the program's thread) and start
 * what may run in the background. */
static void start(darray_file_t f, async_file_t *q, async_req_t *r) {
  xcall_t *c = &r->c;
  if (q->mode == DARRAY_ASYNC_THREAD) {
    if (!hand_over(q, r)) {
      darray__async_idle(f); /* no thread: run it now, in order */
      r->rc = execute(q->mode, c, r->sync);
      set_state(q, r, R_DONE);
    }
    return;
  }
  if (r->sync) { /* files: fsync in the thread; else now, in order */
    if (q->mode == DARRAY_ASYNC_FILES &&
        f->hints.backend == DARRAY_BACKEND_POSIX && hand_over(q, r))
      return;
    darray__async_idle(f);
    r->rc = sync_file(c);
    if (q->mode == DARRAY_ASYNC_FILES) {
      set_state(q, r, R_RAN);
      return;
    }
    r->rc = darray__agree(f->comm, r->rc, c->x.msg);
    set_state(q, r, R_DONE);
    return;
  }
  c->x.background = q->mode == DARRAY_ASYNC_FILES;
  if (q->mode == DARRAY_ASYNC_FILES)
    after_hazards(q, r);
  int rc = darray__xcall_begin(c);
  if (rc == DARRAY_SUCCESS && q->mode == DARRAY_ASYNC_FILES &&
      mpi_free(c) && hand_over(q, r))
    return;
  if (rc == DARRAY_SUCCESS) {
    darray__async_idle(f); /* after the transfers queued before it */
    rc = darray__xcall_run(c);
  }
  if (q->mode == DARRAY_ASYNC_FILES && c->x.strategy != NULL &&
      !darray__format_after_collective(f, c->member, c->x.write,
                                       !c->section)) {
    r->rc = rc;
    set_state(q, r, R_RAN); /* its final agreement comes at completion */
    return;
  }
  r->rc = darray__xcall_end(c, rc);
  set_state(q, r, R_DONE);
}

/* Give r its identifier, append it to the file's requests, start it. */
static void enqueue(darray_file_t f, async_file_t *q, async_req_t *r) {
  if (q->seq == UINT32_MAX)
    q->seq = 0;
  r->id = (darray_request_t)(((f->id & 0x7fffffffu) << 32) | ++q->seq);
  pthread_mutex_lock(&q->mu); /* the thread walks the list */
  if (q->tail != NULL)
    q->tail->next = r;
  else
    q->head = r;
  q->tail = r;
  pthread_mutex_unlock(&q->mu);
  start(f, q, r);
}

int darray__async_post(darray_file_t f, darray_t a, void *buf, bool write,
                       const region_t *g, bool buffered,
                       darray_request_t *req) {
  if (req != NULL) /* whatever happens next */
    *req = DARRAY_REQUEST_NULL;
  async_req_t *r = calloc(1, sizeof *r);
  int rc = r == NULL ? DARRAY_ENOMEM : DARRAY_SUCCESS;
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_setup(&r->c, f, a, buf, write, g);
  if (rc == DARRAY_SUCCESS && req == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "req is NULL");
  if (rc == DARRAY_SUCCESS && f->async == NULL)
    rc = async_setup(f, f->errmsg);
  if (rc != DARRAY_SUCCESS) { /* local (documented), or agreed (setup) */
    if (rc == DARRAY_ENOMEM && r == NULL)
      darray__err(f->errmsg, rc, "out of memory");
    free(r);
    return rc;
  }
  async_file_t *q = f->async;
  *req = DARRAY_REQUEST_NULL;
  own_copies(q, r, a, buffered, f);
  r->c.x.a = &r->c.view;
  darray__io_call_init(&r->c.x.io, &f->io, &r->c.x.stats);
  const darray_desc_t *d = &r->c.view.d;
  int64_t bytes = d->fstride[d->perm[0]] * d->gsizes[d->perm[0]];
  r->lo = d->disp;
  if (!darray__add_ok(d->disp, bytes, &r->hi)) /* refused when it begins */
    r->hi = INT64_MAX;
  enqueue(f, q, r);
  *req = r->id;
  return DARRAY_SUCCESS;
}

int darray_file_isync(darray_file_t f, darray_request_t *req) {
  if (req != NULL)
    *req = DARRAY_REQUEST_NULL;
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable handle or no MPI: cannot agree (documented) */
  if (req == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "req is NULL");
  if (f->async == NULL && (rc = async_setup(f, f->errmsg)) != DARRAY_SUCCESS)
    return rc;
  async_req_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return darray__err(f->errmsg, DARRAY_ENOMEM, "out of memory");
  async_file_t *q = f->async;
  r->sync = true;
  r->c.x.f = f;
  r->c.member = -1;
  darray__io_call_init(&r->c.x.io, &f->io, &r->c.x.stats);
  /* no extent: each process's sync follows its own writes in its queue,
   * so the file is synced once every process's sync has completed */
  r->lo = r->hi = 0;
  enqueue(f, q, r);
  *req = r->id;
  return DARRAY_SUCCESS;
}

/* ---- completion ---------------------------------------------------------- */

static async_req_t *find(async_file_t *q, darray_request_t id) {
  for (async_req_t *r = q != NULL ? q->head : NULL; r != NULL; r = r->next)
    if (r->id == id)
      return r;
  return NULL;
}

/* files: carry r's final agreement as far as it goes (to its end when
 * block). Agreements are posted in request order on every process: the
 * caller has advanced every earlier request first. */
static void agree_step(async_file_t *q, async_req_t *r, bool block) {
  xcall_t *c = &r->c;
  if (state_of(q, r) == R_QUEUED) { /* the thread has it */
    if (!block)
      return;
    wait_state(q, r);
  }
  int st = state_of(q, r); /* the thread is done with r */
  if (st == R_RAN) {
    bool agree = true;
    int rc = r->sync ? r->rc : darray__xcall_end_local(c, r->rc, &agree);
    if (!agree) {
      r->rc = darray__xcall_after(c, rc);
      set_state(q, r, R_DONE);
      return;
    }
    darray__nbagree_post(&r->ag, q->end_comm, rc);
    set_state(q, r, st = R_AGREEING);
  }
  if (st == R_AGREEING) {
    bool done = false;
    int rc = darray__nbagree_progress(&r->ag, q->end_comm, block, &done,
                                      c->x.msg);
    if (done) {
      r->rc = r->sync ? rc : darray__xcall_after(c, rc);
      set_state(q, r, R_DONE);
    }
  }
}

/* Move every request up to and including last as far as it goes (to its
 * end when block). */
static void advance(async_file_t *q, async_req_t *last, bool block) {
  for (async_req_t *r = q->head; r != NULL; r = r->next) {
    if (q->mode == DARRAY_ASYNC_FILES) {
      agree_step(q, r, block);
      /* a later request's agreement may not be posted before this one's */
      if (state_of(q, r) < R_AGREEING)
        return;
    } else if (block) {
      wait_state(q, r);
    }
    if (r == last)
      return;
  }
}

static void release(async_file_t *q, async_req_t *r) {
  pthread_mutex_lock(&q->mu); /* the thread walks the list */
  async_req_t **p = &q->head, *prev = NULL;
  while (*p != r) {
    prev = *p;
    p = &(*p)->next;
  }
  *p = r->next;
  if (q->tail == r)
    q->tail = prev;
  pthread_mutex_unlock(&q->mu);
  q->held -= r->copy_bytes;
  free(r->copy);
  free(r->sec);
  free(r);
}

/* A request's result into the file (counters, message) and its end. */
/* A request's result into the file: a call's counters and message, a
 * sync's message. */
static void fold(async_req_t *r) {
  if (!r->sync) {
    darray__xcall_fold(&r->c, r->rc);
    return;
  }
  darray_file_t f = r->c.x.f;
  snprintf(f->errmsg, sizeof f->errmsg, "%s",
           r->rc != DARRAY_SUCCESS ? r->c.x.msg : "");
}

static int collect(async_file_t *q, async_req_t *r) {
  int rc = r->rc;
  fold(r);
  release(q, r);
  return rc;
}

/* The checks of a completion call; *r the pending request or NULL for a
 * null handle. */
static int lookup(darray_file_t f, const darray_request_t *req,
                  async_req_t **r) {
  *r = NULL;
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (req == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "req is NULL");
  if (*req == DARRAY_REQUEST_NULL)
    return DARRAY_SUCCESS;
  *r = find(f->async, *req);
  if (*r != NULL)
    return DARRAY_SUCCESS;
  uint64_t fid = (uint64_t)*req >> 32;
  uint32_t seq = (uint32_t)*req;
  if (fid != (f->id & 0x7fffffffu))
    return darray__err(f->errmsg, DARRAY_EREQUEST,
                       "request %lld was not posted on this file",
                       (long long)*req);
  if (f->async == NULL || seq > f->async->seq)
    return darray__err(f->errmsg, DARRAY_EREQUEST,
                       "request %lld was never posted", (long long)*req);
  return darray__err(f->errmsg, DARRAY_EREQUEST,
                     "request %lld has completed already (a second wait or "
                     "test)", (long long)*req);
}

int darray_wait(darray_file_t f, darray_request_t *req) {
  async_req_t *r;
  int rc = lookup(f, req, &r);
  if (rc != DARRAY_SUCCESS || r == NULL)
    return rc;
  advance(f->async, r, true);
  *req = DARRAY_REQUEST_NULL;
  return collect(f->async, r);
}

int darray_test(darray_file_t f, darray_request_t *req, int *flag) {
  async_req_t *r;
  if (flag != NULL)
    *flag = 0;
  int rc = lookup(f, req, &r);
  if (rc == DARRAY_SUCCESS && flag == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "flag is NULL");
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (r == NULL) {
    *flag = 1;
    return DARRAY_SUCCESS;
  }
  advance(f->async, r, false);
  if (state_of(f->async, r) != R_DONE)
    return DARRAY_SUCCESS;
  *flag = 1;
  *req = DARRAY_REQUEST_NULL;
  return collect(f->async, r);
}

int darray_wait_all(darray_file_t f, int n, darray_request_t reqs[],
                    int codes[]) {
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (n < 0)
    return darray__err(f->errmsg, DARRAY_EINVAL, "n = %d is negative", n);
  if (n > 0 && reqs == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "reqs is NULL");
  char first[DARRAY_ERRMSG_LEN] = "";
  int res = DARRAY_SUCCESS;
  for (int i = 0; i < n; i++) {
    int c = darray_wait(f, &reqs[i]);
    if (codes != NULL)
      codes[i] = c;
    if (c != DARRAY_SUCCESS && res == DARRAY_SUCCESS) {
      res = c;
      snprintf(first, sizeof first, "%s", f->errmsg);
    }
  }
  snprintf(f->errmsg, sizeof f->errmsg, "%s", first);
  return res;
}

int darray__async_finish(darray_file_t f, bool collect_all, char *msg) {
  async_file_t *q = f->async;
  if (q == NULL)
    return DARRAY_SUCCESS;
  int res = DARRAY_SUCCESS;
  if (q->tail != NULL)
    advance(q, q->tail, true);
  for (async_req_t *r = q->head, *next; r != NULL; r = next) {
    next = r->next;
    if (r->rc != DARRAY_SUCCESS && res == DARRAY_SUCCESS) {
      res = r->rc;
      snprintf(msg, DARRAY_ERRMSG_LEN, "a pending request failed: %.*s",
               DARRAY_ERRMSG_LEN - 40, r->c.x.msg);
    }
    if (collect_all) {
      fold(r);
      release(q, r);
    }
  }
  if (!collect_all)
    return res;
  if (q->thread_on)
    let_go(q);
  if (q->mode == DARRAY_ASYNC_FILES)
    MPI_Comm_free(&q->end_comm);
  pthread_mutex_destroy(&q->mu);
  pthread_cond_destroy(&q->work);
  pthread_cond_destroy(&q->done);
  free(q);
  f->async = NULL;
  return res;
}

void darray__async_drop(darray_file_t f) {
  async_file_t *q = f->async;
  if (q == NULL)
    return;
  f->async = NULL;
  if (q->thread_on) {
    pthread_mutex_lock(&q->mu);
    bool busy = q->queued > 0;
    q->stop = true;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    if (busy) /* inside MPI, perhaps for ever: q stays its */
      return;
    let_go(q);
  }
  while (q->head != NULL)
    release(q, q->head);
  free(q);
}

int darray__async_mode(const darray_file_s_t *f) {
  return f->async != NULL ? f->async->mode : mode_wanted(f);
}

const char *darray__async_text(const darray_file_s_t *f) {
  switch (darray__async_mode(f)) {
  case DARRAY_ASYNC_THREAD:
    return "thread (MPI_THREAD_MULTIPLE): a thread of the file runs each "
           "request whole, agreement and exchange included; the program "
           "computes meanwhile";
  case DARRAY_ASYNC_FILES:
    return "files (below MPI_THREAD_MULTIPLE): agreement when posted; "
           "direct and sieve transfers on the posix back end in a thread of "
           "the file (the planner chooses among them), other transfers when "
           "posted; the final agreement is progressed by test and wait";
  default:
    return "none (MPI_THREAD_SINGLE or darray_async=none): requests run "
           "when posted";
  }
}
