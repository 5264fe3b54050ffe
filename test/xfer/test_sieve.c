/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_sieve.c - data sieving (darray_strategy=sieve, romio_ds_*): bytes on
 * disk and in memory against a serial reference, concurrent interleaved
 * read-modify-writes, bytes outside the array, and the call counters.
 *
 *  1. A covering sample of cases: BLOCK, BLOCK(k), CYCLIC(1), CYCLIC(k),
 *     NONE over 1..3 dimensions (MULTIPARTITION at P = 1 and 4), storage
 *     order C, Fortran or a permutation, displacement, memory order C or
 *     Fortran with ghosts and padding, element sizes 1, 3, 4, 8, both back
 *     ends, and hint sets with buffers of a few to tens of bytes (every
 *     access needs many windows) and cost models that always join holes,
 *     never join them, or write windows with holes as separate stretches.
 *     The oracle is a serial reference from first principles: each global
 *     element's owner, its byte offset in the owner's buffer and its file
 *     offset (disp + esize * linear index in storage order). Files are
 *     pre-filled with a background pattern (or fresh, so read-modify-write
 *     windows run past the end of the file); rank 0 compares the whole
 *     file, and every rank reads the array back into a buffer whose ghosts
 *     and padding must stay untouched.
 *  2. Concurrency: every rank sieve-writes CYCLIC(1) columns of the same
 *     rows at once, 20 rounds with different values, with 64-byte windows
 *     that cover the other ranks' elements; after each round the file must
 *     be exactly right (without the byte-range locks updates get lost).
 *  3. Outside bytes: arrays A and B in one pre-filled file with gaps around
 *     them; rewriting A by sieving leaves B, the gaps, the bytes before A
 *     and after B unchanged.
 *  4. Counters: a column block of a row-major 64x64 int32 matrix is read in
 *     ceil(64 / runs-per-window) calls with 4 KiB windows instead of one
 *     call per row, written in as many calls (read-modify-writes on both
 *     back ends; direct rows under darray_concurrent_writers=unlocked); the
 *     planner's choice under romio_ds_* / romio_cb_* hints; large holes
 *     (BTIO-like) are not sieved by the default cost model; sections with
 *     holes nobody accesses are sieved automatically (and the holes keep
 *     their bytes); the write join rule at its threshold, 2 gap + len
 *     against the write latency's bytes, on both sides of it, in calls
 *     and bytes; a file shorter than the array gives DARRAY_EEOF on
 *     every rank.
 *
 * Run: mpiexec -n 1..4 ./test_sieve   (TEST_PART=1..4 runs one part)
 */

#include "dist_oracle.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
#define GHOST_BYTE 0xEE
#define BG_SEED 0xb0b0cafeULL
#define TAIL 23 /* background bytes after the array */

/* ---- a case ---------------------------------------------------------------
 */

typedef struct tcase {
  int ndims;
  int64_t g[MAXD];
  darray_dist_t dist[MAXD];
  int64_t darg[MAXD]; /* block size, or DARRAY_DEFAULT_ARG */
  int grid[MAXD];     /* explicit grid (ignored for MULTIPARTITION) */
  darray_order_t sorder;
  int perm[MAXD]; /* storage: file dims slowest .. fastest */
  int64_t disp;
  darray_order_t morder;
  int64_t ghost[MAXD];
  int padded; /* allocate the largest interior + 2 ghost + 1 */
  int esize;  /* 1, 3, 4 or 8 */
  int mpiio;
  const char *hints;
  int fresh; /* truncate instead of pre-filling */
} tcase_t;

static int is_mp(const tcase_t *c) {
  return c->dist[0] == DARRAY_DIST_MULTIPARTITION;
}

static int isqrt(int p) {
  for (int q = 1; q * q <= p; q++)
    if (q * q == p)
      return q;
  return -1;
}

/* ---- the oracle: ownership from first principles -------------------------
 */

static int64_t eff_block(const tcase_t *c, int d) {
  int64_t n = c->g[d];
  int p = c->grid[d];
  if (c->dist[d] == DARRAY_DIST_BLOCK)
    return c->darg[d] == DARRAY_DEFAULT_ARG ? (n + p - 1) / p : c->darg[d];
  if (c->dist[d] == DARRAY_DIST_CYCLIC)
    return c->darg[d] == DARRAY_DEFAULT_ARG ? 1 : c->darg[d];
  return n;
}

/* The distribution of dimension d, as dist_oracle.h reads it. */
static void owner_dim(const tcase_t *c, int d, int64_t g, int *coord,
                      int64_t *local) {
  dor_owner_dim(c->dist[d], eff_block(c, d), c->grid[d], g, coord, local);
}

static int64_t count_owned(const tcase_t *c, int d, int coord) {
  return dor_count_owned(c->dist[d], c->g[d], eff_block(c, d), c->grid[d],
                         coord);
}

/* One local cell of a rank: interior box and allocation. */
typedef struct cell {
  int64_t low[MAXD], len[MAXD], ext[MAXD];
  int64_t base;  /* byte offset of the cell's allocation in the buffer */
  int64_t bytes; /* of the allocation */
} cell_t;

typedef struct local {
  int ncells;
  cell_t cell[4];
  int64_t bytes;
} local_t;

static int64_t padded_ext(const tcase_t *c, int d) {
  int64_t mx = 0;
  for (int co = 0; co < c->grid[d]; co++) {
    int64_t k = count_owned(c, d, co);
    mx = k > mx ? k : mx;
  }
  return mx + 2 * c->ghost[d] + 1;
}

