/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_subfiles.c - the striped subfile back end (darray_backend=subfiles,
 * doc/subfiles.md).
 *
 * Oracle: the same array written by the posix back end. Each case writes
 * a 10 x 13 double array (rows of 104 bytes, at displacement 3, so the
 * file starts with a hole) on subfiles, for three distributions (BLOCK
 * rows, CYCLIC(2) columns, a 2-D BLOCK x CYCLIC(3) grid) in C and Fortran
 * storage order, with every strategy (direct, sieve, twophase, auto), each
 * on two of S = 1..4 and one of the stripe units 12, 100 and 4096 bytes
 * (which cut elements and rows), rotating with the case so that over the
 * six cases every pair of strategy, S and unit meets. The subfiles are
 * joined by the layout's closed form (subfiles_util.c) and compared byte
 * for byte with the posix file; the array is read back (same hints, and
 * for auto reopened without hints) and compared with what was written.
 * Layout-aware two-phase domains whose chunks hold several stripes of an
 * aggregator's servers (their parts): the back end moves a chunk's parts
 * with one list call, so a process makes no more file calls than cycles
 * (without lists: one per part), in image and vector mode, bytes against
 * the posix file, read back; in vector mode, with each process's pieces
 * one stretch of its buffer per part, nothing is copied where parts are
 * a message long (streams are cut at part boundaries and go from where
 * they lie), and shorter parts are packed.
 * Sections are written and read against the posix back end too. Holes:
 * only the last element written, the whole array read back through the
 * handle (zeros where subfiles end early), then darray_file_sync records
 * the size and pads the subfiles (their lengths checked).
 *
 * Bad input (test_subfiles_bad.c), each the same code on every rank with
 * a message naming the hint or the path, nothing changed on disk:
 * striping_factor=0 and striping_unit=0, a hint contradicting the record
 * (darray_backend=posix given explicitly too, in the info and in
 * DARRAYIO_HINTS: only the default gives way to the record), a record
 * cut short, a record whose unit is 2^41 or 2^62 (out of range, named as
 * such: it had opened, or been taken for truncation), a missing and a truncated subfile, a dataset on subfiles,
 * and a read past the logical end (DARRAY_EEOF); darray_explain() names
 * the layout and the locks; a write failing on one rank through
 * DARRAYIO_FAULT gives the same code on every rank.
 */
#include "io/test_subfiles.h"
#include "subfiles_util.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


