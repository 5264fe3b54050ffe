/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_dist_unit.c - table-driven checks of the distribution index math in
 * src/dist (1 rank; calls internal functions from src/dist/dist.h).
 *
 * Every expected value comes from a brute-force loop written here from the
 * definitions (BLOCK/CYCLIC: owner (g / b) mod p, local (g / (b p)) b + g mod
 * b; MULTIPARTITION: the formulas and the q = 3 table of BTIO.md).
 */
#include "dist/dist.h"
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- block-cyclic sets ------------------------------------------------ */

typedef struct bc_case {
  int64_t n;
  int p;
  int64_t b;
  bool cyclic;
} bc_case_t;

/* clang-format off */
static const bc_case_t bc_cases[] = {
    /* BLOCK, default block ceil(n/p) and explicit blocks with b*p >= n */
    {10, 4, 3, false},  /* 3 3 3 1 */
    {5, 4, 2, false},   /* 2 2 1 0: rank 3 empty */
    {12, 4, 3, false},  /* even */
    {7, 3, 5, false},   /* BLOCK(5): 5 2 0 */
    {9, 2, 100, false}, /* one rank owns all */
    {1, 4, 1, false},   /* 1 0 0 0 */
    {13, 5, 3, false},  /* 3 3 3 3 1 */
    {6, 1, 6, false},   /* p = 1 */
    {6, 1, 8, false},   /* p = 1, block larger than n */
    {1, 1, 1, false},
    /* CYCLIC(1) */
    {10, 4, 1, true},
    {3, 4, 1, true}, /* rank 3 empty */
    {8, 4, 1, true},
    {7, 1, 1, true},
    /* CYCLIC(k), partial last block, empty ranks */
    {10, 3, 2, true},  /* blocks 2 2 2 2 2: ranks own 4 4 2 */
    {11, 3, 2, true},  /* last block of rank 2 partial */
    {17, 4, 3, true},  /* 6 blocks, last partial */
    {5, 4, 2, true},   /* ranks 0 1 2 own 2 2 1, rank 3 empty */
    {7, 2, 4, true},   /* one block each, rank 1 partial */
    {100, 3, 7, true}, /* many blocks */
    {9, 1, 4, true},   /* p = 1 cyclic */
    {24, 4, 3, true},  /* exact multiple */
    {1, 2, 5, true},
};
/* clang-format on */

/* The oracle: owner coordinate and local index of global index g. */
static int oracle_owner(int64_t g, int p, int64_t b) {
  return (int)((g / b) % p);
}

static int64_t oracle_local(int64_t g, int p, int64_t b) {
  return (g / (b * p)) * b + g % b;
}

/* Enumerate a set from its documented fields into out[]; returns size, or
 * -1 if it does not fit in max. */
static int64_t enumerate_fields(const dist_set_t *s, int64_t *out,
                                int64_t max) {
  int64_t k = 0;
  for (int64_t j = 0; j < s->count; j++) {
    int64_t nt = (j == s->count - 1) ? s->last : s->block;
    for (int64_t t = 0; t < nt; t++) {
      if (k >= max)
        return -1;
      out[k++] = s->first + j * s->stride + t;
    }
  }
  return k;
}

