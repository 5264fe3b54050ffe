/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_complete.c - nonblocking requests: completion (beneath
 * darray_wait, darray_test, darray_wait_all: api/api_async.c), waiting for the I/O thread, and the end
 * of a file's requests at close (async.c posts them and runs the thread;
 * async.h says where each phase of a request runs).
 */
#include "async/async_impl.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- waiting for the I/O thread ------------------------------------------ */

/* The program's thread waits for the file's thread (darray__wait_program:
 * the I/O threads then poll without sleeping). */
void darray__async_thread_idle(async_file_t *q) {
  if (q == NULL || !q->thread_on)
    return;
  darray__wait_program(true);
  if (q->lazy)
    darray__async_run_here(q, NULL);
  else
    darray__async_release(q);
  pthread_mutex_lock(&q->mu);
  while (q->queued > 0)
    pthread_cond_wait(&q->done, &q->mu);
  pthread_mutex_unlock(&q->mu);
  darray__wait_program(false);
}

/* Before a collective call on f: under files, its requests complete
 * first (what waited for the file's wait runs now, in request order, as
 * the call's own collectives would); else the thread finishes. */
void darray__async_idle(darray_file_t f) {
  async_file_t *q = f->async;
  if (q != NULL && q->mode == DARRAY_ASYNC_FILES) {
    darray__files_ready(q, true); /* before the call's collectives */
    if (q->tail != NULL)
      darray__async_advance(q, q->tail, true);
  }
  darray__async_thread_idle(q);
}

static void wait_state(async_file_t *q, async_req_t *r) {
  darray__wait_program(true);
  if (q->lazy)
    darray__async_run_here(q, r);
  else
    darray__async_release(q);
  pthread_mutex_lock(&q->mu);
  while (r->state == R_QUEUED)
    pthread_cond_wait(&q->done, &q->mu);
  pthread_mutex_unlock(&q->mu);
  darray__wait_program(false);
}

/* Let the file's thread go back to the pool (at close). */
static void let_go(async_file_t *q) {
  pthread_mutex_lock(&q->mu);
  q->stop = true;
  pthread_cond_signal(&q->work);
  pthread_mutex_unlock(&q->mu);
  darray__pool_wait(q); /* then nothing touches q but the caller */
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
  if (darray__async_state(q, r) < R_QUEUED) { /* not yet started */
    if (!block)
      return;
    darray__files_step(q, r, true); /* every earlier one has completed */
  }
  if (darray__async_state(q, r) == R_QUEUED) { /* the thread has it */
    if (!block)
      return;
    wait_state(q, r);
  }
  int st = darray__async_state(q, r); /* the thread is done with r */
  if (st == R_RAN && !darray__files_ready(q, block))
    return; /* its communicator is not made yet */
  if (st == R_RAN) {
    bool agree = true;
    int rc = r->sync ? r->rc : darray__xcall_end_local(c, r->rc, &agree);
    if (!agree) {
      r->rc = darray__xcall_after(c, rc);
      darray__async_set_state(q, r, R_DONE);
      return;
    }
    if (!r->sync) { /* the program's thread makes every agreement */
      c->x.f->rounds++;
      c->x.stats.collectives++;
    }
    darray__nbagree_post(&r->ag, q->end_comm, rc, NULL, 0);
    darray__async_set_state(q, r, st = R_AGREEING);
  }
  if (st == R_AGREEING) {
    bool done = false;
    int rc = darray__nbagree_progress(&r->ag, q->end_comm, block, &done,
                                      c->x.msg);
    if (done) {
      r->rc = r->sync ? rc : darray__xcall_after(c, rc);
      darray__async_set_state(q, r, R_DONE);
    }
  }
}

/* Move every request up to and including last as far as it goes (to its
 * end when block). */
void darray__async_advance(async_file_t *q, async_req_t *last, bool block) {
  for (async_req_t *r = q->head; r != NULL; r = r->next) {
    if (q->mode == DARRAY_ASYNC_FILES) {
      agree_step(q, r, block);
      /* a later request's agreement may not be posted before this one's */
      if (darray__async_state(q, r) < R_AGREEING)
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

int darray__async_wait(darray_file_t f, darray_request_t *req) {
  async_req_t *r;
  int rc = lookup(f, req, &r);
  if (rc != DARRAY_SUCCESS || r == NULL)
    return rc;
  darray__files_progress(f->async); /* files: every file's begins */
  darray__async_advance(f->async, r, true);
  *req = DARRAY_REQUEST_NULL;
  return collect(f->async, r);
}

int darray__async_test(darray_file_t f, darray_request_t *req, int *flag) {
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
  darray__async_release(f->async); /* a test lets the queued ones start */
  darray__files_progress(f->async); /* files: every file's begins */
  darray__async_advance(f->async, r, false);
  if (darray__async_state(f->async, r) != R_DONE)
    return DARRAY_SUCCESS;
  *flag = 1;
  *req = DARRAY_REQUEST_NULL;
  return collect(f->async, r);
}

int darray__async_wait_all(darray_file_t f, int n, darray_request_t reqs[],
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
    int c = darray__async_wait(f, &reqs[i]);
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
    darray__async_advance(q, q->tail, true);
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
  if (q->mode == DARRAY_ASYNC_FILES) {
    darray__files_forget(q);
    darray__files_ready(q, true);
    MPI_Comm_free(&q->begin_comm);
    MPI_Comm_free(&q->end_comm);
  }
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
  if (q->mode == DARRAY_ASYNC_FILES)
    darray__files_forget(q);
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
