/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_twophase.c - two-phase collective I/O on DIST3D-shaped arrays much
 * larger than the collective buffer: bytes on disk against a serial
 * reference, bytes read back, and the counters the design promises
 * (only data crosses between processes: the bytes exchanged are exactly
 * those living outside their owner's file domain, counted here element by
 * element; temporary memory bounded by cb_buffer_size, one file call per
 * chunk).
 *
 * Sweeps cb_buffer_size (tiny, forcing many cycles, and large), cb_nodes
 * 1..P+1, striping_unit alignment, layout-aware domains (each aggregator
 * the stripes of its own servers), grids that interleave every row, both
 * ways an aggregator moves a chunk (image or vector of pieces), and writes
 * with and without the pipeline (two staging slots, aggregators taking
 * turns).
 * Run: mpiexec -n 1..4 ./test_twophase
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Element (i, j, k) of an n^3 array of int32: an independent closed form. */
static int32_t val(int64_t n, int64_t i, int64_t j, int64_t k, int salt) {
  return (int32_t)(((i * n + j) * n + k) * 2654435761u + (uint32_t)salt);
}

/* BLOCK over p of n: start and length of coordinate c (default block). */
static void block_of(int64_t n, int p, int c, int64_t *s, int64_t *len) {
  int64_t b = (n + p - 1) / p;
  *s = c * b < n ? c * b : n;
  *len = *s + b < n ? b : n - *s;
}

/* The integer after `key=` in a hint string, or 0. */
static int64_t hint_num(const char *hints, const char *key) {
  const char *p = strstr(hints, key);
  return p != NULL ? strtoll(p + strlen(key), NULL, 10) : 0;
}

/*
 * Bytes my two-phase call sends, from the rule the manual gives for file
 * domains (an even split of the accessed extent among cb_nodes
 * aggregators, each boundary moved to the nearest striping_unit multiple,
 * halves up, then up to an element) and aggregator i being rank i * P / A:
 * a write sends every owned element whose domain is another rank's, a
 * read every element of my domain that another rank owns. Counted element
 * by element over the whole array; nothing else may travel (no
 * offset/length lists, no byte twice).
 */
static int64_t expected_exchange(int64_t n, const int ps[3], const char *hints,
                                 int write) {
  int P = tu_nprocs(), me = tu_rank();
  int64_t cbn = hint_num(hints, "cb_nodes="), su = hint_num(hints,
                                                          "striping_unit=");
  int A = cbn > 0 && cbn < P ? (int)cbn : P;
  int64_t S = hint_num(hints, "striping_factor=");
  bool layout = strstr(hints, "darray_cb_domains=layout") != NULL;
  int64_t span = n * n * n * 4, bnd[65], sent = 0;
  for (int i = 0; i <= A; i++) {
    int64_t b = span * i / A;
    if (su > 0 && i > 0 && i < A)
      b = b % su < su - su / 2 ? b - b % su : b - b % su + su;
    b = (b + 3) / 4 * 4;
    bnd[i] = b > span ? span : b;
  }
  for (int64_t e = 0; e < n * n * n; e++) {
    int64_t x[3] = {e / (n * n), e / n % n, e % n};
    int owner = 0, dom = 0;
    for (int d = 0; d < 3; d++) {
      int c = 0;
      int64_t s, len;
      while (block_of(n, ps[d], c, &s, &len), x[d] >= s + len)
        c++;
      owner = owner * ps[d] + c;
    }
    while (dom + 1 < A && e * 4 >= bnd[dom + 1])
      dom++;
    if (layout) { /* A <= S: the aggregator whose servers hold the stripe */
      int64_t srv = e * 4 / su % S;
      for (dom = 0; !(srv >= dom * S / A && srv < (dom + 1) * S / A);)
        dom++;
    }
    int agg = (int)((int64_t)dom * P / A);
    sent += write ? (owner == me && agg != me) : (agg == me && owner != me);
  }
  return sent * 4;
}

typedef struct tcase {
  int64_t n;
  int grid[3];
  int64_t ghost;
  const char *hints;
} tcase_t;

