/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
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
 * With --nonblocking each dump is posted with darray_iwrite() and the
 * program computes the next dump while it is written, as BT would: compute
 * dump d, wait for dump d-1, post dump d, compute dump d+1, ... The buffer
 * of a posted dump belongs to the library until its wait, so the program
 * keeps two BT-shaped buffers and computes into the one not being written
 * (see write_nonblocking). The file is byte-identical to the blocking
 * run's (test/btio_small.sh compares them). MPI is initialized with
 * MPI_Init_thread(MPI_THREAD_MULTIPLE); with a lower level the library
 * overlaps less (or nothing), and the program prints, from
 * darray_explain(), what overlaps.
 *
 * Build: make            (builds examples/btio)
 * Run:   mpiexec -n 4 examples/btio --class S --verify-file
 *        mpiexec -n 4 examples/btio --class A --hints "romio_cb_write=disable"
 *        mpiexec -n 4 examples/btio --class W --write-only --file w.dat
 *        mpiexec -n 4 examples/btio --class W --read-only --file w.dat
 *        mpiexec -n 4 examples/btio --class A --nonblocking --work 20
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
 *   --nonblocking      write each dump with darray_iwrite() while the next
 *                      one is computed (reads stay blocking)
 *   --work R           compute each dump R times (default 1): more
 *                      computation for the writes to hide behind
 *   -h, --help         print the usage and exit 0
 *
 * Prints, from rank 0:
 *   btio: class S, N=12, 12 dumps, P=4 (q=2), 829440 bytes
 *   btio: blocking writes (MPI thread level MULTIPLE)
 *   btio: write 829440 bytes in 0.0071 s = 111.4 MiB/s
 *   btio: write phase 0.0102 s: compute 0.0025 s, in darrayio 0.0071 s
 *   btio: file on disk checked at every BTIO offset, OK
 *   btio: read  829440 bytes in 0.0023 s = 343.9 MiB/s
 *   btio: verified 12 dumps x 12^3 points, OK
 * The "write"/"read" times are I/O time only (the slowest process's
 * darray_write/darray_read, summed over dumps; with --nonblocking, the time
 * in darray_iwrite and darray_wait). The write phase line times the whole
 * loop (slowest process): compute plus what of the I/O was not hidden.
 * With --nonblocking the mode line names the thread level, the next line
 * is darray_explain()'s "nonblocking requests:" line, and a line before
 * the write line splits the time in darrayio between posting (darray_iwrite)
 * and waiting (darray_wait). Exit status: 0 when everything checked, 1 on a wrong
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
  int nonblocking, work, help;
} options_t;

