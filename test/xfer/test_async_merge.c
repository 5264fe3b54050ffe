/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_merge.c - requests of whole arrays stored one right after
 * another, queued together, move as one access (darray_async = thread,
 * src/async/async_merge.c).
 *
 * The I/O thread is held (darray__async_hold) while the requests are
 * posted, so that every process's thread finds all of them queued. The
 * library counts its merged accesses (darray__async_merged) and the
 * agreement rounds of a file (darray__async_rounds).
 *
 * The oracle: array k's element at file position e (storage order) holds
 * tu_value(77 + k, e), arrays one after another from byte 0; rank 0
 * checks every byte of a written file with stdio. The local buffers come
 * from blocking reads of a reference file rank 0 wrote with stdio
 * (ghost cells stay 0), and requested reads into zeroed buffers must give
 * the same bytes, ghosts included.
 *
 * For each description (BLOCK, CYCLIC(k) in Fortran storage order,
 * MULTIPARTITION at a square P), K = 2, 5, 8 arrays alike but for their
 * displacement and their memory layouts (C or Fortran memory order,
 * ghosts or none, by k), and for BLOCK their element types too (int64
 * and double in turn: one size, so they merge), and each strategy forced
 * (with small buffer hints: many cycles and windows) or chosen:
 *  - K darray_iwrite + darray_wait_all: one merged access, 3 rounds,
 *    the file's bytes; then K darray_iread: one merged access, 3 rounds,
 *    the buffers' bytes (forced rows: not merged, K + 3 rounds, the same
 *    bytes);
 *  - different descriptions one after another (BLOCK, then CYCLIC(2) in
 *    Fortran storage order): merged too (test_async_mixed has more);
 * and, not merged, bytes still right:
 *  - a gap: arrays 0 and 2 of a file; posted out of file order;
 *  - a write and a read of the next array;
 *  - a bad argument on one process in request 2 of 4 (buf NULL where
 *    the rank owns elements): that wait fails with DARRAY_ENULL on every
 *    process with the rank's message, the three others write their
 *    arrays one after another, array 2's bytes stay untouched;
 *  - with fault injection: the last rank's first write call fails in a
 *    merged access of 4 writes: every wait reports EIO on every rank,
 *    with the message naming the merged call.
 * Run: mpiexec -n 1..4 ./test_async_merge
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the library's test hooks (src/async/async.h) */
int64_t darray__async_rounds(const struct darray_file_s *f);
int64_t darray__async_merged(void);
int64_t darray__async_ran_here(void);
void darray__async_hold(bool on);

#define KMAX 8
#define N0 6
#define N1 5
#define N2 7
#define ELEMS (N0 * N1 * N2)
#define BYTES (ELEMS * 8)
#define BG 0x5a

enum { D_BLOCK, D_CYCLIC, D_MULTI, NDESC };
static const char *const desc_name[NDESC] = {"BLOCK, C order",
                                             "CYCLIC(2), Fortran order",
                                             "MULTIPARTITION"};

static const tu_arrays_t layout = {KMAX + 1, ELEMS, BYTES, 77, BG};

/* Array k of description which, at displacement slot * BYTES: its memory
 * layout varies with k (ghosts on odd k, Fortran memory order every
 * third). NULL when the description needs another process count. */
static darray_t make_array(int which, int k, int slot) {
  int64_t g[3] = {N0, N1, N2};
  darray_dist_t dist[3];
  int64_t dargs[3] = {DARRAY_DEFAULT_ARG, DARRAY_DEFAULT_ARG,
                      DARRAY_DEFAULT_ARG};
  for (int d = 0; d < 3; d++)
    dist[d] = which == D_BLOCK    ? DARRAY_DIST_BLOCK
              : which == D_MULTI ? DARRAY_DIST_MULTIPARTITION
                                 : (d == 1 ? DARRAY_DIST_BLOCK
                                           : DARRAY_DIST_CYCLIC);
  if (which == D_CYCLIC)
    dargs[0] = dargs[2] = 2;
  int64_t ghost[3] = {k % 2, k % 2, 0};
  darray_t a = NULL;
  darray_type_t type =
      which == D_BLOCK && k % 2 ? DARRAY_DOUBLE : DARRAY_INT64;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, g, type, &a)) ||
      !TU_OK(darray_set_distribution(a, dist, dargs)) ||
      (which == D_CYCLIC &&
       !TU_OK(darray_set_storage_order(a, DARRAY_ORDER_FORTRAN, NULL))) ||
      !TU_OK(darray_set_memory_layout(a, k % 3 == 2 ? DARRAY_ORDER_FORTRAN
                                                    : DARRAY_ORDER_C,
                                      ghost, NULL)) ||
      !TU_OK(darray_set_displacement(a, slot * (int64_t)BYTES)) ||
      !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* The arrays of one description, at slots 0..KMAX, and their local
 * buffers read from the reference file (the storage order is part of
 * the description: a Fortran-order file holds the same values in file
 * order, so the reference file serves every description). */
