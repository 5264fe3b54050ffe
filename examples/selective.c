/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * selective - selective collective I/O: let the storage advisor choose the
 * file's storage order from the programs that read it, then compare three
 * ways of reading: always independent, always collective, and darrayio's
 * own choice per access (collective only where the access does not conform
 * to the storage order).
 *
 * The experiment, at small scale: a producer writes an N x N array of
 * 4-byte integers distributed by BLOCK rows. Two consumers read it back
 * over and over: "rows" by BLOCK rows and "cols" by BLOCK columns, each as
 * many times per repetition as its weight. The advisor (darray_advise_
 * storage) picks the storage order that the most weight conforms to; under
 * it one consumer reads one contiguous stretch per process and the other
 * interleaves with its peers. Each consumer then reads with
 *   (a) darray_strategy=direct    every process moves its own runs,
 *   (b) darray_strategy=twophase  every read is collective,
 *   (c) darray_strategy=auto      the planner decides per access,
 * and every read is checked element by element against the value the
 * producer wrote (a function of the global index). The modes take turns
 * within each repetition, after one untimed round of reads.
 *
 * Build: make            (builds examples/selective)
 * Run:   mpiexec -n 4 examples/selective -n 2048 --reps 3 --weights 3,1
 *
 * Options:
 *   -n N              rows and columns (default 1024)
 *   --reps R          repetitions of the consumers' reads (default 2)
 *   --weights WR,WC   reads of "rows" and "cols" per repetition; also their
 *                     weights for the advisor (default 3,1)
 *   --order O         advisor (default), C or F: the storage order
 *   --dir DIR         where the file goes (default .)
 *   --keep            do not remove the file
 *   -h, --help        print the usage and exit 0
 *
 * Prints, from rank 0, the advisor's choice, one line per mode with the
 * total read time of each consumer, and the ratios to auto; then
 * "selective: verified N reads, OK" (exit 0), or the first wrong element
 * and exit 1. A darrayio error prints its message and exits 2.
 */
#include "darrayio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS, COLS, NCONS };
enum { DIRECT, TWOPHASE, AUTO, NMODES };
static const char *const mode_name[NMODES] = {"direct", "twophase", "auto"};
static const char *const cons_name[NCONS] = {"rows", "cols"};

typedef struct options {
  int64_t n;
  int reps;
  int weight[NCONS];
  char order; /* 'a' advisor, 'C', 'F' */
  const char *dir;
  int keep;
  int help;
} options_t;

/* The usage line on stderr after a bad option (bad != NULL, returns -1),
 * or with the option list on stdout for -h/--help. */
static int usage(const char *prog, const char *bad) {
  FILE *out = bad ? stderr : stdout;
  if (bad)
    fprintf(out, "%s: bad option '%s'\n", prog, bad);
  fprintf(out, "usage: %s [-n N] [--reps R] [--weights WR,WC] "
               "[--order advisor|C|F] [--dir DIR] [--keep] [-h|--help]\n",
          prog);
  if (!bad)
    fprintf(out,
            "  -n N             rows and columns (default 1024)\n"
            "  --reps R         repetitions of the consumers' reads "
            "(default 2)\n"
            "  --weights WR,WC  reads of rows and cols per repetition, "
            "and their weights\n"
            "                   for the storage advisor (default 3,1)\n"
            "  --order O        advisor (default), C or F: the storage "
            "order\n"
            "  --dir DIR        where the file goes (default .)\n"
            "  --keep           do not remove the file\n"
            "  -h, --help       this text\n");
  return -1;
}

