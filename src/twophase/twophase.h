/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
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

/* ---- file domains and chunks (tp_domain.c): numbers only, sized the
 * same way for the strategy's preparation and for its estimate ---- */

/* The split of the access into one file domain per aggregator. */
typedef struct tp_domains {
  int64_t lo, hi;   /* the union of every process's extent */
  int A;            /* aggregators: domain i is aggregator i's */
  int64_t disp, es; /* elements start at disp + k * es */
  int64_t su;       /* striping_unit: boundaries near its multiples (0:
                       none) */
  int64_t S;        /* striping_factor: the file's servers (0: unknown) */
  bool layout;      /* domains by server (tp_layout.c), not by offset */
  int64_t dio;      /* darray_direct_write: boundaries and chunks on
                       multiples of it where striping_unit is not set
                       (DARRAY_DIO_PAGE; 0: none) */
} tp_domains_t;

/* Why the buffers of a call cannot be had (tp_sizes_t.refuse). */
enum { TP_FITS = 0, TP_HUGE_ELEMENT, TP_OVER_LIMIT };

/*
 * How a call's buffers are sized. cb_buffer_size bounds all temporary
 * memory of a process: the message/pack buffer (M = a quarter) plus
 * `parts` buffers of C bytes: an aggregator's staging of the others'
 * streams (times the overlap depth of section reads whose boxes overlap:
 * the same bytes then go to several processes), in image mode the chunk's
 * image, and for pipelined writes a second staging slot. C and M are
 * whole elements, C no larger than the largest domain, M no larger than
 * C; every domain is moved in ntimes = ceil(domain / C) cycles or fewer.
 *
 * Image mode: a vector call costs the kernel a few tens of nanoseconds per
 * piece, copying a piece costs about its length at memory speed, so short
 * pieces are copied into a contiguous image of the chunk that moves with
 * one call, and long ones go to the kernel as a vector with no copy. The
 * mean piece (every process's bytes over its runs, the same number
 * everywhere) is compared with darray_cb_image_piece.
 */
typedef struct tp_sizes {
  int64_t C, M;   /* chunk bytes per aggregator and cycle; message bytes */
  int64_t ntimes; /* cycles, the same on every process */
  int64_t dmax;   /* the largest domain */
  int64_t cmax;   /* the most bytes one aggregator's chunk holds (a layout
                     chunk of whole blocks may hold less than C) */
  int parts;      /* buffers of C bytes */
  bool image, pipeline;
  int64_t need;   /* M + parts * C: an aggregator's buffers */
  int refuse;     /* TP_FITS, or why prepare must refuse the call */
} tp_sizes_t;

/* The domains of a call's access under the hints (cb_nodes, striping_unit,
 * darray_cb_domains: automatic weighs logical against layout domains by
 * darray__tp_cost where layout ones meet fewer aggregators on a server)
 * and the array's elements. */
DARRAY_HIDDEN void darray__tp_domains(const xfer_t *x, const access_t *acc,
                                      tp_domains_t *d);
/* Whether darray_cb_domains=automatic weighs the two kinds of domains
 * for this access (striping given, layout domains meeting fewer
 * aggregators on a server), and then both estimates (tp_domain.c): what
 * the choice and darray_explain use. */
DARRAY_HIDDEN bool darray__tp_weigh(const xfer_t *x, const access_t *acc,
                                    const tp_domains_t *d,
                                    double *ns_layout, double *ns_logical);
/* The cost model's time (ns) of a two-phase call over domains d
 * (tp_domain.c). */
DARRAY_HIDDEN double darray__tp_cost(const xfer_t *x, const access_t *acc,
                                     const tp_domains_t *d);
/* Logical domains: start of domain i (lo for i <= 0, hi for i >= A). */
DARRAY_HIDDEN int64_t darray__tp_boundary(const tp_domains_t *d, int i);
/*
 * Part j of aggregator i's chunk in a cycle: [*plo, *phi), empty when
 * plo == phi; false when the chunk has no part j. A logical domain's
 * chunk is one part, [dlo + cycle C, + C) of its domain; a layout
 * domain's chunk is up to C / (its longest block) of its blocks, in file
 * order, or a piece of one block longer than C (tp_layout.c). The parts
 * of a chunk add up to at most C bytes, and part 0 exists in every
 * cycle. Callers walk j = 0, 1, ... until false.
 */
