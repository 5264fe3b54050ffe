/*
 * twophase.h - state shared by the two-phase files.
 */
#ifndef DARRAYIO_TWOPHASE_H
#define DARRAYIO_TWOPHASE_H

#include "internal.h"

/* Runs per message: bounds the datatype description built for one message
 * (the description is local; it is never sent). */
#define TP_MAX_BLOCKS 4096

typedef struct tp {
  xfer_t *x;
  const struct darray_s *a;
  int P, A, me, myagg; /* processes, aggregators, my rank, my aggregator # */
  int64_t lo, hi;      /* the extent of all processes' runs */
  bool dense;          /* every byte of [lo, hi) belongs to some process */
  int64_t C;           /* chunk bytes */
  int64_t ntimes;      /* cycles, the same on every process */
  bool self_contig;    /* my runs are contiguous in my buffer */
  layout_iter_t self;  /* my runs */
  bool self_ok;
  section_t **peer_sec; /* every process's cells */
  int *peer_nsec;
  layout_iter_t *peer; /* aggregators: iterators over every process's runs */
  int npeer;
  char *chunk;         /* aggregators: C bytes */
  char *pack;          /* owners with strided memory: packed pieces */
  int64_t pack_cap;
  MPI_Request *req;
  int nreq, req_cap;
  int *blen;           /* TP_MAX_BLOCKS entries: one message's pieces */
  MPI_Aint *bdisp;
  int rc;              /* first local failure */
} tp_t;

/* Chunk [*clo, *chi) of aggregator i in a cycle (empty when clo == chi). */
DARRAY_HIDDEN void darray__tp_chunk(const tp_t *t, int i, int64_t cycle,
                                    int64_t *clo, int64_t *chi);
/* Rank of aggregator i. */
DARRAY_HIDDEN int darray__tp_agg_rank(const tp_t *t, int i);
/* One cycle of exchange and file access. */
DARRAY_HIDDEN void darray__tp_cycle(tp_t *t, int64_t cycle);

#endif
