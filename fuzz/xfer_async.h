/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_async.h - part of fuzz_xfer.c (header only, included once, after
 * the transfers): requests, from their post to their completion, by the
 * rules of darrayio.h's "Nonblocking reads and writes".
 *
 * A request's outcome is fixed when it is posted (tx_new, expect_limits);
 * a write takes effect on the model then. Completion checks it (tx_check),
 * the counters when it completes alone, the file, and that its identifier
 * is dead afterwards.
 */
#ifndef DARRAYIO_FUZZ_XFER_ASYNC_H
#define DARRAYIO_FUZZ_XFER_ASYNC_H

/* ------------------------------------------------------------------------ */
/* the outcome of a post                                                    */

/* With darray_temp_limit set, a call may be refused (DARRAY_ELIMIT, before
 * any byte moves) by the strategies' sizing of their buffers, which the
 * model does not follow; a request makes the checks the blocking call
 * makes. So the same call, made blocking on a second file opened with the
 * same hints, tells whether the request will be refused; that refusal is
 * checked as any blocking call's is. */
static bool probe_refuses(run_t *r, const tx_t *t) {
  if (r->c->hint[H_TEMP_LIMIT] < 0)
    return false;
  if (r->probe == NULL)
    r->probe = open_file(r, fz_files[1], NULL, 0);
  uint8_t *scratch = xmalloc(t->nb);
  memcpy(scratch, t->orig, (size_t)t->nb);
  int rc = tx_call(r, r->probe, t, scratch);
  free(scratch);
  if (rc != DARRAY_SUCCESS && rc != DARRAY_EEOF &&
      !refused_by_limit(r, r->probe, rc, t->name))
    fz_fail("%s, blocking on a second file, returned %s: %s", t->name,
            darray_err_name(rc), darray_file_errmsg(r->probe));
  return rc == DARRAY_ELIMIT;
}

/* The limits on a request: darray_temp_limit as the blocking call, and a
 * buffered write's copy (the buffer: the local buffer, or the section's
 * elements; none when NULL) within darray_nb_buffer_size together with
 * the copies of the pending requests, which they hold until they complete
 * (else it fails with DARRAY_ELIMIT and writes nothing: this is checked
 * when the copy is made, so its message is this one). */
static void expect_limits(run_t *r, tx_t *t) {
  if (t->sync)
    return;
  if (probe_refuses(r, t)) {
    t->expect = DARRAY_ELIMIT;
    t->why = LIM_TEMP;
  }
  if (t->how != HOW_BUF || tx_ptr(t, t->buf) == NULL)
    return;
  int64_t copy = t->section ? t->bytes : r->c->lbytes;
  t->held = r->held;
  if (copy > r->nb_cap - r->held) {
    t->expect = DARRAY_ELIMIT;
    t->why = LIM_NB;
    return;
  }
  t->copy = copy;
  r->held += copy;
}

/* Post operation o: its outcome, its effect on the model, the request. A
 * buffered write's buffer is overwritten at once (the library copied it);
 * any other buffer stays as it is until completion. */
static void post(run_t *r, const op_t *o) {
  tx_t *t = tx_new(r, o, o->kind == OP_SYNC ? HOW_NB : o->how);
  expect_limits(r, t);
  if (t->write && t->expect == DARRAY_SUCCESS)
    tx_effect(r, t);
  t->post = next_state(r);
  int rc = tx_post(r, t);
  if (rc != DARRAY_SUCCESS || t->req == DARRAY_REQUEST_NULL)
    fz_fail("posting %s returned %s (request %" PRId64 "): %s", t->name,
            darray_err_name(rc), (int64_t)t->req, darray_file_errmsg(r->f));
  if (t->how == HOW_BUF)
    fz_fill(t->buf, t->nb, &r->rng);
  r->pend[r->npend++] = t;
  check_file(r, t->name);
}

/* ------------------------------------------------------------------------ */
/* completion                                                               */

/* A completed request's identifier names nothing: a second wait, or a
 * test, says DARRAY_EREQUEST. */
static void check_dead(const run_t *r, const tx_t *t, darray_request_t id) {
  darray_request_t q = id;
  int flag = 1;
  int rc = darray_wait(r->f, &q);
  if (rc != DARRAY_EREQUEST)
    fz_fail("a second darray_wait on %s's request returned %s", t->name,
            darray_err_name(rc));
  q = id;
  rc = darray_test(r->f, &q, &flag);
  if (rc != DARRAY_EREQUEST || flag != 0)
    fz_fail("darray_test on %s's completed request returned %s, flag %d",
            t->name, darray_err_name(rc), flag);
}

/* t has completed with rc: every call up to it has taken effect, its
 * copy is let go. msg: the file's message is its own. */
static void tx_done(run_t *r, tx_t *t, int rc, bool msg) {
  if (t->req != DARRAY_REQUEST_NULL)
    fz_fail("%s's request is %" PRId64 " after completion, not "
            "DARRAY_REQUEST_NULL",
            t->name, (int64_t)t->req);
  done_upto(r, t->post);
  r->held -= t->copy;
  tx_check(r, t, rc, msg);
}

