/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_sections.c - darray_write_section / darray_read_section.
 *
 * Over a seeded sample of shapes, distributions of the array (NONE, BLOCK,
 * CYCLIC per dimension), storage orders, displacements, element sizes,
 * buffer orders, strategies and back ends:
 *  - writes: the array is cut into one box per rank along a random
 *    dimension (boxes may be empty, and each may be shrunk inside its slab
 *    so that the union has holes); every rank writes its box; rank 0
 *    checks every byte of the file against a serial reference: the element
 *    value inside some box, the untouched background everywhere else;
 *  - reads: every rank reads its own random box (boxes overlap freely)
 *    from a reference file written by rank 0 with stdio, and checks every
 *    element;
 *  - overlapping write sections are refused with DARRAY_EOVERLAP on every
 *    rank and change nothing;
 *  - darray_temp_limit caps every strategy's temporary memory
 *    (stats.peak_temp_bytes), also for overlapping section reads.
 * Run: mpiexec -n 1..4 ./test_sections
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 3
#define BG 0x5a

typedef struct scase {
  int nd;
  int64_t g[MAXD];
  int perm[MAXD]; /* storage order, slowest first */
  int64_t disp, es;
  darray_order_t border;
  const char *hints;
  uint64_t seed;
  int has_dist;             /* random cases: the array's own distribution */
  darray_dist_t dist[MAXD]; /* (sections do not depend on it, and the calls
                               must not either) */
} scase_t;

static uint64_t rng;
static int64_t rnd(int64_t n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return n > 0 ? (int64_t)((rng >> 33) % (uint64_t)n) : 0;
}

static const char *const hintsets[] = {
    "", "darray_strategy=direct;ind_wr_buffer_size=24;ind_rd_buffer_size=24",
    "darray_strategy=twophase;cb_buffer_size=200",
    "darray_strategy=twophase;cb_nodes=1;darray_backend=mpiio",
    "darray_backend=mpiio",
    "darray_strategy=twophase;cb_buffer_size=300;darray_cb_image_piece=0",
    "darray_strategy=twophase;cb_buffer_size=300;darray_cb_image_piece=1g;"
    "darray_cb_pipeline=disable",
    "darray_strategy=twophase;cb_buffer_size=300;darray_cb_image_piece=1g;"
    "darray_concurrent_writers=unlocked",
    "darray_strategy=sieve;ind_wr_buffer_size=40;"
    "darray_concurrent_writers=none",
    "darray_strategy=static;cb_buffer_size=200",
    "darray_strategy=static;cb_nodes=1;darray_backend=mpiio"};
#define NHINTS ((int)(sizeof hintsets / sizeof hintsets[0]))

static int64_t file_elem(const scase_t *c, const int64_t *idx) {
  int64_t lin = 0;
  for (int i = 0; i < c->nd; i++)
    lin = lin * c->g[c->perm[i]] + idx[c->perm[i]];
  return lin;
}

/* Byte b of the element at global index idx (independent closed form). */
static unsigned char elem_byte(const scase_t *c, const int64_t *idx, int b) {
  uint64_t v = c->seed;
  for (int d = 0; d < c->nd; d++)
    v = v * 1000003u + (uint64_t)idx[d];
  return (unsigned char)(tu_value(v, b) & 0xff);
}

/* Fill (or check) a dense box buffer in order c->border. */
static int64_t box_buffer(const scase_t *c, const int64_t *st,
                          const int64_t *ct, unsigned char *buf, int check) {
  int64_t n = 1, bad = 0, idx[MAXD];
  for (int d = 0; d < c->nd; d++)
    n *= ct[d];
  for (int64_t e = 0; e < n; e++) {
    int64_t r = e;
    for (int i = 0; i < c->nd; i++) { /* e in buffer order */
      int d = c->border == DARRAY_ORDER_C ? c->nd - 1 - i : i;
      idx[d] = st[d] + r % ct[d];
      r /= ct[d];
    }
    for (int b = 0; b < c->es; b++) {
      unsigned char v = elem_byte(c, idx, b);
      if (!check)
        buf[e * c->es + b] = v;
      else
        bad += buf[e * c->es + b] != v;
    }
  }
  return bad;
}

