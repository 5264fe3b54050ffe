/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_badinput.c - the catalogue of bad inputs: one table row per input,
 * each with what it is, the call sequence that makes it, and the code it
 * must give (doc/reliability.md).
 *
 * For every row, on every rank:
 *  - the code is the expected one, and it is the same on every rank (every
 *    rank makes the same call; collective calls must agree even when only
 *    one rank's input is bad);
 *  - darray_errmsg / darray_file_errmsg is not empty and names the bad
 *    argument (or, on the ranks whose input was good, the failing rank);
 *  - no file changed: a pre-filled data file, a short file and a read-only
 *    file are compared byte for byte after every row;
 *  - the handles a row made are freed (the sanitizer build checks leaks).
 *
 * Rows that need a number of processes (disagreements need two, a
 * MULTIPARTITION grid that is not a square needs P not a square, cells
 * smaller than allowed need P = q*q >= 4) are counted as not applicable at
 * the other counts; the test runs at P = 2 and 4 so that every row runs.
 *
 * A freed handle is detected by its magic number, which means reading
 * memory that was freed. The two rows that do it (a freed array, a closed
 * file) are skipped under AddressSanitizer and under valgrind, which
 * rightly report that read; everywhere else they run.
 *
 * Run: mpiexec -n 2 ./test_badinput   (BADINPUT_VERBOSE=1 lists the rows)
 */
#define _GNU_SOURCE /* setfsuid */

#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/fsuid.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND() (getenv("DARRAY_TEST_VALGRIND") != NULL)
#endif

#define MSG_LEN 512
#define NA 1 /* a row's run(): not applicable at this process count */
#define DATA_BYTES 512
#define SHORT_BYTES 10

typedef struct env {
  int P, me;
  char data[600], shortf[600], rofile[600], missing[600], nodir[600];
  char dir[400];
  unsigned char img[3][DATA_BYTES];
  int64_t img_len[3];
  char msg[MSG_LEN]; /* the message of the row's failing call */
} env_t;

typedef struct row {
  const char *what;
  int (*run)(env_t *e, const void *arg);
  const void *arg;
  int expect;
  const char *word; /* the message names this; NULL: only non-empty */
} row_t;

static void keep(env_t *e, const char *msg) {
  snprintf(e->msg, sizeof e->msg, "%s", msg ? msg : "(null)");
}

/* ---- descriptions ---------------------------------------------------------
 */

/* A description, set up step by step; the first failing step's code and
 * message are the row's. Fields left zero are not set. */
typedef struct desc {
  int ndims;
  int64_t g[DARRAY_MAX_DIMS + 2];
  darray_type_t type;
  bool null_gsizes, null_out, comm_null;
  int64_t esize; /* set_elem_size when != 0 */
  bool set_dist;
  const darray_dist_t *dist;
  const int64_t *dargs;
  bool set_grid;
  const int *grid;
  darray_order_t sorder; /* set_storage_order when != 0 */
  const int *perm;
  darray_order_t morder; /* set_memory_layout when != 0 */
  const int64_t *ghost, *padded;
  int64_t disp; /* set_displacement when != 0 */
  int need;     /* 0; 2: P >= 2; -1: P not a square; -4: P square >= 4 */
  int vary;     /* rank 1 passes something else (see run_desc) */
} desc_t;

enum { VARY_NONE, VARY_GSIZE, VARY_TYPE, VARY_DIST, VARY_GRID, VARY_ORDER };

static bool is_square(int p) {
  for (int q = 1; q * q <= p; q++)
    if (q * q == p)
      return true;
  return false;
}

static bool applicable(const env_t *e, int need) {
  return need == 0 || (need == 2 && e->P >= 2) ||
         (need == -1 && !is_square(e->P)) ||
         (need == -4 && is_square(e->P) && e->P >= 4);
}

static int run_desc(env_t *e, const void *arg) {
  const desc_t *d = arg;
  if (!applicable(e, d->need))
    return NA;
  bool other = d->vary != VARY_NONE && e->me == 1;
  int64_t g[DARRAY_MAX_DIMS + 2];
  memcpy(g, d->g, sizeof g);
  if (other && d->vary == VARY_GSIZE)
    g[0]++;
  darray_type_t type = other && d->vary == VARY_TYPE ? DARRAY_INT64 : d->type;
  darray_t a = NULL;
  int rc =
      darray_create(d->comm_null ? MPI_COMM_NULL : MPI_COMM_WORLD, d->ndims,
                    d->null_gsizes ? NULL : g, type, d->null_out ? NULL : &a);
  if (rc != DARRAY_SUCCESS) {
    keep(e, darray_errmsg(NULL));
    return rc;
  }
  if (rc == DARRAY_SUCCESS && d->esize != 0)
    rc = darray_set_elem_size(a, d->esize);
  if (rc == DARRAY_SUCCESS && d->set_dist) {
    darray_dist_t cyc[DARRAY_MAX_DIMS];
    const darray_dist_t *dist = d->dist;
    if (other && d->vary == VARY_DIST) {
      for (int i = 0; i < d->ndims; i++)
        cyc[i] = DARRAY_DIST_CYCLIC;
      dist = cyc;
    }
    rc = darray_set_distribution(a, dist, d->dargs);
  }
  if (rc == DARRAY_SUCCESS && d->set_grid) {
    int grid[DARRAY_MAX_DIMS] = {0};
    if (d->grid != NULL)
      memcpy(grid, d->grid, sizeof(int) * (size_t)d->ndims);
    if (other && d->vary == VARY_GRID) {
      grid[0] = e->P; /* the others pass {1, P} */
      grid[1] = 1;
    }
    rc = darray_set_grid(a, d->grid == NULL && !other ? NULL : grid);
  }
  if (rc == DARRAY_SUCCESS && d->sorder != 0)
    rc = darray_set_storage_order(
        a, other && d->vary == VARY_ORDER ? DARRAY_ORDER_FORTRAN : d->sorder,
        d->perm);
  if (rc == DARRAY_SUCCESS && d->morder != 0)
    rc = darray_set_memory_layout(a, d->morder, d->ghost, d->padded);
  if (rc == DARRAY_SUCCESS && d->disp != 0)
    rc = darray_set_displacement(a, d->disp);
  if (rc == DARRAY_SUCCESS)
    rc = darray_commit(a);
  keep(e, darray_errmsg(a));
  darray_free(&a);
  return rc;
}

#define D(...) (&(const desc_t){__VA_ARGS__})
#define DIST(...) ((const darray_dist_t[]){__VA_ARGS__})
#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define INTS(...) ((const int[]){__VA_ARGS__})
#define B DARRAY_DIST_BLOCK
#define C DARRAY_DIST_CYCLIC
#define N DARRAY_DIST_NONE
#define MP DARRAY_DIST_MULTIPARTITION

/* ---- calls that need their own code -------------------------------------- */

static int intercomm_create(env_t *e, const void *arg) {
  (void)arg;
  if (e->P < 2)
    return NA;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, e->me % 2, e->me, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, e->me % 2 ? 0 : 1, 7, &inter);
  int64_t g[1] = {10};
  darray_t a = (darray_t)&a;
  int rc = darray_create(inter, 1, g, DARRAY_INT32, &a);
  keep(e, darray_errmsg(NULL));
  if (!TU_CHECK(a == NULL))
    darray_free(&a);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return rc;
}