/* Pending request k leaves the list. */
static tx_t *take(run_t *r, int k) {
  tx_t *t = r->pend[k];
  memmove(r->pend + k, r->pend + k + 1,
          sizeof *r->pend * (size_t)(r->npend - k - 1));
  r->npend--;
  return t;
}

/* darray_test until done; until then it returns success, and the handle
 * stays. Below MPI_THREAD_MULTIPLE (darray_async = files) a request whose
 * remaining part is collective (two-phase, the mpiio back end, a section's
 * begin, a member) completes only at its wait (include/darrayio.h, issue
 * 39): after TEST_TRIES tests the request is waited for. A request that
 * never completes is a hang, which libFuzzer's and the driver's -timeout
 * report. */
#define TEST_TRIES 20000
static int test_loop(const run_t *r, tx_t *t) {
  darray_request_t id = t->req;
  for (int k = 0; k < TEST_TRIES; k++) {
    int flag = -1;
    int rc = darray_test(r->f, &t->req, &flag);
    if (flag == 1)
      return rc;
    if (flag != 0 || rc != DARRAY_SUCCESS || t->req != id)
      fz_fail("darray_test on %s's request returned %s, flag %d, "
              "request %" PRId64 " (was %" PRId64 ")",
              t->name, darray_err_name(rc), flag, (int64_t)t->req, (int64_t)id);
    sched_yield();
  }
  return darray_wait(r->f, &t->req);
}

/* darray_wait or darray_test on one pending request (on
 * DARRAY_REQUEST_NULL when none is: done at once). */
static void complete_one(run_t *r, const op_t *o) {
  if (r->npend == 0) {
    darray_request_t q = DARRAY_REQUEST_NULL;
    int flag = 0;
    int rc = o->test ? darray_test(r->f, &q, &flag) : darray_wait(r->f, &q);
    if (rc != DARRAY_SUCCESS || (o->test && flag != 1))
      fz_fail("darray_%s on DARRAY_REQUEST_NULL returned %s, flag %d",
              o->test ? "test" : "wait", darray_err_name(rc), flag);
    return;
  }
  tx_t *t = take(r, o->pick % r->npend);
  darray_request_t id = t->req;
  darray_file_reset_stats(r->f);
  int rc = o->test ? test_loop(r, t) : darray_wait(r->f, &t->req);
  tx_done(r, t, rc, true);
  tx_stats(r, t, rc); /* it alone since the reset */
  check_file(r, o->test ? "darray_test" : "darray_wait");
  check_dead(r, t, id);
  tx_free(t);
}

/* darray_wait_all's counters: the sums of its requests'. */
static void check_sum(const run_t *r, tx_t *const ts[], int n) {
  darray_stats_t st;
  ok(darray_file_get_stats(r->f, &st), "darray_file_get_stats", "");
  int64_t rd = 0, wr = 0;
  bool writes = false;
  for (int i = 0; i < n; i++) {
    if (ts[i] == NULL || ts[i]->sync)
      continue;
    writes |= ts[i]->write;
    if (ts[i]->expect == DARRAY_SUCCESS)
      *(ts[i]->write ? &wr : &rd) += ts[i]->bytes;
  }
  if (!writes && (st.bytes_written != 0 || st.write_calls != 0))
    fz_fail("darray_wait_all of reads wrote %" PRId64 " bytes in %" PRId64
            " calls",
            st.bytes_written, st.write_calls);
  if (st.bytes_read < rd || st.bytes_written < wr)
    fz_fail("darray_wait_all's requests read %" PRId64 " bytes of %" PRId64
            " and wrote %" PRId64 " of %" PRId64,
            st.bytes_read, rd, st.bytes_written, wr);
}

/* darray_wait_all on every pending request, in post order or the
 * reverse, with DARRAY_REQUEST_NULL between them or not: it returns the
 * first failure in the array (its message in the file's), each request's
 * code in codes, and leaves every handle DARRAY_REQUEST_NULL. */
