/*
 * plan.c - choose how a call moves its bytes.
 *
 * Every process computes the same answer from the description and the
 * hints alone (any process can compute any other's pattern), so no
 * communication is needed to agree on it.
 *
 * The rule:
 *  1. hints that force a strategy win: darray_strategy = direct, twophase
 *     or sieve; romio_cb_read / romio_cb_write = enable;
 *  2. when the file extents of different processes interleave (and
 *     collective buffering is not disabled), two-phase collective I/O,
 *     which lets a few processes access large contiguous pieces, unless
 *     the cost model (estimate() below) says direct runs take less time
 *     (few long runs against the exchange) or, for reads, sieving does
 *     (synchronization is dear: more processes than cores);
 *  3. otherwise each process accesses its own runs: data sieving when
 *     romio_ds_read / romio_ds_write = enable, direct runs when = disable;
 *     when automatic, and the extents do not interleave, sieving if the
 *     cost model (doc/sieving.md) says it saves time for some process,
 *     whose runs then have holes between them that no other process
 *     accesses (a section call); direct runs otherwise. Interleaved access
 *     with collective buffering disabled keeps direct runs unless sieving
 *     is enabled: its holes are other processes' data, and sieving them
 *     means locked read-modify-writes.
 */
#include "strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The cost model over one process's whole extent, assuming its holes are
 * spread evenly (ns): sieving makes one call per buffer load and moves the
 * extent (writes with holes: lock, read and write it), direct I/O one call
 * per run moving the data. The strategy itself decides again per window.
 */
static bool sieve_pays(const xfer_t *x, const access_rank_t *r) {
  const darray_hints_t *h = &x->f->hints;
  int64_t ext = r->hi - r->lo, holes = ext - r->bytes;
  if (ext <= 0 || holes <= 0 || r->nruns < 2)
    return false;
  double bw = 1000.0 / (double)h->ds_bandwidth_mbs; /* ns per byte */
  double lr = (double)h->ds_rd_latency_ns, lw = (double)h->ds_wr_latency_ns;
  int64_t cap = x->write ? h->ind_wr_buffer_size : h->ind_rd_buffer_size;
  /* ceil(ext / cap); ext + cap - 1 may pass INT64_MAX */
  double loads = (double)(ext / cap + (ext % cap != 0));
  if (!x->write)
    return loads * lr + (double)ext * bw <
           (double)r->nruns * lr + (double)r->bytes * bw;
  if (!x->f->io.rmw)
    return false; /* no read-modify-write on this file (io_lock.c) */
  return loads * (3 * lr + lw) + 2 * (double)ext * bw <
         (double)r->nruns * lw + (double)r->bytes * bw;
}

/* The whole part of q >= 0. q reaches 2^63 (an extent near INT64_MAX in
 * chunks of cb_buffer_size = 1), which no int64_t holds; from 2^53 on
 * every double is whole already. */
static double whole(double q) { return q < 0x1p53 ? (double)(int64_t)q : q; }

/*
 * Interleaved access: the call's time under two-phase, under direct runs
 * and, for reads, under sieving (ns), from the same numbers on every
 * process, with the sieving model's latencies and bandwidth (bw, ns per
 * byte) plus an exchange rate (darray_cb_exchange_mbs, each byte counted
 * when sent and when received) and a synchronization cost per cycle
 * (darray_cb_cycle_ns, measured when the file opens):
 *  - direct: the slowest process, one call per run plus its bytes;
 *  - two-phase: an aggregator's share of the union's span in chunks of
 *    cb_buffer_size, each a call and a cycle, plus the exchange of every
 *    process's data that lives in other domains;
 *  - sieving (reads): the slowest process, one call per window plus the
 *    windows' bytes, holes included (darray__sieve_read_cost). In
 *    interleaved access the windows cover the other processes' data, so
 *    sieving loses while synchronizing is cheap, and wins where it is dear
 *    (more processes than cores: no process waits for another).
 * Sieved writes are not candidates: their holes are other processes' data,
 * so every window would be a locked read-modify-write.
 */
