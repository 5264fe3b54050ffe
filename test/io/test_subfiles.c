/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_subfiles.c - the striped subfile back end (darray_backend=subfiles,
 * doc/subfiles.md).
 *
 * Oracle: the same array written by the posix back end. Each case writes
 * a 10 x 13 double array (rows of 104 bytes, at displacement 3, so the
 * file starts with a hole) with every strategy (direct, sieve, twophase,
 * auto), S = 1..4 subfiles and stripes of 12, 100 and 4096 bytes (which
 * cut elements and rows), for three distributions (BLOCK rows, CYCLIC(2)
 * columns, a 2-D BLOCK x CYCLIC(3) grid) in C and Fortran storage order.
 * The subfiles are joined here by the layout's closed form (stripe k of
 * the logical file is bytes [(k div S)*unit, ...) of subfile k mod S,
 * the logical size from the descriptor's record) and compared byte for
 * byte with the posix file; the array is read back (same hints, and
 * reopened without hints) and compared with what was written. Sections
 * are written and read against the posix back end too.
 *
 * Bad input, each the same code on every rank with a message naming the
 * hint or the path, nothing changed on disk: striping_factor=0 and
 * striping_unit=0, a hint contradicting the record, a missing and a
 * truncated subfile, a dataset on subfiles, and a read past the logical
 * end (DARRAY_EEOF). A write failing on one rank through DARRAYIO_FAULT
 * gives the same code on every rank.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NX 10
#define NY 13
#define DISP 3

typedef struct dcase {
  const char *name;
  darray_dist_t dist[2];
  int64_t dargs[2];
  int grid[2];
} dcase_t;

static const dcase_t dcases[] = {
    {"BLOCK rows", {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE},
     {DARRAY_DEFAULT_ARG, DARRAY_DEFAULT_ARG}, {0, 1}},
    {"CYCLIC(2) columns", {DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC},
     {DARRAY_DEFAULT_ARG, 2}, {1, 0}},
    {"BLOCK x CYCLIC(3)", {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC},
     {DARRAY_DEFAULT_ARG, 3}, {0, 0}},
};
static const char *const strategies[] = {"direct", "sieve", "twophase",
                                         "auto"};
static const int64_t units[] = {12, 100, 4096};

static char dir[512];

static void remove_set(const char *path);

static darray_t make_array(const dcase_t *d, darray_order_t order,
                           int64_t nx) {
  int64_t g[2] = {nx, NY};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_DOUBLE, &a));
  TU_OK(darray_set_distribution(a, d->dist, d->dargs));
  TU_OK(darray_set_grid(a, d->grid));
  TU_OK(darray_set_storage_order(a, order, NULL));
  TU_OK(darray_set_displacement(a, DISP));
  TU_OK(darray_commit(a));
  return a;
}

/* ---- the oracle: the subfiles joined by the layout's closed form ----- */

/* Rank 0: the logical file of the set at path, malloc'ed; NULL when a
 * part is missing or malformed. */
static unsigned char *join(const char *path, int64_t *size) {
  int64_t n, unit, factor, z;
  unsigned char *rec = tu_read_file(path, &n);
  char text[128] = "";
  if (rec != NULL)
    memcpy(text, rec, (size_t)(n < 127 ? n : 127));
  free(rec);
  if (sscanf(text, "darrayio-subfiles 1\nunit %ld\nfactor %ld\nsize %ld",
             &unit, &factor, size) != 3) {
    TU_FAIL("'%s': no subfile record", path);
    return NULL;
  }
  unsigned char *out = calloc((size_t)*size + 1, 1);
  for (int64_t j = 0; j < factor && out != NULL; j++) {
    char name[600];
    snprintf(name, sizeof name, "%s.sub%ldof%ld", path, (long)j, (long)factor);
    unsigned char *sub = tu_read_file(name, &z);
    if (!TU_CHECK(sub != NULL)) {
      free(out);
      return NULL;
    }
    for (int64_t at = 0; at < z; at++) { /* byte at of subfile j */
      int64_t k = (at / unit) * factor + j, off = k * unit + at % unit;
      if (off >= *size) { /* nothing past the recorded size */
        TU_FAIL("'%s': byte %ld is past the logical size", name, (long)at);
        break;
      }
      out[off] = sub[at];
    }
    free(sub);
  }
  return out;
}

/* Rank 0: the subfiles at sub joined equal the plain file at plain. */
static void compare_joined(const char *sub, const char *plain,
                           const char *what) {
  if (tu_rank() != 0)
    return;
  int64_t n, m;
  unsigned char *want = tu_read_file(plain, &n);
  unsigned char *got = join(sub, &m);
  if (want != NULL && got != NULL && TU_EQ_I64(m, n))
    tu_compare_bytes(got, want, n, what);
  free(want);
  free(got);
}

/* ---- one write and its checks ---------------------------------------- */

static int write_file(const char *path, const char *hints, darray_t a,
                      const void *buf) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                DARRAY_MODE_TRUNC,
                            info, &f);
  if (rc == DARRAY_SUCCESS)
    rc = darray_write(f, a, buf);
  if (rc != DARRAY_SUCCESS)
    fprintf(stderr, "%s: %s\n", path, darray_file_errmsg(f));
  int rc2 = darray_file_close(&f);
  MPI_Info_free(&info);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

/* Read a back from path (hints NULL: no info at all) and compare. */
static void read_check(const char *path, const char *hints, darray_t a,
                       const void *want, int64_t bytes, const char *what) {
  MPI_Info info = hints != NULL ? tu_info(hints) : MPI_INFO_NULL;
  darray_file_t f = NULL;
  void *got = calloc((size_t)bytes + 1, 1);
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f)) &&
      !TU_OK(darray_read(f, a, got)))
    fprintf(stderr, "%s: %s\n", what, darray_file_errmsg(f));
  tu_compare_bytes(got, want, bytes, what);
  TU_OK(darray_file_close(&f));
  free(got);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
}

