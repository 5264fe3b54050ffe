/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_direct.c - direct writes (darray_direct_write, src/io/io_posix.c):
 * whole pages from page-aligned memory go around the page cache (O_DIRECT),
 * every other write through it.
 *
 * A 32 x 32 x 128 int64 array (1 MiB), BLOCK over a 1 x 1 x P grid (each
 * process owns a slice of every row: interleaved), in a file of two such
 * arrays one after another with 96 background bytes after each (the
 * tu_arrays_* file: array 0 at byte 0, array 1 at 1 MiB + 96, on an
 * element boundary but not on a page). The buffers are filled by direct
 * runs from a reference written with stdio. Then, writing into a
 * background file:
 *  - two-phase with direct writes and 64 KiB buffers, array 0: the file
 *    equals the reference, the background untouched; on every process
 *    every write call of the call went around the page cache (domains and
 *    chunks on whole pages, the image page-aligned), and some process made
 *    one; read back through the page cache it equals the buffers;
 *  - the same for array 1 (a displacement off the pages): the file is
 *    right; a domain's chunks are counted from the page at or before its
 *    start, so all but the first (cut short at the next page) and the
 *    last (ending off a page, at the array's end) go around the cache:
 *    some writes do and some do not, at every process count;
 *  - direct runs from the caller's buffer: at one process the array is one
 *    run of whole pages, which goes around the cache from a page-aligned
 *    copy of the buffer and through it from one 8 bytes off; at more, each
 *    run is a slice of a row (less than a page) and none does; the file is
 *    right each time;
 *  - with the hint disabled nothing goes around the cache;
 *  - with fault injection, transfers cut short (each resumed where it
 *    stopped: still whole pages) and a write failing with EIO on rank 0
 *    (DARRAY_EIO everywhere, the message contract);
 *  - on the subfile back end (S = 2, tests/subfiles_util.c joins the set
 *    by the layout's closed form), two-phase with logical and with
 *    layout-aware domains: with 64 KiB stripes (whole pages) every write
 *    call on every process goes around the cache and some are made; with
 *    12-byte stripes (cutting elements and pages) the writes that are not
 *    whole pages in their subfile go through it; the joined set equals the
 *    reference each time, and without the hint nothing goes around;
 *  - darray_explain says "direct writes ... on" for the posix and
 *    subfiles back ends, and "off: the back end is mpiio" on MPI-IO.
 * Run: mpiexec -n 1..4 ./test_direct
 */
#include "subfiles_util.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G0 32
#define G1 32
#define G2 128
#define ELEMS (G0 * G1 * G2)
#define STRIDE (ELEMS * 8 + 96)

int64_t darray__file_direct_writes(const void *f, int64_t *missed);

static int P, me;
static const tu_arrays_t layout = {2, ELEMS, STRIDE, 0x71d, 0xa4};
static const bool none[2] = {false, false};

static darray_t make(int64_t disp) {
  int64_t g[3] = {G0, G1, G2};
  darray_dist_t d[3] = {DARRAY_DIST_NONE, DARRAY_DIST_NONE, DARRAY_DIST_BLOCK};
  int grid[3] = {1, 1, P};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, g, DARRAY_INT64, &a)) ||
      !TU_OK(darray_set_distribution(a, d, NULL)) ||
      !TU_OK(darray_set_grid(a, grid)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a)))
    return NULL;
  return a;
}

/* A write of buf under hints into a background file: its code; *direct
 * and *calls this process's writes around the cache and in all. */
static int write_one(const char *path, const char *hints, darray_t a,
                     const void *buf, int64_t *direct, int64_t *calls,
                     char *msg, size_t n) {
  tu_arrays_write(&layout, path, none);
  darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDWR);
  int rc = darray_write(f, a, buf);
  if (msg != NULL) /* before the stats call sets its own */
    snprintf(msg, n, "%s", darray_file_errmsg(f));
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  int64_t missed = 0;
  *direct = darray__file_direct_writes(f, &missed);
  *calls = st.write_calls;
  TU_OK(darray_file_close(&f));
  return rc;
}

