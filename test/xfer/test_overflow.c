/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_overflow.c - arithmetic near 2^63 (issue 13): arrays that end at or
 * just below INT64_MAX, huge shapes, block and element sizes. The library
 * accepts any array whose displacement plus bytes fits in int64_t, so every
 * offset it forms on the way must fit too.
 *
 *  1. Two-phase chunk math as a unit (every rank, no file): file extents
 *     ending at INT64_MAX, element sizes up to 2^62 - 1, 1 to 1000
 *     aggregators, striping units up to 2^40. Domain boundaries against a
 *     128-bit oracle of the documented rule (even split, nearest striping
 *     unit, up to an element), every chunk against the domain it cuts,
 *     the cycle count against ceil(domain / C).
 *  2. End to end, forced two-phase with cb_buffer_size = 256 (dozens of
 *     chunks), image mode and vectors, pipeline on and off, one and all
 *     processes as aggregators, a striping unit: 1-D BLOCK and CYCLIC(3)
 *     arrays whose last byte is the file's largest offset (and 12 bytes
 *     below it), and 2-D sections at the far end of an array that fills
 *     the file's range (2^55 rows), read back by their writers and then
 *     as one union by every rank (boxes that overlap). The file size must
 *     be exact, rank 0's own preads must find every element, and the
 *     reads must be exact. The file system decides how far "the end" is:
 *     the test directory's if it takes offsets up to INT64_MAX, else
 *     /dev/shm's (tmpfs takes them), else the largest the test directory
 *     takes (ext4: 2^44 - 4096).
 *  3. The planner and darray_explain on arrays of 2^63 - 1 bytes (1-D,
 *     BLOCK and CYCLIC(2^61)), of one 2^62-byte element, and a section
 *     read whose extent spans nearly 2^63 bytes: the ownership map
 *     against the distribution's owner of each sampled index, the
 *     two-phase estimate with cb_buffer_size = 1 (2^63 chunks) positive
 *     and above direct runs', so direct runs are chosen.
 *
 * In the sanitizer build (configure's --enable-sanitizers) UBSan stops at
 * the first overflow; some of these inputs (the section plan, the P = 1
 * explains, the row walk past a CYCLIC row's last block) overflowed with
 * no visible effect, and only that build catches them.
 * Run: mpiexec -n 1..2 ./test_overflow
 */
#define _POSIX_C_SOURCE 200809L

#include "strategy.h"
#include "testutil.h"
#include "twophase/twophase.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__extension__ typedef __int128 wide_t;

static int P, me;

/* ---- 1. two-phase chunk math -------------------------------------------- */

typedef struct chunk_case {
  int64_t lo, hi, disp, es, su, cb;
  int A, parts;
} chunk_case_t;

/* Domain boundary i by the documented rule, in 128 bits. */
static int64_t want_boundary(const chunk_case_t *k, int i) {
  if (i <= 0)
    return k->lo;
  if (i >= k->A)
    return k->hi;
  wide_t b = k->lo + (wide_t)(k->hi - k->lo) * i / k->A;
  if (k->su > 0)
    b = (b + k->su / 2) / k->su * k->su;
  wide_t rel = b - k->disp;
  if (rel > 0)
    b = k->disp + (rel + k->es - 1) / k->es * k->es;
  return b < k->lo ? k->lo : b > k->hi ? k->hi : (int64_t)b;
}

/* Chunk `cycle` of aggregator i against the domain [b0, b1) it cuts. */
static int check_chunk(const tp_domains_t *d, int64_t C, int i,
                       int64_t cycle, int64_t b0, int64_t b1) {
  int64_t clo, chi, x0, x1;
  if (!darray__tp_part(d, C, i, cycle, 0, &clo, &chi) ||
      darray__tp_part(d, C, i, cycle, 1, &x0, &x1))
    return TU_FAIL("aggregator %d cycle %lld: a logical chunk is one part",
                   i, (long long)cycle);
  wide_t s = b0 + (wide_t)cycle * C;
  int64_t wlo = s < b1 ? (int64_t)s : b1;
  int64_t whi = s + C < b1 ? (int64_t)(s + C) : b1;
  if (clo == wlo && chi == whi)
    return 1;
  return TU_FAIL("aggregator %d cycle %lld of domain [%lld, %lld), C %lld: "
                 "chunk [%lld, %lld), want [%lld, %lld)", i,
                 (long long)cycle, (long long)b0, (long long)b1,
                 (long long)C, (long long)clo, (long long)chi,
                 (long long)wlo, (long long)whi);
}

static void chunk_unit(const chunk_case_t *k) {
  tp_domains_t d = {k->lo, k->hi, k->A, k->disp, k->es, k->su, 0, false, 0};
  tp_sizes_t t;
  darray__tp_chunks(&d, k->cb, k->parts, &t);
  if (!TU_CHECK(t.C >= k->es && t.C % k->es == 0) ||
      !TU_CHECK(t.C <= (k->cb > k->es ? k->cb : k->es)))
    return;
  int64_t ntimes = 0;
  for (int i = 0; i < k->A; i++) {
    int64_t b0 = want_boundary(k, i), b1 = want_boundary(k, i + 1);
    int64_t n = (int64_t)(((wide_t)b1 - b0 + t.C - 1) / t.C);
    ntimes = n > ntimes ? n : ntimes;
    /* every cycle of short domains; the edges of long ones */
    int64_t probe[] = {0, 1, n - 2, n - 1, n, n + 1, INT64_MAX / 2,
                       INT64_MAX};
    bool ok = true;
    if (n <= 64)
      for (int64_t c = 0; c <= n + 1 && ok; c++)
        ok = check_chunk(&d, t.C, i, c, b0, b1);
    for (size_t p = 0; p < sizeof probe / sizeof probe[0] && ok; p++)
      if (probe[p] >= 0)
        ok = check_chunk(&d, t.C, i, probe[p], b0, b1);
    if (!ok) {
      TU_FAIL("  (extent [%lld, %lld), disp %lld, es %lld, su %lld, A %d)",
              (long long)k->lo, (long long)k->hi, (long long)k->disp,
              (long long)k->es, (long long)k->su, k->A);
      return;
    }
  }
  TU_EQ_I64(t.ntimes, ntimes);
}

static void chunk_math(void) {
  const int64_t M = INT64_MAX, G = INT64_C(1) << 61; /* elements near 2^62 */
  /* extents ending at INT64_MAX or just below it, starting at the
   * displacement or further on (a section at the far end) */
  const chunk_case_t base[] = {
      {M - 4000, M, M - 4000, 4, 0, 256, 1, 1},
      {M - 4000 + 400, M - 12, M - 4000, 4, 0, 256, 1, 1},
      {M - 7 - 24 * 500, M - 7, M - 7 - 24 * 500, 24, 0, 256, 1, 1},
      {M - 8 - 800 + 96, M - 8, M - 8 - 800, 8, 0, 300, 1, 1},
      {0, M, 0, 1, 0, INT64_C(1) << 30, 1, 1},
      {M - 3 * G, M, M - 3 * G, G, 0, 4096, 1, 1},
      {M - 3 * G, M, M - 3 * G, 3 * G / 2, 0, 4096, 1, 1},
      {0, 2 * (2 * G - 1), 0, 2 * G - 1, 0, 256, 1, 1},
  };
  const int A[] = {1, 2, 3, 7, 1000};
  const int64_t su[] = {0, 1, 64, 1000, 4096, INT64_C(1) << 40};
  for (size_t b = 0; b < sizeof base / sizeof base[0]; b++)
    for (size_t i = 0; i < sizeof A / sizeof A[0]; i++)
      for (size_t s = 0; s < sizeof su / sizeof su[0]; s++)
        for (int parts = 1; parts <= 3; parts += 2) {
          chunk_case_t k = base[b];
          k.A = A[i];
          k.su = su[s];
          k.parts = parts;
          chunk_unit(&k);
        }
}

/* ---- 2. end to end at the file's largest offset ------------------------- */

/* The largest file size the directory's file system takes (rank 0), by
 * ftruncate on a probe file: INT64_MAX on tmpfs, 2^44 - 4096 on ext4;
 * -1 when no file can be made there. */
static int64_t max_file_size(const char *dir) {
  char path[600];
  snprintf(path, sizeof path, "%s/darray_overflow_probe.%ld", dir,
           (long)getpid());
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return -1;
  int64_t lo = 0, hi = INT64_MAX; /* lo is taken; hi is not, unless... */
  if (ftruncate(fd, (off_t)hi) == 0)
    lo = hi;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (ftruncate(fd, (off_t)mid) == 0)
      lo = mid;
    else
      hi = mid;
  }
  close(fd);
  unlink(path);
  return lo;
}

/* The directory and file end of part 2, the same on every rank. */
static int64_t far_end(char *dir, size_t n) {
  const char *cands[2] = {tu_tmpdir(), "/dev/shm"};
  int64_t end[2] = {-1, -1};
  int pick = 0;
  if (me == 0) {
    end[0] = max_file_size(cands[0]);
    if (end[0] < INT64_MAX)
      end[1] = max_file_size(cands[1]);
    pick = end[1] > end[0] ? 1 : 0;
  }
  MPI_Bcast(&pick, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&end[pick], 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  snprintf(dir, n, "%s", cands[pick]);
  if (me == 0)
    printf("test_overflow: arrays end at offset %lld (2^63 - 1 - %lld) in "
           "%s%s\n", (long long)end[pick], (long long)(INT64_MAX - end[pick]),
           dir, end[pick] < INT64_MAX ? "; near 2^63 only part 1 checks "
                                        "the chunks" : "");
  return end[pick];
}

/* The value of element g: neighbours differ, and so do distant ones. */
static int32_t value_of(uint64_t g, int salt) {
  return (int32_t)(uint32_t)(g * 2654435761u + (g >> 32) * 97u +
                             (uint64_t)salt);
}

/* Rank 0: the file's size is `size` and its n int32 elements from off are
 * value_of(first + e * step) for e < n (with a row skip: elements e of
 * row e / per_row lie row_stride elements apart). */
static void check_on_disk(const char *path, int64_t size, int64_t off,
                          int64_t n, int64_t per_row, int64_t row_stride,
                          uint64_t first, int salt, const char *what) {
  if (me != 0)
    return;
  struct stat st;
  if (!TU_EQ_INT(stat(path, &st), 0) || !TU_EQ_I64(st.st_size, size)) {
    TU_FAIL("  (%s: file size)", what);
    return;
  }
  int fd = open(path, O_RDONLY);
  int64_t bad = 0, rows = n / per_row;
  int32_t *row = malloc(sizeof *row * (size_t)per_row);
  for (int64_t r = 0; fd >= 0 && row != NULL && r < rows; r++) {
    int64_t at = off + 4 * r * row_stride;
    ssize_t got = pread(fd, row, (size_t)(4 * per_row), (off_t)at);
    if (!TU_EQ_I64(got, 4 * per_row))
      break;
    for (int64_t e = 0; e < per_row; e++)
      bad += row[e] !=
             value_of(first + (uint64_t)(r * row_stride + e), salt);
  }
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("  (%s: wrong elements on disk)", what);
  free(row);
  if (fd >= 0)
    close(fd);
}

/* A 1-D int32 array of n elements, BLOCK or CYCLIC(3), ending `below`
 * bytes before the file's end. */
static void far_1d(const char *path, int64_t end, int64_t below, bool cyclic,
                   const char *hints, int salt) {
  const int64_t n = 1000, disp = end - 4 * n - below;
  char what[300];
  snprintf(what, sizeof what, "1-D %s at %lld, %s",
           cyclic ? "CYCLIC(3)" : "BLOCK", (long long)disp, hints);
  darray_t a = NULL;
  darray_dist_t d = cyclic ? DARRAY_DIST_CYCLIC : DARRAY_DIST_BLOCK;
  int64_t k = cyclic ? 3 : DARRAY_DEFAULT_ARG, count = 0;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)) ||
      !TU_OK(darray_set_distribution(a, &d, &k)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a)) ||
      !TU_OK(darray_local_count(a, &count))) {
    darray_free(&a);
    return;
  }
  int32_t *buf = malloc(sizeof *buf * (size_t)(count + 1));
  int32_t *want = malloc(sizeof *want * (size_t)(count + 1));
  for (int64_t l = 0; l < count; l++) { /* local l -> global, by formula */
    int64_t g = cyclic ? (l / 3 * P + me) * 3 + l % 3
                       : me * ((n + P - 1) / P) + l;
    want[l] = buf[l] = value_of((uint64_t)g, salt);
  }
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             info, &f))) {
    if (!TU_OK(darray_write(f, a, buf)))
      TU_FAIL("  (%s: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_close(&f));
  }
  check_on_disk(path, disp + 4 * n, disp, n, n, n, 0, salt, what);
  MPI_Barrier(MPI_COMM_WORLD);
  memset(buf, 0, sizeof *buf * (size_t)(count + 1));
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    if (!TU_OK(darray_read(f, a, buf)))
      TU_FAIL("  (%s: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_close(&f));
  }
  if (tu_compare_bytes(buf, want, 4 * count, what) != 0)
    TU_FAIL("  (%s: read back)", what);
  MPI_Info_free(&info);
  free(buf);
  free(want);
  darray_free(&a);
}