static void random_case(scase_t *c, int id) {
  rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
  c->nd = 1 + (int)rnd(MAXD);
  for (int d = 0; d < c->nd; d++) {
    c->g[d] = 1 + rnd(9);
    c->perm[d] = d;
  }
  for (int d = c->nd - 1; d > 0; d--) { /* random storage permutation */
    int k = (int)rnd(d + 1), t = c->perm[d];
    c->perm[d] = c->perm[k];
    c->perm[k] = t;
  }
  static const darray_dist_t kinds[] = {DARRAY_DIST_NONE, DARRAY_DIST_BLOCK,
                                        DARRAY_DIST_CYCLIC};
  for (int d = 0; d < c->nd; d++)
    c->dist[d] = kinds[rnd(3)];
  c->dist[rnd(c->nd)] = DARRAY_DIST_BLOCK; /* the grid needs a dimension */
  c->has_dist = 1;
  c->disp = rnd(2) ? 0 : 1 + rnd(40);
  c->es = (int64_t[]){1, 3, 4, 8}[rnd(4)];
  c->border = rnd(2) ? DARRAY_ORDER_C : DARRAY_ORDER_FORTRAN;
  c->hints = hintsets[id % NHINTS];
  c->seed = (uint64_t)id * 7919u + 1;
}

static darray_t make_array(const scase_t *c) {
  darray_t a;
  TU_OK(darray_create(MPI_COMM_WORLD, c->nd, c->g,
                      c->es == 4 ? DARRAY_INT32 : DARRAY_OPAQUE, &a));
  if (c->es != 4)
    TU_OK(darray_set_elem_size(a, c->es));
  if (c->has_dist) {
    int grid[MAXD] = {0};
    TU_OK(darray_set_distribution(a, c->dist, NULL));
    for (int d = 0; d < c->nd; d++) /* NONE: one process */
      grid[d] = c->dist[d] == DARRAY_DIST_NONE ? 1 : 0;
    TU_OK(darray_set_grid(a, grid));
  }
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_PERM, c->perm));
  TU_OK(darray_set_displacement(a, c->disp));
  TU_OK(darray_commit(a));
  return a;
}

static darray_file_t open_file(const scase_t *c, const char *path, int mode) {
  MPI_Info info = tu_info(c->hints);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, mode, info, &f));
  MPI_Info_free(&info);
  return f;
}

static int64_t total_bytes(const scase_t *c) {
  int64_t n = c->es;
  for (int d = 0; d < c->nd; d++)
    n *= c->g[d];
  return n;
}

/* Rank r's write box: slab r of a split along dimension dim, shrunk. */
static void write_box(const scase_t *c, int r, int P, int dim, int64_t *st,
                      int64_t *ct) {
  uint64_t save = rng;
  rng = c->seed * 31 + 7;
  int64_t cut[5] = {0};
  for (int i = 1; i < P; i++)
    cut[i] = rnd(c->g[dim] + 1);
  cut[P] = c->g[dim];
  for (int i = 1; i < P; i++) /* sort the cuts */
    for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
      int64_t t = cut[j];
      cut[j] = cut[j - 1];
      cut[j - 1] = t;
    }
  for (int d = 0; d < c->nd; d++) {
    int64_t lo = d == dim ? cut[r] : 0, hi = d == dim ? cut[r + 1] : c->g[d];
    int64_t shrink = (c->seed + (uint64_t)r + (uint64_t)d) % 3 == 0;
    st[d] = lo + (shrink && hi - lo > 1 ? 1 : 0);
    ct[d] = hi - st[d];
  }
  rng = save;
}

static void check_written(const scase_t *c, const char *path, int P, int dim) {
  int64_t size, tot = total_bytes(c), idx[MAXD] = {0};
  unsigned char *file = tu_read_file(path, &size);
  if (!TU_CHECK(file != NULL && size == c->disp + tot + 16))
    goto done;
  int64_t bad = 0;
  for (int64_t o = 0; o < c->disp; o++)
    bad += file[o] != BG;
  for (int64_t o = c->disp + tot; o < size; o++)
    bad += file[o] != BG;
  int64_t n = tot / c->es;
  for (int64_t e = 0; e < n; e++) {
    int64_t r = e;
    for (int d = c->nd - 1; d >= 0; d--) {
      idx[d] = r % c->g[d];
      r /= c->g[d];
    }
    int inside = 0;
    for (int q = 0; q < P && !inside; q++) {
      int64_t st[MAXD], ct[MAXD];
      write_box(c, q, P, dim, st, ct);
      inside = 1;
      for (int d = 0; d < c->nd; d++)
        inside &= idx[d] >= st[d] && idx[d] < st[d] + ct[d];
    }
    const unsigned char *p = file + c->disp + file_elem(c, idx) * c->es;
    for (int b = 0; b < c->es; b++)
      bad += p[b] != (inside ? elem_byte(c, idx, b) : BG);
  }
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("write case seed %llu hints '%s' nd %d es %lld disp %lld "
            "border %d", (unsigned long long)c->seed, c->hints, c->nd,
            (long long)c->es, (long long)c->disp, (int)c->border);
done:
  free(file);
}

