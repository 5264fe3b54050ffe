/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_mapped.c - the file's own pages mapped (src/mapped, src/io/io_map.c).
 *
 * A 40 x 96 int64 array, BLOCK x CYCLIC(3) over a 1 x P grid (every page of
 * the file holds every process's bytes), one ghost cell around the local
 * block, in a file of the array and 100 background bytes after it (the
 * file of tu_arrays_*: element e in storage order is tu_value(seed, e)).
 * The buffers are filled by reading a reference file, written with stdio,
 * through direct runs (the rw_matrix checks those against MPI's darray
 * type); then, with darray_strategy=mapped and darray_map=enable:
 *  - writes, in one window and in windows of a page: the file equals the
 *    reference byte for byte, the background after the array untouched;
 *    in windows of a page the write makes one call per page that holds a
 *    byte of this process (counted here from the distribution), copies each
 *    of its bytes once and no more, and uses no temporary buffer;
 *  - reads, the same two ways, into buffers pre-filled with 0xEE: equal to
 *    the direct read, ghost cells included, one call per page;
 *  - darray_explain: an estimate for mapped on this file (automatic, when
 *    its file system is one it knows: ext4, xfs, btrfs, tmpfs), "not a
 *    candidate: darray_map=disable" under the hint, "posix back end" on
 *    the MPI-IO back end (where a forced call moves its runs as direct runs
 *    do, and the file is right too);
 *  - a read past the end of the file (the reference cut in half) fails
 *    with DARRAY_EEOF on every process, as direct runs do;
 *  - with fault injection: the reservation failing with ENOSPC on the last
 *    rank fails the write with DARRAY_ENOSPC everywhere, with the message
 *    contract; failing with EOPNOTSUPP (a file system without fallocate)
 *    makes the call move its runs directly, right; a mapping failing with
 *    EIO on rank 0 fails the read with DARRAY_EIO everywhere.
 * Run: mpiexec -n 1..4 ./test_mapped
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#define G0 40
#define G1 96
#define ELEMS (G0 * G1)
#define PAGE 4096

static int P, me;
static const tu_arrays_t layout = {1, ELEMS, ELEMS * 8 + 100, 0x3a9, 0x5c};
static const bool yes[1] = {true}, no[1] = {false};

static darray_t make(void) {
  int64_t g[2] = {G0, G1}, k[2] = {DARRAY_DEFAULT_ARG, 3}, gh[2] = {1, 1};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC};
  int grid[2] = {1, P};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT64, &a)) ||
      !TU_OK(darray_set_distribution(a, d, k)) ||
      !TU_OK(darray_set_grid(a, grid)) ||
      !TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL)) ||
      !TU_OK(darray_commit(a)))
    return NULL;
  return a;
}

/* Pages of the file holding a byte of this process: column j is this
 * process's where (j / 3) mod P == me. */
static int64_t my_pages(void) {
  int64_t n = 0, last = -1;
  for (int64_t e = 0; e < ELEMS; e++) {
    int64_t j = e % G1, page = e * 8 / PAGE;
    if ((j / 3) % P == me && page != last)
      n++, last = page;
  }
  return n;
}

static int64_t my_bytes(void) {
  int64_t n = 0;
  for (int64_t j = 0; j < G1; j++)
    n += (j / 3) % P == me;
  return n * G0 * 8;
}

/* The local buffer (size nb, 0xEE first) read from path under hints. */
static int read_into(const char *path, const char *hints, darray_t a,
                     char *buf, int64_t nb, darray_stats_t *st) {
  memset(buf, 0xEE, (size_t)nb);
  darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDONLY);
  int rc = darray_read(f, a, buf);
  darray_file_get_stats(f, st);
  darray_file_close(&f);
  return rc;
}

static void writes_and_reads(const char *ref, const char *out, darray_t a,
                             const char *truth, int64_t nb) {
  static const char *const windows[] = {"", ";darray_map_window=4096"};
  char hints[160], *buf = malloc((size_t)nb);
  for (int w = 0; w < 2; w++) {
    snprintf(hints, sizeof hints, "darray_strategy=mapped;darray_map=enable%s",
             windows[w]);
    tu_arrays_write(&layout, out, no);
    darray_file_t f = tu_open(out, hints, DARRAY_MODE_RDWR);
    TU_OK(darray_write(f, a, truth));
    darray_stats_t st;
    TU_OK(darray_file_get_stats(f, &st));
    TU_EQ_STR(st.strategy, "mapped");
    TU_EQ_I64(st.bytes_written, my_bytes());
    TU_EQ_I64(st.bytes_copied, my_bytes());
    TU_EQ_I64(st.peak_temp_bytes, 0);
    if (w == 1)
      TU_EQ_I64(st.write_calls, my_pages());
    TU_OK(darray_file_close(&f));
    tu_arrays_check(&layout, out, yes, w ? "mapped write, windows of a page"
                                         : "mapped write, one window");
    TU_OK(read_into(ref, hints, a, buf, nb, &st));
    if (tu_compare_bytes(buf, truth, nb, "mapped read") == 0 && w == 1)
      TU_EQ_I64(st.read_calls, my_pages());
    TU_EQ_STR(st.strategy, "mapped");
  }
  free(buf);
}

