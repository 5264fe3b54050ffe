/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async_subfiles.c - test_async's requests on the striped subfile
 * back end (darray_backend=subfiles, doc/subfiles.md), in each request
 * mode. The oracle is test_async's closed form; rank 0 joins a set by the
 * layout's closed form (subfiles_util.c, not the library's code):
 *  - background: with the I/O threads held (the library's test hook
 *    darray__async_hold), a posted direct write has not touched the set
 *    when the mode runs transfers in a thread (thread, files: the
 *    transfer is the thread's), and has when it does not (none); after
 *    the hold, its wait, the set holds the array; in files mode
 *    darray_explain says such a write runs in the background;
 *  - every strategy (direct, sieve, two-phase, rows from 2 processes, the
 *    planner's choice): a whole, a buffered and a section write (rows,
 *    which refuses sections: a whole one) posted together, and a read
 *    after them; the set joined equals the closed
 *    form, the set the blocking calls write with the same hints, and the
 *    posix back end's file of those blocking calls; the read gives the
 *    closed form;
 *  - with fault injection: a subfile's write failing on the last rank,
 *    and a subfile's fsync under darray_file_isync: every rank's wait
 *    returns DARRAY_EIO, with that rank's message; the next request works;
 *  - darray_file_close with requests pending completes them: the set has
 *    their bytes, its record the logical size they make (larger than the
 *    set's before), a gap they leave reads as zeros.
 */
#include "subfiles_util.h"
#include "test_async.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the library's test hook (src/async/async.h) */
void darray__async_hold(bool on);

#define UNIT 100 /* cuts elements and rows */
#define FACTOR 3
#define SUB "darray_backend=subfiles;striping_unit=100;striping_factor=3"

static const char *const strategies[] = {
    "darray_strategy=direct;ind_wr_buffer_size=64;ind_rd_buffer_size=64",
    "darray_strategy=sieve;ind_wr_buffer_size=100;ind_rd_buffer_size=100",
    "darray_strategy=twophase;cb_buffer_size=256",
    "darray_strategy=rows;cb_buffer_size=256",
    "darray_strategy=auto",
};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))
#define ROWS 3 /* needs two processes */

/* The arrays and this rank's values of them. */
typedef struct {
  darray_t a[NARR];
  int64_t *buf[NARR], bytes;
  int64_t st[2], ct[2], *sec; /* array 2's section */
  bool whole2; /* array 2 written whole, not its section */
} arrays_t;

static void load(arrays_t *x, const char *ref) {
  bool all[NARR] = {true, true, true};
  write_reference(ref, all);
  darray_file_t fr = open_file(ref, "", "none");
  for (int k = 0; k < NARR; k++) {
    x->a[k] = make_array(disp_of(k));
    darray_local_bytes(x->a[k], &x->bytes);
    x->buf[k] = malloc((size_t)x->bytes + 8);
    TU_OK(darray_read(fr, x->a[k], x->buf[k]));
  }
  darray_file_close(&fr);
  tu_remove(ref);
  slab(x->st, x->ct);
  x->sec = section_values(seed_of(2), x->st, x->ct);
}

static void unload(arrays_t *x) {
  for (int k = 0; k < NARR; k++) {
    darray_free(&x->a[k]);
    free(x->buf[k]);
  }
  free(x->sec);
}

static void remove_set(const char *path) {
  tu_remove_subfiles(path, FACTOR);
}

