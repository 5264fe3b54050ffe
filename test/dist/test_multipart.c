/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_multipart.c - MULTIPARTITION and the NAS BTIO file layout.
 *
 * At P = q*q (1 and 4 here) the test writes the BTIO pattern of
 * /work/shared/BTIO.md: u(5,N,N,N) doubles, dist {NONE, MP, MP, MP},
 * Fortran storage, memory u(5,-2:IMAX+1,-2:JMAX+1,-2:KMAX+1,ncells) with
 * IMAX = JMAX = KMAX = N/q + 1, several dumps appended by moving the
 * displacement (d * 40 N^3) after commit. Every rank computes its own cells
 * from the BTIO formulas (not from darrayio) and fills each cell's interior
 * with a closed form of (m, i, j, k, dump); ghosts and padding hold a NaN
 * sentinel. Rank 0 then checks every double of the file at byte offset
 * 8m + 40(i + N(j + N(k + N d))) and compares the whole file with one it
 * generates serially, so the file is the same whatever P is. Every dump is
 * read back into a sentinel-filled buffer: interiors must match, ghosts and
 * padding must stay sentinel. Sizes: N = 7, 9 (q does not divide N at q=2),
 * 8 (it does), 12 (class S); one N with the mpiio back end, one with the
 * dumps written out of order, one forced direct and one forced collective.
 * darray_local_shape / darray_local_start of every cell, darray_locate and
 * darray_file_offset of every point are checked against the formulas.
 * More MULTIPARTITION arrays are checked the same way against a serial
 * image: {N,N,N} all MP with C storage, C memory and no ghosts (N = 7, 8),
 * and variants with unequal sizes (down to 2 = q points), the NONE
 * dimension in the middle or last, Fortran/C orders, ghosts and padding.
 *
 * At P = 2 and 3 (not perfect squares) darray_commit must fail with
 * DARRAY_EDIST on every rank.
 *
 * Run: mpiexec -n 1..4 ./test_multipart
 */

#include "dist_oracle.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOMP 5
#define NDUMPS 3
#define SENTINEL_BITS 0x7ff8dead5e7e1e11ULL /* a quiet NaN */

/* ---- BTIO formulas (the oracle; no darrayio code) -------------------------
 */

static int isqrt_exact(int p) {
  for (int q = 1; q * q <= p; q++)
    if (q * q == p)
      return q;
  return -1;
}

/* Slabs, the cells of a rank and the owner of a cell: dist_oracle.h
 * (BTIO.md "Cell extents"). */

/* Box of one cell: low and extent per spatial dimension. */
typedef struct cellbox {
  int xyz[3];
  int64_t low[3], len[3];
} cellbox_t;

static void cell_box(int64_t N, int q, int r, int k, cellbox_t *b) {
  dor_cell_of(q, r, k, b->xyz);
  for (int s = 0; s < 3; s++)
    dor_slab(N, q, b->xyz[s], &b->low[s], &b->len[s]);
}

/* The value of component m of point (i, j, k) in dump d. */
static double value(int m, int64_t i, int64_t j, int64_t k, int d) {
  return m + 10.0 * i + 1000.0 * j + 100000.0 * k + 1e7 * d + 0.25;
}

static void put_sentinel(double *p) {
  uint64_t s = SENTINEL_BITS;
  memcpy(p, &s, sizeof s);
}

static void fill_sentinel(double *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    put_sentinel(p + i);
}

/* ---- the BTIO (4-D) case --------------------------------------------------
 */

typedef struct btio {
  int64_t N;
  int q;
  int mpiio;
  int reorder;       /* write the dumps in the order 2, 0, 1 */
  const char *hints; /* extra "key=value;key=value" hints, or NULL */
} btio_t;

/* Doubles per cell box in memory: 5 x (IMAX+4) x (JMAX+4) x (KMAX+4). */
static int64_t bt_ext(const btio_t *t) { return t->N / t->q + 1 + 4; }

static int64_t bt_cell_doubles(const btio_t *t) {
  int64_t e = bt_ext(t);
  return NCOMP * e * e * e;
}

