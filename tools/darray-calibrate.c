/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray-calibrate - measure the constants of darrayio's cost model
 * (doc/planner.md) on the processes it runs on and the file system of a
 * directory, and print them as the hint line to use there:
 *
 *   mpiexec -n 4 darray-calibrate --dir /scratch/me
 *
 * Every process measures at once, as a strategy's call would run:
 *  - darray_ds_wr_latency_ns, darray_ds_rd_latency_ns: small calls (8
 *    bytes, each in a page of its own) into the process's region of one
 *    scratch file, less what their bytes cost at the bandwidth below;
 *  - darray_ds_bandwidth_mbs: the region (--mib) written (again: a first
 *    pass untimed) and read back in 4 MiB calls, the slower of the two;
 *  - darray_cb_exchange_mbs (two processes or more): processes in pairs
 *    send each other --mib in 4 MiB messages, every byte counted when sent
 *    and when received, as two-phase's estimate counts it;
 *  - darray_cb_cycle_ns: what a two-phase cycle costs besides its file
 *    call: one array (CYCLIC(64) int32, 32 KiB per process) written by
 *    the library's two-phase strategy in few and in many cycles
 *    (cb_buffer_size 4 MiB and 4 KiB; medians of --rounds writes), the
 *    difference per extra cycle less the small write's latency above
 *    (the model charges each cycle a file call and this; 0 when a
 *    cycle's 4 KiB write costs less than the small writes);
 *  - darray_map_wr_mbs, darray_map_rd_mbs (where the kernel populates
 *    mappings, Linux 5.14): what the mapped strategy pays to make a
 *    window's pages ready, on top of copying its bytes: the process's
 *    region of a new file, its blocks reserved, mapped in windows of
 *    16 MiB and populated for writing, then mapped again and populated
 *    for reading; bytes of window per second (calibrate_map.c);
 *  - darray_cb_message_ns, darray_server_contention (two processes or
 *    more; calibrate_lib.c): 64 messages against one of the same bytes,
 *    and two-phase writes of a subfile set with logical domains (every
 *    aggregator on one subfile in every cycle) against layout domains.
 * Latencies and the cycle take the largest process's median, rates the
 * smallest process's: the slowest process sets a collective call's time.
 * The line is checked by opening a file with it (the library's own
 * parser); the scratch file is removed.
 *
 * Exit status: 0 on success, 1 when a measurement failed (the message
 * names the file and the system's error), 2 on a usage error.
 */
#include "calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prog = "darray-calibrate";

#define PIECE (INT64_C(4) << 20) /* bytes per large call or message */

/* The large call or message at k of n bytes. */
static size_t piece(int64_t k, int64_t n) {
  return (size_t)(n - k < PIECE ? n - k : PIECE);
}

typedef struct opts {
  const char *dir;
  int64_t mib, calls, rounds;
  int quiet;
  int direct; /* the servers' contention with darray_direct_write */
} opts_t;

static void usage(FILE *out) {
  fprintf(out,
      "usage: %s [--dir DIR] [--mib M] [--calls N] [--rounds R] [--direct]\n"
      "       [--quiet]\n"
      "\n"
      "Measure darrayio's cost-model constants (file call latencies and\n"
      "bandwidth in DIR, the exchange rate, message and synchronization\n"
      "costs of the processes it runs on, the contention of a subfile set\n"
      "in DIR) and print them as a hint line.\n"
      "\n"
      "  --dir DIR    directory of the scratch file (default .)\n"
      "  --mib M      MiB per process for the bandwidth and the exchange\n"
      "               (default 64, at most 4096)\n"
      "  --calls N    small file calls per process for each latency\n"
      "               (default 2000)\n"
      "  --rounds R   rounds timed for the cycle, the message and the\n"
      "               servers' contention (default 20)\n"
      "  --direct     measure the servers' contention with direct writes\n"
      "               (darray_direct_write=enable), for programs that use\n"
      "               them\n"
      "  --quiet      print only the hint line\n"
      "  --help       this text\n"
      "  --version    the version of darrayio this tool runs with\n",
      prog);
}

static int number(const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end = NULL;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi)
    return -1;
  *v = x;
  return 0;
}

/* 0: go on, 1: done (help, version), 2: usage error. */
static int parse(int argc, char **argv, opts_t *o, int rank) {
  *o = (opts_t){".", 64, 2000, 20, 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (rank == 0)
        usage(stdout);
      return 1;
    } else if (!strcmp(a, "--version")) {
      if (rank == 0)
        printf("%s (darrayio) %s\n", prog, darray_version_string());
      return 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else if (!strcmp(a, "--direct")) {
      o->direct = 1;
    } else if (!strcmp(a, "--dir") && v) {
      o->dir = argv[++i];
    } else if (!strcmp(a, "--mib") && v) {
      bad = number(argv[++i], 1, 4096, &o->mib);
    } else if (!strcmp(a, "--calls") && v) {
      bad = number(argv[++i], 1, 10000000, &o->calls);
    } else if (!strcmp(a, "--rounds") && v) {
      bad = number(argv[++i], 1, 10000000, &o->rounds);
    } else {
      bad = 1;
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr, "%s: bad option or value: %s\n", prog, a);
        usage(stderr);
      }
      return 2;
    }
  }
  return 0;
}

