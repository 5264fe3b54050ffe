/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_stats.c - darray_file_stats_summary (run at 1-4 processes):
 *  (a) after writes and reads in which the processes' counters differ
 *      (one aggregator does all the file I/O; rank 0 resets its counters
 *      halfway), every process receives the same summary, and each sum
 *      and maximum equals the one computed here from every process's
 *      darray_file_get_stats, gathered with MPI_Allgather; the bytes
 *      written add up to the array's bytes per write;
 *  (b) a pending nonblocking write counts once waited for, not before
 *      (MPI_THREAD_MULTIPLE: the file's I/O thread runs it);
 *  (c) sums beyond 64 bits: counters set near INT64_MAX sum to INT64_MAX
 *      (saturated) at P > 1, counters summing to exactly INT64_MAX, or
 *      carrying across 2^32, sum exactly;
 *  (d) errors: NULL s on one process returns DARRAY_ENULL on every
 *      process, the others' message naming that rank and its message; a
 *      failed reduction on one process (test/io/fault_wrap.c) returns
 *      DARRAY_EMPI on every process; a NULL handle DARRAY_EBADHANDLE.
 */
#include "testutil.h"
#include "file.h"
#include "io/fault_wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 7
#define COLS 9

static int P, me;

/* The counters of a darray_stats_t, in a fixed order. */
enum { NC = 11 };
static void counters_of(const darray_stats_t *st, int64_t v[NC]) {
  const int64_t c[NC] = {st->bytes_read,      st->bytes_written,
                         st->read_calls,      st->write_calls,
                         st->bytes_exchanged, st->cycles,
                         st->calls,           st->io_ns,
                         st->exchange_ns,     st->call_ns,
                         st->peak_temp_bytes};
  memcpy(v, c, sizeof c);
}

/* The oracle: every process's own counters, gathered, then summed and
 * maximized here (the counters are small: no overflow in this part). */
static void expected(darray_file_t f, int64_t sum[NC], int64_t max[NC]) {
  darray_stats_t st;
  int64_t mine[NC], *all = calloc((size_t)P * NC, sizeof *all);
  TU_OK(darray_file_get_stats(f, &st));
  counters_of(&st, mine);
  MPI_Allgather(mine, NC, MPI_INT64_T, all, NC, MPI_INT64_T, MPI_COMM_WORLD);
  for (int i = 0; i < NC; i++) {
    sum[i] = 0;
    max[i] = all[i];
    for (int r = 0; r < P; r++) {
      sum[i] += all[r * NC + i];
      if (all[r * NC + i] > max[i])
        max[i] = all[r * NC + i];
    }
  }
  free(all);
}

/* The summary against the oracle, and the same on every process. */
static void check_summary(darray_file_t f, const char *what) {
  int64_t sum[NC], max[NC];
  expected(f, sum, max);
  darray_stats_summary_t s;
  memset(&s, 0xff, sizeof s);
  if (!TU_OK(darray_file_stats_summary(f, &s)))
    return;
  const int64_t got_sum[NC - 1] = {
      s.bytes_read_sum,      s.bytes_written_sum, s.read_calls_sum,
      s.write_calls_sum,     s.bytes_exchanged_sum, s.cycles_sum,
      s.calls_sum,           s.io_ns_sum,         s.exchange_ns_sum,
      s.call_ns_sum};
  const int64_t got_max[NC] = {
      s.bytes_read_max,      s.bytes_written_max, s.read_calls_max,
      s.write_calls_max,     s.bytes_exchanged_max, s.cycles_max,
      s.calls_max,           s.io_ns_max,         s.exchange_ns_max,
      s.call_ns_max,         s.peak_temp_bytes_max};
  int bad = 0;
  for (int i = 0; i < NC; i++) {
    if (i < NC - 1)
      bad += !TU_EQ_I64(got_sum[i], sum[i]);
    bad += !TU_EQ_I64(got_max[i], max[i]);
  }
  bad += !TU_EQ_I64(s.nprocs, P);
  int64_t lo[sizeof s / 8], hi[sizeof s / 8];
  MPI_Allreduce(&s, lo, sizeof s / 8, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&s, hi, sizeof s / 8, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  bad += !TU_CHECK(memcmp(lo, hi, sizeof lo) == 0);
  if (bad)
    fprintf(stderr, "  rank %d: %s\n", me, what);
}

static darray_t make_array(void) {
  int64_t g[2] = {ROWS, COLS};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d, NULL));
  TU_OK(darray_commit(a));
  return a;
}

static darray_file_t open_with(const char *path, const char *hints) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f));
  MPI_Info_free(&info);
  return f;
}

