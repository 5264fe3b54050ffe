/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_subfiles_bad.c - test_subfiles' bad input (test_subfiles.c says
 * what each case checks): striping hints, contradicting hints, missing
 * and truncated subfiles, datasets, a read past the end, explain, a fault.
 */
#include "io/test_subfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- bad input ------------------------------------------------------- */

/* An open that must fail with code on every rank, its message (or the
 * other rank's) naming text; *f stays NULL. */
static void open_fails(const char *path, int mode, const char *hints,
                       int code, const char *text, const char *what) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  MPI_Info_free(&info);
  if (!TU_EQ_CODE(rc, code))
    fprintf(stderr, "  (%s: %s)\n", what, darray_file_errmsg(f));
  TU_CHECK(f == NULL);
  TU_CONTAINS(darray_file_errmsg(NULL), text);
  darray_file_close(&f);
}

/* Whether path exists (rank 0's look, shared). */
static int exists(const char *path) {
  int e = tu_rank() == 0 ? access(path, F_OK) == 0 : 0;
  MPI_Bcast(&e, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return e;
}

void bad_hints(void) {
  char p[600];
  snprintf(p, sizeof p, "%s/bad", dir);
  int create = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  open_fails(p, create, "darray_backend=subfiles;striping_unit=100;"
             "striping_factor=0", DARRAY_EHINT, "striping_factor=0",
             "factor 0");
  open_fails(p, create, "darray_backend=subfiles;striping_factor=2",
             DARRAY_EHINT, "striping_unit=0", "unit 0");
  TU_EQ_INT(exists(p), 0);
  snprintf(p, sizeof p, "%s/bad.sub0of2", dir);
  TU_EQ_INT(exists(p), 0);
}

/* Rank 0: the bytes of the set's parts, concatenated (a snapshot). */
static unsigned char *snapshot(const char *path, int s, int64_t *n) {
  unsigned char *all = NULL;
  *n = 0;
  for (int j = -1; j < s && tu_rank() == 0; j++) {
    char name[700];
    int64_t z;
    snprintf(name, sizeof name, "%s.sub%dof%d", path, j, s);
    unsigned char *b = tu_read_file(j < 0 ? path : name, &z);
    if (!TU_CHECK(b != NULL))
      return all;
    all = realloc(all, (size_t)(*n + z + 1));
    memcpy(all + *n, b, (size_t)z);
    *n += z;
    free(b);
  }
  return all;
}

static void unchanged(const char *path, int s, const unsigned char *before,
                      int64_t n, const char *what) {
  int64_t m;
  unsigned char *after = snapshot(path, s, &m);
  if (tu_rank() == 0 && TU_EQ_I64(m, n))
    tu_compare_bytes(after, before, n, what);
  free(after);
}

/* A set of 2 subfiles with 12-byte stripes: the array, closed. */
static void make_set(const char *path, darray_t a, const void *buf) {
  TU_OK(write_file(path, "darray_backend=subfiles;striping_unit=12;"
                   "striping_factor=2", a, buf));
}

void bad_files(void) {
  darray_t a = make_array(&dcases[0], DARRAY_ORDER_C, NX);
  int64_t bytes = 0, n;
  TU_OK(darray_local_bytes(a, &bytes));
  void *buf = calloc((size_t)bytes + 1, 1);
  char p[600], part[620];
  snprintf(p, sizeof p, "%s/set", dir);
  snprintf(part, sizeof part, "%s.sub1of2", p);
  int rdwr = DARRAY_MODE_RDWR;
  make_set(p, a, buf);
  unsigned char *before = snapshot(p, 2, &n);
  open_fails(p, rdwr, "striping_factor=3", DARRAY_EHINT,
             "records striping_factor=2", "contradicting factor");
  open_fails(p, rdwr, "darray_backend=mpiio", DARRAY_EHINT, "subfiles",
             "contradicting back end");
  /* an explicit posix would write over the record: refused like mpiio */
  open_fails(p, rdwr, "darray_backend=posix", DARRAY_EHINT,
             "darray_backend=posix, but '", "explicit posix");
  TU_CONTAINS(darray_file_errmsg(NULL), "set' is a subfile descriptor");
  TU_CONTAINS(darray_file_errmsg(NULL), "darray-subfile join");
  setenv("DARRAYIO_HINTS", "darray_backend=posix", 1);
  open_fails(p, DARRAY_MODE_RDONLY, "", DARRAY_EHINT,
             "darray_backend=posix, but '", "posix in DARRAYIO_HINTS");
  unsetenv("DARRAYIO_HINTS");
  unchanged(p, 2, before, n, "contradicting hints: the set");
  /* the record cut inside its last number, where what is left still
   * parses: malformed (a record is written whole) */
  int64_t rn = 0;
  unsigned char *rec = tu_rank() == 0 ? tu_read_file(p, &rn) : NULL;
  if (tu_rank() == 0)
    TU_CHECK(truncate(p, 90) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  open_fails(p, rdwr, "", DARRAY_EFORMAT, "cut short", "record cut short");
  /* a unit past 2^40 (the striping_unit hint's bound and darray-subfile's):
   * refused naming the field and the range, not taken as truncation */
  long long size = 0;
  const char *sl = rec != NULL ? strstr((const char *)rec, "\nsize ") : NULL;
  if (tu_rank() == 0 && TU_CHECK(sl != NULL))
    size = strtoll(sl + 6, NULL, 10);
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  for (int e = 41; e <= 62; e += 21) {
    char r[97], what[40];
    memset(r, '\n', sizeof r);
    int k = snprintf(r, sizeof r, "darrayio-subfiles 1\nunit %019lld\n"
                     "factor %010d\nsize %019lld\n", 1LL << e, 2, size);
    r[k] = '\n'; /* 96 bytes, padded with blank lines (doc/subfiles.md) */
    if (tu_rank() == 0)
      TU_EQ_INT(tu_write_file(p, r, 96), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(what, sizeof what, "unit 2^%d", e);
    open_fails(p, DARRAY_MODE_RDONLY, "", DARRAY_EFORMAT, "unit", what);
    TU_CONTAINS(darray_file_errmsg(NULL), "out of range (1 .. 2^40");
  }
  if (tu_rank() == 0)
    TU_EQ_INT(tu_write_file(p, rec, rn), 0);
  free(rec);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) /* one stripe short of what the record says */
    TU_CHECK(truncate(part, 12 * 18) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  free(before);
  before = snapshot(p, 2, &n);
  open_fails(p, rdwr, "", DARRAY_EFORMAT, "sub1of2", "truncated");
  TU_CONTAINS(darray_file_errmsg(NULL), "truncated");
  unchanged(p, 2, before, n, "truncated: the set");
  if (tu_rank() == 0)
    remove(part);
  MPI_Barrier(MPI_COMM_WORLD);
  open_fails(p, DARRAY_MODE_RDONLY, "", DARRAY_ENOENT, "sub1of2", "missing");
  TU_EQ_INT(exists(part), 0);
  free(before);
  remove_set(p);
  free(buf);
  darray_free(&a);
}

void dataset_refused(void) {
  char p[600];
  snprintf(p, sizeof p, "%s/d.npz", dir);
  MPI_Info info = tu_info("darray_backend=subfiles;striping_unit=64;"
                          "striping_factor=2");
  darray_file_t f = NULL;
  int rc = darray_dataset_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR |
                               DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC, info,
                               &f);
  MPI_Info_free(&info);
  if (rc != DARRAY_ENOTSUP && rc != DARRAY_SUCCESS) /* no zlib: skipped */
    return;
  TU_EQ_CODE(rc, DARRAY_ENOTSUP);
  TU_CONTAINS(darray_file_errmsg(NULL), "d.npz");
  darray_file_close(&f);
  TU_EQ_INT(exists(p), 0);
}

/* A larger array read from the set: the logical file ends first. */
void past_the_end(void) {
  darray_t a = make_array(&dcases[2], DARRAY_ORDER_C, NX);
  darray_t big = make_array(&dcases[2], DARRAY_ORDER_C, NX + 3);
  int64_t bytes = 0;
  TU_OK(darray_local_bytes(big, &bytes));
  void *buf = calloc((size_t)bytes + 1, 1);
  char p[600];
  snprintf(p, sizeof p, "%s/short", dir);
  make_set(p, a, buf);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDONLY, MPI_INFO_NULL,
                         &f));
  TU_EQ_CODE(darray_read(f, big, buf), DARRAY_EEOF);
  TU_OK(darray_file_close(&f));
  remove_set(p);
  free(buf);
  darray_free(&a);
  darray_free(&big);
}

