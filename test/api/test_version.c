/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_version.c - the library's version, darray_get_version() and
 * darray_version_string(), against two oracles: the DARRAYIO_VERSION_*
 * macros of the header this test was compiled with, and PACKAGE_VERSION,
 * the version configure read from the header's text (tools/version.sh)
 * when autoconf ran. The calls need no MPI, so they are checked before
 * MPI_Init and after MPI_Finalize too. Run at 1 process; no testutil
 * (which starts MPI): checks by hand, reports through the exit status.
 */
#include "config.h"
#include "darrayio.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expect_int(const char *what, const char *when, int got,
                       int want) {
  if (got != want) {
    fprintf(stderr, "FAIL %s %s: got %d, expected %d\n", what, when, got,
            want);
    failures++;
  }
}

static void expect_str(const char *what, const char *when, const char *got,
                       const char *want) {
  if (got == NULL || strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL %s %s: got \"%s\", expected \"%s\"\n", what, when,
            got ? got : "(null)", want);
    failures++;
  }
}

static void check(const char *when) {
  int major = -1, minor = -1, patch = -1;
  expect_int("darray_get_version's code", when,
             darray_get_version(&major, &minor, &patch), DARRAY_SUCCESS);
  expect_int("major", when, major, DARRAYIO_VERSION_MAJOR);
  expect_int("minor", when, minor, DARRAYIO_VERSION_MINOR);
  expect_int("patch", when, patch, DARRAYIO_VERSION_PATCH);

  const char *s = darray_version_string();
  expect_str("darray_version_string", when, s, DARRAYIO_VERSION_STRING);
  expect_str("darray_version_string vs configure's version", when, s,
             PACKAGE_VERSION);
  char numbers[64];
  snprintf(numbers, sizeof numbers, "%d.%d.%d", major, minor, patch);
  expect_str("darray_version_string vs darray_get_version", when, s, numbers);

  /* Each output may be NULL; the others are still filled. */
  minor = -1;
  expect_int("darray_get_version(NULL, &minor, NULL)", when,
             darray_get_version(NULL, &minor, NULL), DARRAY_SUCCESS);
  expect_int("minor alone", when, minor, DARRAYIO_VERSION_MINOR);
}

int main(int argc, char **argv) {
  /* The string macro is made from the three numbers. */
  char numbers[64];
  snprintf(numbers, sizeof numbers, "%d.%d.%d", DARRAYIO_VERSION_MAJOR,
           DARRAYIO_VERSION_MINOR, DARRAYIO_VERSION_PATCH);
  expect_str("DARRAYIO_VERSION_STRING", "(the macro)", DARRAYIO_VERSION_STRING,
             numbers);

  check("before MPI_Init");
  MPI_Init(&argc, &argv);
  check("between MPI_Init and MPI_Finalize");
  MPI_Finalize();
  check("after MPI_Finalize");

  if (failures == 0)
    printf("test_version: %s: OK\n", darray_version_string());
  return failures == 0 ? 0 : 1;
}
