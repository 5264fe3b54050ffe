/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * advise.c - the storage advisor: which storage order suits the programs
 * that will read a dataset: the consumers' arrays, the candidate orders,
 * their scores and the search (the report is advise_report.c).
 *
 * Each consumer's array is a description on paper (darray_desc_t, with the
 * consumer's process count), resolved as darray_commit resolves a real
 * one, and judged under every candidate order with the planner's own
 * analysis (layout_analysis.c): the sections of every rank,
 * their runs and extents in closed form, the interleave test and the
 * conformance test. Nothing is communicated and nothing grows with the
 * number of elements.
 */
#include "access.h"
#include "advise/advise.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every permutation is a candidate up to this many dimensions (720). */
#define ADVISE_ALL_ORDERS_MAX_DIMS 6

static const char *cname(const darray_consumer_t *c) {
  return c->name != NULL ? c->name : "";
}

/* The consumer's name, or "#i" when it has none. */
const char *darray__advise_label(const darray_consumer_t *c, int i, char *buf,
                                 size_t n) {
  if (c->name != NULL)
    return c->name;
  snprintf(buf, n, "#%d", i);
  return buf;
}

/* Prefix a consumer's own message with its place in the argument list. */
static int consumer_err(char *msg, int rc, int i, const darray_consumer_t *c,
                        const char *what) {
  return darray__err(msg, rc, "%s%s%s%s: %s", DARRAY_ARG_AT("consumers", i),
                     c->name ? " (" : "", cname(c), c->name ? ")" : "",
                     what);
}

void darray__advise_free(advisor_t *adv) {
  for (int i = 0; adv->cs != NULL && i < adv->n; i++)
    free(adv->cs[i].rr);
  free(adv->cs);
  adv->cs = NULL;
}

/* Check one consumer and resolve its array as darray_commit would. */
static int consumer_setup(advisor_t *adv, int i, const int64_t gsizes[],
                          int64_t esize, char *msg) {
  const darray_consumer_t *c = &adv->c[i];
  consumer_t *cs = &adv->cs[i];
  darray_desc_t *a = &cs->a;
  char what[DARRAY_ERRMSG_LEN], err[DARRAY_ERRMSG_LEN];
  int nd = adv->ndims;
  if (!isfinite(c->weight) || c->weight < 0) {
    snprintf(what, sizeof what,
             "weight = %g: a weight must be finite and "
             ">= 0",
             c->weight);
    return consumer_err(msg, DARRAY_EINVAL, i, c, what);
  }
  if (c->nprocs < 1 || c->nprocs > DARRAY_ADVISE_MAX_NPROCS) {
    snprintf(what, sizeof what, "nprocs = %d is %s", c->nprocs,
             c->nprocs < 1 ? "< 1"
                           : "more than DARRAY_ADVISE_MAX_NPROCS = 2^24");
    return consumer_err(msg, DARRAY_EGRID, i, c, what);
  }
  int64_t dargs[DARRAY_MAX_DIMS] = {0};
  for (int d = 0; d < nd; d++)
    dargs[d] = c->dargs[d] == 0 ? DARRAY_DEFAULT_ARG : c->dargs[d];
  int rc = darray__check_distribution(nd, c->dist, dargs, err);
  if (rc != DARRAY_SUCCESS)
    return consumer_err(msg, rc, i, c, err);
  for (int d = 0; d < nd; d++)
    if (c->psizes[d] < 0) {
      snprintf(what, sizeof what, "%s = %d is < 0",
               DARRAY_ARG_AT("psizes", d), c->psizes[d]);
      return consumer_err(msg, DARRAY_EGRID, i, c, what);
    }
  a->nprocs = c->nprocs;
  a->ndims = nd;
  a->type = DARRAY_OPAQUE;
  a->esize = esize;
  a->file_order = DARRAY_ORDER_PERM;
  a->mem_order = DARRAY_ORDER_C;
  for (int d = 0; d < nd; d++) {
    a->gsizes[d] = gsizes[d];
    a->dist[d] = c->dist[d];
    a->dargs[d] = dargs[d];
    a->psizes[d] = c->psizes[d];
    a->perm[d] = d;
  }
  rc = darray__desc_resolve(a, err);
  if (rc != DARRAY_SUCCESS)
    return consumer_err(msg, rc, i, c, err);
  cs->rr = malloc(sizeof *cs->rr * (size_t)c->nprocs);
  if (cs->rr == NULL)
    return darray__err(msg, DARRAY_ENOMEM,
                       "out of memory for %d processes of %s", c->nprocs,
                       DARRAY_ARG_AT("consumers", i));
  return DARRAY_SUCCESS;
}

