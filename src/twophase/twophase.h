/*
 * twophase.h - state shared by the two-phase files.
 */
#ifndef DARRAYIO_TWOPHASE_H
#define DARRAYIO_TWOPHASE_H

#include "strategy.h"
#include "agree.h"

/* The pieces of one process's runs inside a file range, in file order. */
typedef struct pwalk {
  layout_iter_t *it;
  int64_t lo, hi;
  layout_run_t run; /* the current run, clipped to [b0, b1) */
  int64_t b0, b1;
  bool valid;
} pwalk_t;

/* What one cycle's exchange holds: an aggregator's staging of the others'
 * streams and where each lands, and the cycle's requests. Pipelined
 * writes keep two, one for the chunk being written and one for the next
 * chunk's exchange. */
typedef struct tp_slot {
  char *stage;
  int64_t *bytes;     /* aggregators: each process's bytes in the chunk */
  int64_t *stage_off; /* ... and where they sit in stage */
  MPI_Request *req;
  int nreq, req_cap, nrecv; /* receives come first */
  int64_t data;       /* aggregators: every process's bytes in the chunk */
} tp_slot_t;

typedef struct tp {
  xfer_t *x;
  const struct darray_s *a;
  int P, A, me, myagg; /* processes, aggregators, my rank, my aggregator # */
  int64_t lo, hi;      /* the extent of all processes' runs */
  bool dense;          /* every byte of [lo, hi) belongs to some process */
  int64_t C;           /* file bytes per aggregator and cycle */
  int64_t M;           /* bytes per message (and of the pack buffer) */
  int64_t ntimes;      /* cycles, the same on every process */
  bool self_contig;    /* my runs are contiguous in my buffer */
  layout_iter_t self;  /* my runs */
  bool self_ok;
  section_t **peer_sec; /* every process's cells */
  int *peer_nsec;
  layout_iter_t *peer; /* aggregators: iterators over every process's runs */
  int npeer;
  int64_t stage_cap;   /* bytes of a slot's stage: C, times the overlap
                          depth of section reads */
  tp_slot_t cur;       /* the cycle being exchanged and moved */
  tp_slot_t alt;       /* pipelined writes: the other one */
  bool pipeline;       /* writes: the next chunk's exchange overlaps the
                          file call of this one */
  char *pack;          /* M bytes: strided streams, and the scratch of
                          back ends without vector calls */
  bool image;          /* small pieces: chunks are built in img and moved
                          with one call (else: vectors of pieces) */
  char *img;           /* aggregators in image mode: C bytes */
  int64_t nruns, nbytes; /* every process's runs and bytes */
  int64_t *cursor;     /* ... and how much of each is consumed */
  pwalk_t *walk;       /* aggregators: one walker per process */
  struct iovec *iov;   /* DARRAY_IOV_MAX entries */
  int niov;
  int64_t iov_off, iov_end; /* file range the pending vector covers */
  int rc; /* first local failure */
} tp_t;

/* C, M and ntimes from cb_buffer_size, with `parts` buffers of C bytes
 * (needs lo, hi, A and the call's array and hints). */
DARRAY_HIDDEN void darray__tp_set_chunks(tp_t *t, int parts);
/* Chunk [*clo, *chi) of aggregator i in a cycle (empty when clo == chi). */
DARRAY_HIDDEN void darray__tp_chunk(const tp_t *t, int i, int64_t cycle,
                                    int64_t *clo, int64_t *chi);
/* Rank of aggregator i. */
DARRAY_HIDDEN int darray__tp_agg_rank(const tp_t *t, int i);
/* One cycle of exchange and file access. */
DARRAY_HIDDEN void darray__tp_cycle(tp_t *t, int64_t cycle);
/* Every cycle of a write, pipelined (t->pipeline). */
DARRAY_HIDDEN void darray__tp_write_pipelined(tp_t *t);

/* Piece walking (tp_walk.c). */
DARRAY_HIDDEN void darray__tp_walk_start(pwalk_t *w, layout_iter_t *it,
                                         int64_t lo, int64_t hi);
DARRAY_HIDDEN void darray__tp_walk_next(pwalk_t *w);
/* Bytes of an iterator's pieces in [lo, hi); *contig: whether they are one
 * contiguous stretch of the user buffer (then *first is its offset). */
/* Only the bytes, for any process (closed form). */
DARRAY_HIDDEN int64_t darray__tp_stream_bytes(const layout_iter_t *it,
                                              int64_t lo, int64_t hi);
DARRAY_HIDDEN int64_t darray__tp_stream(layout_iter_t *it, int64_t lo,
                                        int64_t hi, bool *contig,
                                        int64_t *first);

#endif
