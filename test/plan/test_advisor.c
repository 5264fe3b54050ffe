/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_advisor.c - the storage advisor (darray_advise_storage,
 * darray_advise_order, darray_advise_report).
 *
 * Expectations come from outside the library:
 *  - hand-derived numbers for the textbook cases (row blocks conform to C
 *    order, column blocks to Fortran order, the heavier consumer wins, the
 *    tie-breaks);
 *  - a brute-force oracle that walks every element of small arrays, finds
 *    its owner from the distribution formulas of the header (BLOCK,
 *    CYCLIC, MULTIPARTITION), its file offset from the storage order, and
 *    judges each process from the sorted offsets: conforming when each
 *    cell's elements form at most one stretch per cell or the process's
 *    extent has no hole, interleaved when two processes' extents overlap;
 *  - the library's own planner on real arrays at the processes available:
 *    darray_explain() and the strategy a real read reports must match the
 *    advisor's verdict for the same description.
 * Run: mpiexec -n 1 ./test_advisor (any count works; the planner check
 * uses every process).
 */
#include "testutil.h"
#include "util.h" /* darray__next_perm */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE DARRAY_DIST_NONE
#define BLOCK DARRAY_DIST_BLOCK
#define CYCLIC DARRAY_DIST_CYCLIC
#define MP DARRAY_DIST_MULTIPARTITION

static darray_consumer_t consumer(const char *name, double w, int np,
                                  int ndims, const darray_dist_t *dist) {
  darray_consumer_t c;
  memset(&c, 0, sizeof c);
  c.name = name;
  c.weight = w;
  c.nprocs = np;
  for (int d = 0; d < ndims; d++)
    c.dist[d] = dist[d];
  return c;
}

static int same_perm(const int *p, const int *q, int n) {
  return memcmp(p, q, sizeof(int) * (size_t)n) == 0;
}

static void print_perm(const char *what, const int *p, int n) {
  fprintf(stderr, "  %s:", what);
  for (int i = 0; i < n; i++)
    fprintf(stderr, " %d", p[i]);
  fprintf(stderr, "\n");
}

#define EXPECT_PERM(got, ...)                                                  \
  do {                                                                         \
    int want_[] = {__VA_ARGS__};                                               \
    int n_ = (int)(sizeof want_ / sizeof want_[0]);                            \
    if (!TU_CHECK(same_perm((got), want_, n_))) {                              \
      print_perm("got", (got), n_);                                            \
      print_perm("want", want_, n_);                                           \
    }                                                                          \
  } while (0)

/* ------------------------------------------------------------------------ */
/* the brute-force oracle                                                   */

typedef struct judged {
  int verdict;       /* DARRAY_VERDICT_* */
  int nonconforming; /* processes */
  int64_t max_stretches, total_stretches; /* per cell, summed per process */
} judged_t;

typedef struct elem {
  int rank, cell;
  int64_t off;
} elem_t;

static int cmp_elem(const void *p, const void *q) {
  const elem_t *a = p, *b = q;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->cell != b->cell)
    return a->cell < b->cell ? -1 : 1;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* The grid a consumer gets: NONE dimensions 1, the rest as given or by
 * MPI_Dims_create (the documented rule); multipartition q on its three. */
static void oracle_grid(int nd, const darray_consumer_t *c, int ps[]) {
  int q = (int)lround(sqrt((double)c->nprocs));
  int mp = 0;
  for (int d = 0; d < nd; d++)
    mp |= c->dist[d] == MP;
  for (int d = 0; d < nd; d++)
    ps[d] = mp ? (c->dist[d] == MP ? q : 1)
               : c->dist[d] == NONE ? 1 : c->psizes[d];
  if (!mp)
    MPI_Dims_create(c->nprocs, nd, ps);
}

/* Owner (rank, cell) of a global index. */
static void oracle_owner(int nd, const int64_t *g, const darray_consumer_t *c,
                         const int *ps, const int64_t *idx, int *rank,
                         int *cell) {
  int mp = 0;
  for (int d = 0; d < nd; d++)
    mp |= c->dist[d] == MP;
  if (mp) { /* slab s of q: the first n mod q slabs are one point larger */
    int q = (int)lround(sqrt((double)c->nprocs)), xyz[3], m = 0;
    for (int d = 0; d < nd; d++) {
      if (c->dist[d] != MP)
        continue;
      int64_t n = g[d], size = n / q, big = n % q, i = idx[d];
      xyz[m++] = i < big * (size + 1) ? (int)(i / (size + 1))
                                      : (int)(big + (i - big * (size + 1)) /
                                                        size);
    }
    /* rank r owns ((r%q + k)%q, (r/q - k)%q, k): solve for r and k */
    int k = xyz[2];
    int i0 = ((xyz[0] - k) % q + q) % q, j0 = ((xyz[1] + k) % q + q) % q;
    *rank = i0 + q * j0;
    *cell = k;
    return;
  }
  int r = 0;
  for (int d = 0; d < nd; d++) {
    int64_t n = g[d], p = ps[d], k = c->dargs[d], coord = 0;
    if (c->dist[d] == BLOCK)
      coord = idx[d] / (k > 0 ? k : (n + p - 1) / p);
    else if (c->dist[d] == CYCLIC)
      coord = (idx[d] / (k > 0 ? k : 1)) % p;
    r = r * ps[d] + (int)coord;
  }
  *rank = r;
  *cell = 0;
}

