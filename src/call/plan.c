/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * plan.c - choose how a call moves its bytes, from the strategies' own
 * estimates (the table is in strategies.c).
 *
 * Every process computes the same answer from the description and the
 * hints alone (any process can compute any other's pattern), so no
 * communication is needed to agree on it. Nothing here knows how a
 * strategy works: each one estimates the call's time from the call's
 * access summary (access.h) with the sizing its preparation uses, or says
 * why it is not a candidate.
 *
 * The rule:
 *  1. hints that force a strategy win: the first entry of the table that
 *     darray_strategy names or, for a collective strategy, whose switch
 *     (romio_cb_read / romio_cb_write) is `enable`; so
 *     darray_strategy=direct wins over romio_cb_*=enable, which wins over
 *     darray_strategy=sieve;
 *  2. every other entry gives its estimate or why it is not a candidate
 *     (two-phase where the extents do not interleave, sieved writes where
 *     they do, ...); an entry whose switch is `disable` is none;
 *  3. when no collective strategy is a candidate, an independent one whose
 *     switch is `enable` wins whatever its estimate (romio_ds_*=enable:
 *     sieving, unless two-phase competes); and where the extents
 *     interleave, the entries whose switch is left automatic are then not
 *     candidates either: collective buffering is off and sieving was not
 *     asked for, so each process moves its own runs rather than windows
 *     full of other processes' data;
 *     A request that runs in the background below MPI_THREAD_MULTIPLE
 *     (src/async) has no collective candidate and keeps its independent
 *     ones: its transfer must call no MPI, and sieving may save file calls;
 *  4. the cheapest estimate wins. Ties go to the later entry of the table:
 *     each entry after direct runs exists to save file calls, so at an
 *     equal estimate it asks less of the file system (two-phase over
 *     direct runs; sieving over direct runs where it saves time on some
 *     processes but not on the slowest, whose time is the call's; and
 *     two-phase over rows, which where its one group is every process is
 *     two-phase with every process an aggregator).
 */
#include "strategy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void say(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void say(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, n, fmt, ap);
  va_end(ap);
}

/* The state of an entry's switch for this call (DARRAY_TRI_*) and the
 * switch's name (NULL: it has none, and is always automatic). */
static int switch_of(const xfer_t *x, const strategy_t *s, const char **key) {
  *key = s->switches[x->write];
  int v = *key != NULL ? darray__hints_enum(&x->f->hints, *key) : -1;
  return v < 0 ? DARRAY_TRI_AUTO : v;
}

/* Rule 1. */
static const strategy_t *forced(const xfer_t *x, const strategy_t *const *t,
                                char *why, size_t n) {
  for (int i = 0; t[i] != NULL; i++) {
    const char *key;
    if (x->f->hints.strategy == i + 1) {
      say(why, n, "darray_strategy=%s", t[i]->name);
      return t[i];
    }
    if (t[i]->collective && switch_of(x, t[i], &key) == DARRAY_TRI_ENABLE) {
      say(why, n, "%s=enable", key);
      return t[i];
    }
  }
  return NULL;
}

const strategy_t *darray__plan_forced(const xfer_t *x) {
  char why[8];
  return forced(x, darray__strategies, why, sizeof why);
}

/* Rule 2: every entry's estimate; returns whether a collective strategy
 * is a candidate. */
static int estimate_all(const xfer_t *x, const access_t *acc, plan_t *p,
                        bool *collective) {
  *collective = false;
  for (int i = 0; i < p->n; i++) {
    const strategy_t *s = p->table[i];
    estimate_t *e = &p->est[i];
    const char *key;
    *e = (estimate_t){0, ""};
    if (switch_of(x, s, &key) == DARRAY_TRI_DISABLE) {
      say(e->why, sizeof e->why, "%s=disable", key);
      continue;
    }
    if (x->background && s->collective) {
      say(e->why, sizeof e->why, "a nonblocking call below "
          "MPI_THREAD_MULTIPLE: it would exchange data from the program's "
          "thread, when posted, with no overlap");
      continue;
    }
    int rc = s->estimate(x, acc, e);
    if (rc != DARRAY_SUCCESS)
      return rc;
    *collective |= s->collective && e->why[0] == '\0';
  }
  return DARRAY_SUCCESS;
}

/* Rule 3, once no collective strategy is a candidate: the independent
 * entry switched on, or NULL; where the extents interleave, the entries
 * left automatic drop out. */
static const strategy_t *switched_on(const xfer_t *x, const access_t *acc,
                                     plan_t *p, const char **on) {
  const strategy_t *pick = NULL;
  for (int i = 0; i < p->n; i++) {
    const char *key;
    int sw = switch_of(x, p->table[i], &key);
    estimate_t *e = &p->est[i];
    if (sw == DARRAY_TRI_ENABLE && pick == NULL)
      pick = p->table[i], *on = key;
    else if (key != NULL && sw == DARRAY_TRI_AUTO && acc->interleaved &&
             e->why[0] == '\0' && !x->background)
      say(e->why, sizeof e->why,
          "the extents interleave and no collective strategy is a "
          "candidate: each process moves its own runs unless %s=enable",
          key);
  }
  return pick;
}

/* Rule 4: the cheapest candidate, ties to the later entry; the first
 * entry when none is a candidate. */
static int cheapest(const plan_t *p, int *count) {
  int best = -1;
  *count = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->est[i].why[0] != '\0')
      continue;
    (*count)++;
    if (best < 0 || p->est[i].ns <= p->est[best].ns)
      best = i;
  }
  return best < 0 ? 0 : best;
}

