/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_rw_matrix.c - darray_write / darray_read over a matrix of cases.
 *
 * One loop body runs over a deterministic covering sample of
 *   distributions {NONE, BLOCK, BLOCK(k), CYCLIC(1), CYCLIC(k)} per dimension
 *   x 1..3 dimensions of uneven sizes x storage order {C, Fortran, PERM}
 *   x displacement {0, 37} x memory order {C, Fortran} x ghosts and padding
 *   x element type {int32, double, opaque(3), int8} x back end {posix, mpiio}
 *   x hint sets (default, tiny sieve buffers, forced direct, forced and
 *     disabled collective buffering with tiny cb_buffer_size / one cb node,
 *     forced static segmentation in groups of two with a tiny buffer, the
 *     file's pages mapped in windows of a page: on the MPI-IO back end
 *     the call moves its runs as direct does)
 * (150 seeded pseudo-random cases) plus 18 hand-picked corner cases (ranks
 * that own nothing, explicit grids, one-element arrays, defaults left
 * untouched, CYCLIC(k) with k > n, the largest arrays).
 *
 * Element g holds the low bytes of tu_value(case, row-major index of g).
 * Each rank fills its ghosted buffer (0xEE in ghosts and padding) from the
 * formulas' local -> global mapping and writes it with darray_write. Two
 * oracles, neither using darrayio code:
 *  (1) MPI: MPI_Type_create_darray over the grid darrayio reports (checked
 *      equal to the expected one), where MPI can express the case (C or
 *      Fortran storage). Memory form, every such case: rank 0 MPI_Unpacks
 *      every rank's packed local array through that rank's darray type into
 *      an image of the array (the typemap a file view applies). File form,
 *      hand-picked cases and every 4th random one: MPI_File_set_view +
 *      MPI_File_write_all into a second file. MPICH has had darray bugs, so
 *      when MPI disagrees with (2), (2) decides and the case is printed as a
 *      note, not a failure.
 *  (2) A serial reference from first principles: for every global element
 *      its owner, local index and file offset (disp + esize * linear index
 *      in storage order), over a background pattern.
 * Rank 0 compares the darrayio file with the reference byte for byte,
 * including the bytes before the displacement and after the end. Every
 * rank reads the reference file (written by rank 0, not by darrayio) with
 * darray_read into a buffer pre-filled with 0xEE and checks the interior
 * and that every ghost and padding byte is untouched. Queries
 * (darray_grid, darray_local_shape, ...) and darray_locate /
 * darray_file_offset / darray_global_index are checked against the same
 * formulas; darray_file_get_stats: one call, the sum of bytes_written over
 * ranks exact, a rank's own bytes exact when it did its own I/O (no
 * collective buffering cycles), only data exchanged (a writer sends at
 * most its own bytes; two-phase writes and reads send the same total),
 * forced strategies obeyed. The distribution formulas are dist_oracle.h's.
 *
 * Files are opened once per (back end, hint set) and reused: at 4 ranks on
 * 2 cores every collective call costs milliseconds.
 * Environment: TEST_CASE=n runs case n only; TEST_VERBOSE=1 prints each
 * case and its time.
 *
 * Run: mpiexec -n 1..4 ./test_rw_matrix   (also as a singleton)
 */

#include "dist_oracle.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
#define NRANDOM 150
#define BG_SEED 0x5eedbeefULL
#define GHOST_BYTE 0xEE

/* ---- element types ------------------------------------------------------ */

typedef struct elem_type {
  darray_type_t type;
  int64_t esize;
  const char *name;
} elem_type_t;

