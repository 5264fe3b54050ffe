/*
 * btio - the I/O pattern of the NAS BT benchmark (BTIO), written and read
 * with darrayio, every dump checked point by point.
 *
 * The pattern. BT solves on an N x N x N grid with 5 doubles per point, over
 * P = q*q processes. The grid is cut into q x q x q cells and each process
 * owns q of them, one in every x-slab, every y-slab and every z-slab (the
 * "multipartition" decomposition): cell k of rank r is the cell with slab
 * numbers ((r mod q + k) mod q, (r div q - k) mod q, k). When q does not
 * divide N, the first N mod q slabs of each dimension are one point larger.
 * A process keeps its cells in one Fortran array
 *     u(5, -2:IMAX+1, -2:JMAX+1, -2:KMAX+1, ncells),  IMAX=JMAX=KMAX = N/q+1,
 * so every cell carries two ghost layers on each side and padding up to
 * IMAX: in memory only x-rows (5 * sx doubles) are contiguous.
 * The file has no header: each dump is the global u(5, N, N, N) in
 * column-major order, and dumps are appended, so component m of point
 * (i, j, k) in dump d sits at byte
 *     8*m + 40*(i + N*(j + N*(k + N*d))).
 * A process's cells touch about N*N/q separate runs of 40*N/q bytes per
 * dump, interleaved with everybody else's: the file is the same for any P.
 *
 * In darrayio terms: a 4-D array {5, N, N, N} of doubles, distribution
 * {NONE, MULTIPARTITION, MULTIPARTITION, MULTIPARTITION}, Fortran storage
 * order, Fortran memory order with ghost {0, 2, 2, 2} and padded extents
 * {5, IMAX+4, JMAX+4, KMAX+4}. Dump d is written by moving the displacement
 * to d * 40 * N^3 and calling darray_write() on the BT-shaped buffer itself.
 *
 * The program computes its cells with BT's own formulas and checks that
 * darrayio agrees, fills each dump with a closed form (the value of a double
 * is its index in the file plus one), writes every dump, reads every dump
 * back into a buffer full of sentinels and checks every interior point and
 * that ghosts and padding were left alone.
 *
 * Build: make            (builds examples/btio)
 * Run:   mpiexec -n 4 examples/btio --class S --verify-file
 *        mpiexec -n 4 examples/btio --class A --hints "romio_cb_write=disable"
 *        mpiexec -n 4 examples/btio --class W --write-only --file w.dat
 *        mpiexec -n 4 examples/btio --class W --read-only --file w.dat
 *
 * Options:
 *   --class S|W|A|B|C  problem class: N = 12, 24, 64, 102, 162 (default S)
 *   --dumps K          number of dumps (default 12 for S, 40 otherwise)
 *   --file PATH        the file (default ./btio.dat, removed at the end)
 *   --keep             do not remove the file
 *   --hints K=V;...    hints passed in an MPI_Info (see darray_file_open)
 *   --verify-file      after writing, rank 0 checks every byte of the file
 *                      at its BTIO offset (cheap for S and W)
 *   --write-only       write the dumps, do not read them (keeps the file)
 *   --read-only        read and check the dumps of an existing file
 *
 * Prints, from rank 0:
 *   btio: class S, N=12, 12 dumps, P=4 (q=2), 829440 bytes
 *   btio: write 829440 bytes in 0.0071 s = 111.4 MiB/s
 *   btio: file on disk checked at every BTIO offset, OK
 *   btio: read  829440 bytes in 0.0023 s = 343.9 MiB/s
 *   btio: verified 12 dumps x 12^3 points, OK
 * Times are I/O time only (the slowest process's darray_write/darray_read,
 * summed over dumps). Exit status: 0 when everything checked, 1 on a wrong
 * value, 2 on a usage error, a P that is not a perfect square, cells smaller
 * than 3 points, or a darrayio error (its message is printed).
 */
#include "darrayio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL (-7.0) /* no closed-form value is negative */