static void check_bc_coord(const bc_case_t *tc, int c, int64_t *want,
                           int64_t *got) {
  char what[160];
  snprintf(what, sizeof what, "n=%lld p=%d c=%d b=%lld %s", (long long)tc->n,
           tc->p, c, (long long)tc->b, tc->cyclic ? "CYCLIC" : "BLOCK");

  /* oracle: owned indices in increasing order, with their local indices */
  int64_t nwant = 0;
  for (int64_t g = 0; g < tc->n; g++) {
    if (oracle_owner(g, tc->p, tc->b) != c)
      continue;
    if (!TU_EQ_I64(oracle_local(g, tc->p, tc->b), nwant))
      fprintf(stderr, "  oracle local index not dense (%s)\n", what);
    want[nwant++] = g;
  }

  dist_set_t s;
  darray__dist_set_blockcyclic(&s, tc->n, tc->p, c, tc->b, tc->cyclic);
  if (!TU_EQ_I64(darray__dist_set_size(&s), nwant))
    fprintf(stderr, "  case %s\n", what);

  /* the fields mean what dist/dist.h says */
  TU_CHECK(s.count >= 0);
  if (nwant == 0) {
    TU_EQ_I64(s.count, 0);
  } else {
    TU_CHECK(s.block >= 1);
    TU_CHECK(s.last >= 1 && s.last <= s.block);
    if (s.count == 1)
      TU_EQ_I64(s.stride, s.block);
    int64_t ngot = enumerate_fields(&s, got, tc->n + 1);
    if (TU_EQ_I64(ngot, nwant)) {
      for (int64_t k = 0; k < nwant; k++)
        if (!TU_EQ_I64(got[k], want[k])) {
          fprintf(stderr, "  fields of %s, local %lld\n", what, (long long)k);
          break;
        }
    } else {
      fprintf(stderr,
              "  fields of %s: first %lld block %lld stride %lld "
              "count %lld last %lld\n",
              what, (long long)s.first, (long long)s.block, (long long)s.stride,
              (long long)s.count, (long long)s.last);
    }
  }

  /* darray__dist_set_global: local l -> the l-th owned index */
  for (int64_t l = 0; l < nwant; l++)
    if (!TU_EQ_I64(darray__dist_set_global(&s, l), want[l])) {
      fprintf(stderr, "  set_global of %s, l = %lld\n", what, (long long)l);
      break;
    }
}

static void test_blockcyclic(void) {
  int ncases = (int)(sizeof bc_cases / sizeof bc_cases[0]);
  for (int i = 0; i < ncases; i++) {
    const bc_case_t *tc = &bc_cases[i];
    int64_t *want = malloc(sizeof(int64_t) * (size_t)(tc->n + 1));
    int64_t *got = malloc(sizeof(int64_t) * (size_t)(tc->n + 1));
    int64_t total = 0;
    for (int c = 0; c < tc->p; c++) {
      check_bc_coord(tc, c, want, got);
      dist_set_t s;
      darray__dist_set_blockcyclic(&s, tc->n, tc->p, c, tc->b, tc->cyclic);
      total += darray__dist_set_size(&s);
    }
    TU_EQ_I64(total, tc->n); /* the coordinates partition the dimension */

    /* darray__dist_owner_blockcyclic over every index */
    for (int64_t g = 0; g < tc->n; g++) {
      int coord = -1;
      int64_t local = -1;
      darray__dist_owner_blockcyclic(g, tc->p, tc->b, tc->cyclic, &coord,
                                     &local);
      if (!TU_EQ_INT(coord, oracle_owner(g, tc->p, tc->b)) ||
          !TU_EQ_I64(local, oracle_local(g, tc->p, tc->b))) {
        fprintf(stderr, "  owner of g=%lld, case %d\n", (long long)g, i);
        break;
      }
    }
    free(want);
    free(got);
  }
}

