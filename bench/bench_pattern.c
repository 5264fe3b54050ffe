/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_pattern.c - the access patterns, each described three ways from the
 * same numbers: as boxes (for filling, checking and level-0 runs), as a
 * darrayio array, and as the MPI-IO view the original programs build.
 *
 * The element type is int32, or float64 with --type double (btio: always
 * float64).
 *
 *   dist3d      N^3 int32, (BLOCK, BLOCK, BLOCK) over a PxQxR grid, C order
 *               in the file; view: MPI_Type_create_darray.
 *   slabs       the dist3d file, each rank sweeping its block in slabs of
 *               S planes of the slowest dimension, one call per slab, as an
 *               out-of-core program does; the buffer holds one slab; views:
 *               a subarray per slab (made by the methods).
 *   multi       K dist3d arrays stored one after another in one file and
 *               moved in one step, one call per array (issue #15: many
 *               small requests completed as one collective), --dumps such
 *               steps appended on one open file; view: the dist3d darray,
 *               whose tiles are the arrays.
 *   rowblock    N x N int32, (BLOCK, *), C order; view: darray.
 *   colblock    N x N int32, (*, BLOCK), C order; view: darray.
 *   blockblock  N x N int32, (BLOCK, BLOCK) over a PxQ grid; view: darray.
 *   cyclic      N x N int32, (*, CYCLIC(k)), C order, N a multiple of k*P;
 *               view: darray.
 *   btio        NAS BTIO (/work/shared/BTIO.md): u(5,N,N,N) doubles,
 *               MULTIPARTITION, Fortran order, dumps appended; memory
 *               u(5,-2:IMAX+1,-2:JMAX+1,-2:KMAX+1,q); view: a struct of
 *               one subarray per cell, memory type a struct of subarrays of
 *               the ghosted cells, as BT's "full" I/O does.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MPI_Info bench_info(const char *hints) {
  MPI_Info info;
  MPI_Info_create(&info);
  bench_info_add(info, hints);
  return info;
}

void bench_info_add(MPI_Info info, const char *hints) {
  if (hints == NULL)
    return;
  char *copy = strdup(hints), *save = NULL;
  for (char *t = strtok_r(copy, ";", &save); t;
       t = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(t, '=');
    if (eq) {
      *eq = '\0';
      MPI_Info_set(info, t, eq + 1);
    }
  }
  free(copy);
}

static int fail(const bench_t *b, const char *msg) {
  if (b->rank == 0)
    fprintf(stderr, "darrayio-bench: %s\n", msg);
  return -1;
}

static int darray_fail(const bench_t *b, int rc, const char *what) {
  if (b->rank == 0)
    fprintf(stderr, "darrayio-bench: %s: %s: %s\n", what, darray_err_name(rc),
            darray_errmsg(b->p.darr));
  return -1;
}

/* The darrayio description: distribution, grid (NULL for MULTIPARTITION),
 * storage and memory order, ghosts and padding (NULL for none). */
typedef struct ddesc {
  int ndims;
  int64_t gsizes[4], dargs[4];
  darray_dist_t dist[4];
  const int *psizes;
  darray_order_t order;
  const int64_t *ghost, *padded;
} ddesc_t;

static int describe(bench_t *b, const ddesc_t *d) {
  darray_type_t t = b->p.esize == 8 ? DARRAY_DOUBLE : DARRAY_INT32;
  int rc = darray_create(MPI_COMM_WORLD, d->ndims, d->gsizes, t, &b->p.darr);
  if (rc)
    return darray_fail(b, rc, "darray_create");
  if ((rc = darray_set_distribution(b->p.darr, d->dist, d->dargs)) ||
      (d->psizes && (rc = darray_set_grid(b->p.darr, d->psizes))) ||
      (rc = darray_set_storage_order(b->p.darr, d->order, NULL)) ||
      (rc = darray_set_memory_layout(b->p.darr, d->order, d->ghost,
                                     d->padded)) ||
      (rc = darray_commit(b->p.darr)))
    return darray_fail(b, rc, "describing the array");
  return 0;
}

/* The element type's name in the labels (--type). */
static const char *tname(const pattern_t *p) {
  return p->esize == 8 ? "float64" : "int32";
}

static box_t *one_box(pattern_t *p) {
  p->nbox = 1;
  p->box = calloc(1, sizeof *p->box);
  return p->box;
}

/* ---- BLOCK / NONE arrays in C order (dist3d and the 2-D blocks) --------- */

/* Box of rank's block: psizes[d] == 1 means the whole dimension. Sets the
 * darrayio description, the buffer size and the darray view. */