static const elem_type_t types[] = {
    {DARRAY_INT32, 4, "int32"},
    {DARRAY_DOUBLE, 8, "double"},
    {DARRAY_OPAQUE, 3, "opaque3"},
    {DARRAY_INT8, 1, "int8"},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* ---- hint sets (key=value;... passed through MPI_Info) ----------------- */

static const char *const hintsets[] = {
    "",
    "ind_rd_buffer_size=64;ind_wr_buffer_size=64",
    "darray_strategy=direct;ind_rd_buffer_size=13;ind_wr_buffer_size=13",
    "romio_cb_write=enable;romio_cb_read=enable;cb_buffer_size=256",
    "romio_cb_write=enable;romio_cb_read=enable;cb_nodes=1",
    "romio_cb_write=disable;romio_cb_read=disable",
    "romio_cb_write=enable;romio_cb_read=enable;cb_nodes=3;striping_unit=40;"
    "cb_buffer_size=100",
    "darray_strategy=static;cb_nodes=2;cb_buffer_size=256",
    "darray_strategy=mapped;darray_map=enable;darray_map_window=4096",
};
#define NHINTSETS ((int)(sizeof hintsets / sizeof hintsets[0]))

/* ---- a case ---------------------------------------------------------------
 */

typedef struct rwcase {
  int id;
  const char *label; /* hand-picked cases have a label */
  int ndims;
  int64_t gsizes[MAXD];
  int setdist; /* 0: leave the default (BLOCK everywhere) */
  darray_dist_t dist[MAXD];
  int64_t dargs[MAXD]; /* as passed: a block size or DARRAY_DEFAULT_ARG */
  int setgrid;         /* 0: do not call darray_set_grid */
  int gridarg[MAXD];   /* passed to darray_set_grid (0 = choose) */
  int grid[MAXD];      /* the grid darrayio must end up with */
  int setsorder;       /* 0: leave the default (C) */
  darray_order_t sorder;
  int perm[MAXD]; /* file dims slowest..fastest (for every order) */
  int64_t disp;
  int setmem; /* 0: leave the default (C, no ghosts, tight) */
  darray_order_t morder;
  int64_t ghost[MAXD];
  int use_padded;
  int64_t pad_extra[MAXD];
  int tindex;        /* index into types[] */
  int mpiio;         /* back end: 0 posix, 1 mpiio */
  int hints;         /* index into hintsets[] */
  int null_if_empty; /* pass NULL as buffer on ranks that own nothing */
} rwcase_t;

static const char *dist_name(darray_dist_t d) {
  switch (d) {
  case DARRAY_DIST_NONE:
    return "NONE";
  case DARRAY_DIST_BLOCK:
    return "BLOCK";
  case DARRAY_DIST_CYCLIC:
    return "CYCLIC";
  default:
    return "?";
  }
}

static const char *order_name(darray_order_t o) {
  switch (o) {
  case DARRAY_ORDER_C:
    return "C";
  case DARRAY_ORDER_FORTRAN:
    return "F";
  case DARRAY_ORDER_PERM:
    return "PERM";
  default:
    return "?";
  }
}

/* One line that is enough to rebuild the case. */
static void describe(const rwcase_t *c, char *buf, size_t n) {
  size_t l = 0;
#define APP(...)                                                               \
  do {                                                                         \
    if (l < n)                                                                 \
      l += (size_t)snprintf(buf + l, n - l, __VA_ARGS__);                      \
  } while (0)
  APP("case %d%s%s%s: P=%d gsizes=", c->id, c->label ? " (" : "",
      c->label ? c->label : "", c->label ? ")" : "", tu_nprocs());
  for (int d = 0; d < c->ndims; d++)
    APP("%s%lld", d ? "x" : "", (long long)c->gsizes[d]);
  APP(" dist=%s", c->setdist ? "" : "default:");
  for (int d = 0; d < c->ndims; d++) {
    APP("%s%s", d ? "," : "", dist_name(c->dist[d]));
    if (c->dist[d] != DARRAY_DIST_NONE) {
      if (c->dargs[d] == DARRAY_DEFAULT_ARG)
        APP("(dflt)");
      else
        APP("(%lld)", (long long)c->dargs[d]);
    }
  }
  APP(" grid=");
  for (int d = 0; d < c->ndims; d++)
    APP("%s%d", d ? "x" : "", c->grid[d]);
  if (c->setgrid) {
    APP(" set_grid=");
    for (int d = 0; d < c->ndims; d++)
      APP("%s%d", d ? "x" : "", c->gridarg[d]);
  }
  APP(" storage=%s%s", c->setsorder ? "" : "default:", order_name(c->sorder));
  if (c->sorder == DARRAY_ORDER_PERM) {
    APP("{");
    for (int d = 0; d < c->ndims; d++)
      APP("%s%d", d ? "," : "", c->perm[d]);
    APP("}");
  }
  APP(" disp=%lld mem=%s%s ghost=", (long long)c->disp,
      c->setmem ? "" : "default:", order_name(c->morder));
  for (int d = 0; d < c->ndims; d++)
    APP("%s%lld", d ? "," : "", (long long)c->ghost[d]);
  if (c->use_padded) {
    APP(" pad_extra=");
    for (int d = 0; d < c->ndims; d++)
      APP("%s%lld", d ? "," : "", (long long)c->pad_extra[d]);
  }
  APP(" type=%s backend=%s", types[c->tindex].name,
      c->mpiio ? "mpiio" : "posix");
  if (c->hints)
    APP(" hints=%s", hintsets[c->hints]);
  if (c->null_if_empty)
    APP(" null-if-empty");
#undef APP
}

/* ---- the distribution formulas (the oracle; no darrayio code) -------------
 */

/* Effective block size of dimension d: BLOCK default ceil(n/p), CYCLIC
 * default 1, NONE the whole dimension. */
static int64_t eff_block(const rwcase_t *c, int d) {
  int64_t n = c->gsizes[d];
  int p = c->grid[d];
  switch (c->dist[d]) {
  case DARRAY_DIST_BLOCK:
    return c->dargs[d] == DARRAY_DEFAULT_ARG ? (n + p - 1) / p : c->dargs[d];
  case DARRAY_DIST_CYCLIC:
    return c->dargs[d] == DARRAY_DEFAULT_ARG ? 1 : c->dargs[d];
  default:
    return n;
  }
}

/* The distribution of dimension d (dist_oracle.h): owner coordinate and
 * local index of global index g, the inverse, and indices owned. */
static void owner_of(const rwcase_t *c, int d, int64_t g, int *coord,
                     int64_t *local) {
  dor_owner_dim(c->dist[d], eff_block(c, d), c->grid[d], g, coord, local);
}

static int64_t global_of(const rwcase_t *c, int d, int coord, int64_t l) {
  return dor_global_dim(c->dist[d], eff_block(c, d), c->grid[d], coord, l);
}

static int64_t count_owned(const rwcase_t *c, int d, int coord) {
  return dor_count_owned(c->dist[d], c->gsizes[d], eff_block(c, d),
                         c->grid[d], coord);
}

/* Row-major grid coordinates of a rank, and back. */
static void rank_coords(const rwcase_t *c, int rank, int coords[]) {
  dor_rank_coords(c->ndims, c->grid, rank, coords);
}

static int coords_rank(const rwcase_t *c, const int coords[]) {
  return dor_coords_rank(c->ndims, c->grid, coords);
}

/* Everything a rank's local piece looks like. */
typedef struct local {
  int coords[MAXD];
  int64_t lshape[MAXD];
  int64_t count;
  int64_t ext[MAXD];     /* allocated extent per dim */
  int64_t mstride[MAXD]; /* byte stride per dim in memory order */
  int64_t bytes;         /* product of ext * esize */
} local_t;

static int64_t padded_extent(const rwcase_t *c, int d) {
  if (!c->use_padded)
    return 0;
  int64_t mx = 0;
  for (int co = 0; co < c->grid[d]; co++) {
    int64_t k = count_owned(c, d, co);
    mx = k > mx ? k : mx;
  }
  return mx + 2 * c->ghost[d] + c->pad_extra[d];
}

static void local_of(const rwcase_t *c, int rank, local_t *L) {
  int64_t es = types[c->tindex].esize;
  rank_coords(c, rank, L->coords);
  L->count = 1;
  for (int d = 0; d < c->ndims; d++) {
    L->lshape[d] = count_owned(c, d, L->coords[d]);
    L->count *= L->lshape[d];
    int64_t pe = padded_extent(c, d);
    L->ext[d] = pe ? pe : L->lshape[d] + 2 * c->ghost[d];
  }
  int nd = c->ndims;
  if (c->morder == DARRAY_ORDER_FORTRAN) {
    L->mstride[0] = es;
    for (int d = 1; d < nd; d++)
      L->mstride[d] = L->mstride[d - 1] * L->ext[d - 1];
  } else {
    L->mstride[nd - 1] = es;
    for (int d = nd - 2; d >= 0; d--)
      L->mstride[d] = L->mstride[d + 1] * L->ext[d + 1];
  }
  L->bytes = es;
  for (int d = 0; d < nd; d++)
    L->bytes *= L->ext[d];
}

static int64_t mem_offset(const rwcase_t *c, const local_t *L,
                          const int64_t l[]) {
  int64_t off = 0;
  for (int d = 0; d < c->ndims; d++)
    off += (l[d] + c->ghost[d]) * L->mstride[d];
  return off;
}

/* Linear index of g in the file: dims perm[0] (slowest) .. perm[nd-1]. */
static int64_t storage_linear(const rwcase_t *c, const int64_t g[]) {
  int64_t lin = 0;
  for (int i = 0; i < c->ndims; i++)
    lin = lin * c->gsizes[c->perm[i]] + g[c->perm[i]];
  return lin;
}

/* Row-major linear index of g: the identity of an element's value. */
static int64_t c_linear(const rwcase_t *c, const int64_t g[]) {
  int64_t lin = 0;
  for (int d = 0; d < c->ndims; d++)
    lin = lin * c->gsizes[d] + g[d];
  return lin;
}

static int64_t total_elems(const rwcase_t *c) {
  int64_t t = 1;
  for (int d = 0; d < c->ndims; d++)
    t *= c->gsizes[d];
  return t;
}

/* Advance an odometer over a box (last dim fastest); false when done. */
static int odo_next(int nd, const int64_t shape[], int64_t idx[]) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++idx[d] < shape[d])
      return 1;
    idx[d] = 0;
  }
  return 0;
}

/* The value of global element g: the low esize bytes of tu_value. */
static void elem_value(const rwcase_t *c, const int64_t g[],
                       unsigned char *out) {
  uint64_t v = tu_value(1000 + (uint64_t)c->id, c_linear(c, g));
  for (int64_t b = 0; b < types[c->tindex].esize; b++)
    out[b] = (unsigned char)(v >> (8 * (b % 8)));
}

static unsigned char bg_byte(int64_t off) {
  return (unsigned char)tu_value(BG_SEED, off);
}

/* ---- building the cases ---------------------------------------------------
 */

static uint64_t rng_state = 0x1234567ULL;

static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}

/* Pick a CYCLIC block size in 2..5 whose last block is partial if possible. */
static int64_t cyclic_k(int64_t n) {
  int64_t k = 2 + rnd(4);
  while (k <= n && n % k == 0)
    k++;
  return k;
}

/* Fill in a random factorization of P over the distributed dims. */
static void random_grid(rwcase_t *c, int P, int out[]) {
  int left = P, last = -1;
  for (int d = 0; d < c->ndims; d++) {
    out[d] = 1;
    if (c->dist[d] != DARRAY_DIST_NONE)
      last = d;
  }
  for (int d = 0; d < c->ndims; d++) {
    if (c->dist[d] == DARRAY_DIST_NONE)
      continue;
    if (d == last) {
      out[d] = left;
      break;
    }
    int divs[16], nd = 0;
    for (int x = 1; x <= left; x++)
      if (left % x == 0)
        divs[nd++] = x;
    out[d] = divs[rnd(nd)];
    left /= out[d];
  }
}

