/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * calibrate_lib.c - darray-calibrate's measurements made through the
 * library's own two-phase strategy: the cost of a cycle, and what the
 * servers of a striped file cost when aggregators meet on them.
 */
#include "calibrate.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The median time of `rounds` two-phase writes of one array (CYCLIC(64)
 * int32, 32 KiB per process: every process's pieces interleave) with
 * cb_buffer_size cb, and the cycles each took. */
static int tp_write(const char *path, int64_t cb, int64_t rounds,
                    double *t, int64_t *cycles) {
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int64_t g = (int64_t)P * 8192, arg = 64;
  darray_dist_t d = DARRAY_DIST_CYCLIC;
  darray_t a = NULL;
  darray_file_t f = NULL;
  char hints[128];
  snprintf(hints, sizeof hints, "%lld", (long long)cb);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "darray_strategy", "twophase");
  MPI_Info_set(info, "cb_buffer_size", hints);
  int rc = darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT32, &a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_distribution(a, &d, &arg);
  if (rc == DARRAY_SUCCESS)
    rc = darray_commit(a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_file_open(MPI_COMM_WORLD, path,
                          DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f);
  MPI_Info_free(&info);
  int32_t *buf = calloc(8192, sizeof *buf);
  double *ts = malloc(sizeof *ts * (size_t)(rounds + 1));
  darray_stats_t st;
  for (int64_t k = 0; rc == DARRAY_SUCCESS && k <= rounds; k++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = darray_write(f, a, buf);
    ts[k] = MPI_Wtime() - t0; /* k = 0: a warm-up */
    if (k == 0 && rc == DARRAY_SUCCESS)
      rc = darray_file_reset_stats(f);
  }
  if (rc == DARRAY_SUCCESS)
    rc = darray_file_get_stats(f, &st);
  if (rc == DARRAY_SUCCESS) {
    qsort(ts + 1, (size_t)rounds, sizeof *ts, cmp_double);
    *t = ts[1 + rounds / 2];
    *cycles = st.cycles / rounds;
    MPI_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  } else {
    fprintf(stderr, "%s: a two-phase write of '%s': %s\n", prog, path,
            darray_file_errmsg(f));
  }
  free(ts);
  free(buf);
  darray_file_close(&f);
  darray_free(&a);
  return rc == DARRAY_SUCCESS ? 0 : -1;
}

/* What one two-phase cycle costs, its file call included: the same
 * bytes written in few and in many cycles (cb_buffer_size 4 MiB and
 * 4 KiB), the difference per extra cycle. */
int calibrate_cycle(const char *path, int64_t rounds, double *c) {
  double t1 = 0, t2 = 0;
  int64_t n1 = 0, n2 = 0;
  if (tp_write(path, INT64_C(4) << 20, rounds, &t1, &n1) != 0 ||
      tp_write(path, 4096, rounds, &t2, &n2) != 0)
    return -1;
  *c = n2 > n1 ? (t2 - t1) / (double)(n2 - n1) : 0;
  return 0;
}

/* The time one set of rounds spent in file calls, every process's summed
 * (darray_file_stats_summary), per write: logical or layout domains over
 * a subfile set of P subfiles of `unit` bytes. */
static int servers_write(const char *path, darray_t a, const void *buf,
                         int64_t unit, bool layout, int direct, double *io) {
  char u[32], s[32];
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  snprintf(u, sizeof u, "%lld", (long long)unit);
  snprintf(s, sizeof s, "%d", P);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "darray_backend", "subfiles");
  MPI_Info_set(info, "striping_unit", u);
  MPI_Info_set(info, "striping_factor", s);
  MPI_Info_set(info, "darray_strategy", "twophase");
  MPI_Info_set(info, "darray_cb_domains", layout ? "layout" : "logical");
  if (direct)
    MPI_Info_set(info, "darray_direct_write", "enable");
  darray_file_t f = NULL;
  darray_stats_summary_t sum;
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                DARRAY_MODE_TRUNC,
                            info, &f);
  MPI_Info_free(&info);
  if (rc == DARRAY_SUCCESS)
    rc = darray_write(f, a, buf);
  if (rc == DARRAY_SUCCESS)
    rc = darray_file_stats_summary(f, &sum);
  if (rc == DARRAY_SUCCESS)
    *io = (double)sum.io_ns_sum;
  else
    fprintf(stderr, "%s: a two-phase write of the subfile set '%s': %s\n",
            prog, path, f != NULL ? darray_file_errmsg(f)
                                  : darray_errmsg(NULL));
  if (f != NULL && darray_file_close(&f) != DARRAY_SUCCESS &&
      rc == DARRAY_SUCCESS)
    rc = DARRAY_EIO;
  return rc;
}

/*
 * Every process an aggregator of one domain of R bytes (R a multiple of
 * P stripes of 1 MiB), so that with logical domains every aggregator
 * starts its domain on server 0 and all P of them are on the same server
 * in every cycle; layout domains give each its own. The array is
 * CYCLIC(256) int32 (1 KiB pieces: every chunk holds every process's
 * data). The ratio of the file calls' time, logical over
 * layout (medians of alternated rounds), less one, per further aggregator
 * on a server, is the percent: 100 where a server serves its aggregators
 * one after another, 0 where meeting costs nothing.
 */
