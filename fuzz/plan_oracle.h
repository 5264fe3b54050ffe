/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * plan_oracle.h - part of fuzz_plan.c (header only, included once): the
 * advisor's case and the brute-force verdict of a consumer, computed from
 * the distribution formulas of darrayio.h element by element, never by the
 * library: owners by BLOCK(k) / CYCLIC(k) coordinates (g / k) mod p, or by
 * MULTIPARTITION slabs (the first n mod q one point larger) and process
 * ((x - z) mod q) + q ((y + z) mod q) owning cell z; runs in file order.
 */
#ifndef DARRAYIO_FUZZ_PLAN_ORACLE_H
#define DARRAYIO_FUZZ_PLAN_ORACLE_H

#define MAXC 4
#define ORACLE_ELEMS 4096

typedef struct acase {
  int nd, nc;
  int64_t g[MAXD], esize;
  bool small; /* sizes for the brute-force oracle */
  bool exact; /* dyadic weights: sums are exact */
  darray_consumer_t c[MAXC];
  char names[MAXC][8];
  bool valid; /* valid by the header's rules: must be accepted */
} acase_t;

static bool is_square(int p, int *q) {
  int r = (int)sqrt((double)p);
  while (r * r > p)
    r--;
  while ((r + 1) * (r + 1) <= p)
    r++;
  *q = r;
  return r * r == p;
}

/* The effective block size of a BLOCK or CYCLIC dimension over p. */
static int64_t eff_block(darray_dist_t dist, int64_t k, int64_t n, int64_t p) {
  if (k <= 0)
    return dist == DARRAY_DIST_BLOCK ? n / p + (n % p != 0) : 1;
  return k;
}

typedef struct brute {
  darray_verdict_t verdict;
  int nonconforming;
  int64_t max_runs, total_runs, min_run, max_run; /* merged runs */
} brute_t;

static int slab_of(int64_t n, int q, int64_t g) {
  int64_t len = n / q, big = n % q; /* the first n mod q slabs: len + 1 */
  return g < big * (len + 1) ? (int)(g / (len + 1))
                             : (int)(big + (g - big * (len + 1)) / len);
}

static void owner(const acase_t *a, const darray_consumer_t *c, const int *ps,
                  int q, const int64_t *g, int *rank, int *cell) {
  if (q > 0) {
    int s[3], m = 0;
    for (int d = 0; d < a->nd; d++)
      if (c->dist[d] == DARRAY_DIST_MULTIPARTITION)
        s[m++] = slab_of(a->g[d], q, g[d]);
    *rank = ((s[0] - s[2]) % q + q) % q + q * ((s[1] + s[2]) % q);
    *cell = s[2];
    return;
  }
  int r = 0;
  for (int d = 0; d < a->nd; d++) {
    int64_t coord = 0;
    if (c->dist[d] != DARRAY_DIST_NONE)
      coord = g[d] / eff_block(c->dist[d], c->dargs[d], a->g[d], ps[d]) % ps[d];
    r = r * ps[d] + (int)coord;
  }
  *rank = r;
  *cell = 0;
}

static void brute(const acase_t *a, const darray_consumer_t *c, const int *ps,
                  const int *perm, brute_t *out) {
  int P = c->nprocs, q = 0, nc = 1;
  for (int d = 0; d < a->nd; d++)
    if (c->dist[d] == DARRAY_DIST_MULTIPARTITION)
      is_square(P, &q), nc = q;
  int64_t n = 1;
  for (int d = 0; d < a->nd; d++)
    n *= a->g[d];
  /* per rank: first, last, count, last seen, runs; per (rank, cell) too */
  int64_t *rk = malloc(sizeof *rk * 5 * (size_t)P);
  int64_t *ce = malloc(sizeof *ce * 3 * (size_t)P * (size_t)nc);
  if (rk == NULL || ce == NULL)
    fz_fail("out of memory");
  for (int i = 0; i < 5 * P; i++)
    rk[i] = i % 5 == 2 || i % 5 == 4 ? 0 : -1; /* first, last, count, -, runs */
  for (int i = 0; i < 3 * P * nc; i++)
    ce[i] = i % 3 == 2 ? 0 : -1;
  *out = (brute_t){DARRAY_VERDICT_CONFORMING, 0, 0, 0, 0, 0};
  int64_t g[MAXD], runlen = 0, prev_rank = -1;
  for (int64_t L = 0; L < n; L++) {
    int64_t rest = L;
    for (int i = a->nd - 1; i >= 0; i--) {
      g[perm[i]] = rest % a->g[perm[i]];
      rest /= a->g[perm[i]];
    }
    int r, cell;
    owner(a, c, ps, q, g, &r, &cell);
    int64_t *x = rk + 5 * r,
            *y = ce + 3 * ((size_t)r * (size_t)nc + (size_t)cell);
    if (x[2] == 0)
      x[0] = L;
    if (x[2] == 0 || x[1] != L - 1)
      x[4]++; /* a new run of this process */
    x[1] = L;
    x[2]++;
    if (y[0] < 0)
      y[0] = L;
    y[1] = L;
    y[2]++;
    if (r == prev_rank) { /* the run goes on */
      runlen++;
    } else {
      if (prev_rank >= 0) {
        out->min_run =
            out->min_run && out->min_run < runlen ? out->min_run : runlen;
        out->max_run = out->max_run > runlen ? out->max_run : runlen;
      }
      runlen = 1;
    }
    prev_rank = r;
  }
  out->min_run = out->min_run && out->min_run < runlen ? out->min_run : runlen;
  out->max_run = out->max_run > runlen ? out->max_run : runlen;
  out->min_run *= a->esize;
  out->max_run *= a->esize;
  /* extents [first, last] of the processes with data: do two overlap? */
  bool inter = false;
  for (int r = 0; r < P; r++) {
    const int64_t *x = rk + 5 * r;
    out->total_runs += x[4];
    out->max_runs = x[4] > out->max_runs ? x[4] : out->max_runs;
    bool cells_ok = true;
    for (int k = 0; k < nc; k++) {
      const int64_t *y = ce + 3 * ((size_t)r * (size_t)nc + (size_t)k);
      cells_ok &= y[2] == 0 || y[1] - y[0] + 1 == y[2];
    }
    bool no_holes = x[2] == 0 || x[1] - x[0] + 1 == x[2];
    out->nonconforming += !(cells_ok || no_holes);
    for (int s = 0; s < r && x[2] > 0; s++) {
      const int64_t *z = rk + 5 * s;
      inter |= z[2] > 0 && z[0] <= x[1] && x[0] <= z[1];
    }
  }
  out->verdict = inter                ? DARRAY_VERDICT_INTERLEAVED
                 : out->nonconforming ? DARRAY_VERDICT_FRAGMENTED
                                      : DARRAY_VERDICT_CONFORMING;
  free(rk);
  free(ce);
}

/* One consumer's verdict: its grid fits, its numbers hold together and,
 * for small arrays, agree with the brute force. */

#endif /* DARRAYIO_FUZZ_PLAN_ORACLE_H */
