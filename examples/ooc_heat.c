/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * ooc_heat - an out-of-core Jacobi heat sweep on an N x N grid of doubles.
 *
 * The grid lives in two files (this step and the next), stored row-major.
 * Each process owns a BLOCK of rows, far more than fits in the memory it is
 * given (--budget), so it sweeps through its rows in slabs: for each slab
 * it reads the slab plus one halo row above and below with
 * darray_read_section() (halo rows belong to the neighbours: overlapping
 * reads are fine), computes the new values, and writes the slab to the
 * other file with darray_write_section(). This is the shape of
 * PASSION-style out-of-core codes, with the halo exchange done through
 * the file.
 *
 * The boundary rows and columns keep their initial values. With --verify,
 * rank 0 also runs the same computation in core and compares every double
 * of the final file bit for bit.
 *
 * With --prefetch, the next slab is read with darray_iread_section() while
 * the current one is computed (two input buffers, used in turn); with
 * --write-behind, each slab is written with darray_iwrite_section() while
 * the next one is computed (two output buffers: a buffer is computed into
 * again only after the wait for its write). Every process posts the same
 * requests in the same order, and requests on one file take effect in
 * the order they were posted, so the first slab of the next iteration,
 * which reads what this iteration wrote (halo rows from the neighbours
 * included), is posted right after the last write of this one. The values
 * do not depend on the slab size, so the files are byte-identical to the
 * blocking run's (test/ooc_heat_small.sh compares them). MPI is
 * initialized with MPI_Init_thread(MPI_THREAD_MULTIPLE); with a lower
 * level the library overlaps less, and the program prints what overlaps
 * (darray_explain()'s "nonblocking requests:" line).
 *
 * Build: make                       (builds examples/ooc_heat)
 * Run:   mpiexec -n 2 examples/ooc_heat -n 1024 --iters 4 --budget 1m
 *        mpiexec -n 3 examples/ooc_heat -n 96 --iters 3 --budget 8k --verify
 *        mpiexec -n 2 examples/ooc_heat -n 2048 --budget 4m --prefetch \
 *                --write-behind
 *
 * Options:
 *   -n N          grid size (default 512)
 *   --iters K     Jacobi iterations (default 4)
 *   --budget B    in-core bytes per process for the slab buffers (default
 *                 256k; suffixes k, m): a slab plus two halo rows in, a
 *                 slab out, each buffer twice with --prefetch (in) and
 *                 --write-behind (out). The library's own temporary memory
 *                 is capped to the same size by the darray_temp_limit hint
 *                 (with either option a read and a write may run at once,
 *                 one per file: each file gets half the budget)
 *   --prefetch    read the next slab while computing this one
 *   --write-behind  write each slab while computing the next one
 *   --dir D       directory for the two files (default .)
 *   --verify      compare with an in-core run on rank 0 (small N only)
 *   --keep        keep the two files (the final grid is ooc_heat.K%2.dat
 *                 for K iterations; the other holds the step before)
 *   -h, --help    print the usage and exit 0
 *
 * examples/ooc_f.f90 is the same program in Fortran: for the same options
 * its files are byte-identical to these (test/ooc_f_small.sh).
 *
 * Prints from rank 0: the sizes and the out-of-core ratio (local rows'
 * bytes / budget), the mode and MPI's thread level, then "io X s, compute
 * Y s" (io: time in darrayio calls, waits included), the library's largest
 * temporary memory (checked against the budget; with --prefetch or
 * --write-behind, the sum of both files' peaks), then "ooc_heat: verified"
 * with --verify. Exit 0 on success, 1 on a mismatch, 2 on an error.
 */
#include "darrayio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct opts {
  int64_t n, budget;
  int iters, verify, keep, help;
  const char *dir;
  int prefetch, write_behind;
} opts_t;

static int64_t parse_size(const char *s) {
  char *end;
  int64_t v = strtoll(s, &end, 10);
  if (*end == 'k' || *end == 'K')
    v <<= 10;
  else if (*end == 'm' || *end == 'M')
    v <<= 20;
  return v;
}

static int parse(int argc, char **argv, opts_t *o) {
  *o = (opts_t){512, 256 << 10, 4, 0, 0, 0, ".", 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "-n"))
      o->n = strtoll(v, NULL, 10), i++;
    else if (!strcmp(argv[i], "--iters"))
      o->iters = atoi(v), i++;
    else if (!strcmp(argv[i], "--budget"))
      o->budget = parse_size(v), i++;
    else if (!strcmp(argv[i], "--dir"))
      o->dir = v, i++;
    else if (!strcmp(argv[i], "--verify"))
      o->verify = 1;
    else if (!strcmp(argv[i], "--keep"))
      o->keep = 1;
    else if (!strcmp(argv[i], "--prefetch"))
      o->prefetch = 1;
    else if (!strcmp(argv[i], "--write-behind"))
      o->write_behind = 1;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
      o->help = 1;
    else
      return -1;
  }
  return o->n >= 3 && o->iters >= 0 && o->budget > 0 ? 0 : -1;
}