/* Every rank reads the union of the sections written (the boxes overlap:
 * each chunk's bytes go to every rank). */
static void union_read(const char *path, darray_t a, MPI_Info info,
                       int64_t R, int64_t K, int64_t W, int salt,
                       const char *what) {
  int64_t start[2] = {R - 3, K - W * P}, cnt[2] = {3, W * P};
  int64_t n = 3 * W * P, bad = 0;
  int32_t *buf = calloc((size_t)n, sizeof *buf);
  darray_file_t f = NULL;
  if (buf == NULL ||
      !TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                              &f))) {
    free(buf);
    return;
  }
  if (!TU_OK(darray_read_section(f, a, start, cnt, DARRAY_ORDER_C, buf)))
    TU_FAIL("  (%s, the union: %s)", what, darray_file_errmsg(f));
  TU_OK(darray_file_close(&f));
  for (int64_t e = 0; e < n; e++)
    bad += buf[e] != value_of((uint64_t)((start[0] + e / cnt[1]) * K +
                                         start[1] + e % cnt[1]),
                              salt);
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("  (%s: the union read back)", what);
  free(buf);
}

/* The last 3 rows of a 2-D int32 array of K columns that fills the file's
 * range (its last byte `below` bytes before the end): each rank writes
 * and reads 16 columns of them, the ranks' columns side by side, the
 * last rank's at the right edge. (Two-phase moves every chunk of the
 * union's extent, holes included, so the rows are short.) */