const dcase_t dcases[] = {
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

char dir[512];

darray_t make_array(const dcase_t *d, darray_order_t order, int64_t nx) {
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

/* Rank 0: the subfiles at sub joined equal the plain file at plain. */
static void compare_joined(const char *sub, const char *plain,
                           const char *what) {
  if (tu_rank() != 0)
    return;
  int64_t n, m;
  unsigned char *want = tu_read_file(plain, &n);
  unsigned char *got = tu_read_subfiles(sub, &m);
  if (TU_CHECK(want != NULL && got != NULL) && TU_EQ_I64(m, n))
    tu_compare_bytes(got, want, n, what);
  free(want);
  free(got);
}

/* ---- one write and its checks ---------------------------------------- */

/* Rank 0 removes the set at path (any S up to 4). */
void remove_set(const char *path) {
  if (tu_rank() == 0)
    for (int s = 1; s <= 4; s++)
      for (int j = 0; j < s; j++) {
        char name[700];
        snprintf(name, sizeof name, "%s.sub%dof%d", path, j, s);
        remove(name);
      }
  tu_remove(path);
}


int write_file(const char *path, const char *hints, darray_t a,
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

/* ---- layout domains: a chunk's parts as one list call ----------------- */

/* One call on path under hints; its counters in *st. */
static int counted(const char *path, const char *hints, darray_t a,
                   void *buf, bool write, darray_stats_t *st) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE
                                  : DARRAY_MODE_RDONLY,
                            info, &f);
  if (rc == DARRAY_SUCCESS)
    rc = write ? darray_write(f, a, buf) : darray_read(f, a, buf);
  if (rc == DARRAY_SUCCESS)
    rc = darray_file_get_stats(f, st);
  int rc2 = darray_file_close(&f);
  MPI_Info_free(&info);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

static void layout_lists(void) {
  const char *const modes[] = {"darray_cb_image_piece=1g",
                               "darray_cb_image_piece=0"};
  for (int d = 0; d < 3; d++)
    for (int m = 0; m < 2; m++)
      for (int64_t s = 2; s <= 3; s++) {
        darray_t a = make_array(&dcases[d], DARRAY_ORDER_C, 40);
        int64_t bytes = 0;
        TU_OK(darray_local_bytes(a, &bytes));
        void *buf = malloc((size_t)bytes + 1);
        void *got = calloc((size_t)bytes + 1, 1);
        tu_fill_bytes(buf, bytes, 0x77u, tu_rank() * 100000);
        char plain[600], sub[600], hints[300], what[400];
        snprintf(plain, sizeof plain, "%s/plain", dir);
        snprintf(sub, sizeof sub, "%s/sub", dir);
        TU_OK(write_file(plain, "darray_backend=posix", a, buf));
        snprintf(hints, sizeof hints,
                 "darray_backend=subfiles;striping_unit=%d;striping_factor="
                 "%lld;darray_strategy=twophase;darray_cb_domains=layout;"
                 "cb_buffer_size=%d;%s",
                 s == 2 ? 24 : 100, (long long)s, s == 2 ? 2048 : 400,
                 modes[m]);
        snprintf(what, sizeof what, "layout lists, %s, S=%lld, %s",
                 dcases[d].name, (long long)s, modes[m]);
        darray_stats_t w = {0}, r = {0};
        TU_OK(counted(sub, hints, a, buf, true, &w));
        compare_joined(sub, plain, what);
        TU_OK(counted(sub, hints, a, got, false, &r));
        tu_compare_bytes(got, buf, bytes, what);
        if (!TU_CHECK(w.cycles >= 1 && w.write_calls <= w.cycles &&
                      r.read_calls <= r.cycles))
          TU_FAIL("%s: %lld/%lld calls in %lld/%lld cycles (write/read)",
                  what, (long long)w.write_calls, (long long)r.read_calls,
                  (long long)w.cycles, (long long)r.cycles);
        /* vector mode, each process's rows one stretch of its buffer:
         * where a part (100-byte stripes) is a message long (M = 400 / 4)
         * a stream goes part by part from where its pieces lie, no copy;
         * shorter parts (24 bytes, M = 512) are packed into messages of
         * M bytes (several processes: someone sends to an aggregator) */
        if (d == 0 && m == 1 && s == 3 &&
            (!TU_EQ_I64(w.bytes_copied, 0) | !TU_EQ_I64(r.bytes_copied, 0)))
          TU_FAIL("%s: bytes copied %lld/%lld (write/read)", what,
                  (long long)w.bytes_copied, (long long)r.bytes_copied);
        if (d == 0 && m == 1 && s == 2 && tu_nprocs() > 1 &&
            !TU_CHECK(w.bytes_copied > 0 || r.bytes_copied > 0))
          TU_FAIL("%s: short parts sent unpacked, one message each", what);
        remove_set(sub);
        tu_remove(plain);
        free(buf);
        free(got);
        darray_free(&a);
      }
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

/* ---- holes, and the size recorded at sync --------------------------- */

/* Rank 0: subfile j of the set at path is n bytes long. */
static void part_size(const char *path, int j, int s, int64_t n) {
  char name[700];
  int64_t z;
  snprintf(name, sizeof name, "%s.sub%dof%d", path, j, s);
  free(tu_read_file(name, &z));
  if (!TU_EQ_I64(z, n))
    fprintf(stderr, "  (subfile %d of %s)\n", j, path);
}

/*
 * Only the array's last element written (S = 4, 12-byte stripes): its
 * stripe, the 87th, is in subfile 2; subfiles 0, 1 and 3 stay empty. A
 * read of the whole array through the same handle meets their ends inside
 * the logical size and reads zeros there. darray_file_sync then records
 * the size (3 + 1040 bytes) and pads subfiles 0, 1 and 3 to what it
 * implies (22, 22 and 21 stripes; subfile 2: 21 stripes and 11 bytes).
 */
static void holes_and_sync(void) {
  darray_t a = make_array(&dcases[0], DARRAY_ORDER_C, NX);
  int64_t bytes = 0, st[2], sh[2], n;
  TU_OK(darray_local_bytes(a, &bytes));
  TU_OK(darray_local_start(a, 0, st));
  TU_OK(darray_local_shape(a, 0, sh));
  double last = 1234.5, *got = calloc((size_t)bytes + 8, 1);
  double *want = calloc((size_t)bytes + 8, 1);
  if (st[0] + sh[0] == NX && sh[0] > 0) /* this rank owns the last row */
    want[sh[0] * NY - 1] = last;
  char p[600];
  snprintf(p, sizeof p, "%s/holes", dir);
  MPI_Info info = tu_info("darray_backend=subfiles;striping_unit=12;"
                          "striping_factor=4");
  darray_file_t f = NULL;
  int64_t at[2] = {NX - 1, NY - 1}, one[2] = {tu_rank() == 0, 1};
  TU_OK(darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR |
                         DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC, info, &f));
  MPI_Info_free(&info);
  TU_OK(darray_write_section(f, a, at, one, DARRAY_ORDER_C, &last));
  TU_OK(darray_read(f, a, got));
  tu_compare_bytes(got, want, bytes, "holes: the array read back");
  TU_OK(darray_file_sync(f));
  if (tu_rank() == 0) {
    unsigned char *file = tu_read_subfiles(p, &n), end[8];
    memcpy(end, &last, 8);
    if (TU_EQ_I64(n, DISP + NX * NY * 8)) {
      TU_CHECK(memcmp(file + n - 8, end, 8) == 0);
      int64_t zeros = 0;
      for (int64_t i = 0; i < n - 8; i++)
        zeros += file[i] == 0;
      TU_EQ_I64(zeros, n - 8);
    }
    free(file);
    int64_t len[4] = {22 * 12, 22 * 12, 21 * 12 + 11, 21 * 12};
    for (int j = 0; j < 4; j++)
      part_size(p, j, 4, len[j]);
  }
  TU_OK(darray_file_close(&f));
  remove_set(p);
  free(got);
  free(want);
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
  layout_lists();
  sections();
  holes_and_sync();
  bad_hints();
  bad_files();
  dataset_refused();
  past_the_end();
  explain_shows_layout();
  fault_on_one_rank();
  tu_remove(dir);
  return tu_finish();
}