/*
 * Make a case valid for P processes and compute the grid it must get:
 * all-NONE at P > 1 gets a BLOCK dimension; the grid is the forced one or
 * MPI_Dims_create over the distributed dims; BLOCK(k) gets k >= ceil(n/p)
 * (kextra added); CYCLIC(k) is kept.
 */
static void finish_case(rwcase_t *c, int P, const int64_t kextra[]) {
  int nd = c->ndims, anydist = 0;
  for (int d = 0; d < nd; d++)
    anydist |= (c->dist[d] != DARRAY_DIST_NONE);
  if (!anydist && P > 1)
    c->dist[nd - 1] = DARRAY_DIST_BLOCK;
  if (!c->setdist) {
    for (int d = 0; d < nd; d++) {
      c->dist[d] = DARRAY_DIST_BLOCK;
      c->dargs[d] = DARRAY_DEFAULT_ARG;
    }
  }
  int dims[MAXD];
  for (int d = 0; d < nd; d++) {
    if (c->dist[d] == DARRAY_DIST_NONE)
      dims[d] = 1;
    else
      dims[d] = c->setgrid ? c->gridarg[d] : 0;
  }
  MPI_Dims_create(P, nd, dims);
  for (int d = 0; d < nd; d++) {
    c->grid[d] = dims[d];
    if (c->dist[d] == DARRAY_DIST_BLOCK && c->dargs[d] != DARRAY_DEFAULT_ARG)
      c->dargs[d] = (c->gsizes[d] + dims[d] - 1) / dims[d] + kextra[d];
  }
  if (!c->setsorder)
    c->sorder = DARRAY_ORDER_C;
  if (c->sorder == DARRAY_ORDER_C)
    for (int d = 0; d < nd; d++)
      c->perm[d] = d;
  else if (c->sorder == DARRAY_ORDER_FORTRAN)
    for (int d = 0; d < nd; d++)
      c->perm[d] = nd - 1 - d;
  if (!c->setmem) {
    c->morder = DARRAY_ORDER_C;
    c->use_padded = 0;
    for (int d = 0; d < nd; d++)
      c->ghost[d] = 0;
  }
}

static const int64_t shapes1[][1] = {{7}, {13}, {5}, {2}, {11}, {97}, {301}};
static const int64_t shapes2[][2] = {{5, 9}, {4, 7},   {7, 3},  {1, 6},
                                     {9, 5}, {13, 11}, {31, 17}};
static const int64_t shapes3[][3] = {{3, 4, 5}, {5, 3, 7}, {2, 9, 4},
                                     {7, 5, 3}, {6, 5, 7}, {9, 7, 11}};
static const int perms3[][3] = {{1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}};

static void random_case(rwcase_t *c, int id, int P) {
  memset(c, 0, sizeof *c);
  c->id = id;
  c->ndims = 1 + rnd(3);
  int nd = c->ndims;
  if (nd == 1)
    memcpy(c->gsizes, shapes1[rnd(7)], sizeof shapes1[0]);
  else if (nd == 2)
    memcpy(c->gsizes, shapes2[rnd(7)], sizeof shapes2[0]);
  else
    memcpy(c->gsizes, shapes3[rnd(6)], sizeof shapes3[0]);
  c->setdist = 1;
  int64_t kextra[MAXD] = {0, 0, 0};
  for (int d = 0; d < nd; d++) {
    switch (rnd(5)) {
    case 0:
      c->dist[d] = DARRAY_DIST_NONE;
      c->dargs[d] = DARRAY_DEFAULT_ARG;
      break;
    case 1:
      c->dist[d] = DARRAY_DIST_BLOCK;
      c->dargs[d] = DARRAY_DEFAULT_ARG;
      break;
    case 2:
      c->dist[d] = DARRAY_DIST_BLOCK;
      c->dargs[d] = 1;
      kextra[d] = rnd(3);
      break;
    case 3:
      c->dist[d] = DARRAY_DIST_CYCLIC;
      c->dargs[d] = rnd(2) ? 1 : DARRAY_DEFAULT_ARG;
      break;
    default:
      c->dist[d] = DARRAY_DIST_CYCLIC;
      c->dargs[d] = cyclic_k(c->gsizes[d]);
      break;
    }
  }
  int gm = rnd(3); /* 0: darrayio chooses, 1: forced, 2: partly forced */
  if (gm > 0) {
    int anydist = 0;
    for (int d = 0; d < nd; d++)
      anydist |= (c->dist[d] != DARRAY_DIST_NONE);
    if (!anydist && P > 1)
      c->dist[nd - 1] = DARRAY_DIST_BLOCK;
    c->setgrid = 1;
    random_grid(c, P, c->gridarg);
    for (int d = 0; d < nd; d++) {
      if (c->dist[d] == DARRAY_DIST_NONE)
        c->gridarg[d] = rnd(2); /* 0 or 1: both mean one process */
      else if (gm == 2 && rnd(2))
        c->gridarg[d] = 0;
    }
  }
  c->setsorder = 1;
  int so = rnd(3);
  c->sorder = so == 0   ? DARRAY_ORDER_C
              : so == 1 ? DARRAY_ORDER_FORTRAN
                        : DARRAY_ORDER_PERM;
  if (c->sorder == DARRAY_ORDER_PERM) {
    if (nd == 1)
      c->perm[0] = 0;
    else if (nd == 2)
      c->perm[0] = 1, c->perm[1] = 0;
    else
      memcpy(c->perm, perms3[rnd(4)], sizeof perms3[0]);
  }
  c->disp = rnd(2) ? 37 : 0;
  c->setmem = 1;
  c->morder = rnd(2) ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int d = 0; d < nd; d++)
    c->ghost[d] = rnd(2) ? 0 : 1 + rnd(2);
  c->use_padded = rnd(3) == 0;
  for (int d = 0; d < nd; d++)
    c->pad_extra[d] = rnd(3);
  c->tindex = rnd(NTYPES);
  c->mpiio = rnd(2);
  c->hints = rnd(NHINTSETS);
  c->null_if_empty = rnd(2);
  finish_case(c, P, kextra);
}

