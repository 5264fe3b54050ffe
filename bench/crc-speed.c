/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc-speed - how fast darrayio computes the CRC-32 of a dataset member
 * (src/crc/crc_clmul.c, crc.c), against zlib's crc32, on one core.
 *
 *   bench/crc-speed [MiB] [reps]      (default 64 MiB, 5 repetitions)
 *
 * Lines (the median of reps of the thread's processor time, and of the
 * wall time; GB/s are 10^9 bytes per processor second):
 *   zlib        crc32_z over the whole buffer
 *   clmul       darrayio's register by carry-less multiplication (or
 *               "unavailable" on a processor without PCLMULQDQ)
 *   feed        darray__crc_feed, what the library calls
 *   runs R/G    one process's share of DIST3D 1x1x2 as the library adds
 *               it (crc_acc): half the buffer, dense in memory, in runs of
 *               R bytes placed with gaps of G zeros (the other process's
 *               runs); GB/s counted over the runs' bytes
 * Every result is compared with zlib's; a mismatch exits with status 1.
 * It links the library's internal part: it measures internal functions.
 */
#include "crc/crc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* Seconds of the processor this thread used: on a shared machine the
 * time the other jobs take is not counted (the wall time is printed too). */
static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef uint32_t (*crc_fn)(const unsigned char *b, int64_t n, int64_t run);

static uint32_t by_zlib(const unsigned char *b, int64_t n, int64_t run) {
  (void)run;
  return (uint32_t)crc32_z(0, b, (z_size_t)n);
}
static uint32_t by_clmul(const unsigned char *b, int64_t n, int64_t run) {
  (void)run;
  return darray__crc_feed_clmul(0xffffffffu, b, n) ^ 0xffffffffu;
}
static uint32_t by_feed(const unsigned char *b, int64_t n, int64_t run) {
  (void)run;
  return darray__crc_feed(0xffffffffu, b, n) ^ 0xffffffffu;
}
/* One process's share of a message of n bytes: the first n / 2 bytes of
 * b (dense, as a local array is) in runs at even multiples of run, zeros
 * between (another process's runs): the CRC of that message. */
static uint32_t by_runs(const unsigned char *b, int64_t n, int64_t run) {
  crc_acc_t acc = DARRAY_CRC_ACC_INIT;
  for (int64_t off = 0, k = 0; off < n; off += 2 * run, k += run)
    darray__crc_acc_add(&acc, off, b + k, off + run <= n ? run : n - off);
  return darray__crc_acc_end(&acc, n) ^ darray__crc_zeros(n);
}

static uint32_t by_stream(const unsigned char *b, int64_t n, int64_t run) {
  enum { BATCH = 64 };
  crc_acc_t acc = DARRAY_CRC_ACC_INIT;
  crc_piece_t pc[BATCH];
  int np = 0;
  for (int64_t off = 0, k = 0; off < n; off += 2 * run, k += run) {
    pc[np++] = (crc_piece_t){off, b + k, off + run <= n ? run : n - off};
    if (np == BATCH)
      darray__crc_acc_add_pieces(&acc, pc, np), np = 0;
  }
  darray__crc_acc_add_pieces(&acc, pc, np);
  return darray__crc_acc_end(&acc, n) ^ darray__crc_zeros(n);
}

static int measure(const char *name, crc_fn fn, const unsigned char *b,
                   int64_t n, int64_t run, uint32_t want, int reps) {
  double t[64], w[64];
  uint32_t got = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    got = fn(b, n, run);
    t[r] = now(CLOCK_THREAD_CPUTIME_ID) - t0;
    w[r] = now(CLOCK_MONOTONIC) - w0;
  }
  qsort(t, (size_t)reps, sizeof t[0], cmp);
  qsort(w, (size_t)reps, sizeof w[0], cmp);
  int64_t bytes = run ? n / 2 : n;
  printf("%-18s %8.3f ms %7.2f GB/s  (wall %8.3f ms)  crc %08x%s\n", name,
         1e3 * t[reps / 2], (double)bytes / t[reps / 2] / 1e9,
         1e3 * w[reps / 2], (unsigned)got, got == want ? "" : "  MISMATCH");
  return got != want;
}

int main(int argc, char **argv) {
  int64_t mib = argc > 1 ? atoll(argv[1]) : 64;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (mib < 1 || reps < 1 || reps > 64) {
    fprintf(stderr, "usage: crc-speed [MiB >= 1] [reps 1..64]\n");
    return 2;
  }
  int64_t n = mib << 20;
  unsigned char *b = malloc((size_t)n), *z = calloc((size_t)n, 1);
  if (b == NULL || z == NULL)
    return 2;
  for (int64_t i = 0; i < n; i++)
    b[i] = (unsigned char)(i * 2654435761u >> 13);
  int bad = 0;
  uint32_t want = (uint32_t)crc32_z(0, b, (z_size_t)n);
  printf("crc-speed: %lld MiB, median of %d\n", (long long)mib, reps);
  bad |= measure("zlib", by_zlib, b, n, 0, want, reps);
  if (darray__crc_clmul_available())
    bad |= measure("clmul", by_clmul, b, n, 0, want, reps);
  else
    printf("clmul              unavailable (no PCLMULQDQ)\n");
  bad |= measure("feed", by_feed, b, n, 0, want, reps);
  static const int64_t runs[] = {512, 4096, 65536};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    int64_t r = runs[i];
    memset(z, 0, (size_t)n);
    for (int64_t off = 0, k = 0; off < n; off += 2 * r, k += r)
      memcpy(z + off, b + k, (size_t)(off + r <= n ? r : n - off));
    char name[32];
    snprintf(name, sizeof name, "runs %lld/%lld", (long long)r, (long long)r);
    uint32_t zc = (uint32_t)crc32_z(0, z, (z_size_t)n);
    bad |= measure(name, by_runs, b, n, r, zc, reps);
    snprintf(name, sizeof name, "stream %lld/%lld", (long long)r,
             (long long)r);
    bad |= measure(name, by_stream, b, n, r, zc, reps);
  }
  free(b);
  free(z);
  return bad;
}