typedef struct {
  darray_t a[KMAX + 1];
  int64_t bytes[KMAX + 1];
  char *buf[KMAX + 1], *back[KMAX + 1];
} set_t;

static darray_file_t open_file(const char *path, const char *hints) {
  char h[300];
  snprintf(h, sizeof h, "%s%sdarray_async=thread", hints, hints[0] ? ";" : "");
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  return f;
}

static void set_make(set_t *s, int which, const char *ref) {
  darray_file_t fr = open_file(ref, "");
  for (int k = 0; k <= KMAX; k++) {
    s->a[k] = make_array(which, k, k);
    tu_arrays_local(fr, s->a[k], &s->bytes[k], &s->buf[k], &s->back[k]);
  }
  TU_OK(darray_file_close(&fr));
}

static void set_free(set_t *s) {
  for (int k = 0; k <= KMAX; k++) {
    darray_free(&s->a[k]);
    free(s->buf[k]);
    free(s->back[k]);
  }
}

/* Post requests for arrays idx[0..n) (write or read) with the thread
 * held, wait for all; codes[i] each one's result; *rounds and *merged,
 * what they took. */
static void held(set_t *s, darray_file_t f, int n, const int *idx,
                 const bool *write, int *codes, int64_t *rounds,
                 int64_t *merged) {
  darray_request_t req[KMAX + 1];
  int64_t r0 = darray__async_rounds(f), m0 = darray__async_merged();
  darray__async_hold(true);
  for (int i = 0; i < n; i++) {
    int k = idx[i];
    if (write[i]) {
      TU_OK(darray_iwrite(f, s->a[k], s->buf[k], &req[i]));
    } else {
      memset(s->back[k], 0, (size_t)s->bytes[k]);
      TU_OK(darray_iread(f, s->a[k], s->back[k], &req[i]));
    }
  }
  darray__async_hold(false);
  darray_wait_all(f, n, req, codes);
  *rounds = darray__async_rounds(f) - r0;
  *merged = darray__async_merged() - m0;
}

static void check_reads(set_t *s, int n, const int *idx, const bool *write,
                        const char *what) {
  for (int i = 0; i < n; i++)
    if (!write[i])
      TU_CHECK(tu_compare_bytes(s->back[idx[i]], s->buf[idx[i]],
                                s->bytes[idx[i]], what) == 0);
}

/* K writes, then K reads, of arrays 0..K-1 under the hints: merged
 * (one access, 3 rounds), or when a forced strategy does not move merged
 * accesses (rows) one by one (its first request's begin, the others',
 * one each, the results: K + 3 rounds). */
static void merged(set_t *s, const char *path, int K, const char *hints,
                   const char *what) {
  bool merges = strstr(hints, "=rows") == NULL;
  int64_t want_m = merges ? 1 : 0, want_r = merges ? 3 : K + 3;
  bool none[KMAX + 1] = {false}, want[KMAX + 1] = {false};
  bool w[KMAX], r[KMAX];
  int idx[KMAX], codes[KMAX];
  int64_t rounds, m;
  char text[300];
  for (int k = 0; k < K; k++) {
    idx[k] = k;
    w[k] = true;
    r[k] = false;
    want[k] = true;
  }
  tu_arrays_write(&layout, path, none);
  darray_file_t f = open_file(path, hints);
  held(s, f, K, idx, w, codes, &rounds, &m);
  snprintf(text, sizeof text, "%s, K=%d, %s: merged writes", what, K,
           hints);
  for (int k = 0; k < K; k++)
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
  if (m != want_m || rounds != want_r)
    fprintf(stderr, "rank %d: %s: %lld merged, %lld rounds\n", tu_rank(),
            text, (long long)m, (long long)rounds);
  TU_EQ_I64(m, want_m);
  TU_EQ_I64(rounds, want_r);
  tu_arrays_check(&layout, path, want, text);
  held(s, f, K, idx, r, codes, &rounds, &m);
  snprintf(text, sizeof text, "%s, K=%d, %s: merged reads", what, K, hints);
  for (int k = 0; k < K; k++)
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
  TU_EQ_I64(m, want_m);
  TU_EQ_I64(rounds, want_r);
  check_reads(s, K, idx, r, text);
  TU_OK(darray_file_close(&f));
}