/* Index of u(m, ii, jj, kk, c) with ii etc. counted from the -2 ghost. */
static int64_t bt_index(const btio_t *t, int c, int m, int64_t ii, int64_t jj,
                        int64_t kk) {
  int64_t e = bt_ext(t);
  return c * bt_cell_doubles(t) + m + NCOMP * (ii + e * (jj + e * kk));
}

/* This rank's buffer for dump d: sentinel everywhere but the interiors. */
static void bt_fill(const btio_t *t, int rank, int d, double *u) {
  fill_sentinel(u, t->q * bt_cell_doubles(t));
  for (int c = 0; c < t->q; c++) {
    cellbox_t b;
    cell_box(t->N, t->q, rank, c, &b);
    for (int64_t k = 0; k < b.len[2]; k++)
      for (int64_t j = 0; j < b.len[1]; j++)
        for (int64_t i = 0; i < b.len[0]; i++)
          for (int m = 0; m < NCOMP; m++)
            u[bt_index(t, c, m, i + 2, j + 2, k + 2)] =
                value(m, b.low[0] + i, b.low[1] + j, b.low[2] + k, d);
  }
}

static void bt_describe(const btio_t *t, char *buf, size_t n) {
  snprintf(buf, n, "BTIO N=%lld q=%d backend=%s dumps %s hints %s",
           (long long)t->N, t->q, t->mpiio ? "mpiio" : "posix",
           t->reorder ? "2,0,1" : "0,1,2", t->hints ? t->hints : "none");
}

static int bt_create(const btio_t *t, darray_t *ap) {
  int64_t N = t->N;
  int64_t g[4] = {NCOMP, N, N, N};
  darray_dist_t dist[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION};
  int64_t ghost[4] = {0, 2, 2, 2};
  int64_t e = bt_ext(t);
  int64_t padded[4] = {NCOMP, e, e, e};
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 4, g, DARRAY_DOUBLE, ap)))
    return DARRAY_EINVAL;
  TU_OK(darray_set_distribution(*ap, dist, NULL));
  TU_OK(darray_set_storage_order(*ap, DARRAY_ORDER_FORTRAN, NULL));
  TU_OK(darray_set_memory_layout(*ap, DARRAY_ORDER_FORTRAN, ghost, padded));
  return darray_commit(*ap);
}

/* Shape queries of every local cell against the formulas. */
static void bt_check_queries(const btio_t *t, darray_t a, int rank) {
  int ncells = -1, grid[4] = {0};
  TU_OK(darray_num_cells(a, &ncells));
  TU_EQ_INT(ncells, t->q);
  TU_OK(darray_grid(a, grid));
  TU_EQ_INT(grid[0], 1);
  for (int s = 1; s < 4; s++)
    TU_EQ_INT(grid[s], t->q);
  int64_t count = 0, want_count = 0, bytes = 0;
  for (int c = 0; c < t->q; c++) {
    cellbox_t b;
    cell_box(t->N, t->q, rank, c, &b);
    int64_t shape[4] = {-1, -1, -1, -1}, start[4] = {-1, -1, -1, -1};
    TU_OK(darray_local_shape(a, c, shape));
    TU_OK(darray_local_start(a, c, start));
    TU_EQ_I64(shape[0], NCOMP);
    TU_EQ_I64(start[0], 0);
    for (int s = 0; s < 3; s++) {
      if (!TU_EQ_I64(shape[s + 1], b.len[s]) ||
          !TU_EQ_I64(start[s + 1], b.low[s]))
        fprintf(stderr, "[rank %d]   N=%lld q=%d cell %d dim %d (slab %d)\n",
                rank, (long long)t->N, t->q, c, s + 1, b.xyz[s]);
    }
    want_count += NCOMP * b.len[0] * b.len[1] * b.len[2];
  }
  int64_t shape[4];
  TU_EQ_CODE(darray_local_shape(a, t->q, shape), DARRAY_EINDEX);
  TU_OK(darray_local_count(a, &count));
  TU_EQ_I64(count, want_count);
  TU_OK(darray_local_bytes(a, &bytes));
  TU_EQ_I64(bytes, (int64_t)sizeof(double) * t->q * bt_cell_doubles(t));
}

