/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_finalize.c - a program that calls MPI_Finalize with files still
 * open (issue #38): the library closes them at MPI_Finalize (src/
 * darray_final.c). Run by test/finalize.sh, which checks the files after
 * the program has ended, with NumPy, `unzip -t` and the raw bytes against
 * the closed form below; this program checks only what the calls return.
 *
 * Usage: test_finalize CASE DIR. MPI is initialized at the level
 * DARRAY_TEST_THREAD names (multiple, the default; serialized; single).
 * The program ends MPI with MPI_Finalize, which is the library's (it
 * closes the files, then calls MPI's), or with PMPI_Finalize when
 * DARRAY_TEST_FINALIZE=pmpi, as a program whose MPI_Finalize does not
 * reach the library's would: the attribute on MPI_COMM_SELF closes them
 * then. Either way the program checks which of the two closed them
 * (darray__final_closer).
 * CASE:
 *   pending  two darray_iwrite()s of 2-D arrays into DIR/pending.raw (the
 *            second at a displacement), never waited for;
 *   raw      a completed darray_write() into DIR/raw.raw, left open; a
 *            file of MPI_COMM_SELF per process, DIR/self.RANK.raw, opened
 *            before the shared one on odd ranks and after it on even
 *            ones, left open; a third file, DIR/closed.raw, closed before
 *            MPI_Finalize. After MPI_Finalize a sync of the shared file
 *            is DARRAY_EMPI, saying the file was closed at MPI_Finalize;
 *            the program closes it (the close at finalize's result,
 *            success, the handle released) and closes it again (NULL:
 *            nothing);
 *   npz      members u (float64, 2-D) and w (int32, 1-D) of DIR/npz.npz
 *            written, the dataset never closed;
 *   failed   DIR/failed.npz: member v's write fails (DARRAYIO_FAULT: the
 *            first write call of rank 0), then member u is written; never
 *            closed;
 *   none     MPI_Finalize without any file ever opened.
 * The closed form: element (i, j) of a G0 x G1 array is i * G1 + j + k/4
 * (float64; k the array's number: 0, or 1 for the second array of
 * pending); w[i] = 3 * i - 7 (int32, GW elements).
 */
#include "config.h" /* DARRAY_FINALIZE_WRAPPER */

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G0 = 96, G1 = 1024, GW = 1000 };

/* Who closed the files at MPI_Finalize (src/file.h) */
enum { FINAL_NONE, FINAL_WRAPPER, FINAL_HOOK };
int darray__final_closer(void);

/* Buffers of requests still pending at MPI_Finalize: freed after it. */
static void *keep[2];

/* A G0 x G1 float64 array, BLOCK over rows, at displacement disp. */
static darray_t make_array(int64_t disp) {
  int64_t g[2] = {G0, G1};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_DOUBLE, &a)) ||
      !TU_OK(darray_set_distribution(a, d, NULL)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* This process's piece of array k (the closed form), to free. */
static double *piece(darray_t a, int k) {
  int64_t shape[2], start[2];
  if (a == NULL || !TU_OK(darray_local_shape(a, 0, shape)) ||
      !TU_OK(darray_local_start(a, 0, start)))
    return NULL;
  double *b = malloc((size_t)(shape[0] * shape[1] + 1) * sizeof *b);
  for (int64_t i = 0; b != NULL && i < shape[0]; i++)
    for (int64_t j = 0; j < shape[1]; j++)
      b[i * shape[1] + j] = (double)((start[0] + i) * G1 + j) + k / 4.0;
  return b;
}

static darray_file_t open_raw(MPI_Comm comm, const char *path) {
  darray_file_t f = NULL;
  TU_OK(darray_file_open(comm, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC,
                         MPI_INFO_NULL, &f));
  return f;
}

static darray_file_t open_npz(const char *path) {
  darray_file_t f = NULL;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                DARRAY_MODE_TRUNC,
                            MPI_INFO_NULL, &f));
  return f;
}

/* Two requests posted, never waited for. */
static void pending(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/pending.raw", dir);
  darray_t a0 = make_array(0), a1 = make_array(G0 * G1 * 8 + 24);
  double *b0 = piece(a0, 0), *b1 = piece(a1, 1);
  darray_file_t f = open_raw(MPI_COMM_WORLD, path);
  darray_request_t r[2];
  if (f != NULL && b0 != NULL && b1 != NULL) {
    TU_OK(darray_iwrite(f, a0, b0, &r[0]));
    TU_OK(darray_iwrite(f, a1, b1, &r[1]));
  }
  darray_free(&a0); /* a request keeps the description it was posted with */
  darray_free(&a1);
  keep[0] = b0; /* buffers live until MPI_Finalize: the program's part */
  keep[1] = b1;
}

