/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * api_fint.c - the calls that take an MPI communicator or info object take
 * it here as a Fortran handle (MPI_Fint), for bindings that cannot name the
 * C handle types, whose definition differs from one MPI to another: the
 * Python package (python/darrayio) passes mpi4py's comm.py2f(). And the
 * name of the MPI the library was compiled with, which a binding compares
 * with the MPI it runs on before it calls anything that needs MPI.
 *
 * Before MPI_Init or after MPI_Finalize no handle is converted (MPI's
 * conversion functions need MPI): the calls below then forward
 * MPI_COMM_WORLD and MPI_INFO_NULL, constants that need no conversion, and
 * the call's own check returns DARRAY_EMPI as it does for any
 * communicator (darray_file_delete, which needs no MPI, deletes).
 */
#include "util.h"

#include <mpi.h>

static bool mpi_up(void) {
  int init = 0, fin = 0;
  return MPI_Initialized(&init) == MPI_SUCCESS && init &&
         MPI_Finalized(&fin) == MPI_SUCCESS && !fin;
}

static MPI_Comm comm_of(MPI_Fint comm) {
  return mpi_up() ? MPI_Comm_f2c(comm) : MPI_COMM_WORLD;
}

static MPI_Info info_of(MPI_Fint info) {
  return mpi_up() ? MPI_Info_f2c(info) : MPI_INFO_NULL;
}

int darray_create_fint(MPI_Fint comm, int ndims, const int64_t gsizes[],
                       darray_type_t type, darray_t *a) {
  return darray_create(comm_of(comm), ndims, gsizes, type, a);
}

int darray_file_open_fint(MPI_Fint comm, const char *path, int mode,
                          MPI_Fint info, darray_file_t *f) {
  return darray_file_open(comm_of(comm), path, mode, info_of(info), f);
}

int darray_dataset_open_fint(MPI_Fint comm, const char *path, int mode,
                             MPI_Fint info, darray_file_t *f) {
  return darray_dataset_open(comm_of(comm), path, mode, info_of(info), f);
}

int darray_file_delete_fint(const char *path, MPI_Fint info) {
  return darray_file_delete(path, info_of(info));
}

#define DARRAY_STR_(x) #x
#define DARRAY_STR(x) DARRAY_STR_(x)

const char *darray_mpi_library(void) {
#if defined(OMPI_MAJOR_VERSION)
  return "Open MPI " DARRAY_STR(OMPI_MAJOR_VERSION) "." DARRAY_STR(
      OMPI_MINOR_VERSION) "." DARRAY_STR(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
  return "MPICH " MPICH_VERSION;
#else
  return "MPI " DARRAY_STR(MPI_VERSION) "." DARRAY_STR(MPI_SUBVERSION);
#endif
}