/* A hand-picked case template: fields not listed are zero. */
static void fixed_case(rwcase_t *c, int id, int P, int which) {
  memset(c, 0, sizeof *c);
  c->id = id;
  c->setdist = c->setsorder = c->setmem = 1;
  c->sorder = c->morder = DARRAY_ORDER_C;
  int64_t kextra[MAXD] = {0, 0, 0};
  for (int d = 0; d < MAXD; d++)
    c->dargs[d] = DARRAY_DEFAULT_ARG;
  switch (which) {
  case 0:
    c->label = "one element, BLOCK";
    c->ndims = 1, c->gsizes[0] = 1, c->dist[0] = DARRAY_DIST_BLOCK;
    break;
  case 1:
    c->label = "one element, CYCLIC, ghosts, disp, mpiio";
    c->ndims = 1, c->gsizes[0] = 1, c->dist[0] = DARRAY_DIST_CYCLIC;
    c->ghost[0] = 2, c->disp = 37, c->mpiio = 1, c->tindex = 1;
    break;
  case 2:
    c->label = "1x1x1, ghosts, Fortran";
    c->ndims = 3;
    for (int d = 0; d < 3; d++)
      c->gsizes[d] = 1, c->dist[d] = DARRAY_DIST_BLOCK, c->ghost[d] = 1;
    c->sorder = c->morder = DARRAY_ORDER_FORTRAN, c->tindex = 2;
    break;
  case 3:
    c->label = "BLOCK(k), k*p > n, trailing ranks empty";
    c->ndims = 1, c->gsizes[0] = 7, c->dist[0] = DARRAY_DIST_BLOCK;
    c->dargs[0] = 1, kextra[0] = 1, c->setgrid = 1, c->gridarg[0] = P;
    c->ghost[0] = 1, c->null_if_empty = 1;
    break;
  case 4:
    c->label = "BLOCK(n): only rank 0 owns, mpiio";
    c->ndims = 1, c->gsizes[0] = 7, c->dist[0] = DARRAY_DIST_BLOCK;
    c->dargs[0] = 1, kextra[0] = 7 - (7 + P - 1) / P;
    c->setgrid = 1, c->gridarg[0] = P, c->mpiio = 1, c->tindex = 1;
    c->disp = 37;
    break;
  case 5:
    c->label = "explicit grid Px1, BLOCK x CYCLIC(2), Fortran, padded";
    c->ndims = 2, c->gsizes[0] = 5, c->gsizes[1] = 9;
    c->dist[0] = DARRAY_DIST_BLOCK, c->dist[1] = DARRAY_DIST_CYCLIC;
    c->dargs[1] = 2, c->setgrid = 1, c->gridarg[0] = P, c->gridarg[1] = 1;
    c->sorder = c->morder = DARRAY_ORDER_FORTRAN;
    c->ghost[0] = 1, c->ghost[1] = 2, c->use_padded = 1;
    c->pad_extra[0] = 1, c->pad_extra[1] = 2;
    break;
  case 6:
    c->label = "explicit grid 1xP, BLOCK x CYCLIC(4), C storage, F memory";
    c->ndims = 2, c->gsizes[0] = 5, c->gsizes[1] = 9;
    c->dist[0] = DARRAY_DIST_BLOCK, c->dist[1] = DARRAY_DIST_CYCLIC;
    c->dargs[1] = 4, c->setgrid = 1, c->gridarg[0] = 1, c->gridarg[1] = P;
    c->morder = DARRAY_ORDER_FORTRAN, c->ghost[1] = 1, c->tindex = 0;
    c->disp = 37, c->mpiio = 1;
    break;
  case 7:
    c->label = "NONE x BLOCK, grid entries 0";
    c->ndims = 2, c->gsizes[0] = 4, c->gsizes[1] = 7;
    c->dist[0] = DARRAY_DIST_NONE, c->dist[1] = DARRAY_DIST_BLOCK;
    c->setgrid = 1, c->ghost[0] = 2, c->tindex = 3;
    break;
  case 8:
    c->label = "PERM {2,0,1}, CYCLIC(2) x BLOCK x NONE";
    c->ndims = 3, c->gsizes[0] = 3, c->gsizes[1] = 4, c->gsizes[2] = 5;
    c->dist[0] = DARRAY_DIST_CYCLIC, c->dargs[0] = 2;
    c->dist[1] = DARRAY_DIST_BLOCK, c->dist[2] = DARRAY_DIST_NONE;
    c->setgrid = 1, c->gridarg[2] = 1;
    c->sorder = DARRAY_ORDER_PERM, c->perm[0] = 2, c->perm[1] = 0;
    c->perm[2] = 1, c->disp = 37, c->ghost[2] = 1, c->tindex = 2;
    break;
  case 9:
    c->label = "all defaults";
    c->ndims = 2, c->gsizes[0] = 5, c->gsizes[1] = 9;
    c->setdist = c->setsorder = c->setmem = 0;
    break;
  case 10:
    c->label = "BLOCK(k) on two dims, empty ranks on both";
    c->ndims = 2, c->gsizes[0] = 3, c->gsizes[1] = 3;
    c->dist[0] = c->dist[1] = DARRAY_DIST_BLOCK;
    c->dargs[0] = c->dargs[1] = 1, kextra[0] = kextra[1] = 1;
    c->ghost[0] = 1, c->ghost[1] = 1, c->use_padded = 1, c->tindex = 1;
    break;
  case 11:
    c->label = "CYCLIC(k) with k > n";
    c->ndims = 1, c->gsizes[0] = 5, c->dist[0] = DARRAY_DIST_CYCLIC;
    c->dargs[0] = 8, c->tindex = 3, c->mpiio = 1;
    break;
  case 12:
    c->label = "large 1D CYCLIC(3), tiny buffers";
    c->ndims = 1, c->gsizes[0] = 1999, c->dist[0] = DARRAY_DIST_CYCLIC;
    c->dargs[0] = 3, c->tindex = 1, c->mpiio = 1, c->hints = 1;
    c->ghost[0] = 2, c->disp = 37;
    break;
  case 13:
    c->label = "large 2D BLOCK x CYCLIC(2), Fortran storage";
    c->ndims = 2, c->gsizes[0] = 37, c->gsizes[1] = 29;
    c->dist[0] = DARRAY_DIST_BLOCK, c->dist[1] = DARRAY_DIST_CYCLIC;
    c->dargs[1] = 2, c->sorder = DARRAY_ORDER_FORTRAN, c->ghost[0] = 1;
    c->tindex = 0;
    break;
  case 14:
    c->label = "large 3D CYCLIC x NONE x BLOCK, PERM {1,2,0}, tiny buffers";
    c->ndims = 3, c->gsizes[0] = 11, c->gsizes[1] = 13, c->gsizes[2] = 7;
    c->dist[0] = DARRAY_DIST_CYCLIC, c->dist[1] = DARRAY_DIST_NONE;
    c->dist[2] = DARRAY_DIST_BLOCK, c->sorder = DARRAY_ORDER_PERM;
    c->perm[0] = 1, c->perm[1] = 2, c->perm[2] = 0;
    c->morder = DARRAY_ORDER_FORTRAN, c->tindex = 3, c->hints = 2;
    break;
  case 15:
    c->label = "opaque3 3D, ghosts, padding, disp, F memory";
    c->ndims = 3, c->gsizes[0] = 3, c->gsizes[1] = 4, c->gsizes[2] = 5;
    c->dist[0] = DARRAY_DIST_CYCLIC, c->dist[1] = DARRAY_DIST_BLOCK;
    c->dist[2] = DARRAY_DIST_CYCLIC, c->dargs[2] = 2;
    c->morder = DARRAY_ORDER_FORTRAN, c->disp = 37, c->tindex = 2;
    for (int d = 0; d < 3; d++)
      c->ghost[d] = d, c->pad_extra[d] = 2 - d;
    c->use_padded = 1;
    break;
  case 17:
    c->label = "BLOCK(k) with k > n, CYCLIC(2), striping hints";
    c->ndims = 2, c->gsizes[0] = 6, c->gsizes[1] = 5;
    c->dist[0] = DARRAY_DIST_BLOCK, c->dargs[0] = 1;
    kextra[0] = 6 + 5 - (6 + P - 1) / P; /* k = 11 whatever the grid */
    c->setgrid = 1, c->gridarg[0] = P % 2 == 0 ? 2 : P, c->gridarg[1] = 0;
    c->dist[1] = DARRAY_DIST_CYCLIC, c->dargs[1] = 2, c->tindex = 1;
    c->hints = 6, c->ghost[0] = 1, c->disp = 37;
    break;
  default: /* 16: all NONE (valid at P = 1 only; becomes NONE x BLOCK) */
    c->label = "all NONE";
    c->ndims = 2, c->gsizes[0] = 5, c->gsizes[1] = 3;
    c->dist[0] = c->dist[1] = DARRAY_DIST_NONE, c->ghost[1] = 1;
    break;
  }
  finish_case(c, P, kextra);
}
#define NFIXED 18

/* ---- MPI-IO oracle --------------------------------------------------------
 */

