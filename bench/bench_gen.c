/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_gen.c - the benchmarks' data kinds (bench_gen.h says what they
 * are).
 */
#include "bench_gen.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {"index", "smooth", "random"};

int bench_data_kind(const char *name) {
  for (int k = 0; k < 3; k++)
    if (!strcmp(name, names[k]))
      return k;
  return -1;
}

const char *bench_data_name(int kind) {
  return kind >= 0 && kind < 3 ? names[kind] : "?";
}

/* A 64-bit mix of idx and salt (the finalizer of a splitmix generator). */
static uint64_t mix(int64_t idx, int salt) {
  uint64_t z = (uint64_t)idx * 0x9E3779B97F4A7C15u +
               (uint64_t)(uint32_t)salt * 0xD1B54A32D192ED03u;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static double smooth(int64_t idx, int64_t n, int salt) {
  const double tau = 6.283185307179586;
  double x = (double)(idx % n) / (double)n;
  double y = (double)(idx / n % n) / (double)n;
  double z = (double)(idx / n / n) / (double)n;
  /* u in [-1, 1): the top 53 bits of the mix */
  double u = (double)(mix(idx, salt) >> 11) * 0x1p-52 - 1.0;
  return 1.0 + 0.5 * sin(tau * x + 0.1 * salt) * cos(tau * y) +
         0.25 * sin(2.0 * tau * z + 3.0 * x) + 1e-6 * u;
}

uint32_t bench_gen32(int kind, int64_t idx, int64_t n, int salt) {
  uint32_t s = (uint32_t)salt * 0x9E3779B9u;
  switch (kind) {
  case BENCH_DATA_SMOOTH:
    return (uint32_t)(int32_t)lrint(smooth(idx, n, salt) * 0x1p20) + s;
  case BENCH_DATA_RANDOM:
    return (uint32_t)(mix(idx, 0) >> 32) ^ s;
  default:
    return (uint32_t)(2 * idx + 1) + s;
  }
}

uint64_t bench_gen64(int kind, int64_t idx, int64_t n, int salt) {
  double d;
  uint64_t bits;
  switch (kind) {
  case BENCH_DATA_SMOOTH:
    d = smooth(idx, n, salt);
    break;
  case BENCH_DATA_RANDOM:
    bits = mix(idx, salt);
    if ((bits >> 52 & 0x7ff) == 0x7ff)
      bits &= ~(UINT64_C(1) << 62);
    return bits;
  default:
    d = (double)(idx + 1) + (double)salt * 1073741824.0;
    break;
  }
  memcpy(&bits, &d, sizeof bits);
  return bits;
}

void bench_gen_fill(int kind, int esize, int64_t idx, int64_t count,
                    int64_t n, int salt, void *out) {
  unsigned char *o = out;
  for (int64_t e = 0; e < count; e++) {
    if (esize == 4) {
      uint32_t v = bench_gen32(kind, idx + e, n, salt);
      memcpy(o + 4 * e, &v, 4);
    } else {
      uint64_t v = bench_gen64(kind, idx + e, n, salt);
      memcpy(o + 8 * e, &v, 8);
    }
  }
}