/* A committed 1-D BLOCK array of n int32 over WORLD. */
static darray_t block_1d(int64_t n) {
  darray_t a = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)) &&
      !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

typedef enum {
  Q_SHAPE_UNCOMMITTED,
  Q_LOCATE_OUTSIDE,
  Q_CELL_RANGE,
  Q_COMMIT_TWICE,
  Q_SET_AFTER_COMMIT,
  Q_GLOBAL_INDEX_RANK,
  Q_FILE_OFFSET_NULL,
  Q_FREED_ARRAY,
  Q_NULL_ARRAY
} query_t;

static int run_query(env_t *e, const void *arg) {
  query_t q = *(const query_t *)arg;
  if (q == Q_FREED_ARRAY && (UNDER_ASAN || UNDER_VALGRIND()))
    return NA;
  int64_t n = 12, v[2];
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)))
    return DARRAY_SUCCESS;
  int rc;
  if (q == Q_SHAPE_UNCOMMITTED) {
    rc = darray_local_shape(a, 0, v);
  } else if (q == Q_NULL_ARRAY) {
    rc = darray_local_count(NULL, v);
    keep(e, darray_errmsg(NULL));
    darray_free(&a);
    return rc;
  } else if (q == Q_FREED_ARRAY) {
    darray_t stale = a;
    darray_free(&a);
    rc = darray_local_count(stale, v);
    keep(e, darray_errmsg(NULL));
    return rc;
  } else {
    TU_OK(darray_commit(a));
    int64_t outside[1] = {12};
    if (q == Q_LOCATE_OUTSIDE)
      rc = darray_locate(a, outside, NULL, NULL, NULL, NULL);
    else if (q == Q_CELL_RANGE)
      rc = darray_local_shape(a, 1, v);
    else if (q == Q_COMMIT_TWICE)
      rc = darray_commit(a);
    else if (q == Q_GLOBAL_INDEX_RANK)
      rc = darray_global_index(a, e->P, 0, I64(0), v);
    else if (q == Q_FILE_OFFSET_NULL)
      rc = darray_file_offset(a, I64(0), NULL);
    else
      rc = darray_set_distribution(a, DIST(C), NULL);
  }
  keep(e, darray_errmsg(a));
  darray_free(&a);
  return rc;
}

#define Q(x) (&(const query_t){x})

/* ---- files ----------------------------------------------------------------
 */

typedef enum {
  O_PATH_NULL,
  O_OUT_NULL,
  O_MODE_ZERO,
  O_MODE_BOTH,
  O_MODE_RO_CREATE,
  O_MODE_RO_TRUNC,
  O_MODE_UNKNOWN_BIT,
  O_COMM_NULL,
  O_MISSING,
  O_MISSING_DIR,
  O_DIRECTORY,
  O_READ_ONLY,
  O_PATHS_DIFFER,
  O_MODES_DIFFER
} open_t;

/* Open a file: which one and how depends on the row. */
static int run_open(env_t *e, const void *arg) {
  open_t o = *(const open_t *)arg;
  const char *path = e->data;
  int mode = DARRAY_MODE_RDWR;
  MPI_Comm comm = MPI_COMM_WORLD;
  darray_file_t f = (darray_file_t)&f, *out = &f;
  switch (o) {
  case O_PATH_NULL:
    path = NULL;
    break;
  case O_OUT_NULL:
    out = NULL;
    break;
  case O_MODE_ZERO:
    mode = 0;
    break;
  case O_MODE_BOTH:
    mode = DARRAY_MODE_RDONLY | DARRAY_MODE_RDWR;
    break;
  case O_MODE_RO_CREATE:
    mode = DARRAY_MODE_RDONLY | DARRAY_MODE_CREATE;
    break;
  case O_MODE_RO_TRUNC:
    mode = DARRAY_MODE_RDONLY | DARRAY_MODE_TRUNC;
    break;
  case O_MODE_UNKNOWN_BIT:
    mode = DARRAY_MODE_RDWR | 64;
    break;
  case O_COMM_NULL:
    comm = MPI_COMM_NULL;
    break;
  case O_MISSING:
    path = e->missing;
    mode = DARRAY_MODE_RDONLY;
    break;
  case O_MISSING_DIR:
    path = e->nodir;
    mode |= DARRAY_MODE_CREATE;
    break;
  case O_DIRECTORY:
    path = e->dir;
    mode = DARRAY_MODE_RDONLY;
    break;
  case O_READ_ONLY:
    path = e->rofile;
    break;
  case O_PATHS_DIFFER:
    path = e->me == 1 ? e->shortf : e->data;
    break;
  case O_MODES_DIFFER:
    mode = e->me == 1 ? DARRAY_MODE_RDONLY : DARRAY_MODE_RDWR;
    break;
  }
  if ((o == O_PATHS_DIFFER || o == O_MODES_DIFFER) && e->P < 2)
    return NA;
    /* root passes every permission check: test the read-only file with the
     * file-system identity of an ordinary user */
#if defined(__linux__)
  bool drop = o == O_READ_ONLY && geteuid() == 0;
  if (drop)
    setfsuid(65534);
#else
  if (o == O_READ_ONLY && geteuid() == 0)
    return NA;
#endif
  int rc = darray_file_open(comm, path, mode, MPI_INFO_NULL, out);
#if defined(__linux__)
  if (drop)
    setfsuid(0);
#endif
  keep(e, darray_file_errmsg(NULL));
  if (out != NULL && !TU_CHECK((*out == NULL) == (rc != DARRAY_SUCCESS)))
    fprintf(stderr, "  (handle after a failed open)\n");
  if (out != NULL && rc == DARRAY_SUCCESS)
    darray_file_close(out);
  return rc;
}