static void raw(const char *dir, darray_file_t *shared) {
  char path[512], self[512], closed[512];
  int odd = tu_rank() % 2;
  snprintf(path, sizeof path, "%s/raw.raw", dir);
  snprintf(self, sizeof self, "%s/self.%d.raw", dir, tu_rank());
  snprintf(closed, sizeof closed, "%s/closed.raw", dir);
  darray_t a = make_array(0);
  double *b = piece(a, 0);
  darray_file_t s = odd ? open_raw(MPI_COMM_SELF, self) : NULL;
  darray_file_t f = open_raw(MPI_COMM_WORLD, path);
  darray_file_t c = open_raw(MPI_COMM_WORLD, closed);
  if (!odd)
    s = open_raw(MPI_COMM_SELF, self);
  /* one process's file: every element of its own, in its own file */
  int64_t g = GW;
  darray_t one = NULL;
  TU_OK(darray_create(MPI_COMM_SELF, 1, &g, DARRAY_INT32, &one));
  TU_OK(darray_commit(one));
  int32_t w[GW];
  for (int i = 0; i < GW; i++)
    w[i] = 3 * i - 7 + tu_rank();
  if (b != NULL && f != NULL && c != NULL && s != NULL) {
    TU_OK(darray_write(f, a, b));
    TU_OK(darray_write(c, a, b));
    TU_OK(darray_write(s, one, w));
  }
  TU_OK(darray_file_close(&c));
  free(b);
  darray_free(&a);
  darray_free(&one);
  *shared = f;
}

static void npz(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/npz.npz", dir);
  darray_t a = make_array(0), w = NULL;
  int64_t g = GW;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT32, &w));
  TU_OK(darray_commit(w));
  int64_t n = 0, s = 0;
  TU_OK(darray_local_count(w, &n));
  TU_OK(darray_local_start(w, 0, &s));
  int32_t *bw = malloc((size_t)(n + 1) * sizeof *bw);
  for (int64_t i = 0; bw != NULL && i < n; i++)
    bw[i] = (int32_t)(3 * (s + i) - 7);
  double *b = piece(a, 0);
  darray_file_t f = open_npz(path);
  if (f != NULL && b != NULL && bw != NULL) {
    TU_OK(darray_define(f, "u", a));
    TU_OK(darray_define(f, "w", w));
    TU_OK(darray_write(f, a, b));
    TU_OK(darray_write(f, w, bw));
  }
  free(b);
  free(bw);
  darray_free(&a);
  darray_free(&w);
}

static void failed(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/failed.npz", dir);
  if (!tu_fault_injection()) {
    printf("failed: SKIP (no fault injection)\n");
    return;
  }
  setenv("DARRAYIO_FAULT", "op=write,index=1,error=EIO,rank=0", 1);
  darray_t u = make_array(0), v = make_array(0);
  double *bu = piece(u, 0), *bv = piece(v, 2);
  darray_file_t f = open_npz(path);
  unsetenv("DARRAYIO_FAULT");
  if (f != NULL && bu != NULL && bv != NULL) {
    TU_OK(darray_define(f, "v", v));
    TU_OK(darray_define(f, "u", u));
    TU_EQ_CODE(darray_write(f, v, bv), DARRAY_EIO);
    TU_OK(darray_write(f, u, bu));
  }
  free(bu);
  free(bv);
  darray_free(&u);
  darray_free(&v);
}

int main(int argc, char **argv) {
  const char *lv = getenv("DARRAY_TEST_THREAD");
  int want = MPI_THREAD_MULTIPLE;
  if (lv != NULL && strcmp(lv, "serialized") == 0)
    want = MPI_THREAD_SERIALIZED;
  else if (lv != NULL && strcmp(lv, "single") == 0)
    want = MPI_THREAD_SINGLE;
  tu_init_thread(&argc, &argv, want);
  if (argc != 3) {
    fprintf(stderr, "usage: test_finalize CASE DIR\n");
    MPI_Finalize();
    return 99;
  }
  const char *c = argv[1], *dir = argv[2];
  darray_file_t shared = NULL;
  if (strcmp(c, "pending") == 0)
    pending(dir);
  else if (strcmp(c, "raw") == 0)
    raw(dir, &shared);
  else if (strcmp(c, "npz") == 0)
    npz(dir);
  else if (strcmp(c, "failed") == 0)
    failed(dir);
  else if (strcmp(c, "none") != 0)
    TU_FAIL("unknown case '%s'", c);
  const char *how = getenv("DARRAY_TEST_FINALIZE");
  bool pmpi = how != NULL && strcmp(how, "pmpi") == 0;
  bool opened = strcmp(c, "none") != 0 &&
                (strcmp(c, "failed") != 0 || tu_fault_injection());
  /* no wait, no close: the library closes them */
  if (pmpi)
    PMPI_Finalize();
  else
    MPI_Finalize();
  int want_closer = !opened ? FINAL_NONE : FINAL_HOOK;
#ifdef DARRAY_FINALIZE_WRAPPER
  if (opened && !pmpi)
    want_closer = FINAL_WRAPPER;
#endif
  TU_EQ_INT(darray__final_closer(), want_closer);
  if (shared != NULL) { /* closed at finalize; the handle goes now */
    TU_EQ_CODE(darray_file_sync(shared), DARRAY_EMPI);
    TU_CONTAINS(darray_file_errmsg(shared), "closed the file at MPI_Final");
    TU_OK(darray_file_close(&shared));
    TU_CHECK(shared == NULL);
    TU_OK(darray_file_close(&shared));
  }
  free(keep[0]);
  free(keep[1]);
  if (tu_failures() != 0)
    fprintf(stderr, "test_finalize %s: rank %d: %ld failures\n", c,
            tu_rank(), tu_failures());
  return tu_failures() == 0 ? 0 : 1;
}
