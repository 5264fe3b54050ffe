/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * plan_advise.h - part of fuzz_plan.c (header only, included once): the
 * storage advisor's cases and their checks.
 */
#ifndef DARRAYIO_FUZZ_PLAN_ADVISE_H
#define DARRAYIO_FUZZ_PLAN_ADVISE_H

#include "plan_oracle.h"
#include "util.h" /* darray__next_perm */

/* A process grid for consumer c: chosen by the library (zeros), an exact
 * factorization of nprocs over the distributed dimensions, or anything. */
static bool decode_grid(fz_in_t *in, const acase_t *a, darray_consumer_t *c) {
  uint8_t mode = fz_u8(in) % 4;
  int left = c->nprocs > 0 ? c->nprocs : 1, last = -1;
  for (int d = 0; d < a->nd; d++) {
    bool split =
        c->dist[d] == DARRAY_DIST_BLOCK || c->dist[d] == DARRAY_DIST_CYCLIC;
    if (mode == 3) {
      c->psizes[d] = fz_u8(in) % 4;
      continue;
    }
    c->psizes[d] = mode == 0 || !split ? (mode == 0 ? 0 : 1) : 0;
    if (mode != 0 && split) {
      int div[64], nd = 0;
      for (int k = 1; k <= left && nd < 64; k++)
        if (left % k == 0)
          div[nd++] = k;
      c->psizes[d] = div[fz_u8(in) % nd];
      left /= c->psizes[d];
      last = d;
    }
  }
  if (mode == 1 || mode == 2) { /* the rest on the last distributed one */
    if (last < 0)
      return left == 1;
    c->psizes[last] *= left;
  }
  return mode != 3;
}

static bool decode_consumer(fz_in_t *in, acase_t *a, int i) {
  darray_consumer_t *c = &a->c[i];
  uint8_t w = fz_u8(in);
  snprintf(a->names[i], sizeof a->names[i], "c%d", i);
  c->name = w & 128 ? NULL : a->names[i];
  w &= 127;
  c->weight = w < 100   ? w % 10
              : w < 120 ? (w % 10) / 8.0
              : w < 124 ? -1
              : w < 126 ? NAN
              : w < 127 ? INFINITY
                        : 1e300;
  a->exact &= w < 120;
  uint8_t p = fz_u8(in);
  c->nprocs = p % 8 < 5    ? 1 + fz_u8(in) % 16
              : p % 8 == 5 ? (1 + fz_u8(in) % 6) * (1 + fz_u8(in) % 6)
              : p % 8 == 6 ? 1 + fz_u8(in) % 64
              : p == 255   ? 0
                           : 1 + fz_u16(in) % 256;
  /* the advisor's work is candidates x processes: keep it under ~10^4 */
  int64_t cand = 1, procs = c->nprocs;
  for (int k = 2; k <= a->nd && k <= 6; k++)
    cand *= k;
  for (int k = 0; k < i; k++)
    procs += a->c[k].nprocs;
  if (cand * procs > 10000 && c->nprocs > 4)
    c->nprocs = 1 + c->nprocs % 4;
  if (a->nd >= 7 && c->nprocs > 8) /* so that few dimensions split */
    c->nprocs = 1 + c->nprocs % 8;
  int q = 0;
  bool square = is_square(c->nprocs, &q);
  bool mp = a->nd >= 3 && fz_u8(in) % 4 == 0, ok = true;
  int nmp = 0;
  for (int d = 0; d < a->nd; d++) {
    uint8_t b = fz_u8(in);
    if (mp) {
      c->dist[d] = nmp < 3 && (b % 2 || a->nd - d <= 3 - nmp)
                       ? DARRAY_DIST_MULTIPARTITION
                       : DARRAY_DIST_NONE;
      nmp += c->dist[d] == DARRAY_DIST_MULTIPARTITION;
      ok &= c->dist[d] == DARRAY_DIST_NONE || a->g[d] >= q;
    } else {
      c->dist[d] =
          b % 16 == 15 ? DARRAY_DIST_MULTIPARTITION : (darray_dist_t)(b % 3);
    }
    switch (b / 16 % 4) {
    case 0:
      c->dargs[d] = 0;
      break;
    case 1:
      c->dargs[d] = DARRAY_DEFAULT_ARG;
      break;
    case 2:
      c->dargs[d] = 1 + fz_u8(in) % 9;
      break;
    default:
      c->dargs[d] = fz_u8(in) % 8 == 0 ? -5 : a->g[d];
      break;
    }
    ok &= c->dargs[d] >= -1;
    ok &= mp || c->dist[d] != DARRAY_DIST_MULTIPARTITION;
  }
  if (mp) {
    uint8_t m = fz_u8(in) % 3; /* the grid is implied; zeros or the same */
    for (int d = 0; d < a->nd; d++)
      c->psizes[d] = m == 0 ? 0 : m == 1 ? (c->dist[d] ? q : 1) : 2;
    ok &= square && m != 2;
  } else {
    ok &= decode_grid(in, a, c);
    bool any_split = false;
    for (int d = 0; d < a->nd; d++) {
      bool split =
          c->dist[d] == DARRAY_DIST_BLOCK || c->dist[d] == DARRAY_DIST_CYCLIC;
      any_split |= split;
      if (c->dist[d] == DARRAY_DIST_BLOCK && c->dargs[d] > 0)
        ok &= c->dargs[d] >= a->g[d] ||
              (c->psizes[d] > 0 && c->dargs[d] * c->psizes[d] >= a->g[d]);
    }
    ok &= any_split || c->nprocs == 1;
  }
  return ok && c->nprocs >= 1 && isfinite(c->weight) && c->weight >= 0;
}