static int block_array(bench_t *b, int nd, const int64_t *g, const int *ps) {
  pattern_t *p = &b->p;
  int coord[3], dist[3], darg[3], gs[3], rem = b->rank;
  ddesc_t dd = {.ndims = nd, .psizes = ps, .order = DARRAY_ORDER_C};
  box_t *bx = one_box(p);
  int64_t fs = 1, ms = 1;
  for (int d = nd - 1; d >= 0; d--) {
    coord[d] = rem % ps[d];
    rem /= ps[d];
  }
  p->nd = nd;
  for (int d = nd - 1; d >= 0; d--) {
    int64_t blk = (g[d] + ps[d] - 1) / ps[d], lo = coord[d] * blk;
    int64_t cnt = lo >= g[d] ? 0 : g[d] - lo < blk ? g[d] - lo : blk;
    bx->count[d] = cnt;
    bx->fstride[d] = fs;
    bx->mstride[d] = ms;
    bx->foff += lo * fs;
    p->gstart[d] = lo < g[d] ? lo : g[d];
    fs *= g[d];
    ms *= cnt;
    dd.gsizes[d] = g[d];
    dd.dist[d] = ps[d] > 1 ? DARRAY_DIST_BLOCK : DARRAY_DIST_NONE;
    dd.dargs[d] = DARRAY_DEFAULT_ARG;
    dist[d] = ps[d] > 1 ? MPI_DISTRIBUTE_BLOCK : MPI_DISTRIBUTE_NONE;
    darg[d] = MPI_DISTRIBUTE_DFLT_DARG;
    gs[d] = (int)g[d];
  }
  p->buf_elems = p->local_elems = ms;
  p->dump_elems = fs;
  MPI_Type_create_darray(b->nprocs, b->rank, nd, gs, dist, darg, ps,
                         MPI_ORDER_C, p->etype, &p->ftype);
  return describe(b, &dd);
}

/* Complete a grid: 0 entries chosen by MPI_Dims_create; -1 on mismatch. */
static int make_grid(const bench_t *b, int nd, int *ps) {
  int prod = 1;
  for (int d = 0; d < nd; d++)
    ps[d] = b->o.ngrid >= nd ? b->o.grid[d] : 0;
  if (MPI_Dims_create(b->nprocs, nd, ps) != MPI_SUCCESS)
    return fail(b, "the process grid does not fit the number of processes");
  for (int d = 0; d < nd; d++)
    prod *= ps[d];
  return prod == b->nprocs ? 0 : fail(b, "the grid's product is not P");
}

static int build_dist3d(bench_t *b, int *ps) {
  int64_t n = b->o.n, g[3] = {n, n, n};
  if (make_grid(b, 3, ps))
    return -1;
  snprintf(b->p.label, sizeof b->p.label, "N=%lld %s, grid %dx%dx%d",
           (long long)n, tname(&b->p), ps[0], ps[1], ps[2]);
  return block_array(b, 3, g, ps);
}

/* ---- multi: K dist3d arrays one after another ------------------------- */

/* Array k is the dist3d array at element k * N^3 of the file and at
 * element k * (the rank's block) of the buffer: box k is box 0 moved by
 * those amounts, so that filling, checking and the level-0 runs cover
 * every array, and the closed form of the file index gives each array
 * its own values (a misplaced array fails the checks). */
static int build_multi(bench_t *b, int *ps) {
  pattern_t *p = &b->p;
  int k = b->o.arrays ? b->o.arrays : 8;
  if (build_dist3d(b, ps) != 0)
    return -1;
  if ((double)k * (b->o.dumps ? b->o.dumps : 1) * (double)p->dump_elems *
          p->esize > 0x1p62)
    return fail(b, "multi: the file would be larger than 2^62 bytes");
  box_t *bx = realloc(p->box, (size_t)k * sizeof *bx);
  if (bx == NULL)
    return fail(b, "out of memory");
  p->box = bx;
  p->nbox = k;
  for (int i = 1; i < k; i++) {
    bx[i] = bx[0];
    bx[i].foff += i * p->dump_elems;
    bx[i].moff += i * p->local_elems;
  }
  p->narrays = k;
  p->ndumps = b->o.dumps ? b->o.dumps : 1;
  p->array_elems = p->dump_elems;
  p->dump_elems *= k;
  p->buf_elems = k * p->local_elems;
  size_t len = strlen(p->label);
  snprintf(p->label + len, sizeof p->label - len, ", %d arrays", k);
  return 0;
}

