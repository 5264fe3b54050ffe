/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * cube_util.h - what the strategy tests share (cube_ for their n x n x n
 * int32 arrays), so that they read the serial reference one way:
 *  - every one (test_groups, test_static, test_rows): the value of element
 *    (i, j, k), its place in the file, the file against that reference;
 *    a new file, a write and a read-back (blocking or as requests) with
 *    their counters; the checks of a read-back (ghost cells untouched)
 *    and of a refusal (the same code on every process);
 *  - test_groups and test_static: arrays distributed BLOCK, CYCLIC(k) or
 *    '*' per dimension, every process's placement recomputed element by
 *    element, and the round of a sweep (write, check the file, read back,
 *    check, the counters) with what differs between the two strategies
 *    passed in a cube_test_t; the refusal of a cb_buffer_size too small.
 */
#ifndef DARRAYIO_CUBE_UTIL_H
#define DARRAYIO_CUBE_UTIL_H

#include "testutil.h"

/* ---- every strategy test ------------------------------------------------ */

/* Element x of an n^3 array written with salt. */
int32_t cube_val(int64_t n, const int64_t x[3], int salt);
/* The indices of the element at file position f (in elements) of an n^3
 * array stored with dimension perm[0] slowest, perm[2] fastest. */
void cube_at_file(int64_t n, const int perm[3], int64_t f, int64_t x[3]);
/* Collective: rank 0 checks that path holds the n^3 array (salt, order
 * perm) and nothing else; then a barrier. */
void cube_check_file(int64_t n, const int perm[3], const char *path,
                     int salt, const char *what);
/* After cube_read into buf (nbytes) in which the
 * test counted bad wrong elements: none, and the ghost cells (the buffer's
 * elements a does not own) still hold the sentinel. */
void cube_check_read(darray_t a, const int32_t *buf, int64_t nbytes,
                     int64_t bad, const char *what);
/* Collective: rc, checked to be the same on every process. */
int cube_agreed(int rc);
/* Collective: path opened read-write, created or truncated, with hints
 * ("key=value;..."); NULL when it fails. */
darray_file_t cube_open_new(const char *path, const char *hints);
/* Collective: f's counters reset, buf written (nb: as a request, waited
 * for), the write's counters into *st, the counters reset again. */
void cube_write(darray_file_t f, darray_t a, int32_t *buf, bool nb,
                darray_stats_t *st);
/* Collective: buf (nbytes) filled with the sentinel 0x7f, read back (nb:
 * as a request, waited for), the read's counters into *st. */
void cube_read(darray_file_t f, darray_t a, int32_t *buf, int64_t nbytes,
               bool nb, darray_stats_t *st);

/* ---- test_groups and test_static ---------------------------------------- */

typedef struct cube_case {
  int64_t n;
  char dist[3];  /* 'B' BLOCK, 'C' CYCLIC(k), '*' */
  int64_t k[3];  /* CYCLIC's block */
  int grid[3];   /* -1: P */
  bool fortran;  /* storage order */
  int64_t ghost;
  const char *hints;
} cube_case_t;

typedef struct cube {
  const cube_case_t *c;
  int ps[3], perm[3];
  int64_t ln[4][3]; /* every process's local shape */
} cube_t;

/* The owner of element x and its local indices l. */
int cube_owner(const cube_t *A, const int64_t x[3], int64_t l[3]);
/* Rank r's bytes of the array. */
int64_t cube_rank_bytes(const cube_t *A, int r);
/* My elements into (check: counted in *bad against) my ghosted buffer. */
void cube_fill_or_check(const cube_t *A, int32_t *buf, int salt, int check,
                        int64_t *bad);
/* Collective: the committed array of case c at displacement disp (none
 * set when 0), its placement in *A; NULL when it cannot be made. */
darray_t cube_make(const cube_case_t *c, int64_t disp, cube_t *A);
/* The number after key in "key=value;..." hints, or dflt. */
int64_t cube_hint(const char *hints, const char *key, int64_t dflt);

/* What a strategy's test puts into the round. */
typedef struct cube_test {
  const char *strategy; /* forced by darray_strategy=, and in messages */
  int64_t disp;         /* the arrays' displacement */
  /* Open path for case c with hints (the strategy's, then the case's). */
  darray_file_t (*open)(const char *path, const cube_case_t *c,
                        const char *hints);
  /* The file after the write. */
  void (*check_file)(const cube_t *A, const char *path, int salt,
                     const char *what);
  /* The counters of the write (sw) and the read (sr). */
  void (*check_counters)(const cube_t *A, const darray_stats_t *sw,
                         const darray_stats_t *sr, const char *what);
} cube_test_t;

/* Collective: case c with t's strategy: write, check the file, read back
 * and check, check the counters; the case named on stderr after a
 * failure. */
void cube_run(const cube_test_t *t, const cube_case_t *c, const char *path,
              int salt);
/* Collective: the strategy forced with a cb_buffer_size of 7 bytes, too
 * small for it: DARRAY_ELIMIT on every process, a message naming the
 * hint, nothing written (path is left empty). */
void cube_refused(const char *path, const char *strategy);

#endif /* DARRAYIO_CUBE_UTIL_H */