/* Hand-written sets for a few cases, so a wrong oracle would show too. */
static void test_blockcyclic_literal(void) {
  dist_set_t s;
  /* n=10 p=4 BLOCK(3): rank 3 owns {9} */
  darray__dist_set_blockcyclic(&s, 10, 4, 3, 3, false);
  TU_EQ_I64(darray__dist_set_size(&s), 1);
  TU_EQ_I64(darray__dist_set_global(&s, 0), 9);
  /* n=5 p=4 BLOCK(2): rank 3 owns nothing, rank 2 owns {4} */
  darray__dist_set_blockcyclic(&s, 5, 4, 3, 2, false);
  TU_EQ_I64(darray__dist_set_size(&s), 0);
  darray__dist_set_blockcyclic(&s, 5, 4, 2, 2, false);
  TU_EQ_I64(darray__dist_set_size(&s), 1);
  TU_EQ_I64(darray__dist_set_global(&s, 0), 4);
  /* n=11 p=3 CYCLIC(2): rank 2 owns {4,5,10} */
  darray__dist_set_blockcyclic(&s, 11, 3, 2, 2, true);
  TU_EQ_I64(darray__dist_set_size(&s), 3);
  TU_EQ_I64(darray__dist_set_global(&s, 0), 4);
  TU_EQ_I64(darray__dist_set_global(&s, 1), 5);
  TU_EQ_I64(darray__dist_set_global(&s, 2), 10);
  TU_EQ_I64(s.first, 4);
  TU_EQ_I64(s.block, 2);
  TU_EQ_I64(s.stride, 6);
  TU_EQ_I64(s.count, 2);
  TU_EQ_I64(s.last, 1);
  /* n=10 p=4 CYCLIC(1): rank 1 owns {1,5,9} */
  darray__dist_set_blockcyclic(&s, 10, 4, 1, 1, true);
  TU_EQ_I64(darray__dist_set_size(&s), 3);
  TU_EQ_I64(darray__dist_set_global(&s, 2), 9);
  /* local index of 9 under CYCLIC(1), p=4 is 2 */
  int coord;
  int64_t local;
  darray__dist_owner_blockcyclic(9, 4, 1, true, &coord, &local);
  TU_EQ_INT(coord, 1);
  TU_EQ_I64(local, 2);
  /* BLOCK(3), p=4: index 7 is on coord 2, local 1 */
  darray__dist_owner_blockcyclic(7, 4, 3, false, &coord, &local);
  TU_EQ_INT(coord, 2);
  TU_EQ_I64(local, 1);
}

static void test_set_range(void) {
  static const int64_t ranges[][2] = {
      {0, 1}, {0, 10}, {7, 3}, {22, 21}, {5, 0}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    dist_set_t s;
    int64_t start = ranges[i][0], len = ranges[i][1];
    darray__dist_set_range(&s, start, len);
    TU_EQ_I64(darray__dist_set_size(&s), len);
    if (len == 0) {
      TU_EQ_I64(s.count, 0);
      continue;
    }
    TU_EQ_I64(s.count, 1);
    TU_EQ_I64(s.first, start);
    TU_EQ_I64(s.stride, s.block);
    TU_EQ_I64(s.last, len);
    for (int64_t l = 0; l < len; l++)
      if (!TU_EQ_I64(darray__dist_set_global(&s, l), start + l))
        break;
  }
}

/* ---- multipartition --------------------------------------------------- */

static int mod(int a, int q) { return ((a % q) + q) % q; }

/* Slab s of q over n from the BTIO.md definition: the first n mod q slabs
 * are one point larger; starts are running sums. */
static void oracle_slab(int64_t n, int q, int s, int64_t *start, int64_t *len) {
  int64_t pos = 0;
  *start = *len = 0;
  for (int t = 0; t <= s; t++) {
    int64_t l = n / q + (t < n % q ? 1 : 0);
    if (t == s) {
      *start = pos;
      *len = l;
    }
    pos += l;
  }
}

static void test_mp_slab_literal(void) {
  static const struct {
    int64_t n;
    int q;
    int64_t start[6], len[6];
  } t[] = {
      {64, 3, {0, 22, 43}, {22, 21, 21}},    /* class A, BTIO.md */
      {12, 2, {0, 6}, {6, 6}},               /* class S, P=4 */
      {24, 4, {0, 6, 12, 18}, {6, 6, 6, 6}}, /* class W, P=16 */
      {12, 1, {0}, {12}},
      {102, 4, {0, 26, 52, 77}, {26, 26, 25, 25}}, /* class B, P=16 */
      {162, 5, {0, 33, 66, 98, 130}, {33, 33, 32, 32, 32}},
      {64, 6, {0, 11, 22, 33, 44, 54}, {11, 11, 11, 11, 10, 10}},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int s = 0; s < t[i].q; s++) {
      int64_t st = -1, ln = -1;
      darray__dist_mp_slab(t[i].n, t[i].q, s, &st, &ln);
      if (!TU_EQ_I64(st, t[i].start[s]) || !TU_EQ_I64(ln, t[i].len[s]))
        fprintf(stderr, "  mp_slab n=%lld q=%d s=%d\n", (long long)t[i].n,
                t[i].q, s);
    }
}