/* Rank 0: darray_locate and darray_file_offset of every point against the
 * BTIO owner formula and the file offset formula. */
static void bt_check_locate(const btio_t *t, darray_t a) {
  int64_t N = t->N;
  int bad = 0;
  for (int64_t k = 0; k < N; k++)
    for (int64_t j = 0; j < N; j++)
      for (int64_t i = 0; i < N; i++) {
        int m = (int)((i + j + k) % NCOMP);
        int64_t g[4] = {m, i, j, k};
        int xyz[3] = {0, 0, 0};
        int64_t pt[3] = {i, j, k}, low[3], len[3];
        for (int s = 0; s < 3; s++) {
          while (1) {
            dor_slab(N, t->q, xyz[s], &low[s], &len[s]);
            if (pt[s] < low[s] + len[s])
              break;
            xyz[s]++;
          }
        }
        int want_rank = dor_owner_of_cell(t->q, xyz);
        int want_cell = xyz[2]; /* cells are numbered by increasing z */
        int rank = -1, cell = -1;
        int64_t lidx[4] = {-1, -1, -1, -1}, moff = -1, foff = -1;
        int rc1 = darray_locate(a, g, &rank, &cell, lidx, &moff);
        int rc2 = darray_file_offset(a, g, &foff);
        int64_t want_foff = 8 * m + 40 * (i + N * (j + N * k));
        int64_t want_moff =
            8 * bt_index(t, want_cell, m, pt[0] - low[0] + 2,
                         pt[1] - low[1] + 2, pt[2] - low[2] + 2);
        int ok = rc1 == 0 && rc2 == 0 && rank == want_rank &&
                 cell == want_cell && lidx[0] == m && foff == want_foff &&
                 moff == want_moff;
        for (int s = 0; s < 3; s++)
          ok = ok && lidx[s + 1] == pt[s] - low[s];
        if (!ok && bad++ == 0)
          TU_FAIL("N=%lld q=%d locate(%d,%lld,%lld,%lld): rc %d/%d rank %d "
                  "(want %d) cell %d (want %d) offset %lld (want %lld) "
                  "file offset %lld (want %lld)",
                  (long long)N, t->q, m, (long long)i, (long long)j,
                  (long long)k, rc1, rc2, rank, want_rank, cell, want_cell,
                  (long long)moff, (long long)want_moff, (long long)foff,
                  (long long)want_foff);
      }
  TU_CHECK(bad == 0);
}

/* Rank 0: the file, element by element and as a whole. */
static void bt_check_file(const btio_t *t, const char *path, const char *desc) {
  int64_t N = t->N, dump = 40 * N * N * N, n = -1;
  unsigned char *data = tu_read_file(path, &n);
  if (!TU_CHECK(data != NULL))
    return;
  TU_EQ_I64(n, NDUMPS * dump);
  double *want = malloc((size_t)(NDUMPS * dump));
  int bad = 0;
  for (int d = 0; d < NDUMPS; d++)
    for (int64_t k = 0; k < N; k++)
      for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < N; i++)
          for (int m = 0; m < NCOMP; m++) {
            int64_t off = 8 * m + 40 * (i + N * (j + N * (k + N * d)));
            double v = value(m, i, j, k, d), got;
            want[off / 8] = v;
            if (off + 8 > n) {
              bad++;
              continue;
            }
            memcpy(&got, data + off, 8);
            if (memcmp(&got, &v, 8) != 0 && bad++ == 0)
              TU_FAIL("%s: file offset %lld (m=%d i=%lld j=%lld k=%lld "
                      "dump %d) holds %.17g, expected %.17g",
                      desc, (long long)off, m, (long long)i, (long long)j,
                      (long long)k, d, got, v);
          }
  TU_CHECK(bad == 0);
  if (n == NDUMPS * dump)
    tu_compare_bytes(data, want, n, "BTIO file vs serially generated file");
  free(want);
  free(data);
}

