/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_seek_unit.c - the run iterator and its seek, against an enumeration
 * of every element.
 *
 * For many block-cyclic cells (built directly from index sets, as any rank
 * of a larger grid would own them) and every storage order, the test walks
 * the whole array itself: which cell owns each element (BLOCK(b): index
 * i / b == c; CYCLIC(b): (i / b) % p == c), its file offset from gsizes,
 * the permutation and the displacement, and its memory offset from the
 * cell's local indices (the rank of i among the cell's indices) and memory
 * strides the test chose. Each cell's elements, in file order, grouped
 * into runs, merged across cells by (offset, cell), are the expected runs.
 * A run is what src/layout/layout.h promises: a box that is a stretch of one
 * file dimension (the slowest one after which the cell owns every index of
 * every faster dimension) with the faster ones in full, so two elements
 * adjacent in the file share a run when they agree on every dimension
 * slower than that one. The iterator from the start must produce exactly
 * them (offset, length, first memory offset, cell, whether the run is
 * contiguous in memory too), and after a seek to any file offset exactly
 * those that end after it. 1 rank.
 */
#include "array.h"
#include "layout/layout.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#define MAXRUNS 4096
#define ES 2 /* int16 */
#define DISP 7

typedef struct { int64_t foff, moff, row; } elem_t;
typedef struct { int64_t foff, len, moff; int sec; bool contig; } orun_t;

/* What the test asks of one case. */
typedef struct scase {
  int ndims;
  const int64_t *g, *b;
  const int *p, *c[2]; /* cells per dimension, of each section */
  const bool *cyc;
  int fperm[DARRAY_MAX_DIMS]; /* file dimensions, slowest first */
  int64_t mstride[DARRAY_MAX_DIMS];
} scase_t;

static bool owns(int64_t i, int p, int c, int64_t b, bool cyc) {
  return cyc ? (i / b) % p == c : i / b == c;
}

static int by_foff(const void *x, const void *y) {
  const elem_t *a = x, *b = y;
  return (a->foff > b->foff) - (a->foff < b->foff);
}

static int by_foff_sec(const void *x, const void *y) {
  const orun_t *a = x, *b = y;
  if (a->foff != b->foff)
    return (a->foff > b->foff) - (a->foff < b->foff);
  return a->sec - b->sec;
}

/* Whether section s owns every index of dimension d. */
static bool owns_all(const scase_t *k, int s, int d) {
  for (int64_t i = 0; i < k->g[d]; i++)
    if (!owns(i, k->p[d], k->c[s][d], k->b[d], k->cyc[d]))
      return false;
  return true;
}

/* Section s's elements, in file order: every element of the array tested
 * for ownership; `row` numbers the run box it belongs to (its indices in
 * the dimensions slower than the run's). Returns how many. */
static int64_t cell_elems(const scase_t *k, int s, elem_t *el) {
  int nd = k->ndims, depth = nd - 1;
  int64_t fstride[DARRAY_MAX_DIMS], total = 1, n = 0;
  for (int i = nd - 1; i >= 0; i--) {
    fstride[k->fperm[i]] = total;
    total *= k->g[k->fperm[i]];
  }
  while (depth > 0 && owns_all(k, s, k->fperm[depth]))
    depth--;
  int64_t rowsize = fstride[k->fperm[depth]] * k->g[k->fperm[depth]];
  for (int64_t e = 0; e < total; e++) {
    int64_t rest = e, foff = DISP, moff = (int64_t)s * 100000;
    bool mine = true;
    for (int d = nd - 1; d >= 0; d--) { /* row-major index e */
      int64_t i = rest % k->g[d], loc = 0;
      rest /= k->g[d];
      mine &= owns(i, k->p[d], k->c[s][d], k->b[d], k->cyc[d]);
      for (int64_t j = 0; j < i; j++)
        loc += owns(j, k->p[d], k->c[s][d], k->b[d], k->cyc[d]);
      foff += ES * i * fstride[d];
      moff += loc * k->mstride[d];
    }
    if (mine)
      el[n++] = (elem_t){foff, moff, (foff - DISP) / ES / rowsize};
  }
  qsort(el, (size_t)n, sizeof *el, by_foff);
  return n;
}

/* The expected runs of every section, merged in file order. */
static int oracle_runs(const scase_t *k, int nsec, orun_t *out) {
  static elem_t el[4096];
  int n = 0;
  for (int s = 0; s < nsec; s++) {
    int64_t ne = cell_elems(k, s, el);
    for (int64_t e = 0; e < ne; e++) {
      orun_t *r = &out[n - 1];
      if (e > 0 && el[e].foff == r->foff + r->len &&
          el[e].row == el[e - 1].row) {
        r->contig &= el[e].moff == r->moff + r->len;
        r->len += ES;
      } else {
        out[n++] = (orun_t){el[e].foff, ES, el[e].moff, s, true};
      }
    }
  }
  qsort(out, (size_t)n, sizeof *out, by_foff_sec);
  return n;
}