/* Judge one consumer under perm by walking every element. */
static judged_t oracle(int nd, const int64_t *g, int64_t esize,
                       const darray_consumer_t *c, const int *perm) {
  int ps[DARRAY_MAX_DIMS];
  oracle_grid(nd, c, ps);
  int64_t stride[DARRAY_MAX_DIMS], s = esize, total = 1;
  for (int i = nd - 1; i >= 0; i--) {
    stride[perm[i]] = s;
    s *= g[perm[i]];
  }
  for (int d = 0; d < nd; d++)
    total *= g[d];
  elem_t *e = malloc(sizeof *e * (size_t)total);
  int64_t idx[DARRAY_MAX_DIMS] = {0};
  for (int64_t k = 0; k < total; k++) {
    int64_t off = 0;
    for (int d = 0; d < nd; d++)
      off += idx[d] * stride[d];
    oracle_owner(nd, g, c, ps, idx, &e[k].rank, &e[k].cell);
    e[k].off = off;
    for (int d = nd - 1; d >= 0 && ++idx[d] == g[d]; d--)
      idx[d] = 0;
  }
  qsort(e, (size_t)total, sizeof *e, cmp_elem);
  int P = c->nprocs, nsec = 1;
  for (int d = 0; d < nd; d++)
    if (c->dist[d] == MP)
      nsec = (int)lround(sqrt((double)P));
  int64_t *lo = malloc(sizeof *lo * (size_t)P);
  int64_t *hi = malloc(sizeof *hi * (size_t)P);
  judged_t j = {0, 0, 0, 0};
  int64_t k = 0;
  for (int r = 0; r < P; r++) {
    int64_t n = 0, stretches = 0;
    lo[r] = hi[r] = 0;
    for (; k < total && e[k].rank == r; k++, n++) {
      if (n == 0 || e[k].off < lo[r])
        lo[r] = e[k].off;
      if (n == 0 || e[k].off + esize > hi[r])
        hi[r] = e[k].off + esize;
      if (n == 0 || e[k].cell != e[k - 1].cell ||
          e[k].off != e[k - 1].off + esize)
        stretches++;
    }
    int64_t holes = hi[r] - lo[r] - n * esize;
    if (!(stretches <= nsec || holes == 0))
      j.nonconforming++;
    j.total_stretches += stretches;
    if (stretches > j.max_stretches)
      j.max_stretches = stretches;
  }
  int inter = 0;
  for (int a = 0; a < P; a++)
    for (int b = 0; b < P; b++)
      if (a != b && hi[a] > lo[a] && hi[b] > lo[b] && lo[a] < hi[b] &&
          lo[b] < hi[a])
        inter = 1;
  j.verdict = inter ? DARRAY_VERDICT_INTERLEAVED
              : j.nonconforming ? DARRAY_VERDICT_FRAGMENTED
                                : DARRAY_VERDICT_CONFORMING;
  free(e);
  free(lo);
  free(hi);
  return j;
}

/* ------------------------------------------------------------------------ */
/* hand-derived cases                                                       */