/* MPI darray can express C and Fortran storage, not a permutation. */
static int mpi_expressible(const rwcase_t *c) {
  return c->sorder == DARRAY_ORDER_C || c->sorder == DARRAY_ORDER_FORTRAN;
}

/* MPI_Type_create_darray for one rank of the case, over an element type
 * of esize bytes (*et must be freed too). */
static int mpi_darray_type(const rwcase_t *c, int rank, MPI_Datatype *et,
                           MPI_Datatype *ft) {
  int gs[MAXD], dd[MAXD], da[MAXD], ps[MAXD];
  for (int d = 0; d < c->ndims; d++) {
    gs[d] = (int)c->gsizes[d];
    ps[d] = c->grid[d];
    dd[d] = c->dist[d] == DARRAY_DIST_NONE    ? MPI_DISTRIBUTE_NONE
            : c->dist[d] == DARRAY_DIST_BLOCK ? MPI_DISTRIBUTE_BLOCK
                                              : MPI_DISTRIBUTE_CYCLIC;
    da[d] =
        (c->dist[d] == DARRAY_DIST_NONE || c->dargs[d] == DARRAY_DEFAULT_ARG)
            ? MPI_DISTRIBUTE_DFLT_DARG
            : (int)c->dargs[d];
  }
  MPI_Type_contiguous((int)types[c->tindex].esize, MPI_BYTE, et);
  MPI_Type_commit(et);
  int ord = c->sorder == DARRAY_ORDER_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
  int rc = MPI_Type_create_darray(tu_nprocs(), rank, c->ndims, gs, dd, da, ps,
                                  ord, *et, ft);
  if (!TU_EQ_INT(rc, MPI_SUCCESS)) {
    MPI_Type_free(et);
    return rc;
  }
  MPI_Type_commit(ft);
  return MPI_SUCCESS;
}

/*
 * MPI-IO oracle, file form (collective): write the packed local array B
 * (storage order, no ghosts) through a darray file view with
 * MPI_File_write_all. Used on a subset of the cases: each call costs
 * several collective operations.
 */