#define O(x) (&(const open_t){x})

/* Hints: DARRAYIO_HINTS (env), an MPI_Info (info), or DARRAYIO_FAULT. */
typedef struct hint_row {
  const char *env, *key, *value, *fault;
  bool differ; /* rank 1 passes another value of env */
} hint_row_t;

static int run_hints(env_t *e, const void *arg) {
  const hint_row_t *h = arg;
  if (h->differ && e->P < 2)
    return NA;
  if (h->fault != NULL && !tu_fault_injection())
    return NA; /* a build that ignores DARRAYIO_FAULT */
  MPI_Info info = MPI_INFO_NULL;
  if (h->key != NULL) {
    MPI_Info_create(&info);
    MPI_Info_set(info, h->key, h->value);
  }
  if (h->env != NULL && !(h->differ && e->me == 1))
    setenv("DARRAYIO_HINTS", h->env, 1);
  if (h->fault != NULL)
    setenv("DARRAYIO_FAULT", h->fault, 1);
  darray_file_t f = NULL;
  int rc =
      darray_file_open(MPI_COMM_WORLD, e->data, DARRAY_MODE_RDWR, info, &f);
  unsetenv("DARRAYIO_HINTS");
  unsetenv("DARRAYIO_FAULT");
  keep(e, darray_file_errmsg(NULL));
  TU_CHECK((f == NULL) == (rc != DARRAY_SUCCESS));
  darray_file_close(&f);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  return rc;
}

#define H(...) (&(const hint_row_t){__VA_ARGS__})

typedef enum {
  X_WRITE_READONLY,
  X_READ_SHORT,
  X_READ_PAST_END,
  X_WRITE_NULL_ONE_RANK,
  X_READ_NULL_ONE_RANK,
  X_WRITE_UNCOMMITTED,
  X_WRITE_OTHER_COMM,
  X_WRITE_DISP_DIFFER,
  X_WRITE_ARRAYS_DIFFER,
  X_WRITE_END_OVERFLOWS,
  X_WRITE_NULL_FILE,
  X_READ_NULL_ARRAY,
  X_WRITE_CLOSED_FILE,
  X_HINT_UNKNOWN_KEY,
  X_HINT_LEN,
  X_STATS_NULL
} xfer_row_t;

/* Read and write calls on an open file. */
static int run_xfer(env_t *e, const void *arg) {
  xfer_row_t x = *(const xfer_row_t *)arg;
  bool need2 = x == X_WRITE_NULL_ONE_RANK || x == X_READ_NULL_ONE_RANK ||
               x == X_WRITE_OTHER_COMM || x == X_WRITE_DISP_DIFFER ||
               x == X_WRITE_ARRAYS_DIFFER;
  if (need2 && e->P < 2)
    return NA;
  if (x == X_WRITE_CLOSED_FILE && (UNDER_ASAN || UNDER_VALGRIND()))
    return NA;
  const int64_t n = 40; /* 160 bytes: fits the data file, not the short */
  darray_t a = block_1d(n), b = NULL;
  if (a == NULL)
    return DARRAY_SUCCESS;
  int32_t *buf = calloc((size_t)n, sizeof *buf);
  const char *path = x == X_READ_SHORT ? e->shortf : e->data;
  int mode = x == X_WRITE_READONLY || x == X_READ_SHORT ? DARRAY_MODE_RDONLY
                                                        : DARRAY_MODE_RDWR;
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f);
  if (!TU_OK(rc)) {
    free(buf);
    darray_free(&a);
    return DARRAY_SUCCESS;
  }
  char val[8];
  darray_stats_t *st = NULL;
  switch (x) {
  case X_WRITE_READONLY:
    rc = darray_write(f, a, buf);
    break;
  case X_READ_SHORT:
    rc = darray_read(f, a, buf);
    break;
  case X_READ_PAST_END:
    darray_set_displacement(a, DATA_BYTES - 8);
    rc = darray_read(f, a, buf);
    break;
  case X_WRITE_NULL_ONE_RANK:
    rc = darray_write(f, a, e->me == 1 ? NULL : buf);
    break;
  case X_READ_NULL_ONE_RANK:
    rc = darray_read(f, a, e->me == 0 ? NULL : buf);
    break;
  case X_WRITE_UNCOMMITTED:
    TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &b));
    rc = darray_write(f, b, buf);
    break;
  case X_WRITE_OTHER_COMM:
    TU_OK(darray_create(MPI_COMM_SELF, 1, &n, DARRAY_INT32, &b));
    TU_OK(darray_commit(b));
    rc = darray_write(f, b, buf);
    break;
  case X_WRITE_DISP_DIFFER:
    darray_set_displacement(a, e->me == 1 ? 4 : 0);
    rc = darray_write(f, a, buf);
    break;
  case X_WRITE_ARRAYS_DIFFER: /* two good arrays; rank 1 passes the other */
    b = block_1d(n - 1);
    rc = darray_write(f, e->me == 1 ? b : a, buf);
    break;
  case X_WRITE_END_OVERFLOWS: {
    int64_t huge = INT64_C(1) << 62;
    TU_OK(darray_create(MPI_COMM_WORLD, 1, &huge, DARRAY_INT8, &b));
    TU_OK(darray_commit(b));
    TU_OK(darray_set_displacement(b, INT64_MAX - (INT64_C(1) << 61)));
    rc = darray_write(f, b, buf); /* fails before touching buf */
    break;
  }
  case X_WRITE_NULL_FILE:
    rc = darray_write(NULL, a, buf);
    keep(e, darray_file_errmsg(NULL));
    break;
  case X_READ_NULL_ARRAY:
    rc = darray_read(f, NULL, buf);
    keep(e, darray_errmsg(NULL));
    break;
  case X_WRITE_CLOSED_FILE: {
    darray_file_t stale = f;
    darray_file_close(&f);
    rc = darray_write(stale, a, buf);
    keep(e, darray_file_errmsg(NULL));
    break;
  }
  case X_HINT_UNKNOWN_KEY:
    rc = darray_file_get_hint(f, "no_such_hint", val, sizeof val);
    break;
  case X_HINT_LEN:
    rc = darray_file_get_hint(f, "cb_buffer_size", val, 3);
    break;
  case X_STATS_NULL:
    rc = darray_file_get_stats(f, st);
    break;
  }
  if (x != X_WRITE_NULL_FILE && x != X_READ_NULL_ARRAY &&
      x != X_WRITE_CLOSED_FILE)
    keep(e, darray_file_errmsg(f));
  darray_file_close(&f);
  free(buf);
  darray_free(&a);
  darray_free(&b);
  return rc;
}

