/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray-plan - plan a whole-array write or read for any number of
 * processes without running them (darray_plan_virtual):
 *
 *   darray-plan -P 4096 --pattern dist3d -n 2048 --esize 8
 *   darray-plan -P 1024 --pattern btio --class D --ops write,read
 *
 * The patterns are the benchmark's (bench/README.md): dist3d, an N^3 array
 * in C order, BLOCK over a 3-D process grid (-g AxBxC, or chosen as
 * MPI_Dims_create chooses); btio, NAS BT's five doubles per point of an
 * N^3 grid (N by class) stored in Fortran order over a MULTIPARTITION of
 * P = q*q processes. For each strategy of the library's table it prints
 * the cost model's estimate and what the strategy's run would count per
 * process (file calls and bytes, messages and bytes sent, cycles, the
 * busiest aggregator, temporary memory), the metadata darrayio sends (none)
 * against ROMIO's offset/length lists for the same domains, the servers
 * each aggregator touches per cycle and the aggregators per server on a
 * striped file (--hints striping_unit=...,striping_factor=...), and the
 * planner's processor time. It runs as one process (MPI is initialized,
 * nothing is exchanged).
 *
 * Exit status: 0 on success, 1 when the library refused the description
 * or the hints (its message on stderr), 2 on a usage error.
 */
#include "darrayio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "darray-plan";

typedef struct opts {
  int64_t P, n, esize;
  int grid[3], ngrid;
  char cls;
  const char *pattern, *ops, *hints;
} opts_t;

static void usage(FILE *out) {
  fprintf(out,
      "usage: %s -P NPROCS [--pattern dist3d|btio] [-n N] [-g AxBxC]\n"
      "       [--class S|W|A|B|C|D|E] [--esize 4|8] [--ops write,read]\n"
      "       [--hints k=v,k=v]\n"
      "\n"
      "Plan a whole-array call of NPROCS processes on paper: every\n"
      "strategy's estimate and what its run would count per process.\n"
      "\n"
      "  -P NPROCS       virtual processes (1 .. 16777216)\n"
      "  --pattern P     dist3d (default) or btio\n"
      "  -n N            dist3d: N^3 elements (default 256)\n"
      "  -g AxBxC        dist3d: the process grid (default: chosen)\n"
      "  --class C       btio: the problem class (default A)\n"
      "  --esize E       dist3d: bytes per element, 4 or 8 (default 4)\n"
      "  --ops LIST      write, read or write,read (default write)\n"
      "  --hints LIST    hints as darray_file_open takes them, k=v,k=v\n"
      "  --help          this text\n"
      "  --version       the version of darrayio this tool runs with\n"
      "\n"
      "exit status: 0 ok, 1 refused by the library, 2 usage error\n",
      prog);
}

static int bad(const char *what, const char *v) {
  fprintf(stderr, "%s: %s: '%s'\n(%s --help for usage)\n", prog, what,
          v ? v : "(missing)", prog);
  return 2;
}

static int number(const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end = NULL;
  if (s == NULL)
    return -1;
  long long x = strtoll(s, &end, 10);
  if (end == s || *end != '\0' || x < lo || x > hi)
    return -1;
  *v = x;
  return 0;
}

static int parse_grid(const char *s, opts_t *o) {
  int a, b, c;
  char tail;
  if (s == NULL || sscanf(s, "%dx%dx%d%c", &a, &b, &c, &tail) != 3 ||
      a < 1 || b < 1 || c < 1)
    return -1;
  o->grid[0] = a, o->grid[1] = b, o->grid[2] = c;
  o->ngrid = 3;
  return 0;
}