typedef struct costs {
  double direct, twophase, sieve; /* sieve < 0: not a candidate */
} costs_t;

static void estimate(const xfer_t *x, const access_rank_t *rr, costs_t *c) {
  const darray_hints_t *h = &x->f->hints;
  int P = x->a->d.nprocs;
  double bw = 1000.0 / (double)h->ds_bandwidth_mbs;
  double xw = 1000.0 / (double)h->cb_exchange_mbs;
  double lat = (double)(x->write ? h->ds_wr_latency_ns : h->ds_rd_latency_ns);
  int A = h->cb_nodes > 0 && h->cb_nodes < P ? (int)h->cb_nodes : P;
  int64_t lo = 0, hi = 0, most = 0;
  bool any = false;
  *c = (costs_t){0, 0, -1};
  for (int r = 0; r < P; r++) {
    double d = (double)rr[r].nruns * lat + (double)rr[r].bytes * bw;
    c->direct = d > c->direct ? d : c->direct;
    most = rr[r].bytes > most ? rr[r].bytes : most;
    if (rr[r].hi > rr[r].lo) {
      lo = any && lo < rr[r].lo ? lo : rr[r].lo;
      hi = any && hi > rr[r].hi ? hi : rr[r].hi;
      any = true;
    }
  }
  double share = (double)(hi - lo) / A;
  double chunks = whole(share / (double)h->cb_buffer_size) + 1;
  c->twophase = share * bw + chunks * (lat + (double)h->cb_cycle_ns) +
                2.0 * (double)most * (P - 1) / P * xw;
}

/* Processes whose sieved reads are estimated (the slowest counts): all of
 * them up to SIEVE_RANKS, else SIEVE_RANKS spread evenly, SIEVE_SAMPLE runs
 * each: the planner runs on every call, and walking 16384 runs cost 0.2 ms
 * per call, 10 % of a 8 MiB DIST3D read at 2 processes; 256 runs hold
 * several periods of the patterns measured (BTIO class C: 81 runs). */
#define SIEVE_RANKS 8
#define SIEVE_SAMPLE 256

static int estimate_sieve(const xfer_t *x, const access_rank_t *rr,
                          costs_t *c) {
  int P = x->a->d.nprocs, n = P < SIEVE_RANKS ? P : SIEVE_RANKS;
  c->sieve = 0;
  for (int i = 0; i < n; i++) {
    int r = (int)((int64_t)i * P / n);
    section_t *sec;
    int nsec;
    double t;
    if (darray__xfer_sections(x, r, &sec, &nsec) != DARRAY_SUCCESS)
      return DARRAY_ENOMEM;
    int rc = darray__sieve_read_cost(x, sec, nsec, rr[r].bytes,
                                     SIEVE_SAMPLE, &t);
    free(sec);
    if (rc != DARRAY_SUCCESS)
      return rc;
    c->sieve = t > c->sieve ? t : c->sieve;
  }
  return DARRAY_SUCCESS;
}

/* The decision and, when why is not NULL, the reason in words. */
typedef struct decision {
  const strategy_t **s;
  char *why;
  size_t n;
} decision_t;

static int decide(decision_t *d, const strategy_t *s, const char *reason) {
  *d->s = s;
  if (d->why != NULL)
    snprintf(d->why, d->n, "%s", reason);
  return DARRAY_SUCCESS;
}

/* Interleaved access, two-phase possible: the cheapest estimate; ties go
 * to two-phase, then to direct runs. */
