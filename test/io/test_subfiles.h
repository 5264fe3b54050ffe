/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_subfiles.h - what the two files of test_subfiles share: the
 * arrays (a 10 x 13 double array at displacement 3), the scratch
 * directory, and writing and removing a set.
 */
#ifndef DARRAYIO_TEST_SUBFILES_H
#define DARRAYIO_TEST_SUBFILES_H

#include "testutil.h"

#define NX 10
#define NY 13
#define DISP 3

typedef struct dcase {
  const char *name;
  darray_dist_t dist[2];
  int64_t dargs[2];
  int grid[2];
} dcase_t;

/* BLOCK rows, CYCLIC(2) columns, BLOCK x CYCLIC(3) */
extern const dcase_t dcases[3];
/* the test's own scratch directory */
extern char dir[512];

/* The committed nx x NY array of d in order, at DISP. */
darray_t make_array(const dcase_t *d, darray_order_t order, int64_t nx);
/* Create (truncate) path with hints, write a from buf, close. */
int write_file(const char *path, const char *hints, darray_t a,
               const void *buf);
/* Rank 0 removes the set at path (any S up to 4); a barrier. */
void remove_set(const char *path);

/* test_subfiles_bad.c: each the same code on every rank, nothing changed
 * on disk */
void bad_hints(void);
void bad_files(void);
void dataset_refused(void);
void past_the_end(void);
void explain_shows_layout(void);
void fault_on_one_rank(void);

#endif /* DARRAYIO_TEST_SUBFILES_H */