static void mpi_write(const rwcase_t *c, MPI_File fh, const void *B,
                      int64_t count) {
  MPI_Datatype et, ft;
  if (mpi_darray_type(c, tu_rank(), &et, &ft) != MPI_SUCCESS)
    return;
  int tsize;
  MPI_Type_size(ft, &tsize);
  TU_EQ_I64(tsize, count * types[c->tindex].esize);
  TU_EQ_INT(MPI_File_set_view(fh, c->disp, et, ft, "native", MPI_INFO_NULL),
            MPI_SUCCESS);
  TU_EQ_INT(MPI_File_write_all(fh, B, (int)count, et, MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  MPI_Type_free(&ft);
  MPI_Type_free(&et);
}

static void local_of(const rwcase_t *c, int rank, local_t *L);
static void fill_local(const rwcase_t *c, const local_t *L, unsigned char *W,
                       unsigned char *B);

/*
 * MPI-IO oracle, memory form (rank 0, local): the same typemap that a file
 * view applies, applied with MPI_Unpack to an image of the array. Every
 * rank's packed local array goes through its own darray type, so the image
 * holds what the file form would write, without a collective call.
 * Returns the image (total elements; bytes no rank placed stay 0xEE).
 */
static unsigned char *mpi_image(const rwcase_t *c) {
  int64_t es = types[c->tindex].esize, tot = total_elems(c) * es;
  unsigned char *img = malloc((size_t)tot);
  memset(img, GHOST_BYTE, (size_t)tot);
  for (int r = 0; r < tu_nprocs(); r++) {
    local_t L;
    local_of(c, r, &L);
    unsigned char *W = malloc((size_t)(L.bytes > 0 ? L.bytes : 1));
    unsigned char *B = malloc((size_t)(L.count * es + 1));
    fill_local(c, &L, W, B);
    MPI_Datatype et, ft;
    if (mpi_darray_type(c, r, &et, &ft) == MPI_SUCCESS) {
      int tsize, pos = 0;
      MPI_Aint lb, extent;
      MPI_Type_size(ft, &tsize);
      MPI_Type_get_extent(ft, &lb, &extent);
      TU_EQ_I64(tsize, L.count * es);
      if (TU_EQ_I64(lb, 0) && TU_EQ_I64(extent, tot))
        TU_EQ_INT(
            MPI_Unpack(B, (int)(L.count * es), &pos, img, 1, ft, MPI_COMM_SELF),
            MPI_SUCCESS);
      TU_EQ_I64(pos, L.count * es);
      MPI_Type_free(&ft);
      MPI_Type_free(&et);
    }
    free(W);
    free(B);
  }
  return img;
}

/* ---- rank 0: the serial reference and the file checks ---------------------
 */

/* The expected file: background everywhere, element values at their offsets. */
static unsigned char *reference_file(const rwcase_t *c, int64_t flen) {
  int64_t es = types[c->tindex].esize;
  unsigned char *R = malloc((size_t)flen);
  for (int64_t i = 0; i < flen; i++)
    R[i] = bg_byte(i);
  int64_t g[MAXD] = {0, 0, 0};
  do {
    elem_value(c, g, R + c->disp + es * storage_linear(c, g));
  } while (odo_next(c->ndims, c->gsizes, g));
  return R;
}

/* Explain the first mismatching byte of a file in terms of the array. */
static void explain_offset(const rwcase_t *c, int64_t off, char *buf,
                           size_t n) {
  int64_t es = types[c->tindex].esize;
  int64_t tot = total_elems(c);
  if (off < c->disp || off >= c->disp + tot * es) {
    snprintf(buf, n, "offset %lld is outside the array (background)",
             (long long)off);
    return;
  }
  int64_t e = (off - c->disp) / es, g[MAXD] = {0, 0, 0};
  for (int i = c->ndims - 1; i >= 0; i--) {
    g[c->perm[i]] = e % c->gsizes[c->perm[i]];
    e /= c->gsizes[c->perm[i]];
  }
  int co[MAXD] = {0, 0, 0};
  int64_t l[MAXD] = {0, 0, 0};
  for (int d = 0; d < c->ndims; d++)
    owner_of(c, d, g[d], &co[d], &l[d]);
  snprintf(buf, n,
           "offset %lld = byte %lld of element g=(%lld,%lld,%lld) owned by "
           "rank %d at local (%lld,%lld,%lld)",
           (long long)off, (long long)((off - c->disp) % es), (long long)g[0],
           (long long)(c->ndims > 1 ? g[1] : 0),
           (long long)(c->ndims > 2 ? g[2] : 0), coords_rank(c, co),
           (long long)l[0], (long long)(c->ndims > 1 ? l[1] : 0),
           (long long)(c->ndims > 2 ? l[2] : 0));
}

static int64_t first_diff(const unsigned char *a, const unsigned char *b,
                          int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return i;
  return -1;
}

/* Explain a byte offset of a rank's local buffer: buffer index per dim,
 * interior or ghost/padding, and the global element if interior. */
static void explain_buffer(const rwcase_t *c, const local_t *L, int64_t off,
                           char *buf, size_t n) {
  int64_t es = types[c->tindex].esize, e = off / es, idx[MAXD], g[MAXD];
  int interior = 1;
  for (int i = 0; i < c->ndims; i++) {
    int d = c->morder == DARRAY_ORDER_FORTRAN ? i : c->ndims - 1 - i;
    idx[d] = e % L->ext[d];
    e /= L->ext[d];
  }
  for (int d = 0; d < c->ndims; d++) {
    int64_t l = idx[d] - c->ghost[d];
    interior = interior && l >= 0 && l < L->lshape[d];
    g[d] = interior ? global_of(c, d, L->coords[d], l) : -1;
  }
  size_t k = (size_t)snprintf(buf, n, "byte %lld of buffer element (",
                              (long long)(off % es));
  for (int d = 0; d < c->ndims && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "",
                          (long long)idx[d]);
  if (k < n && interior)
    k += (size_t)snprintf(buf + k, n - k,
                          ") = interior, global (%lld,%lld,%lld)",
                          (long long)g[0], (long long)(c->ndims > 1 ? g[1] : 0),
                          (long long)(c->ndims > 2 ? g[2] : 0));
  else if (k < n)
    snprintf(buf + k, n - k, ") = ghost/padding");
}

/* Rank 0: check F1 (darrayio) and F2 (MPI) against the reference. Returns
 * the number of notes (MPI disagreeing with the reference). */
static int check_files(const rwcase_t *c, const char *f1, const char *f2,
                       int mpi_done, const char *desc) {
  int64_t tot = total_elems(c), es = types[c->tindex].esize;
  int64_t flen = c->disp + tot * es + 50;
  unsigned char *R = reference_file(c, flen);
  int64_t n1, n2;
  unsigned char *D1 = tu_read_file(f1, &n1);
  unsigned char *D2 = tu_read_file(f2, &n2);
  int notes = 0;
  char why[256];
  TU_CHECK(D1 != NULL && D2 != NULL);
  if (TU_EQ_I64(n1, flen) && D1 != NULL) {
    int64_t at = first_diff(D1, R, flen);
    if (at >= 0) {
      explain_offset(c, at, why, sizeof why);
      TU_FAIL("darrayio file differs from the serial reference at %s: "
              "got 0x%02x, expected 0x%02x; %s",
              why, D1[at], R[at], desc);
    } else {
      TU_CHECK(1);
    }
  } else {
    fprintf(stderr, "  in %s\n", desc);
  }
  if (mpi_expressible(c)) {
    unsigned char *img = mpi_image(c);
    int64_t at = first_diff(img, R + c->disp, tot * es);
    if (at >= 0) {
      notes++;
      explain_offset(c, c->disp + at, why, sizeof why);
      printf("note: MPI darray oracle (MPI_Unpack through the darray type) "
             "disagrees with serial reference on %s (first difference at "
             "%s)\n",
             desc, why);
      if (D1 != NULL && n1 == flen && first_diff(D1, R, flen) >= 0 &&
          memcmp(D1 + c->disp, img, (size_t)(tot * es)) == 0)
        printf("note: ... and darrayio agrees with MPI: check the serial "
               "reference of this case\n");
    }
    free(img);
  }
  if (mpi_done && D2 != NULL) {
    int64_t at = n2 == flen ? first_diff(D2, R, flen) : 0;
    if (at >= 0) {
      notes++;
      explain_offset(c, at, why, sizeof why);
      printf("note: MPI darray oracle disagrees with serial reference on %s "
             "(MPI file size %lld, expected %lld; first difference at %s)\n",
             desc, (long long)n2, (long long)flen, why);
      if (D1 != NULL && n1 == flen && first_diff(D1, R, flen) >= 0 &&
          memcmp(D1, D2, (size_t)flen) == 0)
        printf("note: ... and darrayio agrees with MPI: check the serial "
               "reference of this case\n");
    }
  }
  free(D1);
  free(D2);
  free(R);
  return notes;
}

/* Rank 0, once per case: darray_locate, darray_file_offset and
 * darray_global_index for every element against the formulas. */
static void check_index_queries(const rwcase_t *c, darray_t a) {
  int64_t es = types[c->tindex].esize;
  int64_t g[MAXD] = {0, 0, 0};
  int bad = 0;
  do {
    int co[MAXD];
    int64_t l[MAXD], lx[MAXD] = {0}, gx[MAXD] = {0}, moff = -1, foff = -1;
    for (int d = 0; d < c->ndims; d++)
      owner_of(c, d, g[d], &co[d], &l[d]);
    int r = coords_rank(c, co), rx = -1, cx = -1;
    local_t L;
    local_of(c, r, &L);
    int64_t want_moff = mem_offset(c, &L, l);
    int64_t want_foff = c->disp + es * storage_linear(c, g);
    int rc1 = darray_locate(a, g, &rx, &cx, lx, &moff);
    int rc2 = darray_file_offset(a, g, &foff);
    int rc3 = darray_global_index(a, r, 0, l, gx);
    int ok = rc1 == 0 && rc2 == 0 && rc3 == 0 && rx == r && cx == 0 &&
             moff == want_moff && foff == want_foff;
    for (int d = 0; d < c->ndims; d++)
      ok = ok && lx[d] == l[d] && gx[d] == g[d];
    if (!ok && bad++ == 0)
      TU_FAIL("index queries for g=(%lld,%lld,%lld): locate rc=%d rank %d "
              "(want %d) cell %d lidx0 %lld (want %lld) offset %lld (want "
              "%lld); file_offset rc=%d %lld (want %lld); global_index rc=%d "
              "g0 %lld",
              (long long)g[0], (long long)(c->ndims > 1 ? g[1] : 0),
              (long long)(c->ndims > 2 ? g[2] : 0), rc1, rx, r, cx,
              (long long)lx[0], (long long)l[0], (long long)moff,
              (long long)want_moff, rc2, (long long)foff, (long long)want_foff,
              rc3, (long long)gx[0]);
  } while (odo_next(c->ndims, c->gsizes, g));
  TU_CHECK(bad == 0);
}

/* ---- one case ---------------------------------------------------------------
 */

/* Build a darrayio description of the case. */
static int describe_array(const rwcase_t *c, darray_t *ap) {
  const elem_type_t *t = &types[c->tindex];
  int ok =
      TU_OK(darray_create(MPI_COMM_WORLD, c->ndims, c->gsizes, t->type, ap));
  if (!ok)
    return 0;
  darray_t a = *ap;
  if (t->type == DARRAY_OPAQUE)
    ok &= TU_OK(darray_set_elem_size(a, t->esize));
  if (c->setdist)
    ok &= TU_OK(darray_set_distribution(a, c->dist, c->dargs));
  if (c->setgrid)
    ok &= TU_OK(darray_set_grid(a, c->gridarg));
  if (c->setsorder)
    ok &= TU_OK(darray_set_storage_order(a, c->sorder, c->perm));
  if (c->disp)
    ok &= TU_OK(darray_set_displacement(a, c->disp));
  if (c->setmem) {
    int64_t padded[MAXD];
    for (int d = 0; d < c->ndims; d++)
      padded[d] = padded_extent(c, d);
    ok &= TU_OK(darray_set_memory_layout(a, c->morder, c->ghost,
                                         c->use_padded ? padded : NULL));
  }
  int rc = darray_commit(a);
  if (!TU_OK(rc)) {
    fprintf(stderr, "[rank %d] commit: %s\n", tu_rank(), darray_errmsg(a));
    ok = 0;
  }
  return ok;
}

/* Queries after commit against the formulas. */
static void check_queries(const rwcase_t *c, darray_t a, const local_t *L) {
  int nd = -1, grid[MAXD] = {0};
  int64_t gs[MAXD] = {0}, es = -1, shape[MAXD], start[MAXD], cnt = -1,
          bytes = -1;
  TU_OK(darray_global_shape(a, &nd, gs));
  TU_EQ_INT(nd, c->ndims);
  TU_OK(darray_elem_size(a, &es));
  TU_EQ_I64(es, types[c->tindex].esize);
  TU_OK(darray_grid(a, grid));
  int ncells = -1;
  TU_OK(darray_num_cells(a, &ncells));
  TU_EQ_INT(ncells, L->count > 0 ? 1 : 0);
  TU_OK(darray_local_count(a, &cnt));
  TU_EQ_I64(cnt, L->count);
  TU_OK(darray_local_bytes(a, &bytes));
  if (L->count > 0)
    TU_EQ_I64(bytes, L->bytes);
  TU_OK(darray_local_shape(a, 0, shape));
  if (L->count > 0)
    TU_OK(darray_local_start(a, 0, start));
  for (int d = 0; d < c->ndims; d++) {
    TU_EQ_I64(gs[d], c->gsizes[d]);
    TU_EQ_INT(grid[d], c->grid[d]);
    TU_EQ_I64(shape[d], L->count > 0 ? L->lshape[d] : 0);
    if (L->count > 0)
      TU_EQ_I64(start[d], global_of(c, d, L->coords[d], 0));
  }
}

/* The local ghosted buffer W (0xEE outside the interior) and, in storage
 * order, the packed local array B that the MPI oracle writes. */
static void fill_local(const rwcase_t *c, const local_t *L, unsigned char *W,
                       unsigned char *B) {
  int64_t es = types[c->tindex].esize;
  memset(W, GHOST_BYTE, (size_t)L->bytes);
  if (L->count == 0)
    return;
  int64_t l[MAXD] = {0, 0, 0}, g[MAXD];
  do {
    for (int d = 0; d < c->ndims; d++) {
      g[d] = global_of(c, d, L->coords[d], l[d]);
      int co;
      int64_t back;
      owner_of(c, d, g[d], &co, &back); /* the formulas agree with themselves */
      if (co != L->coords[d] || back != l[d] || g[d] >= c->gsizes[d])
        TU_FAIL("test bug: inverse mapping of dim %d local %lld", d,
                (long long)l[d]);
    }
    elem_value(c, g, W + mem_offset(c, L, l));
    if (B != NULL) {
      int64_t pos = 0;
      if (c->sorder == DARRAY_ORDER_C)
        for (int d = 0; d < c->ndims; d++)
          pos = pos * L->lshape[d] + l[d];
      else
        for (int d = c->ndims - 1; d >= 0; d--)
          pos = pos * L->lshape[d] + l[d];
      elem_value(c, g, B + pos * es);
    }
  } while (odo_next(c->ndims, L->lshape, l));
}

/* ---- files kept open across cases ------------------------------------------
 */

/*
 * Opening a file costs several collective operations, and at 4 ranks on 2
 * cores every collective costs milliseconds; so each (back end, hint set)
 * pair opens its handles once, on first use, and keeps them: F1 (darrayio
 * writes, RDWR) and F3 (the reference file darrayio reads, RDONLY). Rank 0
 * rewrites both files between cases through stdio; the handles see the new
 * contents because neither back end caches data. The MPI oracle writes F2
 * through one MPI_File opened once.
 */
typedef struct files {
  char f1[512], f2[512], f3[512];
  darray_file_t w[2][NHINTSETS];
  darray_file_t r[2][NHINTSETS];
  MPI_File mpi;
  int mpi_open;
} files_t;

static MPI_Info make_info(int mpiio, int hints) {
  MPI_Info info = tu_info(hintsets[hints]);
  MPI_Info_set(info, "darray_backend", mpiio ? "mpiio" : "posix");
  return info;
}

/* The handle of a kind (write: F1 RDWR, else F3 RDONLY) for a case; opened
 * on first use (collective then, but every rank takes the same path). */
static darray_file_t get_handle(files_t *fs, const rwcase_t *c, int write) {
  darray_file_t *h =
      write ? &fs->w[c->mpiio][c->hints] : &fs->r[c->mpiio][c->hints];
  if (*h == NULL) {
    MPI_Info info = make_info(c->mpiio, c->hints);
    int rc = darray_file_open(MPI_COMM_WORLD, write ? fs->f1 : fs->f3,
                              write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE
                                    : DARRAY_MODE_RDONLY,
                              info, h);
    if (!TU_OK(rc))
      fprintf(stderr, "[rank %d] open with hints \"%s\": %s\n", tu_rank(),
              hintsets[c->hints], darray_file_errmsg(NULL));
    MPI_Info_free(&info);
  }
  if (*h != NULL) {
    char v[64] = "";
    TU_OK(darray_file_get_hint(*h, "darray_backend", v, (int)sizeof v));
    TU_EQ_STR(v, c->mpiio ? "mpiio" : "posix");
  }
  return *h;
}

static void close_files(files_t *fs) {
  for (int b = 0; b < 2; b++)
    for (int h = 0; h < NHINTSETS; h++) {
      if (fs->w[b][h] != NULL)
        TU_OK(darray_file_close(&fs->w[b][h]));
      if (fs->r[b][h] != NULL)
        TU_OK(darray_file_close(&fs->r[b][h]));
    }
  if (fs->mpi_open)
    MPI_File_close(&fs->mpi);
}

/* Rank 0, before a case: background in F1 and F2, the reference in F3. */
static void prepare_files(const rwcase_t *c, const files_t *fs) {
  int64_t flen = c->disp + total_elems(c) * types[c->tindex].esize + 50;
  unsigned char *bg = malloc((size_t)flen);
  for (int64_t i = 0; i < flen; i++)
    bg[i] = bg_byte(i);
  TU_CHECK(tu_write_file(fs->f1, bg, flen) == 0);
  TU_CHECK(tu_write_file(fs->f2, bg, flen) == 0);
  unsigned char *R = reference_file(c, flen);
  TU_CHECK(tu_write_file(fs->f3, R, flen) == 0);
  free(R);
  free(bg);
}

/* The hint sets that force a strategy must be obeyed: direct and
 * romio_cb_*=disable mean no collective buffering cycles, romio_cb_*=enable
 * at least one when the array is not empty. */
static void check_strategy(const rwcase_t *c, const darray_stats_t *st) {
  const char *h = hintsets[c->hints];
  if (strstr(h, "darray_strategy=direct") || strstr(h, "=disable") ||
      strstr(h, "darray_strategy=mapped"))
    TU_EQ_I64(st->cycles, 0);
  if (strstr(h, "darray_strategy=mapped"))
    TU_EQ_STR(st->strategy, "mapped");
  else if (strstr(h, "=enable") && !TU_CHECK(st->cycles >= 1))
    fprintf(stderr, "[rank %d]   hints \"%s\" gave %lld cycles\n", tu_rank(), h,
            (long long)st->cycles);
}

/* Write counters: the sum over ranks is exact; a rank that did its own I/O
 * (no collective buffering cycles) wrote exactly its own bytes. */
static void check_write_stats(const rwcase_t *c, const local_t *L,
                              const darray_stats_t *st) {
  TU_EQ_I64(st->calls, 1);
  TU_EQ_I64(st->bytes_read >= 0, 1);
  if (strcmp(st->strategy, "direct") == 0 || /* sieving may write holes */
      strcmp(st->strategy, "mapped") == 0) {
    TU_EQ_I64(st->cycles, 0);
    TU_EQ_I64(st->bytes_written, L->count * types[c->tindex].esize);
    TU_EQ_I64(st->bytes_exchanged, 0);
  }
  /* only data travels: an owner sends each of its bytes at most once */
  TU_CHECK(st->bytes_exchanged >= 0 &&
           st->bytes_exchanged <= L->count * types[c->tindex].esize);
  check_strategy(c, st);
}

/*
 * One case. Sync points: the Allreduce after commit (rank 0 prepared the
 * files before it), the I/O calls themselves, and the Allreduce of the
 * counters, after which rank 0 checks F1 and F2 while the others go on.
 */
static int run_case(const rwcase_t *c, files_t *fs) {
  int rank = tu_rank();
  long fail0 = tu_failures();
  char desc[768];
  describe(c, desc, sizeof desc);
  const elem_type_t *t = &types[c->tindex];
  local_t L;
  local_of(c, rank, &L);
  /* the file form of the MPI oracle on the hand-picked cases and every
   * fourth random one; the memory form on all (in check_files) */
  int mpi_ok = mpi_expressible(c) && (c->label != NULL || c->id % 4 == 0);
  if (rank == 0)
    prepare_files(c, fs);

  darray_t a = NULL;
  int ok = describe_array(c, &a), all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int notes = 0;
  if (all_ok) {
    check_queries(c, a, &L);
    if (rank == 0)
      check_index_queries(c, a);

    int64_t alloc = L.bytes > 0 ? L.bytes : 1;
    unsigned char *W = malloc((size_t)alloc);
    unsigned char *Wcopy = malloc((size_t)alloc);
    unsigned char *B = malloc((size_t)(L.count * t->esize + 1));
    unsigned char *Rd = malloc((size_t)alloc);
    fill_local(c, &L, W, mpi_ok ? B : NULL);
    memcpy(Wcopy, W, (size_t)L.bytes);
    int nullbuf = L.count == 0 && c->null_if_empty;

    /* darrayio writes F1. */
    /* bytes written, elements, sieved writes; bytes sent by two-phase
     * writes and by two-phase reads, and whether both were two-phase */
    int64_t counters[6] = {0, L.count, 0, 0, 0, 0}, sums[6];
    char wrote[16] = ""; /* the write's strategy */
    darray_file_t f = get_handle(fs, c, 1);
    if (f != NULL) {
      darray_stats_t st;
      TU_OK(darray_file_reset_stats(f));
      int rc = darray_write(f, a, nullbuf ? NULL : W);
      if (!TU_OK(rc))
        fprintf(stderr, "[rank %d] write: %s\n", rank, darray_file_errmsg(f));
      memset(&st, 0xff, sizeof st);
      TU_OK(darray_file_get_stats(f, &st));
      check_write_stats(c, &L, &st);
      counters[0] = st.bytes_written;
      counters[2] = strcmp(st.strategy, "sieve") == 0; /* may write holes */
      counters[3] = st.bytes_exchanged;
      snprintf(wrote, sizeof wrote, "%s", st.strategy);
    }
    tu_compare_bytes(W, Wcopy, L.bytes, "write buffer unchanged by write");

    /* The MPI-IO oracle writes F2. */
    if (mpi_ok)
      mpi_write(c, fs->mpi, B, L.count);

    /* darrayio reads the reference file F3 into a 0xEE-filled buffer. */
    memset(Rd, GHOST_BYTE, (size_t)alloc);
    f = get_handle(fs, c, 0);
    if (f != NULL) {
      darray_stats_t st;
      TU_OK(darray_file_reset_stats(f));
      int rc = darray_read(f, a, nullbuf ? NULL : Rd);
      if (!TU_OK(rc))
        fprintf(stderr, "[rank %d] read: %s\n", rank, darray_file_errmsg(f));
      memset(&st, 0xff, sizeof st);
      TU_OK(darray_file_get_stats(f, &st));
      TU_EQ_I64(st.bytes_written, 0);
      TU_EQ_I64(st.calls, 1);
      if (strcmp(st.strategy, "twophase") == 0 ||
          strcmp(st.strategy, "rows") == 0 ||
          strcmp(st.strategy, "static") == 0) {
        counters[4] = st.bytes_exchanged;
        counters[5] = strcmp(wrote, st.strategy) == 0;
      } else {
        TU_EQ_I64(st.bytes_exchanged, 0);
      }
      check_strategy(c, &st);
    }
    if (L.bytes > 0 &&
        tu_compare_bytes(Rd, W, L.bytes, "read buffer vs expected") != 0) {
      int64_t at = first_diff(Rd, W, L.bytes);
      char why[256];
      explain_buffer(c, &L, at, why, sizeof why);
      fprintf(stderr, "[rank %d]   first read difference at offset %lld: %s\n",
              rank, (long long)at, why);
    }

    MPI_Allreduce(counters, sums, 6, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    /* Two-phase both ways, same hints and extent, so the same file
     * domains: the bytes outside their owner's domain go out once from
     * the owners when writing and once from the aggregators when reading
     * (rows both ways: the same groups and pieces, and the same bytes;
     * static segmentation: every member's bytes, to its aggregator and
     * back).
     * Anything else sent (offset/length lists) would break the equality. */
    if (sums[5] == tu_nprocs() && !TU_EQ_I64(sums[3], sums[4]))
      fprintf(stderr, "[rank %d]   two-phase, rows or static sent %lld bytes "
              "writing, %lld reading\n", rank, (long long)sums[3],
              (long long)sums[4]);
    TU_EQ_I64(sums[1], total_elems(c));
    if (sums[2] == 0)
      TU_EQ_I64(sums[0], total_elems(c) * t->esize);
    else
      TU_CHECK(sums[0] >= total_elems(c) * t->esize);
    if (rank == 0)
      notes = check_files(c, fs->f1, fs->f2, mpi_ok, desc);
    free(W);
    free(Wcopy);
    free(B);
    free(Rd);
  }
  TU_OK(darray_free(&a));
  TU_CHECK(a == NULL);
  if (tu_failures() != fail0)
    fprintf(stderr, "[rank %d] FAILED %s\n", rank, desc);
  return notes;
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  int P = tu_nprocs();
  files_t fs;
  memset(&fs, 0, sizeof fs);
  if (tu_tmpname(fs.f1, sizeof fs.f1, "darrayio-rwmatrix-darrayio") == NULL ||
      tu_tmpname(fs.f2, sizeof fs.f2, "darrayio-rwmatrix-mpi") == NULL ||
      tu_tmpname(fs.f3, sizeof fs.f3, "darrayio-rwmatrix-ref") == NULL)
    return tu_finish();
  if (tu_rank() == 0) { /* every file exists before any handle opens it */
    TU_CHECK(tu_write_file(fs.f1, "", 0) == 0);
    TU_CHECK(tu_write_file(fs.f2, "", 0) == 0);
    TU_CHECK(tu_write_file(fs.f3, "", 0) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  TU_EQ_INT(MPI_File_open(MPI_COMM_WORLD, fs.f2, MPI_MODE_WRONLY, MPI_INFO_NULL,
                          &fs.mpi),
            MPI_SUCCESS);
  fs.mpi_open = 1;
  double t0 = MPI_Wtime();
  int ncases = 0, notes = 0, id = 0;
  int verbose = getenv("TEST_VERBOSE") != NULL;
  int only = getenv("TEST_CASE") ? atoi(getenv("TEST_CASE")) : -1;
  for (int i = 0; i < NFIXED + NRANDOM; i++, id++) {
    rwcase_t c;
    if (i < NFIXED)
      fixed_case(&c, id, P, i);
    else
      random_case(&c, id, P);
    if (only >= 0 && id != only)
      continue;
    if (verbose && tu_rank() == 0) {
      char desc[768];
      describe(&c, desc, sizeof desc);
      printf("%s\n", desc);
      fflush(stdout);
    }
    double tc = MPI_Wtime();
    notes += run_case(&c, &fs);
    ncases++;
    if (verbose && tu_rank() == 0)
      printf("  %.3f s\n", MPI_Wtime() - tc);
  }
  close_files(&fs);
  if (tu_rank() == 0) {
    printf("test_rw_matrix: %d cases at P=%d in %.1f s, %d MPI-oracle notes\n",
           ncases, P, MPI_Wtime() - t0, notes);
    fflush(stdout);
  }
  tu_remove(fs.f1);
  tu_remove(fs.f2);
  tu_remove(fs.f3);
  return tu_finish();
}