/* Check the arguments every advisor call shares and describe the
 * consumers' arrays. */
int darray__advise_init(advisor_t *adv, int ndims, const int64_t gsizes[],
                        int64_t esize, int nconsumers,
                        const darray_consumer_t consumers[], char *msg) {
  *adv = (advisor_t){ndims, nconsumers, consumers, NULL, 0};
  int rc = darray__check_shape(ndims, gsizes, DARRAY_OPAQUE, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (esize < 1)
    return darray__err(msg, DARRAY_ETYPE, "esize = %lld is < 1",
                       (long long)esize);
  int64_t bytes = esize;
  for (int d = 0; d < ndims; d++)
    if (!darray__mul_ok(bytes, gsizes[d], &bytes))
      return darray__err(msg, DARRAY_ESIZE,
                         "gsizes and esize: the array's "
                         "size in bytes overflows 64 bits");
  if (nconsumers < 1)
    return darray__err(msg, DARRAY_EINVAL, "nconsumers = %d is < 1",
                       nconsumers);
  if (consumers == NULL)
    return darray__err(msg, DARRAY_ENULL, "consumers is NULL");
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin)
    return darray__err(msg, DARRAY_EMPI,
                       "MPI is not initialized: the advisor completes "
                       "process grids with MPI_Dims_create");
  adv->cs = calloc((size_t)nconsumers, sizeof *adv->cs);
  if (adv->cs == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  for (int i = 0; i < nconsumers; i++) {
    rc = consumer_setup(adv, i, gsizes, esize, msg);
    if (rc != DARRAY_SUCCESS) {
      darray__advise_free(adv);
      return rc;
    }
    adv->total += consumers[i].weight;
  }
  return DARRAY_SUCCESS;
}

/* One consumer's verdict and numbers under storage order perm. */
static int judge(consumer_t *cs, const int perm[],
                 darray_consumer_verdict_t *v) {
  darray_desc_t *a = &cs->a;
  memcpy(a->perm, perm, sizeof(int) * (size_t)a->ndims);
  char err[DARRAY_ERRMSG_LEN];
  int rc = darray__desc_strides(a, err);
  if (rc != DARRAY_SUCCESS)
    return rc;
  memset(v, 0, sizeof *v);
  memcpy(v->psizes, a->psizes, sizeof(int) * (size_t)a->ndims);
  for (int r = 0; r < a->nprocs; r++) {
    section_t *sec;
    int nsec;
    rc = darray__dist_sections(a, r, &sec, &nsec);
    if (rc != DARRAY_SUCCESS)
      return rc;
    access_rank_t s; /* as a call's access summary has it */
    darray__access_rank(a, sec, nsec, &s);
    free(sec);
    cs->rr[r] = (layout_rank_t){s.lo, s.hi, s.nruns, s.bytes};
    v->nonconforming += !s.conforms;
    v->total_runs += s.nruns;
    if (s.nruns > v->max_runs)
      v->max_runs = s.nruns;
    if (s.nruns > 0 && (v->min_run == 0 || s.min_run < v->min_run))
      v->min_run = s.min_run;
    if (s.max_run > v->max_run)
      v->max_run = s.max_run;
  }
  /* as the planner: one process never interleaves with itself */
  bool inter = a->nprocs > 1 && darray__layout_interleave(cs->rr, a->nprocs);
  v->verdict = inter                   ? DARRAY_VERDICT_INTERLEAVED
               : v->nonconforming == 0 ? DARRAY_VERDICT_CONFORMING
                                       : DARRAY_VERDICT_FRAGMENTED;
  return DARRAY_SUCCESS;
}

/* Every consumer under perm: verdicts into v (n entries) and the score. */
static int evaluate(advisor_t *adv, const int perm[], int idx,
                    darray_consumer_verdict_t *v, score_t *sc) {
  *sc = (score_t){0, 0, 0, idx, {0}};
  memcpy(sc->perm, perm, sizeof(int) * (size_t)adv->ndims);
  for (int i = 0; i < adv->n; i++) {
    int rc = judge(&adv->cs[i], perm, &v[i]);
    if (rc != DARRAY_SUCCESS)
      return rc;
    double w = adv->c[i].weight;
    if (v[i].verdict == DARRAY_VERDICT_CONFORMING)
      sc->conf += w;
    if (v[i].verdict == DARRAY_VERDICT_INTERLEAVED)
      sc->coll += w;
    sc->runs += w * (double)v[i].total_runs;
  }
  return DARRAY_SUCCESS;
}

/* -1 if x < y, 1 if x > y, 0 if they agree within a relative tolerance. */
static int cmp_tol(double x, double y, double scale) {
  double tol = 1e-9 * scale;
  return x < y - tol ? -1 : x > y + tol;
}

/* Whether candidate x ranks before candidate y. */
static bool better(const score_t *x, const score_t *y, double total) {
  double wscale = total > 0 ? total : 1;
  int c = cmp_tol(x->conf, y->conf, wscale);
  if (c != 0)
    return c > 0;
  c = cmp_tol(x->coll, y->coll, wscale);
  if (c != 0)
    return c < 0;
  double rscale = x->runs > y->runs ? x->runs : y->runs;
  c = cmp_tol(x->runs, y->runs, rscale > 0 ? rscale : 1);
  if (c != 0)
    return c < 0;
  return x->idx < y->idx;
}

/* ------------------------------------------------------------------------ */
/* candidates                                                               */

static bool same_perm(const int *p, const int *q, int n) {
  return memcmp(p, q, sizeof(int) * (size_t)n) == 0;
}

/* A storage order, slowest dimension first. */
typedef int order_t[DARRAY_MAX_DIMS];

/* The candidate orders, in tie-breaking order: C, Fortran, then
 * lexicographic. Returns a malloc'ed array of *count orders, or NULL when
 * out of memory. */
static order_t *candidates(const advisor_t *adv, int *count, bool *all) {
  int nd = adv->ndims;
  int free_dims[DARRAY_MAX_DIMS], nfree = 0, tail[DARRAY_MAX_DIMS], ntail = 0;
  *all = nd <= ADVISE_ALL_ORDERS_MAX_DIMS;
  for (int d = 0; d < nd; d++) {
    bool split = *all;
    for (int i = 0; i < adv->n && !split; i++)
      split = adv->cs[i].a.psizes[d] > 1;
    if (split)
      free_dims[nfree++] = d;
    else
      tail[ntail++] = d;
  }
  int64_t n = 1;
  for (int k = 2; k <= nfree; k++)
    n *= k;
  order_t *list = malloc(sizeof *list * (size_t)(n + 2));
  if (list == NULL)
    return NULL;
  order_t c = {0}, f = {0};
  for (int d = 0; d < nd; d++)
    c[d] = d, f[d] = nd - 1 - d;
  int m = 0;
  memcpy(list[m++], c, sizeof c);
  if (nd > 1)
    memcpy(list[m++], f, sizeof f);
  order_t p = {0};
  memcpy(p, free_dims, sizeof(int) * (size_t)nfree);
  memcpy(p + nfree, tail, sizeof(int) * (size_t)ntail);
  do {
    if (!same_perm(p, c, nd) && !same_perm(p, f, nd))
      memcpy(list[m++], p, sizeof p);
  } while (darray__next_perm(p, nfree));
  *count = m;
  return list;
}

static const char verdict_letter[] = {'C', 'F', 'I'};

static void rank_insert(ranking_t *rk, const score_t *sc,
                        const darray_consumer_verdict_t *v, double total) {
  int pos = rk->len;
  while (pos > 0 && better(sc, &rk->sc[pos - 1], total))
    pos--;
  if (pos >= rk->cap)
    return;
  int last = rk->len < rk->cap ? rk->len : rk->cap - 1;
  for (int k = last; k > pos; k--) {
    rk->sc[k] = rk->sc[k - 1];
    memcpy(rk->letters + (size_t)k * (size_t)rk->n,
           rk->letters + (size_t)(k - 1) * (size_t)rk->n, (size_t)rk->n);
  }
  rk->sc[pos] = *sc;
  for (int i = 0; i < rk->n; i++)
    rk->letters[(size_t)pos * (size_t)rk->n + (size_t)i] =
        verdict_letter[v[i].verdict];
  if (rk->len < rk->cap)
    rk->len++;
}

/* Evaluate every candidate: the best into *best and best_v (n entries),
 * and, when rk is not NULL, the leaders into rk. */
int darray__advise_search(advisor_t *adv, score_t *best,
                          darray_consumer_verdict_t *best_v, int *ncand,
                          bool *all, ranking_t *rk, char *msg) {
  int count = 0;
  order_t *list = candidates(adv, &count, all);
  darray_consumer_verdict_t *v = malloc(sizeof *v * (size_t)adv->n);
  int rc = list == NULL || v == NULL ? DARRAY_ENOMEM : DARRAY_SUCCESS;
  for (int k = 0; rc == DARRAY_SUCCESS && k < count; k++) {
    score_t sc;
    rc = evaluate(adv, list[k], k, v, &sc);
    if (rc != DARRAY_SUCCESS)
      break;
    if (k == 0 || better(&sc, best, adv->total)) {
      *best = sc;
      memcpy(best_v, v, sizeof *v * (size_t)adv->n);
    }
    if (rk != NULL)
      rank_insert(rk, &sc, v, adv->total);
  }
  free(list);
  free(v);
  *ncand = count;
  if (rc != DARRAY_SUCCESS)
    return darray__err(msg, rc,
                       "out of memory while evaluating storage "
                       "orders");
  return DARRAY_SUCCESS;
}

static void fill_advice(const advisor_t *adv, const score_t *sc, int ncand,
                        bool all, darray_advice_t *advice) {
  memset(advice, 0, sizeof *advice);
  memcpy(advice->perm, sc->perm, sizeof(int) * (size_t)adv->ndims);
  advice->conforming_weight = sc->conf;
  advice->collective_weight = sc->coll;
  advice->total_weight = adv->total;
  advice->weighted_runs = sc->runs;
  advice->ncandidates = ncand;
  advice->all_orders = all;
}

int darray_advise_storage(int ndims, const int64_t gsizes[], int64_t esize,
                          int nconsumers, const darray_consumer_t consumers[],
                          darray_advice_t *advice,
                          darray_consumer_verdict_t verdicts[]) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (advice == NULL)
    return darray__err(msg, DARRAY_ENULL, "advice is NULL");
  advisor_t adv;
  int rc = darray__advise_init(&adv, ndims, gsizes, esize, nconsumers,
                               consumers, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray_consumer_verdict_t *best_v =
      malloc(sizeof *best_v * (size_t)nconsumers);
  if (best_v == NULL) {
    darray__advise_free(&adv);
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  }
  score_t best;
  int ncand;
  bool all;
  rc = darray__advise_search(&adv, &best, best_v, &ncand, &all, NULL, msg);
  if (rc == DARRAY_SUCCESS) {
    fill_advice(&adv, &best, ncand, all, advice);
    if (verdicts != NULL)
      memcpy(verdicts, best_v, sizeof *best_v * (size_t)nconsumers);
  }
  free(best_v);
  darray__advise_free(&adv);
  return rc;
}

int darray_advise_order(int ndims, const int64_t gsizes[], int64_t esize,
                        int nconsumers, const darray_consumer_t consumers[],
                        const int perm[], darray_advice_t *advice,
                        darray_consumer_verdict_t verdicts[]) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (advice == NULL || perm == NULL)
    return darray__err(msg, DARRAY_ENULL, "%s is NULL",
                       advice == NULL ? "advice" : "perm");
  advisor_t adv;
  int rc = darray__advise_init(&adv, ndims, gsizes, esize, nconsumers,
                               consumers, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  bool seen[DARRAY_MAX_DIMS] = {false};
  for (int i = 0; i < ndims; i++) {
    if (perm[i] < 0 || perm[i] >= ndims || seen[perm[i]]) {
      darray__advise_free(&adv);
      bool F = darray__fortran();
      return darray__err(msg, DARRAY_EORDER,
                         "perm is not a permutation of %lld..%lld (%s = %lld)",
                         darray__ix(F, 0), darray__ix(F, ndims - 1),
                         DARRAY_ARG_AT("perm", i), darray__ix(F, perm[i]));
    }
    seen[perm[i]] = true;
  }
  darray_consumer_verdict_t *v = malloc(sizeof *v * (size_t)nconsumers);
  score_t sc;
  rc = v == NULL ? DARRAY_ENOMEM : evaluate(&adv, perm, 0, v, &sc);
  if (rc == DARRAY_SUCCESS) {
    fill_advice(&adv, &sc, 1, false, advice);
    if (verdicts != NULL)
      memcpy(verdicts, v, sizeof *v * (size_t)nconsumers);
  } else {
    darray__err(msg, rc, "out of memory");
  }
  free(v);
  darray__advise_free(&adv);
  return rc;
}