/* The usage line; with the option list for -h/--help (on stdout). */
static void usage(const char *prog, int help) {
  FILE *out = help ? stdout : stderr;
  fprintf(out, "usage: %s [-n N] [--iters K] [--budget B] [--dir D] "
               "[--verify] [--keep] [--prefetch] [--write-behind] "
               "[-h|--help]\n", prog);
  if (help)
    fprintf(out,
            "  -n N        grid size N x N (default 512, at least 3)\n"
            "  --iters K   Jacobi iterations (default 4)\n"
            "  --budget B  in-core bytes per process (default 256k; "
            "suffixes k, m), for\n"
            "              the slab buffers: (slab + 2) rows in, slab rows "
            "out; with\n"
            "              --prefetch two input buffers, with --write-behind "
            "two output\n"
            "              buffers, so the slabs are thinner. The library's "
            "temporary\n"
            "              memory is capped at B as well; with either option "
            "a read and\n"
            "              a write may run at once, so each of the two files "
            "gets B/2\n"
            "  --dir D     directory of the files ooc_heat.0.dat and "
            "ooc_heat.1.dat (default .)\n"
            "  --verify    compare the final file with an in-core run on "
            "rank 0\n"
            "  --keep      keep the two files\n"
            "  --prefetch  read the next slab (darray_iread_section) while "
            "computing this one\n"
            "  --write-behind  write each slab (darray_iwrite_section) "
            "while computing the\n"
            "              next one\n"
            "  -h, --help  this text\n");
}

/* Initial value of point (i, j): hot left edge, a bump inside. */
static double initial(int64_t n, int64_t i, int64_t j) {
  if (j == 0)
    return 100.0;
  if (i == 0 || j == n - 1 || i == n - 1)
    return 0.0;
  return (double)((i * 31 + j * 17) % 13);
}

/* One Jacobi step for rows [r0, r1) of the grid, given rows r0-1 .. r1
 * (clipped) in `in` starting at row `first`; writes rows into out. */
static void step(int64_t n, const double *in, int64_t first, int64_t r0,
                 int64_t r1, double *out) {
  for (int64_t i = r0; i < r1; i++) {
    const double *row = in + (i - first) * n;
    double *o = out + (i - r0) * n;
    for (int64_t j = 0; j < n; j++) {
      if (i == 0 || i == n - 1 || j == 0 || j == n - 1)
        o[j] = row[j];
      else
        o[j] = 0.25 * (row[j - 1] + row[j + 1] + row[j - n] + row[j + n]);
    }
  }
}

typedef struct ctx {
  const opts_t *o;
  darray_t a;
  darray_file_t f[2];
  int64_t lo, hi; /* my rows */
  int64_t slab;   /* rows per slab */
  int64_t nslabs; /* the same on every process */
  double *in[2], *out[2]; /* [1]: only with --prefetch, --write-behind */
  /* pending requests, each with the file it was posted on: the read into
   * the next step's input buffer, the writes from out[0] and out[1] */
  darray_request_t rreq, wreq[2];
  darray_file_t rfile, wfile[2];
  double t_io, t_comp;
} ctx_t;

static int check(int rc, const char *what, darray_file_t f) {
  if (rc != DARRAY_SUCCESS)
    fprintf(stderr, "ooc_heat: %s: %s: %s\n", what, darray_err_name(rc),
            f ? darray_file_errmsg(f) : darray_errmsg(NULL));
  return rc;
}

/* Slab k of my rows: rows [r0, r1), read with their halo as [first, last).
 * Past my rows the slab is empty, and the process takes part with empty
 * sections. */
typedef struct rows {
  int64_t r0, r1, first, last;
} rows_t;

static rows_t slab_rows(const ctx_t *c, int64_t k) {
  int64_t n = c->o->n, r0 = c->lo + k * c->slab;
  int64_t r1 = r0 + c->slab < c->hi ? r0 + c->slab : c->hi;
  if (r0 > r1)
    r0 = r1;
  rows_t r = {r0, r1, r0 > 0 ? r0 - 1 : 0, r1 < n ? r1 + 1 : n};
  if (r0 == r1)
    r.first = r.last = 0;
  return r;
}

