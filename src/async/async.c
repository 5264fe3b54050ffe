/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async.c - nonblocking requests: post and the I/O thread (async.h says
 * where each phase of a request runs; completion is in async_complete.c).
 */
#include "async/async_impl.h"
#include "agree.h"
#include "format/format.h"

#include <stdlib.h>
#include <string.h>

/* ---- the I/O thread ---------------------------------------------------- */

static async_req_t *first_queued(async_file_t *q) {
  for (async_req_t *r = q->head; r != NULL && r->order <= q->go; r = r->next)
    if (r->state == R_QUEUED)
      return r;
  return NULL;
}

void darray__async_release(async_file_t *q) {
  if (q == NULL || !q->lazy)
    return;
  pthread_mutex_lock(&q->mu);
  if (q->go < q->posted) {
    q->go = q->posted;
    pthread_cond_signal(&q->work);
  }
  pthread_mutex_unlock(&q->mu);
}

/* A sync request's work: the back end's sync of the file (fsync for
 * posix and subfiles: no MPI; MPI_File_sync, collective, for mpiio). */
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

/* thread: whether r may share agreements with the requests around it
 * (async_batch.c says why these). first: the batch's first request, whose
 * begin runs alone. */
static bool joinable(const async_req_t *r, bool first) {
  return !r->sync && r->c.member < 0 && (first || !r->c.section);
}

/* Whether r's bytes may meet those of one of b[0..n), one of them a
 * write (the extents come from the descriptions: the same everywhere). */
static bool meets(async_req_t *const *b, int n, const async_req_t *r) {
  for (int i = 0; i < n; i++)
    if ((b[i]->c.x.write || r->c.x.write) && b[i]->lo < r->hi &&
        r->lo < b[i]->hi)
      return true;
  return false;
}

/* Whether r fits in a batch spanning *span file bytes so far (then it
 * spans them with r's). Every request of a batch is prepared before the
 * first one runs, and a strategy's buffers are no larger than its call's
 * extent nor than its hint: so the extents of a batch together stay within
 * one call's largest buffer hint, and its memory with them. */
static bool fits(int64_t *span, const async_req_t *r) {
  const darray_hints_t *h = &r->c.x.f->hints;
  int64_t cap = h->cb_buffer_size, sum;
  if (h->ind_rd_buffer_size > cap)
    cap = h->ind_rd_buffer_size;
  if (h->ind_wr_buffer_size > cap)
    cap = h->ind_wr_buffer_size;
  if (!darray__add_ok(*span, r->hi - r->lo, &sum) || sum > cap)
    return false;
  *span = sum;
  return true;
}

/* (under q's mutex) r and the requests queued right behind it, posted
 * at order upto at the latest, that could join it in a batch, into b; how
 * many. *chain: they may move as one access (async_merge.c), then not
 * held to fits: none of them is prepared for itself. */
static int batch_of(async_file_t *q, async_req_t *r, async_req_t **b,
                    bool *chain, int64_t upto) {
  int n = 1;
  int64_t span = 0;
  b[0] = r;
  *chain = false;
  if (q->mode != DARRAY_ASYNC_THREAD || !joinable(r, true))
    return 1;
  for (async_req_t *p = r->next;
       p != NULL && n < DARRAY_AGREE_EACH_MAX - 1 && p->state == R_QUEUED &&
       p->order <= upto && joinable(p, false) &&
       darray__merge_follows(r, b[n - 1], p);
       p = p->next)
    b[n++] = p;
  if (n >= 2) {
    *chain = true;
    return n;
  }
  if (!fits(&span, r))
    return 1;
  for (async_req_t *p = r->next; p != NULL && n < DARRAY_AGREE_EACH_MAX &&
                                 p->state == R_QUEUED && p->order <= upto &&
                                 joinable(p, false) && !meets(b, n, p) &&
                                 fits(&span, p);
       p = p->next)
    b[n++] = p;
  return n;
}

/* Tests' hold on the I/O threads (darray__async_hold). */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static bool held;

void darray__async_hold(bool on) {
  pthread_mutex_lock(&hold_mu);
  held = on;
  pthread_cond_broadcast(&hold_cv);
  pthread_mutex_unlock(&hold_mu);
}

static void hold_wait(void) {
  pthread_mutex_lock(&hold_mu);
  while (held)
    pthread_cond_wait(&hold_cv, &hold_mu);
  pthread_mutex_unlock(&hold_mu);
}

/* Run b[0] (and in thread mode those of b[1..nb) every process has
 * queued too); how many ran. */
static int run_some(async_file_t *q, async_req_t **b, int nb, bool chain) {
  if (q->mode != DARRAY_ASYNC_THREAD || b[0]->sync) {
    b[0]->rc = execute(q->mode, &b[0]->c, b[0]->sync);
    return 1;
  }
  return darray__async_batch(b, nb, chain);
}