static int parse(int argc, char **argv, options_t *o) {
  *o = (options_t){1024, 2, {3, 1}, 'a', ".", 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help = 1;
    } else if (!strcmp(a, "-n") && v) {
      o->n = strtoll(v, NULL, 10);
      i++;
    } else if (!strcmp(a, "--reps") && v) {
      o->reps = atoi(v);
      i++;
    } else if (!strcmp(a, "--weights") && v) {
      if (sscanf(v, "%d,%d", &o->weight[ROWS], &o->weight[COLS]) != 2 ||
          o->weight[ROWS] < 0 || o->weight[COLS] < 0)
        return usage(argv[0], v);
      i++;
    } else if (!strcmp(a, "--order") && v) {
      o->order = !strcmp(v, "advisor") ? 'a'
                 : !strcmp(v, "C")     ? 'C'
                 : !strcmp(v, "F")     ? 'F'
                                       : 0;
      if (!o->order)
        return usage(argv[0], v);
      i++;
    } else if (!strcmp(a, "--dir") && v) {
      o->dir = v;
      i++;
    } else if (!strcmp(a, "--keep")) {
      o->keep = 1;
    } else {
      return usage(argv[0], a);
    }
  }
  if (o->n < 1 || o->reps < 1 || o->weight[ROWS] + o->weight[COLS] < 1)
    return usage(argv[0], "(values)");
  return 0;
}

/* The value of element (i, j): odd, so a zeroed buffer never passes, and
 * different for every element, so a transposed one does not either. */
static uint32_t value(int64_t n, int64_t i, int64_t j) {
  return (uint32_t)(i * n + j) * 2u + 1u;
}

/* Fill (check == 0) or check the local block; returns wrong elements. */
static int64_t sweep(darray_t a, int64_t n, uint32_t *buf, int check,
                     const char *who) {
  int64_t ls[2], st[2], bad = 0, p = 0;
  darray_local_shape(a, 0, ls);
  darray_local_start(a, 0, st);
  for (int64_t i = 0; i < ls[0]; i++)
    for (int64_t j = 0; j < ls[1]; j++, p++) {
      uint32_t v = value(n, st[0] + i, st[1] + j);
      if (!check)
        buf[p] = v;
      else if (buf[p] != v && bad++ == 0)
        fprintf(stderr, "selective: %s read element (%" PRId64 ",%" PRId64
                        ") = %u, expected %u\n", who, st[0] + i, st[1] + j,
                (unsigned)buf[p], (unsigned)v);
    }
  return bad;
}

static int fail(int rc, const char *what, const char *msg) {
  fprintf(stderr, "selective: %s: %s (%s): %s\n", what, darray_err_name(rc),
          darray_strerror(rc), msg);
  return 2;
}

/* A 2-D array distributed by BLOCK along dimension `split`, stored in
 * storage order perm. */
static int make_array(int64_t n, int split, const int *perm, darray_t *a) {
  int64_t g[2] = {n, n};
  darray_dist_t d[2] = {DARRAY_DIST_NONE, DARRAY_DIST_NONE};
  int P, grid[2] = {1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  d[split] = DARRAY_DIST_BLOCK;
  grid[split] = P;
  int rc = darray_create(MPI_COMM_WORLD, 2, g, DARRAY_UINT32, a);
  if (rc)
    return fail(rc, "darray_create", darray_errmsg(NULL));
  if ((rc = darray_set_distribution(*a, d, NULL)) ||
      (rc = darray_set_grid(*a, grid)) ||
      (rc = darray_set_storage_order(*a, DARRAY_ORDER_PERM, perm)) ||
      (rc = darray_commit(*a)))
    return fail(rc, "describing the array", darray_errmsg(*a));
  return 0;
}

static int open_file(const char *path, int mode, const char *strategy,
                     darray_file_t *f) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "darray_strategy", strategy);
  int rc = darray_file_open(MPI_COMM_WORLD, path, mode, info, f);
  MPI_Info_free(&info);
  if (rc)
    return fail(rc, "darray_file_open", darray_errmsg(NULL));
  return 0;
}