/* Step s of the run is slab s % nslabs of iteration s / nslabs; it reads
 * file it % 2 and writes the other. Its buffers, when there are two, are
 * used in turn. */
static darray_file_t src_of(const ctx_t *c, int64_t s) {
  return c->f[(s / c->nslabs) % 2];
}

static darray_file_t dst_of(const ctx_t *c, int64_t s) {
  return c->f[(s / c->nslabs + 1) % 2];
}

static double *in_of(const ctx_t *c, int64_t s) {
  return c->in[c->o->prefetch ? s % 2 : 0];
}

/* Read step s's slab with its halo: posted with --prefetch (completed by
 * wait_req on c->rreq), else at once. */
static int read_slab(ctx_t *c, int64_t s) {
  rows_t r = slab_rows(c, s % c->nslabs);
  int64_t start[2] = {r.first, 0}, count[2] = {r.last - r.first, c->o->n};
  darray_file_t src = src_of(c, s);
  double t = MPI_Wtime();
  int rc;
  if (c->o->prefetch) {
    c->rfile = src;
    rc = check(darray_iread_section(src, c->a, start, count, DARRAY_ORDER_C,
                                    in_of(c, s), &c->rreq),
               "iread_section", src);
  } else {
    rc = check(darray_read_section(src, c->a, start, count, DARRAY_ORDER_C,
                                   in_of(c, s)), "read_section", src);
  }
  c->t_io += MPI_Wtime() - t;
  return rc;
}

/* Complete a pending request (none: success at once). */
static int wait_req(ctx_t *c, darray_file_t f, darray_request_t *req,
                    const char *what) {
  double t = MPI_Wtime();
  int rc = *req != DARRAY_REQUEST_NULL ? darray_wait(f, req) : 0;
  c->t_io += MPI_Wtime() - t;
  return check(rc, what, f);
}

/* Write step s's slab from out: posted with --write-behind (its buffer is
 * waited for before it is computed into again), else at once. */
static int write_slab(ctx_t *c, int64_t s, const double *out) {
  rows_t r = slab_rows(c, s % c->nslabs);
  int64_t start[2] = {r.r0, 0}, count[2] = {r.r1 - r.r0, c->o->n};
  darray_file_t dst = dst_of(c, s);
  double t = MPI_Wtime();
  int rc;
  if (c->o->write_behind) {
    c->wfile[s % 2] = dst;
    rc = check(darray_iwrite_section(dst, c->a, start, count, DARRAY_ORDER_C,
                                     out, &c->wreq[s % 2]),
               "iwrite_section", dst);
  } else {
    rc = check(darray_write_section(dst, c->a, start, count, DARRAY_ORDER_C,
                                    out), "write_section", dst);
  }
  c->t_io += MPI_Wtime() - t;
  return rc;
}

/* Step s of total: read (or finish prefetching) the slab, prefetch the
 * next one, step, write. The next iteration's first slab reads what this
 * iteration writes (its own rows and the neighbours' halo rows), so it is
 * posted only after this iteration's last write: requests on a file take
 * effect in the order every process posted them. */
static int sweep_step(ctx_t *c, int64_t s, int64_t total) {
  int pre = c->o->prefetch, wb = c->o->write_behind;
  int next_iter = s + 1 < total && (s + 1) % c->nslabs == 0;
  int rc = pre ? wait_req(c, c->rfile, &c->rreq, "iread_section (wait)")
               : read_slab(c, s);
  if (rc == 0 && pre && s + 1 < total && !next_iter)
    rc = read_slab(c, s + 1);
  double *out = c->out[wb ? s % 2 : 0];
  if (rc == 0 && wb) /* out's write, two steps ago, must be done */
    rc = wait_req(c, c->wfile[s % 2], &c->wreq[s % 2],
                  "iwrite_section (wait)");
  rows_t r = slab_rows(c, s % c->nslabs);
  double t = MPI_Wtime();
  if (rc == 0)
    step(c->o->n, in_of(c, s), r.first, r.r0, r.r1, out);
  c->t_comp += MPI_Wtime() - t;
  if (rc == 0)
    rc = write_slab(c, s, out);
  if (rc == 0 && pre && next_iter)
    rc = read_slab(c, s + 1);
  return rc;
}

/* Complete whatever is still pending (after the last step, or after a
 * failure that every process saw); returns the first failure. */