DARRAY_HIDDEN bool darray__tp_part(const tp_domains_t *d, int64_t C, int i,
                                   int64_t cycle, int64_t j, int64_t *plo,
                                   int64_t *phi);
/* The most parts one chunk has (1 for logical domains). */
DARRAY_HIDDEN int64_t darray__tp_parts_max(const tp_domains_t *d, int64_t C);
/* Whether a stream is cut at its chunk's part boundaries as well as every
 * M bytes (the same on every process): layout chunks of several parts,
 * where an owner's pieces are contiguous in its buffer per part but not
 * across parts, so that each part's pieces go as they lie, unpacked; only
 * where a part (a block of the aggregator's stripes) is at least a
 * message long, M bytes, so that the cut adds at most one message per
 * part to those of the M-cut (shorter parts: a message each costs more
 * than the pack it saves, and a stream that is packed anyway, strided in
 * its owner's buffer, would go as one blocking message per part: BTIO A
 * with 64 KiB stripes took 1.6 times as long), and while the requests a
 * cycle may post, (P + A) per part, stay within TP_SPLIT_REQUESTS. */
#define TP_SPLIT_REQUESTS 65536
DARRAY_HIDDEN bool darray__tp_split(const tp_domains_t *d, int64_t C,
                                    int64_t M, int P);
/* Whether aggregator i has bytes to move in a cycle. */
DARRAY_HIDDEN bool darray__tp_busy(const tp_domains_t *d, int64_t C, int i,
                                   int64_t cycle);
/* The smallest base + k * unit (k >= 0) at or after b, or hi when that
 * lies past hi (base <= hi, unit >= 1). */
DARRAY_HIDDEN int64_t darray__tp_round_up(int64_t b, int64_t base,
                                          int64_t unit, int64_t hi);
/* Domain i's bytes (*total, an upper bound for layout domains) and the
 * largest chunk it can use (*most: the domain; for layout domains all its
 * blocks at their longest, which may pass the extent). */
DARRAY_HIDDEN void darray__tp_domain_len(const tp_domains_t *d, int i,
                                         int64_t *total, int64_t *most);
/* Cycles domain i needs with chunks of C bytes. */
DARRAY_HIDDEN int64_t darray__tp_domain_cycles(const tp_domains_t *d, int i,
                                               int64_t C);
/* The chunk that holds byte off (lo <= off < hi): its aggregator, cycle
 * and the end of the part that holds it. */
DARRAY_HIDDEN void darray__tp_locate(const tp_domains_t *d, int64_t C,
                                     int64_t off, int *agg, int64_t *cycle,
                                     int64_t *chi);
/* ---- layout domains (tp_layout.c) ---- */
/* Whether the hints ask for layout domains on this access (striping_unit
 * and striping_factor known; darray_cb_domains layout, or automatic and
 * fewer aggregators would meet on a server per cycle than with logical
 * domains). */
DARRAY_HIDDEN bool darray__tp_layout_wanted(const tp_domains_t *d,
                                            const darray_hints_t *h);
DARRAY_HIDDEN void darray__tp_layout_len(const tp_domains_t *d, int i,
                                         int64_t *total, int64_t *most);
DARRAY_HIDDEN int64_t darray__tp_layout_cycles(const tp_domains_t *d, int i,
                                               int64_t C);
DARRAY_HIDDEN int64_t darray__tp_layout_chunk_max(const tp_domains_t *d,
                                                  int i, int64_t C);
DARRAY_HIDDEN int64_t darray__tp_layout_parts(const tp_domains_t *d, int i,
                                              int64_t C);
DARRAY_HIDDEN bool darray__tp_layout_part(const tp_domains_t *d, int64_t C,
                                          int i, int64_t cycle, int64_t j,
                                          int64_t *plo, int64_t *phi);
DARRAY_HIDDEN void darray__tp_layout_locate(const tp_domains_t *d, int64_t C,
                                            int64_t off, int *agg,
                                            int64_t *cycle, int64_t *chi);
/* The servers aggregator i's domain uses: [*s0, *s1) (A <= S), or the one
 * server *s0 it shares with others (*s1 = *s0 + 1). */
DARRAY_HIDDEN void darray__tp_layout_servers(const tp_domains_t *d, int i,
                                             int64_t *s0, int64_t *s1);
