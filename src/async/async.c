/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async.c - nonblocking requests: a file's request state and the post
 * (async.h says where each phase of a request runs; the I/O thread is in
 * async_thread.c, completion in async_complete.c).
 */
#include "async/async_impl.h"
#include "agree.h"
#include "format/format.h"

#include <stdlib.h>
#include <string.h>

/* ---- the file's request state ------------------------------------------- */

/* What the file's requests attach to it (file.h): the core's sync, close
 * and drain run them, naming no request (doc/rooms.md). The mode they
 * run in was agreed at open from the hint and the thread level
 * (darray_file.c), so that the first post needs no agreement of its own. */
static const file_hooks_t async_hooks = {
    .drain = darray__async_idle,
    .finish = darray__async_finish,
    .drop = darray__async_drop,
};

/*
 * At the file's first request: its state, in the mode agreed at open.
 * Under thread the post calls no MPI: a process posts without waiting for
 * the others, so requests may be posted on several files in any order on
 * each process (issue 39). Under files neither does it wait: the
 * communicators of the begins' and the final agreements are made by
 * MPI_Comm_idup, nonblocking (async_files.c). A failure here is this
 * process's alone (out of memory, MPI failing), as a request that cannot
 * be allocated is.
 */
static int async_setup(darray_file_t f, char *msg) {
  async_file_t *q = calloc(1, sizeof *q);
  if (q == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  q->mode = f->async_mode;
  q->end_comm = q->begin_comm = MPI_COMM_NULL;
  q->lazy = q->mode == DARRAY_ASYNC_THREAD && f->hints.async_start == 1;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->done, NULL);
  if (q->mode == DARRAY_ASYNC_FILES) {
    int rc = darray__files_setup(f, q, msg);
    if (rc != DARRAY_SUCCESS) {
      pthread_mutex_destroy(&q->mu);
      pthread_cond_destroy(&q->work);
      pthread_cond_destroy(&q->done);
      free(q);
      return rc;
    }
  }
  f->async = q;
  f->hooks[DARRAY_HOOKS_REQUESTS] = async_hooks;
  return DARRAY_SUCCESS;
}

int darray__async_mode(const darray_file_s_t *f) { return f->async_mode; }

const char *darray__async_text(const darray_file_s_t *f) {
  switch (darray__async_mode(f)) {
  case DARRAY_ASYNC_THREAD:
    return "thread (MPI_THREAD_MULTIPLE): a thread of the file runs each "
           "request whole, agreement and exchange included (requests "
           "queued together share their agreements; whole-array requests "
           "of one operation posted in file order, each array starting "
           "where the one before it ends, move as one access, whatever "
           "their shapes and distributions, and so do section requests of one "
           "operation on one array whose boxes stay apart); the program "
           "computes meanwhile";
  case DARRAY_ASYNC_FILES:
    return "files (below MPI_THREAD_MULTIPLE): a post waits for no other "
           "process: its agreement is a nonblocking collective, progressed "
           "by every later post, test, wait or sync of the process; then "
           "direct and sieve transfers on the posix and subfiles back ends "
           "run in a thread of the file (the planner chooses among them), "
           "other transfers, section begins and failures in the file's wait "
           "(waits on different files in one order on every process); the "
           "final agreement is progressed by test and wait";
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
    /* the section's own checks first: a start or count outside the array
     * is refused before anything is copied (the copy of prod(count)
     * elements would read past the program's buffer) */
    c->rc0 = darray__xfer_section_checks(&c->x, &c->g, DARRAY_SUCCESS);
    if (c->rc0 != DARRAY_SUCCESS)
      return;
    bytes = a->d.esize;
    for (int d = 0; d < nd && c->g.count != NULL; d++)
      if (c->g.count[d] < 0 || !darray__mul_ok(bytes, c->g.count[d], &bytes))
        return; /* the region's checks refuse it */
  }
  if (c->x.buf == NULL || bytes == 0)
    return;
  /* a sized buffer shorter than the copy: refused, nothing read past it */
  c->rc0 = darray__xfer_buf_check(&c->x, c->section ? &c->g : NULL, bytes);
  if (c->rc0 != DARRAY_SUCCESS)
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

/* Start r: under thread, give it to the I/O thread; under files, begin
 * it without waiting for the other processes (async_files.c); under none,
 * run it to its end. */
static void start(darray_file_t f, async_file_t *q, async_req_t *r) {
  xcall_t *c = &r->c;
  if (q->mode == DARRAY_ASYNC_THREAD) {
    if (!darray__async_hand_over(q, r)) {
      darray__async_idle(f); /* no thread: run it now, in order */
      r->rc = darray__async_execute(q->mode, c, r->sync);
      darray__async_set_state(q, r, R_DONE);
    }
    return;
  }
  if (q->mode == DARRAY_ASYNC_FILES) {
    darray__files_post(f, q, r);
    return;
  }
  if (r->sync) {
    r->rc = darray__agree(f->comm, darray__async_sync_file(c), c->x.msg);
  } else {
    int rc = darray__xcall_begin(c);
    if (rc == DARRAY_SUCCESS)
      rc = darray__xcall_run(c);
    r->rc = darray__xcall_end(c, rc);
  }
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
                       darray_request_t *req, const darray_xfer_args_t *args) {
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
  if (rc == DARRAY_SUCCESS) /* files: every file's begins move on */
    darray__files_progress(f->async);
  if (rc == DARRAY_SUCCESS && f->async == NULL) { /* the post's collectives */
    int64_t *prev = darray__coll_into(&r->c.x.stats.collectives);
    rc = async_setup(f, f->errmsg);
    darray__coll_into(prev);
  }
  if (rc != DARRAY_SUCCESS) { /* local (documented) */
    if (rc == DARRAY_ENOMEM && r == NULL)
      darray__err(f->errmsg, rc, "out of memory");
    free(r);
    return rc;
  }
  async_file_t *q = f->async;
  *req = DARRAY_REQUEST_NULL;
  if (args != NULL)
    darray__xcall_args(&r->c, args->nbytes, args->refuse, args->why);
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

int darray__async_isync(darray_file_t f, darray_request_t *req) {
  if (req != NULL)
    *req = DARRAY_REQUEST_NULL;
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable handle or no MPI: cannot agree (documented) */
  if (req == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "req is NULL");
  darray__files_progress(f->async);
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