static void test_mp_slab_brute(void) {
  static const int64_t ns[] = {1, 2, 3, 5, 7, 12, 13, 24, 25, 64, 100, 102};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    int64_t n = ns[i];
    for (int q = 1; q <= 7 && q <= n; q++) {
      int64_t sum = 0;
      for (int s = 0; s < q; s++) {
        int64_t st, ln, ost, oln;
        darray__dist_mp_slab(n, q, s, &st, &ln);
        oracle_slab(n, q, s, &ost, &oln);
        if (!TU_EQ_I64(st, ost) || !TU_EQ_I64(ln, oln))
          fprintf(stderr, "  mp_slab n=%lld q=%d s=%d\n", (long long)n, q, s);
        sum += ln;
      }
      TU_EQ_I64(sum, n);
      /* slab_of: every g lies in the slab the oracle says */
      for (int64_t g = 0; g < n; g++) {
        int want = -1;
        for (int s = 0; s < q; s++) {
          int64_t ost, oln;
          oracle_slab(n, q, s, &ost, &oln);
          if (g >= ost && g < ost + oln)
            want = s;
        }
        if (!TU_EQ_INT(darray__dist_mp_slab_of(n, q, g), want)) {
          fprintf(stderr, "  mp_slab_of n=%lld q=%d g=%lld\n", (long long)n, q,
                  (long long)g);
          break;
        }
      }
    }
  }
}

/* Dimensions near INT64_MAX: no intermediate may overflow (the sanitizer
 * build traps signed overflow). Expected values from n = q * size + excess
 * worked by hand. */
static void test_mp_slab_huge(void) {
  int64_t st, ln;
  darray__dist_mp_slab(INT64_MAX, 1, 0, &st, &ln);
  TU_EQ_I64(st, 0);
  TU_EQ_I64(ln, INT64_MAX);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX, 1, INT64_MAX - 1), 0);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX, 1, 0), 0);
  /* INT64_MAX = 2 * 4611686018427387903 + 1: slab 0 one point larger */
  const int64_t h = INT64_C(4611686018427387903);
  darray__dist_mp_slab(INT64_MAX, 2, 0, &st, &ln);
  TU_EQ_I64(st, 0);
  TU_EQ_I64(ln, h + 1);
  darray__dist_mp_slab(INT64_MAX, 2, 1, &st, &ln);
  TU_EQ_I64(st, h + 1);
  TU_EQ_I64(ln, h);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX, 2, h), 0);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX, 2, h + 1), 1);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX, 2, INT64_MAX - 1), 1);
  /* INT64_MAX - 1 = 3 * 3074457345618258602: equal slabs */
  const int64_t t3 = INT64_C(3074457345618258602);
  darray__dist_mp_slab(INT64_MAX - 1, 3, 2, &st, &ln);
  TU_EQ_I64(st, 2 * t3);
  TU_EQ_I64(ln, t3);
  TU_EQ_INT(darray__dist_mp_slab_of(INT64_MAX - 1, 3, 2 * t3 - 1), 1);
}

/* BTIO.md's owner table for q = 3: owner[z][y][x]. */
static const int bt_q3[3][3][3] = {
    {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}},
    {{5, 3, 4}, {8, 6, 7}, {2, 0, 1}},
    {{7, 8, 6}, {1, 2, 0}, {4, 5, 3}},
};

