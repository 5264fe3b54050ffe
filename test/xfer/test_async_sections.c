/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_sections.c - section requests of one array, queued together,
 * move as one access (darray_async = thread, src/async/async_merge.c).
 *
 * The array: R x C int64 with R = 2K + 1 and C = 3P + 2, in C and in
 * Fortran storage order, at displacement 0 of a file first filled with a
 * background byte. Request k of rank r is the box rows [2k, 2k + 2) x
 * columns [3r, 3r + 3): every pair of rows is split among the processes,
 * so their file extents interleave; the last row and the last two columns
 * belong to no box. Section buffers alternate C and Fortran order with k.
 * The I/O thread is held (darray__async_hold) while the requests are
 * posted, so every process's thread finds all of them queued; the library
 * counts its merged accesses and the file's agreement rounds.
 *
 * The oracle: element e (storage order) of the file holds tu_value(SEED,
 * e) where a box wrote it (tu_arrays_bytes, the same file written by
 * stdio), the background byte elsewhere; rank 0 compares every byte.
 *
 * For each storage order and each strategy (direct, sieve, two-phase with
 * small buffers, auto):
 *  - K darray_iwrite_section + darray_wait_all: one merged access, 5
 *    rounds (the first request's two, one for the others' checks, one for
 *    the merged access's plan, one for the results), the file's bytes;
 *  - K darray_iread_section of the same boxes: one merged access, 5
 *    rounds, the buffers' bytes;
 *  - K reads, each process of the whole row pair k (boxes that overlap
 *    across processes): one merged access, the bytes.
 * Not merged, and the bytes as the requests one after another give them:
 *  - (P >= 2) request 2 of rank 1 writes rank 0's box of request 1 with
 *    other values (its own boxes stay apart, so every process proposes
 *    the chain; the gathered boxes meet): the later request's values win;
 *  - request 1 of rank 0 meets its own request 0: rank 0's chain stops
 *    there, so request 0 moves alone, then requests 1..K-1 as one access;
 *  - request 2 of the last rank reaches past the array: that request
 *    fails with DARRAY_EINDEX on every process (nothing of it written;
 *    its buffer is never touched), the others succeed.
 * A file cut after row 6 (C storage order): K merged reads meet its end;
 * read again one by one, requests 0-2 succeed with their bytes and 3-5
 * fail with DARRAY_EEOF, on every process.
 * With fault injection, the last rank's first write call fails with EIO
 * in a merged access of K section writes: every wait reports it on every
 * rank, the message naming the merged call.
 * Run: mpiexec -n 1..4 ./test_async_sections
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t darray__async_rounds(const struct darray_file_s *f);
int64_t darray__async_merged(void);
void darray__async_hold(bool on);

#define K 6
#define SEED 91
#define SEED2 92
#define BG 0x3c

static int P, me, R, C;
static darray_order_t store;
static tu_arrays_t layout, layout2;

/* A request's box, its buffer and its buffer's order. */
typedef struct {
  int64_t start[2], count[2];
  darray_order_t order;
  int64_t *buf, *back;
} box_t;

static darray_t make(void) {
  int64_t g[2] = {R, C};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT64, &a)) ||
      !TU_OK(darray_set_distribution(a, d, NULL)) ||
      !TU_OK(darray_set_storage_order(a, store, NULL)) ||
      !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

static int64_t file_pos(int64_t i, int64_t j) {
  return store == DARRAY_ORDER_C ? i * C + j : j * R + i;
}

/* b's buffer filled with the values of the file image img. */
static void fill(box_t *b, const unsigned char *img) {
  int64_t n = b->count[0] * b->count[1], at = 0;
  b->buf = malloc(sizeof *b->buf * (size_t)(n > 0 ? n : 1));
  b->back = malloc(sizeof *b->back * (size_t)(n > 0 ? n : 1));
  int outer = b->order == DARRAY_ORDER_C ? 0 : 1, inner = 1 - outer;
  int64_t idx[2];
  for (idx[outer] = 0; idx[outer] < b->count[outer]; idx[outer]++)
    for (idx[inner] = 0; idx[inner] < b->count[inner]; idx[inner]++)
      memcpy(&b->buf[at++],
             img + 8 * file_pos(b->start[0] + idx[0], b->start[1] + idx[1]),
             8);
}

