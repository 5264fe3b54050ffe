/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_call.c - the phases of a call (xfer.h) that the blocking entry
 * points (api/darray_xfer.c) and the nonblocking ones (api/api_async.c)
 * run: validate, agree, plan, dispatch. The helpers of the begin phase
 * are in xfer_begin.c (the core's) and xfer_plan.c (the planner's).
 *
 * Every call ends with the same code on every process. Arguments, the
 * description, the displacement, the plan and the strategy's preparation
 * are agreed on in one collective before any byte moves, so a bad argument
 * anywhere means nothing is touched anywhere; but for a folded read (see
 * may_fold), which agrees on all of it with its result.
 */
#include "xfer.h"
#include "agree.h"
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int common_args(xfer_t *x) {
  darray_file_t f = x->f;
  const struct darray_s *a = x->a;
  bool write = x->write;
  int cmp = MPI_UNEQUAL;
  if (!a->committed)
    return darray__err(x->msg, DARRAY_ESTATE, "a: the array is not committed");
  if (a->comm == MPI_COMM_NULL) /* virtual: no process of its own */
    return darray__array_real(a, x->msg);
  MPI_Comm_compare(f->comm, a->comm, &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    return darray__err(x->msg, DARRAY_ECOMM,
                       "the file's and the array's communicators differ");
  if (write && !(f->mode & DARRAY_MODE_RDWR))
    return darray__err(x->msg, DARRAY_EMODE, "f: the file is read-only");
  int64_t end, bytes = a->d.fstride[a->d.perm[0]] * a->d.gsizes[a->d.perm[0]];
  if (!darray__add_ok(a->d.disp, bytes, &end))
    return darray__err(x->msg, DARRAY_ESIZE,
                       "displacement + array bytes overflows 64 bits");
  return DARRAY_SUCCESS;
}

/*
 * A call is a request that goes through three phases. Everything it needs
 * from one phase to the next lives in its xfer_t and in the strategy's
 * state (x->state), none of it on the entry point's stack, so that a
 * nonblocking call can allocate the xfer_t, begin it when posted and run
 * and end it later (the strategies' work already falls into steps:
 * two-phase cycles, sieving windows, direct batches):
 *
 *   begin: local checks, the access (a section call gathers every
 *          process's box), the plan, the strategy's preparation; one
 *          agreement, after which either every process moves bytes or
 *          none does;
 *   run:   the strategy moves the bytes;
 *   end:   the strategy's state is freed, statistics are counted and the
 *          result is agreed on, so every process returns the same code.
 */
static int xfer_begin(xfer_t *x, const region_t *g, int rc0) {
  const strategy_t *s = darray__strategies[0];
  bool agreed = false;
  int rc = darray__xfer_access_of(x, g, rc0, &agreed);
  if (agreed) { /* a section call's first agreement failed: a process
                   that made another call (a whole array) agrees once */
    x->strategy = s;
    x->failed_early = true;
    return rc;
  }
  if (rc == DARRAY_SUCCESS)
    rc = darray__xfer_verbose() ? darray__xfer_say_plan(x, g, &s)
                                : darray__plan_call(x, g == NULL, &s);
  int pre = rc; /* this process's failure before any strategy */
  x->folded = x->folded && rc == DARRAY_SUCCESS && !s->collective &&
              darray__plan_proven(x->f, x->a, x->write, s);
  if (x->folded) /* fold: no agreement before the bytes move */
    return darray__xfer_begin_local(x, g, s, rc);
  return darray__xfer_begin_fallback(x, g, pre,
                                     darray__xfer_begin_with(x, g, s, rc));
}

static const region_t *region_of(const xcall_t *c) {
  return c->section ? &c->g : NULL;
}

const char *darray__xcall_name(const xcall_t *c) {
  return darray__xfer_call_name(&c->x, region_of(c));
}

int darray__xcall_setup(xcall_t *c, darray_file_t f, darray_t a, void *buf,
                        bool write, const region_t *g) {
  int rc = darray__file_check_mpi(f);
  if (rc == DARRAY_SUCCESS)
    rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable handle or no MPI: cannot agree (documented) */
  memset(c, 0, sizeof *c);
  c->x.f = f;
  c->x.buf = buf;
  c->x.bufsize = DARRAY_UNSIZED;
  c->x.fortran = darray__fortran();
  c->x.write = write;
  c->section = g != NULL;
  if (g != NULL)
    c->g = *g;
  /* in a dataset the call moves a's member: a copy of a at the member's
   * data offset (src/format) */
  c->rc0 = darray__format_place(f, a, &c->view, &c->member, c->x.msg);
  c->x.a = &c->view;
  if (c->rc0 == DARRAY_SUCCESS)
    c->rc0 = common_args(&c->x);
  darray__io_call_init(&c->x.io, &f->io, &c->x.stats);
  c->number = ++f->ncalls;
  c->t0 = MPI_Wtime();
  return DARRAY_SUCCESS;
}

void darray__xcall_args(xcall_t *c, int64_t nbytes, int refuse,
                        const char *why) {
  if (c->rc0 != DARRAY_SUCCESS)
    return;
  if (refuse != DARRAY_SUCCESS)
    c->rc0 = darray__err(c->x.msg, refuse, "%s",
                         why != NULL && why[0] ? why
                                               : darray_strerror(refuse));
  else if (nbytes < 0 && nbytes != DARRAY_UNSIZED)
    c->rc0 = darray__err(c->x.msg, DARRAY_EINVAL,
                         "nbytes = %lld: a size is >= 0 (or DARRAY_UNSIZED)",
                         (long long)nbytes);
  else
    c->x.bufsize = nbytes;
}

/* Every process's bytes in the call: the array's, or the sum of the
 * gathered boxes' (0 when the sum overflows: only a message uses it). */
static int64_t call_bytes(const xcall_t *c) {
  const darray_desc_t *d = &c->view.d;
  int nd = d->ndims, P = d->nprocs;
  int64_t total = 0, n;
  for (int r = 0; r < (c->section ? P : 1); r++) {
    n = d->esize;
    for (int k = 0; k < nd; k++) {
      int64_t e = c->section ? c->x.boxes[2 * nd * r + nd + k] : d->gsizes[k];
      if (!darray__mul_ok(n, e, &n))
        return 0;
    }
    if (!darray__add_ok(total, n, &total))
      return 0;
  }
  return total;
}

/* What follows a successful begin. */
static int begun(xcall_t *c, int rc) {
  if (rc == DARRAY_SUCCESS)
    darray__format_begin(c->x.f, c->member, &c->x, !c->section, c->blocking,
                         &c->share);
  if (rc == DARRAY_SUCCESS && darray__xfer_verbose())
    c->bytes = call_bytes(c);
  return rc;
}

/*
 * Fold (issue #16: fewer synchronizations). A blocking whole-array read
 * whose remembered plan has succeeded before (darray__plan_proven) under
 * a strategy that moves no bytes between processes (direct, sieve) skips
 * the agreement before its bytes move: each process reads its own bytes
 * if its own checks passed, and the end's agreement, of the same shape as
 * a begin's (darray__xfer_agree_call: the code, the call, the description,
 * the displacement, the strategy), gives every process the same code. What
 * that agreement could refuse beforehand cannot differ from the proven
 * call's but for the caller's arguments on some processes (buf NULL,
 * another array or operation: program errors) and memory: then the
 * processes whose checks passed have filled their buffers, as when a call
 * fails while moving bytes (doc/reliability.md, section 3), and every
 * process returns the failure. A process that meets another's different
 * call meets it in an agreement of the same shape, as before.
 *
 * Not folded: writes. Bad input on one process must change nothing on
 * disk, which only an agreement before the first byte is written can
 * promise; a write keeps its two rounds.
 *
 * Not folded: strategies that exchange data (two-phase, rows): a process
 * whose checks failed has no state to take part in the exchange with, and
 * the others would wait for its messages; the exchange carries no code to
 * every process. Their remembered calls keep two rounds. Nor are section
 * calls (their boxes are gathered after an agreement), members of a
 * dataset (their end may be collective) and requests (src/async agrees
 * on their begins in batches).
 */
static bool may_fold(const xcall_t *c) {
  return c->blocking && !c->section && c->member < 0 && !c->x.write;
}

/* The phases below count their collectives into the call's counter
 * (agree.h: darray__coll_into), whichever thread runs them. */
int darray__xcall_begin(xcall_t *c) {
  int64_t *prev = darray__coll_into(&c->x.stats.collectives);
  c->x.folded = may_fold(c);
  int rc = begun(c, xfer_begin(&c->x, region_of(c), c->rc0));
  darray__coll_into(prev);
  return rc;
}

/* A merged access's plan (src/async/async_merge.c). A strategy marked
 * unmerged (rows: one cell per process of its group, where a merged
 * access gives each process B cells, one per array) is no candidate; when
 * a hint forces it, the access refuses (DARRAY_EHINT), and its requests
 * move one by one, under it. Others are planned from the table as for
 * any call. */
static bool merges(const strategy_t *s) { return !s->unmerged; }

static int plan_merged(xfer_t *x, const strategy_t **s) {
  const strategy_t *table[DARRAY_MAX_STRATEGIES + 1];
  int n = 0;
  *s = darray__plan_forced(x);
  if (*s != NULL)
    return merges(*s) ? DARRAY_SUCCESS
                      : darray__err(x->msg, DARRAY_EHINT, "%s: "
                                    "darray_strategy=%s does not move "
                                    "merged accesses",
                                    darray__xfer_call_name(x, NULL),
                                    (*s)->name);
  for (int i = 0; darray__strategies[i] != NULL; i++)
    if (merges(darray__strategies[i]))
      table[n++] = darray__strategies[i];
  table[n] = NULL;
  const access_t *acc;
  plan_t p;
  *s = darray__strategies[0];
  int rc = darray__xfer_access(x, &acc);
  if (rc == DARRAY_SUCCESS)
    rc = darray__plan_decide(x, table, acc, &p);
  if (rc == DARRAY_SUCCESS)
    *s = p.s;
  if (rc == DARRAY_SUCCESS && darray__xfer_verbose() && x->a->rank == 0) {
    char est[DARRAY_ESTIMATES_LEN];
    fprintf(stderr, "darrayio: %s: strategy %s, back end %s: %s; "
            "estimates: %s\n", darray__xfer_call_name(x, NULL), p.s->name,
            x->f->io.ops->name, p.why,
            darray__plan_estimates(&p, est, sizeof est));
  }
  return rc;
}

/* xfer_begin up to its agreement (a whole-array call's access and plan
 * are local), in one of three ways (how): */
enum {
  BEGIN_PREPARE, /* the call's plan (remembered per array), prepared */
  BEGIN_PLAN,    /* the same plan, not prepared: a merged access moves
                    the call's bytes (x->state stays NULL) */
  BEGIN_MERGED   /* a merged access: planned afresh (plan_merged; its
                    array is no user's, nothing to remember), prepared */
};

static int begin_local_as(xcall_t *c, int64_t vals[4], int *pre, int how) {
  xfer_t *x = &c->x;
  const strategy_t *s = darray__strategies[0];
  bool agreed = false;
  int rc = darray__xfer_access_of(x, NULL, c->rc0, &agreed);
  if (rc == DARRAY_SUCCESS)
    rc = how == BEGIN_MERGED ? plan_merged(x, &s)
         : darray__xfer_verbose() && how != BEGIN_PLAN
             ? darray__xfer_say_plan(x, NULL, &s)
             : darray__plan_call(x, true, &s);
  *pre = rc;
  if (how != BEGIN_PLAN) {
    rc = darray__xfer_begin_local(x, NULL, s, rc);
  } else { /* darray__xfer_begin_local but the preparation */
    x->strategy = s;
    if (rc == DARRAY_SUCCESS)
      rc = darray__xfer_temp_check(x);
    if (rc == DARRAY_SUCCESS)
      rc = x->late;
    x->late = DARRAY_SUCCESS;
  }
  darray__xfer_call_vals(x, NULL, s, vals);
  return rc;
}

int darray__xcall_begin_local(xcall_t *c, int64_t vals[4], int *pre) {
  return begin_local_as(c, vals, pre, BEGIN_PREPARE);
}

int darray__xcall_begin_plan(xcall_t *c, int64_t vals[4], int *pre) {
  return begin_local_as(c, vals, pre, BEGIN_PLAN);
}

int darray__xcall_begin_merged(xcall_t *c, int64_t vals[4], int *pre) {
  return begin_local_as(c, vals, pre, BEGIN_MERGED);
}

int darray__xcall_begin_agreed(xcall_t *c, int rc, int bad,
                               const int64_t vals[4], int pre) {
  xfer_t *x = &c->x;
  int64_t *prev = darray__coll_into(&x->stats.collectives);
  if (rc == DARRAY_EINCONSISTENT)
    darray__xfer_call_differ(x, NULL, x->strategy, vals, bad, rc);
  rc = begun(c, darray__xfer_begin_fallback(x, NULL, pre, rc));
  darray__coll_into(prev);
  return rc;
}

int darray__xcall_section_local(xcall_t *c, int64_t vals[4]) {
  int rc = darray__xfer_section_checks(&c->x, &c->g, c->rc0);
  darray__xfer_call_vals(&c->x, &c->g, NULL, vals);
  return rc;
}

int darray__xcall_section_agreed(xcall_t *c, int rc, int bad,
                                 const int64_t vals[4]) {
  xfer_t *x = &c->x;
  if (rc == DARRAY_EINCONSISTENT)
    darray__xfer_call_differ(x, &c->g, NULL, vals, bad, rc);
  if (rc != DARRAY_SUCCESS) { /* ends here, agreed on everywhere */
    x->strategy = darray__strategies[0];
    x->failed_early = true;
  }
  return rc;
}

int darray__xcall_reprepare(xcall_t *c) {
  xfer_t *x = &c->x;
  const region_t *g = region_of(c);
  int64_t *prev = darray__coll_into(&x->stats.collectives);
  int rc = darray__xfer_begin_fallback(
      x, g, DARRAY_SUCCESS,
      darray__xfer_begin_with(x, g, x->strategy, DARRAY_SUCCESS));
  darray__coll_into(prev);
  return rc;
}

int darray__xcall_run(xcall_t *c) {
  int64_t *prev = darray__coll_into(&c->x.stats.collectives);
  int rc = c->x.strategy->run(&c->x);
  darray__coll_into(prev);
  return rc;
}

int darray__xcall_end_local(xcall_t *c, int rc, bool *agree) {
  xfer_t *x = &c->x;
  const strategy_t *s = x->strategy;
  if (s->finish != NULL)
    s->finish(x);
  free(x->boxes_owned);
  x->boxes_owned = NULL;
  x->boxes = NULL;
  darray__xfer_access_free(x);
  *agree = !x->failed_early; /* else: already agreed */
  if (*agree) {
    if (rc == DARRAY_SUCCESS) /* the first agreement failed here alone */
      rc = x->late;
    const char *cause = darray__io_call_cause(&x->io);
    if (rc != DARRAY_SUCCESS && x->msg[0] == '\0')
      darray__err(x->msg, rc, "%s (strategy %s, backend %s): %s%s%s",
                  darray__xcall_name(c), s->name, x->f->io.ops->name,
                  darray_strerror(rc), cause[0] ? ": " : "", cause);
  }
  return rc;
}

int darray__xcall_after(xcall_t *c, int rc) {
  int64_t *prev = darray__coll_into(&c->x.stats.collectives);
  rc = darray__format_after(c->x.f, c->member, &c->view, c->x.buf,
                            c->x.write, !c->section, &c->share, rc,
                            darray__xcall_name(c), c->x.msg);
  darray__coll_into(prev);
  c->x.crc = NULL;
  if (darray__xfer_verbose() && c->view.rank == 0)
    fprintf(stderr, "darrayio: call %lld on file %llu: %s: %s, %lld bytes, "
            "%.6f s, strategy %s\n", (long long)c->number,
            (unsigned long long)c->x.f->id, darray__xcall_name(c),
            rc == DARRAY_SUCCESS ? "done" : darray_err_name(rc),
            (long long)c->bytes, MPI_Wtime() - c->t0,
            c->x.strategy != NULL ? c->x.strategy->name : "none");
  return rc;
}

/*
 * The end's agreement (a folded call's only one: the begin's and the
 * end's in one). *done: whether the call succeeded as far as this process
 * can know: the agreed code, or, when the allreduce failed here alone, its
 * own code (the others have completed it and agreed: its own code is in
 * their answer), which then becomes DARRAY_EMPI (doc/reliability.md: the
 * one failure no protocol can agree on). A success proves the remembered
 * plan on every process alike, so the next call folds everywhere or
 * nowhere, even after that failure.
 */
static int agree_end(xcall_t *c, int rc, bool *done) {
  xfer_t *x = &c->x;
  int late = DARRAY_SUCCESS;
  int64_t *prev = darray__coll_into(&x->stats.collectives);
  if (x->folded) {
    rc = darray__xfer_agree_call(x, NULL, x->strategy, rc);
    late = x->late;
  } else {
    x->f->rounds++;
    rc = darray__agree_first(x->f->comm, rc, x->msg, NULL, 0, NULL, &late);
  }
  darray__coll_into(prev);
  *done = rc == DARRAY_SUCCESS;
  if (late != DARRAY_SUCCESS)
    rc = darray__err(x->msg, DARRAY_EMPI, "MPI_Allreduce failed while "
                     "agreeing on the result");
  return rc;
}

int darray__xcall_end(xcall_t *c, int rc) {
  bool agree, done = false;
  rc = darray__xcall_end_local(c, rc, &agree);
  if (agree)
    rc = agree_end(c, rc, &done);
  if (done && may_fold(c)) /* the next such call may fold */
    darray__plan_prove(c->x.f, c->x.a, c->x.write, c->x.strategy);
  return darray__xcall_after(c, rc);
}

/* The call's state goes into the file handle: its counters, and its
 * message, which the user reads with darray_file_errmsg(). */
void darray__xcall_fold(xcall_t *c, int rc) {
  darray_file_t f = c->x.f;
  darray__stats_fold(&f->stats, &c->x.stats);
  double t = (MPI_Wtime() - c->t0) * 1e9; /* from the call or the post */
  f->stats.call_ns += t > 0 ? (int64_t)t : 0;
  if (!c->x.failed_early) {
    f->stats.calls++;
    snprintf(f->stats.strategy, sizeof f->stats.strategy, "%s",
             c->x.strategy->name);
  }
  snprintf(f->errmsg, sizeof f->errmsg, "%s",
           rc != DARRAY_SUCCESS ? c->x.msg : "");
}