static void test_mp_q3_table(void) {
  for (int z = 0; z < 3; z++)
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 3; x++) {
        int xyz[3] = {x, y, z}, rank = -1, cell = -1;
        darray__dist_mp_owner(3, xyz, &rank, &cell);
        if (!TU_EQ_INT(rank, bt_q3[z][y][x]) || !TU_EQ_INT(cell, z))
          fprintf(stderr, "  mp_owner q=3 cell (%d,%d,%d)\n", x, y, z);
      }
}

static void test_mp_cells(int q) {
  int p = q * q;
  /* owner formula and the inverse relation with mp_cell */
  for (int z = 0; z < q; z++)
    for (int y = 0; y < q; y++)
      for (int x = 0; x < q; x++) {
        int xyz[3] = {x, y, z}, rank = -1, cell = -1;
        darray__dist_mp_owner(q, xyz, &rank, &cell);
        int want = mod(x - z, q) + q * mod(y + z, q);
        if (!TU_EQ_INT(rank, want) || !TU_EQ_INT(cell, z))
          fprintf(stderr, "  mp_owner q=%d (%d,%d,%d)\n", q, x, y, z);
      }
  for (int r = 0; r < p; r++) {
    int seen[3][16] = {{0}};
    int prevz = -1;
    for (int k = 0; k < q; k++) {
      int xyz[3] = {-1, -1, -1};
      darray__dist_mp_cell(q, r, k, xyz);
      /* BTIO.md: ((i0 + k) mod q, (j0 - k) mod q, k) */
      TU_EQ_INT(xyz[0], mod(r % q + k, q));
      TU_EQ_INT(xyz[1], mod(r / q - k, q));
      TU_EQ_INT(xyz[2], k);
      TU_CHECK(xyz[2] > prevz); /* ordered by z */
      prevz = xyz[2];
      for (int d = 0; d < 3; d++)
        if (TU_CHECK(xyz[d] >= 0 && xyz[d] < q))
          seen[d][xyz[d]]++;
      /* the owner of the cell is r, and it is r's cell k */
      int rank = -1, cell = -1;
      darray__dist_mp_owner(q, xyz, &rank, &cell);
      TU_EQ_INT(rank, r);
      TU_EQ_INT(cell, k);
    }
    for (int d = 0; d < 3; d++)
      for (int s = 0; s < q; s++)
        if (!TU_EQ_INT(seen[d][s], 1))
          fprintf(stderr, "  q=%d rank %d has %d cells in slab %d of dim %d\n",
                  q, r, seen[d][s], s, d);
  }
}

static void test_isqrt(void) {
  for (int p = 1; p <= 400; p++) {
    int want = -1;
    for (int r = 1; r * r <= p; r++)
      if (r * r == p)
        want = r;
    if (!TU_EQ_INT(darray__dist_isqrt(p), want))
      fprintf(stderr, "  isqrt(%d)\n", p);
  }
  TU_EQ_INT(darray__dist_isqrt(46340 * 46340), 46340);
  TU_EQ_INT(darray__dist_isqrt(46340 * 46340 + 1), -1);
  TU_EQ_INT(darray__dist_isqrt(2147483647), -1);
  TU_EQ_INT(darray__dist_isqrt(1 << 30), 1 << 15);
}

static void test_coords(void) {
  /* row-major: rank = c0*p1*p2 + c1*p2 + c2 */
  int psizes[3] = {2, 3, 4};
  for (int r = 0; r < 24; r++) {
    int c[3] = {-1, -1, -1};
    darray__dist_coords(3, psizes, r, c);
    TU_EQ_INT(c[0], r / 12);
    TU_EQ_INT(c[1], (r / 4) % 3);
    TU_EQ_INT(c[2], r % 4);
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  test_blockcyclic();
  test_blockcyclic_literal();
  test_set_range();
  test_mp_slab_literal();
  test_mp_slab_brute();
  test_mp_slab_huge();
  test_mp_q3_table();
  for (int q = 1; q <= 5; q++)
    test_mp_cells(q);
  test_isqrt();
  test_coords();
  return tu_finish();
}