static void bt_run(const btio_t *t, const char *path) {
  int rank = tu_rank();
  long fail0 = tu_failures();
  char desc[128];
  bt_describe(t, desc, sizeof desc);
  darray_t a = NULL;
  int rc = bt_create(t, &a);
  if (!TU_OK(rc)) {
    fprintf(stderr, "[rank %d] %s: commit: %s\n", rank, desc, darray_errmsg(a));
    darray_free(&a);
    return;
  }
  bt_check_queries(t, a, rank);
  if (rank == 0 && t->q <= 2)
    bt_check_locate(t, a);

  int64_t nd = t->q * bt_cell_doubles(t), count = 0;
  darray_local_count(a, &count);
  double *u = malloc((size_t)nd * sizeof(double));
  double *r = malloc((size_t)nd * sizeof(double));
  MPI_Info info = tu_info(t->hints);
  MPI_Info_set(info, "darray_backend", t->mpiio ? "mpiio" : "posix");
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             info, &f))) {
    for (int w = 0; w < NDUMPS; w++) {
      int d = t->reorder ? (w + 2) % NDUMPS : w;
      bt_fill(t, rank, d, u);
      memcpy(r, u, (size_t)nd * sizeof(double));
      TU_OK(darray_set_displacement(a, d * 40 * t->N * t->N * t->N));
      TU_OK(darray_file_reset_stats(f));
      if (!TU_OK(darray_write(f, a, u)))
        fprintf(stderr, "[rank %d] %s: write dump %d: %s\n", rank, desc, d,
                darray_file_errmsg(f));
      tu_compare_bytes(u, r, nd * 8, "BTIO write buffer unchanged by write");
      darray_stats_t st;
      TU_OK(darray_file_get_stats(f, &st));
      /* a rank that did its own I/O wrote exactly its bytes; with
       * collective buffering only the sum over ranks is exact */
      if (st.cycles == 0)
        TU_EQ_I64(st.bytes_written, count * 8);
      int64_t sum = 0;
      MPI_Allreduce(&st.bytes_written, &sum, 1, MPI_INT64_T, MPI_SUM,
                    MPI_COMM_WORLD);
      TU_EQ_I64(sum, 40 * t->N * t->N * t->N);
    }
    TU_OK(darray_file_close(&f));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    bt_check_file(t, path, desc);
  MPI_Barrier(MPI_COMM_WORLD);

  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    for (int d = 0; d < NDUMPS; d++) {
      fill_sentinel(r, nd);
      TU_OK(darray_set_displacement(a, d * 40 * t->N * t->N * t->N));
      if (!TU_OK(darray_read(f, a, r)))
        fprintf(stderr, "[rank %d] %s: read dump %d: %s\n", rank, desc, d,
                darray_file_errmsg(f));
      bt_fill(t, rank, d, u);
      if (tu_compare_bytes(r, u, nd * 8, "BTIO read-back vs expected")) {
        for (int64_t x = 0; x < nd; x++)
          if (memcmp(&r[x], &u[x], 8) != 0) {
            uint64_t bits;
            memcpy(&bits, &u[x], 8);
            fprintf(stderr,
                    "[rank %d]   dump %d: first wrong double #%lld "
                    "(cell %lld) got %.17g, expected %s%.17g\n",
                    rank, d, (long long)x, (long long)(x / bt_cell_doubles(t)),
                    r[x], bits == SENTINEL_BITS ? "sentinel " : "", u[x]);
            break;
          }
      }
    }
    TU_OK(darray_file_close(&f));
  }
  MPI_Info_free(&info);
  free(u);
  free(r);
  TU_OK(darray_free(&a));
  if (tu_failures() != fail0)
    fprintf(stderr, "[rank %d] FAILED %s\n", rank, desc);
}

/* ---- general MULTIPARTITION arrays ----------------------------------------
 */

/*
 * Three MP dimensions of any sizes (x, y, z in increasing dimension order)
 * and at most one NONE dimension anywhere, either storage and memory order,
 * ghosts and padding; one double per element. Checked against a serial
 * image of the file and a sentinel-filled read-back, like the BTIO case.
 */
typedef struct mpx {
  const char *label;
  int ndims;
  int64_t gsizes[4];
  int nonedim; /* the NONE dimension, or -1 */
  darray_order_t sorder, morder;
  int64_t ghost[4];
  int use_padded; /* padded = largest interior + 2 ghost + 1 */
} mpx_t;