static void far_section(const char *path, int64_t end, int64_t below,
                        const char *hints, int salt) {
  const int64_t K = 67, W = 16; /* short rows, so 2^55 of them */
  int64_t R = (end - below) / (4 * K), disp = end - below - 4 * R * K;
  int64_t g[2] = {R, K};
  int64_t start[2] = {R - 3, K - W * (P - me)}, cnt[2] = {3, W};
  char what[300];
  snprintf(what, sizeof what, "section of %lld x %lld at %lld, %s",
           (long long)R, (long long)K, (long long)disp, hints);
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  int32_t buf[3 * 16], want[3 * 16];
  for (int64_t i = 0; i < 3; i++)
    for (int64_t j = 0; j < W; j++)
      want[i * W + j] = buf[i * W + j] = value_of(
          (uint64_t)((start[0] + i) * K + start[1] + j), salt);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             info, &f))) {
    if (!TU_OK(darray_write_section(f, a, start, cnt, DARRAY_ORDER_C, buf)))
      TU_FAIL("  (%s: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_close(&f));
  }
  /* the union: 3 rows of the last W * P columns, up to the array's end */
  uint64_t first = (uint64_t)((R - 3) * K + K - W * P);
  check_on_disk(path, end - below, disp + 4 * (int64_t)first, 3 * W * P,
                W * P, K, first, salt, what);
  MPI_Barrier(MPI_COMM_WORLD);
  memset(buf, 0, sizeof buf);
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    if (!TU_OK(darray_read_section(f, a, start, cnt, DARRAY_ORDER_C, buf)))
      TU_FAIL("  (%s: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_close(&f));
  }
  if (tu_compare_bytes(buf, want, sizeof buf, what) != 0)
    TU_FAIL("  (%s: read back)", what);
  union_read(path, a, info, R, K, W, salt, what);
  MPI_Info_free(&info);
  darray_free(&a);
}