/* 0: parsed; 1: --help/--version done; 2: usage error. */
static int parse(int argc, char **argv, opts_t *o) {
  *o = (opts_t){.n = 256, .esize = 4, .cls = 'A', .pattern = "dist3d",
                .ops = "write", .hints = ""};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int used = 1;
    if (!strcmp(a, "--help")) {
      usage(stdout);
      return 1;
    } else if (!strcmp(a, "--version")) {
      printf("%s (darrayio) %s\n", prog, darray_version_string());
      return 1;
    } else if (!strcmp(a, "-P")) {
      if (number(v, 1, DARRAY_VIRTUAL_MAX_NPROCS, &o->P))
        return bad("-P needs a number of processes", v);
    } else if (!strcmp(a, "-n")) {
      if (number(v, 1, INT64_C(1) << 40, &o->n))
        return bad("-n needs a size >= 1", v);
    } else if (!strcmp(a, "--esize")) {
      if (number(v, 4, 8, &o->esize) || (o->esize != 4 && o->esize != 8))
        return bad("--esize is 4 or 8", v);
    } else if (!strcmp(a, "-g")) {
      if (parse_grid(v, o))
        return bad("-g needs AxBxC", v);
    } else if (!strcmp(a, "--class")) {
      if (v == NULL || strlen(v) != 1 || !strchr("SWABCDE", v[0]))
        return bad("--class is one of S W A B C D E", v);
      o->cls = v[0];
    } else if (!strcmp(a, "--pattern")) {
      if (v == NULL || (strcmp(v, "dist3d") && strcmp(v, "btio")))
        return bad("--pattern is dist3d or btio", v);
      o->pattern = v;
    } else if (!strcmp(a, "--ops")) {
      if (v == NULL || (strcmp(v, "write") && strcmp(v, "read") &&
                        strcmp(v, "write,read") && strcmp(v, "read,write")))
        return bad("--ops is write, read or write,read", v);
      o->ops = v;
    } else if (!strcmp(a, "--hints")) {
      if (v == NULL)
        return bad("--hints needs k=v,k=v", v);
      o->hints = v;
    } else {
      return bad("unknown option", a);
    }
    i += used;
  }
  return o->P > 0 ? 0 : bad("-P is required", NULL);
}

static int64_t class_n(char c) {
  switch (c) {
  case 'S': return 12;
  case 'W': return 24;
  case 'A': return 64;
  case 'B': return 102;
  case 'C': return 162;
  case 'D': return 408;
  default: return 1020; /* E */
  }
}

/* The pattern's virtual array, described as the benchmark describes it. */
static int describe(const opts_t *o, darray_t *a, char *label, size_t n) {
  int rc;
  if (!strcmp(o->pattern, "btio")) {
    int64_t q = 1, N = class_n(o->cls);
    while ((q + 1) * (q + 1) <= o->P)
      q++;
    int64_t g[4] = {5, N, N, N};
    darray_dist_t d[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                          DARRAY_DIST_MULTIPARTITION,
                          DARRAY_DIST_MULTIPARTITION};
    snprintf(label, n, "btio class %c, N=%lld, 5 doubles per point, q=%lld",
             o->cls, (long long)N, (long long)q);
    if ((rc = darray_create_virtual((int)o->P, 4, g, DARRAY_DOUBLE, a)))
      return rc;
    if ((rc = darray_set_distribution(*a, d, NULL)) ||
        (rc = darray_set_storage_order(*a, DARRAY_ORDER_FORTRAN, NULL)))
      return rc;
    return darray_commit(*a);
  }
  int64_t g[3] = {o->n, o->n, o->n};
  darray_dist_t d[3] = {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK,
                        DARRAY_DIST_BLOCK};
  if ((rc = darray_create_virtual((int)o->P, 3, g,
                                  o->esize == 8 ? DARRAY_DOUBLE
                                                : DARRAY_INT32, a)))
    return rc;
  if ((rc = darray_set_distribution(*a, d, NULL)) ||
      (o->ngrid && (rc = darray_set_grid(*a, o->grid))) ||
      (rc = darray_commit(*a)))
    return rc;
  int ps[DARRAY_MAX_DIMS];
  darray_grid(*a, ps);
  snprintf(label, n, "dist3d N=%lld, %lld-byte elements, grid %dx%dx%d",
           (long long)o->n, (long long)o->esize, ps[0], ps[1], ps[2]);
  return DARRAY_SUCCESS;
}