int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Every process's failure (or none) known everywhere: 1 if any. */
static int any(int failed) {
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return failed;
}

/* The file constants of this process: seconds per small write and read,
 * and the large calls' bytes per second (the slower way). */
typedef struct filecost {
  double wr, rd, bw;
} filecost_t;

static int file_costs(int fd, char *buf, int64_t region, int64_t base,
                      int64_t calls, filecost_t *c, char *err, size_t n) {
  /* a first pass, not timed: the file's pages exist, as for a program
   * that rewrites its output (a first write's page allocation is the
   * kernel's, and on a VM that hands freed memory back, the host's) */
  for (int64_t k = 0; k < region; k += PIECE)
    if (pwrite(fd, buf + k, piece(k, region), (off_t)(base + k)) !=
        (ssize_t)piece(k, region))
      goto fail;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime(), tw, tr;
  for (int64_t k = 0; k < region; k += PIECE)
    if (pwrite(fd, buf + k, piece(k, region), (off_t)(base + k)) !=
        (ssize_t)piece(k, region))
      goto fail;
  tw = MPI_Wtime() - t;
  t = MPI_Wtime();
  for (int64_t k = 0; k < region; k += PIECE)
    if (pread(fd, buf + k, piece(k, region), (off_t)(base + k)) !=
        (ssize_t)piece(k, region))
      goto fail;
  tr = MPI_Wtime() - t;
  c->bw = (double)region / (tw > tr ? tw : tr);
  int64_t pages = region / 4096;
  t = MPI_Wtime();
  for (int64_t k = 0; k < calls; k++)
    if (pwrite(fd, buf, 8, (off_t)(base + k % pages * 4096)) != 8)
      goto fail;
  c->wr = (MPI_Wtime() - t) / (double)calls;
  t = MPI_Wtime();
  for (int64_t k = 0; k < calls; k++)
    if (pread(fd, buf, 8, (off_t)(base + k % pages * 4096)) != 8)
      goto fail;
  c->rd = (MPI_Wtime() - t) / (double)calls;
  return 0;
fail:
  snprintf(err, n, "%s", errno ? strerror(errno) : "short transfer");
  return -1;
}

/* Bytes per second each process sends plus receives, paired with
 * rank ^ 1 (a last odd process idles: its rate does not count). */
static double exchange_rate(char *buf, int64_t bytes, int rank, int P) {
  int peer = rank ^ 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (peer < P) {
    char *in = buf + bytes; /* the second half of the buffer */
    for (int64_t k = 0; k < bytes; k += PIECE) {
      MPI_Request r[2];
      MPI_Status s[2];
      int len = (int)piece(k, bytes);
      MPI_Irecv(in + k, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(buf + k, len, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, s);
    }
  }
  double rate = peer < P ? 2.0 * (double)bytes / (MPI_Wtime() - t) : 1e300;
  MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return rate;
}

static int64_t clamp(double v, int64_t lo, int64_t hi) {
  return v < (double)lo ? lo : v > (double)hi ? hi : (int64_t)(v + 0.5);
}

/* Open a file under the line's hints: the library's parser must accept
 * every value. */
static int check_line(const char *line, const char *path) {
  MPI_Info info;
  MPI_Info_create(&info);
  char *copy = strdup(line), *save = NULL;
  for (char *kv = strtok_r(copy, ";", &save); kv != NULL;
       kv = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(kv, '=');
    *eq = '\0';
    MPI_Info_set(info, kv, eq + 1);
  }
  free(copy);
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f);
  MPI_Info_free(&info);
  if (rc != DARRAY_SUCCESS) {
    fprintf(stderr, "%s: the library refuses the hint line: %s\n", prog,
            darray_file_errmsg(NULL));
    return -1;
  }
  return darray_file_close(&f) == DARRAY_SUCCESS ? 0 : -1;
}

