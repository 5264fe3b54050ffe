/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * strategy.h - one read or write call (xfer_t), what it accesses
 * (access.c, in numbers: access.h), the ways of moving its bytes (the
 * table in strategies.c) and the planner that chooses among them
 * (plan.c).
 */
#ifndef DARRAYIO_STRATEGY_H
#define DARRAYIO_STRATEGY_H

#include "access.h"
#include "array.h"
#include "file.h"

/* Context of one read or write call on this process. */
typedef struct xfer {
  struct darray_file_s *f;
  const struct darray_s *a;
  char *buf;
  bool write;
  /* the call's own, folded into the file handle when it ends (so that
   * calls in flight on one file keep theirs apart): its message, its
   * counters and its use of the back end (the cause of a failure, locks) */
  char msg[DARRAY_ERRMSG_LEN];
  darray_stats_t stats;
  io_call_t io;
  void *state; /* the strategy's own, from prepare to finish */
  /* the access: this process's cells (the array's own, or the one box of a
   * section call, laid out densely in buf) */
  const section_t *sec;
  int nsec;
  section_t box_sec;    /* storage for a section call's own cell */
  const int64_t *boxes; /* section calls: every process's (start, count)
                           per dimension, 2*ndims values each (msec boxes
                           per process, rank after rank, when msec > 0);
                           else NULL */
  int msec; /* a merged access of msec section calls of one array
               (src/async/async_merge.c): every process has msec boxes, its
               own msec cells from msec buffers; 0: not */
  /* the request's own: what lives from the call's start to its end */
  const struct strategy *strategy; /* chosen by the plan */
  int64_t *boxes_owned;            /* storage behind boxes */
  access_t *access; /* the access in numbers, once asked for
                       (darray__xfer_access) */
  bool failed_early; /* setup failed and every process knows it */
  bool background; /* a request whose run must call no MPI (src/async:
                      below MPI_THREAD_MULTIPLE): collective strategies
                      are not candidates */
  int late; /* an agreement's allreduce failed here alone: DARRAY_EMPI,
               for the next agreement (darray__agree_first) */
  int64_t batch; /* a request's begin: in, how many requests queued behind
                    it could share its agreements (0: a blocking call);
                    out, the least of that over the processes (its
                    agreements carry it; src/async/async_batch.c) */
  /* a whole-array write of a dataset member whose CRC-32 is kept, or a
   * read whose CRC is checked (src/format), under a strategy whose entry
   * says crc_share: its run feeds this process's share of the CRC from the
   * bytes it writes, or has read (darray__xfer_crc, crc/crc_share.h);
   * a checked read under another strategy: the owners' runs, which the run
   * may have fed as they arrived (darray__xfer_crc_through); NULL
   * otherwise. The CRC room's (crc/crc.h): a strategy passes x to
   * crc_share.h's calls and never looks inside */
  struct crc_share *crc;
  /* a blocking whole-array call whose remembered plan is proven and whose
   * strategy moves no bytes between processes: its arguments are agreed
   * on with its result, in one round (call/xfer_call.c, fold) */
  bool folded;
  const char *entry; /* a request's entry point ("darray_iread", ...), for
                        messages; NULL: the blocking call's name */
  int64_t bufsize; /* the bytes the caller says buf holds (darray_xfer),
                      or DARRAY_UNSIZED */
  bool fortran; /* the caller's messages quote indices as Fortran does
                   (darray_set_index_style, taken when the call is made) */
} xfer_t;

/* The call's access in numbers (access.h), computed the first time it is
 * asked for and kept until darray__xfer_access_free: a whole-array call
 * whose plan the file remembers computes it only if its strategy's
 * preparation needs it. Fails only when out of memory. */
DARRAY_HIDDEN int darray__xfer_access(xfer_t *x, const access_t **acc);
DARRAY_HIDDEN void darray__xfer_access_free(xfer_t *x);
/* Visit the first DARRAY_SAMPLE_RUNS runs of rank r in file order (an
 * estimate's sample, access.h). Fails only when out of memory. */