static int drain(ctx_t *c) {
  int rc = wait_req(c, c->rfile, &c->rreq, "iread_section (wait)");
  for (int b = 0; b < 2; b++) {
    int rw = wait_req(c, c->wfile[b], &c->wreq[b], "iwrite_section (wait)");
    rc = rc ? rc : rw;
  }
  return rc;
}

/* Every iteration, slab by slab. */
static int sweep_all(ctx_t *c) {
  int64_t total = (int64_t)c->o->iters * c->nslabs;
  int rc = 0;
  if (c->o->prefetch && total > 0)
    rc = read_slab(c, 0);
  for (int64_t s = 0; rc == 0 && s < total; s++)
    rc = sweep_step(c, s, total);
  int rd = drain(c);
  return rc ? rc : rd;
}

/* Write the initial grid, one slab at a time. */
static int initialize(ctx_t *c) {
  int64_t n = c->o->n;
  for (int k = 0; k < c->nslabs; k++) {
    int64_t r0 = c->lo + k * c->slab, r1 = r0 + c->slab;
    r1 = r1 < c->hi ? r1 : c->hi;
    r0 = r0 < r1 ? r0 : r1;
    for (int64_t i = r0; i < r1; i++)
      for (int64_t j = 0; j < n; j++)
        c->out[0][(i - r0) * n + j] = initial(n, i, j);
    int64_t s[2] = {r0, 0}, cnt[2] = {r1 - r0, n};
    int rc = darray_write_section(c->f[0], c->a, s, cnt, DARRAY_ORDER_C,
                                  c->out[0]);
    if (check(rc, "initial write", c->f[0]))
      return rc;
  }
  return DARRAY_SUCCESS;
}

/* Rank 0: the same iterations in core; compare with the final file. */
static int verify(const opts_t *o, const char *path) {
  int64_t n = o->n, bad = 0, size = n * n * 8;
  double *g = malloc((size_t)size), *h = malloc((size_t)size);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      g[i * n + j] = initial(n, i, j);
  for (int it = 0; it < o->iters; it++) {
    step(n, g, 0, 0, n, h);
    double *t = g;
    g = h, h = t;
  }
  FILE *fp = fopen(path, "rb");
  if (fp == NULL || fread(h, 1, (size_t)size, fp) != (size_t)size)
    bad = -1;
  for (int64_t e = 0; bad >= 0 && e < n * n; e++)
    bad += memcmp(&g[e], &h[e], 8) != 0;
  if (fp)
    fclose(fp);
  free(g);
  free(h);
  if (bad != 0)
    fprintf(stderr, "ooc_heat: %" PRId64 " values differ from the in-core "
                    "run\n", bad);
  return bad == 0 ? 0 : 1;
}

/* The library's temporary memory per file: the budget, or half of it when
 * a call on each file may run at once (a background read of one and a
 * write of the other). */
static int64_t lib_limit(const opts_t *o) {
  return o->prefetch || o->write_behind ? o->budget / 2 : o->budget;
}

/* Rank 0: say how slabs move, and darray_explain()'s line on what
 * overlaps. */
static void say_mode(const ctx_t *c, int provided) {
  static const char *const level[] = {"SINGLE", "FUNNELED", "SERIALIZED",
                                      "MULTIPLE"};
  int l = provided == MPI_THREAD_MULTIPLE     ? 3
          : provided == MPI_THREAD_SERIALIZED ? 2
          : provided == MPI_THREAD_FUNNELED   ? 1
                                              : 0;
  printf("ooc_heat: %s reads, %s writes (MPI thread level %s)\n",
         c->o->prefetch ? "prefetched" : "blocking",
         c->o->write_behind ? "write-behind" : "blocking", level[l]);
  if (!c->o->prefetch && !c->o->write_behind)
    return;
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (m == NULL)
    return;
  int rc = darray_explain(c->f[0], c->a, 1, m);
  fclose(m);
  const char *line = rc == 0 ? strstr(text, "nonblocking requests:") : NULL;
  if (line != NULL)
    printf("ooc_heat: %.*s\n", (int)strcspn(line, "\n"), line);
  free(text);
}