/* ---- slabs: the dist3d file, swept slab by slab ------------------------ */

/* The number of slabs of this rank's block. */
static int64_t nslabs(const pattern_t *p) {
  const box_t *k = &p->block;
  if (k->count[0] <= 0 || k->count[1] <= 0 || k->count[2] <= 0)
    return 0;
  return (k->count[0] + p->slab - 1) / p->slab;
}

static int build_slabs(bench_t *b, int *ps) {
  pattern_t *p = &b->p;
  int64_t n = b->o.n, g[3] = {n, n, n};
  if (make_grid(b, 3, ps) || block_array(b, 3, g, ps))
    return -1;
  p->subslab = b->o.slab ? b->o.slab : 16;
  int group = b->o.slab_group > 0 ? b->o.slab_group : 1;
  p->slab = p->subslab * group; /* a step: group slabs */
  p->grid0 = ps[0];
  p->block = p->box[0];
  for (int d = 0; d < 3; d++)
    p->gsize[d] = n;
  int64_t mine = nslabs(p), most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  p->nsteps = (int)most;
  /* the buffer holds one slab */
  p->buf_elems = (p->slab < p->block.count[0] ? p->slab : p->block.count[0]) *
                 p->block.count[1] * p->block.count[2];
  snprintf(p->label, sizeof p->label, "N=%lld %s, grid %dx%dx%d, slabs "
           "of %lld planes, %d per step, %d steps", (long long)n, tname(p),
           ps[0], ps[1], ps[2], (long long)p->subslab, group, p->nsteps);
  return 0;
}

int bench_slab_pieces(const pattern_t *p) {
  return (int)((p->slab + p->subslab - 1) / p->subslab);
}

int64_t bench_slab_piece(const pattern_t *p, int g, int64_t *start,
                         int64_t *count) {
  int64_t at = (int64_t)g * p->subslab, left = p->count[0] - at;
  int64_t cnt = left <= 0 ? 0 : left < p->subslab ? left : p->subslab;
  for (int d = 0; d < 3; d++) {
    start[d] = cnt == 0 ? 0 : p->start[d] + (d == 0 ? at : 0);
    count[d] = cnt == 0 ? 0 : d == 0 ? cnt : p->count[d];
  }
  return cnt == 0 ? 0 : at * p->count[1] * p->count[2] * p->esize;
}

/* Point the pattern at step `step` of the sweep: this rank's slab (its box
 * and section; empty when the rank has no slab left) and the step's
 * stretches: planes [lo + step*S, lo + min(len, (step+1)*S)) of every
 * block [lo, lo + len) of the slowest dimension, whole planes, since the
 * blocks of the other two dimensions tile them. */
void bench_pattern_step(pattern_t *p, int step) {
  if (p->slab == 0)
    return;
  int64_t n = p->gsize[0], plane = p->gsize[1] * p->gsize[2];
  int64_t at = step * p->slab, left = p->block.count[0] - at;
  int64_t cnt = nslabs(p) == 0 || left <= 0 ? 0
              : left < p->slab ? left : p->slab;
  box_t *bx = &p->box[0];
  *bx = p->block;
  bx->count[0] = cnt;
  bx->foff += at * bx->fstride[0];
  for (int d = 0; d < 3; d++) {
    p->start[d] = cnt ? p->gstart[d] + (d == 0 ? at : 0) : 0;
    p->count[d] = cnt == 0 ? 0 : d == 0 ? cnt : p->block.count[d];
  }
  int64_t blk = (n + p->grid0 - 1) / p->grid0;
  p->nstr = 0;
  p->step_elems = 0;
  for (int c = 0; c < p->grid0; c++) {
    int64_t lo = c * blk, len = lo >= n ? 0 : n - lo < blk ? n - lo : blk;
    int64_t a = at < len ? lo + at : lo + len;
    int64_t e = at + p->slab < len ? lo + at + p->slab : lo + len;
    if (e <= a)
      continue;
    if (p->nstr > 0 && p->str_hi[p->nstr - 1] == a * plane)
      p->str_hi[p->nstr - 1] = e * plane;
    else {
      p->str_lo[p->nstr] = a * plane;
      p->str_hi[p->nstr++] = e * plane;
    }
    p->step_elems += (e - a) * plane;
  }
}

