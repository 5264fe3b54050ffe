/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * dist3d - the DIST3D access pattern: an N x N x N array of 4-byte integers,
 * distributed (BLOCK, BLOCK, BLOCK) over a 3-D process grid and stored in the
 * file in row-major (C) order. Each process writes its block, reads it back,
 * and checks every element.
 *
 * This is the pattern of the DIST3D program used to evaluate noncontiguous
 * MPI-IO: with a grid that splits the last dimension, every process owns a
 * piece of every row of the file, so its file accesses are many and small
 * while together the processes cover the file contiguously.
 *
 * Build: make            (builds examples/dist3d)
 * Run:   mpiexec -n 4 examples/dist3d -n 128
 *        mpiexec -n 2 examples/dist3d -n 256 -g 1x1x2 --reps 3
 *
 * Options:
 *   -n N            global size per dimension (default 64)
 *   -g PxQxR        process grid; 0 entries are chosen (default 0x0x0)
 *   --ops LIST      write, read or write,read (default write,read)
 *   --reps K        repetitions of each phase (default 1)
 *   --file PATH     the file (default ./dist3d.dat, removed at the end);
 *                   a name ending in .npy is a NumPy file, in .npz a NumPy
 *                   archive with the array named "u" (darray_dataset_open),
 *                   any other a raw file, as MPI-IO writes it
 *   --keep          do not remove the file
 *   --hints K=V;... hints passed in an MPI_Info (see darray_file_open)
 *   -h, --help      print the usage and exit 0
 *
 * The array in a .npy/.npz file opens in Python (element (i,j,k) is
 * 7*((i*N + j)*N + k) + the last repetition's number):
 *   mpiexec -n 4 examples/dist3d -n 64 --file u.npz --keep
 *   python3 -c 'import numpy; u = numpy.load("u.npz")["u"]; print(u[1,2,3])'
 *
 * Prints, from rank 0: the grid, then one line per phase and repetition
 *   write  rep 0: 67108864 bytes in 0.0213 s = 3004.6 MiB/s
 * and "dist3d: verified N^3 elements, OK" (exit 0), or the first mismatch
 * and exit 1. A darrayio error prints its message and exits 2.
 */
#include "darrayio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
  int64_t n;
  int grid[3];
  int do_write, do_read;
  int reps;
  const char *file;
  int keep;
  const char *hints;
  int help;
} options_t;

/* The usage line on stderr after a bad option (bad != NULL, returns -1),
 * or with the option list on stdout for -h/--help. */
static int usage(const char *prog, const char *bad) {
  FILE *out = bad ? stderr : stdout;
  if (bad)
    fprintf(out, "%s: bad option '%s'\n", prog, bad);
  fprintf(out, "usage: %s [-n N] [-g PxQxR] [--ops write,read] [--reps K]"
               " [--file PATH] [--keep] [--hints K=V;...] [-h|--help]\n",
          prog);
  if (!bad)
    fprintf(out,
            "  -n N            global size per dimension (default 64)\n"
            "  -g PxQxR        process grid; 0 entries are chosen (default "
            "0x0x0)\n"
            "  --ops LIST      write, read or write,read (default "
            "write,read)\n"
            "  --reps K        repetitions of each phase (default 1)\n"
            "  --file PATH     the file (default ./dist3d.dat, removed at "
            "the end); .npy or\n"
            "                  .npz: a NumPy file or archive, else raw\n"
            "  --keep          do not remove the file\n"
            "  --hints K=V;... hints passed in an MPI_Info\n"
            "  -h, --help      this text\n");
  return -1;
}

static int parse(int argc, char **argv, options_t *o) {
  *o = (options_t){64, {0, 0, 0}, 1, 1, 1, "dist3d.dat", 0, NULL, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help = 1;
    } else if (!strcmp(a, "-n") && v) {
      o->n = strtoll(v, NULL, 10);
      i++;
    } else if (!strcmp(a, "-g") && v) {
      if (sscanf(v, "%dx%dx%d", &o->grid[0], &o->grid[1], &o->grid[2]) != 3)
        return usage(argv[0], v);
      i++;
    } else if (!strcmp(a, "--ops") && v) {
      o->do_write = strstr(v, "write") != NULL;
      o->do_read = strstr(v, "read") != NULL;
      i++;
    } else if (!strcmp(a, "--reps") && v) {
      o->reps = atoi(v);
      i++;
    } else if (!strcmp(a, "--file") && v) {
      o->file = v;
      i++;
    } else if (!strcmp(a, "--hints") && v) {
      o->hints = v;
      i++;
    } else if (!strcmp(a, "--keep")) {
      o->keep = 1;
    } else {
      return usage(argv[0], a);
    }
  }
  if (o->n < 1 || o->reps < 1 || (!o->do_write && !o->do_read))
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
  for (char *t = strtok_r(copy, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(t, '=');
    if (eq) {
      *eq = '\0';
      MPI_Info_set(info, t, eq + 1);
    }
  }
  free(copy);
  return info;
}

/* The value of global element (i, j, k) in repetition r. */
static int32_t value(int64_t n, int64_t i, int64_t j, int64_t k, int r) {
  return (int32_t)(((i * n + j) * n + k) * 7 + r);
}

