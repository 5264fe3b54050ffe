/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_thread.c - nonblocking requests: the file's I/O thread, the
 * batches it takes, and the program's thread running queued requests
 * itself at a wait (darray_async_start = wait); async.c posts the
 * requests, async_complete.c completes them (async.h says where each
 * phase of a request runs).
 */
#include "async/async_impl.h"
#include "agree.h"

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
int darray__async_sync_file(xcall_t *c) {
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
int darray__async_execute(int mode, xcall_t *c, bool sync) {
  if (sync) {
    int rc = darray__async_sync_file(c);
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
 * begin runs alone, or a request of a chain (sections chain too:
 * async_merge.c gathers their boxes together). */
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
       p->order <= upto && joinable(p, true) &&
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
    b[0]->rc = darray__async_execute(q->mode, &b[0]->c, b[0]->sync);
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

/* The file's thread (src/base/pool.c): its requests, first come first
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

static async_count_t ran_here = ASYNC_COUNT_INIT;

int64_t darray__async_ran_here(void) {
  return darray__async_count_get(&ran_here);
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
    darray__async_count_add(&ran_here, n);
    pthread_mutex_lock(&q->mu);
    ran(q, b, n);
  }
  pthread_mutex_unlock(&q->mu);
}

/* Give the thread r (started at the first request that needs it); false
 * when no thread can be started: the caller runs r itself. */
bool darray__async_hand_over(async_file_t *q, async_req_t *r) {
  if (!q->thread_on) {
    if (darray__pool_start(serve, q) != 0)
      return false;
    q->thread_on = true;
  }
  pthread_mutex_lock(&q->mu);
  r->state = R_QUEUED;
  q->queued++;
  if (!q->lazy || r->sync) { /* a sync is a wait for what came before */
    if (r->order > q->go) /* files hands requests over out of order */
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