static int build_block2d(bench_t *b, int *ps) {
  int64_t n = b->o.n, g[2] = {n, n};
  const char *name = b->o.pattern;
  ps[0] = ps[1] = 1;
  if (!strcmp(name, "rowblock"))
    ps[0] = b->nprocs;
  else if (!strcmp(name, "colblock"))
    ps[1] = b->nprocs;
  else if (make_grid(b, 2, ps))
    return -1;
  snprintf(b->p.label, sizeof b->p.label, "N=%lld x %lld %s, grid %dx%d",
           (long long)n, (long long)n, tname(&b->p), ps[0], ps[1]);
  return block_array(b, 2, g, ps);
}

/* ---- CYCLIC(k) columns --------------------------------------------------- */

/* Global column (blk * P + rank) * k + e: the rank's columns form a 3-D box
 * {rows, blocks, k}; locally they are packed, blocks in order. */
static int build_cyclic(bench_t *b) {
  pattern_t *p = &b->p;
  int64_t n = b->o.n, k = b->o.k, P = b->nprocs;
  if (n % (k * P) != 0)
    return fail(b, "cyclic needs N to be a multiple of k * P");
  int64_t nb = n / (k * P);
  box_t *bx = one_box(p);
  *bx = (box_t){{n, nb, k}, {n, P * k, 1}, {nb * k, k, 1}, b->rank * k, 0};
  p->nd = 3;
  p->buf_elems = p->local_elems = n * nb * k;
  p->dump_elems = n * n;
  snprintf(p->label, sizeof p->label, "N=%lld x %lld %s, CYCLIC(%lld) "
           "columns", (long long)n, (long long)n, tname(p), (long long)k);
  int ps[2] = {1, b->nprocs}, gs[2] = {(int)n, (int)n};
  int dist[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
  int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, (int)k};
  MPI_Type_create_darray(b->nprocs, b->rank, 2, gs, dist, darg, ps,
                         MPI_ORDER_C, p->etype, &p->ftype);
  ddesc_t dd = {2, {n, n}, {DARRAY_DEFAULT_ARG, k},
                {DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC}, ps, DARRAY_ORDER_C,
                NULL, NULL};
  return describe(b, &dd);
}

/* ---- BTIO ---------------------------------------------------------------- */

static int64_t class_n(char c) {
  return c == 'S' ? 12 : c == 'W' ? 24 : c == 'A' ? 64 : c == 'B' ? 102 : 162;
}

static int mod(int a, int q) { return ((a % q) + q) % q; }

static void slab(int64_t n, int q, int s, int64_t *low, int64_t *len) {
  int64_t size = n / q, excess = n % q;
  *len = s < excess ? size + 1 : size;
  *low = s < excess ? s * (size + 1)
                    : excess * (size + 1) + (s - excess) * size;
}

/* Cell c of this rank, by BT's formulas: its box, and the file and memory
 * subarrays of BT's "full" I/O. */
static void btio_cell(bench_t *b, int q, int64_t pad, int c, MPI_Datatype *ft,
                      MPI_Datatype *mt) {
  int64_t n = class_n(b->o.cls), lo[3], len[3];
  int xyz[3] = {mod(b->rank % q + c, q), mod(b->rank / q - c, q), c};
  for (int s = 0; s < 3; s++)
    slab(n, q, xyz[s], &lo[s], &len[s]);
  int64_t cell = 5 * pad * pad * pad;
  b->p.box[c] = (box_t){{len[2], len[1], len[0], 5},
                        {5 * n * n, 5 * n, 5, 1},
                        {5 * pad * pad, 5 * pad, 5, 1},
                        5 * (lo[0] + n * (lo[1] + n * lo[2])),
                        c * cell + 5 * (2 + pad * (2 + pad * 2))};
  b->p.local_elems += 5 * len[0] * len[1] * len[2];
  int fsz[4] = {5, (int)n, (int)n, (int)n}, sub[4] = {5, (int)len[0],
                                                      (int)len[1], (int)len[2]};
  int fst[4] = {0, (int)lo[0], (int)lo[1], (int)lo[2]};
  int msz[4] = {5, (int)pad, (int)pad, (int)pad}, mst[4] = {0, 2, 2, 2};
  MPI_Type_create_subarray(4, fsz, sub, fst, MPI_ORDER_FORTRAN, MPI_DOUBLE, ft);
  MPI_Type_create_subarray(4, msz, sub, mst, MPI_ORDER_FORTRAN, MPI_DOUBLE, mt);
}

