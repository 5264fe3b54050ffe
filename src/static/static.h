/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * static.h - state shared by the files of the static segmentation
 * strategy: the sizing (static_size.c), the cycles (static_cycle.c), the
 * entry (static.c) and the count on paper (static_tally.c).
 */
#ifndef DARRAYIO_STATIC_H
#define DARRAYIO_STATIC_H

#include "strategy.h"

/*
 * How a call is cut, from numbers alone (the same on every process): A
 * groups of consecutive ranks, group i the ranks [rank(i), rank(i + 1))
 * with rank(i) = i * P / A (two-phase's aggregator ranks, so cb_nodes
 * picks the same processes under both), its first rank its aggregator.
 * In each cycle every process hands its aggregator the next K bytes of
 * its own data in file order (its stream).
 */
typedef struct st_plan {
  int A;          /* groups (aggregators): cb_nodes, at most P; P when 0 */
  int gmax;       /* processes in the largest group */
  int64_t K;      /* bytes of a process's stream per cycle, whole elements */
  int64_t most;   /* the largest process's bytes */
  int64_t ncycles; /* ceil(most / K), the same on every process */
  int64_t need;   /* an aggregator's temporary bytes: (gmax + 1) K */
  int refuse;     /* DARRAY_SUCCESS, or what a forced call returns */
  char why[160];  /* ... and why, in words */
} st_plan_t;

/* The cut of a call's access under the hints (static_size.c). */
DARRAY_HIDDEN void darray__static_plan(const access_t *acc,
                                       const darray_hints_t *h,
                                       const darray_desc_t *d, st_plan_t *p);
/* Group of rank r, its first rank (the aggregator) and its size. */
DARRAY_HIDDEN int darray__static_group(int r, int P, int A);
DARRAY_HIDDEN int darray__static_first(int i, int P, int A);
/* Bytes of a stream of `bytes` bytes that move in cycle c. */
DARRAY_HIDDEN int64_t darray__static_share(const st_plan_t *p, int64_t bytes,
                                           int64_t c);

/* A walk along one process's stream: its runs in file order, cut at the
 * cycles' boundaries (a run may span cycles). */
typedef struct st_cursor {
  layout_iter_t *it;
  layout_run_t run;
  int64_t b;  /* bytes of run already walked */
  bool valid; /* run is the current one */
} st_cursor_t;

DARRAY_HIDDEN void darray__static_cursor_start(st_cursor_t *c,
                                               layout_iter_t *it);
/* The next piece of at most `left` bytes: bytes [*b0, *b0 + *len) of
 * *run; and step past it. False when the stream has ended. */
DARRAY_HIDDEN bool darray__static_cursor_take(st_cursor_t *c, int64_t left,
                                              layout_run_t *run, int64_t *b0,
                                              int64_t *len);
/* The file offset of the cursor's next byte (INT64_MAX at the end). */
DARRAY_HIDDEN int64_t darray__static_cursor_at(const st_cursor_t *c);

/* The pieces of one group's cycle merged in file order: member k's next
 * piece goes first when it starts lowest (ties to the lower k). One
 * visit per piece: member k, file offset, length, and where it sits in
 * the member's share of the cycle (pos). */
typedef void (*st_visit_t)(void *ctx, int k, int64_t foff, int64_t len,
                           int64_t pos);
DARRAY_HIDDEN void darray__static_merge(st_cursor_t *cur, const int64_t *n,
                                        int g, int64_t *pos, st_visit_t visit,
                                        void *ctx);

/* A call's state, from prepare to finish. */
typedef struct st {
  xfer_t *x;
  st_plan_t p;
  const access_t *acc; /* every process's bytes */
  int P, me;           /* processes, my rank */
  int group, first, g; /* my group, its first rank, its size */
  bool agg;            /* I am my group's aggregator */
  bool self_packed;    /* my buffer holds my stream as it is (one cell,
                          packed in file order): no copy */
  layout_iter_t self;  /* my runs, for packing */
  bool self_ok;
  st_cursor_t mine;
  /* aggregators: every member's runs and cursors, staging */
  section_t **sec;
  layout_iter_t *it;
  int nit;
  st_cursor_t *cur;
  int64_t *n;          /* each member's bytes in the cycle */
  int64_t *pos;        /* ... walked by the merge */
  char **base;         /* where each member's share of the cycle sits */
  char *stage;         /* g slots of K bytes */
  char *pack;          /* K bytes: strided shares, and the scratch of back
                          ends without vector calls */
  MPI_Request *req;    /* g */
  int nreq;
  struct iovec *iov;   /* DARRAY_IOV_MAX entries */
  int niov;
  int64_t iov_off, iov_end;
  int rc;              /* first local failure */
} st_t;

/* One cycle of a read or a write (static_cycle.c). */
DARRAY_HIDDEN void darray__static_cycle(st_t *t, int64_t c);

/* The call counted on paper (static_tally.c; strategy.h's tally). */
DARRAY_HIDDEN int darray__static_tally(const xfer_t *x, const access_t *acc,
                                       darray_plan_row_t *row);

#endif /* DARRAYIO_STATIC_H */
