/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_batch.c - requests queued together share their agreement
 * rounds (darray_async = thread, src/async/async_batch.c).
 *
 * The I/O thread is held (the library's test hook darray__async_hold)
 * while K requests are posted, so that every process's thread finds all
 * of them queued: the batch decision is then the same in every run. The
 * rounds are counted by the library (darray__async_rounds): the begin and
 * end agreements of read and write calls on a file.
 *
 * The oracle is a closed form: array k's element (i, j) holds
 * tu_value(seed k, i * G1 + j), arrays stored in C order one after
 * another (gaps of BG bytes between them), so rank 0 checks every byte of
 * a written file with stdio; local buffers come from blocking reads of a
 * reference file rank 0 wrote with stdio, and requested reads must give
 * the same bytes. The arrays have different distributions.
 *
 *  - K whole-array writes, then K reads, posted held and completed by
 *    darray_wait_all: the bytes of the file and of the reads; 3 rounds for
 *    each batch (2K for K blocking calls, counted too);
 *  - a read of bytes a write before it writes is not in the write's
 *    batch (5 rounds for write, read, write; 3 if it were) and sees them;
 *  - a section among them: it runs with the requests behind it (its own
 *    begin, a section's two agreements, leads the batch), the request
 *    before it alone: 6 rounds for 4 requests (9 without batches);
 *  - a bad argument on one process in the third request of a batch
 *    (buf NULL where the rank owns elements): that request's wait fails
 *    with DARRAY_ENULL on every process with the failing rank's message,
 *    the others write their arrays, the third's bytes stay untouched;
 *  - with fault injection: the third request's transfer fails on the
 *    last rank (its first write call); its wait reports EIO everywhere,
 *    the other requests (reads) give their bytes;
 *  - the extents of a batch stay within the largest buffer hint: room
 *    for two arrays makes three batches of six writes (9 rounds);
 *  - darray_async=files: no batches, 2 rounds per request.
 * Run: mpiexec -n 1..4 ./test_async_batch
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the library's test hooks (src/async/async.h) */
int64_t darray__async_rounds(const struct darray_file_s *f);
void darray__async_hold(bool on);

#define G0 17
#define G1 13
#define BG 0x5a
#define K 6

static int64_t disp_of(int k) { return k * (G0 * G1 * 8 + 24); }
static uint64_t seed_of(int k) { return 77 + (uint64_t)k; }

/* Array k: a distribution of its own among BLOCK, CYCLIC(k), NONE. */
static darray_t make_array(int k) {
  static const darray_dist_t d[4][2] = {
      {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK},
      {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK},
      {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC},
      {DARRAY_DIST_CYCLIC, DARRAY_DIST_NONE}};
  int64_t g[2] = {G0, G1}, dargs[2];
  for (int j = 0; j < 2; j++) /* CYCLIC(1), (2), (3); BLOCK as it comes */
    dargs[j] = d[k % 4][j] == DARRAY_DIST_CYCLIC ? 1 + k % 3
                                                 : DARRAY_DEFAULT_ARG;
  int grid[2] = {0, 0}, P = tu_nprocs();
  if (k % 4 == 3)
    grid[1] = 1;
  MPI_Dims_create(P, 2, grid);
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT64, &a)) ||
      !TU_OK(darray_set_distribution(a, d[k % 4], dargs)) ||
      !TU_OK(darray_set_grid(a, grid)) ||
      !TU_OK(darray_set_displacement(a, disp_of(k))) ||
      !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* The file of K arrays, BG between them. */
static const tu_arrays_t file_layout = {K, G0 * G1, G0 * G1 * 8 + 24, 77,
                                        BG};

static void write_reference(const char *path, const bool *want) {
  tu_arrays_write(&file_layout, path, want);
}

static void check_file(const char *path, const bool *want, const char *what) {
  tu_arrays_check(&file_layout, path, want, what);
}

/* hints: those given, darray_async=thread unless they say */
static darray_file_t open_file(const char *path, const char *hints) {
  char h[256];
  bool mode = strstr(hints, "darray_async") != NULL;
  snprintf(h, sizeof h, "%s%s%s", hints, hints[0] && !mode ? ";" : "",
           mode ? "" : "darray_async=thread");
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  return f;
}

typedef struct {
  darray_t a[K];
  int64_t *buf[K], *back[K], bytes[K];
  int64_t st[2], ct[2], *sec; /* post_mixed's section */
  char ref[600], path[600];
} fixture_t;

/* The arrays, and their local parts read from the reference file. */
static void setup(fixture_t *t, const char *dir) {
  bool all[K];
  for (int k = 0; k < K; k++)
    all[k] = true;
  snprintf(t->ref, sizeof t->ref, "%s_ref", dir);
  snprintf(t->path, sizeof t->path, "%s_out", dir);
  write_reference(t->ref, all);
  darray_file_t fr = open_file(t->ref, "");
  for (int k = 0; k < K; k++) {
    t->a[k] = make_array(k);
    darray_local_bytes(t->a[k], &t->bytes[k]);
    t->buf[k] = calloc(1, (size_t)t->bytes[k] + 8);
    t->back[k] = calloc(1, (size_t)t->bytes[k] + 8);
    TU_OK(darray_read(fr, t->a[k], t->buf[k]));
  }
  darray_file_close(&fr);
  int P = tu_nprocs(), me = tu_rank();
  t->st[0] = G0 * me / P;
  t->ct[0] = G0 * (me + 1) / P - t->st[0];
  t->st[1] = 0;
  t->ct[1] = G1;
  t->sec = malloc(sizeof *t->sec * (size_t)(t->ct[0] * G1 + 1));
  for (int64_t e = 0; e < t->ct[0] * G1; e++)
    t->sec[e] = (int64_t)tu_value(seed_of(1), t->st[0] * G1 + e);
}

static void teardown(fixture_t *t) {
  for (int k = 0; k < K; k++) {
    darray_free(&t->a[k]);
    free(t->buf[k]);
    free(t->back[k]);
  }
  free(t->sec);
  tu_remove(t->path);
  tu_remove(t->ref);
}

/* Post n requests with the I/O thread held, release it, wait for all;
 * the rounds they took. */
typedef int (*post_fn)(fixture_t *t, darray_file_t f, int i,
                       darray_request_t *r);

static int64_t held_batch(fixture_t *t, darray_file_t f, int n, post_fn post,
                          int *codes) {
  darray_request_t req[K];
  int64_t r0 = darray__async_rounds(f);
  darray__async_hold(true);
  for (int i = 0; i < n; i++)
    TU_OK(post(t, f, i, &req[i]));
  darray__async_hold(false);
  int rc = darray_wait_all(f, n, req, codes);
  if (rc != DARRAY_SUCCESS)
    fprintf(stderr, "rank %d: %s\n", tu_rank(), darray_file_errmsg(f));
  return darray__async_rounds(f) - r0;
}

static int post_write(fixture_t *t, darray_file_t f, int i,
                      darray_request_t *r) {
  return darray_iwrite(f, t->a[i], t->buf[i], r);
}

static int post_read(fixture_t *t, darray_file_t f, int i,
                     darray_request_t *r) {
  memset(t->back[i], 0, (size_t)t->bytes[i]);
  return darray_iread(f, t->a[i], t->back[i], r);
}

/* Request 1 of 4 is a section write of array 1 (its whole box split by
 * rows among the processes). */
static int post_mixed(fixture_t *t, darray_file_t f, int i,
                      darray_request_t *r) {
  if (i != 1)
    return darray_iwrite(f, t->a[i], t->buf[i], r);
  return darray_iwrite_section(f, t->a[1], t->st, t->ct, DARRAY_ORDER_C,
                               t->sec, r);
}

/* Write array 0, read it back, write array 1. */
static int post_hazard(fixture_t *t, darray_file_t f, int i,
                       darray_request_t *r) {
  return i == 1 ? post_read(t, f, 0, r) : post_write(t, f, i / 2, r);
}

static void whole_arrays(fixture_t *t, const char *hints) {
  bool none[K] = {false}, all[K];
  char what[200];
  for (int k = 0; k < K; k++)
    all[k] = true;
  write_reference(t->path, none);
  darray_file_t f = open_file(t->path, hints);
  int codes[K];
  snprintf(what, sizeof what, "batched writes (%s)", hints);
  TU_EQ_I64(held_batch(t, f, K, post_write, codes), 3);
  for (int k = 0; k < K; k++)
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
  check_file(t->path, all, what);
  TU_EQ_I64(held_batch(t, f, K, post_read, codes), 3);
  snprintf(what, sizeof what, "batched reads (%s)", hints);
  for (int k = 0; k < K; k++)
    TU_CHECK(tu_compare_bytes(t->back[k], t->buf[k], t->bytes[k], what) ==
             0);
  /* a read after a write of the same bytes starts a batch of its own:
   * the write alone (2 rounds), then the read with the next write (3) */
  TU_EQ_I64(held_batch(t, f, 3, post_hazard, codes), 5);
  snprintf(what, sizeof what, "a read after a write in a batch (%s)",
           hints);
  TU_CHECK(tu_compare_bytes(t->back[0], t->buf[0], t->bytes[0], what) == 0);
  /* blocking calls: two rounds each */
  int64_t r0 = darray__async_rounds(f);
  for (int k = 0; k < K; k++)
    TU_OK(darray_write(f, t->a[k], t->buf[k]));
  TU_EQ_I64(darray__async_rounds(f) - r0, 2 * K);
  /* a section leads the batch of the requests behind it */
  write_reference(t->path, none);
  TU_EQ_I64(held_batch(t, f, 4, post_mixed, codes), 6);
  bool four[K] = {true, true, true, true, false, false};
  snprintf(what, sizeof what, "a batch with a section (%s)", hints);
  check_file(t->path, four, what);
  TU_OK(darray_file_close(&f));
}

/* Request 2 of K: buf NULL on the last rank. */
static int post_bad(fixture_t *t, darray_file_t f, int i,
                    darray_request_t *r) {
  bool bad = i == 2 && tu_rank() == tu_nprocs() - 1;
  return darray_iwrite(f, t->a[i], bad ? NULL : t->buf[i], r);
}

static void bad_argument(fixture_t *t) {
  bool none[K] = {false}, want[K];
  write_reference(t->path, none);
  darray_file_t f = open_file(t->path, "");
  darray_request_t req[K];
  int64_t r0 = darray__async_rounds(f);
  darray__async_hold(true);
  for (int i = 0; i < K; i++)
    TU_OK(post_bad(t, f, i, &req[i]));
  darray__async_hold(false);
  for (int i = 0; i < K; i++) { /* each wait: that request's result */
    int rc = darray_wait(f, &req[i]);
    want[i] = i != 2;
    if (i != 2) {
      TU_EQ_CODE(rc, DARRAY_SUCCESS);
      TU_EQ_STR(darray_file_errmsg(f), "");
      continue;
    }
    TU_EQ_CODE(rc, DARRAY_ENULL);
    tu_expect_failure_messages(darray_file_errmsg(f), "buf is NULL",
                               NULL, "batch, request 2");
  }
  /* the first begin, the others', the results of the five that ran */
  TU_EQ_I64(darray__async_rounds(f) - r0, 3);
  TU_OK(darray_file_close(&f));
  check_file(t->path, want, "a batch with a bad argument");
}

/* Request 2 of 4 (the only write) fails in its transfer on the last rank. */
static int post_fault(fixture_t *t, darray_file_t f, int i,
                      darray_request_t *r) {
  if (i == 2)
    return darray_iwrite(f, t->a[i], t->buf[i], r);
  return post_read(t, f, i, r);
}

static void transfer_fault(fixture_t *t) {
  if (!tu_fault_injection()) {
    tu_skip_part("transfer fault in a batch", "no --enable-fault-injection");
    return;
  }
  bool all[K];
  for (int k = 0; k < K; k++)
    all[k] = true;
  write_reference(t->path, all);
  char rule[80];
  snprintf(rule, sizeof rule, "op=write,index=1,error=EIO,rank=%d",
           tu_nprocs() - 1);
  setenv("DARRAYIO_FAULT", rule, 1);
  darray_file_t f = open_file(t->path, "darray_strategy=direct");
  unsetenv("DARRAYIO_FAULT");
  darray_request_t req[4];
  int64_t r0 = darray__async_rounds(f);
  darray__async_hold(true);
  for (int i = 0; i < 4; i++)
    TU_OK(post_fault(t, f, i, &req[i]));
  darray__async_hold(false);
  for (int i = 0; i < 4; i++) {
    int rc = darray_wait(f, &req[i]);
    if (i != 2) {
      TU_EQ_CODE(rc, DARRAY_SUCCESS);
      TU_CHECK(tu_compare_bytes(t->back[i], t->buf[i], t->bytes[i],
                                "reads in a batch with a fault") == 0);
      continue;
    }
    TU_EQ_CODE(rc, DARRAY_EIO);
    tu_expect_failure_messages(darray_file_errmsg(f), "input/output",
                               "darray_iwrite", "batch, transfer fault");
  }
  TU_EQ_I64(darray__async_rounds(f) - r0, 3);
  TU_OK(darray_file_close(&f));
}

/* A batch's extents stay within the largest buffer hint: with room for
 * two arrays, six writes go in three batches of two (9 rounds). */
static void bounded(fixture_t *t) {
  bool none[K] = {false}, all[K];
  for (int k = 0; k < K; k++)
    all[k] = true;
  write_reference(t->path, none);
  char h[160];
  int64_t room = 2 * G0 * G1 * 8 + 8; /* two arrays, not three */
  snprintf(h, sizeof h, "cb_buffer_size=%lld;ind_rd_buffer_size=%lld;"
           "ind_wr_buffer_size=%lld", (long long)room, (long long)room,
           (long long)room);
  darray_file_t f = open_file(t->path, h);
  int codes[K];
  TU_EQ_I64(held_batch(t, f, K, post_write, codes), 9);
  TU_OK(darray_file_close(&f));
  check_file(t->path, all, "batches bounded by the buffer hints");
}

/* darray_async=files does not batch (async_batch.c says why): two rounds
 * per request, however they are posted. */
static void files_mode(fixture_t *t) {
  bool all[K];
  for (int k = 0; k < K; k++)
    all[k] = true;
  write_reference(t->path, all);
  darray_file_t f = open_file(t->path, "darray_async=files");
  darray_request_t req[K];
  int64_t r0 = darray__async_rounds(f);
  for (int i = 0; i < K; i++)
    TU_OK(post_read(t, f, i, &req[i]));
  TU_OK(darray_wait_all(f, K, req, NULL));
  TU_EQ_I64(darray__async_rounds(f) - r0, 2 * K);
  for (int k = 0; k < K; k++)
    TU_CHECK(tu_compare_bytes(t->back[k], t->buf[k], t->bytes[k],
                              "reads, darray_async=files") == 0);
  TU_OK(darray_file_close(&f));
}

int main(int argc, char **argv) {
  int got = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  if (got < MPI_THREAD_MULTIPLE)
    return tu_skip("batches need MPI_THREAD_MULTIPLE");
  char dir[256];
  if (tu_tmpname(dir, sizeof dir, "darray_batch") == NULL)
    return tu_finish();
  fixture_t t;
  setup(&t, dir);
  whole_arrays(&t, "");
  whole_arrays(&t, "darray_strategy=twophase;cb_buffer_size=512");
  whole_arrays(&t, "darray_strategy=sieve;ind_wr_buffer_size=100");
  bad_argument(&t);
  transfer_fault(&t);
  bounded(&t);
  files_mode(&t);
  teardown(&t);
  return tu_finish();
}