/* Aggregators whose chunks touch one server in one cycle, most, over the
 * first `cycles` cycles (contention; 0 when the file is not striped), and
 * the most servers one aggregator's chunk touches in a cycle (*servers),
 * looking at the first `parts` parts of each chunk; cnt: room for 2 S
 * ints. */
DARRAY_HIDDEN int darray__tp_contention(const tp_domains_t *d, int64_t C,
                                        int64_t cycles, int64_t parts,
                                        int *cnt, int *servers);

/* Aggregators whose chunks of C bytes meet on one server in a cycle, most
 * (sampled over the first cycles, without allocating: the same on every
 * process); 1 when the striping is unknown. */
DARRAY_HIDDEN int darray__tp_meet(const tp_domains_t *d, int64_t C);
/* The domains in words for darray_explain: logical or layout, the servers
 * and their meeting, and the first aggregators' servers. */
DARRAY_HIDDEN void darray__tp_domains_text(const tp_domains_t *d, int64_t C,
                                           char *buf, size_t n);

/* Rank of aggregator i of A among P processes. */
DARRAY_HIDDEN int darray__tp_agg_rank(int i, int P, int A);
/* C, M, ntimes, dmax and need for `parts` buffers of C bytes out of
 * cb bytes (parts, need and refuse as the caller decides). */
DARRAY_HIDDEN void darray__tp_chunks(const tp_domains_t *d, int64_t cb,
                                     int parts, tp_sizes_t *s);
/* Everything a call's preparation decides from numbers: image mode, the
 * pipeline, the buffers and whether they fit (MPI's int counts,
 * darray_temp_limit, which the automatic pipeline gives way to first). */
DARRAY_HIDDEN void darray__tp_size(const tp_domains_t *d,
                                   const darray_hints_t *h, bool write,
                                   const access_t *acc, tp_sizes_t *s);

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
} tp_slot_t;

typedef struct tp {
  xfer_t *x;
  const struct darray_s *a;
  const access_t *acc; /* the call's access in numbers */
  int P, me, myagg;    /* processes, my rank, my aggregator # */
  tp_domains_t dom;    /* the file domains (dom.A aggregators) */
  bool dense;          /* every byte of the access's extent belongs to
                          some process */
  int64_t C;           /* file bytes per aggregator and cycle */
  int64_t M;           /* bytes per message (and of the pack buffer) */
  int64_t ntimes;      /* cycles, the same on every process */
  bool self_contig;    /* my runs are contiguous in my buffer */
  layout_iter_t self;  /* my runs */
  bool self_ok;
  section_t **peer_sec; /* aggregators: every process's cells */
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
  int64_t *cursor;     /* ... and how much of each is consumed */
  int64_t *spos;       /* aggregators: each stream's bytes in the parts
                          of the chunk before the current one */
  pwalk_t *walk;       /* aggregators: one walker per process */
  struct iovec *iov;   /* DARRAY_IOV_MAX entries */
  int niov;
  int64_t iov_off, iov_end; /* file range the pending vector covers */
  bool split;          /* streams cut at part boundaries (darray__tp_split) */
  int64_t mparts;      /* the most parts of a chunk */
  bool lists;          /* the back end moves several file ranges with one
                          call (io_ops_t.plist): a chunk's parts, and the
                          pieces of a vector with holes, go as one list */
  int64_t *roff, *rlen; /* lists: DARRAY_IOV_MAX ranges, nr of them */
  int nr;
  int rc; /* first local failure */
} tp_t;

/* The call counted on paper (tp_tally.c; strategy.h's tally). */
DARRAY_HIDDEN int darray__tp_tally(const xfer_t *x, const access_t *acc,
                                   darray_plan_row_t *row);
/* Its line of darray_explain (the table's explain slot): the file domains
 * in words, and under darray_cb_domains=automatic what was weighed; ""
 * where the call's extents do not interleave. Fails only when out of
 * memory. */
DARRAY_HIDDEN int darray__tp_explain(xfer_t *x, char *buf, size_t n);

/* One cycle of exchange and file access. */
DARRAY_HIDDEN void darray__tp_cycle(tp_t *t, int64_t cycle);
/* An aggregator's chunk of a cycle to or from the file (tp_chunk.c). */
DARRAY_HIDDEN void darray__tp_chunk_io(tp_t *t, int64_t cycle);
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