/* The constants in the hints' units (0: not measured). */
typedef struct consts {
  int P, meet;
  int64_t lr, lw, mbs, xmbs, cns, mns, sc, mrd, mwr;
  double cy; /* a cycle with its file call, s */
} consts_t;

/* The constants, one per line, with the hints they set. */
static void report(const opts_t *o, const consts_t *k) {
  printf("%s: %d processes, directory %s, %lld MiB and %lld small calls "
         "per process\n", prog, k->P, o->dir, (long long)o->mib,
         (long long)o->calls);
  printf("  small read     %10lld ns per call   darray_ds_rd_latency_ns\n",
         (long long)k->lr);
  printf("  small write    %10lld ns per call   darray_ds_wr_latency_ns\n",
         (long long)k->lw);
  printf("  large calls    %10lld MB/s          darray_ds_bandwidth_mbs\n",
         (long long)k->mbs);
  if (k->P > 1)
    printf("  exchange       %10lld MB/s          darray_cb_exchange_mbs\n",
           (long long)k->xmbs);
  else
    printf("  exchange       not measured at one process "
           "(darray_cb_exchange_mbs keeps its default)\n");
  printf("  two-phase cycle%10lld ns per cycle  darray_cb_cycle_ns (%lld ns "
         "with its file call)\n", (long long)k->cns,
         (long long)clamp(k->cy * 1e9, 0, 1000000000));
  if (k->P > 1)
    printf("  message        %10lld ns more each  darray_cb_message_ns\n",
           (long long)k->mns);
  if (k->meet > 1)
    printf("  servers        %10lld %% per meeting darray_server_contention "
           "(%d aggregators on one subfile of 1 MiB stripes%s)\n",
           (long long)k->sc, k->meet, o->direct ? ", direct writes" : "");
  else
    printf("  servers        not measured at one process "
           "(darray_server_contention keeps its default)\n");
  if (k->mrd > 0) {
    printf("  mapped, reads  %10lld MB/s          darray_map_rd_mbs\n",
           (long long)k->mrd);
    printf("  mapped, writes %10lld MB/s          darray_map_wr_mbs\n",
           (long long)k->mwr);
  } else {
    printf("  mapped         not measured: the kernel cannot populate "
           "mappings (darray_map_*_mbs keep their defaults)\n");
  }
}

/* The hint line of the constants (the measured ones only). */
static void hint_line(const consts_t *k, char *line, size_t size) {
  int n = snprintf(line, size,
                   "darray_ds_rd_latency_ns=%lld;darray_ds_wr_latency_ns=%lld;"
                   "darray_ds_bandwidth_mbs=%lld",
                   (long long)k->lr, (long long)k->lw, (long long)k->mbs);
  if (k->P > 1)
    n += snprintf(line + n, size - (size_t)n, ";darray_cb_exchange_mbs=%lld",
                  (long long)k->xmbs);
  n += snprintf(line + n, size - (size_t)n, ";darray_cb_cycle_ns=%lld",
                (long long)k->cns);
  if (k->P > 1)
    n += snprintf(line + n, size - (size_t)n, ";darray_cb_message_ns=%lld",
                  (long long)k->mns);
  if (k->meet > 1)
    n += snprintf(line + n, size - (size_t)n,
                  ";darray_server_contention=%lld", (long long)k->sc);
  if (k->mrd > 0)
    snprintf(line + n, size - (size_t)n,
             ";darray_map_rd_mbs=%lld;darray_map_wr_mbs=%lld",
             (long long)k->mrd, (long long)k->mwr);
}

/* The file's costs and the exchange rate (s per call, bytes per s), the
 * slowest process's; -1 when a process failed (each says why). */
