/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * calibrate.h - what the files of darray-calibrate share.
 */
#ifndef DARRAY_CALIBRATE_H
#define DARRAY_CALIBRATE_H

#include "darrayio.h"

#include <stddef.h>
#include <stdint.h>

extern const char *prog;

/* The mapped strategy's rates of making pages ready (bytes per second,
 * *rd and *wr), on a new file at path, this process's [base, base +
 * region); both 0 where the kernel cannot populate or the file system
 * cannot reserve; -1 with a message in err on failure (calibrate_map.c). */
int calibrate_map_rates(const char *path, int64_t region, int64_t base,
                        double *rd, double *wr, char *err, size_t n);

/* qsort's order of doubles. */
int cmp_double(const void *a, const void *b);

/* What one two-phase cycle costs, its file call included (s): the same
 * bytes written in few and in many cycles, the difference per extra
 * cycle; medians of `rounds` writes of a scratch file at path. */
int calibrate_cycle(const char *path, int64_t rounds, double *c);

/* darray_server_contention (percent), measured on a subfile set at path
 * of one subfile per process: *pct; *meet, the aggregators logical
 * domains put on one server per cycle (0: not measured, one process).
 * mib: MiB per process at most; direct: with darray_direct_write. */
int calibrate_servers(const char *path, int64_t mib, int64_t rounds,
                      int direct, int64_t *pct, int *meet);

/* What one more message costs a process beyond its bytes (s, *per; 0 at
 * one process), from `rounds` exchanges (collective). */
int calibrate_message(int64_t rounds, double *per);

#endif