static void set_box(box_t *b, int64_t r0, int64_t nr, int64_t c0, int64_t nc,
                    int k) {
  *b = (box_t){{r0, c0}, {nr, nc},
               k % 2 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C, NULL, NULL};
}

static void free_boxes(box_t *b, int n) {
  for (int k = 0; k < n; k++) {
    free(b[k].buf);
    free(b[k].back);
  }
}

/* Post the n requests of b (writes or reads into back) with the thread
 * held, wait for all; codes, and the rounds and merged accesses taken. */
static void post_all(darray_file_t f, darray_t a, box_t *b, int n,
                     bool write, int *codes, int64_t *rounds,
                     int64_t *merged) {
  darray_request_t req[K];
  int64_t r0 = darray__async_rounds(f), m0 = darray__async_merged();
  darray__async_hold(true);
  for (int k = 0; k < n; k++) {
    int rc;
    if (write) {
      rc = darray_iwrite_section(f, a, b[k].start, b[k].count, b[k].order,
                                 b[k].buf, &req[k]);
    } else {
      int64_t m = b[k].count[0] * b[k].count[1];
      memset(b[k].back, 0, sizeof *b[k].back * (size_t)(m > 0 ? m : 1));
      rc = darray_iread_section(f, a, b[k].start, b[k].count, b[k].order,
                                b[k].back, &req[k]);
    }
    TU_OK(rc);
  }
  darray__async_hold(false);
  darray_wait_all(f, n, req, codes);
  *rounds = darray__async_rounds(f) - r0;
  *merged = darray__async_merged() - m0;
}

/* Rank 0: the file equals want (n bytes). */
static void check_file(const char *path, const unsigned char *want,
                       int64_t n, const char *what) {
  if (me == 0) {
    int64_t m = 0;
    unsigned char *got = tu_read_file(path, &m);
    if (TU_CHECK(got != NULL) && TU_EQ_I64(m, n))
      tu_compare_bytes(got, want, n, what);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The expected file: the background, with the elements of boxes[0..n)
 * (every process's: each rank's boxes are known in closed form) copied
 * from img. */
static void paint(unsigned char *out, const unsigned char *img,
                  const box_t *all, int n) {
  for (int k = 0; k < n; k++)
    for (int64_t i = 0; i < all[k].count[0]; i++)
      for (int64_t j = 0; j < all[k].count[1]; j++) {
        int64_t e = file_pos(all[k].start[0] + i, all[k].start[1] + j);
        memcpy(out + 8 * e, img + 8 * e, 8);
      }
}

static darray_file_t open_file(const char *path, const char *hints) {
  char h[300];
  snprintf(h, sizeof h, "%s%sdarray_async=thread", hints,
           hints[0] ? ";" : "");
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f));
  MPI_Info_free(&info);
  return f;
}

static void own_boxes(box_t *b, int rank, const unsigned char *img) {
  for (int k = 0; k < K; k++) {
    set_box(&b[k], 2 * k, 2, 3 * rank, 3, k);
    if (img != NULL)
      fill(&b[k], img);
  }
}

/* Writes, reads of the same boxes, reads of whole row pairs: each one
 * merged access. */