/* darray_async_start = wait, half the requests released to the thread by
 * a test, then the other half posted and everything waited for: the
 * thread moves the first half as one access, the wait the second (after
 * the thread is done with the first); both halves' bytes are read back
 * right. */
static void lazy_mixed(set_t *s, darray_file_t f) {
  enum { H = KMAX / 2 };
  darray_request_t req[KMAX];
  int codes[KMAX], flag = 0;
  int64_t m0 = darray__async_merged(), h0 = darray__async_ran_here();
  for (int k = 0; k < KMAX; k++) {
    memset(s->back[k], 0, (size_t)s->bytes[k]);
    TU_OK(darray_iread(f, s->a[k], s->back[k], &req[k]));
    if (k == H - 1) /* releases requests 0..H-1 to the thread */
      TU_OK(darray_test(f, &req[0], &flag));
  }
  TU_OK(darray_wait_all(f, KMAX, req, codes));
  for (int k = 0; k < KMAX; k++)
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
  if (!TU_EQ_I64(darray__async_merged() - m0, 2) |
      !TU_EQ_I64(darray__async_ran_here() - h0, KMAX - H))
    TU_FAIL("darray_async_start=wait, tested then waited: two accesses of "
            "%d expected, the second in the program's thread", H);
  for (int k = 0; k < KMAX; k++)
    TU_CHECK(tu_compare_bytes(s->back[k], s->buf[k], s->bytes[k],
                              "darray_async_start=wait, tested then "
                              "waited") == 0);
}

/* darray_async_start = wait: the thread starts nothing until the program
 * waits (or tests), so K requests posted with the thread free (no hold)
 * still move as one access in 3 rounds, none of them before the wait;
 * the wait runs them in the program's thread (no hand-off); completed by
 * darray_test alone (no wait) they finish too, in the I/O thread. */
static void lazy_start(set_t *s, const char *path) {
  bool none[KMAX + 1] = {false}, want[KMAX + 1] = {false};
  darray_request_t req[KMAX];
  int codes[KMAX];
  tu_arrays_write(&layout, path, none);
  darray_file_t f = open_file(path, "darray_async_start=wait");
  for (int pass = 0; pass < 2; pass++) {
    int64_t r0 = darray__async_rounds(f), m0 = darray__async_merged();
    int64_t h0 = darray__async_ran_here();
    for (int k = 0; k < KMAX; k++) {
      want[k] = true;
      if (pass == 0) {
        TU_OK(darray_iwrite(f, s->a[k], s->buf[k], &req[k]));
      } else {
        memset(s->back[k], 0, (size_t)s->bytes[k]);
        TU_OK(darray_iread(f, s->a[k], s->back[k], &req[k]));
      }
    }
    TU_EQ_I64(darray__async_rounds(f) - r0, 0); /* nothing started */
    if (pass == 0) {
      TU_OK(darray_wait_all(f, KMAX, req, codes));
    } else { /* tests alone make progress */
      for (int k = 0; k < KMAX; k++) {
        int flag = 0;
        while (!flag)
          TU_OK(darray_test(f, &req[k], &flag));
      }
    }
    if (!TU_EQ_I64(darray__async_merged() - m0, 1) |
        !TU_EQ_I64(darray__async_rounds(f) - r0, 3))
      TU_FAIL("darray_async_start=wait, %s: one access of %d expected",
              pass == 0 ? "writes" : "reads", KMAX);
    if (!TU_EQ_I64(darray__async_ran_here() - h0, pass == 0 ? KMAX : 0))
      TU_FAIL("darray_async_start=wait, %s: %s", pass == 0 ? "writes" :
              "reads", pass == 0 ? "the wait runs them itself" :
              "tests leave them to the thread");
  }
  lazy_mixed(s, f);
  TU_OK(darray_file_close(&f));
  tu_arrays_check(&layout, path, want, "darray_async_start=wait");
  for (int k = 0; k < KMAX; k++)
    TU_CHECK(tu_compare_bytes(s->back[k], s->buf[k], s->bytes[k],
                              "darray_async_start=wait, reads") == 0);
}

