/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darrayio_shim.c - the few calls of the Fortran module (darrayio.F90) that
 * a BIND(C) interface cannot reach directly:
 *
 *  - communicators and infos arrive as Fortran handles (the `mpi' module's
 *    integer, the MPI_VAL of `mpi_f08''s types) and become C handles with
 *    MPI_Comm_f2c / MPI_Info_f2c, which may be macros, and an info the
 *    library creates goes back through MPI_Info_c2f;
 *  - darray_explain and darray_advise_report print to a FILE *, which
 *    Fortran has no way to name: they print into a memory stream here, and
 *    the module writes the text to the caller's unit.
 *
 * Everything else in the module calls the public C functions as they are.
 */
#include "darrayio.h"

#include <stdio.h>
#include <stdlib.h>

/* Exported for the module's BIND(C) interfaces, but not part of the API. */
int darray_f_create(MPI_Fint comm, int ndims, const int64_t gsizes[],
                    int type, darray_t *a);
int darray_f_file_open(MPI_Fint comm, const char *path, int mode,
                       MPI_Fint info, int has_info, darray_file_t *f);
int darray_f_dataset_open(MPI_Fint comm, const char *path, int mode,
                          MPI_Fint info, int has_info, darray_file_t *f);
int darray_f_file_get_info(darray_file_t f, MPI_Fint *info);
int darray_f_file_delete(const char *path, MPI_Fint info, int has_info);
int darray_f_explain(darray_file_t f, darray_t a, int write, char **text,
                     int64_t *len);
int darray_f_advise_report(int ndims, const int64_t gsizes[], int64_t esize,
                           int nconsumers,
                           const darray_consumer_t consumers[], char **text,
                           int64_t *len);
void darray_f_free_text(char *text);
int darray_f_plan_virtual(darray_t a, MPI_Fint info, int has_info, int write,
                          int nrows, darray_plan_row_t rows[], int *n);

int darray_f_plan_virtual(darray_t a, MPI_Fint info, int has_info, int write,
                          int nrows, darray_plan_row_t rows[], int *n) {
  MPI_Info cinfo = has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL;
  return darray_plan_virtual(a, cinfo, write, nrows, rows, n);
}

int darray_f_create(MPI_Fint comm, int ndims, const int64_t gsizes[],
                    int type, darray_t *a) {
  return darray_create(MPI_Comm_f2c(comm), ndims, gsizes,
                       (darray_type_t)type, a);
}

int darray_f_file_open(MPI_Fint comm, const char *path, int mode,
                       MPI_Fint info, int has_info, darray_file_t *f) {
  MPI_Info cinfo = has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL;
  return darray_file_open(MPI_Comm_f2c(comm), path, mode, cinfo, f);
}

int darray_f_dataset_open(MPI_Fint comm, const char *path, int mode,
                          MPI_Fint info, int has_info, darray_file_t *f) {
  MPI_Info cinfo = has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL;
  return darray_dataset_open(MPI_Comm_f2c(comm), path, mode, cinfo, f);
}

int darray_f_file_delete(const char *path, MPI_Fint info, int has_info) {
  MPI_Info cinfo = has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL;
  return darray_file_delete(path, cinfo);
}

/* On failure the C call leaves MPI_INFO_NULL, whose Fortran handle is the
 * Fortran MPI_INFO_NULL. */
int darray_f_file_get_info(darray_file_t f, MPI_Fint *info) {
  MPI_Info cinfo = MPI_INFO_NULL;
  int rc = darray_file_get_info(f, &cinfo);
  *info = MPI_Info_c2f(cinfo);
  return rc;
}

/* A memory stream for a printing call: 0, or DARRAY_ENOMEM when none can be
 * opened. */
static int text_open(FILE **out, char **text, size_t *size) {
  *text = NULL;
  *size = 0;
  *out = open_memstream(text, size);
  return *out ? DARRAY_SUCCESS : DARRAY_ENOMEM;
}

/* Close the stream; *text is the NUL-terminated output (free it with
 * darray_f_free_text), *len its length. */
static int text_close(FILE *out, int rc, char **text, const size_t *size,
                      int64_t *len) {
  /* The stream sets *text and *size at fclose. */
  if (fclose(out) != 0 && rc == DARRAY_SUCCESS)
    rc = DARRAY_ENOMEM;
  *len = *text ? (int64_t)*size : 0;
  return rc;
}

int darray_f_explain(darray_file_t f, darray_t a, int write, char **text,
                     int64_t *len) {
  FILE *out;
  size_t size;
  int rc = text_open(&out, text, &size);
  if (rc != DARRAY_SUCCESS) {
    *len = 0;
    return rc;
  }
  rc = darray_explain(f, a, write, out);
  return text_close(out, rc, text, &size, len);
}

int darray_f_advise_report(int ndims, const int64_t gsizes[], int64_t esize,
                           int nconsumers,
                           const darray_consumer_t consumers[], char **text,
                           int64_t *len) {
  FILE *out;
  size_t size;
  int rc = text_open(&out, text, &size);
  if (rc != DARRAY_SUCCESS) {
    *len = 0;
    return rc;
  }
  rc = darray_advise_report(ndims, gsizes, esize, nconsumers, consumers, out);
  return text_close(out, rc, text, &size, len);
}

void darray_f_free_text(char *text) { free(text); }
