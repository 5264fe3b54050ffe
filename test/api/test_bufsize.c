/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_bufsize.c - buffers of the wrong size (issue #38): darray_xfer
 * checks the size its caller gives a buffer before any byte moves.
 *
 * The array: int64 elements, (4P x 6) in BLOCK rows, each process's
 * 4 x 6 piece in a C-order buffer with one ghost cell on every side
 * (darray_local_bytes: 6 x 8 elements, 384 bytes). Every buffer is
 * allocated with exactly the size the call is told, so a byte moved past
 * it is a heap error (run once under valgrind or the sanitizer build:
 * DARRAY_TEST_VALGRIND, or by hand).
 *
 * For every kind of call (whole array and section; blocking, posted and
 * buffered; write and read) with a buffer one byte short on the last
 * process only, then on every process:
 *  - every process gets DARRAY_EBUFSIZE (the posted ones at their wait);
 *  - the short process's message names both sizes and the call, the
 *    others say which rank failed;
 *  - the file is unchanged, byte for byte (a pattern written before).
 * Then: a negative size and a how that names no call are DARRAY_EINVAL
 * everywhere; a binding's refusal (args.refuse) is agreed on with its
 * message; a buffer of exactly the size and one larger write the array
 * (the file equals the serial reference) and read it back.
 *
 * Run: mpiexec -n 2 ./test_bufsize
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 4 /* per process */
#define COLS 6
#define SEED 38

typedef struct env {
  int P, me;
  char path[600];
  darray_file_t f;
  darray_t a;
  int64_t gbytes, local;
  unsigned char *before; /* the file's pattern */
} env_t;

/* Element (r, c) of the global array in the reference file. */
static int64_t value(int64_t r, int64_t c) {
  return (int64_t)(tu_value(SEED, r * COLS + c) >> 1);
}

static void check_file(const env_t *e, const unsigned char *want,
                       const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (e->me == 0) {
    int64_t n = 0;
    unsigned char *got = tu_read_file(e->path, &n);
    TU_EQ_I64(n, e->gbytes);
    if (got != NULL && n == e->gbytes)
      tu_compare_bytes(got, want, n, what);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The kinds of call, as darray_xfer's how. */
static const unsigned kinds[] = {
    DARRAY_XFER_WRITE,
    DARRAY_XFER_READ,
    DARRAY_XFER_WRITE | DARRAY_XFER_SECTION,
    DARRAY_XFER_READ | DARRAY_XFER_SECTION,
    DARRAY_XFER_WRITE | DARRAY_XFER_POST,
    DARRAY_XFER_READ | DARRAY_XFER_POST,
    DARRAY_XFER_WRITE | DARRAY_XFER_POST | DARRAY_XFER_BUFFERED,
    DARRAY_XFER_WRITE | DARRAY_XFER_SECTION | DARRAY_XFER_POST,
    DARRAY_XFER_READ | DARRAY_XFER_SECTION | DARRAY_XFER_POST,
    DARRAY_XFER_WRITE | DARRAY_XFER_SECTION | DARRAY_XFER_POST |
        DARRAY_XFER_BUFFERED};

/* One call of kind how over this process's rows with a buffer of nbytes
 * (allocated exactly so) filled with its values; the code every process
 * gets, its message into msg. */
static int call(env_t *e, unsigned how, int64_t nbytes, int refuse,
                const char *why, char *msg, size_t n) {
  int64_t start[2] = {(int64_t)e->me * ROWS, 0}, count[2] = {ROWS, COLS};
  unsigned char *buf = malloc(nbytes > 0 ? (size_t)nbytes : 1);
  tu_fill_bytes(buf, nbytes, SEED + 1, 0);
  darray_request_t req = DARRAY_REQUEST_NULL;
  darray_xfer_args_t args = {.how = how, .start = start, .count = count,
                             .order = DARRAY_ORDER_C, .buf = buf,
                             .nbytes = nbytes, .req = &req,
                             .refuse = refuse, .why = why};
  int rc = darray_xfer(e->f, e->a, &args);
  if (how & DARRAY_XFER_POST) {
    TU_OK(rc);
    rc = darray_wait(e->f, &req);
  }
  snprintf(msg, n, "%s", darray_file_errmsg(e->f));
  free(buf);
  return rc;
}

/* A code and a message as the contract asks, on every process. */
static void expect(env_t *e, int rc, int want, const char *msg, bool mine,
                   const char *words, const char *what) {
  char line[700];
  snprintf(line, sizeof line, "%s: rc %s, message '%s'", what,
           darray_err_name(rc), msg);
  if (!TU_EQ_CODE(rc, want))
    TU_FAIL("%s", line);
  if (mine && strstr(msg, words) == NULL)
    TU_FAIL("%s: wants '%s'", line, words);
  if (!mine && strstr(msg, "failed on rank") == NULL)
    TU_FAIL("%s: wants 'failed on rank'", line);
  int64_t codes[2] = {rc, -rc}, all[2];
  MPI_Allreduce(codes, all, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  TU_EQ_I64(all[0], -all[1]); /* the same code everywhere */
  (void)e;
}

/* Every kind, one byte short on the last process or on all. */
static void short_buffers(env_t *e) {
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (int everyone = 0; everyone < 2; everyone++) {
      unsigned how = kinds[k];
      bool section = how & DARRAY_XFER_SECTION;
      int64_t need = section ? ROWS * COLS * 8 : e->local;
      bool mine = everyone || e->me == e->P - 1;
      char msg[600], what[160], words[120];
      snprintf(what, sizeof what, "how %#x, short on %s", how,
               everyone ? "every process" : "the last process");
      int rc = call(e, how, mine ? need - 1 : need, 0, NULL, msg,
                    sizeof msg);
      snprintf(words, sizeof words, "buf holds %lld bytes, but darray_",
               (long long)(need - 1));
      expect(e, rc, DARRAY_EBUFSIZE, msg, mine, words, what);
      snprintf(words, sizeof words, "needs %lld", (long long)need);
      if (mine && strstr(msg, words) == NULL)
        TU_FAIL("%s: '%s' wants '%s'", what, msg, words);
      check_file(e, e->before, what);
    }
}

/* What is refused as an argument, on one process. */
static void refusals(env_t *e) {
  bool last = e->me == e->P - 1;
  char msg[600];
  int rc = call(e, DARRAY_XFER_WRITE, last ? -5 : e->local, 0, NULL, msg,
                sizeof msg);
  expect(e, rc, DARRAY_EINVAL, msg, last, "nbytes = -5", "nbytes < 0");
  rc = call(e, DARRAY_XFER_WRITE | (last ? DARRAY_XFER_BUFFERED : 0),
            e->local, 0, NULL, msg, sizeof msg);
  expect(e, rc, DARRAY_EINVAL, msg, last, "BUFFERED needs POST",
         "buffered without post");
  rc = call(e, DARRAY_XFER_WRITE | DARRAY_XFER_SECTION, ROWS * COLS * 8,
            last ? DARRAY_EINVAL : 0, "start has 1 entries", msg,
            sizeof msg);
  expect(e, rc, DARRAY_EINVAL, msg, last, "start has 1 entries",
         "a binding's refusal");
  check_file(e, e->before, "refusals");
}

/* The serial reference: the whole array in C order. */
static unsigned char *reference(const env_t *e) {
  unsigned char *ref = malloc((size_t)e->gbytes);
  for (int64_t r = 0; r < (int64_t)ROWS * e->P; r++)
    for (int64_t c = 0; c < COLS; c++) {
      int64_t v = value(r, c);
      memcpy(ref + (r * COLS + c) * 8, &v, 8);
    }
  return ref;
}

/* The local buffer (ghosts around the piece) of this process's values;
 * extra bytes more, all allocated. */
static int64_t *local_buffer(const env_t *e, int64_t extra) {
  int64_t *u = malloc((size_t)(e->local + extra));
  memset(u, 0x5a, (size_t)(e->local + extra));
  for (int64_t r = 0; r < ROWS; r++)
    for (int64_t c = 0; c < COLS; c++)
      u[(r + 1) * (COLS + 2) + c + 1] = value(e->me * ROWS + r, c);
  return u;
}

/* Right sizes: exact and larger, write then read back. */
static void right_sizes(env_t *e) {
  unsigned char *ref = reference(e);
  for (int64_t extra = 0; extra <= 8; extra += 8) {
    int64_t *u = local_buffer(e, extra), *back = local_buffer(e, extra);
    darray_xfer_args_t w = {.how = DARRAY_XFER_WRITE, .buf = u,
                            .nbytes = e->local + extra};
    TU_OK(darray_xfer(e->f, e->a, &w));
    check_file(e, ref, extra ? "a larger buffer" : "an exact buffer");
    memset(back, 0, (size_t)(e->local + extra));
    darray_xfer_args_t r = {.how = DARRAY_XFER_READ, .buf = back,
                            .nbytes = e->local + extra};
    TU_OK(darray_xfer(e->f, e->a, &r));
    for (int64_t i = 1; i <= ROWS; i++) /* the interior rows */
      tu_compare_bytes(back + i * (COLS + 2) + 1, u + i * (COLS + 2) + 1,
                       COLS * 8, "read back");
    TU_EQ_I64(back[0], 0); /* a ghost, left alone */
    free(u);
    free(back);
  }
  free(ref);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  env_t e = {.P = tu_nprocs(), .me = tu_rank()};
  int64_t g[2] = {(int64_t)ROWS * e.P, COLS}, ghost[2] = {1, 1};
  darray_dist_t dist[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  int64_t dargs[2] = {DARRAY_DEFAULT_ARG, DARRAY_DEFAULT_ARG};
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT64, &e.a));
  TU_OK(darray_set_distribution(e.a, dist, dargs));
  TU_OK(darray_set_memory_layout(e.a, DARRAY_ORDER_C, ghost, NULL));
  TU_OK(darray_commit(e.a));
  TU_OK(darray_local_bytes(e.a, &e.local));
  TU_EQ_I64(e.local, (ROWS + 2) * (COLS + 2) * 8);
  e.gbytes = g[0] * g[1] * 8;
  if (tu_tmpname(e.path, sizeof e.path, "bufsize") == NULL)
    return tu_finish();
  e.before = malloc((size_t)e.gbytes);
  tu_fill_bytes(e.before, e.gbytes, SEED + 2, 0);
  if (e.me == 0)
    TU_EQ_INT(tu_write_file(e.path, e.before, e.gbytes), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  e.f = tu_open(e.path, NULL, DARRAY_MODE_RDWR);
  if (e.f != NULL) {
    short_buffers(&e);
    refusals(&e);
    right_sizes(&e);
    TU_OK(darray_file_close(&e.f));
  }
  tu_remove(e.path);
  free(e.before);
  darray_free(&e.a);
  return tu_finish();
}