/* (under q's mutex) b[0..n) have run. */
static void ran(async_file_t *q, async_req_t **b, int n) {
  for (int i = 0; i < n; i++)
    b[i]->state = q->mode == DARRAY_ASYNC_FILES ? R_RAN : R_DONE;
  q->queued -= n;
  pthread_cond_broadcast(&q->done);
}

/* The file's thread (async_pool.c): its requests, first come first
 * served, until the file closes. */
static void serve(void *arg) {
  async_file_t *q = arg;
  async_req_t *b[DARRAY_AGREE_EACH_MAX];
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
    hold_wait();
    pthread_mutex_lock(&q->mu);
    bool chain;
    int nb = batch_of(q, r, b, &chain, q->go);
    pthread_mutex_unlock(&q->mu);
    int n = run_some(q, b, nb, chain);
    pthread_mutex_lock(&q->mu);
    ran(q, b, n);
  }
  pthread_mutex_unlock(&q->mu);
}

/* Whether the thread has work it may start (under q's mutex). */
static bool thread_busy(async_file_t *q) {
  return first_queued(q) != NULL;
}

static int64_t ran_here; /* tests: darray__async_ran_here */
static pthread_mutex_t ran_mu = PTHREAD_MUTEX_INITIALIZER;

int64_t darray__async_ran_here(void) {
  pthread_mutex_lock(&ran_mu);
  int64_t n = ran_here;
  pthread_mutex_unlock(&ran_mu);
  return n;
}

/* lazy: the program's thread, waiting for requests that nothing has
 * started, runs them itself, in post order and in the same batches the
 * thread would make, up to and including last (NULL: all). That is
 * darray_async_start = wait's promise (the I/O of requests queued
 * together happens in the wait, as one access where they form a chain)
 * without a hand-off to the thread and back at every wait. The thread
 * cannot take them meanwhile: it starts only requests posted at order go
 * at the latest, and only a test or a sync moves go; what it has been
 * given that way it finishes first. */
void darray__async_run_here(async_file_t *q, const async_req_t *last) {
  async_req_t *b[DARRAY_AGREE_EACH_MAX];
  int64_t upto = last != NULL ? last->order : INT64_MAX;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    while (thread_busy(q))
      pthread_cond_wait(&q->done, &q->mu);
    async_req_t *r = q->head;
    while (r != NULL && r->state != R_QUEUED)
      r = r->next;
    if (r == NULL || r->order > upto)
      break;
    bool chain;
    int nb = batch_of(q, r, b, &chain, q->posted);
    pthread_mutex_unlock(&q->mu);
    int n = run_some(q, b, nb, chain);
    pthread_mutex_lock(&ran_mu);
    ran_here += n;
    pthread_mutex_unlock(&ran_mu);
    pthread_mutex_lock(&q->mu);
    ran(q, b, n);
  }
  pthread_mutex_unlock(&q->mu);
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
  if (!q->lazy || r->sync) { /* a sync is a wait for what came before */
    q->go = r->order;
    pthread_cond_signal(&q->work); /* else it would wake for nothing */
  }
  pthread_mutex_unlock(&q->mu);
  return true;
}

int darray__async_state(async_file_t *q, async_req_t *r) {
  pthread_mutex_lock(&q->mu);
  int s = r->state;
  pthread_mutex_unlock(&q->mu);
  return s;
}

/* A request's state changes under the file's mutex: the thread reads
 * every request's while it looks for work. */
void darray__async_set_state(async_file_t *q, async_req_t *r, int state) {
  pthread_mutex_lock(&q->mu);
  r->state = state;
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
  if (rc == DARRAY_SUCCESS) /* the allreduce, and the dup (agree.h) */
    darray__coll();
  if (rc == DARRAY_SUCCESS &&
      MPI_Allreduce(&mode, &all, 1, MPI_INT, MPI_MAX, f->comm) !=
          MPI_SUCCESS)
    rc = DARRAY_EMPI;
  if (rc == DARRAY_SUCCESS && all == DARRAY_ASYNC_FILES)
    darray__coll();
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
  q->lazy = all == DARRAY_ASYNC_THREAD && f->hints.async_start == 1;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->done, NULL);
  f->async = q;
  return DARRAY_SUCCESS;
}

int darray__async_mode(const darray_file_s_t *f) {
  return f->async != NULL ? f->async->mode : mode_wanted(f);
}