#define X(x) (&(const xfer_row_t){x})

/* Two-phase with elements larger than an MPI message can count: refused
 * before anything moves (buf, far smaller than one element, is never
 * touched). */
static int run_huge_element(env_t *e, const void *arg) {
  (void)arg;
  int64_t n = e->P, es = (INT64_C(1) << 31) + 7;
  char buf[64] = {0};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_OPAQUE, &a)) ||
      !TU_OK(darray_set_elem_size(a, es)) || !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return DARRAY_SUCCESS;
  }
  MPI_Info info = tu_info("darray_strategy=twophase");
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, e->data, DARRAY_MODE_RDWR, info,
                            &f);
  if (TU_OK(rc)) {
    rc = darray_write(f, a, buf);
    keep(e, darray_file_errmsg(f));
  }
  darray_file_close(&f);
  MPI_Info_free(&info);
  darray_free(&a);
  return rc;
}

/* The storage advisor (local): a consumer on *arg processes, whose grid
 * MPI_Dims_create would complete; all three advisor calls must refuse it
 * alike. */
static int run_advise(env_t *e, const void *arg) {
  int64_t g[2] = {64, 64};
  darray_consumer_t c = {.name = "big", .weight = 1,
                         .nprocs = *(const int *)arg,
                         .dist = {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK}};
  darray_advice_t adv;
  int perm[2] = {0, 1};
  int rc = darray_advise_storage(2, g, 4, 1, &c, &adv, NULL);
  keep(e, darray_errmsg(NULL));
  TU_EQ_CODE(darray_advise_order(2, g, 4, 1, &c, perm, &adv, NULL), rc);
  TU_EQ_CODE(darray_advise_report(2, g, 4, 1, &c, stdout), rc);
  return rc;
}

/* ---- the catalogue --------------------------------------------------------
 */

#include "badinput_dataset.h" /* hostile .npz/.npy files: run_dataset */