typedef struct options {
  char cls;
  int64_t n;
  int dumps;
  const char *file;
  int keep, verify_file, do_write, do_read;
  const char *hints;
} options_t;

/* The BT run: sizes, this rank's cells (BT's formulas), the buffer. */
typedef struct bt {
  int64_t n, imax, pad, cell_doubles; /* pad = IMAX + 4 */
  int q, rank, ncells;
  int64_t low[16][3], len[16][3]; /* cells per rank: q <= 16 (P <= 256) */
  double *u;
} bt_t;

static int64_t class_n(char c) {
  switch (c) {
  case 'S': return 12;
  case 'W': return 24;
  case 'A': return 64;
  case 'B': return 102;
  case 'C': return 162;
  default: return 0;
  }
}

static int usage(const char *prog, const char *bad) {
  fprintf(stderr, "%s: bad option '%s'\n", prog, bad);
  fprintf(stderr, "usage: %s [--class S|W|A|B|C] [--dumps K] [--file PATH]"
                  " [--keep] [--hints K=V;...] [--verify-file]"
                  " [--write-only | --read-only]\n", prog);
  return -1;
}

static int parse(int argc, char **argv, options_t *o) {
  *o = (options_t){'S', 0, 0, "btio.dat", 0, 0, 1, 1, NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--class") && v && strlen(v) == 1)
      o->cls = v[0], i++;
    else if (!strcmp(a, "--dumps") && v)
      o->dumps = atoi(v), i++;
    else if (!strcmp(a, "--file") && v)
      o->file = v, i++;
    else if (!strcmp(a, "--hints") && v)
      o->hints = v, i++;
    else if (!strcmp(a, "--keep"))
      o->keep = 1;
    else if (!strcmp(a, "--verify-file"))
      o->verify_file = 1;
    else if (!strcmp(a, "--write-only"))
      o->do_read = 0, o->keep = 1;
    else if (!strcmp(a, "--read-only"))
      o->do_write = 0, o->keep = 1;
    else
      return usage(argv[0], a);
  }
  o->n = class_n(o->cls);
  if (o->dumps == 0)
    o->dumps = o->cls == 'S' ? 12 : 40;
  if (o->n == 0 || o->dumps < 1 || (!o->do_write && !o->do_read))
    return usage(argv[0], "(values)");
  return 0;
}

/* "k=v;k=v" -> MPI_Info */
static MPI_Info make_info(const char *hints) {
  MPI_Info info = MPI_INFO_NULL;
  if (hints == NULL)
    return info;
  MPI_Info_create(&info);
  char *copy = strdup(hints), *save = NULL;
  for (char *t = strtok_r(copy, ";", &save); t;
       t = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(t, '=');
    if (eq) {
      *eq = '\0';
      MPI_Info_set(info, t, eq + 1);
    }
  }
  free(copy);
  return info;
}

/* ---- BT's own decomposition ------------------------------------------- */

static int mod(int a, int q) { return ((a % q) + q) % q; }

/* Slab s of q over n points: the first n mod q slabs are one point larger. */
static void slab(int64_t n, int q, int s, int64_t *low, int64_t *len) {
  int64_t size = n / q, excess = n % q;
  *len = s < excess ? size + 1 : size;
  *low = s < excess ? s * (size + 1)
                    : excess * (size + 1) + (s - excess) * size;
}

/* Fill bt with BT's sizes and this rank's cells; 0, or a message on rank 0
 * and -1 when BT itself would refuse to run. */