/* Requests that do not merge (and arrays of different descriptions,
 * which do): their bytes, and whether they moved as one access. */
static void apart(set_t *s, set_t *other, const char *path) {
  bool none[KMAX + 1] = {false};
  int codes[KMAX];
  int64_t rounds, m;
  /* a gap: arrays 0 and 2 */
  {
    int idx[2] = {0, 2};
    bool w[2] = {true, true}, want[KMAX + 1] = {true, false, true};
    tu_arrays_write(&layout, path, none);
    darray_file_t f = open_file(path, "");
    held(s, f, 2, idx, w, codes, &rounds, &m);
    TU_EQ_CODE(codes[0], DARRAY_SUCCESS);
    TU_EQ_CODE(codes[1], DARRAY_SUCCESS);
    TU_EQ_I64(m, 0);
    TU_OK(darray_file_close(&f));
    tu_arrays_check(&layout, path, want, "a gap: not merged");
  }
  /* out of file order: 2, 1, 0 */
  {
    int idx[3] = {2, 1, 0};
    bool w[3] = {true, true, true}, want[KMAX + 1] = {true, true, true};
    tu_arrays_write(&layout, path, none);
    darray_file_t f = open_file(path, "");
    held(s, f, 3, idx, w, codes, &rounds, &m);
    for (int i = 0; i < 3; i++)
      TU_EQ_CODE(codes[i], DARRAY_SUCCESS);
    TU_EQ_I64(m, 0);
    TU_OK(darray_file_close(&f));
    tu_arrays_check(&layout, path, want, "out of file order: not merged");
  }
  /* different descriptions one after another: s's array 0, other's 1,
   * one access (each cell read through its array's description) */
  {
    darray_file_t f = open_file(path, "");
    darray_request_t req[2];
    bool want[KMAX + 1] = {true, true};
    tu_arrays_write(&layout, path, none);
    int64_t m0 = darray__async_merged();
    darray__async_hold(true);
    TU_OK(darray_iwrite(f, s->a[0], s->buf[0], &req[0]));
    TU_OK(darray_iwrite(f, other->a[1], other->buf[1], &req[1]));
    darray__async_hold(false);
    TU_OK(darray_wait_all(f, 2, req, NULL));
    TU_EQ_I64(darray__async_merged() - m0, 1);
    TU_OK(darray_file_close(&f));
    tu_arrays_check(&layout, path, want, "different descriptions");
  }
  /* a write of array 0, a read of array 1 */
  {
    int idx[2] = {0, 1};
    bool w[2] = {true, false}, want[KMAX + 1] = {true, true};
    tu_arrays_write(&layout, path, want); /* array 1 there to read */
    darray_file_t f = open_file(path, "");
    held(s, f, 2, idx, w, codes, &rounds, &m);
    TU_EQ_CODE(codes[0], DARRAY_SUCCESS);
    TU_EQ_CODE(codes[1], DARRAY_SUCCESS);
    TU_EQ_I64(m, 0);
    check_reads(s, 2, idx, w, "a write and a read: not merged");
    TU_OK(darray_file_close(&f));
    tu_arrays_check(&layout, path, want, "a write and a read");
  }
}

/* Request 2 of 4: buf NULL on the last rank, which owns elements. */
static void bad_argument(set_t *s, const char *path) {
  bool none[KMAX + 1] = {false}, want[KMAX + 1] = {true, true, false, true};
  tu_arrays_write(&layout, path, none);
  darray_file_t f = open_file(path, "");
  darray_request_t req[4];
  int64_t r0 = darray__async_rounds(f), m0 = darray__async_merged();
  bool bad = tu_rank() == tu_nprocs() - 1;
  darray__async_hold(true);
  for (int i = 0; i < 4; i++)
    TU_OK(darray_iwrite(f, s->a[i], i == 2 && bad ? NULL : s->buf[i],
                        &req[i]));
  darray__async_hold(false);
  for (int i = 0; i < 4; i++) {
    int rc = darray_wait(f, &req[i]);
    if (i != 2) {
      TU_EQ_CODE(rc, DARRAY_SUCCESS);
      continue;
    }
    TU_EQ_CODE(rc, DARRAY_ENULL);
    tu_expect_failure_messages(darray_file_errmsg(f), "buf is NULL", NULL,
                               "a bad argument in a chain");
  }
  /* the first begin, the others', one each for 0, 1, 3, the results */
  TU_EQ_I64(darray__async_rounds(f) - r0, 6);
  TU_EQ_I64(darray__async_merged() - m0, 0);
  TU_OK(darray_file_close(&f));
  tu_arrays_check(&layout, path, want, "a bad argument in a chain");
}