static void local_of(const tcase_t *c, int rank, local_t *L) {
  memset(L, 0, sizeof *L);
  if (is_mp(c)) {
    int q = isqrt(tu_nprocs());
    L->ncells = q;
    for (int k = 0; k < q; k++) {
      int xyz[3];
      dor_cell_of(q, rank, k, xyz);
      for (int d = 0; d < 3; d++)
        dor_slab(c->g[d], q, xyz[d], &L->cell[k].low[d], &L->cell[k].len[d]);
    }
  } else {
    L->ncells = 1;
    int co[MAXD];
    dor_rank_coords(c->ndims, c->grid, rank, co);
    for (int d = 0; d < c->ndims; d++) {
      L->cell[0].len[d] = count_owned(c, d, co[d]);
      L->cell[0].low[d] = co[d]; /* the coordinate, for non-MP */
    }
  }
  for (int k = 0; k < L->ncells; k++) {
    cell_t *e = &L->cell[k];
    e->bytes = c->esize;
    int64_t n = 1;
    for (int d = 0; d < c->ndims; d++) {
      e->ext[d] = c->padded ? padded_ext(c, d) : e->len[d] + 2 * c->ghost[d];
      e->bytes *= e->ext[d];
      n *= e->len[d];
    }
    if (n == 0) /* a process that owns nothing has no buffer */
      e->bytes = 0;
    e->base = L->bytes;
    L->bytes += e->bytes;
  }
}

/* Byte offset of local index l (interior) in a cell of memory order o. */
static int64_t cell_off(const tcase_t *c, const cell_t *e, const int64_t l[]) {
  int64_t lin = 0;
  if (c->morder == DARRAY_ORDER_C)
    for (int d = 0; d < c->ndims; d++)
      lin = lin * e->ext[d] + l[d] + c->ghost[d];
  else
    for (int d = c->ndims - 1; d >= 0; d--)
      lin = lin * e->ext[d] + l[d] + c->ghost[d];
  return e->base + lin * c->esize;
}

/* Owner of global element g and its byte offset in the owner's buffer. */
static void locate(const tcase_t *c, const local_t *all, const int64_t g[],
                   int *rank, int64_t *moff) {
  int64_t l[MAXD];
  if (is_mp(c)) {
    int q = isqrt(tu_nprocs()), xyz[3];
    for (int d = 0; d < 3; d++)
      xyz[d] = dor_slab_of(c->g[d], q, g[d]);
    int k = xyz[2];
    *rank = dor_owner_of_cell(q, xyz);
    const cell_t *e = &all[*rank].cell[k];
    for (int d = 0; d < 3; d++)
      l[d] = g[d] - e->low[d];
    *moff = cell_off(c, e, l);
    return;
  }
  int co[MAXD];
  for (int d = 0; d < c->ndims; d++)
    owner_dim(c, d, g[d], &co[d], &l[d]);
  *rank = dor_coords_rank(c->ndims, c->grid, co);
  *moff = cell_off(c, &all[*rank].cell[0], l);
}

static int64_t total_elems(const tcase_t *c) {
  int64_t t = 1;
  for (int d = 0; d < c->ndims; d++)
    t *= c->g[d];
  return t;
}

/* File offset of g: displacement + esize * linear index in storage order. */
static int64_t file_off(const tcase_t *c, const int64_t g[]) {
  int64_t lin = 0;
  for (int i = 0; i < c->ndims; i++)
    lin = lin * c->g[c->perm[i]] + g[c->perm[i]];
  return c->disp + lin * c->esize;
}

/* Byte b of the value of element g (identified by its row-major index). */
static unsigned char val_byte(const tcase_t *c, uint64_t seed,
                              const int64_t g[], int b) {
  int64_t lin = 0;
  for (int d = 0; d < c->ndims; d++)
    lin = lin * c->g[d] + g[d];
  return (unsigned char)tu_value(seed, lin * 8 + b);
}

static int odo_next(int nd, const int64_t shape[], int64_t idx[]) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++idx[d] < shape[d])
      return 1;
    idx[d] = 0;
  }
  return 0;
}

/* Every rank's local layout (P entries). */
static local_t *all_locals(const tcase_t *c) {
  local_t *all = malloc(sizeof *all * (size_t)tu_nprocs());
  for (int r = 0; r < tu_nprocs(); r++)
    local_of(c, r, &all[r]);
  return all;
}

/* The local buffer of `rank` holding values of stream seed (ghosts and
 * padding GHOST_BYTE); and/or the file image painted with them. */
static void paint(const tcase_t *c, const local_t *all, uint64_t seed,
                  int rank, unsigned char *buf, unsigned char *img) {
  int64_t g[MAXD] = {0, 0, 0};
  if (buf != NULL)
    memset(buf, GHOST_BYTE, (size_t)all[rank].bytes);
  do {
    int owner;
    int64_t moff, foff = file_off(c, g);
    locate(c, all, g, &owner, &moff);
    for (int b = 0; b < c->esize; b++) {
      unsigned char v = val_byte(c, seed, g, b);
      if (buf != NULL && owner == rank)
        buf[moff + b] = v;
      if (img != NULL)
        img[foff + b] = v;
    }
  } while (odo_next(c->ndims, c->g, g));
}

static unsigned char bg_byte(int64_t off) {
  return (unsigned char)tu_value(BG_SEED, off);
}

/* ---- darrayio side ---------------------------------------------------------
 */

static darray_type_t type_of(int esize) {
  switch (esize) {
  case 1: return DARRAY_INT8;
  case 4: return DARRAY_INT32;
  case 8: return DARRAY_DOUBLE;
  default: return DARRAY_OPAQUE;
  }
}

static int make_array(const tcase_t *c, darray_t *a) {
  int ok = TU_OK(darray_create(MPI_COMM_WORLD, c->ndims, c->g,
                               type_of(c->esize), a));
  if (!ok)
    return 0;
  if (c->esize == 3)
    TU_OK(darray_set_elem_size(*a, 3));
  TU_OK(darray_set_distribution(*a, c->dist, c->darg));
  if (!is_mp(c))
    TU_OK(darray_set_grid(*a, c->grid));
  TU_OK(darray_set_storage_order(*a, c->sorder, c->perm));
  TU_OK(darray_set_displacement(*a, c->disp));
  int64_t pad[MAXD] = {0, 0, 0};
  for (int d = 0; c->padded && d < c->ndims; d++)
    pad[d] = padded_ext(c, d);
  TU_OK(darray_set_memory_layout(*a, c->morder, c->ghost,
                                 c->padded ? pad : NULL));
  return TU_OK(darray_commit(*a));
}