static void complete_all(run_t *r, const op_t *o) {
  tx_t *ts[2 * MAXOPS];
  darray_request_t ids[2 * MAXOPS], old[2 * MAXOPS];
  int codes[2 * MAXOPS], n = 0, want = DARRAY_SUCCESS, first = -1;
  for (int k = 0; k < r->npend; k++) {
    ts[n] = r->pend[o->rev ? r->npend - 1 - k : k];
    ids[n] = old[n] = ts[n]->req;
    if (want == DARRAY_SUCCESS && ts[n]->expect != DARRAY_SUCCESS)
      want = ts[first = n]->expect;
    n++;
    if (o->nulls) {
      ts[n] = NULL;
      ids[n++] = DARRAY_REQUEST_NULL;
    }
  }
  for (int i = 0; i < n; i++)
    codes[i] = INT32_MIN;
  darray_file_reset_stats(r->f);
  int rc = darray_wait_all(r->f, n, ids, o->nocodes ? NULL : codes);
  if (rc != want)
    fz_fail("darray_wait_all of %d returned %s, the model says %s: %s", n,
            darray_err_name(rc), darray_err_name(want),
            darray_file_errmsg(r->f));
  r->npend = 0;
  for (int i = 0; i < n; i++) {
    if (ids[i] != DARRAY_REQUEST_NULL)
      fz_fail("darray_wait_all left entry %d at %" PRId64, i, (int64_t)ids[i]);
    if (ts[i] == NULL)
      continue;
    ts[i]->req = DARRAY_REQUEST_NULL;
    if (!o->nocodes && codes[i] != ts[i]->expect)
      fz_fail("darray_wait_all: code %d (%s) is %s, the model says %s", i,
              ts[i]->name, darray_err_name(codes[i]),
              darray_err_name(ts[i]->expect));
    tx_done(r, ts[i], ts[i]->expect, i == first);
  }
  check_sum(r, ts, n);
  check_file(r, "darray_wait_all");
  for (int i = 0; i < n; i++)
    if (ts[i] != NULL) {
      check_dead(r, ts[i], old[i]);
      tx_free(ts[i]);
    }
}

/* What darray_file_sync or darray_file_close may return with requests
 * pending: success, or the code of one of those that failed. */
static void check_pending_code(const run_t *r, int rc, const char *call) {
  bool failed = false;
  for (int k = 0; k < r->npend; k++) {
    if (rc != DARRAY_SUCCESS && rc == r->pend[k]->expect)
      return;
    failed |= r->pend[k]->expect != DARRAY_SUCCESS;
  }
  if (rc != DARRAY_SUCCESS || failed)
    fz_fail("%s returned %s with %d requests pending (%s of them failed)", call,
            darray_err_name(rc), r->npend, failed ? "some" : "none");
}

/* darray_file_sync: it completes the pending requests first (their waits
 * still come) and reports their failures. */
static void sync_op(run_t *r) {
  int rc = darray_file_sync(r->f);
  check_pending_code(r, rc, "darray_file_sync");
  done_upto(r, r->nposts);
  check_file(r, "darray_file_sync");
}

/* ------------------------------------------------------------------------ */
/* the case's start and end                                                 */

/* darray_explain says how requests run: as darray_async says, lowered to
 * what the thread level allows (automatic: all it allows). */
static void check_mode(const run_t *r) {
  static const char *const mode[] = {"thread (", "files (", "none ("};
  static char text[65536];
  int can = thread_level >= MPI_THREAD_MULTIPLE   ? 0
            : thread_level >= MPI_THREAD_FUNNELED ? 1
                                                  : 2;
  int want = r->c->hint[H_ASYNC] > 0 ? r->c->hint[H_ASYNC] - 1 : 0;
  want = want > can ? want : can;
  memset(text, 0, sizeof text);
  FILE *fp = fmemopen(text, sizeof text - 1, "w");
  if (fp == NULL)
    fz_fail("fmemopen failed");
  ok(darray_explain(r->f, r->a, 1, fp), "darray_explain",
     darray_file_errmsg(r->f));
  fclose(fp);
  const char *line = strstr(text, "  nonblocking requests: ");
  if (line == NULL || strncmp(line + 24, mode[want], strlen(mode[want])) != 0)
    fz_fail("darray_explain should say requests run as '%s': %.200s",
            mode[want], line != NULL ? line : text);
}

static void start_requests(run_t *r) {
  r->npend = 0;
  r->held = 0;
  r->probe = NULL;
  r->nb_cap = hint_value(r, "darray_nb_buffer_size");
  for (int k = 0; k < r->c->nops; k++)
    if (r->c->op[k].how != HOW_BLOCK && r->c->op[k].kind != OP_DISP) {
      check_mode(r);
      break;
    }
}

/* The requests still pending complete: in darray_wait_all, or in
 * darray_file_close, which reports their failures, after which their
 * buffers are the library's no more; the array may be freed first (a
 * request has its own copy of the description). */
static void finish(run_t *r) {
  if (r->c->end_free)
    ok(darray_free(&r->a), "darray_free", "");
  if (r->c->end_close && r->npend > 0) {
    int rc = darray_file_close(&r->f);
    check_pending_code(r, rc, "darray_file_close");
    done_upto(r, r->nposts);
    check_file(r, "darray_file_close");
    for (int k = 0; k < r->npend; k++) {
      tx_check(r, r->pend[k], r->pend[k]->expect, false);
      tx_free(r->pend[k]);
    }
    r->npend = 0;
  } else {
    op_t all = {.kind = OP_WAIT_ALL};
    complete_all(r, &all);
    ok(darray_file_close(&r->f), "darray_file_close", "");
  }
  if (!r->c->end_free)
    ok(darray_free(&r->a), "darray_free", "");
  if (r->probe != NULL)
    ok(darray_file_close(&r->probe), "darray_file_close", "");
}

#endif /* DARRAYIO_FUZZ_XFER_ASYNC_H */