static int bt_setup(bt_t *bt, int64_t n, int nprocs, int rank) {
  int q = 1;
  while ((q + 1) * (q + 1) <= nprocs)
    q++;
  const char *why = NULL;
  if (q * q != nprocs)
    why = "BT needs a perfect square number of processes (1, 4, 9, 16, ...)";
  else if (q > 16)
    why = "this example handles at most 256 processes";
  else if (n / q < 3)
    why = "BT refuses cells smaller than 3 points in any dimension";
  if (why) {
    if (rank == 0)
      fprintf(stderr, "btio: %d processes, N=%" PRId64 ": %s\n", nprocs, n,
              why);
    return -1;
  }
  *bt = (bt_t){.n = n, .imax = n / q + 1, .q = q, .rank = rank, .ncells = q};
  bt->pad = bt->imax + 4;
  bt->cell_doubles = 5 * bt->pad * bt->pad * bt->pad;
  for (int k = 0; k < q; k++) {
    int xyz[3] = {mod(rank % q + k, q), mod(rank / q - k, q), k};
    for (int s = 0; s < 3; s++)
      slab(n, q, xyz[s], &bt->low[k][s], &bt->len[k][s]);
  }
  return 0;
}

/* ---- the closed form: a double's index in the file, plus one ----------- */

static double value(const bt_t *bt, int m, int64_t i, int64_t j, int64_t k,
                    int d) {
  int64_t n = bt->n;
  return (double)(m + 5 * (i + n * (j + n * (k + n * (int64_t)d))) + 1);
}

/* Address of u(m, x, y, z, c) with interior indices starting at 0. */
static double *at(const bt_t *bt, int c, int m, int64_t x, int64_t y,
                  int64_t z) {
  int64_t p = bt->pad;
  return bt->u + c * bt->cell_doubles +
         m + 5 * ((x + 2) + p * ((y + 2) + p * (z + 2)));
}

/* Fill (check == 0) or check every interior point of dump d; returns the
 * number of wrong values. */
static int64_t sweep(const bt_t *bt, int d, int check) {
  int64_t bad = 0;
  for (int c = 0; c < bt->ncells; c++) {
    const int64_t *lo = bt->low[c], *ln = bt->len[c];
    for (int64_t z = 0; z < ln[2]; z++)
      for (int64_t y = 0; y < ln[1]; y++)
        for (int64_t x = 0; x < ln[0]; x++)
          for (int m = 0; m < 5; m++) {
            double v = value(bt, m, lo[0] + x, lo[1] + y, lo[2] + z, d);
            double *p = at(bt, c, m, x, y, z);
            if (!check)
              *p = v;
            else if (*p != v && bad++ == 0)
              fprintf(stderr, "btio: rank %d dump %d u(%d,%" PRId64 ",%" PRId64
                      ",%" PRId64 ") is %.17g, expected %.17g\n", bt->rank, d,
                      m, lo[0] + x, lo[1] + y, lo[2] + z, *p, v);
          }
  }
  return bad;
}

static int interior(const bt_t *bt, int c, int64_t x, int64_t y, int64_t z) {
  return x >= 2 && x < 2 + bt->len[c][0] && y >= 2 && y < 2 + bt->len[c][1] &&
         z >= 2 && z < 2 + bt->len[c][2];
}

/* Ghosts and padding must still hold the sentinel after a read; returns the
 * number of doubles that changed. (x, y, z) are padded indices here. */
static int64_t check_ghosts(const bt_t *bt) {
  int64_t bad = 0, p = bt->pad;
  const double *u = bt->u;
  for (int c = 0; c < bt->ncells; c++)
    for (int64_t z = 0; z < p; z++)
      for (int64_t y = 0; y < p; y++)
        for (int64_t x = 0; x < p; x++, u += 5)
          if (!interior(bt, c, x, y, z))
            for (int m = 0; m < 5; m++)
              bad += u[m] != SENTINEL;
  if (bad != 0)
    fprintf(stderr, "btio: rank %d: %" PRId64 " ghost or padding doubles "
            "changed by the read\n", bt->rank, bad);
  return bad;
}

static void clear(bt_t *bt) {
  for (int64_t p = 0; p < bt->ncells * bt->cell_doubles; p++)
    bt->u[p] = SENTINEL;
}

/* ---- the darrayio description, checked against BT's cells ------------- */

static int fail(int rc, const char *what, const char *msg) {
  fprintf(stderr, "btio: %s: %s (%s): %s\n", what, darray_err_name(rc),
          darray_strerror(rc), msg);
  return 2;
}