static int open_file(const char *path, int mode, int mpiio, const char *hints,
                     darray_file_t *f) {
  MPI_Info info = tu_info(hints);
  MPI_Info_set(info, "darray_backend", mpiio ? "mpiio" : "posix");
  int ok = TU_OK(darray_file_open(MPI_COMM_WORLD, path, mode, info, f));
  MPI_Info_free(&info);
  return ok;
}

static void describe(const tcase_t *c, char *s, size_t n) {
  size_t l = 0;
#define APP(...)                                                               \
  do {                                                                         \
    if (l < n)                                                                 \
      l += (size_t)snprintf(s + l, n - l, __VA_ARGS__);                        \
  } while (0)
  static const char *dn[] = {"NONE", "BLOCK", "CYCLIC", "MP"};
  APP("P=%d g=", tu_nprocs());
  for (int d = 0; d < c->ndims; d++)
    APP("%s%lld", d ? "x" : "", (long long)c->g[d]);
  for (int d = 0; d < c->ndims; d++)
    APP("%s%s(%lld)/%d", d ? "," : " dist=", dn[c->dist[d]],
        (long long)c->darg[d], c->grid[d]);
  APP(" perm=");
  for (int d = 0; d < c->ndims; d++)
    APP("%d", c->perm[d]);
  APP(" disp=%lld mem=%s ghost=", (long long)c->disp,
      c->morder == DARRAY_ORDER_C ? "C" : "F");
  for (int d = 0; d < c->ndims; d++)
    APP("%lld", (long long)c->ghost[d]);
  APP("%s es=%d %s%s hints=%s", c->padded ? " padded" : "", c->esize,
      c->mpiio ? "mpiio" : "posix", c->fresh ? " fresh" : "", c->hints);
#undef APP
}

/* ---- 1. the case matrix ----------------------------------------------------
 */

static const char *const hintsets[] = {
    /* tiny windows, default cost model */
    "darray_strategy=sieve;ind_rd_buffer_size=24;ind_wr_buffer_size=24",
    /* holes always worth sieving */
    "darray_strategy=sieve;ind_rd_buffer_size=40;ind_wr_buffer_size=64;"
    "darray_ds_rd_latency_ns=1000000;darray_ds_wr_latency_ns=1000000",
    /* holes never worth sieving: runs one by one */
    "darray_strategy=sieve;ind_rd_buffer_size=100;ind_wr_buffer_size=36;"
    "darray_ds_rd_latency_ns=0;darray_ds_wr_latency_ns=0",
    /* windows smaller than some elements */
    "darray_strategy=sieve;ind_rd_buffer_size=5;ind_wr_buffer_size=7",
    /* writes join holes but a read-modify-write never pays: stretches */
    "darray_strategy=sieve;ind_rd_buffer_size=80;ind_wr_buffer_size=80;"
    "darray_ds_rd_latency_ns=1000;darray_ds_wr_latency_ns=100;"
    "darray_ds_bandwidth_mbs=1000",
    /* chosen by the romio_ds_* hints */
    "romio_ds_read=enable;romio_ds_write=enable;romio_cb_read=disable;"
    "romio_cb_write=disable;ind_rd_buffer_size=50;ind_wr_buffer_size=50",
    /* default buffers */
    "darray_strategy=sieve",
};
#define NHINTSETS ((int)(sizeof hintsets / sizeof hintsets[0]))

static uint64_t rng = 0x5151ULL;

static int rnd(int n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng >> 33) % (uint64_t)n);
}

/* Spread P over the distributed dimensions at random. */
static void random_grid(tcase_t *c, int P) {
  int left = P, last = -1;
  for (int d = 0; d < c->ndims; d++) {
    c->grid[d] = 1;
    if (c->dist[d] != DARRAY_DIST_NONE)
      last = d;
  }
  for (int d = 0; d < c->ndims; d++) {
    if (c->dist[d] == DARRAY_DIST_NONE)
      continue;
    if (d == last) {
      c->grid[d] = left;
      return;
    }
    int divs[8], nd = 0;
    for (int x = 1; x <= left; x++)
      if (left % x == 0)
        divs[nd++] = x;
    c->grid[d] = divs[rnd(nd)];
    left /= c->grid[d];
  }
}

static void set_perm(tcase_t *c, int which) {
  int nd = c->ndims;
  static const int p3[][3] = {{1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}};
  c->sorder = which == 0   ? DARRAY_ORDER_C
              : which == 1 ? DARRAY_ORDER_FORTRAN
                           : DARRAY_ORDER_PERM;
  for (int d = 0; d < nd; d++)
    c->perm[d] = which == 1 ? nd - 1 - d : d;
  if (which == 2 && nd == 2)
    c->perm[0] = 1, c->perm[1] = 0;
  if (which == 2 && nd == 3)
    memcpy(c->perm, p3[rnd(4)], sizeof p3[0]);
}