const char *darray__async_text(const darray_file_s_t *f) {
  switch (darray__async_mode(f)) {
  case DARRAY_ASYNC_THREAD:
    return "thread (MPI_THREAD_MULTIPLE): a thread of the file runs each "
           "request whole, agreement and exchange included (requests "
           "queued together share their agreements; whole-array requests "
           "of one operation on arrays alike but for their displacement, "
           "posted in file order, each array starting where the one before "
           "it ends, move as one access); the program computes meanwhile";
  case DARRAY_ASYNC_FILES:
    return "files (below MPI_THREAD_MULTIPLE): agreement when posted; "
           "direct and sieve transfers on the posix and subfiles back ends "
           "in a thread of the file (the planner chooses among them), other "
           "transfers when posted; the final agreement is progressed by "
           "test and wait";
  default:
    return "none (MPI_THREAD_SINGLE or darray_async=none): requests run "
           "when posted";
  }
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
                         "%s: %lld bytes to copy, but pending "
                         "buffered requests of this file already hold %lld "
                         "of darray_nb_buffer_size = %lld",
                         c->section ? "darray_bwrite_section"
                                    : "darray_bwrite",
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
  c->x.stats.bytes_copied += bytes;
  c->x.buf = r->copy;
  r->copy_bytes = bytes;
  q->held += bytes;
}

/* files: whether r's transfer calls no MPI, so that it may run in the
 * I/O thread while the program's thread calls MPI: an independent
 * strategy on a back end whose transfers are local (posix, subfiles) */
static bool mpi_free(const xcall_t *c) {
  return !c->x.strategy->collective && c->x.f->io.ops->local &&
         !darray__format_after_collective(c->x.f, c->member, c->x.write,
                                          !c->section);
}

/* files: the requests before r whose bytes r's may meet, one of them a
 * write, complete first. Below MPI_THREAD_MULTIPLE nothing orders one
 * process's background transfer after another's but the final agreement
 * of the earlier request, so r waits for it (with a thread, each request
 * ends with its agreement before the next begins). The same decision on
 * every process: the extents come from the descriptions. */
static void after_hazards(async_file_t *q, async_req_t *r) {
  async_req_t *last = NULL;
  for (async_req_t *p = q->head; p != r; p = p->next)
    if (darray__async_state(q, p) != R_DONE &&
        (p->c.x.write || r->c.x.write) && p->lo < r->hi && r->lo < p->hi)
      last = p;
  if (last != NULL)
    darray__async_advance(q, last, true);
}

/* Begin r (files, none: collective, in the program's thread) and start
 * what may run in the background. */
static void start(darray_file_t f, async_file_t *q, async_req_t *r) {
  xcall_t *c = &r->c;
  if (q->mode == DARRAY_ASYNC_THREAD) {
    if (!hand_over(q, r)) {
      darray__async_idle(f); /* no thread: run it now, in order */
      r->rc = execute(q->mode, c, r->sync);
      darray__async_set_state(q, r, R_DONE);
    }
    return;
  }
  if (r->sync) { /* files: fsync in the thread; else now, in order */
    if (q->mode == DARRAY_ASYNC_FILES && f->io.ops->local &&
        hand_over(q, r))
      return;
    darray__async_idle(f);
    r->rc = sync_file(c);
    if (q->mode == DARRAY_ASYNC_FILES) {
      darray__async_set_state(q, r, R_RAN);
      return;
    }
    r->rc = darray__agree(f->comm, r->rc, c->x.msg);
    darray__async_set_state(q, r, R_DONE);
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
    /* its final agreement comes at completion */
    darray__async_set_state(q, r, R_RAN);
    return;
  }
  r->rc = darray__xcall_end(c, rc);
  darray__async_set_state(q, r, R_DONE);
}

/* Give r its identifier, append it to the file's requests, start it. */
static void enqueue(darray_file_t f, async_file_t *q, async_req_t *r) {
  if (q->seq == UINT32_MAX)
    q->seq = 0;
  r->id = (darray_request_t)(((f->id & 0x7fffffffu) << 32) | ++q->seq);
  pthread_mutex_lock(&q->mu); /* the thread walks the list */
  r->order = ++q->posted;
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
  if (rc == DARRAY_SUCCESS) { /* messages name the entry point */
    static const char *const names[2][2][2] = {
        {{"darray_iread", "darray_iread_section"}, {"?", "?"}},
        {{"darray_iwrite", "darray_iwrite_section"},
         {"darray_bwrite", "darray_bwrite_section"}}};
    r->c.x.entry = names[write][buffered][g != NULL];
  }
  if (rc == DARRAY_SUCCESS && req == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "req is NULL");
  if (rc == DARRAY_SUCCESS && f->async == NULL) { /* the post's collectives */
    int64_t *prev = darray__coll_into(&r->c.x.stats.collectives);
    rc = async_setup(f, f->errmsg);
    darray__coll_into(prev);
  }
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
