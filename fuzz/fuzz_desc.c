/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_desc.c - fuzz target: the array-description validator
 * (darray_create, the darray_set_* calls, darray_commit) and the queries on
 * what it accepts, on one process.
 *
 * The input bytes are decoded into a description: ndims, sizes (small,
 * near powers of two, or near INT64_MAX), the type, distributions and
 * block sizes, a grid, storage and memory orders, a permutation, ghosts,
 * padding and a displacement. Each step may refuse with a code and a
 * message; nothing may crash, leak or be undefined. What commit accepts
 * must be sane: the local element count is the product of the cells'
 * shapes, the local buffer holds them, and darray_locate /
 * darray_file_offset of the first, last and some middle elements land
 * inside the buffer and inside [disp, disp + array bytes).
 *
 * Build and run: fuzz/run.sh (libFuzzer), or see fuzz/README.md.
 */
#include "darrayio.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return 0;
}

/* A reader of the input; past the end it yields zeros. */
typedef struct in {
  const uint8_t *p;
  size_t n, at;
} in_t;

static uint8_t u8(in_t *in) { return in->at < in->n ? in->p[in->at++] : 0; }

static int64_t i64(in_t *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | u8(in);
  return (int64_t)v;
}

/* A size-like number: mostly small, sometimes huge or negative. */
static int64_t num(in_t *in) {
  uint8_t k = u8(in);
  switch (k % 8) {
  case 0:
    return 0;
  case 1:
    return -1 - (int64_t)(u8(in) % 4);
  case 2:
    return (int64_t)u8(in) % 17;
  case 3:
    return ((int64_t)1 << (u8(in) % 63)) + (int64_t)(u8(in) % 5) - 2;
  case 4:
    return INT64_MAX - (int64_t)(u8(in) % 4);
  case 5:
    return i64(in);
  default:
    return 1 + (int64_t)(u8(in) % 9);
  }
}

static void check(bool ok) {
  if (!ok)
    abort();
}

/* A setter either succeeds or refuses with a message. */
static void setter(darray_t a, int rc) {
  check(rc == DARRAY_SUCCESS || (rc < 0 && darray_errmsg(a)[0] != '\0'));
}

/* What commit accepted must hold together. */
static void check_committed(darray_t a, int nd, const int64_t *g) {
  int ncells = 0;
  int64_t count = 0, bytes = 0, esize = 0;
  check(darray_num_cells(a, &ncells) == DARRAY_SUCCESS && ncells >= 1);
  check(darray_local_count(a, &count) == DARRAY_SUCCESS && count >= 0);
  check(darray_local_bytes(a, &bytes) == DARRAY_SUCCESS && bytes >= 0);
  check(darray_elem_size(a, &esize) == DARRAY_SUCCESS && esize >= 1);
  int64_t sum = 0;
  for (int c = 0; c < ncells; c++) {
    int64_t shape[DARRAY_MAX_DIMS], start[DARRAY_MAX_DIMS], n = 1;
    check(darray_local_shape(a, c, shape) == DARRAY_SUCCESS);
    check(darray_local_start(a, c, start) == DARRAY_SUCCESS);
    for (int d = 0; d < nd; d++) {
      check(shape[d] >= 0 && shape[d] <= g[d]);
      check(shape[d] == 0 || (start[d] >= 0 && start[d] < g[d]));
      if (n != 0 && __builtin_mul_overflow(n, shape[d], &n))
        abort(); /* the count fit in commit, so each cell's fits */
    }
    sum += n;
  }
  check(sum == count);
  if (count > 0)
    check(bytes / esize >= count);
  /* one process owns everything: first, last and middle elements */
  int64_t idx[3][DARRAY_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    idx[0][d] = 0;
    idx[1][d] = g[d] - 1;
    idx[2][d] = g[d] / 2;
  }
  for (int i = 0; i < 3; i++) {
    int rank = -1, cell = -1;
    int64_t lidx[DARRAY_MAX_DIMS], off = -1, foff = -1;
    check(darray_locate(a, idx[i], &rank, &cell, lidx, &off) == DARRAY_SUCCESS);
    check(rank == 0 && cell >= 0 && cell < ncells);
    check(off >= 0 && off <= bytes - esize);
    int rc = darray_file_offset(a, idx[i], &foff);
    check(rc == DARRAY_SUCCESS ? foff >= 0 : rc == DARRAY_ESIZE);
    int64_t back[DARRAY_MAX_DIMS];
    check(darray_global_index(a, rank, cell, lidx, back) == DARRAY_SUCCESS);
    check(memcmp(back, idx[i], sizeof(int64_t) * (size_t)nd) == 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  in_t in = {data, size, 0};
  int nd = (int)(u8(&in) % 11) - 1; /* -1 .. 9 */
  int64_t g[DARRAY_MAX_DIMS + 2];
  int n = nd > 0 ? nd : 1;
  for (int d = 0; d < n && d < DARRAY_MAX_DIMS + 2; d++)
    g[d] = num(&in);
  darray_type_t type = (darray_type_t)(u8(&in) % 15);
  darray_t a = NULL;
  if (darray_create(MPI_COMM_WORLD, nd, g, type, &a) != DARRAY_SUCCESS) {
    check(a == NULL && darray_errmsg(NULL)[0] != '\0');
    return 0;
  }
  uint8_t steps = u8(&in);
  if (steps & 1)
    setter(a, darray_set_elem_size(a, num(&in)));
  if (steps & 2) {
    darray_dist_t dist[DARRAY_MAX_DIMS];
    int64_t dargs[DARRAY_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
      dist[d] = (darray_dist_t)(u8(&in) % 5);
      dargs[d] = u8(&in) % 2 ? DARRAY_DEFAULT_ARG : num(&in);
    }
    setter(a, darray_set_distribution(a, dist, steps & 64 ? NULL : dargs));
  }
  if (steps & 4) {
    int ps[DARRAY_MAX_DIMS];
    for (int d = 0; d < nd; d++)
      ps[d] = (int)(u8(&in) % 4) - 1;
    setter(a, darray_set_grid(a, ps));
  }
  if (steps & 8) {
    int perm[DARRAY_MAX_DIMS];
    for (int d = 0; d < nd; d++)
      perm[d] = (int)(u8(&in) % 10) - 1;
    setter(a, darray_set_storage_order(a, (darray_order_t)(u8(&in) % 5), perm));
  }
  if (steps & 16) {
    int64_t ghost[DARRAY_MAX_DIMS], pad[DARRAY_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
      ghost[d] = num(&in);
      pad[d] = num(&in);
    }
    setter(a, darray_set_memory_layout(a, (darray_order_t)(u8(&in) % 4),
                                       steps & 128 ? NULL : ghost,
                                       u8(&in) % 2 ? NULL : pad));
  }
  if (steps & 32)
    setter(a, darray_set_displacement(a, num(&in)));
  if (darray_commit(a) == DARRAY_SUCCESS)
    check_committed(a, nd, g);
  else
    check(darray_errmsg(a)[0] != '\0');
  check(darray_free(&a) == DARRAY_SUCCESS && a == NULL);
  return 0;
}