/* The cell box of cell k of rank r over all dims: low and length. */
static void mpx_box(const mpx_t *t, int q, int r, int k, int64_t low[4],
                    int64_t len[4]) {
  int xyz[3], s = 0;
  dor_cell_of(q, r, k, xyz);
  for (int d = 0; d < t->ndims; d++) {
    if (d == t->nonedim) {
      low[d] = 0, len[d] = t->gsizes[d];
      continue;
    }
    dor_slab(t->gsizes[d], q, xyz[s++], &low[d], &len[d]);
  }
}

static int64_t mpx_padded(const mpx_t *t, int q, int d) {
  if (!t->use_padded)
    return 0;
  if (d == t->nonedim)
    return t->gsizes[d] + 2 * t->ghost[d] + 1;
  return (t->gsizes[d] + q - 1) / q + 2 * t->ghost[d] + 1;
}

/* Allocated extents of a cell and its size in doubles. */
static int64_t mpx_ext(const mpx_t *t, int q, const int64_t len[4],
                       int64_t ext[4]) {
  int64_t n = 1;
  for (int d = 0; d < t->ndims; d++) {
    int64_t pe = mpx_padded(t, q, d);
    ext[d] = pe ? pe : len[d] + 2 * t->ghost[d];
    n *= ext[d];
  }
  return n;
}

/* Linear index of idx in a box of extents ext in order o. */
static int64_t mpx_lin(int nd, const int64_t ext[], const int64_t idx[],
                       darray_order_t o) {
  int64_t lin = 0;
  if (o == DARRAY_ORDER_C)
    for (int d = 0; d < nd; d++)
      lin = lin * ext[d] + idx[d];
  else
    for (int d = nd - 1; d >= 0; d--)
      lin = lin * ext[d] + idx[d];
  return lin;
}

static double mpx_value(const mpx_t *t, const int64_t g[4], int dump) {
  double v = 0.5 + 1e7 * dump, w = 1;
  for (int d = t->ndims - 1; d >= 0; d--, w *= 16)
    v += w * (double)g[d];
  return v;
}

/* Fill (u != NULL) this rank's buffer for a dump; returns doubles in it and
 * the interior count in *count. */
static int64_t mpx_fill(const mpx_t *t, int q, int rank, int dump, double *u,
                        int64_t *count) {
  int64_t base = 0;
  *count = 0;
  for (int c = 0; c < q; c++) {
    int64_t low[4], len[4], ext[4], l[4] = {0, 0, 0, 0};
    mpx_box(t, q, rank, c, low, len);
    int64_t n = mpx_ext(t, q, len, ext);
    if (u != NULL)
      fill_sentinel(u + base, n);
    int64_t cnt = 1;
    for (int d = 0; d < t->ndims; d++)
      cnt *= len[d];
    *count += cnt;
    for (int64_t e = 0; e < cnt; e++) {
      int64_t rem = e, idx[4], g[4];
      for (int d = t->ndims - 1; d >= 0; d--) {
        l[d] = rem % len[d];
        rem /= len[d];
        idx[d] = l[d] + t->ghost[d];
        g[d] = low[d] + l[d];
      }
      if (u != NULL)
        u[base + mpx_lin(t->ndims, ext, idx, t->morder)] =
            mpx_value(t, g, dump);
    }
    base += n;
  }
  return base;
}