DARRAY_HIDDEN int darray__xfer_sample_runs(
    const xfer_t *x, int r, void (*visit)(void *ctx, const layout_run_t *run),
    void *ctx);
/* Visit the first `limit` runs of rank r in file order (limit < 0: every
 * run). Fails only when out of memory. */
DARRAY_HIDDEN int darray__xfer_walk_runs(
    const xfer_t *x, int r, int64_t limit,
    void (*visit)(void *ctx, const layout_run_t *run), void *ctx);
/* The cells rank r accesses in this call (allocated; the caller frees).
 * Whole-array calls derive them from the distribution, section calls from
 * the gathered boxes; for the calling rank itself they are x->sec, with
 * its buffer's true layout (other ranks' memory offsets are not known and
 * must not be used). */
DARRAY_HIDDEN int darray__xfer_sections(const xfer_t *x, int r,
                                        section_t **sec, int *nsec);
/* Whether two (start, count) boxes of nd dimensions share an element. */
DARRAY_HIDDEN bool darray__boxes_meet(const int64_t *p, const int64_t *q,
                                      int nd);
/* An upper bound on how many processes' boxes cover any one element of a
 * section call (1 for whole-array calls). */
DARRAY_HIDDEN int darray__boxes_depth(const xfer_t *x);
/* The temporary buffer of an independent strategy (direct batches, sieve
 * windows) for a buffer-size hint: the hint in whole elements, at least
 * one, since runs strided in memory are copied element by element; under a
 * darray_temp_limit below one element, the hint itself: such a call has no
 * cell strided in memory (it is refused before the strategy prepares), and
 * pieces of contiguous runs are copied as bytes. */
DARRAY_HIDDEN int64_t darray__xfer_buffer_cap(const xfer_t *x, int64_t hint);
/* A dense box [start, start+count) of the global array, held in a buffer
 * of shape count in the given memory order. */
DARRAY_HIDDEN void darray__section_box(const struct darray_s *a,
                                       const int64_t start[],
                                       const int64_t count[],
                                       darray_order_t order, section_t *s);

/* On a striped file (striping_unit and striping_factor S given), the time
 * its servers need for work that would take sum_ns on one server (the file
 * calls and bytes of every process at the cost model's rates, spread
 * evenly over the servers): sum_ns / S; 0 when the striping is unknown. No
 * strategy's call is faster (tally.c; the estimates use it). */
DARRAY_HIDDEN double darray__servers_ns(const struct xfer *x, double sum_ns);

/* A strategy's estimate of a call: its time, or why it is not a
 * candidate. */
typedef struct estimate {
  double ns;     /* estimated time of the call, ns (when a candidate) */
  char why[200]; /* "" for a candidate; else why not, in words */
} estimate_t;

/* The cost model's rates (doc/planner.md, "The estimates"), as every
 * estimate reads them from the file's hints: one place, so that the
 * strategies cannot drift apart on what a byte or a call costs. */
typedef struct cost_rates {
  double bw;  /* ns per byte of a file call (darray_ds_bandwidth_mbs) */
  double xw;  /* ns per byte exchanged or copied in memory
                 (darray_cb_exchange_mbs) */
  double lat; /* ns per file call of the call's direction
                 (darray_ds_rd_latency_ns or darray_ds_wr_latency_ns) */
  double cyc; /* ns per synchronization (darray_cb_cycle_ns; 0 while not
                 known) */
} cost_rates_t;
static inline cost_rates_t darray__cost_rates(const struct xfer *x) {
  const darray_hints_t *h = &x->f->hints;
  cost_rates_t c = {
      .bw = 1000.0 / (double)h->ds_bandwidth_mbs,
      .xw = 1000.0 / (double)h->cb_exchange_mbs,
      .lat = (double)(x->write ? h->ds_wr_latency_ns : h->ds_rd_latency_ns),
      .cyc = h->cb_cycle_ns > 0 ? (double)h->cb_cycle_ns : 0};
  return c;
}
/* The largest process's bytes in the call (the exchange's and the
 * copies' slowest process). */
