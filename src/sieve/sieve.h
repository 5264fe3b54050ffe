/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * sieve.h - state shared by the sieve's files: the strategy (sieve.c)
 * and its estimate for the planner (sieve_estimate.c), which find windows
 * by the same rules.
 */
#ifndef DARRAYIO_SIEVE_H
#define DARRAYIO_SIEVE_H

#include "strategy.h"

/* A window: file bytes [lo, hi), starting with part [b0, ...) of run
 * first. */
typedef struct window {
  int64_t lo, hi;
  int64_t data;   /* bytes of runs inside */
  int64_t pieces; /* runs, or parts of runs, inside */
  int64_t segs;   /* maximal stretches of touching pieces */
  layout_run_t first;
  int64_t b0;
} window_t;

/* One call's sieving on this process. */
typedef struct sieve {
  xfer_t *x;
  layout_iter_t scan;   /* finds windows */
  layout_iter_t replay; /* walks a window's runs again */
  layout_run_t cur;     /* first run not moved completely */
  int64_t done;         /* bytes of cur already moved */
  bool have;            /* cur is valid */
  char *buf;
  int64_t cap;          /* bytes of buf: largest window */
  double lat_rd, lat_wr, ns_per_byte;
  bool rmw_ok;          /* writes: read-modify-write allowed */
  bool locks;           /* the file takes locks (plain writes: shared) */
} sieve_t;


/* Whether a run `gap` bytes after a window should join it (the cost
 * model's join rule; sieve.c). */
DARRAY_HIDDEN bool darray__sieve_joins(const sieve_t *s, int64_t gap,
                                       int64_t len);
/* The largest window: the buffer-size hint in whole elements, at least
 * one element, or less under a darray_temp_limit below one element
 * (darray__xfer_buffer_cap). */
DARRAY_HIDDEN int64_t darray__sieve_window_cap(const xfer_t *x);
/* The next window, from s->cur on; consumes the runs it takes. For
 * writes, the holes in s->buf (when not NULL) are zeroed on the way. */
DARRAY_HIDDEN void darray__sieve_scan(sieve_t *s, window_t *w);
/* Whether locking, reading, filling and writing a window with holes beats
 * writing its stretches of touching runs one by one. */
DARRAY_HIDDEN bool darray__sieve_rmw_pays(const sieve_t *s,
                                          const window_t *w);
/* The call counted on paper (sieve_tally.c; strategy.h's tally). */
DARRAY_HIDDEN int darray__sieve_tally(const xfer_t *x, const access_t *acc,
                                      darray_plan_row_t *row);
/* The planner's estimate of a sieved call (sieve_estimate.c). */
DARRAY_HIDDEN int darray__sieve_estimate(const xfer_t *x,
                                         const access_t *acc, estimate_t *e);

#endif /* DARRAYIO_SIEVE_H */
