/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist_multipart.c - MULTIPARTITION as NAS BT and SP use it.
 *
 * P = q*q processes; each of the three partitioned dimensions is cut into q
 * slabs, the first n mod q of them one point larger. Process r (i0 = r mod q,
 * j0 = r div q) owns the q cells ((i0+k) mod q, (j0-k) mod q, k), k = 0..q-1,
 * so it has exactly one cell in every slab of every dimension, and its cells
 * are ordered by z.
 */
#include "dist/dist.h"

static int mod(int a, int q) {
  int m = a % q;
  return m < 0 ? m + q : m;
}

int darray__dist_isqrt(int p) {
  if (p < 0)
    return -1;
  int r = 0;
  while ((int64_t)(r + 1) * (r + 1) <= p)
    r++;
  return r * r == p ? r : -1;
}

/* Slab s: the first `excess` slabs have size + 1 points. Written so that
 * no intermediate exceeds n (size + 1 is formed only when excess > 0, where
 * size < n): n may be INT64_MAX. */
void darray__dist_mp_slab(int64_t n, int q, int s, int64_t *start,
                          int64_t *len) {
  int64_t size = n / q, excess = n % q;
  *len = size + (s < excess ? 1 : 0);
  *start = s * size + (s < excess ? s : excess);
}

int darray__dist_mp_slab_of(int64_t n, int q, int64_t g) {
  int64_t size = n / q, excess = n % q;
  int64_t big = excess * size + excess; /* points of the larger slabs */
  if (g < big)
    return (int)(g / (size + 1));
  return (int)(excess + (g - big) / size);
}

void darray__dist_mp_cell(int q, int r, int k, int xyz[3]) {
  int i0 = r % q, j0 = r / q;
  xyz[0] = mod(i0 + k, q);
  xyz[1] = mod(j0 - k, q);
  xyz[2] = k;
}

void darray__dist_mp_owner(int q, const int xyz[3], int *rank, int *cell) {
  int x = xyz[0], y = xyz[1], z = xyz[2];
  *rank = mod(x - z, q) + q * mod(y + z, q);
  *cell = z;
}