static inline int64_t darray__access_most(const access_t *acc) {
  int64_t most = 0;
  for (int r = 0; r < acc->P; r++)
    most = acc->rank[r].bytes > most ? acc->rank[r].bytes : most;
  return most;
}

/*
 * A way of moving the bytes, as the table (strategies.c) lists it:
 *  - name: what darray_strategy says and the statistics report;
 *  - collective: it moves bytes between processes (romio_cb_* govern it);
 *  - switches: the tri-state hints that turn it on and off, for reads
 *    ([0]) and writes ([1]), or NULL: the planner's rules (plan.c) read
 *    them, no strategy needs to;
 *  - estimate: the call's time under it (ns), from the call's access
 *    summary, computed with the same sizing its prepare uses, or why it is
 *    not a candidate (a short reason for darray_explain). Local, and the
 *    same on every process: it may use only what every process knows
 *    (acc, the description, the hints, other processes' runs in the file;
 *    not how a process's buffer is laid out). Fails only when out of
 *    memory;
 *  - prepare is local and runs before the call's argument agreement, so
 *    its failures (out of memory) are agreed on with the arguments; run
 *    may be collective and then must take part in every exchange even
 *    after a local failure; finish frees what prepare made. prepare and
 *    finish may be NULL;
 *  - tally: what run would count on every process (darray_plan_row_t:
 *    file calls and bytes, messages and bytes sent, cycles, ...), from
 *    the description alone with the sizing prepare uses, for a call on
 *    paper (darray_plan_virtual, src/paper); the counters it leaves at -1
 *    are not counted on paper. NULL: none is. Fails only when out of
 *    memory;
 *  - crc_share: on a whole-array write of a dataset member with a CRC,
 *    run feeds the CRC from the bytes this process writes (x->crc), where
 *    they are contiguous (two-phase's aggregators: their chunks), and on
 *    a whole-array read whose CRC is checked, from the bytes it read, as
 *    read; other strategies leave it to the owners' runs (src/format),
 *    which sieve and mapped feed window slice by window slice as they
 *    copy them out (darray__xfer_crc_through);
 *  - unmerged: not a candidate for a merged access (src/async/async_merge.c:
 *    B arrays' cells in one call), and refused there when a hint forces
 *    it;
 *  - close: frees the state run kept on the file across calls (group
 *    communicators, shared segments), at the file's close, on every
 *    process, in the table's order; NULL: it keeps none;
 *  - explain: one line of darray_explain about this call under it (its
 *    own words, e.g. two-phase's file domains), or "" for none; local.
 *    NULL: nothing to say. Fails only when out of memory.
 * Table lines use designated initializers; a slot left out is NULL or
 * false.
 */
typedef struct strategy {
  const char *name;
  bool collective;
  const char *switches[2];
  int (*estimate)(const xfer_t *x, const access_t *acc, estimate_t *e);
  int (*prepare)(xfer_t *x);
  int (*run)(xfer_t *x); /* the caller agrees on the result */
  void (*finish)(xfer_t *x);
  bool crc_share;
  int (*tally)(const xfer_t *x, const access_t *acc, darray_plan_row_t *row);
  bool unmerged;
  void (*close)(struct darray_file_s *f);
  int (*explain)(xfer_t *x, char *buf, size_t n);
} strategy_t;

/* Tallies of strategies in which each process moves its own runs and
 * nothing travels (direct runs, mapped pages; tally.c): start
 * zeroes the file counters and the aggregator load, own adds process k's
 * bytes and runs with `calls` file calls, end zeroes the exchange's. */
DARRAY_HIDDEN void darray__tally_own_start(darray_plan_row_t *row);
DARRAY_HIDDEN void darray__tally_own(darray_plan_row_t *row,
                                     const access_rank_t *k, int64_t calls);
DARRAY_HIDDEN void darray__tally_own_end(darray_plan_row_t *row);

/* Entries a table may have. */
#define DARRAY_MAX_STRATEGIES 8

