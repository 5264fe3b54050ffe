/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * rows.h - state shared by the files of the rows strategy (grid-derived
 * groups): the grouping (rows_group.c), the group communicators
 * (rows_comm.c), the cycles (rows_exchange.c) and the entry (rows.c).
 */
#ifndef DARRAYIO_ROWS_H
#define DARRAYIO_ROWS_H

#include "strategy.h"
#include "twophase/twophase.h" /* piece walks (pwalk_t) */

/*
 * How a call's processes are grouped, from numbers alone (the same on
 * every process): the first `keep` dimensions in file order (the slower
 * ones) are kept, the others merged, so a group is the processes that
 * share their grid coordinates in the kept dimensions. Its region, the
 * union of its members' elements, is then the kept dimensions' index sets
 * times the whole of every merged dimension: a few long extents.
 */
typedef struct rows_plan {
  int keep;       /* file-order dimensions whose coordinates a group shares */
  int g;          /* processes per group */
  bool image;     /* short pieces: windows are built in an image (else
                     moved as vectors of pieces) */
  int64_t W;      /* bytes of a window (the staging; the image as much) */
  int64_t M;      /* bytes of one message (and of the pack buffer) */
  int64_t need;   /* temporary bytes of a process: W (2 W: image) + M */
  int64_t piece;  /* the largest piece of any member, bytes */
  int64_t extent; /* the shortest mean extent of any group's region */
  int refuse;     /* no grouping: what a forced call returns,
                     DARRAY_ELIMIT (buffers, elements) or DARRAY_EHINT */
} rows_plan_t;

/* The grouping of a call's array under the hints, or why there is none
 * (false, a short reason in why). Local and the same everywhere. */
DARRAY_HIDDEN bool darray__rows_choose(const darray_desc_t *d,
                                       const darray_hints_t *h,
                                       const access_t *acc, rows_plan_t *p,
                                       char *why, size_t n);
/* The region of rank r's group when `keep` dimensions are kept: one
 * section (its memory fields are unused). */
DARRAY_HIDDEN void darray__rows_region(const darray_desc_t *d, int keep,
                                       int r, section_t *s);
/* Rank r's group number (its coordinates in the kept dimensions). */
DARRAY_HIDDEN int darray__rows_color(const darray_desc_t *d, int keep, int r);
/* Start of member k's piece of a region of `bytes` bytes split among g
 * members in file order (k == g: the region's end), in whole elements. */
DARRAY_HIDDEN int64_t darray__rows_piece_start(const darray_desc_t *d,
                                               const section_t *reg,
                                               int64_t bytes, int g, int k);

/* The windows of one member's piece: W bytes of it each (the last one
 * fewer), from as many extents of the region as they span; the file
 * between two extents is other groups' and holds none of this group's
 * bytes, so a window is a file range [wlo, whi) whose group bytes are
 * the window's. */
typedef struct rows_cursor {
  layout_iter_t it; /* over the region's extents */
  bool ok;          /* it is initialized */
  bool valid;       /* run is the current extent */
  layout_run_t run;
  int64_t lo, hi, pos; /* the piece [lo, hi) and the next byte */
} rows_cursor_t;

DARRAY_HIDDEN void darray__rows_cursor_start(rows_cursor_t *c);
/* The next window [*wlo, *whi) of at most W bytes; false (and an empty
 * window) after the last. */
DARRAY_HIDDEN bool darray__rows_cursor_next(rows_cursor_t *c, int64_t W,
                                            int64_t *wlo, int64_t *whi);

/* The group communicator of a grouping on file f: made by the first call
 * that needs it (collective on f->comm, with an agreement on its
 * success), kept on the file and freed at close (darray__rows_close). */
DARRAY_HIDDEN int darray__rows_comm(struct darray_file_s *f,
                                    const darray_desc_t *d, int keep,
                                    MPI_Comm *comm);
DARRAY_HIDDEN void darray__rows_close(struct darray_file_s *f);

/* A call's state, from prepare to finish. */
typedef struct rows {
  xfer_t *x;
  rows_plan_t p;
  section_t region;  /* my group's region */
  int *member;       /* the group's ranks, in rank order (g) */
  int me;            /* my place among them */
  section_t **sec;   /* every member's cells (me: NULL, x->sec is used) */
  rows_cursor_t *cur; /* every member's windows */
  int64_t *wlo, *whi; /* ... in the current cycle */
  int64_t *off;      /* where each member's stream sits in stage */
  int64_t ncycles;   /* the group's, the same for every member */
  layout_iter_t self; /* my runs */
  bool self_ok;
  MPI_Comm comm;     /* the group's (cached on the file) */
  layout_iter_t segs; /* the region's extents, for a window's segments */
  bool segs_ok;
  char *stage, *img, *pack;
  MPI_Request *req;
  int nreq, req_cap;
  /* vector mode: every member's runs, walked in file order through a
   * window, and the vector of pieces */
  bool self_contig;   /* my runs are contiguous in my buffer */
  layout_iter_t *it;  /* every member's runs (me: NULL, self is used) */
  int nit;            /* ... initialized */
  pwalk_t *walk;      /* g walkers */
  int64_t *used;      /* bytes of each staged stream consumed */
  struct iovec *iov;  /* DARRAY_IOV_MAX entries */
  int niov;
  int64_t iov_off, iov_end; /* the file range the pending vector covers */
  int rc;            /* first local failure */
} rows_t;

/* The call counted on paper (rows_tally.c; strategy.h's tally). */
DARRAY_HIDDEN int darray__rows_tally(const xfer_t *x, const access_t *acc,
                                     darray_plan_row_t *row);

/* One cycle of a read or a write (rows_exchange.c). */
DARRAY_HIDDEN void darray__rows_cycle(rows_t *t);
/* Vector mode (rows_vector.c): my window's pieces in file order, mine
 * from my buffer where contiguous there, the others' (and my strided
 * ones, staged) from their streams, to or from the file. */
DARRAY_HIDDEN void darray__rows_vector(rows_t *t, int64_t lo, int64_t hi);
/* My strided pieces of [lo, hi) to (to_stage) or from staging. */
DARRAY_HIDDEN void darray__rows_stage_mine(rows_t *t, int64_t lo, int64_t hi,
                                           bool to_stage);

#endif /* DARRAYIO_ROWS_H */