static void rows_and_columns(void) {
  int64_t g[2] = {1024, 1024};
  darray_dist_t rd[2] = {BLOCK, NONE}, cd[2] = {NONE, BLOCK};
  darray_consumer_t c[2] = {consumer("rows", 3, 4, 2, rd),
                            consumer("cols", 1, 4, 2, cd)};
  darray_advice_t adv;
  darray_consumer_verdict_t v[2];
  TU_OK(darray_advise_storage(2, g, 4, 2, c, &adv, v));
  EXPECT_PERM(adv.perm, 0, 1);
  TU_CHECK(adv.conforming_weight == 3 && adv.collective_weight == 1 &&
           adv.total_weight == 4);
  TU_EQ_INT(adv.ncandidates, 2);
  TU_EQ_INT(adv.all_orders, 1);
  /* rows in C order: one 1 MiB run per process */
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  TU_EQ_I64(v[0].max_runs, 1);
  TU_EQ_I64(v[0].total_runs, 4);
  TU_EQ_I64(v[0].min_run, 256 * 1024 * 4);
  TU_EQ_I64(v[0].max_run, 256 * 1024 * 4);
  TU_EQ_INT(v[0].nonconforming, 0);
  TU_EQ_INT(v[0].psizes[0], 4);
  TU_EQ_INT(v[0].psizes[1], 1);
  /* columns in C order: 256 elements of each of 1024 rows per process */
  TU_EQ_INT(v[1].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_I64(v[1].max_runs, 1024);
  TU_EQ_I64(v[1].total_runs, 4096);
  TU_EQ_I64(v[1].min_run, 1024);
  TU_EQ_I64(v[1].max_run, 1024);
  TU_EQ_INT(v[1].nonconforming, 4);
  TU_CHECK(adv.weighted_runs == 3.0 * 4 + 1.0 * 4096);

  /* the heavier consumer wins either way */
  c[0].weight = 1, c[1].weight = 3;
  TU_OK(darray_advise_storage(2, g, 4, 2, c, &adv, v));
  EXPECT_PERM(adv.perm, 1, 0);
  TU_CHECK(adv.conforming_weight == 3 && adv.collective_weight == 1);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_INT(v[1].verdict, DARRAY_VERDICT_CONFORMING);

  /* alone: rows -> C, columns -> Fortran */
  TU_OK(darray_advise_storage(2, g, 4, 1, &c[0], &adv, v));
  EXPECT_PERM(adv.perm, 0, 1);
  TU_OK(darray_advise_storage(2, g, 4, 1, &c[1], &adv, v));
  EXPECT_PERM(adv.perm, 1, 0);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);

  /* equal weights on a square array tie on everything: C order */
  c[0].weight = c[1].weight = 1;
  TU_OK(darray_advise_storage(2, g, 4, 2, c, &adv, NULL));
  EXPECT_PERM(adv.perm, 0, 1);
  /* ... on 1024 x 512 the runs decide: C order costs the column readers
   * 1024 runs per process, Fortran order the row readers only 512 */
  int64_t g2[2] = {1024, 512};
  TU_OK(darray_advise_storage(2, g2, 4, 2, c, &adv, v));
  EXPECT_PERM(adv.perm, 1, 0);
  TU_CHECK(adv.weighted_runs == 4 + 4 * 512);
  TU_EQ_I64(v[0].max_runs, 512);

  /* darray_advise_order: the other order, same numbers mirrored */
  int f[2] = {1, 0};
  c[0].weight = 3, c[1].weight = 1;
  TU_OK(darray_advise_order(2, g, 4, 2, c, f, &adv, v));
  EXPECT_PERM(adv.perm, 1, 0);
  TU_CHECK(adv.conforming_weight == 1 && adv.collective_weight == 3);
  TU_EQ_INT(adv.ncandidates, 1);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_I64(v[0].max_runs, 1024);
  TU_EQ_INT(v[1].verdict, DARRAY_VERDICT_CONFORMING);

  /* all weights zero: nothing to gain anywhere, C order */
  c[0].weight = c[1].weight = 0;
  TU_OK(darray_advise_storage(2, g2, 4, 2, c, &adv, NULL));
  EXPECT_PERM(adv.perm, 0, 1);
  TU_CHECK(adv.total_weight == 0);
}