void explain_shows_layout(void) {
  darray_t a = make_array(&dcases[1], DARRAY_ORDER_C, NX);
  char p[600];
  snprintf(p, sizeof p, "%s/explain", dir);
  MPI_Info info = tu_info("darray_backend=subfiles;striping_unit=12;"
                          "striping_factor=3");
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR |
                         DARRAY_MODE_CREATE, info, &f));
  char *text = tu_explain(f, a, 1);
  TU_CONTAINS(text, "back end: subfiles: 3 subfiles (striping_factor), "
                    "stripes of 12 bytes (striping_unit)");
  TU_CONTAINS(text, "writes hold shared byte-range locks");
  free(text);
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  remove_set(p);
  darray_free(&a);
}

/* A write fails on the last rank only: the same code everywhere. */
void fault_on_one_rank(void) {
  if (!tu_fault_injection() || tu_nprocs() < 2) {
    tu_skip_part("fault on one rank", tu_nprocs() < 2 ? "one process"
                                                      : "no fault injection");
    return;
  }
  darray_t a = make_array(&dcases[0], DARRAY_ORDER_C, NX);
  int64_t bytes = 0;
  TU_OK(darray_local_bytes(a, &bytes));
  void *buf = calloc((size_t)bytes + 1, 1);
  char p[600], spec[100];
  snprintf(p, sizeof p, "%s/fault", dir);
  snprintf(spec, sizeof spec, "op=write,index=1,error=EIO,rank=%d",
           tu_nprocs() - 1);
  MPI_Info info = tu_info("darray_backend=subfiles;striping_unit=12;"
                          "striping_factor=2;darray_strategy=direct");
  darray_file_t f = NULL;
  setenv("DARRAYIO_FAULT", spec, 1);
  TU_OK(darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR |
                         DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC, info, &f));
  unsetenv("DARRAYIO_FAULT");
  TU_EQ_CODE(darray_write(f, a, buf), DARRAY_EIO);
  tu_expect_failure_messages(darray_file_errmsg(f), "input/output error",
                             "darray_write", "fault on one rank");
  TU_OK(darray_write(f, a, buf)); /* one failure only */
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  remove_set(p);
  free(buf);
  darray_free(&a);
}

