/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * version.c - the library's own version: the DARRAYIO_VERSION_* numbers of
 * the header it was compiled with. A program compares them with the macros
 * of the header it was compiled with (include/darrayio.h says how). Local,
 * and no MPI call: it answers before MPI_Init and after MPI_Finalize.
 */
#include "util.h"

/* configure read the version from this same header when autoconf ran
 * (tools/version.sh) and named the tarball, darrayio.pc and the CMake
 * package after it. A header whose version changed since then would ship
 * under the old name: refuse to build until configure is remade. */
#if defined(DARRAY_CONFIGURE_VERSION_MAJOR) && /* no config.h: fuzz/run.sh */  \
    (DARRAY_CONFIGURE_VERSION_MAJOR != DARRAYIO_VERSION_MAJOR ||               \
     DARRAY_CONFIGURE_VERSION_MINOR != DARRAYIO_VERSION_MINOR ||               \
     DARRAY_CONFIGURE_VERSION_PATCH != DARRAYIO_VERSION_PATCH)
#error "include/darrayio.h changed its version since configure was made: run autoreconf -fi and configure again"
#endif

int darray_get_version(int *major, int *minor, int *patch) {
  if (major != NULL)
    *major = DARRAYIO_VERSION_MAJOR;
  if (minor != NULL)
    *minor = DARRAYIO_VERSION_MINOR;
  if (patch != NULL)
    *patch = DARRAYIO_VERSION_PATCH;
  return DARRAY_SUCCESS;
}

const char *darray_version_string(void) { return DARRAYIO_VERSION_STRING; }
