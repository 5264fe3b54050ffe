/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async.h - nonblocking requests: post (async.c), the I/O thread
 * (async_thread.c), completion (async_complete.c), the nonblocking
 * agreement that completes a request below MPI_THREAD_MULTIPLE
 * (async_agree.c); their insides are in async_impl.h. The public entry
 * points that forward to them are in api/api_async.c.
 *
 * A request is a call (xcall_t, xfer.h) kept alive from its post to its
 * completion. Where its phases run depends on the file's mode
 * (DARRAY_ASYNC_*, hints.h), chosen at the file's first request from the
 * thread level MPI provides and the hint darray_async:
 *
 *   thread: the file's I/O thread runs begin, run and end; the program's
 *           thread only posts and collects (MPI_THREAD_MULTIPLE); requests
 *           queued together share their agreements (async_batch.c); with
 *           darray_async_start = wait, a wait runs the requests nothing has
 *           started in the program's thread instead (after what the I/O
 *           thread was given: darray__async_run_here);
 *   files:  the program's thread begins the call when it is posted, its
 *           agreement a nonblocking collective that later calls progress
 *           (async_files.c, which says what waits for the file's wait); the
 *           I/O thread runs it when its strategy calls no MPI (direct and
 *           sieve on the posix and subfiles back ends: io_ops_t.local),
 *           else the program's thread runs it in its wait; the final
 *           agreement is a nonblocking collective on a communicator of
 *           its own,
 *           posted in request order by wait and test and progressed by
 *           them;
 *   none:   the call runs to its end when posted.
 *
 * Requests of a file take effect in post order: one I/O thread per file
 * takes them first come, first served, and a blocking call, or any other
 * collective call on the file, waits until the thread has nothing left to
 * do (darray__async_idle) before it runs in the program's thread. So at
 * any moment one thread at most uses the file's communicator, its back
 * end and its format state.
 */
#ifndef DARRAYIO_ASYNC_H
#define DARRAYIO_ASYNC_H

#include "agree.h"
#include "xfer.h"

typedef struct async_file async_file_t;

/* Post a request (the entry points' common part). buffered: copy buf's
 * data now (darray_bwrite). args: darray_xfer's size and refusal (NULL:
 * none). */
DARRAY_HIDDEN int darray__async_post(struct darray_file_s *f,
                                     struct darray_s *a, void *buf,
                                     bool write, const region_t *g,
                                     bool buffered, darray_request_t *req,
                                     const darray_xfer_args_t *args);
/* Beneath the public nonblocking calls of src/api (api_async.c), which
 * only forward: darray_file_isync (async.c), darray_wait, darray_test and
 * darray_wait_all (async_complete.c). */
DARRAY_HIDDEN int darray__async_isync(struct darray_file_s *f,
                                      darray_request_t *req);
DARRAY_HIDDEN int darray__async_wait(struct darray_file_s *f,
                                     darray_request_t *req);
DARRAY_HIDDEN int darray__async_test(struct darray_file_s *f,
                                     darray_request_t *req, int *flag);
DARRAY_HIDDEN int darray__async_wait_all(struct darray_file_s *f, int n,
                                         darray_request_t reqs[], int codes[]);
/* Wait until the file's I/O thread has no work left (nothing to do
 * without requests). Local. */
DARRAY_HIDDEN void darray__async_idle(struct darray_file_s *f);
/* Complete every pending request of f (collective: their final
 * agreements); their results stay for their waits (collect = false) or
 * they are released, their handles dead (collect = true, at close; the
 * thread ends). Returns the first failure among them, its message in
 * msg. */
DARRAY_HIDDEN int darray__async_finish(struct darray_file_s *f, bool collect,
                                       char *msg);
/* A file closed after MPI_Finalize: release what can be released
 * without MPI (a thread still busy is left alone, its memory with it). */
DARRAY_HIDDEN void darray__async_drop(struct darray_file_s *f);
/* The mode of f's requests (DARRAY_ASYNC_*), agreed at open. */
DARRAY_HIDDEN int darray__async_mode(const struct darray_file_s *f);
/* What darray_explain says about nonblocking requests on f. */
DARRAY_HIDDEN const char *darray__async_text(const struct darray_file_s *f);

/* Tests: the agreement rounds of read and write calls on f so far
 * (async_batch.c); and a hold on every file's I/O thread (on: it takes no
 * new work until the hold is released; async_thread.c), so that a test
 * can post requests that the thread then finds queued together. */
DARRAY_HIDDEN int64_t darray__async_rounds(const struct darray_file_s *f);
/* Tests: merged accesses run so far in this process, all files
 * (async_merge.c). */
DARRAY_HIDDEN int64_t darray__async_merged(void);
/* Tests: requests the program's thread ran itself at a wait
 * (darray_async_start = wait), all files (async_thread.c). */
DARRAY_HIDDEN int64_t darray__async_ran_here(void);
DARRAY_HIDDEN void darray__async_hold(bool on);


/* The final agreement of a request as a nonblocking collective: the same
 * result everywhere (the most negative code), and the failing process's
 * message sent to the others, as darray__agree does (error.c). */
typedef struct nbagree {
  int phase; /* 0 not posted, 1 reducing, 2 telling, 3 done */
  int nv;    /* values checked equal with the code (a begin's, below) */
  int64_t in[1 + 2 * DARRAY_AGREE_EACH_VALS], out[1 + 2 * DARRAY_AGREE_EACH_VALS];
  int bad;   /* DARRAY_EINCONSISTENT: the first value that differs */
  MPI_Request req;
  MPI_Request *tell; /* the message: sends (the failing rank) or 1 receive */
  int ntell;
  int code; /* this process's result; then the agreed one */
  int who;  /* the rank whose failure won */
  bool failed_here;
  char text[DARRAY_ERRMSG_LEN - 64];
} nbagree_t;

/* Post the agreement on code over comm; vals[0..nv) (nv <=
 * DARRAY_AGREE_EACH_VALS; NULL when nv = 0) are checked equal on every
 * process as darray__agree_check does: when every process succeeded but
 * one value differs, the agreed code is DARRAY_EINCONSISTENT and g->bad
 * its index. */
DARRAY_HIDDEN void darray__nbagree_post(nbagree_t *g, MPI_Comm comm,
                                        int code, const int64_t *vals,
                                        int nv);
/* Progress it; *done when complete: the agreed code is returned and msg
 * (this process's message, if it failed) gets the failing rank's message
 * on the others. block: until done. */
DARRAY_HIDDEN int darray__nbagree_progress(nbagree_t *g, MPI_Comm comm,
                                           bool block, bool *done, char *msg);

#endif /* DARRAYIO_ASYNC_H */
