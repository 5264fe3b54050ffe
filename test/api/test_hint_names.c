/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_hint_names.c - a misspelt darrayio hint is an error, never ignored
 * (issue #38, item 6); keys of other prefixes are MPI's (run at 1-3
 * processes):
 *  (a) an MPI_Info key of darrayio's prefix that names no hint
 *      (darray_stratgy=sieve) makes darray_file_open DARRAY_EHINT on
 *      every process, the message naming the key and the nearest known
 *      one (darray_strategy), and nothing is created at the path;
 *  (b) the same key on the last process only: DARRAY_EHINT on every
 *      process, the others' messages saying which rank failed;
 *  (c) darray_dataset_open of a .npz path with darray_cb_pipline:
 *      DARRAY_EHINT naming darray_cb_pipeline, no archive created;
 *  (d) DARRAYIO_HINTS, strict for every key: darray_stratgy and
 *      cb_bufer_size are DARRAY_EHINT naming darray_strategy and
 *      cb_buffer_size;
 *  (e) darray_plan_virtual with darray_temp_limt: DARRAY_EHINT naming
 *      darray_temp_limit;
 *  (f) keys of other prefixes are accepted and ignored, with both back
 *      ends: ROMIO's own (romio_no_indep_rw), MPI's reserved ones
 *      (access_style, file_perm), a misspelt ROMIO name (cb_bufer_size)
 *      and another library's; the known keys among them still apply.
 * The expected nearest keys are worked out by hand from the header's list
 * of hints (the edit distance), not asked of the library.
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int P, me;

static bool exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* An open that must fail with DARRAY_EHINT everywhere, naming want in
 * the message of every process that failed itself; path not created. */
static void open_refused(const char *path, const char *hints, bool dataset,
                         bool mine, const char *key, const char *want,
                         const char *what) {
  MPI_Info info = mine ? tu_info(hints) : MPI_INFO_NULL;
  darray_file_t f = NULL;
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  int rc = dataset ? darray_dataset_open(MPI_COMM_WORLD, path, mode, info, &f)
                   : darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  const char *msg = darray_file_errmsg(NULL);
  if (!TU_EQ_CODE(rc, DARRAY_EHINT))
    fprintf(stderr, "  (%s: %s)\n", what, msg);
  TU_CHECK(f == NULL);
  tu_expect_failure_messages(msg, want, NULL, what);
  TU_CONTAINS(msg, key); /* the other ranks: "failed on rank R: ..." */
  darray_file_close(&f);
  MPI_Barrier(MPI_COMM_WORLD);
  TU_CHECK(!exists(path));
}

static void test_misspelt(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/raw.dat", dir);
  open_refused(p, "darray_stratgy=sieve", false, true, "'darray_stratgy'",
               "'darray_strategy'", "(a) darray_stratgy");
  open_refused(p, "cb_buffer_size=65536;darray_concurent_writers=none",
               false, true, "darray_concurent_writers",
               "'darray_concurrent_writers'", "(a) among known keys");
  if (P > 1)
    open_refused(p, "darray_stratgy=sieve", false, me == P - 1,
                 "'darray_stratgy'", "'darray_strategy'",
                 "(b) on the last rank only");
  snprintf(p, sizeof p, "%s/arch.npz", dir);
  open_refused(p, "darray_cb_pipline=enable", true, true,
               "'darray_cb_pipline'", "'darray_cb_pipeline'",
               "(c) dataset");
}

static void test_env(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/env.dat", dir);
  setenv("DARRAYIO_HINTS", "darray_stratgy=sieve", 1);
  open_refused(p, "", false, true, "DARRAYIO_HINTS", "'darray_strategy'",
               "(d) DARRAYIO_HINTS darray_stratgy");
  setenv("DARRAYIO_HINTS", "cb_bufer_size=1k", 1);
  open_refused(p, "", false, true, "'cb_bufer_size'", "'cb_buffer_size'",
               "(d) DARRAYIO_HINTS cb_bufer_size");
  unsetenv("DARRAYIO_HINTS");
}

static void test_plan(void) {
  int64_t g[2] = {64, 64};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t v = NULL;
  TU_OK(darray_create_virtual(4, 2, g, DARRAY_INT64, &v));
  TU_OK(darray_set_distribution(v, d, NULL));
  TU_OK(darray_commit(v));
  darray_plan_row_t rows[8];
  int n = 0;
  MPI_Info bad = tu_info("darray_temp_limt=1m");
  TU_EQ_CODE(darray_plan_virtual(v, bad, 1, 8, rows, &n), DARRAY_EHINT);
  TU_CONTAINS(darray_errmsg(v), "'darray_temp_limt'");
  TU_CONTAINS(darray_errmsg(v), "'darray_temp_limit'");
  MPI_Info_free(&bad);
  darray_free(&v);
}

/* Other prefixes: ignored, the known keys beside them applied. */
static void test_others(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/others.dat", dir);
  const char *backends[2] = {"", "darray_backend=mpiio;"};
  for (int b = 0; b < 2; b++) {
    char hints[400];
    snprintf(hints, sizeof hints, "%scb_buffer_size=65536;romio_no_indep_rw="
             "false;access_style=read_once,write_once;file_perm=0644;"
             "cb_bufer_size=1;otherlib_darray_mode=fast;romio_cb_write="
             "disable", backends[b]);
    MPI_Info info = tu_info(hints);
    darray_file_t f = NULL;
    int rc = darray_file_open(MPI_COMM_WORLD, p, DARRAY_MODE_RDWR |
                              DARRAY_MODE_CREATE, info, &f);
    MPI_Info_free(&info);
    if (!TU_OK(rc))
      fprintf(stderr, "  (f) [%s]: %s\n", hints, darray_file_errmsg(NULL));
    char v[64] = "";
    if (f != NULL && TU_OK(darray_file_get_hint(f, "cb_buffer_size", v,
                                                sizeof v)))
      TU_EQ_STR(v, "65536");
    if (f != NULL && TU_OK(darray_file_get_hint(f, "romio_cb_write", v,
                                                sizeof v)))
      TU_EQ_STR(v, "disable");
    TU_OK(darray_file_close(&f));
    tu_remove(p);
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  char dir[512];
  if (tu_tmpname(dir, sizeof dir, "darray_hint_names") != NULL) {
    if (me == 0)
      TU_CHECK(mkdir(dir, 0700) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    test_misspelt(dir);
    test_env(dir);
    test_plan();
    test_others(dir);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
      TU_CHECK(rmdir(dir) == 0); /* empty: nothing was left behind */
  }
  return tu_finish();
}