/* The advisor's choice (or the forced one) into perm; prints it. */
static int choose_order(const options_t *o, int P, int rank, int perm[2]) {
  darray_consumer_t c[NCONS];
  memset(c, 0, sizeof c);
  for (int k = 0; k < NCONS; k++) {
    c[k].name = cons_name[k];
    c[k].weight = o->weight[k];
    c[k].nprocs = P;
    c[k].dist[k == ROWS ? 0 : 1] = DARRAY_DIST_BLOCK;
  }
  int64_t g[2] = {o->n, o->n};
  darray_advice_t adv;
  darray_consumer_verdict_t v[NCONS];
  int rc = darray_advise_storage(2, g, 4, NCONS, c, &adv, v);
  if (rc)
    return fail(rc, "darray_advise_storage", darray_errmsg(NULL));
  memcpy(perm, adv.perm, sizeof adv.perm[0] * 2);
  if (o->order != 'a') {
    perm[0] = o->order == 'C' ? 0 : 1;
    perm[1] = 1 - perm[0];
    rc = darray_advise_order(2, g, 4, NCONS, c, perm, &adv, v);
    if (rc)
      return fail(rc, "darray_advise_order", darray_errmsg(NULL));
  }
  if (rank == 0) {
    double kib = (double)o->n * (double)o->n * 4 / 1024;
    printf("selective: %" PRId64 " x %" PRId64 " uint32 (%.1f %s), %d "
           "processes, %d repetitions\n", o->n, o->n,
           kib >= 1024 ? kib / 1024 : kib, kib >= 1024 ? "MiB" : "KiB", P,
           o->reps);
    printf("  storage order %d %d (%s, %s): conforming weight %g of %g\n",
           perm[0], perm[1], perm[0] == 0 ? "C" : "Fortran",
           o->order == 'a' ? "the advisor's choice" : "forced by --order",
           adv.conforming_weight, adv.total_weight);
    for (int k = 0; k < NCONS; k++)
      printf("  %s: BLOCK %s, %d reads per repetition: %s\n", cons_name[k],
             k == ROWS ? "rows" : "columns", o->weight[k],
             v[k].verdict == DARRAY_VERDICT_CONFORMING
                 ? "conforming (one stretch per process)"
             : v[k].verdict == DARRAY_VERDICT_INTERLEAVED
                 ? "interleaved (needs collective I/O)"
                 : "fragmented");
  }
  return 0;
}