static void random_case(tcase_t *c, int P) {
  static const int64_t s1[] = {7, 13, 40, 97};
  static const int64_t s2[][2] = {{5, 9}, {4, 7}, {9, 16}, {13, 11}, {3, 24}};
  static const int64_t s3[][3] = {{3, 4, 5}, {5, 3, 7}, {2, 9, 4}, {6, 5, 7}};
  static const int sizes[] = {1, 3, 4, 8};
  memset(c, 0, sizeof *c);
  c->ndims = 1 + rnd(3);
  int nd = c->ndims;
  if (nd == 1)
    c->g[0] = s1[rnd(4)];
  else if (nd == 2)
    memcpy(c->g, s2[rnd(5)], sizeof s2[0]);
  else
    memcpy(c->g, s3[rnd(4)], sizeof s3[0]);
  int anydist = 0;
  for (int d = 0; d < nd; d++) {
    int k = rnd(5);
    c->dist[d] = k == 0   ? DARRAY_DIST_NONE
                 : k <= 2 ? DARRAY_DIST_BLOCK
                          : DARRAY_DIST_CYCLIC;
    c->darg[d] = DARRAY_DEFAULT_ARG;
    if (k == 4 || (k == 2 && rnd(2)))
      c->darg[d] = 2 + rnd(3); /* CYCLIC(k); BLOCK(k) fixed below */
    anydist |= k != 0;
  }
  if (!anydist && P > 1)
    c->dist[nd - 1] = DARRAY_DIST_CYCLIC;
  random_grid(c, P);
  for (int d = 0; d < nd; d++)
    if (c->dist[d] == DARRAY_DIST_BLOCK && c->darg[d] != DARRAY_DEFAULT_ARG)
      c->darg[d] = (c->g[d] + c->grid[d] - 1) / c->grid[d] + rnd(2);
  set_perm(c, rnd(3));
  c->disp = rnd(2) ? 0 : 1 + rnd(40);
  c->morder = rnd(2) ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int d = 0; d < nd; d++)
    c->ghost[d] = rnd(3) ? 0 : 1 + rnd(2);
  c->padded = rnd(4) == 0;
  c->esize = sizes[rnd(4)];
  c->mpiio = rnd(3) == 0;
  c->hints = hintsets[rnd(NHINTSETS)];
  c->fresh = rnd(3) == 0;
}

/* A MULTIPARTITION case (P must be a perfect square). */
static void mp_case(tcase_t *c, int variant) {
  memset(c, 0, sizeof *c);
  c->ndims = 3;
  c->g[0] = 5 + variant % 2, c->g[1] = 6, c->g[2] = 7 - variant % 3;
  for (int d = 0; d < 3; d++) {
    c->dist[d] = DARRAY_DIST_MULTIPARTITION;
    c->darg[d] = DARRAY_DEFAULT_ARG;
    c->grid[d] = 1;
    c->ghost[d] = variant % 2 ? 0 : 1 + d % 2;
  }
  set_perm(c, variant % 3);
  c->disp = variant % 2 ? 11 : 0;
  c->morder = variant % 2 ? DARRAY_ORDER_C : DARRAY_ORDER_FORTRAN;
  c->esize = variant % 2 ? 8 : 3;
  c->mpiio = variant % 4 == 3;
  c->hints = hintsets[variant % NHINTSETS];
  c->fresh = variant % 3 == 1;
}