static void merged(darray_t a, const char *path, const char *hints,
                   const unsigned char *all, const unsigned char *none) {
  int64_t bytes = (int64_t)R * C * 8, rounds, m;
  unsigned char *want = malloc((size_t)bytes);
  box_t b[K], every[K * 4];
  int codes[K];
  char what[300];
  own_boxes(b, me, all);
  for (int r = 0; r < P; r++)
    own_boxes(every + r * K, r, NULL);
  tu_arrays_write(&layout, path, (bool[]){false});
  darray_file_t f = open_file(path, hints);
  post_all(f, a, b, K, true, codes, &rounds, &m);
  snprintf(what, sizeof what, "%s, %s order: section writes", hints,
           store == DARRAY_ORDER_C ? "C" : "Fortran");
  for (int k = 0; k < K; k++)
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
  if (!TU_EQ_I64(m, 1) | !TU_EQ_I64(rounds, 5))
    TU_FAIL("%s: %lld merged accesses, %lld rounds", what, (long long)m,
            (long long)rounds);
  memcpy(want, none, (size_t)bytes);
  paint(want, all, every, K * P);
  check_file(path, want, bytes, what);
  post_all(f, a, b, K, false, codes, &rounds, &m);
  for (int k = 0; k < K; k++) {
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
    tu_compare_bytes(b[k].back, b[k].buf, 8 * b[k].count[0] * b[k].count[1],
                     "merged section reads");
  }
  if (!TU_EQ_I64(m, 1) | !TU_EQ_I64(rounds, 5))
    TU_FAIL("%s: reads: %lld merged accesses, %lld rounds", what,
            (long long)m, (long long)rounds);
  free_boxes(b, K);
  for (int k = 0; k < K; k++) { /* whole row pairs: overlapping boxes */
    set_box(&b[k], 2 * k, 2, 0, C, k);
    fill(&b[k], want);
  }
  post_all(f, a, b, K, false, codes, &rounds, &m);
  TU_EQ_I64(m, 1);
  for (int k = 0; k < K; k++) {
    TU_EQ_CODE(codes[k], DARRAY_SUCCESS);
    tu_compare_bytes(b[k].back, b[k].buf, 8 * b[k].count[0] * b[k].count[1],
                     "merged reads of overlapping boxes");
  }
  free_boxes(b, K);
  TU_OK(darray_file_close(&f));
  free(want);
}

/* Requests that must not move as one access: their bytes as one after
 * another. how: 0, rank 1's request 2 over rank 0's request 1 (other
 * values); 1, rank 0's request 1 over its own request 0; 2, request 2 of
 * the last rank past the array. */
static void not_merged(darray_t a, const char *path, int how,
                       const unsigned char *all, const unsigned char *all2,
                       const unsigned char *none) {
  int64_t bytes = (int64_t)R * C * 8, rounds, m;
  unsigned char *want = malloc((size_t)bytes);
  box_t b[K], every[K * 4];
  int codes[K];
  for (int r = 0; r < P; r++)
    own_boxes(every + r * K, r, NULL);
  own_boxes(b, me, all);
  if (how == 0 && me == 1) { /* over rank 0's request 1, other values */
    free(b[2].buf);
    free(b[2].back);
    set_box(&b[2], 2, 2, 0, 3, 2); /* rank 0's request 1's box */
    fill(&b[2], all2);
  } else if (how == 1 && me == 0) {
    free(b[1].buf);
    free(b[1].back);
    set_box(&b[1], 1, 2, 0, 2, 1); /* meets box 0 (rows 0-1) */
    fill(&b[1], all2);
  } else if (how == 2 && me == P - 1) {
    b[2].count[1] = 6; /* columns 3P - 3 .. 3P + 2: past C = 3P + 2 */
  }
  if (how == 0) /* every process knows the others' boxes */
    set_box(&every[K + 2], 2, 2, 0, 3, 2);
  if (how == 1)
    set_box(&every[1], 1, 2, 0, 2, 1);
  tu_arrays_write(&layout, path, (bool[]){false});
  darray_file_t f = open_file(path, "");
  post_all(f, a, b, K, true, codes, &rounds, &m);
  memcpy(want, none, (size_t)bytes);
  for (int k = 0; k < K; k++) {
    TU_EQ_CODE(codes[k], how == 2 && k == 2 ? DARRAY_EINDEX : DARRAY_SUCCESS);
    for (int r = 0; r < P; r++) {
      const box_t *e = &every[r * K + k];
      bool other = (how == 0 && r == 1 && k == 2) || (how == 1 && r == 0 &&
                                                      k == 1);
      if (!(how == 2 && k == 2))
        paint(want, other ? all2 : all, e, 1);
    }
  }
  /* case 1: request 0 alone (rank 0's chain is one long), then requests
   * 1..K-1 as one access */
  TU_EQ_I64(m, how == 1 ? 1 : 0);
  char what[100];
  snprintf(what, sizeof what, "not merged (case %d)", how);
  check_file(path, want, bytes, what);
  free_boxes(b, K);
  TU_OK(darray_file_close(&f));
  free(want);
}

/* The last rank's first write call fails (EIO) in a merged access of K
 * section writes: every wait reports it on every rank, with the message
 * naming the merged call. */