/* (a) and (b) */
static void test_sums(const char *path, darray_t a, int32_t *buf) {
  /* one aggregator, tiny buffers: rank 0 writes every byte in several
   * cycles, the others only send theirs */
  darray_file_t f = open_with(path, "darray_strategy=twophase;cb_nodes=1;"
                                    "cb_buffer_size=64");
  if (f == NULL)
    return;
  check_summary(f, "a fresh file");
  TU_OK(darray_write(f, a, buf));
  TU_OK(darray_write(f, a, buf));
  TU_OK(darray_read(f, a, buf));
  check_summary(f, "two writes and a read");
  darray_stats_summary_t s;
  if (TU_OK(darray_file_stats_summary(f, &s))) { /* from the array itself */
    TU_EQ_I64(s.bytes_written_sum, 2 * ROWS * COLS * 4);
    TU_EQ_I64(s.calls_sum, 3 * P);
    /* the others sent data to the aggregator: sums unlike maxima */
    TU_CHECK(P == 1 || s.bytes_exchanged_sum > s.bytes_exchanged_max);
    TU_CHECK(s.cycles_max > 1);
    /* time: every process spent some in its calls, the aggregator in the
     * file, and the others waiting for the exchange */
    TU_CHECK(s.call_ns_max > 0 && s.call_ns_sum >= s.call_ns_max);
    TU_CHECK(s.io_ns_max > 0);
    TU_CHECK(P == 1 || s.exchange_ns_max > 0);
    darray_stats_t mine;
    TU_OK(darray_file_get_stats(f, &mine));
    TU_CHECK(mine.call_ns > 0);
    TU_CHECK(mine.call_ns >= mine.io_ns);
  }
  if (me == 0)
    TU_OK(darray_file_reset_stats(f));
  TU_OK(darray_write(f, a, buf));
  check_summary(f, "after rank 0 reset its counters");
  if (TU_OK(darray_file_stats_summary(f, &s))) {
    TU_EQ_I64(s.calls_sum, 1 + 4 * (P - 1));
    TU_EQ_I64(s.calls_max, P > 1 ? 4 : 1);
  }

  darray_request_t req = DARRAY_REQUEST_NULL;
  TU_OK(darray_file_stats_summary(f, &s));
  int64_t before = s.calls_sum;
  TU_OK(darray_iwrite(f, a, buf, &req));
  if (TU_OK(darray_file_stats_summary(f, &s)))
    TU_EQ_I64(s.calls_sum, before); /* pending: not yet counted */
  TU_OK(darray_wait(f, &req));
  if (TU_OK(darray_file_stats_summary(f, &s)))
    TU_EQ_I64(s.calls_sum, before + P);
  check_summary(f, "after a nonblocking write");
  TU_OK(darray_file_close(&f));
}

/* (c): the counters set directly in the handle (file.h). */
static void test_saturation(const char *path) {
  darray_file_t f = open_with(path, "");
  if (f == NULL)
    return;
  f->stats.bytes_written = INT64_MAX - me;
  f->stats.bytes_read = INT64_MAX / P + (me == 0 ? INT64_MAX % P : 0);
  f->stats.read_calls = (INT64_C(5) << 32) - 1; /* low half all ones */
  f->stats.peak_temp_bytes = INT64_MAX - me;
  darray_stats_summary_t s;
  if (TU_OK(darray_file_stats_summary(f, &s))) {
    TU_EQ_I64(s.bytes_written_sum, INT64_MAX); /* saturated at P > 1 */
    TU_EQ_I64(s.bytes_written_max, INT64_MAX);
    TU_EQ_I64(s.bytes_read_sum, INT64_MAX); /* exact */
    TU_EQ_I64(s.read_calls_sum, P * ((INT64_C(5) << 32) - 1));
    TU_EQ_I64(s.peak_temp_bytes_max, INT64_MAX);
  }
  TU_OK(darray_file_reset_stats(f));
  TU_OK(darray_file_close(&f));
}

/* (d) */
static void test_errors(const char *path) {
  darray_stats_summary_t s;
  TU_EQ_CODE(darray_file_stats_summary(NULL, &s), DARRAY_EBADHANDLE);
  darray_file_t f = open_with(path, "");
  if (f == NULL)
    return;
  int rc = darray_file_stats_summary(f, me == P - 1 ? NULL : &s);
  TU_EQ_CODE(rc, DARRAY_ENULL);
  tu_expect_failure_messages(darray_file_errmsg(f), "s is NULL", NULL,
                             "NULL summary on the last rank");

  fw_reset();
  if (me == P - 1)
    fw_rule(FW_IALLREDUCE, 1, MPI_ERR_OTHER);
  fw_arm(true);
  rc = darray_file_stats_summary(f, &s);
  fw_arm(false);
  TU_EQ_CODE(rc, DARRAY_EMPI);
  TU_EQ_I64(fw_injected(), me == P - 1 ? 1 : 0);
  tu_expect_failure_messages(darray_file_errmsg(f), "MPI_Allreduce failed",
                             "darray_file_stats_summary",
                             "a failed reduction on the last rank");
  fw_reset();
  TU_OK(darray_file_stats_summary(f, &s)); /* the handle still works */
  TU_OK(darray_file_close(&f));
}

int main(int argc, char **argv) {
  /* at MPI_THREAD_MULTIPLE the file's I/O thread runs the nonblocking
   * write of (b); below it, (b) runs in the mode the level allows */
  tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  P = tu_nprocs();
  me = tu_rank();
  char path[512];
  if (tu_tmpname(path, sizeof path, "stats") == NULL)
    return tu_finish();
  darray_t a = make_array();
  int64_t n = 0;
  TU_OK(darray_local_bytes(a, &n));
  int32_t *buf = calloc((size_t)n / 4 + 1, 4);
  for (int64_t i = 0; i < n / 4; i++)
    buf[i] = (int32_t)(me * 1000 + i);
  test_sums(path, a, buf);
  test_saturation(path);
  test_errors(path);
  free(buf);
  TU_OK(darray_free(&a));
  tu_remove(path);
  return tu_finish();
}