static void three_d(void) {
  int64_t g[3] = {16, 12, 8};
  darray_advice_t adv;
  darray_consumer_verdict_t v[3];
  /* the split dimension must be slowest; among the conforming orders the
   * tie-break prefers C, then Fortran, then the smallest permutation */
  darray_dist_t d0[3] = {BLOCK, NONE, NONE}, d1[3] = {NONE, BLOCK, NONE},
                d2[3] = {NONE, NONE, BLOCK};
  darray_consumer_t c = consumer("x", 1, 4, 3, d0);
  TU_OK(darray_advise_storage(3, g, 8, 1, &c, &adv, v));
  EXPECT_PERM(adv.perm, 0, 1, 2);
  TU_EQ_INT(adv.ncandidates, 6);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  TU_EQ_I64(v[0].max_run, 4 * 12 * 8 * 8);
  c = consumer("y", 1, 4, 3, d1);
  TU_OK(darray_advise_storage(3, g, 8, 1, &c, &adv, v));
  EXPECT_PERM(adv.perm, 1, 0, 2);
  TU_EQ_I64(v[0].max_runs, 1);
  c = consumer("z", 1, 4, 3, d2);
  TU_OK(darray_advise_storage(3, g, 8, 1, &c, &adv, v));
  EXPECT_PERM(adv.perm, 2, 1, 0);

  /* y under C order: each process holds 3 rows of each of 16 planes */
  int corder[3] = {0, 1, 2};
  c = consumer("y", 1, 4, 3, d1);
  TU_OK(darray_advise_order(3, g, 8, 1, &c, corder, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_I64(v[0].max_runs, 16);
  TU_EQ_I64(v[0].max_run, 3 * 8 * 8);

  /* two 2-D grids: the heavier (x,y) one conforms to nothing, so the
   * lighter z one decides; the block-block consumer stays interleaved */
  darray_dist_t dxy[3] = {BLOCK, BLOCK, NONE};
  darray_consumer_t two[2] = {consumer("xy", 5, 4, 3, dxy),
                              consumer("z", 1, 4, 3, d2)};
  TU_OK(darray_advise_storage(3, g, 8, 2, two, &adv, v));
  TU_CHECK(adv.conforming_weight == 1);
  TU_EQ_INT(v[1].verdict, DARRAY_VERDICT_CONFORMING);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_INT(adv.perm[0], 2);
  TU_EQ_INT(v[0].psizes[0] * v[0].psizes[1], 4);
}

static void cyclic(void) {
  int64_t g[2] = {16, 16};
  darray_dist_t dc[2] = {CYCLIC, NONE};
  darray_consumer_t c = consumer("cyc", 1, 4, 2, dc);
  darray_advice_t adv;
  darray_consumer_verdict_t v[1];
  int corder[2] = {0, 1};
  /* CYCLIC(1) rows: 4 rows per process, every other process's in between */
  TU_OK(darray_advise_order(2, g, 4, 1, &c, corder, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_I64(v[0].max_runs, 4);
  TU_EQ_I64(v[0].max_run, 16 * 4);
  /* CYCLIC(4) over 4 processes is one block each: conforming */
  c.dargs[0] = 4;
  TU_OK(darray_advise_order(2, g, 4, 1, &c, corder, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  /* CYCLIC(2) on 2 processes: 4 blocks of 2 rows each, interleaved */
  c.dargs[0] = 2;
  c.nprocs = 2;
  TU_OK(darray_advise_order(2, g, 4, 1, &c, corder, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_I64(v[0].max_runs, 4);
  TU_EQ_I64(v[0].total_runs, 8);
  /* one process: cyclic or not, it owns everything in one run */
  c.nprocs = 1;
  TU_OK(darray_advise_storage(2, g, 4, 1, &c, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  TU_EQ_I64(v[0].total_runs, 1);
}

static void multipartition(void) {
  int64_t g[4] = {5, 9, 8, 7};
  darray_dist_t dm[4] = {NONE, MP, MP, MP};
  darray_consumer_t c = consumer("bt", 1, 4, 4, dm);
  darray_advice_t adv;
  darray_consumer_verdict_t v[1];
  /* q = 2 cells per process, each cut in all three partitioned
   * dimensions: never one stretch per cell, whatever the order */
  TU_OK(darray_advise_storage(4, g, 8, 1, &c, &adv, v));
  TU_CHECK(adv.conforming_weight == 0);
  TU_EQ_INT(adv.ncandidates, 24);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_EQ_INT(v[0].nonconforming, 4);
  TU_EQ_INT(v[0].psizes[0], 1);
  TU_EQ_INT(v[0].psizes[1], 2);
  c.nprocs = 9;
  TU_OK(darray_advise_storage(4, g, 8, 1, &c, &adv, v));
  TU_CHECK(adv.conforming_weight == 0);
  TU_EQ_INT(v[0].nonconforming, 9);
  /* with one process there is one cell: everything, one run */
  c.nprocs = 1;
  TU_OK(darray_advise_storage(4, g, 8, 1, &c, &adv, v));
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  EXPECT_PERM(adv.perm, 0, 1, 2, 3);
}

/* More processes than the caller has, and grids chosen as darray_commit
 * chooses them. */
static void other_process_counts(void) {
  int64_t g[2] = {600, 400};
  darray_dist_t bb[2] = {BLOCK, BLOCK};
  darray_consumer_t c = consumer("bb", 1, 12, 2, bb);
  darray_advice_t adv;
  darray_consumer_verdict_t v[1];
  TU_OK(darray_advise_storage(2, g, 4, 1, &c, &adv, v));
  int ps[2] = {0, 0};
  MPI_Dims_create(12, 2, ps);
  TU_EQ_INT(v[0].psizes[0], ps[0]);
  TU_EQ_INT(v[0].psizes[1], ps[1]);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  /* a 1 x 12 grid of column blocks conforms to Fortran order */
  c.psizes[0] = 1;
  c.psizes[1] = 12;
  TU_OK(darray_advise_storage(2, g, 4, 1, &c, &adv, v));
  EXPECT_PERM(adv.perm, 1, 0);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_CONFORMING);
  /* 4096 processes: still only numbers per process */
  darray_dist_t rows[2] = {BLOCK, NONE};
  int64_t big[2] = {1 << 20, 1 << 20};
  c = consumer("many", 1, 4096, 2, rows);
  TU_OK(darray_advise_storage(2, big, 8, 1, &c, &adv, v));
  EXPECT_PERM(adv.perm, 0, 1);
  TU_EQ_I64(v[0].max_run, (int64_t)256 * (1 << 20) * 8);
}

/* 7 dimensions: the undistributed ones stay fastest. */
static void seven_d(void) {
  int64_t g[7] = {2, 3, 2, 4, 2, 6, 2};
  darray_dist_t d3[7] = {NONE, NONE, NONE, BLOCK, NONE, NONE, NONE};
  darray_dist_t d5[7] = {NONE, NONE, NONE, NONE, NONE, BLOCK, NONE};
  darray_consumer_t c[2] = {consumer("a", 1, 2, 7, d3),
                            consumer("b", 2, 3, 7, d5)};
  darray_advice_t adv;
  darray_consumer_verdict_t v[2];
  TU_OK(darray_advise_storage(7, g, 4, 2, c, &adv, v));
  TU_EQ_INT(adv.all_orders, 0);
  TU_EQ_INT(adv.ncandidates, 4); /* 3 5 ..., 5 3 ..., C, Fortran */
  EXPECT_PERM(adv.perm, 5, 3, 0, 1, 2, 4, 6);
  TU_EQ_INT(v[1].verdict, DARRAY_VERDICT_CONFORMING);
  TU_EQ_INT(v[0].verdict, DARRAY_VERDICT_INTERLEAVED);
  TU_CHECK(adv.conforming_weight == 2);
  /* the oracle agrees on both verdicts */
  for (int i = 0; i < 2; i++)
    TU_EQ_INT(oracle(7, g, 4, &c[i], adv.perm).verdict, v[i].verdict);
}

/* ------------------------------------------------------------------------ */
/* the orders walked (darray__next_perm)                                    */

/* darray__next_perm, which the advisor's candidates and this file's oracle
 * walk orders with: from the increasing order of n distinct values (spaced
 * out, as the advisor's free dimensions are), each step is a permutation
 * of them that follows the last one in lexicographic order; there are n!
 * of them; after the last (decreasing) one the answer is false and the
 * order stays as it was. Together: every order, once, in order. */
static void next_perm_walk(void) {
  for (int n = 0; n <= 7; n++) {
    int p[8] = {0}, prev[8] = {0}, steps = 1, fact = 1, ok = 1;
    for (int i = 0; i < n; i++)
      p[i] = 3 * i + 1, fact *= i + 1;
    memcpy(prev, p, sizeof p);
    while (ok && darray__next_perm(p, n)) {
      steps++;
      int seen[8] = {0}, k = 0;
      for (int i = 0; i < n; i++)
        if (p[i] % 3 == 1 && p[i] / 3 < n && !seen[p[i] / 3]++)
          k++;
      int i = 0;
      while (i < n && p[i] == prev[i])
        i++;
      ok = TU_CHECK(k == n) && TU_CHECK(i < n && p[i] > prev[i]);
      memcpy(prev, p, sizeof p);
    }
    if (!ok) {
      fprintf(stderr, "  n=%d step %d\n", n, steps);
      continue;
    }
    TU_EQ_INT(steps, fact);
    for (int i = 0; i < n; i++)
      TU_EQ_INT(p[i], 3 * (n - 1 - i) + 1); /* the last: decreasing, kept */
  }
}

/* ------------------------------------------------------------------------ */
/* the oracle over many descriptions                                        */

/* Consumer k of a family of 2-D and 3-D descriptions. */
static int family(int nd, int k, darray_consumer_t *c) {
  static const int nps[] = {1, 2, 3, 4};
  const int nkinds = 4; /* NONE, BLOCK, CYCLIC(1), CYCLIC(2) per dim */
  int combos = 1;
  for (int d = 0; d < nd; d++)
    combos *= nkinds;
  if (k >= combos * 4)
    return 0;
  memset(c, 0, sizeof *c);
  c->weight = 1;
  c->nprocs = nps[k / combos];
  int code = k % combos;
  for (int d = 0; d < nd; d++, code /= nkinds) {
    int kind = code % nkinds;
    c->dist[d] = kind == 0 ? NONE : kind == 1 ? BLOCK : CYCLIC;
    c->dargs[d] = kind == 3 ? 2 : DARRAY_DEFAULT_ARG;
  }
  /* nothing distributed fits one process only: make it BLOCK rows */
  if (k % combos == 0 && c->nprocs > 1)
    c->dist[0] = BLOCK;
  return 1;
}

static void oracle_sweep(void) {
  int64_t g2[2] = {7, 10}, g3[3] = {5, 6, 4};
  int checked = 0;
  for (int nd = 2; nd <= 3; nd++) {
    const int64_t *g = nd == 2 ? g2 : g3;
    darray_consumer_t c;
    for (int k = 0; family(nd, k, &c); k++) {
      int perm[3] = {0, 1, 2};
      do {
        darray_advice_t adv;
        darray_consumer_verdict_t v;
        TU_OK(darray_advise_order(nd, g, 2, 1, &c, perm, &adv, &v));
        judged_t j = oracle(nd, g, 2, &c, perm);
        /* every element has one owner: a hole is always another's data */
        TU_CHECK(v.verdict != DARRAY_VERDICT_FRAGMENTED);
        if (!TU_EQ_INT(v.verdict, j.verdict) ||
            !TU_EQ_INT(v.nonconforming, j.nonconforming) ||
            !TU_CHECK(v.max_runs >= j.max_stretches)) {
          fprintf(stderr, "  nd=%d consumer %d (np %d)\n", nd, k, c.nprocs);
          print_perm("perm", perm, nd);
          return;
        }
        checked++;
      } while (darray__next_perm(perm, nd));
    }
  }
  /* multipartition on 3 and 4 dimensions at P = 4 and 9 */
  int64_t gm[4] = {3, 7, 6, 5};
  darray_dist_t dm[4] = {NONE, MP, MP, MP};
  for (int np = 4; np <= 9; np += 5) {
    darray_consumer_t c = consumer("mp", 1, np, 4, dm);
    int perm[4] = {0, 1, 2, 3};
    do {
      darray_advice_t adv;
      darray_consumer_verdict_t v;
      TU_OK(darray_advise_order(4, gm, 8, 1, &c, perm, &adv, &v));
      judged_t j = oracle(4, gm, 8, &c, perm);
      TU_EQ_INT(v.verdict, j.verdict);
      TU_EQ_INT(v.nonconforming, j.nonconforming);
      /* cells are boxes: their stretches are exactly the runs */
      TU_EQ_I64(v.total_runs, j.total_stretches);
      checked++;
    } while (darray__next_perm(perm, 4));
  }
  TU_CHECK(checked > 500);
}

/* The recommended order is optimal under the oracle: no order gives more
 * conforming weight, or as much with less collective weight. */
static void oracle_optimal(void) {
  int64_t g[3] = {6, 5, 4};
  double weights[] = {0.5, 2, 1, 3, 0.25};
  for (int set = 0; set < 40; set++) {
    darray_consumer_t c[3];
    int n = 1 + set % 3;
    for (int i = 0; i < n; i++) {
      family(3, (set * 37 + i * 101) % 256, &c[i]);
      c[i].weight = weights[(set + i) % 5];
    }
    darray_advice_t adv;
    TU_OK(darray_advise_storage(3, g, 4, n, c, &adv, NULL));
    double best_conf = -1, best_coll = 0;
    int perm[3] = {0, 1, 2};
    do {
      double conf = 0, coll = 0;
      for (int i = 0; i < n; i++) {
        judged_t j = oracle(3, g, 4, &c[i], perm);
        conf += j.verdict == DARRAY_VERDICT_CONFORMING ? c[i].weight : 0;
        coll += j.verdict == DARRAY_VERDICT_INTERLEAVED ? c[i].weight : 0;
      }
      if (conf > best_conf || (conf == best_conf && coll < best_coll))
        best_conf = conf, best_coll = coll;
    } while (darray__next_perm(perm, 3));
    if (!TU_CHECK(fabs(adv.conforming_weight - best_conf) < 1e-12 &&
                  fabs(adv.collective_weight - best_coll) < 1e-12))
      fprintf(stderr, "  set %d: advisor %g/%g, oracle %g/%g\n", set,
              adv.conforming_weight, adv.collective_weight, best_conf,
              best_coll);
  }
}

/* ------------------------------------------------------------------------ */
/* agreement with the planner on real arrays                                */

static void planner_case(darray_file_t f, int nd, const int64_t *g,
                         const darray_consumer_t *c, const int *perm) {
  darray_advice_t adv;
  darray_consumer_verdict_t v;
  if (!TU_OK(darray_advise_order(nd, g, 4, 1, c, perm, &adv, &v)))
    return;
  int64_t dargs[DARRAY_MAX_DIMS]; /* the advisor's 0 is the default */
  for (int d = 0; d < nd; d++)
    dargs[d] = c->dargs[d] == 0 ? DARRAY_DEFAULT_ARG : c->dargs[d];
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, nd, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, c->dist, dargs));
  TU_OK(darray_set_grid(a, c->psizes));
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_PERM, perm));
  TU_OK(darray_commit(a));
  int ps[DARRAY_MAX_DIMS];
  TU_OK(darray_grid(a, ps));
  for (int d = 0; d < nd; d++)
    TU_EQ_INT(ps[d], v.psizes[d]);
  for (int write = 0; write <= 1; write++) {
    char *text = tu_explain(f, a, write);
    int yes = strstr(text, "storage order: yes") != NULL;
    /* the planner's interleave verdict (it then weighs two-phase against
     * direct runs and sieving; two-phase only ever follows interleaving) */
    int inter = strstr(text, "processes interleave;") != NULL;
    int two = strstr(text, "strategy: twophase") != NULL;
    if (!TU_EQ_INT(yes, v.nonconforming == 0) ||
        !TU_EQ_INT(inter, v.verdict == DARRAY_VERDICT_INTERLEAVED) ||
        !TU_CHECK(inter || !two))
      fprintf(stderr, "  verdict %d, explain said:\n%s", v.verdict, text);
    free(text);
  }
  /* and a real read reports the strategy the advisor foresaw */
  int64_t nbytes;
  TU_OK(darray_local_bytes(a, &nbytes));
  char *buf = calloc(1, (size_t)(nbytes > 0 ? nbytes : 1));
  TU_OK(darray_write(f, a, buf));
  TU_OK(darray_file_reset_stats(f));
  TU_OK(darray_read(f, a, buf));
  darray_stats_t st;
  TU_OK(darray_file_get_stats(f, &st));
  /* two-phase only for interleaved access, which may also go direct or,
   * being a read, be sieved when the cost model says so (sieved windows
   * then carry other processes' data); otherwise direct runs: a whole
   * array leaves no hole that only sieving could read through */
  if (v.verdict == DARRAY_VERDICT_INTERLEAVED)
    TU_CHECK(strcmp(st.strategy, "twophase") == 0 ||
             strcmp(st.strategy, "direct") == 0 ||
             strcmp(st.strategy, "sieve") == 0);
  else
    TU_CHECK(strcmp(st.strategy, "direct") == 0);
  free(buf);
  darray_free(&a);
}

static void planner_agreement(void) {
  int P = tu_nprocs();
  char path[512];
  tu_tmpname(path, sizeof path, "advisor");
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, MPI_INFO_NULL,
                         &f));
  int64_t g2[2] = {24, 20}, g3[3] = {8, 6, 10};
  darray_consumer_t c;
  for (int k = 0; family(2, k, &c); k++) {
    if (c.nprocs != 1) /* the family's process count is replaced by P */
      continue;
    c.nprocs = P;
    if (c.dist[0] == NONE && c.dist[1] == NONE)
      c.dist[0] = BLOCK; /* nothing distributed fits one process only */
    int perm[2] = {0, 1};
    do
      planner_case(f, 2, g2, &c, perm);
    while (darray__next_perm(perm, 2));
  }
  darray_dist_t d3[][3] = {{BLOCK, NONE, NONE}, {NONE, BLOCK, NONE},
                           {NONE, NONE, CYCLIC}, {BLOCK, BLOCK, BLOCK},
                           {CYCLIC, NONE, BLOCK}};
  for (size_t k = 0; k < sizeof d3 / sizeof d3[0]; k++) {
    c = consumer("3d", 1, P, 3, d3[k]);
    int perm[3] = {0, 1, 2};
    do
      planner_case(f, 3, g3, &c, perm);
    while (darray__next_perm(perm, 3));
  }
  if (P == 1 || P == 4) {
    int64_t gm[4] = {3, 8, 6, 5};
    darray_dist_t dm[4] = {NONE, MP, MP, MP};
    c = consumer("mp", 1, P, 4, dm);
    int perm[4] = {0, 1, 2, 3};
    planner_case(f, 4, gm, &c, perm);
    int f4[4] = {3, 2, 1, 0};
    planner_case(f, 4, gm, &c, f4);
  } else {
    tu_skip_part("multipartition planner", "MULTIPARTITION needs a square "
                 "P; its 3 x 8 x 6 x 5 case is sized for P = 1 or 4");
  }
  darray_file_close(&f);
  tu_remove(path);
}

/* ------------------------------------------------------------------------ */
/* the report and bad input                                                 */

static void report(void) {
  int64_t g[2] = {64, 32};
  darray_dist_t rd[2] = {BLOCK, NONE}, cd[2] = {NONE, BLOCK};
  darray_consumer_t c[2] = {consumer("rows", 3, 4, 2, rd),
                            consumer(NULL, 1, 2, 2, cd)};
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  TU_OK(darray_advise_report(2, g, 4, 2, c, mem));
  fclose(mem);
  TU_CONTAINS(text, "recommended storage order: 0 1 (C)");
  TU_CONTAINS(text, "1 0 (Fortran)");
  TU_CONTAINS(text, "BLOCK(16) x *");
  TU_CONTAINS(text, "need collective I/O: #1 (weight 1)");
  TU_CONTAINS(text, "interleaved");
  free(text);
  /* a 5-D report lists the best 24 of 120 */
  int64_t g5[5] = {2, 3, 2, 2, 3};
  darray_dist_t d5[5] = {NONE, BLOCK, NONE, NONE, NONE};
  darray_consumer_t c5 = consumer("five", 1, 3, 5, d5);
  mem = open_memstream(&text, &len);
  TU_OK(darray_advise_report(5, g5, 1, 1, &c5, mem));
  fclose(mem);
  TU_CONTAINS(text, "96 more candidates not shown");
  TU_CONTAINS(text, "recommended storage order: 1 0 2 3 4");
  free(text);
}

#define EXPECT_ERR(call, code, word)                                           \
  do {                                                                         \
    if (TU_EQ_CODE((call), (code)) && (word) != NULL &&                        \
        !TU_CONTAINS(darray_errmsg(NULL), (word)))                             \
      fprintf(stderr, "  message: %s\n", darray_errmsg(NULL));                 \
  } while (0)

static void bad_input(void) {
  int64_t g[3] = {8, 8, 8};
  darray_dist_t rd[3] = {BLOCK, NONE, NONE};
  darray_consumer_t c[2] = {consumer("ok", 1, 4, 3, rd),
                            consumer("bad", 1, 4, 3, rd)};
  darray_advice_t adv;
  darray_consumer_verdict_t v[2];
  int perm[3] = {0, 1, 2};
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, NULL, v), DARRAY_ENULL,
             "advice");
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, NULL, &adv, v), DARRAY_ENULL,
             "consumers");
  EXPECT_ERR(darray_advise_storage(3, NULL, 4, 2, c, &adv, v), DARRAY_ENULL,
             "gsizes");
  EXPECT_ERR(darray_advise_order(3, g, 4, 2, c, NULL, &adv, v), DARRAY_ENULL,
             "perm");
  EXPECT_ERR(darray_advise_report(3, g, 4, 2, c, NULL), DARRAY_ENULL, "out");
  EXPECT_ERR(darray_advise_storage(0, g, 4, 2, c, &adv, v), DARRAY_ENDIMS,
             "ndims");
  EXPECT_ERR(darray_advise_storage(9, g, 4, 2, c, &adv, v), DARRAY_ENDIMS,
             "ndims");
  int64_t g0[3] = {8, 0, 8}, ghuge[3] = {INT64_MAX / 2, 4, 1};
  EXPECT_ERR(darray_advise_storage(3, g0, 4, 2, c, &adv, v), DARRAY_ESIZE,
             "gsizes[1]");
  EXPECT_ERR(darray_advise_storage(3, ghuge, 4, 2, c, &adv, v), DARRAY_ESIZE,
             "gsizes");
  int64_t gbytes[3] = {INT64_MAX / 4, 1, 1};
  EXPECT_ERR(darray_advise_storage(3, gbytes, 8, 2, c, &adv, v),
             DARRAY_ESIZE, "overflows");
  EXPECT_ERR(darray_advise_storage(3, g, 0, 2, c, &adv, v), DARRAY_ETYPE,
             "esize");
  EXPECT_ERR(darray_advise_storage(3, g, 4, 0, c, &adv, v), DARRAY_EINVAL,
             "nconsumers");
  c[1].weight = -1;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EINVAL,
             "consumers[1] (bad): weight");
  c[1].weight = NAN;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EINVAL,
             "weight");
  c[1].weight = INFINITY;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EINVAL,
             "weight");
  c[1] = consumer("bad", 1, 0, 3, rd);
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EGRID,
             "consumers[1] (bad): nprocs");
  c[1] = consumer("bad", 1, 4, 3, rd);
  c[1].psizes[0] = -2;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EGRID,
             "psizes[0]");
  c[1].psizes[0] = 3; /* 3 does not divide 4 */
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EGRID,
             "psizes");
  c[1].psizes[0] = 0;
  c[1].psizes[1] = 2; /* a NONE dimension cannot have 2 processes */
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EGRID,
             "psizes[1]");
  c[1] = consumer("bad", 1, 4, 3, rd);
  c[1].dist[2] = (darray_dist_t)7;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EDIST,
             "consumers[1] (bad): dist[2]");
  c[1] = consumer("bad", 1, 4, 3, rd);
  c[1].dargs[0] = -5;
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EDIST,
             "dargs[0]");
  c[1].dargs[0] = 1; /* BLOCK(1) over 4 processes covers 4 of 8 */
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EDIST,
             "dargs[0]");
  darray_dist_t mp2[3] = {MP, MP, NONE}, mp3[3] = {MP, MP, MP};
  c[1] = consumer("bad", 1, 4, 3, mp2);
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EDIST,
             "MULTIPARTITION");
  c[1] = consumer(NULL, 1, 3, 3, mp3);
  EXPECT_ERR(darray_advise_storage(3, g, 4, 2, c, &adv, v), DARRAY_EDIST,
             "consumers[1]: dist: MULTIPARTITION needs a perfect-square");
  int64_t gsmall[3] = {8, 1, 8};
  c[1] = consumer("bad", 1, 4, 3, mp3);
  EXPECT_ERR(darray_advise_storage(3, gsmall, 4, 2, c, &adv, v), DARRAY_EDIST,
             "gsizes[1]");
  c[1] = consumer("bad", 1, 4, 3, rd);
  int dup[3] = {0, 0, 2}, out[3] = {0, 1, 3};
  EXPECT_ERR(darray_advise_order(3, g, 4, 2, c, dup, &adv, v), DARRAY_EORDER,
             "perm");
  EXPECT_ERR(darray_advise_order(3, g, 4, 2, c, out, &adv, v), DARRAY_EORDER,
             "perm");
  /* after the failures, good input works and the message is cleared */
  TU_OK(darray_advise_order(3, g, 4, 2, c, perm, &adv, v));
  TU_EQ_STR(darray_errmsg(NULL), "");
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  rows_and_columns();
  three_d();
  cyclic();
  multipartition();
  other_process_counts();
  seven_d();
  next_perm_walk();
  oracle_sweep();
  oracle_optimal();
  report();
  bad_input();
  planner_agreement();
  return tu_finish();
}