/* Every strategy, NULL-terminated (strategies.c); entry 0 is direct runs,
 * which need the least memory: the planner's fallback. */
DARRAY_HIDDEN extern const strategy_t *const darray__strategies[];
/* The entry called name, or NULL. */
DARRAY_HIDDEN const strategy_t *darray__strategy_named(const char *name);

/* The planner's answer for a call, with every entry's estimate. */
typedef struct plan {
  const strategy_t *const *table; /* the entries estimated */
  int n;                          /* ... how many */
  estimate_t est[DARRAY_MAX_STRATEGIES];
  const strategy_t *s; /* the choice */
  bool forced;         /* by a hint (rule 1 in plan.c) */
  char why[512];       /* the reason, in words */
} plan_t;

/* The strategy a hint forces for this call (rule 1 in plan.c), or NULL:
 * then the planner chose, and a choice that cannot stay within
 * darray_temp_limit gives way to direct runs. */
DARRAY_HIDDEN const strategy_t *darray__plan_forced(const xfer_t *x);
/* Choose the strategy for a call: the same on every process, computed
 * without communication. Fails only when out of memory. */
DARRAY_HIDDEN int darray__plan_choose(xfer_t *x, const strategy_t **s);
/* darray__plan_choose, or for a whole-array call (whole) the file's
 * remembered decision for the array and operation (plan.c: why it holds),
 * remembering a new one. */
DARRAY_HIDDEN int darray__plan_call(xfer_t *x, bool whole,
                                    const strategy_t **s);
/* Remember s as the decision for a's whole-array calls of operation w
 * (1: write) on f. */
DARRAY_HIDDEN void darray__plan_keep(struct darray_file_s *f,
                                     const struct darray_s *a, int w,
                                     const strategy_t *s);
/* Whether the remembered decision for (a, w) is s and a blocking call
 * with it has succeeded since it was remembered (prove: it has; both
 * local, the same on every process). */
DARRAY_HIDDEN bool darray__plan_proven(struct darray_file_s *f,
                                       const struct darray_s *a, int w,
                                       const strategy_t *s);
DARRAY_HIDDEN void darray__plan_prove(struct darray_file_s *f,
                                      const struct darray_s *a, int w,
                                      const strategy_t *s);
/* The same decision, with every estimate and the reason in words. */
DARRAY_HIDDEN int darray__plan_explain(xfer_t *x, plan_t *p);
/* Every entry's estimate in words, in the table's order ("direct 1.234
 * us; twophase not a candidate: ..."; reasons hold no ';'), into buf (n
 * bytes, DARRAY_ESTIMATES_LEN holds them all); returns buf. */
#define DARRAY_ESTIMATES_LEN (DARRAY_MAX_STRATEGIES * 240)
DARRAY_HIDDEN const char *darray__plan_estimates(const plan_t *p, char *buf,
                                                 size_t n);
/* The decision among the entries of table (NULL-terminated, at most
 * DARRAY_MAX_STRATEGIES) for a call whose access is acc: the rules of
 * plan.c, for any table (the unit tests bring their own). */
DARRAY_HIDDEN int darray__plan_decide(const xfer_t *x,
                                      const strategy_t *const *table,
                                      const access_t *acc, plan_t *p);

/* What darray_explain says of a call, in numbers (explain.c): the lines
 * it prints are made from these, so a program (the tests) can check the
 * explanation's consistency without reading its sentences. */
typedef struct explain_facts {
  plan_t plan;      /* the planner's answer: "estimates:" and "strategy:" */
  bool conforming;  /* every process's data is one stretch per cell:
                       "conforms to the storage order" */
  bool interleaved; /* the processes' extents interleave */
} explain_facts_t;
/* The facts of a call of a on f (write: 1) that darray_explain(f, a,
 * write, ...) would print; local, and refusing what it refuses (out
 * aside). */
DARRAY_HIDDEN int darray__explain_facts(darray_file_t f, darray_t a,
                                        int write, explain_facts_t *e);

#endif /* DARRAYIO_STRATEGY_H */