static MPI_Info make_info(const char *hints) {
  MPI_Info info;
  MPI_Info_create(&info);
  char *s = strdup(hints), *save = NULL;
  for (char *kv = strtok_r(s, ",", &save); kv;
       kv = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(kv, '=');
    if (eq != NULL) {
      *eq = '\0';
      MPI_Info_set(info, kv, eq + 1);
    }
  }
  free(s);
  return info;
}

static void num(int64_t v) {
  if (v < 0)
    printf(" %12s", "-");
  else
    printf(" %12lld", (long long)v);
}

static void print_rows(const darray_plan_row_t *r, int n) {
  printf("%-9s %12s %12s %12s %12s %12s %12s %12s %12s %12s %12s %12s\n",
         "strategy", "estimate_ms", "calls/proc", "filebytes", "sent/proc",
         "msgs/proc", "cycles", "aggs", "pieces/agg", "temp/proc",
         "meta/proc", "romio/proc");
  for (int i = 0; i < n; i++) {
    printf("%-9s", r[i].strategy);
    if (r[i].candidate)
      printf(" %12.3f", r[i].estimate_ns / 1e6);
    else
      printf(" %12s", "-");
    num(r[i].file_calls_max), num(r[i].file_bytes_max);
    num(r[i].sent_bytes_max), num(r[i].messages_max), num(r[i].cycles);
    num(r[i].aggregators), num(r[i].agg_pieces_max);
    num(r[i].temp_bytes_max), num(r[i].metadata_bytes_max);
    num(r[i].romio_metadata_max);
    printf("\n");
  }
  for (int i = 0; i < n; i++) {
    if (r[i].servers_per_agg_max > 0)
      printf("%s: servers per aggregator per cycle %d, aggregators per "
             "server per cycle %d (most)\n", r[i].strategy,
             r[i].servers_per_agg_max, r[i].aggs_per_server_max);
    if (!r[i].candidate)
      printf("%s: not a candidate: %s\n", r[i].strategy, r[i].why);
    if (r[i].chosen)
      printf("chosen: %s; planner %.3f ms of processor time per process\n",
             r[i].strategy, r[i].plan_ns / 1e6);
  }
}

static int plan(darray_t a, MPI_Info info, int write) {
  darray_plan_row_t rows[8];
  int n;
  int rc = darray_plan_virtual(a, info, write, 8, rows, &n);
  if (rc != DARRAY_SUCCESS) {
    fprintf(stderr, "%s: %s\n", prog, darray_errmsg(a));
    return 1;
  }
  printf("\n%s (per process: the busiest one's; bytes)\n",
         write ? "write" : "read");
  print_rows(rows, n);
  return 0;
}

int main(int argc, char **argv) {
  opts_t o;
  int rc = parse(argc, argv, &o);
  if (rc != 0)
    return rc == 1 ? 0 : 2;
  MPI_Init(&argc, &argv);
  darray_t a = NULL;
  char label[160];
  rc = describe(&o, &a, label, sizeof label);
  if (rc != DARRAY_SUCCESS) {
    fprintf(stderr, "%s: %s\n", prog, darray_errmsg(a));
    darray_free(&a);
    MPI_Finalize();
    return 1;
  }
  printf("%s: %s, P=%lld%s%s\n", prog, label, (long long)o.P,
         o.hints[0] ? ", hints " : "", o.hints);
  MPI_Info info = make_info(o.hints);
  for (const char *op = o.ops; rc == 0 && op != NULL;) {
    rc = plan(a, info, !strncmp(op, "write", 5));
    op = strchr(op, ',');
    op = op ? op + 1 : NULL;
  }
  MPI_Info_free(&info);
  darray_free(&a);
  MPI_Finalize();
  return rc;
}
