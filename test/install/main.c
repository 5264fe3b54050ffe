/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * main.c - the program test/install/check.sh builds against an installed
 * darrayio, once with CMake (cmake/CMakeLists.txt) and once with
 * pkg-config (make/Makefile), as a user would.
 *
 * It checks that the header it was compiled with and the library it runs
 * with have the same version, then writes a 7 x 5 int32 array, BLOCK over
 * the processes by rows, to the file argv[1], reads it back, and compares
 * the bytes with the oracle: element (i, j) holds 1000 i + j and lies at
 * byte 4 (5 i + j) of the file (C order). Rank 0 checks the file itself
 * with stdio; every rank checks what it read. Exit status 0 when all
 * agree, 1 otherwise; a failure names what differed.
 */
#include <darrayio.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NI 7
#define NJ 5

static int value(int64_t i, int64_t j) { return (int)(1000 * i + j); }

static int check_version(void) {
  int major, minor, patch;
  if (darray_get_version(&major, &minor, &patch) != DARRAY_SUCCESS ||
      major != DARRAYIO_VERSION_MAJOR || minor != DARRAYIO_VERSION_MINOR ||
      patch != DARRAYIO_VERSION_PATCH) {
    fprintf(stderr, "version: darrayio.h is %s but the library is %s\n",
            DARRAYIO_VERSION_STRING, darray_version_string());
    return 1;
  }
  return 0;
}

/* The file as rank 0 finds it with stdio, element by element. */
static int check_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  int32_t got[NI * NJ];
  int bad = fp == NULL || fread(got, sizeof got, 1, fp) != 1 ||
            fgetc(fp) != EOF;
  if (fp != NULL)
    fclose(fp);
  for (int64_t i = 0; !bad && i < NI; i++)
    for (int64_t j = 0; j < NJ; j++)
      if (got[i * NJ + j] != value(i, j)) {
        fprintf(stderr, "file: element (%lld, %lld) is %d, expected %d\n",
                (long long)i, (long long)j, got[i * NJ + j], value(i, j));
        bad = 1;
        break;
      }
  if (bad)
    fprintf(stderr, "file: %s does not hold the array\n", path);
  return bad;
}

/* Write the local piece, read it back into another buffer, compare. */
static int write_read(darray_t a, const char *path, int64_t start[2],
                      int64_t shape[2]) {
  int64_t n = shape[0] * shape[1];
  int32_t *out = malloc((size_t)(n ? n : 1) * sizeof *out);
  int32_t *in = calloc((size_t)(n ? n : 1), sizeof *in);
  for (int64_t i = 0; i < shape[0]; i++)
    for (int64_t j = 0; j < shape[1]; j++)
      out[i * shape[1] + j] = value(start[0] + i, start[1] + j);
  darray_file_t f;
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                DARRAY_MODE_TRUNC,
                            MPI_INFO_NULL, &f);
  if (rc == DARRAY_SUCCESS) {
    rc = darray_write(f, a, out);
    if (rc == DARRAY_SUCCESS)
      rc = darray_read(f, a, in);
    if (rc != DARRAY_SUCCESS)
      fprintf(stderr, "write/read: %s: %s\n", darray_err_name(rc),
              darray_file_errmsg(f));
    int rc2 = darray_file_close(&f);
    rc = rc ? rc : rc2;
  } else {
    fprintf(stderr, "open %s: %s: %s\n", path, darray_err_name(rc),
            darray_errmsg(NULL));
  }
  int bad = rc != DARRAY_SUCCESS;
  for (int64_t k = 0; !bad && k < n; k++)
    if (in[k] != out[k]) {
      fprintf(stderr, "read back: local element %lld is %d, expected %d\n",
              (long long)k, in[k], out[k]);
      bad = 1;
    }
  free(out);
  free(in);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char *path = argc > 1 ? argv[1] : "install_check.dat";
  int bad = check_version();

  darray_t a;
  int64_t gsizes[2] = {NI, NJ}, start[2] = {0, 0}, shape[2] = {0, 0};
  darray_dist_t dist[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  int rc = darray_create(MPI_COMM_WORLD, 2, gsizes, DARRAY_INT32, &a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_distribution(a, dist, NULL);
  if (rc == DARRAY_SUCCESS)
    rc = darray_commit(a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_local_start(a, 0, start);
  if (rc == DARRAY_SUCCESS)
    rc = darray_local_shape(a, 0, shape);
  if (rc != DARRAY_SUCCESS) {
    fprintf(stderr, "describing the array: %s: %s\n", darray_err_name(rc),
            darray_errmsg(a));
    bad = 1;
  } else {
    bad |= write_read(a, path, start, shape);
  }
  darray_free(&a);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && rc == DARRAY_SUCCESS)
    bad |= check_file(path);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    if (bad == 0)
      printf("install check: darrayio %s, %d process%s: OK\n",
             darray_version_string(), nprocs, nprocs > 1 ? "es" : "");
    remove(path);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