static const row_t rows[] = {
    /* creating a description */
    {"gsizes is NULL", run_desc,
     D(.ndims = 2, .type = DARRAY_INT32, .null_gsizes = true), DARRAY_ENULL,
     "gsizes"},
    {"output handle is NULL", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .null_out = true),
     DARRAY_ENULL, "output handle"},
    {"ndims = 0", run_desc, D(.ndims = 0, .g = {4}, .type = DARRAY_INT32),
     DARRAY_ENDIMS, "ndims"},
    {"ndims = -1", run_desc, D(.ndims = -1, .g = {4}, .type = DARRAY_INT32),
     DARRAY_ENDIMS, "ndims"},
    {"ndims = DARRAY_MAX_DIMS + 1", run_desc,
     D(.ndims = DARRAY_MAX_DIMS + 1, .g = {2, 2, 2, 2, 2, 2, 2, 2, 2},
       .type = DARRAY_INT32),
     DARRAY_ENDIMS, "ndims"},
    {"a size is zero", run_desc,
     D(.ndims = 2, .g = {4, 0}, .type = DARRAY_INT32), DARRAY_ESIZE,
     "gsizes[1]"},
    {"a size is negative", run_desc,
     D(.ndims = 2, .g = {-5, 4}, .type = DARRAY_INT32), DARRAY_ESIZE,
     "gsizes[0]"},
    {"the element count overflows 64 bits (2^32 * 2^32)", run_desc,
     D(.ndims = 2, .g = {INT64_C(1) << 32, INT64_C(1) << 32},
       .type = DARRAY_INT8),
     DARRAY_ESIZE, "overflows"},
    {"the element count overflows 64 bits (three dimensions of 2^21)", run_desc,
     D(.ndims = 3, .g = {INT64_C(1) << 21, INT64_C(1) << 21, INT64_C(1) << 21},
       .type = DARRAY_INT8),
     DARRAY_ESIZE, "overflows"},
    {"the byte size overflows 64 bits (the count does not)", run_desc,
     D(.ndims = 2, .g = {INT64_C(1) << 61, 2}, .type = DARRAY_INT64),
     DARRAY_ESIZE, "overflows"},
    {"type is not a darray_type_t (0)", run_desc,
     D(.ndims = 1, .g = {4}, .type = (darray_type_t)0), DARRAY_ETYPE, "type"},
    {"type is not a darray_type_t (99)", run_desc,
     D(.ndims = 1, .g = {4}, .type = (darray_type_t)99), DARRAY_ETYPE, "type"},
    {"DARRAY_OPAQUE without an element size", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_OPAQUE), DARRAY_ETYPE,
     "DARRAY_OPAQUE"},
    {"a negative element size for DARRAY_OPAQUE", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_OPAQUE, .esize = -3), DARRAY_ETYPE,
     "size"},
    {"element size set on a predefined type", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_DOUBLE, .esize = 8), DARRAY_ETYPE,
     "DARRAY_OPAQUE"},
    {"comm is MPI_COMM_NULL", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .comm_null = true),
     DARRAY_ECOMM, "comm"},
    {"comm is an intercommunicator", intercomm_create, NULL, DARRAY_ECOMM,
     "intercommunicator"},
    /* distributions */
    {"dist is NULL", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .set_dist = true),
     DARRAY_ENULL, "dist"},
    {"a distribution kind that does not exist", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(B, (darray_dist_t)7)),
     DARRAY_EDIST, "dist[1]"},
    {"BLOCK(0)", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(B), .dargs = I64(0)),
     DARRAY_EDIST, "dargs[0]"},
    {"CYCLIC(-3)", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(N, C), .dargs = I64(1, -3)),
     DARRAY_EDIST, "dargs[1]"},
    {"BLOCK(k) with k*p < n", run_desc,
     D(.ndims = 1, .g = {100}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(B), .dargs = I64(3)),
     DARRAY_EDIST, "dargs[0]"},
    {"MULTIPARTITION on two dimensions", run_desc,
     D(.ndims = 3, .g = {4, 4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(MP, MP, N)),
     DARRAY_EDIST, "MULTIPARTITION"},
    {"MULTIPARTITION with a BLOCK dimension", run_desc,
     D(.ndims = 4, .g = {4, 4, 4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(B, MP, MP, MP)),
     DARRAY_EDIST, "dist[0]"},
    {"MULTIPARTITION over P processes, P not a square", run_desc,
     D(.ndims = 3, .g = {8, 8, 8}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(MP, MP, MP), .need = -1),
     DARRAY_EDIST, "perfect-square"},
    {"MULTIPARTITION cells smaller than allowed (a dimension < q)", run_desc,
     D(.ndims = 3, .g = {8, 1, 8}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(MP, MP, MP), .need = -4),
     DARRAY_EDIST, "gsizes[1]"},
    /* process grids */
    {"psizes is NULL", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_grid = true),
     DARRAY_ENULL, "psizes"},
    {"a negative grid size", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_grid = true,
       .grid = INTS(1, -1)),
     DARRAY_EGRID, "psizes[1]"},
    {"a grid larger than the communicator", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_grid = true,
       .grid = INTS(5, 1)),
     DARRAY_EGRID, "psizes"},
    {"a grid smaller than the communicator", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_grid = true,
       .grid = INTS(1, 1), .need = 2),
     DARRAY_EGRID, "psizes"},
    {"a NONE dimension with two processes", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(N, B), .set_grid = true, .grid = INTS(2, 0)),
     DARRAY_EGRID, "psizes[0]"},
    {"MULTIPARTITION with an explicit grid other than q x q x q", run_desc,
     D(.ndims = 3, .g = {8, 8, 8}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(MP, MP, MP), .set_grid = true, .grid = INTS(2, 2, 3),
       .need = -4),
     DARRAY_EGRID, "psizes[2]"},
    /* memory layout */
    {"a negative ghost width", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .morder = DARRAY_ORDER_C,
       .ghost = I64(0, -1)),
     DARRAY_EGHOST, "ghost[1]"},
    {"a negative padded extent", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .morder = DARRAY_ORDER_C,
       .padded = I64(-2, 0)),
     DARRAY_EGHOST, "padded[0]"},
    {"a padded extent smaller than interior + 2 ghosts", run_desc,
     D(.ndims = 1, .g = {8}, .type = DARRAY_INT32, .morder = DARRAY_ORDER_C,
       .ghost = I64(1), .padded = I64(3)),
     DARRAY_EGHOST, "padded[0]"},
    {"padding whose buffer size overflows 64 bits", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .morder = DARRAY_ORDER_C,
       .padded = I64(INT64_C(1) << 40, INT64_C(1) << 40)),
     DARRAY_ESIZE, NULL},
    {"memory order PERM", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .morder = DARRAY_ORDER_PERM),
     DARRAY_EORDER, "order"},
    /* storage order and displacement */
    {"a permutation with a repeated dimension", run_desc,
     D(.ndims = 3, .g = {2, 3, 4}, .type = DARRAY_INT32,
       .sorder = DARRAY_ORDER_PERM, .perm = INTS(2, 0, 2)),
     DARRAY_EORDER, "perm"},
    {"a permutation with a dimension out of range", run_desc,
     D(.ndims = 3, .g = {2, 3, 4}, .type = DARRAY_INT32,
       .sorder = DARRAY_ORDER_PERM, .perm = INTS(0, 3, 1)),
     DARRAY_EORDER, "perm"},
    {"a permutation with a negative dimension", run_desc,
     D(.ndims = 2, .g = {2, 3}, .type = DARRAY_INT32,
       .sorder = DARRAY_ORDER_PERM, .perm = INTS(-1, 0)),
     DARRAY_EORDER, "perm"},
    {"DARRAY_ORDER_PERM with perm NULL", run_desc,
     D(.ndims = 2, .g = {2, 3}, .type = DARRAY_INT32,
       .sorder = DARRAY_ORDER_PERM),
     DARRAY_ENULL, "perm"},
    {"a storage order that does not exist", run_desc,
     D(.ndims = 2, .g = {2, 3}, .type = DARRAY_INT32,
       .sorder = (darray_order_t)9),
     DARRAY_EORDER, "order"},
    {"a negative displacement", run_desc,
     D(.ndims = 1, .g = {4}, .type = DARRAY_INT32, .disp = -1), DARRAY_EDISP,
     "disp"},
    /* processes that disagree */
    {"ranks pass different gsizes", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .need = 2,
       .vary = VARY_GSIZE),
     DARRAY_EINCONSISTENT, "gsizes"},
    {"ranks pass different types", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .need = 2,
       .vary = VARY_TYPE),
     DARRAY_EINCONSISTENT, "type"},
    {"ranks pass different distributions", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_dist = true,
       .dist = DIST(B, B), .need = 2, .vary = VARY_DIST),
     DARRAY_EINCONSISTENT, "dist"},
    {"ranks pass different grids", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .set_grid = true,
       .grid = INTS(1, 0), .need = 2, .vary = VARY_GRID),
     DARRAY_EINCONSISTENT, "psizes"},
    {"ranks pass different storage orders", run_desc,
     D(.ndims = 2, .g = {4, 4}, .type = DARRAY_INT32, .sorder = DARRAY_ORDER_C,
       .need = 2, .vary = VARY_ORDER),
     DARRAY_EINCONSISTENT, "storage order"},
    /* handles and queries */
    {"a NULL array handle", run_query, Q(Q_NULL_ARRAY), DARRAY_EBADHANDLE,
     "NULL"},
    {"a freed array handle", run_query, Q(Q_FREED_ARRAY), DARRAY_EBADHANDLE,
     "not live"},
    {"a query before commit", run_query, Q(Q_SHAPE_UNCOMMITTED), DARRAY_ESTATE,
     "not committed"},
    {"commit twice", run_query, Q(Q_COMMIT_TWICE), DARRAY_ESTATE, "already"},
    {"a setter after commit", run_query, Q(Q_SET_AFTER_COMMIT), DARRAY_ESTATE,
     "committed"},
    {"locate an index outside the array", run_query, Q(Q_LOCATE_OUTSIDE),
     DARRAY_EINDEX, "gidx[0]"},
    {"a cell number out of range", run_query, Q(Q_CELL_RANGE), DARRAY_EINDEX,
     "cell"},
    {"global_index of a rank outside the communicator", run_query,
     Q(Q_GLOBAL_INDEX_RANK), DARRAY_EINDEX, "rank"},
    {"file_offset with offset NULL", run_query, Q(Q_FILE_OFFSET_NULL),
     DARRAY_ENULL, "offset"},
    /* opening files */
    {"path is NULL", run_open, O(O_PATH_NULL), DARRAY_ENULL, "path"},
    {"the output file handle is NULL", run_open, O(O_OUT_NULL), DARRAY_ENULL,
     "output handle"},
    {"mode 0", run_open, O(O_MODE_ZERO), DARRAY_EMODE, "mode"},
    {"mode RDONLY | RDWR", run_open, O(O_MODE_BOTH), DARRAY_EMODE, "mode"},
    {"mode RDONLY | CREATE", run_open, O(O_MODE_RO_CREATE), DARRAY_EMODE,
     "CREATE"},
    {"mode RDONLY | TRUNC", run_open, O(O_MODE_RO_TRUNC), DARRAY_EMODE,
     "TRUNC"},
    {"a mode bit that does not exist", run_open, O(O_MODE_UNKNOWN_BIT),
     DARRAY_EMODE, "mode"},
    {"open over MPI_COMM_NULL", run_open, O(O_COMM_NULL), DARRAY_ECOMM, "comm"},
    {"a file that does not exist, without CREATE", run_open, O(O_MISSING),
     DARRAY_ENOENT, "missing.dat|rank 0"},
    {"a file in a directory that does not exist", run_open, O(O_MISSING_DIR),
     DARRAY_ENOENT, "file.dat|rank 0"},
    {"a directory", run_open, O(O_DIRECTORY), DARRAY_EISDIR, "directory"},
    {"a read-only file opened RDWR", run_open, O(O_READ_ONLY), DARRAY_EACCESS,
     "readonly.dat|rank 0"},
    {"ranks pass different paths", run_open, O(O_PATHS_DIFFER),
     DARRAY_EINCONSISTENT, "paths"},
    {"ranks pass different modes", run_open, O(O_MODES_DIFFER),
     DARRAY_EINCONSISTENT, "modes"},
    /* hints */
    {"DARRAYIO_HINTS: an unknown key", run_hints,
     H(.env = "cb_nodes=1;no_such_hint=3"), DARRAY_EHINT, "no_such_hint"},
    {"DARRAYIO_HINTS: an item without '='", run_hints,
     H(.env = "cb_buffer_size"), DARRAY_EHINT, "cb_buffer_size"},
    {"DARRAYIO_HINTS: a size that is not a number", run_hints,
     H(.env = "cb_buffer_size=12q"), DARRAY_EHINT, "cb_buffer_size"},
    {"DARRAYIO_HINTS: a negative size", run_hints,
     H(.env = "ind_rd_buffer_size=-4096"), DARRAY_EHINT, "ind_rd_buffer_size"},
    {"DARRAYIO_HINTS: a size above its range", run_hints,
     H(.env = "cb_buffer_size=2g"), DARRAY_EHINT, "cb_buffer_size"},
    {"DARRAYIO_HINTS: a size that overflows with its suffix", run_hints,
     H(.env = "striping_unit=99999999999999g"), DARRAY_EHINT, "striping_unit"},
    {"DARRAYIO_HINTS: a value not in the enumeration", run_hints,
     H(.env = "darray_strategy=fastest"), DARRAY_EHINT, "darray_strategy"},
    {"DARRAYIO_HINTS: an empty value", run_hints, H(.env = "darray_backend="),
     DARRAY_EHINT, "darray_backend"},
    {"DARRAYIO_HINTS: empty items are ignored (documented)", run_hints,
     H(.env = " ; ;cb_nodes=1;"), DARRAY_SUCCESS, NULL},
    {"MPI_Info: a malformed value of a known key", run_hints,
     H(.key = "ind_wr_buffer_size", .value = "lots"), DARRAY_EHINT,
     "ind_wr_buffer_size"},
    {"MPI_Info: an unknown key is ignored (documented)", run_hints,
     H(.key = "romio_no_such_thing", .value = "x"), DARRAY_SUCCESS, NULL},
    {"ranks pass different hints", run_hints,
     H(.env = "cb_nodes=1", .differ = true), DARRAY_EINCONSISTENT, "hints"},
    {"DARRAYIO_FAULT: malformed", run_hints, H(.fault = "op=write,index=x"),
     DARRAY_EHINT, "DARRAYIO_FAULT"},
    /* reading and writing */
    {"write on a file opened read-only", run_xfer, X(X_WRITE_READONLY),
     DARRAY_EMODE, "read-only"},
    {"read an array longer than the file", run_xfer, X(X_READ_SHORT),
     DARRAY_EEOF, NULL},
    {"read with the array displaced past the end", run_xfer, X(X_READ_PAST_END),
     DARRAY_EEOF, NULL},
    {"write with buf NULL on rank 1 only", run_xfer, X(X_WRITE_NULL_ONE_RANK),
     DARRAY_ENULL, "buf|rank 1"},
    {"read with buf NULL on rank 0 only", run_xfer, X(X_READ_NULL_ONE_RANK),
     DARRAY_ENULL, "buf|rank 0"},
    {"write an uncommitted array", run_xfer, X(X_WRITE_UNCOMMITTED),
     DARRAY_ESTATE, "committed"},
    {"write an array over another communicator", run_xfer,
     X(X_WRITE_OTHER_COMM), DARRAY_ECOMM, "communicators"},
    {"ranks pass different displacements", run_xfer, X(X_WRITE_DISP_DIFFER),
     DARRAY_EINCONSISTENT, "displacements"},
    {"ranks pass different arrays", run_xfer, X(X_WRITE_ARRAYS_DIFFER),
     DARRAY_EINCONSISTENT, "array descriptions"},
    {"displacement + array bytes overflows 64 bits", run_xfer,
     X(X_WRITE_END_OVERFLOWS), DARRAY_ESIZE, "overflows"},
    {"write through a NULL file handle", run_xfer, X(X_WRITE_NULL_FILE),
     DARRAY_EBADHANDLE, "NULL"},
    {"read into a NULL array handle", run_xfer, X(X_READ_NULL_ARRAY),
     DARRAY_EBADHANDLE, "NULL"},
    {"write through a closed file handle", run_xfer, X(X_WRITE_CLOSED_FILE),
     DARRAY_EBADHANDLE, "not live"},
    {"get_hint of an unknown key", run_xfer, X(X_HINT_UNKNOWN_KEY),
     DARRAY_EHINT, "no_such_hint"},
    {"get_hint into a buffer too small", run_xfer, X(X_HINT_LEN), DARRAY_EINVAL,
     "len"},
    {"get_stats with stats NULL", run_xfer, X(X_STATS_NULL), DARRAY_ENULL,
     "stats"},
    {"two-phase with elements of 2^31 + 7 bytes", run_huge_element, NULL,
     DARRAY_ELIMIT, "2147483655-byte elements"},
    /* the storage advisor: process counts that MPI cannot take */
    {"advisor: a consumer on 2^31 - 1 processes", run_advise,
     INTS(2147483647), DARRAY_EGRID, "consumers[0] (big): nprocs"},
    {"advisor: a consumer on 2^24 + 1 processes", run_advise,
     INTS((1 << 24) + 1), DARRAY_EGRID, "DARRAY_ADVISE_MAX_NPROCS"},
    /* hostile datasets (badinput_dataset.h): every rank gets the code */
    {".npz cut inside its end record", run_dataset, DS(DS_TRUNC_END),
     DARRAY_EFORMAT, "no end of central directory"},
    {".npz cut in the middle of its members", run_dataset, DS(DS_TRUNC_HALF),
     DARRAY_EFORMAT, "no end of central directory"},
    {".npz of zero bytes", run_dataset, DS(DS_EMPTY), DARRAY_EFORMAT,
     "too short"},
    {".npz central directory past the end of the file", run_dataset,
     DS(DS_CD_OUTSIDE), DARRAY_EFORMAT, "outside the file"},
    {".npz central directory larger than the file", run_dataset,
     DS(DS_CD_SIZE), DARRAY_EFORMAT, "outside the file"},
    {".npz with 65534 entries in a directory of three", run_dataset,
     DS(DS_COUNT), DARRAY_EFORMAT, "disagree"},
    {".npz local header inside the central directory", run_dataset,
     DS(DS_LH_OUTSIDE), DARRAY_EFORMAT, "outside the members"},
    {".npz member named '/'", run_dataset, DS(DS_NAME_SLASH), DARRAY_EFORMAT,
     "entry name '/'"},
    {".npz member named '..'", run_dataset, DS(DS_NAME_DOTDOT),
     DARRAY_EFORMAT, "entry name '..'"},
    {".npz members that overlap", run_dataset, DS(DS_OVERLAP), DARRAY_EFORMAT,
     "overlap"},
    {".npz compressed member", run_dataset, DS(DS_COMPRESSED), DARRAY_ENOTSUP,
     "compressed"},
    {".npz member of shape (2^62, 4)", run_dataset, DS(DS_SHAPE_HUGE),
     DARRAY_EFORMAT, "overflow 64 bits"},
    {".npz member of shape (-8,)", run_dataset, DS(DS_SHAPE_NEG),
     DARRAY_EFORMAT, "shape is not a tuple of integers"},
    {".npz member of 9 dimensions", run_dataset, DS(DS_SHAPE_9D),
     DARRAY_ENOTSUP, "9 dimensions, more than 8"},
    {".npz member whose .npy header says 65535 bytes", run_dataset,
     DS(DS_HDR_LEN), DARRAY_EFORMAT, "(65545 bytes with the prefix)"},
    {".npy version 2 with a 2^31-byte header", run_dataset,
     DS(DS_NPY_V2_HUGE), DARRAY_EFORMAT, "more than"},
    {".npy cut inside its data", run_dataset, DS(DS_NPY_TRUNC),
     DARRAY_EFORMAT, "truncated"},
    {".npy without its magic", run_dataset, DS(DS_NPY_NOT), DARRAY_EFORMAT,
     "magic"},
};
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* ---- running the table ----------------------------------------------------
 */