/* Fill (check == 0) or check the local block; returns mismatches. */
static int64_t sweep(darray_t a, int64_t n, int32_t *buf, int r, int check) {
  int64_t ls[3], st[3], bad = 0, p = 0;
  darray_local_shape(a, 0, ls);
  darray_local_start(a, 0, st);
  for (int64_t i = 0; i < ls[0]; i++)
    for (int64_t j = 0; j < ls[1]; j++)
      for (int64_t k = 0; k < ls[2]; k++, p++) {
        int32_t v = value(n, st[0] + i, st[1] + j, st[2] + k, r);
        if (!check)
          buf[p] = v;
        else if (buf[p] != v && bad++ == 0)
          fprintf(stderr, "dist3d: element (%" PRId64 ",%" PRId64 ",%" PRId64
                          ") is %d, expected %d\n", st[0] + i, st[1] + j,
                  st[2] + k, (int)buf[p], (int)v);
      }
  return bad;
}

static int fail(int rc, const char *what, const char *msg) {
  fprintf(stderr, "dist3d: %s: %s (%s): %s\n", what, darray_err_name(rc),
          darray_strerror(rc), msg);
  return 2;
}

static void report(const char *op, int rep, int64_t bytes, double t) {
  printf("%-6s rep %d: %" PRId64 " bytes in %.4f s = %.1f MiB/s\n", op, rep,
         bytes, t, (double)bytes / (1 << 20) / (t > 0 ? t : 1e-9));
}

/* Whether path ends in suffix. */
static int ends_with(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && !strcmp(path + n - k, suffix);
}

/* The file by its suffix: a dataset whose member "u" is bound to a
 * (created whole when writing, the existing member when only reading), or
 * a raw file. 0, or 2 after printing the error. */
static int open_file(const options_t *o, darray_t a, MPI_Info info,
                     darray_file_t *f) {
  int npy = ends_with(o->file, ".npy"), npz = ends_with(o->file, ".npz");
  int rc;
  if (!npy && !npz) {
    rc = darray_file_open(MPI_COMM_WORLD, o->file,
                          DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, f);
    return rc ? fail(rc, "darray_file_open", darray_errmsg(NULL)) : 0;
  }
  int mode = o->do_write
                 ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC
                 : DARRAY_MODE_RDONLY;
  rc = darray_dataset_open(MPI_COMM_WORLD, o->file, mode, info, f);
  if (rc)
    return fail(rc, "darray_dataset_open", darray_errmsg(NULL));
  if ((rc = darray_define(*f, npz ? "u" : NULL, a)) != 0) {
    fail(rc, "darray_define", darray_file_errmsg(*f));
    darray_file_close(f);
    return 2;
  }
  return 0;
}

static int run(const options_t *o, int rank) {
  int64_t g[3] = {o->n, o->n, o->n}, nbytes, bytes = o->n * o->n * o->n * 4;
  darray_t a;
  darray_file_t f;
  int rc = darray_create(MPI_COMM_WORLD, 3, g, DARRAY_INT32, &a);
  if (rc)
    return fail(rc, "darray_create", darray_errmsg(NULL));
  if ((rc = darray_set_grid(a, o->grid)) || (rc = darray_commit(a)))
    return fail(rc, "describing the array", darray_errmsg(a));
  int ps[3];
  darray_grid(a, ps);
  darray_local_bytes(a, &nbytes);
  if (rank == 0)
    printf("dist3d: N=%" PRId64 " grid %dx%dx%d, %" PRId64 " bytes\n", o->n,
           ps[0], ps[1], ps[2], bytes);
  int32_t *buf = malloc(nbytes > 0 ? (size_t)nbytes : 1);
  MPI_Info info = make_info(o->hints);
  rc = open_file(o, a, info, &f);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  if (rc)
    return rc;
  int64_t bad = 0;
  for (int r = 0; r < o->reps && rc == 0; r++) {
    if (o->do_write) {
      sweep(a, o->n, buf, r, 0);
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      rc = darray_write(f, a, buf);
      t = MPI_Wtime() - t;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rc)
        return fail(rc, "darray_write", darray_file_errmsg(f));
      if (rank == 0)
        report("write", r, bytes, t);
    }
    if (o->do_read) {
      memset(buf, 0, (size_t)nbytes);
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      rc = darray_read(f, a, buf);
      t = MPI_Wtime() - t;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rc)
        return fail(rc, "darray_read", darray_file_errmsg(f));
      if (rank == 0)
        report("read", r, bytes, t);
      /* without a write phase the file holds repetition 0's values */
      bad += sweep(a, o->n, buf, o->do_write ? r : 0, 1);
    }
  }
  if ((rc = darray_file_close(&f)) != 0) /* a dataset's headers */
    return fail(rc, "darray_file_close", darray_errmsg(NULL));
  darray_free(&a);
  free(buf);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && !o->keep)
    remove(o->file);
  if (rank == 0 && o->do_read)
    printf(bad ? "dist3d: %" PRId64 " wrong elements, FAILED\n"
               : "dist3d: verified %" PRId64 "^3 elements, OK\n",
           bad ? bad : o->n);
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  options_t o;
  int rc = parse(argc, argv, &o);
  if (rc == 0 && o.help) {
    if (rank == 0)
      usage(argv[0], NULL);
  } else if (rc == 0) {
    rc = run(&o, rank);
  } else {
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
