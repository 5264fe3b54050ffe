/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_xfer.c - the blocking collective read and write entry points, for
 * whole arrays and for sections, and the phases of a call (xfer.h) that
 * they and the nonblocking ones (async/async_api.c) run: validate, agree,
 * plan, dispatch.
 *
 * Every call ends with the same code on every process. Arguments, the
 * description, the displacement, the plan and the strategy's preparation
 * are agreed on in one collective before any byte moves, so a bad argument
 * anywhere means nothing is touched anywhere.
 */
#include "xfer.h"
#include "agree.h"
#include "async/async.h"
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

/* Elements of a section; checks the box lies inside the array. */
static int region_args(xfer_t *x, const region_t *g, int64_t *n) {
  const struct darray_s *a = x->a;
  *n = 0;
  if (g->start == NULL || g->count == NULL)
    return darray__err(x->msg, DARRAY_ENULL, "%s is NULL",
                       g->start == NULL ? "start" : "count");
  if (g->order != DARRAY_ORDER_C && g->order != DARRAY_ORDER_FORTRAN)
    return darray__err(x->msg, DARRAY_EORDER,
                       "order = %d: a section buffer is in C or Fortran "
                       "order", (int)g->order);
  int64_t elems = 1;
  for (int d = 0; d < a->d.ndims; d++) {
    if (g->start[d] < 0 || g->count[d] < 0 ||
        g->count[d] > a->d.gsizes[d] - g->start[d])
      return darray__err(x->msg, DARRAY_EINDEX,
                         "start[%d] = %lld, count[%d] = %lld: not inside "
                         "[0, %lld)", d, (long long)g->start[d], d,
                         (long long)g->count[d], (long long)a->d.gsizes[d]);
    elems *= g->count[d];
  }
  *n = elems;
  return DARRAY_SUCCESS;
}

/* Gather every process's box (collective; called by every process once
 * all have agreed that their arguments are good); writes must not
 * overlap. */