static int describe(const bt_t *bt, darray_t *a) {
  int64_t g[4] = {5, bt->n, bt->n, bt->n}, ghost[4] = {0, 2, 2, 2};
  int64_t padded[4] = {5, bt->pad, bt->pad, bt->pad};
  darray_dist_t dist[4] = {DARRAY_DIST_NONE, DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION,
                           DARRAY_DIST_MULTIPARTITION};
  int rc = darray_create(MPI_COMM_WORLD, 4, g, DARRAY_DOUBLE, a);
  if (rc)
    return fail(rc, "darray_create", darray_errmsg(NULL));
  if ((rc = darray_set_distribution(*a, dist, NULL)) ||
      (rc = darray_set_storage_order(*a, DARRAY_ORDER_FORTRAN, NULL)) ||
      (rc = darray_set_memory_layout(*a, DARRAY_ORDER_FORTRAN, ghost,
                                     padded)) ||
      (rc = darray_commit(*a)))
    return fail(rc, "describing the array", darray_errmsg(*a));
  return 0;
}

/* darrayio must place the same cells, in the same order, as BT does. */
static int64_t check_cells(const bt_t *bt, darray_t a) {
  int ncells;
  int64_t bytes, start[4], shape[4], bad = 0;
  darray_num_cells(a, &ncells);
  darray_local_bytes(a, &bytes);
  if (ncells != bt->ncells || bytes != bt->ncells * bt->cell_doubles * 8) {
    fprintf(stderr, "btio: rank %d: darrayio has %d cells in %" PRId64
            " bytes, BT %d cells\n", bt->rank, ncells, bytes, bt->ncells);
    return 1;
  }
  for (int c = 0; c < ncells; c++) {
    darray_local_start(a, c, start);
    darray_local_shape(a, c, shape);
    for (int s = 0; s < 3; s++)
      if (start[s + 1] != bt->low[c][s] || shape[s + 1] != bt->len[c][s])
        bad++;
  }
  if (bad)
    fprintf(stderr, "btio: rank %d: darrayio's cells differ from BT's\n",
            bt->rank);
  return bad;
}

/* ---- I/O phases --------------------------------------------------------- */

static void report(const char *op, int64_t bytes, double t) {
  printf("btio: %-5s %" PRId64 " bytes in %.4f s = %.1f MiB/s\n", op, bytes,
         t, (double)bytes / (1 << 20) / (t > 0 ? t : 1e-9));
}

/* One timed darray_write or darray_read of dump d; adds the slowest
 * process's time to *t. */
static int one_dump(bt_t *bt, darray_file_t f, darray_t a, int d, int write,
                    double *t) {
  darray_set_displacement(a, 40 * bt->n * bt->n * bt->n * (int64_t)d);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc = write ? darray_write(f, a, bt->u) : darray_read(f, a, bt->u);
  t0 = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t0, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *t += t0;
  if (rc)
    return fail(rc, write ? "darray_write" : "darray_read",
                darray_file_errmsg(f));
  return 0;
}

static int open_file(const options_t *o, int write, darray_file_t *f) {
  MPI_Info info = make_info(o->hints);
  int mode = write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC
                   : DARRAY_MODE_RDONLY;
  int rc = darray_file_open(MPI_COMM_WORLD, o->file, mode, info, f);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  return rc ? fail(rc, "darray_file_open", darray_errmsg(NULL)) : 0;
}

/* Write (or read and check) every dump; *bad counts wrong values here. */
static int phase(const options_t *o, bt_t *bt, darray_t a, int write,
                 int64_t *bad) {
  darray_file_t f = NULL;
  double t = 0;
  int rc = open_file(o, write, &f);
  for (int d = 0; d < o->dumps && rc == 0; d++) {
    if (write)
      sweep(bt, d, 0);
    else
      clear(bt);
    rc = one_dump(bt, f, a, d, write, &t);
    if (rc == 0 && !write)
      *bad += sweep(bt, d, 1) + check_ghosts(bt);
  }
  if (f != NULL && darray_file_close(&f) != 0 && rc == 0)
    rc = fail(DARRAY_EIO, "darray_file_close", "");
  if (rc == 0 && bt->rank == 0)
    report(write ? "write" : "read", 40 * bt->n * bt->n * bt->n * o->dumps, t);
  return rc;
}

