/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * api_dataset.c - the public dataset calls (.npy, .npz; doc/formats.md):
 * each forwards to src/format (format.c, format_close.c; doc/rooms.md).
 */
#include "format/format.h"

int darray_dataset_open(MPI_Comm comm, const char *path, int mode,
                        MPI_Info info, darray_file_t *out) {
  return darray__dataset_open(comm, path, mode, info, out);
}

int darray_define(darray_file_t f, const char *name, darray_t a) {
  return darray__dataset_define(f, name, a);
}

int darray_num_members(darray_file_t f, int *n) {
  return darray__dataset_num_members(f, n);
}

int darray_inquire(darray_file_t f, int index, darray_member_info_t *info) {
  return darray__dataset_inquire(f, index, info);
}

int darray_verify(darray_file_t f) { return darray__dataset_verify(f); }