/* The BT run: sizes, this rank's cells (BT's formulas), the buffers. */
typedef struct bt {
  int64_t n, imax, pad, cell_doubles; /* pad = IMAX + 4 */
  int q, rank, ncells;
  int64_t low[16][3], len[16][3]; /* cells per rank: q <= 16 (P <= 256) */
  double *u;     /* the buffer sweep() fills or checks */
  double *ub[2]; /* --nonblocking: u alternates between these */
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

/* The usage line on stderr after a bad option (bad != NULL, returns -1),
 * or with the option list on stdout for -h/--help. */
static int usage(const char *prog, const char *bad) {
  FILE *out = bad ? stderr : stdout;
  if (bad)
    fprintf(out, "%s: bad option '%s'\n", prog, bad);
  fprintf(out, "usage: %s [--class S|W|A|B|C] [--dumps K] [--file PATH]"
               " [--keep] [--hints K=V;...] [--verify-file]"
               " [--write-only | --read-only] [--nonblocking] [--work R]"
               " [-h|--help]\n", prog);
  if (!bad)
    fprintf(out,
            "  --class C      problem class: N = 12, 24, 64, 102, 162 for S, "
            "W, A, B, C (default S)\n"
            "  --dumps K      number of dumps (default 12 for S, 40 "
            "otherwise)\n"
            "  --file PATH    the file (default ./btio.dat, removed at the "
            "end)\n"
            "  --keep         do not remove the file\n"
            "  --hints K=V;.. hints passed in an MPI_Info\n"
            "  --verify-file  rank 0 checks every byte of the written file\n"
            "  --write-only   write the dumps only (keeps the file)\n"
            "  --read-only    read and check the dumps of an existing file\n"
            "  --nonblocking  post each dump with darray_iwrite and compute "
            "the next one\n"
            "                 meanwhile (two dump buffers; the same file)\n"
            "  --work R       compute each dump R times (default 1)\n"
            "  -h, --help     this text\n");
  return -1;
}

static int parse(int argc, char **argv, options_t *o) {
  *o = (options_t){'S', 0, 0, "btio.dat", 0, 0, 1, 1, NULL, 0, 1, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help"))
      o->help = 1;
    else if (!strcmp(a, "--nonblocking"))
      o->nonblocking = 1;
    else if (!strcmp(a, "--work") && v)
      o->work = atoi(v), i++;
    else if (!strcmp(a, "--class") && v && strlen(v) == 1)
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
  if (o->n == 0 || o->dumps < 1 || o->work < 1 ||
      (!o->do_write && !o->do_read))
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

/* BT's compute step for dump d: here, filling u with the dump's values,
 * o->work times. Returns this process's time. */
static double compute(const options_t *o, bt_t *bt, int d) {
  double t = MPI_Wtime();
  for (int r = 0; r < o->work; r++)
    sweep(bt, d, 0);
  return MPI_Wtime() - t;
}

/* Rank 0: print darray_explain()'s line on what overlaps on f. */
static void say_overlap(darray_file_t f, darray_t a) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (m == NULL)
    return;
  int rc = darray_explain(f, a, 1, m);
  fclose(m);
  const char *line = rc == 0 ? strstr(text, "nonblocking requests:") : NULL;
  if (line != NULL)
    printf("btio: %.*s\n", (int)strcspn(line, "\n"), line);
  free(text);
}

/* Blocking writes: compute dump d, write it, next. Returns the time in
 * darrayio in *t_io, computing in *t_comp. */
static int write_blocking(const options_t *o, bt_t *bt, darray_file_t f,
                          darray_t a, double *t_io, double *t_comp) {
  int rc = 0;
  for (int d = 0; d < o->dumps && rc == 0; d++) {
    *t_comp += compute(o, bt, d);
    rc = one_dump(bt, f, a, d, 1, t_io);
  }
  return rc;
}

/* Nonblocking writes: compute dump d while dump d-1 is written, then wait
 * for dump d-1 and post dump d. A posted dump's buffer belongs to the
 * library until its wait, and BT's step updates u in place, so the array
 * being computed cannot be the dump being written. Waiting before each
 * compute step would keep one buffer but hide nothing (the compute step is
 * what the write should hide behind), so the program double-buffers: dump
 * d is computed into ub[d % 2], and dump d-1's buffer, ub[(d+1) % 2], is
 * computed into again only after its wait. (A real BT would copy u into
 * the idle buffer at each dump, or let darray_bwrite() copy it; the closed
 * form writes every interior value, so it computes there directly.)
 * Returns the time in darray_iwrite/darray_wait in *t_io. */
static int write_nonblocking(const options_t *o, bt_t *bt, darray_file_t f,
                             darray_t a, double *t_io, double *t_comp) {
  darray_request_t req = DARRAY_REQUEST_NULL;
  double tw[2] = {0, 0}; /* in darray_wait, in darray_iwrite */
  int rc = 0;
  for (int d = 0; d < o->dumps && rc == 0; d++) {
    bt->u = bt->ub[d % 2];
    *t_comp += compute(o, bt, d);
    double t = MPI_Wtime();
    rc = darray_wait(f, &req); /* dump d-1: ub[(d+1) % 2] is free again */
    tw[0] += MPI_Wtime() - t;
    t = MPI_Wtime();
    if (rc == 0) {
      darray_set_displacement(a, 40 * bt->n * bt->n * bt->n * (int64_t)d);
      rc = darray_iwrite(f, a, bt->u, &req);
    }
    tw[1] += MPI_Wtime() - t;
  }
  double t = MPI_Wtime();
  int rw = darray_wait(f, &req); /* the last dump (or nothing after a fault) */
  tw[0] += MPI_Wtime() - t;
  rc = rc ? rc : rw;
  bt->u = bt->ub[0];
  *t_io = tw[0] + tw[1];
  MPI_Allreduce(MPI_IN_PLACE, t_io, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, tw, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rc == 0 && bt->rank == 0)
    printf("btio: in darray_iwrite %.4f s, in darray_wait %.4f s\n", tw[1],
           tw[0]);
  return rc ? fail(rc, "darray_iwrite/darray_wait", darray_file_errmsg(f)) : 0;
}

/* Read every dump back and check it; *bad counts wrong values. */
static int read_all(const options_t *o, bt_t *bt, darray_file_t f,
                    darray_t a, double *t_io, int64_t *bad) {
  int rc = 0;
  for (int d = 0; d < o->dumps && rc == 0; d++) {
    clear(bt);
    rc = one_dump(bt, f, a, d, 0, t_io);
    if (rc == 0)
      *bad += sweep(bt, d, 1) + check_ghosts(bt);
  }
  return rc;
}

/* Write (or read and check) every dump; *bad counts wrong values here. */
static int phase(const options_t *o, bt_t *bt, darray_t a, int write,
                 int64_t *bad) {
  darray_file_t f = NULL;
  double t = 0, t_comp = 0, t_all;
  int rc = open_file(o, write, &f);
  if (rc == 0 && write && o->nonblocking && bt->rank == 0)
    say_overlap(f, a);
  MPI_Barrier(MPI_COMM_WORLD);
  t_all = MPI_Wtime();
  if (rc == 0 && !write)
    rc = read_all(o, bt, f, a, &t, bad);
  else if (rc == 0)
    rc = o->nonblocking ? write_nonblocking(o, bt, f, a, &t, &t_comp)
                        : write_blocking(o, bt, f, a, &t, &t_comp);
  t_all = MPI_Wtime() - t_all;
  double tm[2] = {t_all, t_comp};
  MPI_Allreduce(MPI_IN_PLACE, tm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int rcl = f != NULL ? darray_file_close(&f) : 0;
  if (rcl != 0 && rc == 0)
    rc = fail(rcl, "darray_file_close", darray_file_errmsg(NULL));
  if (rc == 0 && bt->rank == 0) {
    report(write ? "write" : "read", 40 * bt->n * bt->n * bt->n * o->dumps, t);
    if (write)
      printf("btio: write phase %.4f s: compute %.4f s, in darrayio %.4f s\n",
             tm[0], tm[1], t);
  }
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
  size_t bytes = (size_t)(bt->ncells * bt->cell_doubles) * sizeof(double);
  bt->ub[0] = bt->u = malloc(bytes);
  bt->ub[1] = o->nonblocking ? malloc(bytes) : NULL;
  if (bt->u == NULL || (o->nonblocking && bt->ub[1] == NULL)) {
    fprintf(stderr, "btio: rank %d: out of memory for the dumps\n", bt->rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
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
  free(bt->ub[0]);
  free(bt->ub[1]);
  darray_free(&a);
  if (bt->rank == 0 && !o->keep)
    remove(o->file);
  return rc ? rc : bad ? 1 : 0;
}

static const char *thread_level(int provided) {
  switch (provided) {
  case MPI_THREAD_MULTIPLE: return "MULTIPLE";
  case MPI_THREAD_SERIALIZED: return "SERIALIZED";
  case MPI_THREAD_FUNNELED: return "FUNNELED";
  default: return "SINGLE";
  }
}

int main(int argc, char **argv) {
  /* Ask for MULTIPLE, so that nonblocking writes run whole in the
   * background; whatever MPI provides works, the library overlaps less. */
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  options_t o;
  bt_t bt;
  int rc = parse(argc, argv, &o) ? 2 : 0;
  if (rc == 0 && o.help) {
    if (rank == 0)
      usage(argv[0], NULL);
    MPI_Finalize();
    return 0;
  }
  if (rc == 0 && bt_setup(&bt, o.n, nprocs, rank))
    rc = 2;
  if (rc == 0 && rank == 0)
    printf("btio: class %c, N=%" PRId64 ", %d dumps, P=%d (q=%d), %" PRId64
           " bytes\nbtio: %s writes (MPI thread level %s)\n", o.cls, o.n,
           o.dumps, nprocs, bt.q, 40 * o.n * o.n * o.n * o.dumps,
           o.nonblocking ? "nonblocking" : "blocking",
           thread_level(provided));
  if (rc == 0)
    rc = run(&o, &bt);
  MPI_Finalize();
  return rc;
}