static int setup(ctx_t *c, int rank, int nprocs, char paths[2][512]) {
  const opts_t *o = c->o;
  int64_t g[2] = {o->n, o->n};
  darray_dist_t dist[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  int rc = check(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_DOUBLE, &c->a),
                 "create", NULL);
  if (rc == 0)
    rc = darray_set_distribution(c->a, dist, NULL);
  if (rc == 0)
    rc = check(darray_commit(c->a), "commit", NULL);
  if (rc != 0)
    return rc;
  int64_t start[2], shape[2];
  darray_local_start(c->a, 0, start);
  darray_local_shape(c->a, 0, shape);
  c->lo = start[0];
  c->hi = start[0] + shape[0];
  /* budget: nin buffers of a slab with two halo rows in, nout of a slab
   * out (two of a kind while one is in flight and the other in use) */
  int nin = o->prefetch ? 2 : 1, nout = o->write_behind ? 2 : 1;
  c->slab = (o->budget / (8 * o->n) - 2 * nin) / (nin + nout);
  if (c->slab < 1)
    c->slab = 1;
  int64_t rows = (o->n + nprocs - 1) / nprocs;
  c->nslabs = (rows + c->slab - 1) / c->slab;
  for (int b = 0; b < nin; b++)
    c->in[b] = malloc((size_t)((c->slab + 2) * o->n * 8));
  for (int b = 0; b < nout; b++)
    c->out[b] = malloc((size_t)(c->slab * o->n * 8));
  MPI_Info info;
  MPI_Info_create(&info);
  char v[32];
  snprintf(v, sizeof v, "%" PRId64, lib_limit(o)); /* cap library memory */
  MPI_Info_set(info, "darray_temp_limit", v);
  for (int k = 0; k < 2 && rc == 0; k++) {
    snprintf(paths[k], 512, "%s/ooc_heat.%d.dat", o->dir, k);
    rc = check(darray_file_open(MPI_COMM_WORLD, paths[k],
                                DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                    DARRAY_MODE_TRUNC, info, &c->f[k]),
               "open", NULL);
  }
  MPI_Info_free(&info);
  if (rank == 0)
    printf("ooc_heat: N=%" PRId64 ", %d processes, %" PRId64 " rows each "
           "(%.1f MiB), budget %" PRId64 " bytes: %.1fx out of core, "
           "slabs of %" PRId64 " rows\n", o->n, nprocs, rows,
           (double)(rows * o->n * 8) / (1 << 20), o->budget,
           (double)(rows * o->n * 8) / (double)o->budget, c->slab);
  return rc;
}

int main(int argc, char **argv) {
  /* MULTIPLE lets nonblocking requests run whole in the background; any
   * level works, with less overlap (say_mode prints what overlaps) */
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, nprocs, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  opts_t o;
  char paths[2][512];
  ctx_t c = {.o = &o};
  int usage_err = parse(argc, argv, &o) != 0;
  if (usage_err || o.help) {
    if (rank == 0)
      usage(argv[0], !usage_err);
    MPI_Finalize();
    return usage_err ? 2 : 0;
  }
  rc = setup(&c, rank, nprocs, paths);
  if (rc == 0 && rank == 0)
    say_mode(&c, provided);
  if (rc == 0)
    rc = initialize(&c);
  if (rc == 0)
    rc = sweep_all(&c);
  double t[2] = {c.t_io, c.t_comp};
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* the library's temporary memory stayed within the budget: one call at a
   * time (the largest peak), or one per file at once (the sum) */
  int64_t peak = 0, overlap = o.prefetch || o.write_behind;
  for (int k = 0; k < 2 && c.f[k] != NULL; k++) {
    darray_stats_t st;
    if (darray_file_get_stats(c.f[k], &st) == DARRAY_SUCCESS)
      peak = overlap ? peak + st.peak_temp_bytes
                     : st.peak_temp_bytes > peak ? st.peak_temp_bytes : peak;
  }
  MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  darray_file_close(&c.f[0]);
  darray_file_close(&c.f[1]);
  darray_free(&c.a);
  for (int b = 0; b < 2; b++) {
    free(c.in[b]);
    free(c.out[b]);
  }
  int result = rc != 0 ? 2 : 0;
  if (rank == 0 && rc == 0) {
    printf("io %.4f s, compute %.4f s\n", t[0], t[1]);
    printf("library temporary memory: at most %" PRId64 " bytes per process "
           "(limit %" PRId64 ")\n", peak, o.budget);
    if (peak > o.budget) {
      printf("ooc_heat: the library exceeded its memory limit\n");
      result = 1;
    }
    if (o.verify) {
      int bad = verify(&o, paths[o.iters % 2]);
      printf("ooc_heat: %s\n", bad ? "MISMATCH" : "verified");
      result |= bad;
    }
  }
  MPI_Bcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && !o.keep) {
    remove(paths[0]);
    remove(paths[1]);
  }
  MPI_Finalize();
  return result;
}