/* The run expected. A one-element run is contiguous in memory whatever
 * the flag says (the iterator may call it not contiguous: the slower,
 * always correct path). */
static bool same_run(const layout_run_t *r, const orun_t *o) {
  return r->foff == o->foff && r->len == o->len && r->moff == o->moff &&
         r->sec == o->sec && (o->len == ES || r->mem_contig == o->contig);
}

/* The iterator's runs from where it stands against the expected runs that
 * end after `off`. */
static void check_from(layout_iter_t *it, const orun_t *runs, int n,
                       int64_t off, const char *what) {
  layout_run_t r;
  for (int k = 0; k < n; k++) {
    if (runs[k].foff + runs[k].len <= off)
      continue;
    if (!TU_CHECK(darray__layout_next(it, &r)) ||
        !TU_CHECK(same_run(&r, &runs[k]))) {
      TU_FAIL("%s: from %lld, expected run %d {foff %lld len %lld moff %lld "
              "sec %d contig %d}, got {%lld %lld %lld %d %d}", what,
              (long long)off, k, (long long)runs[k].foff,
              (long long)runs[k].len, (long long)runs[k].moff, runs[k].sec,
              runs[k].contig, (long long)r.foff, (long long)r.len,
              (long long)r.moff, r.sec, r.mem_contig);
      return;
    }
  }
  if (!TU_CHECK(!darray__layout_next(it, &r)))
    TU_FAIL("%s: from %lld, extra runs", what, (long long)off);
}

static void one_case(int ndims, const int64_t *g, darray_order_t order,
                     const int *perm, const int *p, const int64_t *b,
                     const bool *cyc, int nsec, uint64_t seed) {
  darray_t a;
  if (!TU_OK(darray_create(MPI_COMM_SELF, ndims, g, DARRAY_INT16, &a)))
    return;
  TU_OK(darray_set_storage_order(a, order, perm));
  TU_OK(darray_set_displacement(a, DISP));
  TU_OK(darray_commit(a));
  int cells[2][DARRAY_MAX_DIMS];
  scase_t k = {ndims, g, b, p, {cells[0], cells[1]}, cyc, {0}, {0}};
  for (int i = 0; i < ndims; i++) /* slowest first */
    k.fperm[i] = order == DARRAY_ORDER_C ? i
                 : order == DARRAY_ORDER_FORTRAN ? ndims - 1 - i : perm[i];
  int64_t m = ES; /* memory: the whole array in C order, in bytes */
  for (int d = ndims - 1; d >= 0; d--, m *= g[d + 1])
    k.mstride[d] = m;
  section_t sec[2];
  for (int s = 0; s < nsec; s++) {
    sec[s] = a->sec[0];
    for (int d = 0; d < ndims; d++) {
      cells[s][d] = (int)(tu_value(seed + (uint64_t)s, d) % (uint64_t)p[d]);
      darray__dist_set_blockcyclic(&sec[s].set[d], g[d], p[d], cells[s][d],
                                   b[d], cyc[d]);
      sec[s].mem_stride[d] = k.mstride[d];
    }
    sec[s].mem_base = s * 100000;
  }
  static orun_t runs[MAXRUNS];
  int n = oracle_runs(&k, nsec, runs);
  layout_iter_t it;
  TU_OK(darray__layout_iter_init(&it, &a->d, sec, nsec));
  int64_t total = ES;
  for (int d = 0; d < ndims; d++)
    total *= g[d];
  char what[128];
  snprintf(what, sizeof what, "ndims %d order %d seed %llu nsec %d", ndims,
           (int)order, (unsigned long long)seed, nsec);
  check_from(&it, runs, n, -1, what); /* the walk from the start */
  for (int64_t off = 0; off < DISP + total + 3; off++) {
    darray__layout_seek(&it, off);
    check_from(&it, runs, n, off, what);
  }
  darray__layout_iter_free(&it);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  const int64_t g3[3] = {5, 6, 7}, b3[3] = {2, 3, 2};
  const int p3[3] = {2, 2, 3};
  const int perm[3] = {1, 2, 0};
  for (uint64_t seed = 0; seed < 12; seed++) {
    bool cyc[3] = {seed & 1, (seed >> 1) & 1, (seed >> 2) & 1};
    one_case(3, g3, DARRAY_ORDER_C, NULL, p3, b3, cyc, 1 + (int)(seed % 2),
             seed);
    one_case(3, g3, DARRAY_ORDER_FORTRAN, NULL, p3, b3, cyc, 1, seed);
    one_case(3, g3, DARRAY_ORDER_PERM, perm, p3, b3, cyc, 2, seed);
  }
  /* a cell covering whole rows: runs merge over the fast dimensions */
  const int64_t g2[2] = {9, 4}, b2[2] = {2, 4};
  const int p2[2] = {3, 1};
  const bool c2[2] = {true, false};
  one_case(2, g2, DARRAY_ORDER_C, NULL, p2, b2, c2, 1, 3);
  one_case(2, g2, DARRAY_ORDER_FORTRAN, NULL, p2, b2, c2, 2, 5);
  return tu_finish();
}
