/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_async.h - what the two files of test_async share: the arrays
 * (G0 x G1 int64, CYCLIC(3) x BLOCK, NARR of them one after another in a
 * file), their closed-form bytes, and opening a file in a request mode.
 */
#ifndef DARRAYIO_TEST_ASYNC_H
#define DARRAYIO_TEST_ASYNC_H

#include "testutil.h"

#define G0 29
#define G1 23
#define BG 0xa5
#define NARR 3 /* arrays per file, one after another */

/* Element (i, j) of an array of the given seed. */
int64_t elem(uint64_t seed, int64_t i, int64_t j);
/* Array k of a file: its displacement and its seed. */
int64_t disp_of(int k);
uint64_t seed_of(int k);
/* The committed array at displacement disp, or NULL. */
darray_t make_array(int64_t disp);
/* The bytes a file should hold: arrays k with want[k], BG elsewhere
 * (malloc'ed, *n bytes). */
unsigned char *expected_file(const bool *want, int64_t *n);
/* Rank 0 writes the file's expected bytes with stdio; a barrier. */
void write_reference(const char *path, const bool *want);
/* Rank 0 compares the file with the expected bytes; barriers. */
void check_file(const char *path, const bool *want, const char *what);
/* Open path (read-write, created) with hints and darray_async=mode. */
darray_file_t open_file(const char *path, const char *hints,
                        const char *mode);
/* This rank's section of an array: rows of its slab, all columns but the
 * last; and the values of array `seed` there (malloc'ed). */
void slab(int64_t *st, int64_t *ct);
int64_t *section_values(uint64_t seed, const int64_t *st, const int64_t *ct);

/* test_async_subfiles.c: requests on the striped subfile back end in
 * the mode given. */
void async_subfiles(const char *dir, const char *mode);

#endif /* DARRAYIO_TEST_ASYNC_H */