static void decode_advise(fz_in_t *in, acase_t *a) {
  uint8_t b = fz_u8(in);
  a->nd = b < 200 ? 1 + b % 4 : 1 + b % MAXD;
  a->small = fz_u8(in) % 4 != 0;
  a->exact = true;
  for (int d = 0; d < a->nd; d++)
    a->g[d] = a->small ? 1 + fz_u8(in) % 9 : size_of(in);
  for (int64_t n = ORACLE_ELEMS + 1; a->small && n > ORACLE_ELEMS;) {
    int big = 0;
    n = 1;
    for (int d = 0; d < a->nd; d++) {
      n *= a->g[d];
      big = a->g[d] > a->g[big] ? d : big;
    }
    if (n > ORACLE_ELEMS)
      a->g[big] = (a->g[big] + 1) / 2;
  }
  b = fz_u8(in);
  a->esize = b < 250 ? 1 + b % 16 : b < 253 ? 0 : b < 255 ? -3 : INT64_MAX / 2;
  b = fz_u8(in);
  a->nc = b == 255 ? 0 : 1 + b % (a->nd >= 7 ? 2 : MAXC);
  int64_t bytes = a->esize;
  a->valid = a->nc >= 1 && a->esize >= 1;
  for (int d = 0; d < a->nd; d++)
    a->valid &= mul_ok(bytes, a->g[d], &bytes);
  for (int i = 0; i < a->nc; i++) {
    a->valid &= decode_consumer(in, a, i);
  }
}

static void describe_advise(const acase_t *a) {
  PUT("advise: g=");
  for (int d = 0; d < a->nd; d++)
    PUT("%s%" PRId64, d ? "x" : "", a->g[d]);
  PUT(" esize=%" PRId64 " consumers:", a->esize);
  for (int i = 0; i < a->nc; i++) {
    const darray_consumer_t *c = &a->c[i];
    PUT(" [%s w=%g P=%d", c->name ? c->name : "NULL", c->weight, c->nprocs);
    for (int d = 0; d < a->nd; d++)
      PUT(" %s(%" PRId64 ")/%d", dist_names[c->dist[d] & 3], c->dargs[d],
          c->psizes[d]);
    PUT("]");
  }
  PUT(" valid=%d", a->valid);
}

/* The brute-force verdict of one consumer under storage order perm:
 * every element's owner and cell from the formulas of darrayio.h, every
 * process's runs in file order. */