static void mpx_run(const mpx_t *t, int q, const char *path) {
  int rank = tu_rank(), nd = t->ndims;
  long fail0 = tu_failures();
  darray_dist_t dist[4];
  int64_t padded[4];
  for (int d = 0; d < nd; d++) {
    dist[d] = d == t->nonedim ? DARRAY_DIST_NONE : DARRAY_DIST_MULTIPARTITION;
    padded[d] = mpx_padded(t, q, d);
  }
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, nd, t->gsizes, DARRAY_DOUBLE, &a)))
    return;
  TU_OK(darray_set_distribution(a, dist, NULL));
  TU_OK(darray_set_storage_order(a, t->sorder, NULL));
  TU_OK(darray_set_memory_layout(a, t->morder, t->ghost,
                                 t->use_padded ? padded : NULL));
  int rc = darray_commit(a);
  if (!TU_OK(rc)) {
    fprintf(stderr, "[rank %d] %s: commit: %s\n", rank, t->label,
            darray_errmsg(a));
    darray_free(&a);
    return;
  }
  int64_t want_count, nbuf = mpx_fill(t, q, rank, 0, NULL, &want_count);
  int64_t count = -1, bytes = -1;
  int ncells = -1;
  TU_OK(darray_num_cells(a, &ncells));
  TU_EQ_INT(ncells, q);
  TU_OK(darray_local_count(a, &count));
  TU_EQ_I64(count, want_count);
  TU_OK(darray_local_bytes(a, &bytes));
  TU_EQ_I64(bytes, nbuf * 8);
  for (int c = 0; c < q; c++) {
    int64_t low[4], len[4], shape[4] = {-1, -1, -1, -1},
                            start[4] = {-1, -1, -1, -1};
    mpx_box(t, q, rank, c, low, len);
    TU_OK(darray_local_shape(a, c, shape));
    TU_OK(darray_local_start(a, c, start));
    for (int d = 0; d < nd; d++)
      if (!TU_EQ_I64(shape[d], len[d]) || !TU_EQ_I64(start[d], low[d]))
        fprintf(stderr, "[rank %d]   %s: cell %d dim %d\n", rank, t->label, c,
                d);
  }
  int64_t tot = 1;
  for (int d = 0; d < nd; d++)
    tot *= t->gsizes[d];
  int64_t disp2 = 8 * tot + 13; /* the second dump, not 8-byte aligned */
  double *u = malloc((size_t)(nbuf + 1) * sizeof(double));
  double *r = malloc((size_t)(nbuf + 1) * sizeof(double));
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             MPI_INFO_NULL, &f))) {
    for (int d = 0; d < 2; d++) {
      mpx_fill(t, q, rank, d, u, &count);
      TU_OK(darray_set_displacement(a, d ? disp2 : 0));
      if (!TU_OK(darray_write(f, a, u)))
        fprintf(stderr, "[rank %d] %s: write: %s\n", rank, t->label,
                darray_file_errmsg(f));
    }
    TU_OK(darray_file_close(&f));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int64_t flen = disp2 + 8 * tot, got_len = -1;
    unsigned char *want = calloc((size_t)flen, 1); /* the 13-byte gap: 0 */
    for (int d = 0; d < 2; d++)
      for (int64_t e = 0; e < tot; e++) {
        int64_t g[4], rem = e;
        for (int x = nd - 1; x >= 0; x--) {
          g[x] = rem % t->gsizes[x];
          rem /= t->gsizes[x];
        }
        double v = mpx_value(t, g, d);
        memcpy(want + (d ? disp2 : 0) +
                   8 * mpx_lin(nd, t->gsizes, g, t->sorder),
               &v, 8);
      }
    unsigned char *data = tu_read_file(path, &got_len);
    if (TU_EQ_I64(got_len, flen) && data != NULL &&
        tu_compare_bytes(data, want, flen, "MP file vs serial image")) {
      int64_t o = 0;
      while (data[o] == want[o])
        o++;
      double v;
      memcpy(&v, want + o / 8 * 8, 8);
      fprintf(stderr,
              "  %s: first difference at offset %lld (expected "
              "value %.17g there)\n",
              t->label, (long long)o, v);
    }
    free(data);
    free(want);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                             MPI_INFO_NULL, &f))) {
    for (int d = 0; d < 2; d++) {
      fill_sentinel(r, nbuf + 1);
      TU_OK(darray_set_displacement(a, d ? disp2 : 0));
      TU_OK(darray_read(f, a, r));
      mpx_fill(t, q, rank, d, u, &count);
      put_sentinel(u + nbuf);
      tu_compare_bytes(r, u, (nbuf + 1) * 8, "MP read-back vs expected");
    }
    TU_OK(darray_file_close(&f));
  }
  free(u);
  free(r);
  TU_OK(darray_free(&a));
  if (tu_failures() != fail0)
    fprintf(stderr, "[rank %d] FAILED %s q=%d\n", rank, t->label, q);
}

