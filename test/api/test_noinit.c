/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_noinit.c - calls outside MPI's lifetime return DARRAY_EMPI with a
 * message saying so, instead of aborting inside MPI: darray_create,
 * darray_file_open, darray_dataset_open (which called MPI_Comm_test_inter
 * first, and MPICH aborted the program) and the binding calls
 * darray_*_fint before MPI_Init; darray_write, darray_commit and
 * darray_file_sync after MPI_Finalize; darray_free then releases the
 * handles' memory without MPI (nothing leaks: the test runs under the
 * sanitizers' leak checker) and says so with DARRAY_EMPI; the file, left
 * open, was closed by the library at MPI_Finalize (issue #38): the
 * program's darray_file_close then releases the handle and returns that
 * close's result, success, and the file holds what was written;
 * a virtual array (no communicator) is freed then without complaint.
 * darray_file_delete makes no MPI call: before MPI_Init it answers for a
 * missing file (DARRAY_ENOENT, not DARRAY_EMPI), and after MPI_Finalize it
 * deletes the test's file. Between the two, the same calls succeed (so
 * the refusals are about MPI, not the arguments). Run at 1 process;
 * testutil starts MPI itself, so this program checks by hand and reports
 * through its exit status.
 */
#include "darrayio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

static void expect(const char *what, int rc, int code, const char *msg,
                   const char *word) {
  if (rc != code) {
    fprintf(stderr, "FAIL %s: got %s, expected %s (%s)\n", what,
            darray_err_name(rc), darray_err_name(code), msg ? msg : "");
    failures++;
  } else if (word != NULL && (msg == NULL || strstr(msg, word) == NULL)) {
    fprintf(stderr, "FAIL %s: message \"%s\" does not contain \"%s\"\n",
            what, msg ? msg : "(null)", word);
    failures++;
  }
}

/* The test file: one path for every process, from rank 0's pid. */
static void test_path(char *path, size_t n) {
  const char *dir = getenv("DARRAY_TEST_TMPDIR");
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(path, n, "%s/darray_noinit.%ld", dir ? dir : "/tmp", pid);
}