static void far_end_to_end(void) {
  char dir[512], path[600];
  int64_t end = far_end(dir, sizeof dir);
  if (!TU_CHECK(end > INT64_C(1) << 20))
    return;
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/darray_overflow.%ld", dir, pid);
  const char *const modes[] = {
      "",
      ";darray_cb_image_piece=0",
      ";darray_cb_image_piece=1m;darray_cb_pipeline=disable",
      ";cb_nodes=1;darray_cb_pipeline=enable",
      ";striping_unit=1k;darray_cb_image_piece=0",
  };
  int salt = 0;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    for (int below = 0; below <= 12; below += 12) {
      char h[200];
      snprintf(h, sizeof h, "darray_strategy=twophase;cb_buffer_size=256%s",
               modes[m]);
      far_1d(path, end, below, false, h, ++salt);
      far_1d(path, end, below, true, h, ++salt);
      far_section(path, end, below, h, ++salt);
    }
  tu_remove(path);
}

/* ---- 3. the planner and darray_explain on huge arrays -------------------- */

/* The ownership map's line for a 1-D array of n elements: column j shows
 * the owner of element floor(j * n / 64) under BLOCK or CYCLIC(k). */
static void want_map(int64_t n, int64_t k, bool cyclic, char line[65]) {
  int64_t b = n / P + (n % P != 0);
  for (int j = 0; j < 64; j++) {
    int64_t g = (int64_t)((wide_t)j * n / 64);
    line[j] = (char)('0' + (cyclic ? g / k % P : g / b));
  }
  line[64] = '\0';
}

