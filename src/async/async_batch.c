/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_batch.c - requests that share their agreements (darray_async =
 * thread): the I/O thread runs a request together with the requests
 * queued behind it.
 *
 * Alone, a request pays two agreement rounds: its begin's (arguments,
 * plan) and its end's (the result). On small arrays those rounds cost
 * more than the bytes. So when the thread starts a request (the batch's
 * first), its begin's agreement also carries how many requests are queued
 * behind it on this process that could join it (batch_of, async_thread.c); the
 * least over the processes, B - 1, comes back the same everywhere, and
 * every process takes the same B requests: the first one's begin (1
 * round), the others' begins in one allreduce (1), the runs in post
 * order, and every result in one allreduce (1). 3 rounds instead of 2B.
 * Each request keeps its own code and message: a failure in the third
 * request is reported at its wait on every process, the others succeed.
 * A batch that is a chain of whole arrays stored one after another moves
 * as one access instead (async_merge.c: the same rounds, one strategy's
 * preparation and run for all).
 *
 * Which requests may join (batch_of): whole-array calls (a section's
 * begin gathers every process's box: a collective of its own; sections
 * join only a chain of sections, whose boxes are gathered together),
 * outside a dataset (a member's end may be collective), none whose bytes
 * meet an earlier one's where either writes (alone, a request's end
 * agreement orders its bytes before the next request's on every process;
 * in a batch nothing does), and only while the batch's extents fit in the
 * largest buffer hint (every request is prepared, its buffers held,
 * before the first one runs). Each process counts only requests it could
 * join, so the least count is one every process can honour; the decision
 * uses agreed numbers only. If the first request's agreement fails on one
 * process alone (MPI itself failing there), that process takes no batch
 * while the others may: a second failure at once, as darray__agree_first
 * says, cannot be made safe.
 *
 * darray_async = files does not batch: its begins start at post, each in
 * the program's thread before the post returns (so that its transfer can
 * start as soon as its agreement completes), when later posts are not
 * known; its end agreements are
 * nonblocking collectives posted in request order by darray_test as well
 * as by the waits, and darray_test may be called on one process and not
 * on another, so which requests' agreements are still unposted at a
 * darray_wait_all differs between processes: merging them would pair
 * different collectives.
 */
#include "async/async_impl.h"
#include "agree.h"

/* Begin requests b[0..n) together: their local halves, one agreement,
 * what follows it. rcs[i]: each one's result. */
void darray__async_begin_group(async_req_t **b, int n, int *rcs) {
  enum { M = DARRAY_AGREE_EACH_MAX };
  int64_t vals[M * 4];
  int pre[M], bads[M];
  char *msgs[M];
  darray_file_t f = b[0]->c.x.f;
  for (int i = 0; i < n; i++) {
    rcs[i] = darray__xcall_begin_local(&b[i]->c, vals + 4 * i, &pre[i]);
    msgs[i] = b[i]->c.x.msg;
    bads[i] = -1;
  }
  f->rounds++;
  int64_t *prev = darray__coll_into(&b[0]->c.x.stats.collectives);
  int ok = darray__agree_each(f->comm, n, rcs, msgs, vals, 4,
                              bads); /* counted on the first it serves */
  darray__coll_into(prev);
  if (ok != DARRAY_SUCCESS) {
    /* here alone: go on as if every process agreed on its own code; the
     * end's agreement tells (darray__agree_first) */
    for (int i = 0; i < n; i++)
      if (rcs[i] == DARRAY_SUCCESS)
        b[i]->c.x.late = darray__err(b[i]->c.x.msg, DARRAY_EMPI,
                                     "MPI_Allreduce failed while agreeing "
                                     "on the arguments");
  }
  for (int i = 0; i < n; i++)
    rcs[i] = darray__xcall_begin_agreed(&b[i]->c, rcs[i], bads[i],
                                        vals + 4 * i, pre[i]);
}

/* End requests b[0..n) together: their local ends, one agreement on the
 * results of those that still need one (the same ones everywhere: those
 * whose begin succeeded), what follows it. */
