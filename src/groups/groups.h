/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * groups.h - state shared by the files of the writer-group strategy: the
 * sizing (groups_size.c), the group communicators and shared segments
 * kept on the file (groups_comm.c), the entry and its cycles (groups.c)
 * and the count on paper (groups_tally.c).
 */
#ifndef DARRAYIO_GROUPS_H
#define DARRAYIO_GROUPS_H

#include "strategy.h"

/*
 * A file's writer groups, made by its first groups call and kept until it
 * closes: the group communicator, the ranks (in the file's communicator)
 * of its members in group order (the first is the writer), and the shared
 * segment, two halves of `half` bytes made by the writer and mapped by
 * every member (groups_comm.c).
 */
typedef struct gr_cache {
  MPI_Comm comm;
  bool own_comm; /* comm is a split of the file's (else the file's own) */
  void *map;       /* the segment as mapped here (NULL: none) */
  int64_t map_len; /* ... its bytes: a page, then the halves */
  int g, me;   /* members, my place among them */
  int *ranks;  /* g ranks of the file's communicator */
  char *base;  /* the writer's memory, as this process sees it */
  int64_t half; /* bytes of one half */
  int64_t next; /* cycles run so far on this segment: cycle c of a call
                   uses half (next + c) % 2, so a call's first half is
                   never the one a previous call's last cycle may still
                   be reading or writing */
} gr_cache_t;

/* The file's groups, made collectively on f->comm the first time (every
 * process of the file calls it in the same call); DARRAY_EMPI everywhere
 * when a split or the segment fails anywhere. */
DARRAY_HIDDEN int darray__groups_cache(struct darray_file_s *f,
                                       gr_cache_t **out);
/* Free the file's groups (collective; at close). */
DARRAY_HIDDEN void darray__groups_close(struct darray_file_s *f);

/*
 * The numbers of a call, from the hints and the access alone (the same
 * on every process): groups of s consecutive ranks (cb_group_size; 0 by
 * node, which the numbers cannot tell), a chunk of C bytes of file (whole
 * elements; two chunks fit in cb_buffer_size).
 */
typedef struct gr_plan {
  int s;          /* ranks per group; 0: by node */
  int64_t half;   /* bytes of one half of the segment */
  int64_t C;      /* bytes of file per chunk, whole elements */
  int refuse;     /* DARRAY_SUCCESS, or what a forced call returns */
  char why[160];  /* ... and why, in words */
} gr_plan_t;

DARRAY_HIDDEN void darray__groups_plan(const struct darray_file_s *f,
                                       const access_t *acc,
                                       const darray_desc_t *d, gr_plan_t *p);
/* The segment's half for cb_buffer_size (whole bytes). */
DARRAY_HIDDEN int64_t darray__groups_half(const darray_hints_t *h);
/* The extent [*lo, *hi) of the members ranks[0..g) and their chunks:
 * ceil((hi - lo) / C), 0 when they access nothing. */
DARRAY_HIDDEN int64_t darray__groups_extent(const access_t *acc,
                                            const int *ranks, int g,
                                            int64_t C, int64_t *lo,
                                            int64_t *hi);

/* The stretches of file a chunk covers: the members' runs in [lo, hi),
 * merged in file order, touching ones joined. */
typedef struct gr_walk {
  int g;
  section_t **sec;
  layout_iter_t *it;
  int nit;
  layout_run_t *run; /* each member's current run */
  bool *valid;
} gr_walk_t;

/* Walkers over the runs of ranks[0..g) of call x. Fails only when out of
 * memory. */
DARRAY_HIDDEN int darray__groups_walk_init(gr_walk_t *w, const xfer_t *x,
                                           const int *ranks, int g);
DARRAY_HIDDEN void darray__groups_walk_free(gr_walk_t *w);
/* Visit the stretches of [lo, hi) in file order. */
typedef void (*gr_visit_t)(void *ctx, int64_t off, int64_t len);
DARRAY_HIDDEN void darray__groups_stretches(gr_walk_t *w, int64_t lo,
                                            int64_t hi, gr_visit_t visit,
                                            void *ctx);

/* The call counted on paper (groups_tally.c; strategy.h's tally). */
DARRAY_HIDDEN int darray__groups_tally(const xfer_t *x, const access_t *acc,
                                       darray_plan_row_t *row);

#endif /* DARRAYIO_GROUPS_H */