static void check_verdict(const acase_t *a, int i, const int *perm,
                          const darray_consumer_verdict_t *v, bool deep) {
  const darray_consumer_t *c = &a->c[i];
  int64_t prod = 1, n = 1;
  int q = 0;
  bool mp = false;
  for (int d = 0; d < a->nd; d++) {
    mp |= c->dist[d] == DARRAY_DIST_MULTIPARTITION;
    n = n < INT64_MAX / a->g[d] ? n * a->g[d] : INT64_MAX;
  }
  if (mp)
    is_square(c->nprocs, &q);
  for (int d = 0; d < a->nd; d++) {
    int want = mp                               ? (c->dist[d] ? q : 1)
               : c->dist[d] == DARRAY_DIST_NONE ? 1
                                                : c->psizes[d];
    if (v->psizes[d] < 1 || (want > 0 && v->psizes[d] != want))
      fz_fail("consumer %d: grid entry %d is %d, expected %d", i, d,
              v->psizes[d], want);
    prod *= v->psizes[d];
  }
  if (!mp && prod != c->nprocs)
    fz_fail("consumer %d: a grid of %" PRId64 " for %d processes", i, prod,
            c->nprocs);
  if (v->verdict == DARRAY_VERDICT_FRAGMENTED ||
      (unsigned)v->verdict > DARRAY_VERDICT_INTERLEAVED)
    fz_fail("consumer %d: verdict %d for a whole array", i, (int)v->verdict);
  if ((c->nprocs == 1 && v->verdict == DARRAY_VERDICT_INTERLEAVED) ||
      (v->verdict == DARRAY_VERDICT_CONFORMING && v->nonconforming != 0) ||
      v->nonconforming < 0 || v->nonconforming > c->nprocs || v->max_runs < 1 ||
      v->max_runs > v->total_runs || v->total_runs > n ||
      v->min_run < a->esize || v->min_run % a->esize || v->max_run % a->esize ||
      v->max_run < v->min_run)
    fz_fail("consumer %d: verdict %d with %d nonconforming, runs %" PRId64
            "/%" PRId64 " of %" PRId64 "..%" PRId64 " bytes",
            i, (int)v->verdict, v->nonconforming, v->max_runs, v->total_runs,
            v->min_run, v->max_run);
  if (!a->small || !deep)
    return;
  brute_t b;
  brute(a, c, v->psizes, perm, &b);
  if (b.verdict != v->verdict || b.nonconforming != v->nonconforming ||
      v->max_runs < b.max_runs || v->total_runs < b.total_runs ||
      v->max_run > b.max_run || v->min_run > b.min_run)
    fz_fail("consumer %d under order %d%d%d..: verdict %d, %d nonconforming, "
            "runs %" PRId64 "/%" PRId64 " of %" PRId64 "..%" PRId64
            "; by brute force %d, %d, %" PRId64 "/%" PRId64 " merged runs of "
            "%" PRId64 "..%" PRId64,
            i, perm[0], a->nd > 1 ? perm[1] : 0, a->nd > 2 ? perm[2] : 0,
            (int)v->verdict, v->nonconforming, v->max_runs, v->total_runs,
            v->min_run, v->max_run, (int)b.verdict, b.nonconforming, b.max_runs,
            b.total_runs, b.min_run, b.max_run);
}

/* An answer for perm: weights from the verdicts, every verdict checked. */
static void check_advice(const acase_t *a, const int *perm,
                         const darray_advice_t *adv,
                         const darray_consumer_verdict_t *v, bool deep) {
  double conf = 0, coll = 0, total = 0;
  for (int i = 0; i < a->nc; i++) {
    check_verdict(a, i, perm, &v[i], deep);
    total += a->c[i].weight;
    conf += v[i].verdict == DARRAY_VERDICT_CONFORMING ? a->c[i].weight : 0;
    coll += v[i].verdict == DARRAY_VERDICT_INTERLEAVED ? a->c[i].weight : 0;
  }
  double tol = 1e-9 * (total > 1 ? total : 1);
  if (fabs(adv->total_weight - total) > tol ||
      fabs(adv->conforming_weight - conf) > tol ||
      fabs(adv->collective_weight - coll) > tol)
    fz_fail("weights %g/%g/%g, from the verdicts %g/%g/%g",
            adv->conforming_weight, adv->collective_weight, adv->total_weight,
            conf, coll, total);
}

/* -1, 0, 1: whether x ranks before, with or after y by the header's
 * order (more conforming weight, less collective weight, fewer weighted
 * runs; relative tolerance 1e-9). */
static int compare(const darray_advice_t *x, const darray_advice_t *y) {
  double w = x->total_weight > 0 ? x->total_weight : 1;
  double r = fmax(fmax(x->weighted_runs, y->weighted_runs), 1);
  if (x->conforming_weight > y->conforming_weight + 1e-9 * w)
    return -1;
  if (x->conforming_weight < y->conforming_weight - 1e-9 * w)
    return 1;
  if (x->collective_weight < y->collective_weight - 1e-9 * w)
    return -1;
  if (x->collective_weight > y->collective_weight + 1e-9 * w)
    return 1;
  if (x->weighted_runs < y->weighted_runs - 1e-9 * r)
    return -1;
  if (x->weighted_runs > y->weighted_runs + 1e-9 * r)
    return 1;
  return 0;
}