static void run_case(const tcase_t *c, const char *path, int id) {
  int rank = tu_rank();
  char desc[512];
  describe(c, desc, sizeof desc);
  local_t *all = all_locals(c);
  uint64_t seed = 7000 + (uint64_t)id;
  int64_t fsize = c->disp + total_elems(c) * c->esize;
  int64_t isize = fsize + (c->fresh ? 0 : TAIL);
  unsigned char *img = NULL;
  if (rank == 0) { /* the reference file image, and the pre-filled file */
    img = malloc((size_t)isize);
    for (int64_t o = 0; o < isize; o++)
      img[o] = c->fresh ? 0 : bg_byte(o);
    if (!c->fresh)
      TU_EQ_INT(tu_write_file(path, img, isize), 0);
    paint(c, all, seed, -1, NULL, img);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  darray_t a;
  unsigned char *buf = malloc((size_t)all[rank].bytes + 1);
  unsigned char *want = malloc((size_t)all[rank].bytes + 1);
  paint(c, all, seed, rank, want, NULL);
  memcpy(buf, want, (size_t)all[rank].bytes);
  darray_file_t f;
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
             (c->fresh ? DARRAY_MODE_TRUNC : 0);
  if (make_array(c, &a) && open_file(path, mode, c->mpiio, c->hints, &f)) {
    int64_t nb = -1;
    darray_local_bytes(a, &nb);
    TU_EQ_I64(nb, all[rank].bytes); /* the oracle agrees on the layout */
    if (!TU_OK(darray_write(f, a, buf)))
      TU_FAIL("%s: write: %s", desc, darray_file_errmsg(f));
    darray_stats_t st;
    darray_file_get_stats(f, &st);
    char v[32];
    darray_file_get_hint(f, "ind_wr_buffer_size", v, sizeof v);
    int64_t cap = strtoll(v, NULL, 10);
    TU_CHECK(st.peak_temp_bytes <= (cap > c->esize ? cap : c->esize));
    MPI_Barrier(MPI_COMM_WORLD); /* every write has returned */

    if (rank == 0) {
      int64_t size;
      unsigned char *file = tu_read_file(path, &size);
      if (!TU_EQ_I64(size, isize) ||
          tu_compare_bytes(file, img, isize, "file vs reference") != 0)
        TU_FAIL("%s: wrong file", desc);
      free(file);
    }

    darray_file_reset_stats(f);
    memset(buf, GHOST_BYTE, (size_t)all[rank].bytes);
    if (!TU_OK(darray_read(f, a, buf)))
      TU_FAIL("%s: read: %s", desc, darray_file_errmsg(f));
    if (tu_compare_bytes(buf, want, all[rank].bytes, "read buffer") != 0)
      TU_FAIL("%s: wrong buffer after read (rank %d)", desc, rank);
    darray_file_get_stats(f, &st);
    darray_file_get_hint(f, "ind_rd_buffer_size", v, sizeof v);
    cap = strtoll(v, NULL, 10);
    TU_CHECK(st.peak_temp_bytes <= (cap > c->esize ? cap : c->esize));
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
  free(buf);
  free(want);
  free(img);
  free(all);
}

static void test_matrix(const char *path) {
  int P = tu_nprocs();
  tcase_t c;
  /* fewer at 3 and 4 processes: on 2 cores every collective call is slow */
  int nrandom = P <= 2 ? 90 : 45;
  for (int i = 0; i < nrandom; i++) {
    random_case(&c, P);
    run_case(&c, path, i);
  }
  /* hand-picked: a column block and CYCLIC(1) columns, every hint set and
   * back end, in a pre-filled and a fresh file */
  for (int h = 0; h < NHINTSETS; h++)
    for (int m = 0; m < 2; m++) {
      memset(&c, 0, sizeof c);
      c.ndims = 2;
      c.g[0] = 9, c.g[1] = 20;
      c.dist[0] = DARRAY_DIST_NONE, c.darg[0] = DARRAY_DEFAULT_ARG;
      c.dist[1] = h % 2 ? DARRAY_DIST_CYCLIC : DARRAY_DIST_BLOCK;
      c.darg[1] = DARRAY_DEFAULT_ARG;
      c.grid[0] = 1, c.grid[1] = P;
      set_perm(&c, 0);
      c.disp = 5 * m;
      c.morder = m ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
      c.ghost[0] = c.ghost[1] = m;
      c.esize = 4;
      c.mpiio = m;
      c.hints = hintsets[h];
      c.fresh = (h + m) % 2;
      run_case(&c, path, 1000 + 2 * h + m);
    }
  if (isqrt(P) > 0)
    for (int v = 0; v < 8; v++) {
      mp_case(&c, v);
      run_case(&c, path, 2000 + v);
    }
  else
    tu_skip_part("multipartition cases", "MULTIPARTITION needs a square P");
}

/* ---- 2. concurrent interleaved writes ---------------------------------------
 */

static void test_concurrent(const char *path, int mpiio, int unlocked,
                            int rounds, int64_t rows, int64_t cols) {
  int rank = tu_rank(), P = tu_nprocs();
  tcase_t c;
  memset(&c, 0, sizeof c);
  c.ndims = 2;
  c.g[0] = rows, c.g[1] = cols;
  c.dist[0] = DARRAY_DIST_NONE, c.darg[0] = DARRAY_DEFAULT_ARG;
  c.dist[1] = DARRAY_DIST_CYCLIC, c.darg[1] = 1;
  c.grid[0] = 1, c.grid[1] = P;
  set_perm(&c, 0);
  c.morder = DARRAY_ORDER_C;
  c.esize = 4;
  c.mpiio = mpiio;
  c.hints = unlocked ? "darray_strategy=sieve;ind_wr_buffer_size=64;"
                      "darray_concurrent_writers=unlocked"
                    : "darray_strategy=sieve;ind_wr_buffer_size=64";
  local_t *all = all_locals(&c);
  int64_t bytes = rows * cols * 4;
  unsigned char *buf = malloc((size_t)all[rank].bytes + 1);
  unsigned char *img = malloc((size_t)bytes);
  darray_t a;
  darray_file_t f;
  if (make_array(&c, &a) &&
      open_file(path, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                          DARRAY_MODE_TRUNC,
                mpiio, c.hints, &f)) {
    for (int r = 0; r < rounds; r++) {
      uint64_t seed = 90000 + (uint64_t)r * 17 + (uint64_t)mpiio;
      paint(&c, all, seed, rank, buf, NULL);
      darray_file_reset_stats(f);
      MPI_Barrier(MPI_COMM_WORLD); /* start together */
      if (!TU_OK(darray_write(f, a, buf)))
        TU_FAIL("round %d: %s", r, darray_file_errmsg(f));
      darray_stats_t st;
      darray_file_get_stats(f, &st);
      int64_t own = all[rank].cell[0].len[0] * all[rank].cell[0].len[1];
      if (unlocked) { /* no read-modify-write: every element alone */
        TU_EQ_I64(st.read_calls, 0);
        /* rank 0's last and first columns touch when P divides cols-1 */
        int64_t merged = rank == 0 && (cols - 1) % P == 0 ? rows - 1 : 0;
        if (P > 1)
          TU_EQ_I64(st.write_calls, own - merged);
      } else if (P > 1 && own > 1) { /* read-modify-writes did happen */
        TU_CHECK(st.read_calls >= 1);
        TU_CHECK(st.write_calls < own);
      }
      MPI_Barrier(MPI_COMM_WORLD); /* every write has returned */
      int bad = 0;
      if (rank == 0) {
        paint(&c, all, seed, -1, NULL, img);
        int64_t size;
        unsigned char *file = tu_read_file(path, &size);
        bad = !TU_EQ_I64(size, bytes) ||
              tu_compare_bytes(file, img, bytes, "file after round") != 0;
        if (bad)
          TU_FAIL("%s backend, round %d: lost updates",
                  mpiio ? "mpiio" : "posix", r);
        free(file);
      }
      MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (bad)
        break;
    }
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
  free(buf);
  free(img);
  free(all);
}

/* ---- 3. bytes outside the array ---------------------------------------------
 */

static void test_outside(const char *path) {
  int rank = tu_rank(), P = tu_nprocs();
  tcase_t A, B;
  memset(&A, 0, sizeof A);
  A.ndims = 2;
  A.g[0] = 7, A.g[1] = 10;
  A.dist[0] = DARRAY_DIST_NONE, A.darg[0] = DARRAY_DEFAULT_ARG;
  A.dist[1] = DARRAY_DIST_CYCLIC, A.darg[1] = 1;
  A.grid[0] = 1, A.grid[1] = P;
  set_perm(&A, 0);
  A.disp = 11;
  A.morder = DARRAY_ORDER_C;
  A.ghost[1] = 1;
  A.esize = 4;
  A.hints = "darray_strategy=sieve;ind_rd_buffer_size=32;"
            "ind_wr_buffer_size=32";
  B = A;
  B.g[0] = 6, B.g[1] = 5;
  B.dist[1] = DARRAY_DIST_CYCLIC, B.darg[1] = 2;
  set_perm(&B, 1);
  B.esize = 3;
  B.disp = A.disp + 7 * 10 * 4 + 17;
  int64_t size = B.disp + 6 * 5 * 3 + TAIL;
  local_t *la = all_locals(&A), *lb = all_locals(&B);
  unsigned char *img = malloc((size_t)size);
  for (int64_t o = 0; o < size; o++)
    img[o] = bg_byte(o);
  if (rank == 0)
    TU_EQ_INT(tu_write_file(path, img, size), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int mpiio = 0; mpiio < 2; mpiio++) {
    darray_t a, b;
    darray_file_t f;
    unsigned char *ba = malloc((size_t)la[rank].bytes + 1);
    unsigned char *bb = malloc((size_t)lb[rank].bytes + 1);
    if (make_array(&A, &a) && make_array(&B, &b) &&
        open_file(path, DARRAY_MODE_RDWR, mpiio, A.hints, &f)) {
      paint(&A, la, 300 + (uint64_t)mpiio, rank, ba, img);
      paint(&B, lb, 400 + (uint64_t)mpiio, rank, bb, img);
      TU_OK(darray_write(f, a, ba));
      TU_OK(darray_write(f, b, bb));
      paint(&A, la, 500 + (uint64_t)mpiio, rank, ba, img); /* new values */
      TU_OK(darray_write(f, a, ba));
      TU_OK(darray_file_close(&f));
      if (rank == 0) {
        int64_t got;
        unsigned char *file = tu_read_file(path, &got);
        if (!TU_EQ_I64(got, size) ||
            tu_compare_bytes(file, img, size, "A, B, gaps and ends") != 0)
          TU_FAIL("outside bytes changed (%s)", mpiio ? "mpiio" : "posix");
        free(file);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    darray_free(&a);
    darray_free(&b);
    free(ba);
    free(bb);
  }
  free(img);
  free(la);
  free(lb);
}

/* ---- 4. counters, the planner, large holes, end of file --------------------
 */

typedef struct counted {
  darray_stats_t w, r;
} counted_t;

/* Write then read a rows x cols int32 matrix, column blocks over P. */
static void colblock_io(const char *path, int64_t rows, int64_t cols,
                        int mpiio, const char *hints, counted_t *out) {
  int rank = tu_rank(), P = tu_nprocs();
  tcase_t c;
  memset(&c, 0, sizeof c);
  c.ndims = 2;
  c.g[0] = rows, c.g[1] = cols;
  c.dist[0] = DARRAY_DIST_NONE, c.darg[0] = DARRAY_DEFAULT_ARG;
  c.dist[1] = DARRAY_DIST_BLOCK, c.darg[1] = DARRAY_DEFAULT_ARG;
  c.grid[0] = 1, c.grid[1] = P;
  set_perm(&c, 0);
  c.morder = DARRAY_ORDER_C;
  c.esize = 4;
  local_t *all = all_locals(&c);
  unsigned char *buf = malloc((size_t)all[rank].bytes + 1);
  unsigned char *want = malloc((size_t)all[rank].bytes + 1);
  paint(&c, all, 77, rank, want, NULL);
  memcpy(buf, want, (size_t)all[rank].bytes);
  memset(out, 0, sizeof *out);
  darray_t a;
  darray_file_t f;
  if (make_array(&c, &a) &&
      open_file(path, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                          DARRAY_MODE_TRUNC,
                mpiio, hints, &f)) {
    TU_OK(darray_write(f, a, buf));
    darray_file_get_stats(f, &out->w);
    darray_file_reset_stats(f);
    memset(buf, 0, (size_t)all[rank].bytes);
    TU_OK(darray_read(f, a, buf));
    darray_file_get_stats(f, &out->r);
    if (tu_compare_bytes(buf, want, all[rank].bytes, "column block") != 0)
      TU_FAIL("column block %s: wrong data", hints);
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
  free(buf);
  free(want);
  free(all);
}

static void test_counters(const char *path) {
  int P = tu_nprocs(), rank = tu_rank();
  counted_t k;
  /* 64x64 int32, column blocks: each rank has 64 runs of len bytes, one
   * per 256-byte row; a 4096-byte window takes (4096 - len) / 256 + 1. */
  int64_t width = (64 + P - 1) / P, first = rank * width;
  int64_t mine = first + width <= 64 ? width : 64 - first;
  int64_t len = mine * 4, per = (4096 - len) / 256 + 1;
  int64_t windows = (64 + per - 1) / per;
  const char *sv = "darray_strategy=sieve;ind_rd_buffer_size=4096;"
                   "ind_wr_buffer_size=4096";
  colblock_io(path, 64, 64, 0, sv, &k);
  if (P > 1) {
    TU_EQ_I64(k.r.read_calls, windows);
    TU_EQ_I64(k.w.write_calls, windows);
    TU_EQ_I64(k.w.read_calls, windows); /* read-modify-write */
    TU_CHECK(k.r.read_calls * 8 < 64);  /* far fewer than runs */
  } else {
    TU_EQ_I64(k.r.read_calls, 4); /* one contiguous run, 4 windows */
    TU_EQ_I64(k.w.write_calls, 4);
    TU_EQ_I64(k.w.read_calls, 0); /* no holes: no read */
  }
  TU_EQ_I64(k.r.peak_temp_bytes, 4096);
  TU_EQ_I64(k.w.peak_temp_bytes, 4096);
  /* mpiio locks through a descriptor of its own: the same calls */
  colblock_io(path, 64, 64, 1, sv, &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? windows : 4);
  TU_EQ_I64(k.w.read_calls, P > 1 ? windows : 0);
  TU_EQ_I64(k.w.write_calls, P > 1 ? windows : 4);
  /* no read-modify-write (darray_concurrent_writers=unlocked): writes
   * fall back to one call per run, no reads */
  char svu[160];
  snprintf(svu, sizeof svu, "%s;darray_concurrent_writers=unlocked", sv);
  colblock_io(path, 64, 64, 0, svu, &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? windows : 4);
  TU_EQ_I64(k.w.read_calls, 0);
  TU_EQ_I64(k.w.write_calls, P > 1 ? 64 : 4);
  /* the same with direct runs: one call per row */
  colblock_io(path, 64, 64, 0, "darray_strategy=direct", &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? 64 : 1);
  /* the planner: collective buffering off, sieving automatic -> direct
   * runs (the extents interleave: the holes are other processes' data);
   * disabled -> direct; enabled -> sieve */
  const char *cbo = "romio_cb_read=disable;romio_cb_write=disable;"
                    "ind_rd_buffer_size=4096;ind_wr_buffer_size=4096;";
  char h[256];
  snprintf(h, sizeof h, "%s", cbo);
  colblock_io(path, 64, 64, 0, h, &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? 64 : 1);
  TU_EQ_I64(k.w.write_calls, P > 1 ? 64 : 1);
  snprintf(h, sizeof h, "%sromio_ds_read=disable;romio_ds_write=disable", cbo);
  colblock_io(path, 64, 64, 0, h, &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? 64 : 1);
  TU_EQ_I64(k.w.write_calls, P > 1 ? 64 : 1);
  snprintf(h, sizeof h, "%sromio_ds_read=enable;romio_ds_write=enable", cbo);
  colblock_io(path, 64, 64, 0, h, &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? windows : 4);
  TU_EQ_I64(k.w.write_calls, P > 1 ? windows : 4);
  /* a zero read latency: no hole is worth reading, one call per run */
  colblock_io(path, 64, 64, 0, "darray_strategy=sieve;"
              "darray_ds_rd_latency_ns=0;darray_ds_wr_latency_ns=0", &k);
  TU_EQ_I64(k.r.read_calls, P > 1 ? 64 : 1);
  TU_EQ_I64(k.r.bytes_read, 64 * len);
  TU_EQ_I64(k.w.read_calls, 0);
  TU_EQ_I64(k.w.write_calls, P > 1 ? 64 : 1);
  /* BTIO-like large holes (>= 8 KiB against >= 4 KiB of data per run):
   * the default cost model reads the runs directly, no hole bytes */
  colblock_io(path, 16, 4096, 0, "darray_strategy=sieve", &k);
  width = (4096 + P - 1) / P;
  mine = rank * width + width <= 4096 ? width : 4096 - rank * width;
  TU_EQ_I64(k.r.read_calls, P > 1 ? 16 : 1);
  TU_EQ_I64(k.r.bytes_read, 16 * mine * 4);
}

/* A rows x cols row-major int32 array in a file of background bytes:
 * process r reads, then writes new values to, rows [r*rows/P,
 * (r+1)*rows/P) x columns [0, w) through a file opened with hints; the
 * section read, and the whole file after the write (rank 0), are checked
 * against the image; the read's and the write's counters go to *rd and
 * *wr. */
static void section_io(const char *path, const char *hints, int64_t rows,
                       int64_t cols, int64_t w, darray_stats_t *rd,
                       darray_stats_t *wr) {
  int rank = tu_rank(), P = tu_nprocs();
  int64_t g[2] = {rows, cols}, r0 = rank * rows / P;
  int64_t r1 = (rank + 1) * rows / P;
  int64_t start[2] = {r0, 0}, count[2] = {r1 - r0, w};
  int64_t size = rows * cols * 4;
  unsigned char *img = malloc((size_t)size);
  int32_t *sec = malloc((size_t)(count[0] * w * 4) + 4);
  memset(rd, 0, sizeof *rd);
  memset(wr, 0, sizeof *wr);
  for (int64_t o = 0; o < size; o++)
    img[o] = bg_byte(o);
  if (rank == 0)
    TU_EQ_INT(tu_write_file(path, img, size), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  darray_t a;
  darray_file_t f;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)) &&
      TU_OK(darray_commit(a)) &&
      open_file(path, DARRAY_MODE_RDWR, 0, hints, &f)) {
    TU_OK(darray_read_section(f, a, start, count, DARRAY_ORDER_C, sec));
    darray_file_get_stats(f, rd);
    int64_t bad = 0;
    for (int64_t i = 0; i < count[0]; i++)
      bad += memcmp(&sec[i * w], img + (r0 + i) * cols * 4, (size_t)w * 4) !=
             0;
    TU_EQ_I64(bad, 0);
    for (int64_t i = 0; i < rows; i++) /* new values, every process's */
      for (int64_t j = 0; j < w; j++) {
        int32_t v = (int32_t)tu_value(31, i * cols + j);
        memcpy(img + (i * cols + j) * 4, &v, 4);
        if (i >= r0 && i < r1)
          sec[(i - r0) * w + j] = v;
      }
    darray_file_reset_stats(f);
    TU_OK(darray_write_section(f, a, start, count, DARRAY_ORDER_C, sec));
    darray_file_get_stats(f, wr);
    TU_OK(darray_file_close(&f));
    if (rank == 0) {
      int64_t got;
      unsigned char *file = tu_read_file(path, &got);
      if (!TU_EQ_I64(got, size) ||
          tu_compare_bytes(file, img, size, "sections and holes") != 0)
        TU_FAIL("sections, hints %s: wrong file", hints);
      free(file);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  darray_free(&a);
  free(img);
  free(sec);
}

/* (darray_map=disable: the file's pages mapped would be the cheapest.)
 * Sections that do not interleave but have holes no process accesses:
 * process r reads and writes rows [r*64/P, (r+1)*64/P) x columns [0, 32)
 * of a row-major 64x64 int32 array. Automatic sieving reads each section
 * with one call (its runs: 128 bytes every 256) and writes it with one
 * read-modify-write; the other columns keep their bytes. */
static void test_sections_auto(const char *path, const char *hints,
                               int sieved) {
  int rank = tu_rank(), P = tu_nprocs();
  int64_t nrows = (rank + 1) * 64 / P - rank * 64 / P;
  darray_stats_t rd, wr;
  section_io(path, hints, 64, 64, 32, &rd, &wr);
  TU_EQ_I64(rd.read_calls, sieved ? 1 : nrows);
  TU_EQ_I64(wr.write_calls, sieved ? 1 : nrows);
  TU_EQ_I64(wr.read_calls, sieved ? 1 : 0); /* read-modify-write */
}

/*
 * The write join rule at its threshold (sieve.c: a run joins a write's
 * window when (2 gap + len) / bw <= L_wr; the hole is read and written
 * back, the run read as well). With 1 ns a byte (1000 MB/s) and
 * L_wr = 4000 ns the threshold is 2 gap + len <= 4000 bytes. Runs of
 * len = 400 B (100 int32) every row of a row-major array:
 *  - 550 columns: gap 1800 B, 2 gap + len = 4000, exactly on it: the 4
 *    rows of a process join one window of 3 * 2200 + 400 = 7000 B, and
 *    read-modify-writing it pays (below): 1 read and 1 write of 7000 B;
 *  - 600 columns: gap 2000 B, 2 gap + len = 4400 > 4000 (gap + len =
 *    2400 would join): no window; each run written alone: 4 writes of
 *    400 B, nothing read.
 * A read-modify-write pays, with locks (L_rd = 4000: 2 L_rd a lock and
 * its unlock) against the runs' 4 writes of (L_wr + 2 L_rd) + 400 B each
 * = 49600 ns: 8000 + 4000 + 4000 + 2 * 7000 = 30000 ns on 550 columns,
 * and on 600 columns (had the 4 runs joined: 7600 B) 31200 ns, so a rule
 * that let the 600-column runs join would show as a read. Reads join
 * holes of gap / bw <= L_rd = 4000 B: both read one window.
 */
static void test_join_threshold(const char *path) {
  const char *h = "darray_strategy=sieve;darray_ds_bandwidth_mbs=1000;"
                  "darray_ds_wr_latency_ns=4000;darray_ds_rd_latency_ns=4000;"
                  "ind_rd_buffer_size=65536;ind_wr_buffer_size=65536;"
                  "darray_concurrent_writers=locked";
  int64_t rows = 4 * tu_nprocs();
  darray_stats_t rd, wr;
  section_io(path, h, rows, 550, 100, &rd, &wr);
  if (!TU_EQ_I64(wr.read_calls, 1) || !TU_EQ_I64(wr.bytes_read, 7000) ||
      !TU_EQ_I64(wr.write_calls, 1) || !TU_EQ_I64(wr.bytes_written, 7000))
    TU_FAIL("550 columns: 2 gap + len on the threshold, one window");
  TU_EQ_I64(rd.read_calls, 1);
  TU_EQ_I64(rd.bytes_read, 7000);
  section_io(path, h, rows, 600, 100, &rd, &wr);
  if (!TU_EQ_I64(wr.read_calls, 0) || !TU_EQ_I64(wr.bytes_read, 0) ||
      !TU_EQ_I64(wr.write_calls, 4) || !TU_EQ_I64(wr.bytes_written, 1600))
    TU_FAIL("600 columns: 2 gap + len past the threshold, runs alone");
  TU_EQ_I64(rd.read_calls, 1);
  TU_EQ_I64(rd.bytes_read, 3 * 2400 + 400);
}

static void test_hints_and_eof(const char *path) {
  darray_file_t f;
  char v[32];
  if (open_file(path, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                          DARRAY_MODE_TRUNC,
                0, "", &f)) {
    TU_OK(darray_file_get_hint(f, "darray_ds_rd_latency_ns", v, sizeof v));
    TU_EQ_STR(v, "500");
    TU_OK(darray_file_get_hint(f, "darray_ds_wr_latency_ns", v, sizeof v));
    TU_EQ_STR(v, "5000");
    TU_OK(darray_file_get_hint(f, "darray_ds_bandwidth_mbs", v, sizeof v));
    TU_EQ_STR(v, "5000");
    TU_OK(darray_file_close(&f));
  }
  if (open_file(path, DARRAY_MODE_RDWR, 0,
                "darray_strategy=sieve;darray_ds_bandwidth_mbs=2k", &f)) {
    TU_OK(darray_file_get_hint(f, "darray_ds_bandwidth_mbs", v, sizeof v));
    TU_EQ_STR(v, "2048");
    TU_OK(darray_file_get_hint(f, "darray_strategy", v, sizeof v));
    TU_EQ_STR(v, "sieve");
    TU_OK(darray_file_close(&f));
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "darray_ds_bandwidth_mbs", "0"); /* below the range */
  TU_EQ_CODE(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info,
                              &f),
             DARRAY_EHINT);
  MPI_Info_free(&info);

  /* a file that ends halfway through the array: EEOF everywhere */
  int P = tu_nprocs(), rank = tu_rank();
  int64_t g[2] = {16, 8};
  darray_t a;
  darray_dist_t d[2] = {DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC};
  int grid[2] = {1, P};
  if (rank == 0) {
    unsigned char half[256];
    memset(half, 1, sizeof half);
    TU_EQ_INT(tu_write_file(path, half, sizeof half), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)) &&
      TU_OK(darray_set_distribution(a, d, NULL)) &&
      TU_OK(darray_set_grid(a, grid)) && TU_OK(darray_commit(a)) &&
      open_file(path, DARRAY_MODE_RDONLY, 0,
                "darray_strategy=sieve;ind_rd_buffer_size=40", &f)) {
    int64_t nb;
    darray_local_bytes(a, &nb);
    void *buf = malloc((size_t)nb + 1);
    TU_EQ_CODE(darray_read(f, a, buf), DARRAY_EEOF);
    free(buf);
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char path[512];
  if (tu_tmpname(path, sizeof path, "sieve") == NULL)
    return tu_finish();
  /* TEST_PART=n runs part n only (1 matrix, 2 concurrency, 3 outside
   * bytes, 4 counters, hints and end of file) */
  const char *only = getenv("TEST_PART");
  int part = only != NULL ? atoi(only) : 0;
  if (part == 0 || part == 4) {
    test_hints_and_eof(path);
    test_counters(path);
    test_sections_auto(path, "darray_map=disable", 1);
    test_sections_auto(path, "romio_ds_read=disable;romio_ds_write=disable;"
                       "darray_map=disable", 0);
    test_join_threshold(path);
  }
  if (part == 0 || part == 3)
    test_outside(path);
  if (part == 0 || part == 2) {
    test_concurrent(path, 0, 0, 20, 128, 128);
    test_concurrent(path, 1, 0, 3, 16, 64);
    test_concurrent(path, 0, 1, 3, 16, 64);
  }
  if (part == 0 || part == 1)
    test_matrix(path);
  tu_remove(path);
  return tu_finish();
}