static int gather_boxes(xfer_t *x, const region_t *g, int64_t *all) {
  const struct darray_s *a = x->a;
  int nd = a->d.ndims, P = a->d.nprocs;
  int64_t mine[2 * DARRAY_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    mine[d] = g->start[d];
    mine[nd + d] = g->count[d];
  }
  MPI_Request req;
  if (MPI_Iallgather(mine, 2 * nd, MPI_INT64_T, all, 2 * nd, MPI_INT64_T,
                     x->f->comm, &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return darray__err(x->msg, DARRAY_EMPI, "MPI_Allgather failed");
  for (int i = 0; x->write && i < P; i++)
    for (int j = i + 1; j < P; j++)
      if (darray__boxes_meet(all + 2 * nd * i, all + 2 * nd * j, nd))
        return darray__err(x->msg, DARRAY_EOVERLAP,
                           "darray_write_section: the sections of ranks %d "
                           "and %d overlap", i, j);
  return DARRAY_SUCCESS;
}

static const char *call_name(const xfer_t *x, const region_t *g) {
  static const char *const names[2][2] = {
      {"darray_read", "darray_read_section"},
      {"darray_write", "darray_write_section"}};
  return x->entry != NULL ? x->entry : names[x->write][g != NULL];
}

/* The agreement of a call: on the outcome so far (rc), and that every
 * process makes the same call (operation, whole array or section), on the
 * same array description, at the same displacement, with the same
 * strategy (s; NULL for a section call's first agreement, before the
 * plan). Both agreements of every call have this shape, so that processes
 * that make different calls still meet in matching collectives and learn
 * it (a read matched with a write, a section with a whole array); a
 * disagreement names the argument and two processes' values of it.
 */
static int agree_call(xfer_t *x, const region_t *g, const strategy_t *s,
                      int rc) {
  int kind = (x->write ? 0 : 1) + (g != NULL ? 2 : 0);
  int64_t vals[4] = {kind, x->a->desc_hash, x->a->d.disp,
                     s ? (int64_t)darray__hash(0, s->name, strlen(s->name))
                       : 0};
  int bad = -1;
  rc = darray__agree_first(x->f->comm, rc, x->msg, vals, 4, &bad, &x->late);
  if (rc != DARRAY_EINCONSISTENT)
    return rc;
  static const char *const what[] = {"calls", "array descriptions",
                                     "displacements", "strategies (hints)"};
  char text[200];
  if (bad == 0)
    snprintf(text, sizeof text, "%s", call_name(x, g));
  else if (bad == 1)
    darray__desc_text(&x->a->d, text, sizeof text);
  else if (bad == 2)
    snprintf(text, sizeof text, "%lld", (long long)x->a->d.disp);
  else
    snprintf(text, sizeof text, "%s", s ? s->name : "(none)");
  darray__err(x->msg, rc, "%s: processes %s different %s", call_name(x, g),
              bad == 0 ? "made" : "passed", what[bad]);
  darray__agree_differ(x->f->comm, vals[bad], text, x->msg, sizeof x->msg);
  return rc;
}

/* Set up x's access: the array's cells, or this process's box. */
static int access_of(xfer_t *x, const region_t *g, int rc, bool *agreed) {
  if (g == NULL) {
    x->sec = x->a->sec;
    x->nsec = x->a->nsec;
    if (rc == DARRAY_SUCCESS && x->buf == NULL && x->a->local_count > 0)
      rc = darray__err(x->msg, DARRAY_ENULL,
                       "buf is NULL but this process owns %lld elements",
                       (long long)x->a->local_count);
    return rc;
  }
  int64_t n = 0;
  if (rc == DARRAY_SUCCESS)
    rc = region_args(x, g, &n);
  if (rc == DARRAY_SUCCESS && x->buf == NULL && n > 0)
    rc = darray__err(x->msg, DARRAY_ENULL,
                     "buf is NULL but the section has %lld elements",
                     (long long)n);
  size_t nb = 2 * (size_t)x->a->d.ndims * (size_t)x->a->d.nprocs;
  if (rc == DARRAY_SUCCESS &&
      (x->boxes_owned = malloc(sizeof *x->boxes_owned * nb)) == NULL)
    rc = darray__err(x->msg, DARRAY_ENOMEM, "out of memory");
  rc = agree_call(x, g, NULL, rc); /* before the gather */
  *agreed = rc != DARRAY_SUCCESS; /* every process knows it */
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__section_box(x->a, g->start, g->count, g->order, &x->box_sec);
  x->sec = &x->box_sec;
  x->nsec = 1;
  x->boxes = x->boxes_owned;
  return gather_boxes(x, g, x->boxes_owned);
}

/* DARRAYIO_VERBOSE=1: rank 0 says what each call does and why. */
static bool verbose(void) {
  const char *v = getenv("DARRAYIO_VERBOSE");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static int say_plan(xfer_t *x, const region_t *g,
                    const strategy_t **s) {
  plan_t p;
  char est[DARRAY_ESTIMATES_LEN];
  int rc = darray__plan_explain(x, &p);
  *s = p.s;
  if (rc == DARRAY_SUCCESS && x->a->rank == 0)
    fprintf(stderr, "darrayio: %s: strategy %s, back end %s: %s; estimates: "
            "%s\n", call_name(x, g), p.s->name, x->f->io.ops->name, p.why,
            darray__plan_estimates(&p, est, sizeof est));
  return rc;
}

/* The planner's decision, remembered for whole-array calls: it walks a
 * sample of runs of up to 8 processes (10-20 % of a 0.5 MiB read at 4
 * processes, BTIO class W), and its answer depends only on the committed
 * array, the operation and the hints, not on the displacement (BTIO: one
 * per dump): its terms are differences of file offsets, except on a
 * striped file, where the first call's displacement decides (on every
 * process; each call places its domains on the stripes itself). */
#define DARRAY_PLAN_MEMO 4 /* arrays remembered per file and operation */

/* The file's remembered decision for array a, or NULL. */
static const strategy_t **memo_of(darray_file_t f, const struct darray_s *a,
                                  int w) {
  for (int k = 0; k < DARRAY_PLAN_MEMO; k++)
    if (f->plan_memo[w][k].array == a->id)
      return &f->plan_memo[w][k].s;
  return NULL;
}

/* Remember a decision, replacing the oldest entry. */
static void memo_keep(darray_file_t f, const struct darray_s *a, int w,
                      const strategy_t *s) {
  const strategy_t **m = memo_of(f, a, w);
  if (m == NULL) {
    int k = f->memo_next[w];
    f->memo_next[w] = (k + 1) % DARRAY_PLAN_MEMO;
    f->plan_memo[w][k].array = a->id;
    m = &f->plan_memo[w][k].s;
  }
  *m = s;
}

static int plan(xfer_t *x, const region_t *g, const strategy_t **s) {
  int w = x->write;
  /* background requests plan apart (plan.c, rule 3) */
  bool memo = g == NULL && !x->background;
  const strategy_t **m = memo ? memo_of(x->f, x->a, w) : NULL;
  if (m != NULL) {
    *s = *m;
    return DARRAY_SUCCESS;
  }
  int rc = darray__plan_choose(x, s);
  if (rc == DARRAY_SUCCESS && memo)
    memo_keep(x->f, x->a, w, *s);
  return rc;
}

/* Refuse a call that darray_temp_limit cannot hold in any strategy: one
 * whose limit is below one element while a cell of this process is
 * strided in memory, since every strategy copies such runs through a
 * buffer of whole elements. Local; agreed on with the arguments. */
static int temp_check(xfer_t *x) {
  int64_t lim = x->f->hints.temp_limit, es = x->a->d.esize;
  if (lim <= 0 || es <= lim)
    return DARRAY_SUCCESS;
  for (int c = 0; c < x->nsec; c++)
    if (!darray__layout_mem_contig(&x->a->d, &x->sec[c]))
      return darray__err(x->msg, DARRAY_ELIMIT,
                         "darray_temp_limit = %lld bytes is less than the "
                         "%lld bytes this call needs: one element, to copy "
                         "cell %d, which is strided in memory",
                         (long long)lim, (long long)es, c);
  return DARRAY_SUCCESS;
}

int64_t darray__xfer_buffer_cap(const xfer_t *x, int64_t hint) {
  int64_t es = x->a->d.esize, lim = x->f->hints.temp_limit;
  if (hint >= es)
    return hint / es * es;
  return lim > 0 && lim < es ? hint : es;
}

/* Prepare strategy s and agree, before any byte moves, on the outcome
 * (rc: this process's result so far), the call, the description, the
 * displacement and the strategy. */
static int begin_with(xfer_t *x, const region_t *g, const strategy_t *s,
                      int rc) {
  if (x->strategy != NULL && x->strategy->finish != NULL)
    x->strategy->finish(x); /* an earlier attempt's state */
  x->strategy = s;
  if (rc == DARRAY_SUCCESS)
    rc = temp_check(x);
  if (rc == DARRAY_SUCCESS && s->prepare != NULL) {
    rc = s->prepare(x);
    if (rc != DARRAY_SUCCESS && x->msg[0] == '\0')
      darray__err(x->msg, rc, "%s (strategy %s): preparing: %s",
                  call_name(x, g), s->name, darray_strerror(rc));
  }
  if (rc == DARRAY_SUCCESS) /* an earlier agreement failed here alone */
    rc = x->late;
  x->late = DARRAY_SUCCESS;
  return agree_call(x, g, s, rc);
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
  const strategy_t *s = darray__strategies[0], *fallback = s;
  int rc = rc0; /* the local checks (setup) */
  bool agreed = false;
  rc = access_of(x, g, rc, &agreed);
  if (agreed) { /* a section call's first agreement failed: a process
                   that made another call (a whole array) agrees once */
    x->strategy = s;
    x->failed_early = true;
    return rc;
  }
  if (rc == DARRAY_SUCCESS)
    rc = verbose() ? say_plan(x, g, &s) : plan(x, g, &s);
  int pre = rc; /* this process's failure before any strategy */
  rc = begin_with(x, g, s, rc);
  if (rc == DARRAY_ELIMIT && darray__plan_forced(x) == NULL) {
    /* the planner's choice needs more memory than darray_temp_limit
     * allows (or larger MPI counts than exist); direct runs (the table's
     * first entry) need at most one element of buffer, none for cells
     * contiguous in memory. Every process comes here (the code and the
     * hints are agreed on), also one whose own failure came before the
     * plan (its strategy is not the others'): it agrees again on that
     * failure, with its message. */
    const struct darray_s *a = x->a;
    if (verbose() && a->rank == 0 && pre == DARRAY_SUCCESS)
      fprintf(stderr, "darrayio: %s: strategy %s instead of %s: %s\n",
              call_name(x, g), fallback->name, s->name, x->msg);
    bool same = s == fallback;
    s = fallback;
    if (pre == DARRAY_SUCCESS)
      x->msg[0] = '\0';
    rc = begin_with(x, g, s, pre);
    if (rc == DARRAY_SUCCESS && g == NULL && !x->background && !same)
      memo_keep(x->f, a, x->write, s); /* the same refusal every time */
  }
  x->failed_early = rc != DARRAY_SUCCESS;
  return rc;
}

static const region_t *region_of(const xcall_t *c) {
  return c->section ? &c->g : NULL;
}

const char *darray__xcall_name(const xcall_t *c) {
  return call_name(&c->x, region_of(c));
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

int darray__xcall_begin(xcall_t *c) {
  int rc = xfer_begin(&c->x, region_of(c), c->rc0);
  if (rc == DARRAY_SUCCESS)
    darray__format_begin(c->x.f, c->member, &c->x, !c->section, c->blocking,
                         &c->share);
  if (rc == DARRAY_SUCCESS && verbose())
    c->bytes = call_bytes(c);
  return rc;
}

int darray__xcall_run(xcall_t *c) { return c->x.strategy->run(&c->x); }

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
  rc = darray__format_after(c->x.f, c->member, &c->view, c->x.buf,
                            c->x.write, !c->section, &c->share, rc,
                            c->x.msg);
  c->x.crc = NULL;
  if (verbose() && c->view.rank == 0)
    fprintf(stderr, "darrayio: call %lld on file %llu: %s: %s, %lld bytes, "
            "%.6f s, strategy %s\n", (long long)c->number,
            (unsigned long long)c->x.f->id, darray__xcall_name(c),
            rc == DARRAY_SUCCESS ? "done" : darray_err_name(rc),
            (long long)c->bytes, MPI_Wtime() - c->t0,
            c->x.strategy != NULL ? c->x.strategy->name : "none");
  return rc;
}

int darray__xcall_end(xcall_t *c, int rc) {
  bool agree;
  rc = darray__xcall_end_local(c, rc, &agree);
  if (agree)
    rc = darray__agree(c->x.f->comm, rc, c->x.msg);
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

static int xfer(darray_file_t f, darray_t a, void *buf, bool write,
                const region_t *g) {
  xcall_t c;
  int rc = darray__xcall_setup(&c, f, a, buf, write, g);
  if (rc != DARRAY_SUCCESS)
    return rc;
  c.blocking = true;
  darray__async_idle(f); /* after the requests posted before it */
  rc = darray__xcall_begin(&c);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_run(&c);
  rc = darray__xcall_end(&c, rc);
  darray__xcall_fold(&c, rc);
  return rc;
}
int darray_write(darray_file_t f, darray_t a, const void *buf) {
  return xfer(f, a, (void *)buf, true, NULL);
}

int darray_read(darray_file_t f, darray_t a, void *buf) {
  return xfer(f, a, buf, false, NULL);
}

int darray_write_section(darray_file_t f, darray_t a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         const void *buf) {
  region_t g = {start, count, order};
  return xfer(f, a, (void *)buf, true, &g);
}

int darray_read_section(darray_file_t f, darray_t a, const int64_t start[],
                        const int64_t count[], darray_order_t order,
                        void *buf) {
  region_t g = {start, count, order};
  return xfer(f, a, buf, false, &g);
}