/* Rank 0: every double of the file must be its own index plus one, and the
 * file must be exactly as long as the dumps. Returns wrong values. */
static int64_t verify_file(const options_t *o, const bt_t *bt) {
  int64_t per_dump = 5 * bt->n * bt->n * bt->n, bad = 0;
  FILE *fp = fopen(o->file, "rb");
  double *buf = malloc((size_t)per_dump * sizeof *buf);
  if (fp == NULL || buf == NULL) {
    fprintf(stderr, "btio: cannot open %s to check it\n", o->file);
    bad = 1;
  }
  for (int d = 0; d < o->dumps && bad == 0; d++) {
    if (fread(buf, sizeof *buf, (size_t)per_dump, fp) != (size_t)per_dump) {
      fprintf(stderr, "btio: %s ends inside dump %d\n", o->file, d);
      bad = 1;
    }
    for (int64_t e = 0; e < per_dump && bad == 0; e++)
      if (buf[e] != (double)(d * per_dump + e + 1)) {
        fprintf(stderr, "btio: byte %" PRId64 " of %s holds %.17g, expected "
                "%.17g\n", 8 * (d * per_dump + e), o->file, buf[e],
                (double)(d * per_dump + e + 1));
        bad = 1;
      }
  }
  if (bad == 0 && fgetc(fp) != EOF) {
    fprintf(stderr, "btio: %s is longer than %d dumps\n", o->file, o->dumps);
    bad = 1;
  }
  if (fp)
    fclose(fp);
  free(buf);
  if (bad == 0)
    printf("btio: file on disk checked at every BTIO offset, OK\n");
  return bad;
}

static int64_t check_on_disk(const options_t *o, const bt_t *bt) {
  int64_t bad = 0;
  if (bt->rank == 0)
    bad = verify_file(o, bt);
  MPI_Bcast(&bad, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return bad;
}

static int run(const options_t *o, bt_t *bt) {
  darray_t a = NULL;
  int64_t bad = 0;
  int rc = describe(bt, &a);
  if (rc == 0) {
    bad = check_cells(bt, a);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  bt->u = malloc((size_t)(bt->ncells * bt->cell_doubles) * sizeof(double));
  if (rc == 0 && bad == 0 && o->do_write)
    rc = phase(o, bt, a, 1, &bad);
  if (rc == 0 && bad == 0 && o->verify_file)
    bad = check_on_disk(o, bt);
  if (rc == 0 && bad == 0 && o->do_read) {
    rc = phase(o, bt, a, 0, &bad);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rc == 0 && bt->rank == 0)
      printf(bad ? "btio: %" PRId64 " wrong values, FAILED\n"
                 : "btio: verified %" PRId64 " dumps x %" PRId64
                   "^3 points, OK\n", bad ? bad : (int64_t)o->dumps, bt->n);
  }
  free(bt->u);
  darray_free(&a);
  if (bt->rank == 0 && !o->keep)
    remove(o->file);
  return rc ? rc : bad ? 1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  options_t o;
  bt_t bt;
  int rc = parse(argc, argv, &o) ? 2 : bt_setup(&bt, o.n, nprocs, rank) ? 2 : 0;
  if (rc == 0 && rank == 0)
    printf("btio: class %c, N=%" PRId64 ", %d dumps, P=%d (q=%d), %" PRId64
           " bytes\n", o.cls, o.n, o.dumps, nprocs, bt.q,
           40 * o.n * o.n * o.n * o.dumps);
  if (rc == 0)
    rc = run(&o, &bt);
  MPI_Finalize();
  return rc;
}