/* The header's tie-break among equal scores: C, Fortran, then the
 * lexicographically smallest. */
static int tie_rank(const int *p, int nd) {
  bool c = true, f = true;
  for (int i = 0; i < nd; i++)
    c &= p[i] == i, f &= p[i] == nd - 1 - i;
  return c ? 0 : f ? 1 : 2;
}

static bool perm_before(const int *p, const int *q, int nd) {
  int a = tie_rank(p, nd), b = tie_rank(q, nd);
  return a != b ? a < b : memcmp(p, q, sizeof(int) * (size_t)nd) < 0;
}

/* Order perm through darray_advise_order: checked, and not better than
 * the advice (nor, on a tie with every order a candidate, before it). */
static void against(const acase_t *a, const int *perm,
                    const darray_advice_t *best, bool tie_break, bool deep) {
  darray_advice_t adv;
  darray_consumer_verdict_t v[MAXC];
  int rc =
      darray_advise_order(a->nd, a->g, a->esize, a->nc, a->c, perm, &adv, v);
  if (rc != DARRAY_SUCCESS)
    fz_fail("darray_advise_order refused a permutation: %s: %s",
            darray_err_name(rc), darray_errmsg(NULL));
  check_advice(a, perm, &adv, v, deep);
  int cmp = compare(&adv, best);
  if (cmp < 0 ||
      (cmp == 0 && tie_break && perm_before(perm, best->perm, a->nd)))
    fz_fail("order %d%d%d.. (conforming %g, collective %g, runs %g) beats "
            "the advice %d%d%d.. (%g, %g, %g)",
            perm[0], a->nd > 1 ? perm[1] : 0, a->nd > 2 ? perm[2] : 0,
            adv.conforming_weight, adv.collective_weight, adv.weighted_runs,
            best->perm[0], a->nd > 1 ? best->perm[1] : 0,
            a->nd > 2 ? best->perm[2] : 0, best->conforming_weight,
            best->collective_weight, best->weighted_runs);
}

/* The report names the recommended order, or fails as the advice did. */
static void check_report(const acase_t *a, int rc0,
                         const darray_advice_t *adv) {
  char *text = NULL, want[64];
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (out == NULL)
    fz_fail("open_memstream failed");
  int rc = darray_advise_report(a->nd, a->g, a->esize, a->nc, a->c, out);
  fclose(out);
  if (rc != rc0)
    fz_fail("darray_advise_report returned %s, darray_advise_storage %s",
            darray_err_name(rc), darray_err_name(rc0));
  if (strlen(text) != len || (len > 0 && text[len - 1] != '\n') ||
      (rc != DARRAY_SUCCESS && len != 0))
    fz_fail("advise report: %zu characters, %zu before a NUL, rc %d", len,
            strlen(text), rc);
  int n = snprintf(want, sizeof want, "  recommended storage order: ");
  for (int d = 0; rc == DARRAY_SUCCESS && d < a->nd; d++)
    n += snprintf(want + n, sizeof want - (size_t)n, "%s%d", d ? " " : "",
                  adv->perm[d]);
  const char *at = rc == DARRAY_SUCCESS ? strstr(text, want) : NULL;
  if (rc == DARRAY_SUCCESS && (at == NULL || (at[n] != '\n' && at[n] != ' ')))
    fz_fail("advise report does not recommend '%s'", want + 29);
  free(text);
}

/* The advice is a candidate, and there are as many as the header says:
 * every order up to 6 dimensions; beyond, C, Fortran and the orders that
 * keep the dimensions no consumer splits fastest, in increasing order. */