/* The producer: write the array once, by BLOCK rows. */
static int produce(const options_t *o, const char *path, const int *perm,
                   int rank) {
  darray_t a;
  darray_file_t f;
  int rc = make_array(o->n, 0, perm, &a);
  if (rc)
    return rc;
  int64_t nbytes;
  darray_local_bytes(a, &nbytes);
  uint32_t *buf = malloc(nbytes > 0 ? (size_t)nbytes : 1);
  sweep(a, o->n, buf, 0, "producer");
  if ((rc = open_file(path, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                DARRAY_MODE_TRUNC, "auto", &f))) {
    free(buf);
    return rc;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  rc = darray_write(f, a, buf);
  t = MPI_Wtime() - t;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  darray_stats_t st;
  darray_file_get_stats(f, &st);
  if (rc)
    rc = fail(rc, "darray_write", darray_file_errmsg(f));
  else if (rank == 0)
    printf("  producer (BLOCK rows) wrote it in %.4f s (%s)\n", t,
           st.strategy);
  darray_file_close(&f);
  darray_free(&a);
  free(buf);
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  options_t o;
  int rc = parse(argc, argv, &o) ? 2 : 0;
  if (rc == 0 && o.help) {
    if (rank == 0)
      usage(argv[0], NULL);
    MPI_Finalize();
    return 0;
  }
  char path[1024];
  int perm[2];
  if (rc == 0) {
    snprintf(path, sizeof path, "%s/selective.dat", o.dir);
    rc = choose_order(&o, P, rank, perm);
  }
  if (rc == 0)
    rc = produce(&o, path, perm, rank);

  /* the consumers' arrays, and a buffer that fits either */
  darray_t a[NCONS] = {NULL, NULL};
  uint32_t *buf[NCONS] = {NULL, NULL};
  int64_t nbytes[NCONS] = {0, 0};
  for (int k = 0; rc == 0 && k < NCONS; k++) {
    rc = make_array(o.n, k == ROWS ? 0 : 1, perm, &a[k]);
    if (rc == 0) {
      darray_local_bytes(a[k], &nbytes[k]);
      buf[k] = malloc(nbytes[k] > 0 ? (size_t)nbytes[k] : 1);
    }
  }

  /* one file handle per mode; the modes take turns within each
   * repetition, after one untimed (but verified) round that warms up the
   * page cache and every code path, so no mode pays the others' first
   * touches */
  darray_file_t f[NMODES] = {NULL, NULL, NULL};
  for (int m = 0; rc == 0 && m < NMODES; m++)
    rc = open_file(path, DARRAY_MODE_RDONLY, mode_name[m], &f[m]);
  double t[NMODES][NCONS] = {{0}};
  char used[NMODES][NCONS][16];
  memset(used, 0, sizeof used);
  int64_t bad = 0, reads = 0;
  for (int r = -1; rc == 0 && r < o.reps; r++)
    for (int m = 0; rc == 0 && m < NMODES; m++)
      for (int k = 0; rc == 0 && k < NCONS; k++)
        for (int w = 0; rc == 0 && w < (r < 0 ? 1 : o.weight[k]); w++) {
          memset(buf[k], 0, (size_t)nbytes[k]);
          MPI_Barrier(MPI_COMM_WORLD);
          double t0 = MPI_Wtime();
          rc = darray_read(f[m], a[k], buf[k]);
          double dt = MPI_Wtime() - t0;
          MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX,
                        MPI_COMM_WORLD);
          if (rc) {
            rc = fail(rc, "darray_read", darray_file_errmsg(f[m]));
            break;
          }
          if (r >= 0)
            t[m][k] += dt;
          darray_stats_t st;
          darray_file_get_stats(f[m], &st);
          memcpy(used[m][k], st.strategy, sizeof used[m][k]);
          bad += sweep(a[k], o.n, buf[k], 1, cons_name[k]);
          reads++;
        }
  for (int m = 0; m < NMODES; m++)
    if (f[m] != NULL)
      darray_file_close(&f[m]);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

  if (rc == 0 && rank == 0) {
    double ta = t[AUTO][ROWS] + t[AUTO][COLS];
    printf("  %-9s %12s %12s %12s %9s  %s\n", "mode", "rows reads",
           "cols reads", "total", "vs auto", "strategy (rows/cols)");
    for (int m = 0; m < NMODES; m++) {
      double tot = t[m][ROWS] + t[m][COLS];
      printf("  %-9s %10.4f s %10.4f s %10.4f s %8.2fx  %s/%s\n",
             mode_name[m], t[m][ROWS], t[m][COLS], tot,
             ta > 0 ? tot / ta : 0.0, used[m][ROWS][0] ? used[m][ROWS] : "-",
             used[m][COLS][0] ? used[m][COLS] : "-");
    }
    double td = t[DIRECT][ROWS] + t[DIRECT][COLS];
    double tt = t[TWOPHASE][ROWS] + t[TWOPHASE][COLS];
    if (tt > 0 && td > 0)
      printf("  auto's time against always collective: %+.1f%%, against "
             "always independent: %+.1f%%\n",
             100 * (ta - tt) / tt, 100 * (ta - td) / td);
  }
  for (int k = 0; k < NCONS; k++) {
    darray_free(&a[k]);
    free(buf[k]);
  }
  if (rc == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !o.keep)
      remove(path);
    if (rank == 0)
      printf(bad ? "selective: %" PRId64 " wrong elements, FAILED\n"
                 : "selective: verified %" PRId64 " reads, OK\n",
             bad ? bad : reads);
    rc = bad ? 1 : 0;
  }
  MPI_Finalize();
  return rc;
}
