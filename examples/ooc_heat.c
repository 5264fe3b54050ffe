/*
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
 * Build: make                       (builds examples/ooc_heat)
 * Run:   mpiexec -n 2 examples/ooc_heat -n 1024 --iters 4 --budget 1m
 *        mpiexec -n 3 examples/ooc_heat -n 96 --iters 3 --budget 8k --verify
 *
 * Options:
 *   -n N          grid size (default 512)
 *   --iters K     Jacobi iterations (default 4)
 *   --budget B    in-core bytes per process for the slab buffers (default
 *                 256k; suffixes k, m); the library's own temporary memory
 *                 is capped to the same size by the darray_temp_limit hint
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
 * bytes / budget), then "io X s, compute Y s", the library's largest
 * temporary buffer (checked against the budget), then "ooc_heat: verified"
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
  *o = (opts_t){512, 256 << 10, 4, 0, 0, 0, "."};
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
               "[--verify] [--keep] [-h|--help]\n", prog);
  if (help)
    fprintf(out,
            "  -n N        grid size N x N (default 512, at least 3)\n"
            "  --iters K   Jacobi iterations (default 4)\n"
            "  --budget B  in-core bytes per process (default 256k; "
            "suffixes k, m)\n"
            "  --dir D     directory of the files ooc_heat.0.dat and "
            "ooc_heat.1.dat (default .)\n"
            "  --verify    compare the final file with an in-core run on "
            "rank 0\n"
            "  --keep      keep the two files\n"
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
  double *in, *out;
  double t_io, t_comp;
} ctx_t;

static int check(int rc, const char *what, darray_file_t f) {
  if (rc != DARRAY_SUCCESS)
    fprintf(stderr, "ooc_heat: %s: %s: %s\n", what, darray_err_name(rc),
            f ? darray_file_errmsg(f) : darray_errmsg(NULL));
  return rc;
}

/* Slab k of my rows: read with halo from src, step, write to dst. */
static int sweep_slab(ctx_t *c, int k, darray_file_t src, darray_file_t dst) {
  int64_t n = c->o->n, r0 = c->lo + k * c->slab;
  int64_t r1 = r0 + c->slab < c->hi ? r0 + c->slab : c->hi;
  if (r0 > r1)
    r0 = r1; /* past my rows: take part with empty sections */
  int64_t first = r0 > 0 ? r0 - 1 : 0, last = r1 < n ? r1 + 1 : n;
  if (r0 == r1)
    first = last = 0;
  int64_t rs[2] = {first, 0}, rc_[2] = {last - first, n};
  int64_t ws[2] = {r0, 0}, wc[2] = {r1 - r0, n};
  double t = MPI_Wtime();
  int rc = check(darray_read_section(src, c->a, rs, rc_, DARRAY_ORDER_C,
                                     c->in), "read_section", src);
  c->t_io += MPI_Wtime() - t;
  t = MPI_Wtime();
  step(n, c->in, first, r0, r1, c->out);
  c->t_comp += MPI_Wtime() - t;
  t = MPI_Wtime();
  if (rc == DARRAY_SUCCESS)
    rc = check(darray_write_section(dst, c->a, ws, wc, DARRAY_ORDER_C,
                                    c->out), "write_section", dst);
  c->t_io += MPI_Wtime() - t;
  return rc;
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
        c->out[(i - r0) * n + j] = initial(n, i, j);
    int64_t s[2] = {r0, 0}, cnt[2] = {r1 - r0, n};
    int rc = darray_write_section(c->f[0], c->a, s, cnt, DARRAY_ORDER_C,
                                  c->out);
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
  /* budget: a slab with two halo rows in, a slab out */
  c->slab = (o->budget / (8 * o->n) - 2) / 2;
  if (c->slab < 1)
    c->slab = 1;
  int64_t rows = (o->n + nprocs - 1) / nprocs;
  c->nslabs = (rows + c->slab - 1) / c->slab;
  c->in = malloc((size_t)((c->slab + 2) * o->n * 8));
  c->out = malloc((size_t)(c->slab * o->n * 8));
  MPI_Info info;
  MPI_Info_create(&info);
  char v[32];
  snprintf(v, sizeof v, "%" PRId64, o->budget); /* cap library memory */
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
  MPI_Init(&argc, &argv);
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
  if (rc == 0)
    rc = initialize(&c);
  for (int it = 0; rc == 0 && it < o.iters; it++)
    for (int k = 0; rc == 0 && k < c.nslabs; k++)
      rc = sweep_slab(&c, k, c.f[it % 2], c.f[(it + 1) % 2]);
  double t[2] = {c.t_io, c.t_comp};
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* the library's temporary memory stayed within the budget */
  int64_t peak = 0;
  for (int k = 0; k < 2 && c.f[k] != NULL; k++) {
    darray_stats_t st;
    if (darray_file_get_stats(c.f[k], &st) == DARRAY_SUCCESS &&
        st.peak_temp_bytes > peak)
      peak = st.peak_temp_bytes;
  }
  MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  darray_file_close(&c.f[0]);
  darray_file_close(&c.f[1]);
  darray_free(&c.a);
  free(c.in);
  free(c.out);
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
