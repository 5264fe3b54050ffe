/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * util.c - small utilities every room uses: hashing, checked 64-bit
 * arithmetic, handle ids. Nothing here calls MPI or reports errors, so
 * the error room (error.c) and the waiting room (wait.c) both use it
 * without depending on each other.
 */
#include "util.h"

#include <stdatomic.h>
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