/* The last rank's first write call fails in a merged access. */
static void transfer_fault(set_t *s, const char *path) {
  if (!tu_fault_injection()) {
    tu_skip_part("transfer fault in a merged access",
                 "no --enable-fault-injection");
    return;
  }
  bool none[KMAX + 1] = {false};
  tu_arrays_write(&layout, path, none);
  char rule[80];
  snprintf(rule, sizeof rule, "op=write,index=1,error=EIO,rank=%d",
           tu_nprocs() - 1);
  setenv("DARRAYIO_FAULT", rule, 1);
  darray_file_t f = open_file(path, "darray_strategy=direct");
  unsetenv("DARRAYIO_FAULT");
  darray_request_t req[4];
  int64_t m0 = darray__async_merged();
  darray__async_hold(true);
  for (int i = 0; i < 4; i++)
    TU_OK(darray_iwrite(f, s->a[i], s->buf[i], &req[i]));
  darray__async_hold(false);
  for (int i = 0; i < 4; i++) {
    TU_EQ_CODE(darray_wait(f, &req[i]), DARRAY_EIO);
    tu_expect_failure_messages(darray_file_errmsg(f), "input/output",
                               "(merged)", "a fault in a merged access");
  }
  TU_EQ_I64(darray__async_merged() - m0, 1);
  TU_OK(darray_file_close(&f));
}

int main(int argc, char **argv) {
  int got = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  if (got < MPI_THREAD_MULTIPLE)
    return tu_skip("merged requests need MPI_THREAD_MULTIPLE");
  char dir[256], ref[300], path[300];
  if (tu_tmpname(dir, sizeof dir, "darray_merge") == NULL)
    return tu_finish();
  snprintf(ref, sizeof ref, "%s_ref", dir);
  snprintf(path, sizeof path, "%s_out", dir);
  bool all[KMAX + 1];
  for (int k = 0; k <= KMAX; k++)
    all[k] = true;
  tu_arrays_write(&layout, ref, all);
  tu_arrays_write(&layout, path, all);
  static const char *const hints[] = {
      "",
      "darray_strategy=twophase;cb_buffer_size=512",
      "darray_strategy=direct;ind_wr_buffer_size=64",
      "darray_strategy=sieve;ind_rd_buffer_size=200;ind_wr_buffer_size=100",
      "darray_strategy=static;cb_buffer_size=256",
      "darray_strategy=rows"};
  static const int Ks[] = {2, 5, KMAX};
  int P = tu_nprocs();
  /* under valgrind (helgrind: the threaded paths), one K and two plans */
  bool slow = getenv("DARRAY_TEST_VALGRIND") != NULL;
  size_t nh = slow ? 2 : sizeof hints / sizeof *hints;
  size_t nk = slow ? 1 : sizeof Ks / sizeof *Ks;
  set_t sets[NDESC];
  for (int which = 0; which < NDESC; which++) {
    if (which == D_MULTI && P != 1 && P != 4) {
      tu_skip_part("MULTIPARTITION", "needs a square process count");
      continue;
    }
    set_make(&sets[which], which, ref);
    for (size_t h = 0; h < nh; h++) {
      /* a forced strategy that refuses these arrays refuses them alone
       * too: nothing to merge */
      darray_file_t f = open_file(path, hints[h]);
      int rc = darray_write(f, sets[which].a[0], sets[which].buf[0]);
      TU_OK(darray_file_close(&f));
      if (rc != DARRAY_SUCCESS)
        continue;
      for (size_t i = 0; i < nk; i++)
        merged(&sets[which], path, Ks[slow ? 1 : i], hints[h],
               desc_name[which]);
    }
  }
  apart(&sets[D_BLOCK], &sets[D_CYCLIC], path);
  bad_argument(&sets[D_CYCLIC], path);
  transfer_fault(&sets[D_BLOCK], path);
  lazy_start(&sets[D_BLOCK], path);
  for (int which = 0; which < NDESC; which++)
    if (which != D_MULTI || P == 1 || P == 4)
      set_free(&sets[which]);
  tu_remove(path);
  tu_remove(ref);
  return tu_finish();
}