static void check_candidates(const acase_t *a, const darray_advice_t *adv,
                             const darray_consumer_verdict_t *v) {
  int nfree = 0, ntail = 0, fr[MAXD], tail[MAXD], p[MAXD];
  for (int d = 0; d < a->nd; d++) {
    bool split = a->nd <= 6;
    for (int i = 0; i < a->nc && !split; i++)
      split = v[i].psizes[d] > 1;
    if (split)
      fr[nfree++] = d;
    else
      tail[ntail++] = d;
  }
  int count = a->nd > 1 ? 2 : 1; /* C and Fortran */
  bool member = false;
  memcpy(p, fr, sizeof fr);
  memcpy(p + nfree, tail, sizeof(int) * (size_t)ntail);
  do {
    int t = tie_rank(p, a->nd);
    count += t == 2;
    member |= memcmp(p, adv->perm, sizeof(int) * (size_t)a->nd) == 0;
  } while (darray__next_perm(p, nfree));
  member |= tie_rank(adv->perm, a->nd) < 2;
  if (!member || adv->ncandidates != count || adv->all_orders != (a->nd <= 6))
    fz_fail("advice %d%d%d.. is%s a candidate; %d candidates (expected %d), "
            "all_orders %d",
            adv->perm[0], a->nd > 1 ? adv->perm[1] : 0,
            a->nd > 2 ? adv->perm[2] : 0, member ? "" : " not",
            adv->ncandidates, count, adv->all_orders);
}

static void run_advise(fz_in_t *in) {
  acase_t a;
  memset(&a, 0, sizeof a);
  decode_advise(in, &a);
  describe_advise(&a);
  fz_show_case();
  darray_advice_t adv;
  darray_consumer_verdict_t v[MAXC];
  int rc = darray_advise_storage(a.nd, a.g, a.esize, a.nc, a.c, &adv, v);
  check_report(&a, rc, &adv);
  int id[MAXD];
  for (int d = 0; d < a.nd; d++)
    id[d] = d;
  if (rc != DARRAY_SUCCESS) {
    static const int codes[] = {DARRAY_EINVAL, DARRAY_EDIST, DARRAY_EGRID,
                                DARRAY_ESIZE, DARRAY_ETYPE};
    bool listed = false;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
      listed |= rc == codes[i];
    if (a.valid || !listed || darray_errmsg(NULL)[0] == '\0')
      fz_fail("darray_advise_storage refused with %s: '%s'",
              darray_err_name(rc), darray_errmsg(NULL));
    darray_advice_t o;
    if (darray_advise_order(a.nd, a.g, a.esize, a.nc, a.c, id, &o, NULL) != rc)
      fz_fail("darray_advise_order disagrees on the refusal");
    return;
  }
  bool seen[MAXD] = {false};
  for (int d = 0; d < a.nd; d++) {
    if (adv.perm[d] < 0 || adv.perm[d] >= a.nd || seen[adv.perm[d]])
      fz_fail("the advice is no permutation (entry %d = %d)", d, adv.perm[d]);
    seen[adv.perm[d]] = true;
  }
  check_candidates(&a, &adv, v);
  check_advice(&a, adv.perm, &adv, v, true);
  darray_advice_t o;
  darray_consumer_verdict_t ov[MAXC];
  rc = darray_advise_order(a.nd, a.g, a.esize, a.nc, a.c, adv.perm, &o, ov);
  if (rc != DARRAY_SUCCESS || compare(&o, &adv) != 0 ||
      memcmp(o.perm, adv.perm, sizeof o.perm) != 0 ||
      memcmp(ov, v, sizeof *v * (size_t)a.nc) != 0)
    fz_fail("darray_advise_order does not confirm the advice");
  int procs = 0;
  for (int i = 0; i < a.nc; i++)
    procs += a.c[i].nprocs;
  int p[MAXD];
  if (a.nd <= 4 && a.exact && procs <= 64) { /* every order, tie-breaks */
    memcpy(p, id, sizeof p);
    do
      if (memcmp(p, adv.perm, sizeof(int) * (size_t)a.nd) != 0)
        against(&a, p, &adv, true, false);
    while (darray__next_perm(p, a.nd));
  }
  for (int k = 0; k < 3; k++) { /* C, Fortran and a random order */
    for (int d = 0; d < a.nd; d++)
      p[d] = k == 1 ? a.nd - 1 - d : d;
    for (int i = a.nd - 1; k == 2 && i > 0; i--) {
      int j = fz_u8(in) % (i + 1), t = p[i];
      p[i] = p[j], p[j] = t;
    }
    if (memcmp(p, adv.perm, sizeof(int) * (size_t)a.nd) != 0)
      against(&a, p, &adv, false, k == 2);
  }
}

#endif /* DARRAYIO_FUZZ_PLAN_ADVISE_H */