static void end_all(async_req_t **b, int n, int *rcs) {
  enum { M = DARRAY_AGREE_EACH_MAX };
  int codes[M], which[M], m = 0;
  char *msgs[M];
  darray_file_t f = b[0]->c.x.f;
  for (int i = 0; i < n; i++) {
    bool agree;
    rcs[i] = darray__xcall_end_local(&b[i]->c, rcs[i], &agree);
    if (agree) {
      which[m] = i;
      codes[m] = rcs[i];
      msgs[m++] = b[i]->c.x.msg;
    }
  }
  if (m > 0) {
    f->rounds++;
    int64_t *prev = darray__coll_into(&b[which[0]]->c.x.stats.collectives);
    int ok = darray__agree_each(f->comm, m, codes, msgs, NULL, 0, NULL);
    darray__coll_into(prev);
    if (ok != DARRAY_SUCCESS)
      for (int k = 0; k < m; k++)
        codes[k] = darray__err(msgs[k], DARRAY_EMPI,
                               "MPI_Allreduce failed while agreeing on the "
                               "result");
    for (int k = 0; k < m; k++)
      rcs[which[k]] = codes[k];
  }
  for (int i = 0; i < n; i++)
    rcs[i] = darray__xcall_after(&b[i]->c, rcs[i]);
}

/* A merged read that every process agreed met the file's end
 * (DARRAY_EEOF) does not say whose bytes lie past it: its requests are
 * read again one by one, each begun, run and ended as alone (reads change
 * nothing on disk), so that each gets its own result, as posted one by
 * one. Only on that path: a merged access's other failures are every
 * merged request's (darray_wait_all's documentation). */
static void reread(async_req_t **b, int n, int *rcs) {
  for (int i = 0; i < n; i++) {
    xcall_t *c = &b[i]->c;
    c->x.msg[0] = '\0';
    c->x.late = DARRAY_SUCCESS;
    c->x.failed_early = false;
    c->x.batch = 0;
    int rc = darray__xcall_begin(c);
    if (rc == DARRAY_SUCCESS)
      rc = darray__xcall_run(c);
    rcs[i] = darray__xcall_end(c, rc);
  }
}

int darray__async_batch(async_req_t **b, int nb, bool chain) {
  xcall_t *c0 = &b[0]->c;
  c0->x.batch = (chain ? MERGE_BASE : 0) + nb - 1;
  int rcs[DARRAY_AGREE_EACH_MAX];
  rcs[0] = darray__xcall_begin(c0); /* carries x.batch */
  int64_t more = c0->x.batch;
  /* a chain only if every process proposed one (async_merge.c), and only
   * after a first request that may go on (else the others wait for the
   * next batch: none of them is begun yet) */
  bool merge = more >= MERGE_BASE && rcs[0] == DARRAY_SUCCESS;
  if (more >= MERGE_BASE)
    more = merge ? more - MERGE_BASE : 0;
  int n = 1 + (int)(more < 0 ? 0 : more < nb - 1 ? more : nb - 1);
  if (n == 1) {
    if (rcs[0] == DARRAY_SUCCESS)
      rcs[0] = darray__xcall_run(c0);
    b[0]->rc = darray__xcall_end(c0, rcs[0]);
    return 1;
  }
  bool whole = false;
  if (merge) {
    whole = darray__async_merge(b, n, rcs);
  } else {
    darray__async_begin_group(b + 1, n - 1, rcs + 1);
    for (int i = 0; i < n; i++) /* in post order */
      if (rcs[i] == DARRAY_SUCCESS)
        rcs[i] = darray__xcall_run(&b[i]->c);
  }
  end_all(b, n, rcs);
  if (whole && !c0->x.write && rcs[0] == DARRAY_EEOF) /* agreed: all alike */
    reread(b, n, rcs);
  for (int i = 0; i < n; i++)
    b[i]->rc = rcs[i];
  return n;
}

int64_t darray__async_rounds(const struct darray_file_s *f) {
  return f->rounds;
}