/* Rank r's file extent "[lo, hi)" for the same array (1 byte elements):
 * from its first block to the end of its last one. */
static void want_extent(int r, int64_t n, int64_t k, bool cyclic,
                        char *buf, size_t len) {
  int64_t b = cyclic ? k : n / P + (n % P != 0);
  int64_t nblk = n / b + (n % b != 0);
  int64_t last = cyclic ? r + (nblk - 1 - r) / P * P : r;
  wide_t hi = (wide_t)(last + 1) * b;
  snprintf(buf, len, "[%lld, %lld)", (long long)((wide_t)r * b),
           (long long)(hi < n ? hi : n));
}

/* The two-phase and direct estimates explain printed; false if absent. */
static bool estimates(const char *text, double *t2, double *td) {
  return tu_estimate(text, "twophase", t2) == 1 &&
         tu_estimate(text, "direct", td) == 1;
}

static void explain_1d(const char *path, bool cyclic) {
  const int64_t n = INT64_MAX, k = INT64_C(1) << 61;
  darray_t a = NULL;
  darray_dist_t d = cyclic ? DARRAY_DIST_CYCLIC : DARRAY_DIST_BLOCK;
  int64_t darg = cyclic ? k : DARRAY_DEFAULT_ARG;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_UINT8, &a)) ||
      !TU_OK(darray_set_distribution(a, &d, &darg)) ||
      !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  /* 2^63 / cb_buffer_size chunks for one aggregator (the file's pages
   * mapped left out: two-phase against direct runs is the point) */
  MPI_Info info = tu_info("cb_buffer_size=1;cb_nodes=1;darray_map=disable");
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info,
                             &f))) {
    for (int w = 0; w <= 1; w++) {
      char *text = tu_explain(f, a, w), line[65];
      want_map(n, k, cyclic, line);
      TU_CONTAINS(text, line);
      for (int r = 0; r < P; r++) {
        char ext[64];
        want_extent(r, n, k, cyclic, ext, sizeof ext);
        TU_CONTAINS(text, ext);
      }
      double t2, td;
      if (cyclic && P > 1 && TU_CHECK(estimates(text, &t2, &td))) {
        TU_CHECK(t2 > td && td > 0);
        TU_CONTAINS(text, "strategy: direct");
      }
      free(text);
    }
    TU_OK(darray_file_close(&f));
  }
  MPI_Info_free(&info);
  darray_free(&a);
}