static void prefill(const scase_t *c, const char *path) {
  if (tu_rank() == 0) {
    int64_t n = c->disp + total_bytes(c) + 16;
    unsigned char *bg = malloc((size_t)n);
    memset(bg, BG, (size_t)n);
    tu_write_file(path, bg, n);
    free(bg);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void write_case(const scase_t *c, const char *path) {
  int P = tu_nprocs(), me = tu_rank(), dim = (int)(c->seed % (uint64_t)c->nd);
  int64_t st[MAXD], ct[MAXD], n = 1;
  write_box(c, me, P, dim, st, ct);
  for (int d = 0; d < c->nd; d++)
    n *= ct[d];
  unsigned char *buf = malloc((size_t)(n * c->es) + 1);
  box_buffer(c, st, ct, buf, 0);
  prefill(c, path);
  darray_t a = make_array(c);
  darray_file_t f = open_file(c, path, DARRAY_MODE_RDWR);
  int rc = darray_write_section(f, a, st, ct, c->border, n ? buf : NULL);
  if (!TU_OK(rc))
    TU_FAIL("write case seed %llu hints '%s': %s", (unsigned long long)c->seed,
            c->hints, darray_file_errmsg(f));
  darray_file_close(&f);
  if (me == 0)
    check_written(c, path, P, dim);
  MPI_Barrier(MPI_COMM_WORLD);
  darray_free(&a);
  free(buf);
}

static void read_case(const scase_t *c, const char *path) {
  int me = tu_rank();
  if (me == 0) { /* the reference file, from the closed form */
    int64_t tot = total_bytes(c), n = c->disp + tot, idx[MAXD];
    unsigned char *img = malloc((size_t)n);
    memset(img, BG, (size_t)c->disp);
    for (int64_t e = 0; e < tot / c->es; e++) {
      int64_t r = e;
      for (int d = c->nd - 1; d >= 0; d--) {
        idx[d] = r % c->g[d];
        r /= c->g[d];
      }
      for (int b = 0; b < c->es; b++)
        img[c->disp + file_elem(c, idx) * c->es + b] = elem_byte(c, idx, b);
    }
    tu_write_file(path, img, n);
    free(img);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int64_t st[MAXD], ct[MAXD], n = 1;
  rng = c->seed * 977 + (uint64_t)me;
  for (int d = 0; d < c->nd; d++) {
    st[d] = rnd(c->g[d] + 1);
    ct[d] = rnd(c->g[d] - st[d] + 1);
    n *= ct[d];
  }
  unsigned char *buf = malloc((size_t)(n * c->es) + 1);
  memset(buf, 0xEE, (size_t)(n * c->es) + 1);
  darray_t a = make_array(c);
  darray_file_t f = open_file(c, path, DARRAY_MODE_RDONLY);
  TU_OK(darray_read_section(f, a, st, ct, c->border, n ? buf : NULL));
  if (!TU_EQ_I64(box_buffer(c, st, ct, buf, 1), 0))
    TU_FAIL("read case seed %llu hints '%s'", (unsigned long long)c->seed,
            c->hints);
  TU_EQ_INT(buf[n * c->es], 0xEE); /* nothing past the section */
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

static void overlap_case(const char *path) {
  scase_t c = {2, {6, 5}, {0, 1}, 3, 4, DARRAY_ORDER_C, "", 42, 0, {0}};
  int me = tu_rank(), P = tu_nprocs();
  prefill(&c, path);
  darray_t a = make_array(&c);
  darray_file_t f = open_file(&c, path, DARRAY_MODE_RDWR);
  int64_t st[2] = {me, 0}, ct[2] = {2, 5}; /* rows me, me+1: overlap */
  unsigned char buf[2 * 5 * 4];
  box_buffer(&c, st, ct, buf, 0);
  int rc = darray_write_section(f, a, st, ct, DARRAY_ORDER_C, buf);
  TU_EQ_CODE(rc, P > 1 ? DARRAY_EOVERLAP : DARRAY_SUCCESS);
  if (P > 1)
    TU_CONTAINS(darray_file_errmsg(f), "overlap");
  darray_file_close(&f);
  if (me == 0 && P > 1) { /* nothing written */
    int64_t size;
    unsigned char *file = tu_read_file(path, &size);
    int64_t bad = 0;
    for (int64_t i = 0; file && i < size; i++)
      bad += file[i] != BG;
    TU_EQ_I64(bad, 0);
    free(file);
  }
  darray_free(&a);
}

/* darray_temp_limit bounds every strategy's temporary memory, also for
 * overlapping section reads (every rank reads nearly the whole array, so
 * an aggregator's chunk goes to every rank at once), and the data is
 * still right. */
static void limit_case(const char *path) {
  static const char *const lim_hints[] = {
      "darray_temp_limit=2k",
      "darray_temp_limit=2k;darray_strategy=direct",
      "darray_temp_limit=2k;darray_strategy=sieve",
      "darray_temp_limit=2k;darray_strategy=twophase",
      "darray_temp_limit=2k;darray_strategy=twophase;cb_nodes=1;"
      "darray_backend=mpiio",
      "darray_temp_limit=2k;darray_strategy=static;cb_nodes=1"};
  const int64_t limit = 2048;
  int me = tu_rank(), P = tu_nprocs();
  for (int h = 0; h < (int)(sizeof lim_hints / sizeof *lim_hints); h++) {
    scase_t c = {3, {24, 20, 16}, {0, 1, 2}, 8, 4, DARRAY_ORDER_C,
                 lim_hints[h], 77 + (uint64_t)h, 0, {0}};
    prefill(&c, path);
    darray_t a = make_array(&c);
    darray_file_t f = open_file(&c, path, DARRAY_MODE_RDWR);
    char v[32];
    TU_OK(darray_file_get_hint(f, "cb_buffer_size", v, sizeof v));
    TU_EQ_I64(atoll(v), limit);
    /* write: slabs along the middle dimension, interleaved in the file */
    int64_t st[3] = {0, 20 * me / P, 0}, ct[3] = {24, 0, 16};
    ct[1] = 20 * (me + 1) / P - st[1];
    int64_t n = ct[0] * ct[1] * ct[2];
    unsigned char *buf = malloc((size_t)(n * 4) + 1);
    box_buffer(&c, st, ct, buf, 0);
    TU_OK(darray_write_section(f, a, st, ct, DARRAY_ORDER_C, buf));
    free(buf);
    /* read: overlapping boxes, almost the whole array on every rank */
    int64_t rs[3] = {me % 2, 0, 1}, rc3[3] = {24 - me % 2, 20, 15};
    n = rc3[0] * rc3[1] * rc3[2];
    buf = malloc((size_t)(n * 4));
    c.border = DARRAY_ORDER_FORTRAN; /* the read buffer's order */
    TU_OK(darray_read_section(f, a, rs, rc3, c.border, buf));
    if (!TU_EQ_I64(box_buffer(&c, rs, rc3, buf, 1), 0))
      TU_FAIL("limit case '%s': wrong data read", c.hints);
    free(buf);
    darray_stats_t stats;
    TU_OK(darray_file_get_stats(f, &stats));
    /* every strategy but mapped (which copies into the file's own
     * pages) holds a temporary buffer */
    bool none = strcmp(stats.strategy, "mapped") == 0;
    if (!TU_CHECK((none ? stats.peak_temp_bytes == 0
                        : stats.peak_temp_bytes > 0) &&
                  stats.peak_temp_bytes <= limit))
      TU_FAIL("limit case '%s' (%s): peak temporary memory %lld > %lld",
              c.hints, stats.strategy, (long long)stats.peak_temp_bytes,
              (long long)limit);
    darray_file_close(&f);
    if (me == 0) { /* every byte of the file: the closed form */
      int64_t size, idx[3], bad = 0;
      unsigned char *file = tu_read_file(path, &size);
      if (TU_CHECK(file != NULL && size == c.disp + total_bytes(&c) + 16))
        for (idx[0] = 0; idx[0] < 24; idx[0]++)
          for (idx[1] = 0; idx[1] < 20; idx[1]++)
            for (idx[2] = 0; idx[2] < 16; idx[2]++)
              for (int b = 0; b < 4; b++)
                bad += file[c.disp + file_elem(&c, idx) * 4 + b] !=
                       elem_byte(&c, idx, b);
      TU_EQ_I64(bad, 0);
      free(file);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    darray_free(&a);
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char path[512];
  tu_tmpname(path, sizeof path, "sections");
  const char *one = getenv("TEST_CASE");
  for (int id = one ? atoi(one) : 0; id < (one ? atoi(one) + 1 : 70); id++) {
    scase_t c;
    random_case(&c, id);
    write_case(&c, path);
    read_case(&c, path);
  }
  overlap_case(path);
  limit_case(path);
  tu_remove(path);
  return tu_finish();
}