/* Whether msg names `word`; "a|b": the failing ranks name a, the others
 * b (for rows where only some ranks pass the bad input). */
static bool names(const char *msg, const char *word) {
  char w[128];
  snprintf(w, sizeof w, "%s", word);
  char *bar = strchr(w, '|');
  if (bar == NULL)
    return strstr(msg, w) != NULL;
  *bar = '\0';
  return strstr(msg, w) != NULL || strstr(msg, bar + 1) != NULL;
}

static void check_files(env_t *e, const char *what) {
  const char *paths[3] = {e->data, e->shortf, e->rofile};
  MPI_Barrier(MPI_COMM_WORLD);
  if (e->me == 0)
    for (int i = 0; i < 3; i++) {
      int64_t n = -1;
      unsigned char *got = tu_read_file(paths[i], &n);
      if (!TU_EQ_I64(n, e->img_len[i]) ||
          tu_compare_bytes(got, e->img[i], n, paths[i]) != 0)
        fprintf(stderr, "  (after: %s)\n", what);
      free(got);
    }
  MPI_Barrier(MPI_COMM_WORLD);
}

static int run_row(env_t *e, const row_t *r) {
  e->msg[0] = '\0';
  int rc = r->run(e, r->arg);
  int na = rc == NA, any = 0;
  MPI_Allreduce(&na, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  TU_EQ_INT(na, any); /* every rank agrees the row applies */
  if (any) {
    tu_skip_part(r->what, "not applicable at this process count");
    return 0;
  }
  int v[2] = {rc, -rc}, m[2];
  MPI_Allreduce(v, m, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  bool ok = TU_EQ_INT(m[0], -m[1]); /* the same code everywhere */
  ok &= TU_EQ_CODE(rc, r->expect);
  if (r->expect != DARRAY_SUCCESS) {
    ok &= TU_CHECK(e->msg[0] != '\0');
    if (r->word != NULL && !names(e->msg, r->word)) {
      ok = false;
      TU_FAIL("the message does not name '%s'", r->word);
    }
  }
  if (!ok)
    fprintf(stderr, "  [rank %d] row \"%s\": %s: \"%s\"\n", e->me, r->what,
            darray_err_name(rc), e->msg);
  else if (getenv("BADINPUT_VERBOSE") && e->me == 0)
    printf("  ok  %-60s %s: %s\n", r->what, darray_err_name(rc), e->msg);
  check_files(e, r->what);
  return 1;
}

static bool make_files(env_t *e) {
  if (tu_tmpname(e->dir, sizeof e->dir, "darray_badinput") == NULL)
    return false;
  snprintf(e->data, sizeof e->data, "%s/data.dat", e->dir);
  snprintf(e->shortf, sizeof e->shortf, "%s/short.dat", e->dir);
  snprintf(e->rofile, sizeof e->rofile, "%s/readonly.dat", e->dir);
  snprintf(e->missing, sizeof e->missing, "%s/missing.dat", e->dir);
  snprintf(e->nodir, sizeof e->nodir, "%s/nodir/file.dat", e->dir);
  e->img_len[0] = DATA_BYTES;
  e->img_len[1] = SHORT_BYTES;
  e->img_len[2] = 64;
  for (int i = 0; i < 3; i++)
    tu_fill_bytes(e->img[i], e->img_len[i], 0xbad0 + (uint64_t)i, 0);
  int ok = 1;
  if (e->me == 0) {
    ok = mkdir(e->dir, 0755) == 0 || errno == EEXIST;
    ok = ok && chmod(e->dir, 0755) == 0;
    const char *paths[3] = {e->data, e->shortf, e->rofile};
    for (int i = 0; ok && i < 3; i++) {
      chmod(paths[i], 0644);
      ok = tu_write_file(paths[i], e->img[i], e->img_len[i]) == 0;
    }
    ok = ok && chmod(e->rofile, 0444) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return TU_CHECK(ok);
}

static void remove_files(env_t *e) {
  if (e->me == 0) {
    remove(e->data);
    remove(e->shortf);
    remove(e->rofile);
    remove(e->dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  env_t e;
  memset(&e, 0, sizeof e);
  e.P = tu_nprocs();
  e.me = tu_rank();
  unsetenv("DARRAYIO_HINTS");
  unsetenv("DARRAYIO_FAULT");
  if (!make_files(&e) || !ds_make(e.dir))
    return tu_finish();
  int tried = 0;
  for (int i = 0; i < NROWS; i++)
    tried += run_row(&e, &rows[i]);
  if (e.me == 0)
    printf("test_badinput: P=%d: %d rows, %d inputs tried, %d not "
           "applicable here\n",
           e.P, NROWS, tried, NROWS - tried);
  ds_remove();
  remove_files(&e);
  return tu_finish();
}