static int btio_types(bench_t *b, int q, int64_t pad) {
  MPI_Datatype ft[16], mt[16];
  int one[16];
  MPI_Aint fd[16], md[16];
  b->p.box = calloc((size_t)q, sizeof *b->p.box);
  b->p.nbox = q;
  for (int c = 0; c < q; c++) {
    btio_cell(b, q, pad, c, &ft[c], &mt[c]);
    one[c] = 1;
    fd[c] = 0;
    md[c] = (MPI_Aint)(c * 5 * pad * pad * pad * 8);
  }
  MPI_Type_create_struct(q, one, fd, ft, &b->p.ftype);
  MPI_Type_create_struct(q, one, md, mt, &b->p.mtype);
  for (int c = 0; c < q; c++) {
    MPI_Type_free(&ft[c]);
    MPI_Type_free(&mt[c]);
  }
  return 0;
}

static int build_btio(bench_t *b) {
  pattern_t *p = &b->p;
  int q = 1;
  while ((q + 1) * (q + 1) <= b->nprocs)
    q++;
  int64_t n = class_n(b->o.cls), imax = n / q + 1, pad = imax + 4;
  if (q * q != b->nprocs || q > 16 || n / q < 3)
    return fail(b, "btio needs P = q*q (q <= 16) and cells of >= 3 points");
  p->esize = 8;
  p->gen_n = 5 * n; /* --data smooth: rows of u(1:5, 1:N, j, k) */
  p->nd = 4;
  p->ndumps = b->o.dumps ? b->o.dumps : b->o.cls == 'S' ? 12 : 40;
  p->dump_elems = 5 * n * n * n;
  p->buf_elems = q * 5 * pad * pad * pad;
  p->etype = MPI_DOUBLE;
  snprintf(p->label, sizeof p->label, "class %c, N=%lld, %d dumps, q=%d",
           b->o.cls, (long long)n, p->ndumps, q);
  btio_types(b, q, pad);
  int64_t ghost[4] = {0, 2, 2, 2}, padded[4] = {5, pad, pad, pad};
  ddesc_t dd = {4, {5, n, n, n}, {0}, {DARRAY_DIST_NONE,
                DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_MULTIPARTITION,
                DARRAY_DIST_MULTIPARTITION}, NULL, DARRAY_ORDER_FORTRAN,
                ghost, padded};
  return describe(b, &dd);
}

int bench_pattern_build(bench_t *b) {
  pattern_t *p = &b->p;
  int ps[3], rc;
  *p = (pattern_t){.esize = b->o.esize, .ndumps = 1, .narrays = 1,
                   .etype = b->o.esize == 8 ? MPI_DOUBLE : MPI_INT,
                   .ftype = MPI_DATATYPE_NULL, .mtype = MPI_DATATYPE_NULL,
                   .nsteps = 1, .nstr = 1, .data = b->o.data,
                   .gen_n = b->o.n};
  snprintf(p->name, sizeof p->name, "%s", b->o.pattern);
  p->str_lo = calloc((size_t)b->nprocs + 1, sizeof *p->str_lo);
  p->str_hi = calloc((size_t)b->nprocs + 1, sizeof *p->str_hi);
  if (p->str_lo == NULL || p->str_hi == NULL)
    return fail(b, "out of memory");
  if (!strcmp(p->name, "btio"))
    rc = build_btio(b);
  else if (!strcmp(p->name, "cyclic"))
    rc = build_cyclic(b);
  else if (!strcmp(p->name, "dist3d"))
    rc = build_dist3d(b, ps);
  else if (!strcmp(p->name, "slabs"))
    rc = build_slabs(b, ps);
  else if (!strcmp(p->name, "multi"))
    rc = build_multi(b, ps);
  else
    rc = build_block2d(b, ps);
  if (p->narrays == 1)
    p->array_elems = p->dump_elems;
  p->str_hi[0] = p->step_elems = p->step_max = p->dump_elems;
  if (rc == 0 && p->slab) {
    bench_pattern_step(p, 0); /* the first step is the largest */
    p->step_max = p->step_elems;
  }
  if (rc == 0 && p->ftype != MPI_DATATYPE_NULL)
    MPI_Type_commit(&p->ftype);
  if (rc == 0 && p->mtype == MPI_DATATYPE_NULL)
    MPI_Type_contiguous((int)p->local_elems, p->etype, &p->mtype);
  if (rc == 0)
    MPI_Type_commit(&p->mtype);
  return rc;
}

void bench_pattern_free(pattern_t *p) {
  if (p->ftype != MPI_DATATYPE_NULL)
    MPI_Type_free(&p->ftype);
  if (p->mtype != MPI_DATATYPE_NULL)
    MPI_Type_free(&p->mtype);
  darray_free(&p->darr);
  free(p->box);
  free(p->str_lo);
  free(p->str_hi);
  p->box = NULL;
  p->str_lo = p->str_hi = NULL;
}
