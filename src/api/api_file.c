/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * api_file.c - the public file calls: open, close, sync and delete. Each
 * forwards to the file core beneath it (darray_file.c), which names no
 * room above it (doc/rooms.md).
 */
#include "file.h"

int darray_file_open(MPI_Comm comm, const char *path, int mode, MPI_Info info,
                     darray_file_t *out) {
  return darray__file_open(comm, path, mode, info, false, out);
}

int darray_file_close(darray_file_t *pf) { return darray__file_close(pf); }

int darray_file_sync(darray_file_t f) { return darray__file_sync(f); }

int darray_file_delete(const char *path, MPI_Info info) {
  return darray__file_delete(path, info);
}