static void fill_or_check(const tcase_t *c, const int64_t st[3],
                          const int64_t ln[3], int32_t *buf, int salt,
                          int check, int64_t *bad) {
  int64_t g = c->ghost, ext[3];
  for (int d = 0; d < 3; d++)
    ext[d] = ln[d] + 2 * g;
  for (int64_t i = 0; i < ln[0]; i++)
    for (int64_t j = 0; j < ln[1]; j++)
      for (int64_t k = 0; k < ln[2]; k++) {
        int64_t p = ((i + g) * ext[1] + (j + g)) * ext[2] + (k + g);
        int32_t v = val(c->n, st[0] + i, st[1] + j, st[2] + k, salt);
        if (!check)
          buf[p] = v;
        else if (buf[p] != v)
          (*bad)++;
      }
}

static void run_case(const tcase_t *c, const char *path, int salt) {
  int rank = tu_rank();
  int64_t gs[3] = {c->n, c->n, c->n}, ghost[3] = {c->ghost, c->ghost,
                                                  c->ghost};
  darray_t a;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, gs, DARRAY_INT32, &a)))
    return;
  TU_OK(darray_set_grid(a, c->grid));
  TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, ghost, NULL));
  TU_OK(darray_commit(a));
  int ps[3], co[3];
  darray_grid(a, ps);
  co[0] = rank / (ps[1] * ps[2]);
  co[1] = rank / ps[2] % ps[1];
  co[2] = rank % ps[2];
  int64_t st[3], ln[3], nb;
  for (int d = 0; d < 3; d++)
    block_of(c->n, ps[d], co[d], &st[d], &ln[d]);
  darray_local_bytes(a, &nb);
  int32_t *buf = calloc((size_t)nb / 4 + 1, 4);
  fill_or_check(c, st, ln, buf, salt, 0, NULL);

  MPI_Info info = tu_info(c->hints);
  darray_file_t f;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
  TU_OK(darray_write(f, a, buf));
  darray_stats_t sw;
  darray_file_get_stats(f, &sw);
  darray_file_reset_stats(f);

  /* on disk: every element at its row-major offset (serial reference) */
  if (rank == 0) {
    int64_t size;
    unsigned char *file = tu_read_file(path, &size);
    TU_EQ_I64(size, c->n * c->n * c->n * 4);
    int64_t bad = 0;
    for (int64_t e = 0; file && e < size / 4; e++) {
      int32_t v;
      memcpy(&v, file + 4 * e, 4);
      bad += v != val(c->n, e / (c->n * c->n), e / c->n % c->n, e % c->n,
                      salt);
    }
    if (!TU_EQ_I64(bad, 0))
      TU_FAIL("n=%lld hints '%s': wrong elements on disk", (long long)c->n,
              c->hints);
    free(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  memset(buf, 0x7f, (size_t)nb); /* sentinel: ghosts must keep it */
  TU_OK(darray_read(f, a, buf));
  int64_t bad = 0;
  fill_or_check(c, st, ln, buf, salt, 1, &bad);
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("n=%lld hints '%s': wrong elements read", (long long)c->n,
            c->hints);
  int64_t sentinels = 0, count;
  for (int64_t e = 0; e < nb / 4; e++)
    sentinels += buf[e] == 0x7f7f7f7f;
  darray_local_count(a, &count);
  TU_EQ_I64(sentinels, nb / 4 - count); /* every ghost, no interior */
  darray_stats_t sr;
  darray_file_get_stats(f, &sr);

  /* the counters the design promises: only data crosses */
  int64_t xw = 0, xr = 0;
  if (strcmp(sw.strategy, "twophase") == 0)
    xw = expected_exchange(c->n, ps, c->hints, 1);
  if (strcmp(sr.strategy, "twophase") == 0)
    xr = expected_exchange(c->n, ps, c->hints, 0);
  /* auto may pick rows (its own exchange is counted in test_rows) */
  xw = strcmp(sw.strategy, "rows") == 0 ? sw.bytes_exchanged : xw;
  xr = strcmp(sr.strategy, "rows") == 0 ? sr.bytes_exchanged : xr;
  if (!TU_EQ_I64(sw.bytes_exchanged, xw) | !TU_EQ_I64(sr.bytes_exchanged, xr))
    TU_FAIL("n=%lld hints '%s': bytes exchanged, write %s read %s",
            (long long)c->n, c->hints, sw.strategy, sr.strategy);
  int64_t tot[4] = {sw.bytes_written, sr.bytes_read, sw.cycles, sr.cycles};
  MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  TU_EQ_I64(tot[0], c->n * c->n * c->n * 4); /* each byte written once */
  if (strcmp(sr.strategy, "sieve") != 0)
    TU_EQ_I64(tot[1], c->n * c->n * c->n * 4); /* and read once */
  else /* auto sieved a small read: every process reads through the
          others' data, so each byte is read once to nprocs times */
    TU_CHECK(tot[1] >= c->n * c->n * c->n * 4 &&
             tot[1] <= c->n * c->n * c->n * 4 * tu_nprocs());
  if (strstr(c->hints, "twophase")) {
    char v[32];
    darray_file_get_hint(f, "cb_buffer_size", v, sizeof v);
    int64_t cb = strtoll(v, NULL, 10);
    TU_CHECK(sw.cycles >= 1);
    TU_CHECK(sw.peak_temp_bytes <= cb);
    TU_CHECK(sr.peak_temp_bytes <= cb);
    if (!strstr(c->hints, "layout")) {
      /* one write call per chunk: never more calls than cycles */
      TU_CHECK(sw.write_calls <= sw.cycles);
      TU_CHECK(sr.read_calls <= sr.cycles);
    } else {
      /* one call per part of a chunk: a block of whole stripes of the
       * aggregator's servers (less an element; the first and last cut by
       * the extent), or the piece of one that a chunk boundary cuts: at
       * most the blocks and the cycles together */
      darray_file_get_hint(f, "striping_unit", v, sizeof v);
      int64_t su = strtoll(v, NULL, 10) - 4;
      /* as many blocks per chunk as fit: with the default 4 MiB buffer
       * every domain moves in one cycle, however short the stripes */
      int64_t wb = sw.bytes_written / su + 2, rb = sr.bytes_read / su + 2;
      if (!TU_CHECK(sw.write_calls <= wb + sw.cycles) |
          !TU_CHECK(sr.read_calls <= rb + sr.cycles) |
          !TU_CHECK(strstr(c->hints, "cb_buffer_size") ||
                    (sw.cycles == 1 && sr.cycles == 1)))
        TU_FAIL("hints '%s': %lld/%lld bytes in %lld/%lld calls, %lld/%lld "
                "cycles (write/read)", c->hints, (long long)sw.bytes_written,
                (long long)sr.bytes_read, (long long)sw.write_calls,
                (long long)sr.read_calls, (long long)sw.cycles,
                (long long)sr.cycles);
    }
  }
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char path[512];
  tu_tmpname(path, sizeof path, "twophase");
  const tcase_t cases[] = {
      {24, {1, 1, 0}, 0, "darray_strategy=twophase;cb_buffer_size=64"},
      {24, {1, 1, 0}, 1, "darray_strategy=twophase;cb_buffer_size=1000"},
      {17, {0, 0, 0}, 0, "darray_strategy=twophase;cb_buffer_size=4096"},
      {17, {0, 1, 1}, 2, "darray_strategy=twophase;cb_nodes=1;"
                         "cb_buffer_size=300"},
      {20, {1, 0, 1}, 0, "darray_strategy=twophase;cb_nodes=2;"
                         "striping_unit=1024;cb_buffer_size=512"},
      {20, {1, 1, 0}, 0, "darray_strategy=twophase;cb_nodes=9"},
      /* layout-aware domains (stripes of 512 bytes on 4 and 5 servers:
       * each aggregator the stripes of its own servers) */
      {20, {1, 1, 0}, 0, "darray_strategy=twophase;striping_unit=512;"
                         "striping_factor=4;darray_cb_domains=layout;"
                         "cb_buffer_size=700"},
      {17, {0, 0, 0}, 0, "darray_strategy=twophase;striping_unit=512;"
                         "striping_factor=5;darray_cb_domains=layout"},
      {32, {1, 1, 0}, 0, "darray_strategy=twophase;cb_buffer_size=8192"},
      {20, {1, 1, 0}, 0, "darray_strategy=auto"},
      {20, {0, 0, 0}, 1, "darray_strategy=direct"},
  };
  /* aggregators in both modes: chunks built in an image and moved with
   * one call, and vectors of pieces pointing into the buffers */
  const char *const modes[] = {
      "", ";darray_cb_image_piece=0", ";darray_cb_image_piece=1g",
      ";darray_cb_pipeline=disable",
      ";darray_cb_pipeline=enable;darray_cb_image_piece=0"};
  for (int m = 0; m < 5; m++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      char h[256];
      tcase_t c = cases[i];
      snprintf(h, sizeof h, "%s%s", c.hints, modes[m]);
      c.hints = h;
      run_case(&c, path, (int)i + 16 * m);
    }
  tu_remove(path);
  return tu_finish();
}
