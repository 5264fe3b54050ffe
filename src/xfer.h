/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer.h - one read or write call as a sequence of phases (call/xfer_call.c,
 * xfer_begin.c), for the blocking entry points, which run them in a row,
 * and for requests (src/async), which run them where and when the thread
 * level allows.
 *
 *   setup  (local, the caller's thread): handles, the array's place in a
 *          dataset, the checks that need no communication;
 *   begin  (collective): the access, the plan, the strategy's preparation
 *          and one agreement, after which every process moves bytes or
 *          none does;
 *   run    (collective for collective strategies): the bytes move;
 *   end    (collective): the strategy's state is freed and the result is
 *          agreed on (end_local + an agreement), then a dataset's member
 *          is accounted for (format_after);
 *   fold   (local, the caller's thread): the call's counters and message go
 *          into the file handle.
 */
#ifndef DARRAYIO_XFER_H
#define DARRAYIO_XFER_H

#include "strategy.h"
#include "format/format.h"

/* A section call's own region. */
typedef struct region {
  const int64_t *start, *count;
  darray_order_t order;
} region_t;

/* A section call's checks of its box (local; its elements into *n), and
 * the gather of every process's box into all (collective, once every
 * process has agreed that its arguments are good; writes must not
 * overlap). access.c. */
DARRAY_HIDDEN int darray__region_args(xfer_t *x, const region_t *g,
                                      int64_t *n);
DARRAY_HIDDEN int darray__gather_boxes(xfer_t *x, const region_t *g,
                                       int64_t *all);
/* The gather itself: nbox boxes of this process's (mine) after every
 * process's into all (collective); and the first pair (*i < *j) of the n
 * boxes that meet, if any (access.c). */
DARRAY_HIDDEN int darray__allgather_boxes(xfer_t *x, const int64_t *mine,
                                          int nbox, int64_t *all);
DARRAY_HIDDEN bool darray__boxes_first_meet(const int64_t *boxes, int64_t n,
                                            int nd, int64_t *i, int64_t *j);

/* The begin phase's helpers (xfer_begin.c), which call/xfer_call.c runs. */
/* The entry point's name (x->entry, or the blocking call's), for messages. */
DARRAY_HIDDEN const char *darray__xfer_call_name(const xfer_t *x,
                                                 const region_t *g);
/* The values the agreement of a call checks, into vals. */
DARRAY_HIDDEN void darray__xfer_call_vals(const xfer_t *x, const region_t *g,
                                          const strategy_t *s, int64_t vals[4]);
/* The message of a disagreement on vals[bad] (collective, on failure). */
DARRAY_HIDDEN void darray__xfer_call_differ(xfer_t *x, const region_t *g,
                                            const strategy_t *s,
                                            const int64_t *vals, int bad,
                                            int rc);
/* The agreement of a call on rc and on its values (collective). */
DARRAY_HIDDEN int darray__xfer_agree_call(xfer_t *x, const region_t *g,
                                          const strategy_t *s, int rc);
/* A section call's local checks (its box, its buffer) after rc. */
DARRAY_HIDDEN int darray__xfer_section_checks(xfer_t *x, const region_t *g,
                                              int rc);
/* DARRAY_EBUFSIZE when the caller sized buf (x->bufsize) below need, the
 * bytes of g's section (NULL: of the local piece). */
DARRAY_HIDDEN int darray__xfer_buf_check(xfer_t *x, const region_t *g,
                                         int64_t need);
/* x's access; for a section, the first agreement and the gather (*agreed). */
DARRAY_HIDDEN int darray__xfer_access_of(xfer_t *x, const region_t *g, int rc,
                                         bool *agreed);
/* Whether DARRAYIO_VERBOSE has rank 0 say what each call does and why. */
DARRAY_HIDDEN bool darray__xfer_verbose(void);
/* The call's plan into *s, which rank 0 prints (DARRAYIO_VERBOSE=1). */
DARRAY_HIDDEN int darray__xfer_say_plan(xfer_t *x, const region_t *g,
                                        const strategy_t **s);
/* Refuses a call when darray_temp_limit cannot hold a strided element. */
DARRAY_HIDDEN int darray__xfer_temp_check(xfer_t *x);
/* Prepares strategy s (local) after this process's result so far (rc). */
DARRAY_HIDDEN int darray__xfer_begin_local(xfer_t *x, const region_t *g,
                                           const strategy_t *s, int rc);
/* begin_local and then the agreement of the call (collective). */
DARRAY_HIDDEN int darray__xfer_begin_with(xfer_t *x, const region_t *g,
                                          const strategy_t *s, int rc);
/* After the begin's agreement: direct runs when the plan exceeds the limit. */
DARRAY_HIDDEN int darray__xfer_begin_fallback(xfer_t *x, const region_t *g,
                                              int pre, int rc);

/* One call: its xfer, the description it moves (a copy of the array, at
 * its member's offset in a dataset), its region. */
typedef struct xcall {
  xfer_t x;       /* x.a == &view */
  darray_s_t view;
  int member;     /* dataset member, or -1 */
  bool section;   /* g holds the region */
  region_t g;
  int rc0;        /* the local checks' result, agreed on by begin */
  bool blocking;  /* not a request (set by the blocking entry points) */
  crc_share_t share; /* a whole-array write of a member with a CRC: how
                        this process's share is computed (src/format) */
  /* DARRAYIO_VERBOSE: the call's number on its file, when it was made,
   * and the bytes it moves (every process's) */
  int64_t number;
  double t0;
  int64_t bytes;
} xcall_t;

/* setup: c gets the call; returns what the handles' checks say (a bad
 * handle or MPI not running: nothing can be agreed on, the call stops
 * here); the checks of the arguments go into c->rc0. g: NULL for a whole
 * array (its pointers are kept: a request copies what they point to). */
DARRAY_HIDDEN int darray__xcall_setup(xcall_t *c, struct darray_file_s *f,
                                      struct darray_s *a, void *buf,
                                      bool write, const region_t *g);
/* After setup: the size the caller gave buf (darray_xfer's nbytes) and a
 * language binding's own refusal (refuse, why), into c->rc0. */
DARRAY_HIDDEN void darray__xcall_args(xcall_t *c, int64_t nbytes, int refuse,
                                      const char *why);
DARRAY_HIDDEN int darray__xcall_begin(xcall_t *c);
/* begin in two halves, for requests whose begins are agreed on together
 * (src/async/async_batch.c); whole-array calls only (a section's begin
 * has collectives of its own). begin_local: the access, the plan and the
 * strategy's preparation, local; the values the agreement checks into
 * vals and the result before the plan into *pre. begin_agreed: with the
 * agreed code (rc; bad: the index of a value that differs, for
 * DARRAY_EINCONSISTENT), what follows the agreement (collective on the
 * failure path: every process comes with the same rc). */
DARRAY_HIDDEN int darray__xcall_begin_local(xcall_t *c, int64_t vals[4],
                                            int *pre);
/* begin_local for a request whose bytes a merged access moves
 * (src/async/async_merge.c): its plan and checks, no preparation (the
 * merged access prepares once for all its requests); and for that merged
 * access, a call over the arrays' cells (its description's parts,
 * desc.h): planned afresh,
 * not remembered for any array, prepared. */
DARRAY_HIDDEN int darray__xcall_begin_plan(xcall_t *c, int64_t vals[4],
                                           int *pre);
DARRAY_HIDDEN int darray__xcall_begin_merged(xcall_t *c, int64_t vals[4],
                                             int *pre);
DARRAY_HIDDEN int darray__xcall_begin_agreed(xcall_t *c, int rc, int bad,
                                             const int64_t vals[4], int pre);
/* A section request of a merged access (src/async/async_merge.c), before
 * the agreement on the chain's requests: section_local, its local checks
 * (box, buffer; no gather, no plan) and into vals the values a section
 * call's first agreement checks; section_agreed, with the agreed code
 * (rc, bad as for begin_agreed): a failed request ends there, on every
 * process. reprepare: a begun call whose strategy's preparation was given
 * up (the first request of a merged access that broke) prepared again
 * under the same plan, and agreed on (collective, one round). */
DARRAY_HIDDEN int darray__xcall_section_local(xcall_t *c, int64_t vals[4]);
DARRAY_HIDDEN int darray__xcall_section_agreed(xcall_t *c, int rc, int bad,
                                               const int64_t vals[4]);
DARRAY_HIDDEN int darray__xcall_reprepare(xcall_t *c);
DARRAY_HIDDEN int darray__xcall_run(xcall_t *c);
/* end_local: the strategy's state is freed and a failure gets its
 * message; *agree says whether the result still needs its agreement (no:
 * begin failed, and every process knows it). */
DARRAY_HIDDEN int darray__xcall_end_local(xcall_t *c, int rc, bool *agree);
/* after the agreement on rc: a dataset's member (collective for a
 * verified read, darray__format_after_collective); the call's last step,
 * where DARRAYIO_VERBOSE=1 has rank 0 print the call's number, bytes,
 * time and strategy */
DARRAY_HIDDEN int darray__xcall_after(xcall_t *c, int rc);
/* end_local, the agreement on the file's communicator, after */
DARRAY_HIDDEN int darray__xcall_end(xcall_t *c, int rc);
DARRAY_HIDDEN void darray__xcall_fold(xcall_t *c, int rc);
/* The entry point's name, for messages. */
DARRAY_HIDDEN const char *darray__xcall_name(const xcall_t *c);

#endif /* DARRAYIO_XFER_H */