static void why_cheapest(const access_t *acc, bool collective, plan_t *p,
                         int best, int count) {
  const char *where =
      !acc->interleaved ? "the processes' extents do not interleave"
      : collective      ? "the file extents of different processes "
                          "interleave"
                        : "the file extents of different processes "
                          "interleave but no collective strategy is a "
                          "candidate";
  char what[96];
  if (count > 1)
    say(what, sizeof what, "its estimate, %.3f us, is the lowest",
        p->est[best].ns / 1e3);
  else
    say(what, sizeof what, "%s", count ? "it is the only candidate"
                                       : "no strategy is a candidate");
  say(p->why, sizeof p->why,
      "%s; %s (cost model: darray_ds_*_latency_ns, darray_ds_bandwidth_mbs, "
      "darray_cb_exchange_mbs, darray_cb_cycle_ns)",
      where, what);
}

int darray__plan_decide(const xfer_t *x, const strategy_t *const *table,
                        const access_t *acc, plan_t *p) {
  memset(p, 0, sizeof *p);
  p->table = table;
  p->s = table[0]; /* until decided */
  while (p->n < DARRAY_MAX_STRATEGIES && table[p->n] != NULL)
    p->n++;
  bool collective;
  int rc = estimate_all(x, acc, p, &collective);
  if (rc != DARRAY_SUCCESS)
    return rc;
  const char *on = NULL;
  const strategy_t *enabled =
      collective ? NULL : switched_on(x, acc, p, &on);
  p->s = forced(x, table, p->why, sizeof p->why);
  p->forced = p->s != NULL;
  if (p->forced)
    return DARRAY_SUCCESS;
  if (enabled != NULL) {
    p->s = enabled;
    say(p->why, sizeof p->why,
        "%s=enable and no collective strategy is a candidate", on);
    return DARRAY_SUCCESS;
  }
  int count, best = cheapest(p, &count);
  p->s = table[best];
  why_cheapest(acc, collective, p, best, count);
  return DARRAY_SUCCESS;
}

int darray__plan_choose(xfer_t *x, const strategy_t **s) {
  *s = darray__plan_forced(x);
  if (*s != NULL)
    return DARRAY_SUCCESS; /* no summary needed */
  plan_t p;
  int rc = darray__plan_explain(x, &p);
  *s = p.s;
  return rc;
}

int darray__plan_explain(xfer_t *x, plan_t *p) {
  const access_t *acc;
  memset(p, 0, sizeof *p);
  p->s = darray__strategies[0]; /* on failure too */
  int rc = darray__xfer_access(x, &acc);
  if (rc == DARRAY_SUCCESS)
    rc = darray__plan_decide(x, darray__strategies, acc, p);
  return rc;
}

const char *darray__plan_estimates(const plan_t *p, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < p->n && at < n; i++) {
    const estimate_t *e = &p->est[i];
    int k = e->why[0] != '\0'
                ? snprintf(buf + at, n - at, "%s%s not a candidate: %s",
                           i ? "; " : "", p->table[i]->name, e->why)
                : snprintf(buf + at, n - at, "%s%s %.3f us", i ? "; " : "",
                           p->table[i]->name, e->ns / 1e3);
    at += k > 0 ? (size_t)k : 0;
  }
  return buf;
}

/* ---- remembered decisions ------------------------------------------------ */

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
void darray__plan_keep(darray_file_t f, const struct darray_s *a, int w,
                       const strategy_t *s) {
  int k = 0;
  while (k < DARRAY_PLAN_MEMO && f->plan_memo[w][k].array != a->id)
    k++;
  if (k == DARRAY_PLAN_MEMO) {
    k = f->memo_next[w];
    f->memo_next[w] = (k + 1) % DARRAY_PLAN_MEMO;
    f->plan_memo[w][k].array = a->id;
    f->plan_memo[w][k].s = NULL;
  }
  if (f->plan_memo[w][k].s != s) /* a new decision proves itself anew */
    f->plan_memo[w][k].proven = false;
  f->plan_memo[w][k].s = s;
}

/* Whether a blocking whole-array call of a with strategy s has succeeded
 * on f since s was remembered: then every process passed the checks that
 * depend on the array, the hints and the plan alone
 * (darray__xfer_temp_check, the strategy's sizing), and the remembered
 * decision is the same everywhere (a decision is remembered, and proven,
 * at the same call on every process). darray_xfer.c folds the agreements
 * of such calls. */
bool darray__plan_proven(darray_file_t f, const struct darray_s *a, int w,
                         const strategy_t *s) {
  for (int k = 0; k < DARRAY_PLAN_MEMO; k++)
    if (f->plan_memo[w][k].array == a->id)
      return f->plan_memo[w][k].s == s && f->plan_memo[w][k].proven;
  return false;
}

void darray__plan_prove(darray_file_t f, const struct darray_s *a, int w,
                        const strategy_t *s) {
  for (int k = 0; k < DARRAY_PLAN_MEMO; k++)
    if (f->plan_memo[w][k].array == a->id && f->plan_memo[w][k].s == s)
      f->plan_memo[w][k].proven = true;
}

int darray__plan_call(xfer_t *x, bool whole, const strategy_t **s) {
  int w = x->write;
  /* background requests plan apart (rule 3) */
  bool memo = whole && !x->background;
  const strategy_t **m = memo ? memo_of(x->f, x->a, w) : NULL;
  if (m != NULL) {
    *s = *m;
    return DARRAY_SUCCESS;
  }
  int rc = darray__plan_choose(x, s);
  if (rc == DARRAY_SUCCESS && memo)
    darray__plan_keep(x->f, x->a, w, *s);
  return rc;
}