static void one_case(const dcase_t *d, darray_order_t order, int salt) {
  darray_t a = make_array(d, order, NX);
  int64_t bytes = 0;
  TU_OK(darray_local_bytes(a, &bytes));
  void *buf = malloc((size_t)bytes + 1);
  tu_fill_bytes(buf, bytes, 0x5u + (uint64_t)order, tu_rank() * 100000);
  char plain[600], sub[600], hints[300], what[400];
  snprintf(plain, sizeof plain, "%s/plain", dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  TU_OK(write_file(plain, "darray_backend=posix", a, buf));
  /* two values of S per strategy, and a unit, rotating with the case:
   * over the six cases each strategy meets every S three times and every
   * unit at least once */
  for (int s = 0; s < 4; s++)
    for (int twice = 0; twice < 2; twice++) {
      int f = 1 + (s + salt + 2 * twice) % 4, u = (s + f + salt) % 3;
      snprintf(hints, sizeof hints,
               "darray_backend=subfiles;striping_unit=%ld;striping_factor="
               "%d;darray_strategy=%s;ind_rd_buffer_size=200;"
               "ind_wr_buffer_size=200;cb_buffer_size=300",
               (long)units[u], f, strategies[s]);
      snprintf(what, sizeof what, "%s, %s order, %s, S=%d, unit %ld",
               d->name, order == DARRAY_ORDER_C ? "C" : "Fortran",
               strategies[s], f, (long)units[u]);
      if (!TU_OK(write_file(sub, hints, a, buf)))
        fprintf(stderr, "  (%s)\n", what);
      compare_joined(sub, plain, what);
      read_check(sub, hints, a, buf, bytes, what);
      if (s == 3) /* the record gives the layout */
        read_check(sub, NULL, a, buf, bytes, what);
      remove_set(sub);
    }
  tu_remove(plain);
  free(buf);
  darray_free(&a);
}

/* ---- sections -------------------------------------------------------- */

static int section_io(const char *path, const char *hints, darray_t a,
                      bool write, int64_t start[2], int64_t count[2],
                      void *buf) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int mode = write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE : DARRAY_MODE_RDONLY;
  int rc = darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  if (rc == DARRAY_SUCCESS)
    rc = write ? darray_write_section(f, a, start, count, DARRAY_ORDER_C, buf)
               : darray_read_section(f, a, start, count, DARRAY_ORDER_C, buf);
  int rc2 = darray_file_close(&f);
  MPI_Info_free(&info);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

/* Each rank writes part of row rank (columns 2..8), then reads a block
 * that overlaps the others'; posix and subfiles alike. */
static void sections(void) {
  darray_t a = make_array(&dcases[2], DARRAY_ORDER_FORTRAN, NX);
  char plain[600], sub[600];
  snprintf(plain, sizeof plain, "%s/splain", dir);
  snprintf(sub, sizeof sub, "%s/ssub", dir);
  const char *sh = "darray_backend=subfiles;striping_unit=12;"
                   "striping_factor=3";
  double w[7], r1[4 * 6], r2[4 * 6];
  tu_fill_bytes(w, sizeof w, 77, tu_rank() * 1000);
  int64_t ws[2] = {tu_rank(), 2}, wc[2] = {1, 7};
  int64_t rs[2] = {0, 1}, rcnt[2] = {4, 6};
  TU_OK(section_io(plain, "darray_backend=posix", a, true, ws, wc, w));
  TU_OK(section_io(sub, sh, a, true, ws, wc, w));
  compare_joined(sub, plain, "sections: the files");
  memset(r1, 0, sizeof r1);
  memset(r2, 0xff, sizeof r2);
  TU_OK(section_io(plain, "darray_backend=posix", a, false, rs, rcnt, r1));
  TU_OK(section_io(sub, "", a, false, rs, rcnt, r2));
  tu_compare_bytes(r2, r1, (int64_t)sizeof r1, "sections: read back");
  tu_remove(plain);
  remove_set(sub);
  darray_free(&a);
}

/* ---- bad input ------------------------------------------------------- */

/* Rank 0 removes the set at path (any S up to 4). */
static void remove_set(const char *path) {
  if (tu_rank() == 0)
    for (int s = 1; s <= 4; s++)
      for (int j = 0; j < s; j++) {
        char name[600];
        snprintf(name, sizeof name, "%s.sub%dof%d", path, j, s);
        remove(name);
      }
  tu_remove(path);
}

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

static void bad_hints(void) {
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
    char name[600];
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

static void bad_files(void) {
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
  unchanged(p, 2, before, n, "contradicting hints: the set");
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

static void dataset_refused(void) {
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
static void past_the_end(void) {
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

static void explain_shows_layout(void) {
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
  free(text);
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  remove_set(p);
  darray_free(&a);
}

/* A write fails on the last rank only: the same code everywhere. */
static void fault_on_one_rank(void) {
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

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  if (tu_tmpname(dir, sizeof dir, "test_subfiles") == NULL)
    return tu_finish();
  if (tu_rank() == 0) /* a directory of the test's own */
    TU_CHECK(mkdir(dir, 0777) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int d = 0; d < 3; d++) {
    one_case(&dcases[d], DARRAY_ORDER_C, 2 * d);
    one_case(&dcases[d], DARRAY_ORDER_FORTRAN, 2 * d + 1);
  }
  sections();
  bad_hints();
  bad_files();
  dataset_refused();
  past_the_end();
  explain_shows_layout();
  fault_on_one_rank();
  tu_remove(dir);
  return tu_finish();
}