static int64_t sum(int64_t v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

static void two_phase(const char *out, darray_t a0, darray_t a1, const char *b0,
                      const char *b1, int64_t nb) {
  const char *h = "darray_strategy=twophase;darray_direct_write=enable;"
                  "cb_buffer_size=65536";
  bool want0[2] = {true, false}, want1[2] = {false, true};
  int64_t direct, calls;
  TU_OK(write_one(out, h, a0, b0, &direct, &calls, NULL, 0));
  tu_arrays_check(&layout, out, want0, "two-phase, direct writes, array 0");
  TU_EQ_I64(direct, calls); /* every chunk whole pages */
  TU_CHECK(sum(direct) > 0);
  /* read back through the page cache */
  char *back = malloc((size_t)nb);
  memset(back, 0xEE, (size_t)nb);
  darray_file_t f = tu_open(out, "", DARRAY_MODE_RDONLY);
  TU_OK(darray_read(f, a0, back));
  TU_OK(darray_file_close(&f));
  tu_compare_bytes(back, b0, nb, "read back after direct writes");
  free(back);
  TU_OK(write_one(out, h, a1, b1, &direct, &calls, NULL, 0));
  tu_arrays_check(&layout, out, want1, "two-phase, direct writes, array 1");
  int64_t d = sum(direct), c = sum(calls);
  TU_CHECK(d > 0 && d < c);
  /* disabled: nothing around the cache */
  TU_OK(write_one(out, "darray_strategy=twophase;cb_buffer_size=65536", a0, b0,
                  &direct, &calls, NULL, 0));
  tu_arrays_check(&layout, out, want0, "two-phase, no direct writes");
  TU_EQ_I64(direct, 0);
}

static void direct_runs(const char *out, darray_t a0, const char *b0,
                        int64_t nb) {
  const char *h = "darray_strategy=direct;darray_direct_write=enable";
  bool want0[2] = {true, false};
  char *al = NULL;
  if (posix_memalign((void **)&al, 4096, (size_t)nb + 8) != 0) {
    TU_CHECK(al != NULL);
    return;
  }
  int64_t direct, calls;
  memcpy(al, b0, (size_t)nb);
  TU_OK(write_one(out, h, a0, al, &direct, &calls, NULL, 0));
  tu_arrays_check(&layout, out, want0, "direct runs, aligned buffer");
  TU_EQ_I64(direct, P == 1 ? 1 : 0); /* one run of 256 pages, or slices */
  memmove(al + 8, al, (size_t)nb);
  TU_OK(write_one(out, h, a0, al + 8, &direct, &calls, NULL, 0));
  tu_arrays_check(&layout, out, want0, "direct runs, buffer off a page");
  TU_EQ_I64(direct, 0);
  free(al);
}

/* Array 0 written on a fresh subfile set (S = 2) under hints: the joined
 * set equals the reference's first array; *direct and *missed the write
 * calls around and through the page cache, summed over the processes. */
static void on_subfiles(const char *out, const char *hints, darray_t a0,
                        const char *b0, const unsigned char *ref,
                        int64_t *direct, int64_t *missed) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, out, mode, info, &f)))
    TU_OK(darray_write(f, a0, b0));
  int64_t m = 0, d = darray__file_direct_writes(f, &m);
  *direct = sum(d);
  *missed = sum(m);
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  if (me == 0 && ref != NULL) {
    int64_t m = 0;
    unsigned char *got = tu_read_subfiles(out, &m);
    if (TU_CHECK(got != NULL) && TU_EQ_I64(m, (int64_t)ELEMS * 8))
      tu_compare_bytes(got, ref, m, hints);
    free(got);
  }
  tu_remove_subfiles(out, 2);
}

static void subfiles(const char *sub, const char *ref_path, darray_t a0,
                     const char *b0) {
  int64_t n = 0;
  unsigned char *ref = me == 0 ? tu_read_file(ref_path, &n) : NULL;
  static const char *const dom[2] = {"logical", "layout"};
  char h[256];
  int64_t direct, missed;
  for (int k = 0; k < 4; k++) {
    snprintf(h, sizeof h, "darray_backend=subfiles;striping_factor=2;"
             "striping_unit=%d;darray_strategy=twophase;"
             "darray_cb_domains=%s;cb_buffer_size=65536;"
             "darray_direct_write=enable", k < 2 ? 65536 : 12, dom[k % 2]);
    on_subfiles(sub, h, a0, b0, ref, &direct, &missed);
    if (k < 2 && !TU_CHECK(direct > 0 && missed == 0))
      TU_FAIL("%s: %lld writes direct, %lld not", h, (long long)direct,
              (long long)missed);
    else if (k >= 2)
      TU_CHECK(missed > 0);
  }
  on_subfiles(sub, "darray_backend=subfiles;striping_factor=2;"
              "striping_unit=65536;darray_strategy=twophase",
              a0, b0, ref, &direct, &missed);
  TU_EQ_I64(direct + missed, 0);
  free(ref);
}