/* What darray_explain says of mapped under hints. */
static void explains(const char *path, darray_t a, const char *hints,
                     const char *says, int candidate) {
  darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDWR);
  char *text = tu_explain(f, a, 0);
  double us;
  if (candidate >= 0)
    TU_EQ_INT(tu_estimate(text ? text : "", "mapped", &us), candidate);
  if (says != NULL)
    TU_CONTAINS(text ? text : "", says);
  free(text);
  darray_file_close(&f);
}

static void explain_and_backends(const char *ref, const char *out, darray_t a,
                                 const char *truth, int64_t nb) {
  /* automatic: a candidate where the file system is one it knows */
  struct statfs s;
  unsigned long t = statfs(ref, &s) == 0 ? (unsigned long)s.f_type : 0;
  if (t == 0xEF53UL || t == 0x58465342UL || t == 0x9123683EUL ||
      t == 0x01021994UL)
    explains(ref, a, "", NULL, 1);
  else
    explains(ref, a, "", "not a file system of one node", 0);
  explains(ref, a, "darray_map=disable", "mapped not a candidate: "
           "darray_map=disable", 0);
  explains(ref, a, "darray_backend=mpiio", "posix back end", 0);
  /* forced on the MPI-IO back end: direct runs, right bytes */
  tu_arrays_write(&layout, out, no);
  darray_file_t f = tu_open(out, "darray_backend=mpiio;"
                            "darray_strategy=mapped", DARRAY_MODE_RDWR);
  TU_OK(darray_write(f, a, truth));
  TU_OK(darray_file_close(&f));
  tu_arrays_check(&layout, out, yes, "mapped forced on mpiio");
  char *buf = malloc((size_t)nb);
  darray_stats_t st;
  TU_OK(read_into(ref, "darray_backend=mpiio;darray_strategy=mapped", a, buf,
                  nb, &st));
  tu_compare_bytes(buf, truth, nb, "mapped forced on mpiio, read");
  free(buf);
}

/* A read past the end of the file: DARRAY_EEOF everywhere. */
static void past_the_end(const char *out, darray_t a, int64_t nb) {
  tu_arrays_write(&layout, out, yes);
  if (me == 0)
    TU_EQ_INT(truncate(out, ELEMS * 4), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  char *buf = malloc((size_t)nb);
  darray_stats_t st;
  TU_EQ_CODE(read_into(out, "darray_strategy=mapped;darray_map=enable", a,
                       buf, nb, &st),
             DARRAY_EEOF);
  free(buf);
}

/* One call under DARRAYIO_FAULT=rule: its code. */
static int faulty(const char *rule, const char *path, darray_t a, char *buf,
                  bool write, char *msg, size_t n) {
  setenv("DARRAYIO_FAULT", rule, 1);
  darray_file_t f = tu_open(path, "darray_strategy=mapped;darray_map=enable;"
                            "darray_map_window=4096",
                            write ? DARRAY_MODE_RDWR : DARRAY_MODE_RDONLY);
  unsetenv("DARRAYIO_FAULT");
  int rc = write ? darray_write(f, a, buf) : darray_read(f, a, buf);
  snprintf(msg, n, "%s", darray_file_errmsg(f));
  darray_file_close(&f);
  return rc;
}

static void faults(const char *ref, const char *out, darray_t a,
                   const char *truth, int64_t nb) {
  if (!tu_fault_injection()) {
    tu_skip_part("faults", "no --enable-fault-injection");
    return;
  }
  char rule[96], msg[1024], *buf = malloc((size_t)nb);
  snprintf(rule, sizeof rule, "op=reserve,error=ENOSPC,rank=%d", P - 1);
  tu_arrays_write(&layout, out, no);
  memcpy(buf, truth, (size_t)nb);
  TU_EQ_CODE(faulty(rule, out, a, buf, true, msg, sizeof msg),
             DARRAY_ENOSPC);
  tu_expect_failure_messages(msg, "No space left on device", "darray_write",
                             "reservation fails");
  /* no fallocate: the runs move directly */
  tu_arrays_write(&layout, out, no);
  TU_OK(faulty("op=reserve,error=95", out, a, buf, true, msg, sizeof msg));
  tu_arrays_check(&layout, out, yes, "no fallocate: direct runs");
  /* rank 0's second window of a page (it has a byte on every page) */
  TU_CHECK(me != 0 || my_pages() >= 2);
  TU_EQ_CODE(faulty("op=map,index=2,error=EIO,rank=0", ref, a, buf, false,
                    msg, sizeof msg),
             DARRAY_EIO);
  tu_expect_failure_messages(msg, "Input/output error", "darray_read",
                             "mapping fails");
  free(buf);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs(), me = tu_rank();
  char ref[512], out[512];
  if (tu_tmpname(ref, sizeof ref, "mapped_ref") == NULL ||
      tu_tmpname(out, sizeof out, "mapped_out") == NULL)
    return tu_finish();
  darray_t a = make();
  int64_t nb = 0;
  if (a == NULL || !TU_OK(darray_local_bytes(a, &nb)))
    return tu_finish();
  tu_arrays_write(&layout, ref, yes);
  char *truth = malloc((size_t)nb);
  darray_stats_t st;
  TU_OK(read_into(ref, "darray_strategy=direct", a, truth, nb, &st));
  writes_and_reads(ref, out, a, truth, nb);
  explain_and_backends(ref, out, a, truth, nb);
  faults(ref, out, a, truth, nb);
  past_the_end(out, a, nb);
  free(truth);
  darray_free(&a);
  tu_remove(ref);
  tu_remove(out);
  return tu_finish();
}