static void transfer_fault(darray_t a, const char *path,
                           const unsigned char *all) {
  if (!tu_fault_injection()) {
    tu_skip_part("a fault in a merged access", "no --enable-fault-injection");
    return;
  }
  box_t b[K];
  own_boxes(b, me, all);
  tu_arrays_write(&layout, path, (bool[]){false});
  char rule[80];
  snprintf(rule, sizeof rule, "op=write,index=1,error=EIO,rank=%d", P - 1);
  setenv("DARRAYIO_FAULT", rule, 1);
  darray_file_t f = open_file(path, "darray_strategy=direct");
  unsetenv("DARRAYIO_FAULT");
  darray_request_t req[K];
  int64_t m0 = darray__async_merged();
  darray__async_hold(true);
  for (int k = 0; k < K; k++)
    TU_OK(darray_iwrite_section(f, a, b[k].start, b[k].count, b[k].order,
                                b[k].buf, &req[k]));
  darray__async_hold(false);
  for (int k = 0; k < K; k++) {
    TU_EQ_CODE(darray_wait(f, &req[k]), DARRAY_EIO);
    tu_expect_failure_messages(darray_file_errmsg(f), "input/output",
                               "(merged)", "a fault in merged sections");
  }
  TU_EQ_I64(darray__async_merged() - m0, 1);
  TU_OK(darray_file_close(&f));
  free_boxes(b, K);
}

/* C storage order, the file cut after row 2E: K reads of the boxes,
 * merged; the access meets the file's end, so the requests are read
 * again one by one: those of rows below 2E succeed with their bytes, the
 * others fail with DARRAY_EEOF, on every process. */
static void past_end(darray_t a, const char *path, const unsigned char *all) {
  enum { E = 3 };
  box_t b[K];
  int codes[K];
  int64_t rounds, m;
  own_boxes(b, me, all);
  tu_arrays_write(&layout, path, (bool[]){true});
  if (me == 0)
    TU_CHECK(truncate(path, (off_t)(2 * E * C * 8)) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  darray_file_t f = open_file(path, "");
  post_all(f, a, b, K, false, codes, &rounds, &m);
  TU_EQ_I64(m, 1);
  for (int k = 0; k < K; k++) {
    TU_EQ_CODE(codes[k], k < E ? DARRAY_SUCCESS : DARRAY_EEOF);
    if (k < E)
      tu_compare_bytes(b[k].back, b[k].buf,
                       8 * b[k].count[0] * b[k].count[1],
                       "merged reads, one past the end");
  }
  TU_OK(darray_file_close(&f));
  free_boxes(b, K);
}

int main(int argc, char **argv) {
  if (tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE) <
      MPI_THREAD_MULTIPLE)
    return tu_skip("merged requests need MPI_THREAD_MULTIPLE");
  P = tu_nprocs(), me = tu_rank();
  R = 2 * K + 1, C = 3 * P + 2;
  layout = (tu_arrays_t){1, (int64_t)R * C, (int64_t)R * C * 8, SEED, BG};
  layout2 = (tu_arrays_t){1, (int64_t)R * C, (int64_t)R * C * 8, SEED2, BG};
  char path[512];
  if (tu_tmpname(path, sizeof path, "async_sections") == NULL)
    return tu_finish();
  int64_t n = 0;
  unsigned char *all = tu_arrays_bytes(&layout, (bool[]){true}, &n);
  unsigned char *all2 = tu_arrays_bytes(&layout2, (bool[]){true}, &n);
  unsigned char *none = tu_arrays_bytes(&layout, (bool[]){false}, &n);
  static const char *const hints[] = {
      "darray_strategy=direct", "darray_strategy=sieve;ind_rd_buffer_size=64",
      "darray_strategy=twophase;cb_buffer_size=256", ""};
  for (int o = 0; o < 2; o++) {
    store = o == 0 ? DARRAY_ORDER_C : DARRAY_ORDER_FORTRAN;
    darray_t a = make();
    if (a == NULL)
      break;
    for (int h = 0; h < 4; h++)
      merged(a, path, hints[h], all, none);
    for (int how = 0; how < 3; how++)
      if (how != 0 || P >= 2)
        not_merged(a, path, how, all, all2, none);
    if (o == 0) {
      transfer_fault(a, path, all);
      past_end(a, path, all);
    }
    darray_free(&a);
  }
  free(all);
  free(all2);
  free(none);
  tu_remove(path);
  return tu_finish();
}