/* ---- P not a perfect square ---------------------------------------------- */

static void check_refused(void) {
  int64_t g4[4] = {NCOMP, 8, 8, 8}, g3[3] = {8, 8, 8};
  darray_dist_t d4[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                         DARRAY_DIST_MULTIPARTITION,
                         DARRAY_DIST_MULTIPARTITION};
  darray_t a = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 4, g4, DARRAY_DOUBLE, &a))) {
    TU_OK(darray_set_distribution(a, d4, NULL));
    TU_EQ_CODE(darray_commit(a), DARRAY_EDIST);
    TU_OK(darray_free(&a));
  }
  if (TU_OK(darray_create(MPI_COMM_WORLD, 3, g3, DARRAY_DOUBLE, &a))) {
    TU_OK(darray_set_distribution(a, d4 + 1, NULL));
    TU_EQ_CODE(darray_commit(a), DARRAY_EDIST);
    TU_OK(darray_free(&a));
  }
}

/* A partitioned dimension with fewer points than q slabs is refused. */
static void check_too_small(int q) {
  int64_t g[4] = {NCOMP, 8, q - 1, 8};
  darray_dist_t d4[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                         DARRAY_DIST_MULTIPARTITION,
                         DARRAY_DIST_MULTIPARTITION};
  darray_t a = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 4, g, DARRAY_DOUBLE, &a))) {
    TU_OK(darray_set_distribution(a, d4, NULL));
    TU_EQ_CODE(darray_commit(a), DARRAY_EDIST);
    TU_OK(darray_free(&a));
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  int q = isqrt_exact(tu_nprocs());
  if (q < 0) {
    check_refused();
    return tu_finish();
  }
  char path[512];
  if (tu_tmpname(path, sizeof path, "darrayio-multipart") == NULL)
    return tu_finish();
  double t0 = MPI_Wtime();
  const btio_t cases[] = {
      {7, q, 0, 0, NULL},
      {7, q, 0, 0, "darray_strategy=direct"},
      {8, q, 0, 1, NULL},
      {9, q, 1, 0, NULL},
      {9, q, 0, 0,
       "romio_cb_write=enable;romio_cb_read=enable;"
       "cb_buffer_size=1000"},
      {12, q, 0, 0, NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    bt_run(&cases[i], path);
  const mpx_t more[] = {
      {"3-D {7,7,7} all MP, C storage, C memory",
       3,
       {7, 7, 7, 0},
       -1,
       DARRAY_ORDER_C,
       DARRAY_ORDER_C,
       {0, 0, 0, 0},
       0},
      {"3-D {8,8,8} all MP, C storage, C memory",
       3,
       {8, 8, 8, 0},
       -1,
       DARRAY_ORDER_C,
       DARRAY_ORDER_C,
       {0, 0, 0, 0},
       0},
      {"3-D {7,9,2} all MP, F storage, C memory, ghosts",
       3,
       {7, 9, 2, 0},
       -1,
       DARRAY_ORDER_FORTRAN,
       DARRAY_ORDER_C,
       {1, 0, 2, 0},
       0},
      {"4-D {7,2,9,8} MP,NONE,MP,MP, C storage, F memory, ghosts",
       4,
       {7, 2, 9, 8},
       1,
       DARRAY_ORDER_C,
       DARRAY_ORDER_FORTRAN,
       {1, 0, 2, 1},
       0},
      {"4-D {9,8,5,3} MP,MP,MP,NONE, F storage, C memory, padded",
       4,
       {9, 8, 5, 3},
       3,
       DARRAY_ORDER_FORTRAN,
       DARRAY_ORDER_C,
       {1, 1, 0, 1},
       1},
  };
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
    mpx_run(&more[i], q, path);
  if (q > 1)
    check_too_small(q);
  if (tu_rank() == 0)
    printf("test_multipart: q=%d done in %.1f s\n", q, MPI_Wtime() - t0);
  tu_remove(path);
  return tu_finish();
}