/* One element of 2^62 bytes ending at INT64_MAX. */
static void explain_huge_element(const char *path) {
  const int64_t n = P, es = INT64_C(1) << 62;
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_OPAQUE, &a)) ||
      !TU_OK(darray_set_elem_size(a, es / P)) ||
      !TU_OK(darray_set_displacement(a, INT64_MAX - es)) ||
      !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE,
                             MPI_INFO_NULL, &f))) {
    char *text = tu_explain(f, a, 1), ext[64];
    snprintf(ext, sizeof ext, "[%lld, %lld)", (long long)(INT64_MAX - es),
             (long long)(INT64_MAX - es + es / P));
    TU_CONTAINS(text, ext); /* rank 0's extent */
    free(text);
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
}

/*
 * The planner on a section read of one column that spans 2^63 - 2^40
 * bytes (2^24 - 1 rows of 2^39 bytes) with windows of 2^40 bytes: sieving
 * would read the whole span, so direct runs win. The planner alone: the
 * read itself would be 2^24 runs.
 */
static void plan_far_section(void) {
  const int64_t K = INT64_C(1) << 39, R = INT64_MAX / K;
  int64_t g[2] = {R, K}, box[4] = {0, 5, R, 1};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_SELF, 2, g, DARRAY_UINT8, &a)) ||
      !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  char path[600];
  snprintf(path, sizeof path, "%s/darray_overflow_plan.%d.%ld", tu_tmpdir(),
           me, (long)getpid());
  MPI_Info info = tu_info("ind_rd_buffer_size=1099511627776");
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_SELF, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info,
                             &f))) {
    xfer_t x = {.f = f, .a = a, .write = false, .boxes = box};
    darray__section_box(a, box, box + 2, DARRAY_ORDER_C, &x.box_sec);
    x.sec = &x.box_sec;
    x.nsec = 1;
    plan_t p;
    TU_OK(darray__plan_explain(&x, &p));
    TU_CHECK(p.s == darray__strategy_named("direct"));
    for (int i = 0; i < p.n; i++)
      if (strcmp(p.table[i]->name, "sieve") == 0)
        TU_CONTAINS(p.est[i].why, "sieving would not pay");
    darray__xfer_access_free(&x);
    TU_OK(darray_file_close(&f));
  }
  remove(path);
  MPI_Info_free(&info);
  darray_free(&a);
}

static void huge_plans(void) {
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_overflow_explain") == NULL)
    return;
  explain_1d(path, false);
  explain_1d(path, true);
  explain_huge_element(path);
  plan_far_section();
  tu_remove(path);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  chunk_math();
  far_end_to_end();
  huge_plans();
  return tu_finish();
}
