/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * access.h - what one call accesses, in numbers (access.c): every
 * process's file extent, runs and bytes, and the verdicts drawn from them.
 *
 * A call computes its summary once, when something first asks for it
 * (darray__xfer_access in strategy.h), from the distribution or the
 * gathered section boxes in closed form: O(processes) numbers, nothing
 * that grows with the number of elements. The planner, the strategies'
 * estimates and preparations and darray_explain read it; the storage
 * advisor judges its arrays on paper with the same per-process numbers
 * (darray__access_rank).
 */
#ifndef DARRAYIO_ACCESS_H
#define DARRAYIO_ACCESS_H

#include "layout/layout.h"

/* One process's access. */
typedef struct access_rank {
  int64_t lo, hi;           /* file extent [lo, hi); lo == hi: nothing */
  int64_t nruns, bytes;     /* runs (touching ones counted apart), bytes */
  int64_t min_run, max_run; /* shortest and longest run, bytes */
  int nsec;                 /* cells */
  bool conforms; /* one stretch per cell, or no hole between its runs
                    (darray__layout_conforms) */
} access_rank_t;

/* One call's access. */
typedef struct access {
  int P;                /* processes */
  access_rank_t *rank;  /* P entries */
  int64_t lo, hi;       /* the union of the extents (lo == hi: nothing) */
  int64_t nruns, bytes; /* sums over the processes */
  bool dense;       /* every byte of [lo, hi) is some process's */
  bool interleaved; /* some process's data lies between another one's
                       first and last byte */
  int depth; /* at most this many processes access any one element: 1,
                except for section reads whose boxes overlap */
} access_t;

/* The numbers of one process's access of cells sec[0..nsec). */
DARRAY_HIDDEN void darray__access_rank(const darray_desc_t *a,
                                       const section_t *sec, int nsec,
                                       access_rank_t *r);
/* The call's numbers from rank[0..P): extent, sums, dense, interleaved
 * (depth is left alone). Fails only when out of memory. */
DARRAY_HIDDEN int darray__access_totals(access_t *acc);
DARRAY_HIDDEN void darray__access_free(access_t *acc);

/*
 * Estimates that walk runs (the planner runs on every call) walk the
 * first DARRAY_SAMPLE_RUNS runs of at most DARRAY_SAMPLE_RANKS processes,
 * spread evenly, and scale what they find to the whole access:
 * distributions repeat with a period of a few runs (BTIO class C: 81), and
 * walking 16384 runs cost 0.2 ms per call, 10 % of a 8 MiB DIST3D read at
 * 2 processes. Sample i (0 <= i < darray__access_samples) is process
 * darray__access_sample(acc, i).
 */
#define DARRAY_SAMPLE_RANKS 8
#define DARRAY_SAMPLE_RUNS 256
DARRAY_HIDDEN int darray__access_samples(const access_t *acc);
DARRAY_HIDDEN int darray__access_sample(const access_t *acc, int i);

#endif /* DARRAYIO_ACCESS_H */