/* Rank 0 makes a set at path of the first n bytes of want's file. */
static void make_set(const char *path, const bool *want, int64_t n) {
  if (tu_rank() == 0) {
    int64_t all;
    unsigned char *b = expected_file(want, &all);
    TU_CHECK(tu_write_subfiles(path, b, n, UNIT, FACTOR) == 0);
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 compares the set at path (record and subfiles) with want's n
 * bytes. */
static void check_set(const char *path, const unsigned char *want, int64_t n,
                      const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) {
    int64_t z;
    unsigned char *got = tu_read_subfiles(path, &z);
    if (TU_EQ_I64(z, n))
      tu_compare_bytes(got, want, n, what);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The file of arrays with want[k] (the others BG) as a set. */
static void check_arrays(const char *path, const bool *want,
                         const char *what) {
  int64_t n;
  unsigned char *b = expected_file(want, &n);
  check_set(path, b, n, what);
  free(b);
}

/* The bytes after post_writes: arrays 0 and 1 whole, array 2 whole or
 * its sections (every rank's slab), BG elsewhere. */
static unsigned char *expected_mixed(const arrays_t *x, int64_t *n) {
  bool want[NARR] = {true, true, x->whole2};
  unsigned char *b = expected_file(want, n);
  int P = x->whole2 ? 0 : tu_nprocs();
  for (int r = 0; r < P; r++)
    for (int64_t i = G0 * r / P; i < G0 * (r + 1) / P; i++)
      for (int64_t j = 0; j < G1 - 1; j++) {
        int64_t v = elem(seed_of(2), i, j);
        memcpy(b + disp_of(2) + (i * G1 + j) * 8, &v, 8);
      }
  return b;
}

static void post_writes(darray_file_t f, arrays_t *x,
                        darray_request_t *req) {
  TU_OK(darray_iwrite(f, x->a[0], x->buf[0], &req[0]));
  TU_OK(darray_bwrite(f, x->a[1], x->buf[1], &req[1]));
  if (x->whole2)
    TU_OK(darray_iwrite(f, x->a[2], x->buf[2], &req[2]));
  else
    TU_OK(darray_iwrite_section(f, x->a[2], x->st, x->ct, DARRAY_ORDER_C,
                                x->sec, &req[2]));
}

static void blocking_writes(darray_file_t f, arrays_t *x) {
  TU_OK(darray_write(f, x->a[0], x->buf[0]));
  TU_OK(darray_write(f, x->a[1], x->buf[1]));
  if (x->whole2)
    TU_OK(darray_write(f, x->a[2], x->buf[2]));
  else
    TU_OK(darray_write_section(f, x->a[2], x->st, x->ct, DARRAY_ORDER_C,
                               x->sec));
}

/* A direct write posted while the I/O threads are held: in the thread's
 * hands (nothing written yet) when the mode runs transfers there. */
static void background(const char *path, const char *mode, arrays_t *x) {
  bool none[NARR] = {false}, first[NARR] = {true, false, false};
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  bool bg = strcmp(mode, "none") != 0 && level >= MPI_THREAD_FUNNELED;
  make_set(path, none, disp_of(NARR));
  darray_file_t f = open_file(path, SUB ";darray_strategy=direct", mode);
  darray_request_t r = DARRAY_REQUEST_NULL;
  darray__async_hold(true);
  TU_OK(darray_iwrite(f, x->a[0], x->buf[0], &r));
  char what[128];
  snprintf(what, sizeof what, "mode %s: a held request's bytes %s", mode,
           bg ? "are not written yet" : "are written when posted");
  check_arrays(path, bg ? none : first, what);
  if (bg && strcmp(mode, "files") == 0) { /* explain says so */
    char *text = tu_explain(f, x->a[0], 1);
    TU_CONTAINS(text, "a nonblocking write: strategy direct, in the "
                      "background");
    free(text);
  }
  darray__async_hold(false);
  TU_OK(darray_wait(f, &r));
  TU_OK(darray_file_close(&f));
  snprintf(what, sizeof what, "mode %s: after the wait", mode);
  check_arrays(path, first, what);
  remove_set(path);
}

/* Posted writes and a read on a set with strategy s; the blocking calls
 * on a set and on a posix file. */
static void one_strategy(const char *dir, const char *mode, int s,
                         arrays_t *x) {
  char nb[600], blk[600], px[600], h[300], what[200];
  snprintf(nb, sizeof nb, "%s_snb", dir);
  snprintf(blk, sizeof blk, "%s_sblk", dir);
  snprintf(px, sizeof px, "%s_spx", dir);
  snprintf(h, sizeof h, "%s;%s", SUB, strategies[s]);
  bool none[NARR] = {false};
  make_set(nb, none, disp_of(NARR));
  darray_file_t f = open_file(nb, h, mode);
  darray_request_t req[4];
  post_writes(f, x, req);
  int64_t *back = malloc((size_t)x->bytes + 8);
  TU_OK(darray_iread(f, x->a[0], back, &req[3]));
  snprintf(what, sizeof what, "mode %s, subfiles, %s", mode, strategies[s]);
  if (!TU_OK(darray_wait_all(f, 4, req, NULL)))
    fprintf(stderr, "%s: %s\n", what, darray_file_errmsg(f));
  TU_OK(darray_file_close(&f));
  TU_CHECK(tu_compare_bytes(back, x->buf[0], x->bytes, what) == 0);
  free(back);
  make_set(blk, none, disp_of(NARR));
  f = open_file(blk, h, "none");
  blocking_writes(f, x);
  TU_OK(darray_file_close(&f));
  write_reference(px, none);
  f = open_file(px, strategies[s], "none");
  blocking_writes(f, x);
  TU_OK(darray_file_close(&f));
  int64_t n;
  unsigned char *want = expected_mixed(x, &n);
  check_set(nb, want, n, what); /* the closed form */
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) {
    int64_t zn, zb, zp;
    unsigned char *a = tu_read_subfiles(nb, &zn);
    unsigned char *b = tu_read_subfiles(blk, &zb);
    unsigned char *p = tu_read_file(px, &zp);
    if (TU_EQ_I64(zb, zn) && TU_EQ_I64(zp, zn)) {
      tu_compare_bytes(a, b, zn, "requests vs blocking calls, subfiles");
      tu_compare_bytes(a, p, zn, "requests on subfiles vs posix");
    }
    free(a);
    free(b);
    free(p);
  }
  free(want);
  remove_set(nb);
  remove_set(blk);
  tu_remove(px);
}

/* Faults in the background on the last rank: a subfile's write, a
 * subfile's fsync (the second: the descriptor's is the first). */
static void faults(const char *path, const char *mode, arrays_t *x) {
  if (!tu_fault_injection())
    return;
  bool none[NARR] = {false}, first[NARR] = {true, false, false};
  int last = tu_nprocs() - 1;
  char fault[64], want[64];
  snprintf(want, sizeof want, "failed on rank %d: ", last);
  make_set(path, none, disp_of(NARR));
  snprintf(fault, sizeof fault, "op=write,error=EIO,rank=%d", last);
  setenv("DARRAYIO_FAULT", fault, 1);
  darray_file_t f = open_file(path, SUB ";darray_strategy=direct", mode);
  unsetenv("DARRAYIO_FAULT");
  darray_request_t r = DARRAY_REQUEST_NULL;
  TU_OK(darray_iwrite(f, x->a[0], x->buf[0], &r));
  TU_EQ_CODE(darray_wait(f, &r), DARRAY_EIO);
  if (tu_rank() != last)
    TU_CONTAINS(darray_file_errmsg(f), want);
  TU_CONTAINS(darray_file_errmsg(f), "input/output error");
  if (tu_rank() == last)
    TU_CONTAINS(darray_file_errmsg(f), "darray_iwrite (strategy direct");
  TU_OK(darray_iwrite(f, x->a[0], x->buf[0], &r));
  TU_OK(darray_wait(f, &r));
  TU_OK(darray_file_close(&f));
  check_arrays(path, first, "a background write after a failed one");
  snprintf(fault, sizeof fault, "op=sync,index=2,error=EIO,rank=%d", last);
  setenv("DARRAYIO_FAULT", fault, 1);
  f = open_file(path, SUB, mode);
  unsetenv("DARRAYIO_FAULT");
  TU_OK(darray_file_isync(f, &r));
  TU_EQ_CODE(darray_wait(f, &r), DARRAY_EIO);
  if (tu_rank() != last)
    TU_CONTAINS(darray_file_errmsg(f), want);
  TU_CONTAINS(darray_file_errmsg(f), "darray_file_isync");
  TU_OK(darray_file_isync(f, &r));
  TU_OK(darray_wait(f, &r));
  darray_file_close(&f);
  remove_set(path);
}

/* Close with whole-array writes pending on a set that ends after array
 * 0: the record grows to the end of array 2; the gap before array 2,
 * never written, reads as zeros. */
static void close_pending(const char *path, const char *mode, arrays_t *x) {
  bool none[NARR] = {false};
  make_set(path, none, disp_of(1));
  darray_file_t f = open_file(path, SUB, mode);
  darray_request_t r[NARR];
  TU_OK(darray_iwrite(f, x->a[0], x->buf[0], &r[0]));
  TU_OK(darray_bwrite(f, x->a[1], x->buf[1], &r[1]));
  TU_OK(darray_iwrite(f, x->a[2], x->buf[2], &r[2]));
  TU_OK(darray_file_close(&f));
  bool all[NARR] = {true, true, true};
  int64_t n;
  unsigned char *want = expected_file(all, &n);
  n = disp_of(2) + G0 * G1 * 8; /* no gap after array 2 */
  memset(want + disp_of(2) - 40, 0, 40);
  char what[128];
  snprintf(what, sizeof what, "mode %s: close with requests pending", mode);
  check_set(path, want, n, what);
  free(want);
  remove_set(path);
}

void async_subfiles(const char *dir, const char *mode) {
  char path[600], ref[600];
  snprintf(path, sizeof path, "%s_sub", dir);
  snprintf(ref, sizeof ref, "%s_subref", dir);
  arrays_t x = {.whole2 = false};
  load(&x, ref);
  background(path, mode, &x);
  bool slow = getenv("DARRAY_TEST_VALGRIND") != NULL;
  for (int s = 0; s < NSTRAT; s++) {
    if (slow && s != 0 && s != 2)
      continue; /* under valgrind: direct and two-phase */
    if (s == ROWS && tu_nprocs() < 2)
      continue; /* rows refuses one process */
    x.whole2 = s == ROWS;
    one_strategy(dir, mode, s, &x);
  }
  faults(path, mode, &x);
  close_pending(path, mode, &x);
  unload(&x);
}
