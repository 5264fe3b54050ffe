/*
 * test_seek_unit.c - the run iterator's seek, against a linear scan.
 *
 * For many block-cyclic cells (built directly from index sets, as any rank
 * of a larger grid would own them) and every storage order, seeking to each
 * file offset must land on the first run that a scan from the start finds
 * to end after that offset, and continuing from there must produce exactly
 * the runs the scan produces. 1 rank.
 */
#include "internal.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#define MAXRUNS 4096

static int scan_all(layout_iter_t *it, layout_run_t *runs) {
  int n = 0;
  layout_run_t r;
  while (n < MAXRUNS && darray__layout_next(it, &r))
    runs[n++] = r;
  return n;
}

/* Check seek(off) for every offset against the full scan. */
static void check_offsets(layout_iter_t *it, const layout_run_t *runs, int n,
                          int64_t lo, int64_t hi, const char *what) {
  for (int64_t off = lo; off < hi; off++) {
    int first = 0;
    while (first < n && runs[first].foff + runs[first].len <= off)
      first++;
    darray__layout_seek(it, off);
    layout_run_t r;
    for (int k = first; k < n; k++) {
      if (!TU_CHECK(darray__layout_next(it, &r)) ||
          !TU_EQ_I64(r.foff, runs[k].foff) || !TU_EQ_I64(r.len, runs[k].len) ||
          !TU_EQ_I64(r.moff, runs[k].moff)) {
        TU_FAIL("%s: seek to %lld, run %d differs", what, (long long)off, k);
        return;
      }
    }
    if (!TU_CHECK(!darray__layout_next(it, &r))) {
      TU_FAIL("%s: seek to %lld gives extra runs", what, (long long)off);
      return;
    }
  }
}

static void one_case(int ndims, const int64_t *g, darray_order_t order,
                     const int *perm, const int *p, const int64_t *b,
                     const bool *cyc, int nsec, uint64_t seed) {
  darray_t a;
  if (!TU_OK(darray_create(MPI_COMM_SELF, ndims, g, DARRAY_INT16, &a)))
    return;
  TU_OK(darray_set_storage_order(a, order, perm));
  TU_OK(darray_set_displacement(a, 7));
  TU_OK(darray_commit(a));
  section_t sec[2];
  for (int s = 0; s < nsec; s++) {
    sec[s] = a->sec[0]; /* memory strides of the whole array */
    for (int d = 0; d < ndims; d++) {
      int c = (int)(tu_value(seed + (uint64_t)s, d) % (uint64_t)p[d]);
      darray__dist_set_blockcyclic(&sec[s].set[d], g[d], p[d], c, b[d],
                                   cyc[d]);
    }
    sec[s].mem_base = s * 100000;
  }
  layout_iter_t it;
  static layout_run_t runs[MAXRUNS];
  TU_OK(darray__layout_iter_init(&it, a, sec, nsec));
  int n = scan_all(&it, runs);
  int64_t total = 2;
  for (int d = 0; d < ndims; d++)
    total *= g[d];
  char what[128];
  snprintf(what, sizeof what, "ndims %d order %d seed %llu nsec %d", ndims,
           (int)order, (unsigned long long)seed, nsec);
  check_offsets(&it, runs, n, 0, 7 + total + 3, what);
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
