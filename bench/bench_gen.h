/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_gen.h - the values of the benchmarks' data (darrayio-bench
 * --data, zlib-speed --data): every element a closed form of its index in
 * the file, of the array's row length n and of a salt (the run), so that
 * every process, at every process count, makes the same global array.
 *
 *   index   int32 2*idx + 1 + salt * 0x9E3779B9 (mod 2^32); double
 *           idx + 1 + salt * 2^30 (exact while idx < 2^30): easy to read
 *           in a dump, and compressible like a counter, not like data
 *   smooth  a field like simulation data: with x = (idx mod n) / n,
 *           y = (idx div n mod n) / n, z = (idx div n^2) / n (the index's
 *           coordinates in C-order rows of n, planes of n rows),
 *             f = 1 + sin(2 pi x + salt/10) cos(2 pi y) / 2
 *                   + sin(4 pi z + 3 x) / 4 + 1e-6 * u
 *           u in [-1, 1) pseudo-random from (idx, salt); double: f;
 *           int32: round(f * 2^20) + salt * 0x9E3779B9 (mod 2^32)
 *   random  pseudo-random bits from (idx, salt): incompressible; a double
 *           whose exponent would be all ones (an infinity or a NaN) has
 *           bit 62 cleared, so every value is a finite number
 *
 * The values of salt and salt + 1000 differ in every element (index,
 * random int32, smooth int32: by construction; random and smooth double:
 * but with a probability below 2^-30 per element, from the noise).
 * Doubles are handled as their bits (bench_gen64) and compared as bits.
 * Built into darrayio-bench and zlib-speed (bench/Makefile.inc).
 */
#ifndef DARRAYIO_BENCH_GEN_H
#define DARRAYIO_BENCH_GEN_H

#include <stdint.h>

enum { BENCH_DATA_INDEX = 0, BENCH_DATA_SMOOTH = 1, BENCH_DATA_RANDOM = 2 };

/* The kind named by name ("index", "smooth", "random"), or -1. */
int bench_data_kind(const char *name);
const char *bench_data_name(int kind);

/* Element idx of an array of rows of n elements: an int32, and the bits
 * of a double. */
uint32_t bench_gen32(int kind, int64_t idx, int64_t n, int salt);
uint64_t bench_gen64(int kind, int64_t idx, int64_t n, int salt);

/* Elements [idx, idx + count) into out, esize 4 (int32) or 8 (double)
 * bytes each, in host byte order. */
void bench_gen_fill(int kind, int esize, int64_t idx, int64_t count,
                    int64_t n, int salt, void *out);

#endif /* DARRAYIO_BENCH_GEN_H */