int calibrate_servers(const char *path, int64_t mib, int64_t rounds,
                      int direct, int64_t *pct, int *meet) {
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  *pct = 0;
  *meet = 0;
  if (P < 2)
    return 0;
  const int64_t unit = INT64_C(1) << 20;
  int64_t per = mib < 64 ? mib : 64; /* MiB per process, whole P stripes */
  per = per / P * P > 0 ? per / P * P : P;
  int64_t g = (int64_t)P * per * (unit / 4), arg = 256;
  darray_dist_t d = DARRAY_DIST_CYCLIC;
  darray_t a = NULL;
  int rc = darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT32, &a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_distribution(a, &d, &arg);
  if (rc == DARRAY_SUCCESS)
    rc = darray_commit(a);
  char *buf = calloc((size_t)(per * unit), 1);
  double *t = malloc(sizeof *t * (size_t)(2 * rounds));
  int nomem = buf == NULL || t == NULL; /* known everywhere: no one waits
                                           in a write another skipped */
  MPI_Allreduce(MPI_IN_PLACE, &nomem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rc == DARRAY_SUCCESS && nomem) {
    fprintf(stderr, "%s: out of memory (%lld bytes)\n", prog,
            (long long)(per * unit));
    rc = DARRAY_ENOMEM;
  }
  /* a warm-up of each, then the rounds alternated */
  for (int64_t k = -1; rc == DARRAY_SUCCESS && k < rounds; k++)
    for (int lay = 0; lay < 2 && rc == DARRAY_SUCCESS; lay++) {
      double io = 0;
      rc = servers_write(path, a, buf, unit, lay, direct, &io);
      if (k >= 0)
        t[lay * rounds + k] = io;
    }
  if (rc == DARRAY_SUCCESS) {
    qsort(t, (size_t)rounds, sizeof *t, cmp_double);
    qsort(t + rounds, (size_t)rounds, sizeof *t, cmp_double);
    double lg = t[rounds / 2], ly = t[rounds + rounds / 2];
    double v = ly > 0 ? 100 * (lg / ly - 1) / (P - 1) : 0;
    *pct = v < 0 ? 0 : v > 1000 ? 1000 : (int64_t)(v + 0.5);
    *meet = P;
  }
  free(t);
  free(buf);
  darray_free(&a);
  return rc == DARRAY_SUCCESS ? 0 : -1;
}

/* One exchange with the process paired to this one: n bytes each way as
 * k messages, posted at once and completed together; seconds. */
#define MESSAGES 64

static double exchange_in(char *out, char *in, int64_t n, int k, int peer) {
  MPI_Request r[2 * MESSAGES];
  MPI_Status s[2 * MESSAGES]; /* MPI_STATUSES_IGNORE trips GCC's check of
                                 MPICH's access attributes */
  if (k < 1 || k > MESSAGES)
    return 0;
  int64_t each = n / k;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int j = 0; j < k; j++) {
    MPI_Irecv(in + j * each, (int)each, MPI_BYTE, peer, j, MPI_COMM_WORLD,
              &r[2 * j]);
    MPI_Isend(out + j * each, (int)each, MPI_BYTE, peer, j, MPI_COMM_WORLD,
              &r[2 * j + 1]);
  }
  MPI_Waitall(2 * k, r, s);
  return MPI_Wtime() - t;
}

/*
 * What one more message costs a process beyond its bytes: processes in
 * pairs (rank ^ 1; a last odd process only keeps time) exchange 4 MiB
 * each way as 64 messages of 64 KiB (each a rendezvous where MPI sends
 * long messages so) and as one; medians of alternated rounds, the
 * difference per extra message, the slowest pair's.
 */
int calibrate_message(int64_t rounds, double *per) {
  const int K = MESSAGES;
  const int64_t n = INT64_C(4) << 20;
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int peer = rank ^ 1, solo = peer >= P;
  char *buf = malloc((size_t)(2 * n));
  double *t = malloc(sizeof *t * (size_t)(2 * rounds));
  int failed = buf == NULL || t == NULL;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  *per = 0;
  if (failed) {
    fprintf(stderr, "%s: out of memory (%lld bytes)\n", prog,
            (long long)(2 * n));
    free(buf);
    free(t);
    return -1;
  }
  memset(buf, rank + 1, (size_t)(2 * n)); /* touched before timing */
  for (int64_t k = -1; k < rounds; k++)  /* k = -1: a warm-up */
    for (int many = 0; many < 2; many++) {
      double s = solo ? (MPI_Barrier(MPI_COMM_WORLD), 0)
                      : exchange_in(buf, buf + n, n, many ? K : 1, peer);
      if (k >= 0)
        t[many * rounds + k] = s;
    }
  qsort(t, (size_t)rounds, sizeof *t, cmp_double);
  qsort(t + rounds, (size_t)rounds, sizeof *t, cmp_double);
  double v = (t[rounds + rounds / 2] - t[rounds / 2]) / (K - 1);
  *per = v > 0 ? v : 0;
  MPI_Allreduce(MPI_IN_PLACE, per, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  free(buf);
  free(t);
  return 0;
}
