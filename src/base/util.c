/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * util.c - small utilities every room uses: hashing, checked 64-bit
 * arithmetic, handle ids, bytes for people, trimmed text, permutations.
 * Nothing here calls MPI or reports errors, so the error room (error.c)
 * and the waiting room (wait.c) both use it without depending on each
 * other; the I/O back ends (io/io_fault.c) take darray__trim from here,
 * not from the hints.
 */
#include "util.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

uint64_t darray__hash(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  if (h == 0)
    h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= c[i];
    h *= 1099511628211ull;
  }
  return h;
}

bool darray__mul_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}

bool darray__add_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}

/* Ids of handles (files, arrays), unique in the process from 1; atomic,
 * so that handles made on different threads get different ids. */
uint64_t darray__next_id(void) {
  static _Atomic uint64_t next = 1;
  return atomic_fetch_add(&next, 1);
}

int64_t darray__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *darray__type_name(int type) {
  static const char *const names[] = {
      "?",      "CHAR",   "INT8",  "UINT8",  "INT16",       "UINT16", "INT32",
      "UINT32", "INT64",  "UINT64", "FLOAT", "DOUBLE", "LONG_DOUBLE",
      "OPAQUE"};
  return type >= 1 && type <= DARRAY_OPAQUE ? names[type] : "?";
}

const char *darray__human_bytes(int64_t b, char *buf, size_t n) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 6)
    v /= 1024, u++;
  snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
  return buf;
}

char *darray__trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

bool darray__next_perm(int *p, int n) {
  int i = n - 2;
  while (i >= 0 && p[i] >= p[i + 1])
    i--;
  if (i < 0)
    return false;
  int j = n - 1;
  while (p[j] <= p[i])
    j--;
  int t = p[i];
  p[i] = p[j];
  p[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--)
    t = p[l], p[l] = p[r], p[r] = t;
  return true;
}