static void faults(const char *out, darray_t a0, const char *b0) {
  if (!tu_fault_injection()) {
    tu_skip_part("faults", "no --enable-fault-injection");
    return;
  }
  const char *h = "darray_strategy=twophase;darray_direct_write=enable;"
                  "cb_buffer_size=65536";
  bool want0[2] = {true, false};
  int64_t direct, calls;
  char msg[1024];
  setenv("DARRAYIO_FAULT", "op=write,count=1000,error=short", 1);
  TU_OK(write_one(out, h, a0, b0, &direct, &calls, NULL, 0));
  unsetenv("DARRAYIO_FAULT");
  tu_arrays_check(&layout, out, want0, "direct writes cut short");
  TU_CHECK(sum(direct) > 0);
  setenv("DARRAYIO_FAULT", "op=write,error=EIO,rank=0", 1);
  int rc = write_one(out, h, a0, b0, &direct, &calls, msg, sizeof msg);
  unsetenv("DARRAYIO_FAULT");
  TU_EQ_CODE(rc, DARRAY_EIO);
  tu_expect_failure_messages(msg, "Input/output error", "darray_write",
                             "a direct write fails");
}

static void explains(const char *out, const char *sub, darray_t a0) {
  darray_file_t f =
      tu_open(out, "darray_direct_write=enable", DARRAY_MODE_RDWR);
  char *text = tu_explain(f, a0, 1);
  TU_CONTAINS(text ? text : "", "direct writes (darray_direct_write): on");
  free(text);
  TU_OK(darray_file_close(&f));
  MPI_Info info = tu_info("darray_direct_write=enable;striping_factor=2;"
                          "darray_backend=subfiles;striping_unit=65536");
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, sub, DARRAY_MODE_RDWR |
                             DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC, info,
                             &f))) {
    text = tu_explain(f, a0, 1);
    TU_CONTAINS(text ? text : "", "direct writes (darray_direct_write): on");
    free(text);
  }
  TU_OK(darray_file_close(&f));
  MPI_Info_free(&info);
  tu_remove_subfiles(sub, 2);
  f = tu_open(out, "darray_direct_write=enable;darray_backend=mpiio",
              DARRAY_MODE_RDWR);
  text = tu_explain(f, a0, 1);
  TU_CONTAINS(text ? text : "",
              "direct writes (darray_direct_write): off: the back end is "
              "mpiio");
  free(text);
  TU_OK(darray_file_close(&f));
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs(), me = tu_rank();
  char ref[512], out[512], sub[512];
  if (tu_tmpname(ref, sizeof ref, "direct_ref") == NULL ||
      tu_tmpname(out, sizeof out, "direct_out") == NULL ||
      tu_tmpname(sub, sizeof sub, "direct_sub") == NULL)
    return tu_finish();
  darray_t a0 = make(0), a1 = make(STRIDE);
  int64_t nb = 0;
  if (a0 == NULL || a1 == NULL || !TU_OK(darray_local_bytes(a0, &nb)))
    return tu_finish();
  bool both[2] = {true, true};
  tu_arrays_write(&layout, ref, both);
  char *b0 = malloc((size_t)nb), *b1 = malloc((size_t)nb);
  darray_file_t f = tu_open(ref, "darray_strategy=direct", DARRAY_MODE_RDONLY);
  TU_OK(darray_read(f, a0, b0));
  TU_OK(darray_read(f, a1, b1));
  TU_OK(darray_file_close(&f));
  two_phase(out, a0, a1, b0, b1, nb);
  direct_runs(out, a0, b0, nb);
  subfiles(sub, ref, a0, b0);
  faults(out, a0, b0);
  explains(out, sub, a0);
  free(b0);
  free(b1);
  darray_free(&a0);
  darray_free(&a1);
  tu_remove(ref);
  tu_remove(out);
  return tu_finish();
}
