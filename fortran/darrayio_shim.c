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
 *    the module writes the text to the caller's unit;
 *  - every read and write call gets its buffer as the actual argument's
 *    descriptor (ISO_Fortran_binding.h): its size goes to darray_xfer,
 *    which checks it, and a strided one goes through a contiguous copy
 *    (darray_f_xfer).
 *
 * Everything else in the module calls the public C functions as they are.
 */
#include "darrayio.h"

#include <ISO_Fortran_binding.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int darray_f_xfer(darray_file_t f, darray_t a, int how,
                  const int64_t start[], const int64_t count[], int order,
                  CFI_cdesc_t *buf, int refuse, const char *why,
                  darray_request_t *req);
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

/* The elements of a descriptor, and its bytes; -1 (DARRAY_UNSIZED) for an
 * assumed-size array, whose last extent Fortran does not know. */
static int64_t desc_elems(const CFI_cdesc_t *d) {
  int64_t n = 1;
  for (int k = 0; k < d->rank; k++) {
    if (d->dim[k].extent < 0)
      return DARRAY_UNSIZED;
    n *= (int64_t)d->dim[k].extent;
  }
  return n;
}

/* Copy a strided actual argument's elements, in array element order, into
 * the dense buffer (in) or back from it. */
static void copy_strided(const CFI_cdesc_t *d, char *dense, int64_t n,
                         bool in) {
  CFI_index_t idx[CFI_MAX_RANK] = {0};
  size_t el = d->elem_len;
  for (int64_t i = 0; i < n; i++) {
    char *p = (char *)d->base_addr;
    for (int k = 0; k < d->rank; k++)
      p += idx[k] * d->dim[k].sm;
    if (in)
      memcpy(dense + (size_t)i * el, p, el);
    else
      memcpy(p, dense + (size_t)i * el, el);
    for (int k = 0; k < d->rank && ++idx[k] == d->dim[k].extent; k++)
      idx[k] = 0;
  }
}

/*
 * One read or write call of the module: darray_xfer with the size of the
 * actual argument. A contiguous one is passed as it is (NULL when it has
 * no elements); a strided one is copied into a contiguous buffer of its
 * size and, after a read, back (the copy starts as the array, so what the
 * read leaves alone comes back unchanged), but for a pending request,
 * which would use the copy after the call returns: refused. A refusal,
 * the module's (refuse) or this function's, goes into the call, which
 * fails on every process alike.
 */
int darray_f_xfer(darray_file_t f, darray_t a, int how,
                  const int64_t start[], const int64_t count[], int order,
                  CFI_cdesc_t *buf, int refuse, const char *why,
                  darray_request_t *req) {
  int64_t n = desc_elems(buf);
  darray_xfer_args_t args = {
      .how = (unsigned)how, .start = start, .count = count,
      .order = (darray_order_t)order, .buf = NULL,
      .nbytes = n < 0 ? DARRAY_UNSIZED : n * (int64_t)buf->elem_len,
      .req = req, .refuse = refuse, .why = why};
  bool pending = (how & DARRAY_XFER_POST) && !(how & DARRAY_XFER_BUFFERED);
  char *copy = NULL;
  char text[200];
  if (n != 0)
    args.buf = buf->base_addr;
  if (n > 0 && !CFI_is_contiguous(buf) && refuse == DARRAY_SUCCESS) {
    if (pending) {
      args.refuse = DARRAY_EINVAL;
      args.why = "buf is not contiguous (a strided section or pointer?): a "
                 "pending request needs the array itself, not a copy; pass "
                 "a contiguous array, or use darray_bwrite";
    } else if ((copy = malloc((size_t)args.nbytes)) == NULL) {
      snprintf(text, sizeof text, "out of memory for a contiguous copy of "
               "the strided buf (%lld bytes)", (long long)args.nbytes);
      args.refuse = DARRAY_ENOMEM;
      args.why = text;
    } else {
      copy_strided(buf, copy, n, true);
      args.buf = copy;
    }
  }
  int old = darray_set_index_style(DARRAY_INDEX_FORTRAN);
  int rc = darray_xfer(f, a, &args);
  darray_set_index_style(old);
  if (copy != NULL && !(how & DARRAY_XFER_WRITE))
    copy_strided(buf, copy, n, false);
  free(copy);
  return rc;
}