static int decide_interleaved(decision_t *d, const costs_t *c) {
  char why[600], sv[64] = "";
  const strategy_t *s = &darray__strategy_twophase;
  double best = c->twophase;
  if (c->direct < best)
    s = &darray__strategy_direct, best = c->direct;
  if (c->sieve >= 0 && c->sieve < best)
    s = &darray__strategy_sieve, best = c->sieve;
  if (c->sieve >= 0)
    snprintf(sv, sizeof sv, ", with sieving %.3f us", c->sieve / 1e3);
  snprintf(why, sizeof why,
           "the file extents of different processes interleave; estimated "
           "time with two-phase %.3f us, with direct runs %.3f us%s (cost "
           "model: darray_ds_*_latency_ns, darray_ds_bandwidth_mbs, "
           "darray_cb_exchange_mbs, darray_cb_cycle_ns)",
           c->twophase / 1e3, c->direct / 1e3, sv);
  return decide(d, s, why);
}

/* Hints that settle the question alone; returns true if they did. */
static bool forced(const xfer_t *x, decision_t *d, int cb, int ds,
                   bool cb_possible) {
  const darray_hints_t *h = &x->f->hints;
  if (h->strategy == DARRAY_STRATEGY_DIRECT)
    return !decide(d, &darray__strategy_direct, "darray_strategy=direct");
  if (h->strategy == DARRAY_STRATEGY_TWOPHASE)
    return !decide(d, &darray__strategy_twophase, "darray_strategy=twophase");
  if (cb == DARRAY_TRI_ENABLE)
    return !decide(d, &darray__strategy_twophase,
                   x->write ? "romio_cb_write=enable" : "romio_cb_read=enable");
  if (h->strategy == DARRAY_STRATEGY_SIEVE)
    return !decide(d, &darray__strategy_sieve, "darray_strategy=sieve");
  if (!cb_possible && ds == DARRAY_TRI_ENABLE)
    return !decide(d, &darray__strategy_sieve,
                   "data sieving is enabled (romio_ds_*=enable) and two-phase "
                   "is not possible");
  if (!cb_possible && ds == DARRAY_TRI_DISABLE)
    return !decide(d, &darray__strategy_direct,
                   "two-phase is not possible and data sieving is disabled");
  return false;
}

static int plan(xfer_t *x, decision_t *d) {
  const darray_hints_t *h = &x->f->hints;
  const struct darray_s *a = x->a;
  int cb = x->write ? h->cb_write : h->cb_read;
  int ds = x->write ? h->ds_write : h->ds_read;
  bool cb_possible = cb != DARRAY_TRI_DISABLE && a->d.nprocs > 1;
  *d->s = &darray__strategy_direct;
  if (forced(x, d, cb, ds, cb_possible))
    return DARRAY_SUCCESS;
  const access_t *acc;
  int rc = darray__xfer_access(x, &acc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  const access_rank_t *rr = acc->rank;
  bool sieve = ds == DARRAY_TRI_ENABLE;
  for (int r = 0; rc == DARRAY_SUCCESS && ds == DARRAY_TRI_AUTO &&
                  r < a->d.nprocs && !sieve;
       r++)
    sieve = sieve_pays(x, &rr[r]);
  costs_t c = {0, 0, -1};
  if (rc == DARRAY_SUCCESS)
    estimate(x, rr, &c);
  bool inter = acc->interleaved;
  if (rc == DARRAY_SUCCESS && inter && cb_possible && !x->write &&
      ds != DARRAY_TRI_DISABLE)
    rc = estimate_sieve(x, rr, &c);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (inter && cb_possible)
    return decide_interleaved(d, &c);
  if (sieve && (ds == DARRAY_TRI_ENABLE || !inter))
    return decide(d, &darray__strategy_sieve,
                  "each process's runs have small holes between them: "
                  "reading through the holes costs less than one call per "
                  "run (cost model, doc/sieving.md)");
  return decide(d, &darray__strategy_direct,
                inter ? "the extents interleave but two-phase is disabled"
                      : "the processes' extents do not interleave and "
                        "sieving would not pay: each process moves its own "
                        "runs, with no communication");
}

int darray__plan_choose(xfer_t *x, const strategy_t **s) {
  decision_t d = {s, NULL, 0};
  return plan(x, &d);
}

int darray__plan_explain(xfer_t *x, const strategy_t **s, char *why,
                         size_t n) {
  decision_t d = {s, why, n};
  return plan(x, &d);
}