int main(int argc, char **argv) {
  char path[512] = "/nonexistent/darray_noinit"; /* not used before init */
  int64_t n = 16;
  darray_t a = NULL;
  darray_file_t f = NULL;
  int rc = darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a);
  expect("create before MPI_Init", rc, DARRAY_EMPI, darray_errmsg(NULL),
         "MPI is not initialized");
  rc = darray_file_open(MPI_COMM_WORLD, path,
                        DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, MPI_INFO_NULL,
                        &f);
  expect("open before MPI_Init", rc, DARRAY_EMPI, darray_file_errmsg(NULL),
         "MPI is not initialized");
  expect("delete before MPI_Init",
         darray_file_delete("/nonexistent/darray_noinit", MPI_INFO_NULL),
         DARRAY_ENOENT, darray_errmsg(NULL), "/nonexistent/darray_noinit");
  rc = darray_dataset_open(MPI_COMM_WORLD, "/nonexistent/x.npz",
                           DARRAY_MODE_RDONLY, MPI_INFO_NULL, &f);
  expect("dataset_open before MPI_Init", rc, DARRAY_EMPI,
         darray_file_errmsg(NULL), "MPI is not initialized");
  /* the calls of bindings, which take Fortran handles: none converted
   * without MPI (MPI_Comm_f2c needs it) */
  expect("create_fint before MPI_Init",
         darray_create_fint(0, 1, &n, DARRAY_INT32, &a), DARRAY_EMPI,
         darray_errmsg(NULL), "MPI is not initialized");
  expect("file_open_fint before MPI_Init",
         darray_file_open_fint(0, path, DARRAY_MODE_RDONLY, 0, &f),
         DARRAY_EMPI, darray_file_errmsg(NULL), "MPI is not initialized");
  expect("dataset_open_fint before MPI_Init",
         darray_dataset_open_fint(0, "/nonexistent/x.npz",
                                  DARRAY_MODE_RDONLY, 0, &f),
         DARRAY_EMPI, darray_file_errmsg(NULL), "MPI is not initialized");
  expect("delete_fint before MPI_Init",
         darray_file_delete_fint("/nonexistent/darray_noinit", 0),
         DARRAY_ENOENT, darray_errmsg(NULL), "/nonexistent/darray_noinit");
  const char *mpi = darray_mpi_library();
  if (strncmp(mpi, "MPICH ", 6) != 0 && strncmp(mpi, "Open MPI ", 9) != 0 &&
      strncmp(mpi, "MPI ", 4) != 0) {
    fprintf(stderr, "FAIL darray_mpi_library: \"%s\"\n", mpi);
    failures++;
  }

  MPI_Init(&argc, &argv);
  test_path(path, sizeof path);
  int32_t buf[16];
  for (int i = 0; i < 16; i++)
    buf[i] = i;
  darray_t b = NULL, v = NULL;
  expect("create_virtual", darray_create_virtual(64, 1, &n, DARRAY_INT32, &v),
         DARRAY_SUCCESS, darray_errmsg(NULL), NULL);
  expect("create", darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a),
         DARRAY_SUCCESS, darray_errmsg(NULL), NULL);
  expect("create", darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &b),
         DARRAY_SUCCESS, darray_errmsg(NULL), NULL);
  expect("commit", darray_commit(a), DARRAY_SUCCESS, darray_errmsg(a), NULL);
  expect("open",
         darray_file_open(MPI_COMM_WORLD, path,
                          DARRAY_MODE_RDWR | DARRAY_MODE_CREATE,
                          MPI_INFO_NULL, &f),
         DARRAY_SUCCESS, darray_file_errmsg(NULL), NULL);
  expect("write", darray_write(f, a, buf), DARRAY_SUCCESS,
         darray_file_errmsg(f), NULL);
  MPI_Finalize();

  if (a != NULL && b != NULL && f != NULL) {
    expect("write after MPI_Finalize", darray_write(f, a, buf), DARRAY_EMPI,
           darray_file_errmsg(f), "MPI has been finalized");
    expect("commit after MPI_Finalize", darray_commit(b), DARRAY_EMPI,
           darray_errmsg(b), "finalized");
    expect("sync after MPI_Finalize", darray_file_sync(f), DARRAY_EMPI,
           darray_file_errmsg(f), "finalized");
    /* closed at MPI_Finalize: the handle is released, f is NULL */
    rc = darray_file_close(&f);
    expect("close after MPI_Finalize", rc, DARRAY_SUCCESS,
           darray_file_errmsg(NULL), NULL);
    expect("close released the handle", f == NULL, 1, "", NULL);
    int32_t got[17] = {0};
    FILE *in = fopen(path, "rb");
    size_t nread = in ? fread(got, sizeof got[0], 17, in) : 0;
    if (in != NULL)
      fclose(in);
    expect("the file's length", (int)nread, 16, path, NULL);
    expect("the file's bytes", memcmp(got, buf, sizeof buf), 0, path, NULL);
    rc = darray_free(&a);
    expect("free after MPI_Finalize", rc, DARRAY_EMPI, darray_errmsg(NULL),
           "finalized");
    expect("free released the handle", a == NULL, 1, "", NULL);
    rc = darray_free(&b);
    expect("free after MPI_Finalize", rc, DARRAY_EMPI, darray_errmsg(NULL),
           "finalized");
    /* a virtual array holds nothing of MPI's: freed as at any time */
    expect("free of a virtual array after MPI_Finalize", darray_free(&v),
           DARRAY_SUCCESS, darray_errmsg(NULL), NULL);
    expect("free released the virtual handle", v == NULL, 1, "", NULL);
  } else {
    fprintf(stderr, "FAIL: setup between MPI_Init and MPI_Finalize\n");
    failures++;
  }
  if (strncmp(path, "/nonexistent", 12) != 0)
    expect("delete after MPI_Finalize",
           darray_file_delete(path, MPI_INFO_NULL), DARRAY_SUCCESS,
           darray_errmsg(NULL), NULL);
  if (failures == 0)
    printf("test_noinit: all checks passed\n");
  return failures ? 1 : 0;
}
