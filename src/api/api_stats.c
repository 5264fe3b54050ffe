/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * api_stats.c - the public calls on a file's I/O counters: each forwards
 * to the file core (darray_file.c, stats.c; doc/rooms.md).
 */
#include "file.h"

int darray_file_get_stats(darray_file_t f, darray_stats_t *stats) {
  return darray__file_get_stats(f, stats);
}

int darray_file_reset_stats(darray_file_t f) {
  return darray__file_reset_stats(f);
}

int darray_file_stats_summary(darray_file_t f, darray_stats_summary_t *s) {
  return darray__file_stats_summary(f, s);
}