static int file_and_exchange(const opts_t *o, long id, int rank, int P,
                             filecost_t *c, double *xr) {
  int64_t region = o->mib << 20;
  char path[4096], err[256] = "";
  snprintf(path, sizeof path, "%s/darray-calibrate.%ld.tmp", o->dir, id);
  char *buf = malloc((size_t)(2 * region));
  int fd = -1, failed = buf == NULL;
  if (failed)
    snprintf(err, sizeof err, "out of memory (%lld bytes)",
             (long long)(2 * region));
  else
    memset(buf, rank + 1, (size_t)(2 * region)); /* touched before timing */
  if (!failed && (fd = open(path, O_RDWR | O_CREAT, 0600)) < 0) {
    snprintf(err, sizeof err, "%s", strerror(errno));
    failed = 1;
  }
  *c = (filecost_t){0, 0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  if (!failed)
    failed = file_costs(fd, buf, region, rank * region, o->calls, c, err,
                        sizeof err) != 0;
  if (fd >= 0)
    close(fd);
  if (rank == 0 && fd >= 0)
    unlink(path);
  if (failed)
    fprintf(stderr, "%s: process %d: '%s': %s\n", prog, rank, path, err);
  if (any(failed)) {
    free(buf);
    return -1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &c->wr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &c->rd, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &c->bw, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  *xr = P > 1 ? exchange_rate(buf, region, rank, P) : 0;
  free(buf);
  return 0;
}

/* The mapped strategy's rates (bytes per s, the slowest process's; 0:
 * not measured); -1 when a process failed. */
static int mapped_rates(const opts_t *o, long id, int rank, double *mrd,
                        double *mwr) {
  char path[4096], err[256] = "";
  int64_t region = o->mib << 20;
  snprintf(path, sizeof path, "%s/darray-calibrate.%ld.map", o->dir, id);
  int failed = calibrate_map_rates(path, region, rank * region, mrd, mwr,
                                   err, sizeof err) != 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    unlink(path);
  if (failed)
    fprintf(stderr, "%s: process %d: '%s': %s\n", prog, rank, path, err);
  if (any(failed))
    return -1;
  MPI_Allreduce(MPI_IN_PLACE, mrd, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, mwr, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return 0;
}

/* What the library's own calls measure (calibrate_lib.c): the cycle (s),
 * the message (s), the servers' contention; -1 on failure. */
static int library_costs(const opts_t *o, long id, int rank, int P,
                         consts_t *k, double *msg) {
  char path[4096];
  snprintf(path, sizeof path, "%s/darray-calibrate.%ld.cycle", o->dir, id);
  int failed = calibrate_cycle(path, o->rounds, &k->cy) != 0;
  if (rank == 0)
    unlink(path);
  *msg = 0;
  if (!failed && P > 1)
    failed = calibrate_message(o->rounds, msg) != 0;
  snprintf(path, sizeof path, "%s/darray-calibrate.%ld.servers", o->dir, id);
  failed = failed || calibrate_servers(path, o->mib, o->rounds, o->direct,
                                       &k->sc, &k->meet) != 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) /* the subfile set, if it was made */
    darray_file_delete(path, MPI_INFO_NULL);
  return failed ? -1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  opts_t o;
  int st = parse(argc, argv, &o, rank);
  if (st != 0) {
    MPI_Finalize();
    return st == 1 ? 0 : 2;
  }
  long id = (long)getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  filecost_t c;
  consts_t k = {.P = P};
  double xr = 0, mrd = 0, mwr = 0, msg = 0;
  if (file_and_exchange(&o, id, rank, P, &c, &xr) != 0 ||
      mapped_rates(&o, id, rank, &mrd, &mwr) != 0 ||
      library_costs(&o, id, rank, P, &k, &msg) != 0) {
    MPI_Finalize();
    return 1;
  }
  /* latency: what a call costs beyond its 8 bytes at the bandwidth */
  k.lw = clamp((c.wr - 8 / c.bw) * 1e9, 0, 1000000000);
  k.lr = clamp((c.rd - 8 / c.bw) * 1e9, 0, 1000000000);
  k.mbs = clamp(c.bw / 1e6, 1, 1000000000);
  k.xmbs = clamp(xr / 1e6, 1, 1000000000);
  /* the model charges a cycle its file call's latency and this */
  k.cns = clamp((k.cy - c.wr) * 1e9, 0, 1000000000);
  k.mns = clamp(msg * 1e9, 0, 1000000000);
  k.mrd = mrd > 0 ? clamp(mrd / 1e6, 1, 1000000000) : 0;
  k.mwr = mwr > 0 ? clamp(mwr / 1e6, 1, 1000000000) : 0;
  char line[512], path[4096];
  hint_line(&k, line, sizeof line);
  snprintf(path, sizeof path, "%s/darray-calibrate.%ld.check", o.dir, id);
  int bad = check_line(line, path) != 0;
  if (rank == 0)
    unlink(path);
  if (rank == 0 && !o.quiet)
    report(&o, &k);
  if (rank == 0 && !bad)
    printf("%s%s\n", o.quiet ? "" : "hints: ", line);
  MPI_Finalize();
  return bad ? 1 : 0;
}
