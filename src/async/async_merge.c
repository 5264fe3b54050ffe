/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_merge.c - requests moved as one access (darray_async = thread):
 * several whole arrays stored one right after another, read or written
 * by requests that the I/O thread finds queued together, are planned,
 * prepared and moved as one call over all their cells; several sections
 * of one array, as one call whose every process has several boxes (the
 * end of this comment).
 *
 * Which requests merge (darray__merge_follows in async_chain.c, asked by
 * batch_of in async_thread.c while it forms a batch): a chain of whole-array
 * requests of one operation, outside a dataset, posted one after another,
 * each array starting in the file where the one posted before it ends;
 * the arrays may differ in everything else (shape, number of dimensions,
 * distribution, grid, storage order, element size, memory layout). That
 * is a dump of several arrays (issue #15's `multi`, a solver's fields of
 * different shapes), and several dumps of one array in a row. A batch
 * is such a chain or none of it: its first request's agreement carries
 * the chain's length as MERGE_BASE + length - 1, so the least over the
 * processes is a chain only if every process proposed one, and then the
 * chain every process can honour.
 *
 * The merged call (merge_build): its description spans the B arrays'
 * bytes from the first one's displacement, as one undistributed
 * dimension of elements of their common size (one byte where the sizes
 * differ), and the arrays' own descriptions are its parts (desc.h). This
 * process's cells are every array's cells, each tagged with its array
 * (section_t.part), in the array's buffer: memory offsets are taken from
 * the lowest of the B buffers (the distance between two buffers through
 * uintptr_t, as MPI_BOTTOM does). Other processes' cells are their
 * arrays' cells tagged the same way (access.c). The layout reads every
 * cell through its array's description (layout.h, darray__cell_desc), so
 * every closed form (runs, their inverses, the access summary,
 * two-phase's domains) holds cell by cell, and a rank's runs in file
 * order are its runs of array 0, then of array 1, and so on.
 *
 * Rounds: the first request's begin (1: it carries the chain), the other
 * requests' begins (planned, not prepared) and the merged call's
 * preparation in one allreduce (1), the merged call's run, and every
 * result in one allreduce (1): 3 rounds and one access instead of B
 * accesses. Every request gets the access's result: a failure while the
 * bytes move is reported at the wait of every merged request, on every
 * process, with its message.
 *
 * Memory: no request of a chain is prepared for itself (the first one's
 * preparation is freed before the merged call's is made), so a chain holds
 * one strategy's buffers, bounded by that strategy's hints
 * (cb_buffer_size, ind_rd_buffer_size, ind_wr_buffer_size), whatever the
 * chain's bytes; the other metadata is O(B x cells). A chain is therefore
 * not held to a batch's bound (fits, async.c: the extents of a batch
 * whose requests are each prepared before the first runs).
 *
 * When one request of the chain, or the merged call's preparation, fails
 * its agreement (the same outcome on every process), the chain is broken:
 * the merged call is dropped and each request that may go on is prepared
 * and agreed on, run and freed one after another (one more round each:
 * the failure path), so the bound above still holds.
 *
 * Sections (merge_sections): a chain of section requests of one
 * operation on arrays alike at the same displacement, each box of this
 * process apart from its boxes before it in the chain (apart_from_chain;
 * the least length over the processes is taken, as above). No description
 * of its own: the access is the array's, every process with n boxes
 * (xfer_t.msec; access.c cuts other processes' runs at their boxes), this
 * process's box k in request k's buffer. The other requests' local checks
 * and the access's memory are agreed on in one round; then one allgather
 * of every process's n boxes (all checked by then), and for writes no two
 * boxes may meet (two requests writing the same bytes keep their order
 * only one after the other: the chain breaks, the same way everywhere);
 * then the plan and the preparation, agreed on in one more round. Rounds:
 * the first request's two, those two, and the results': 5 and 2 gathers
 * for n sections, against 3 and a gather each alone. A broken chain of
 * sections runs each request as a section call runs (the first one
 * prepared again under its plan).
 */
#include "async/async_impl.h"
#include "agree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static async_count_t merged = ASYNC_COUNT_INIT; /* tests */

int64_t darray__async_merged(void) {
  return darray__async_count_get(&merged);
}

/* The merged access: a call over the arrays one after another. */
typedef struct merge {
  xcall_t c;
  section_t *sec;
  const darray_desc_t *parts[DARRAY_AGREE_EACH_MAX];
  char name[64];
} merge_t;

/* The merged access's description: the n arrays' bytes from the first
 * one's displacement, as one dimension of elements of their common size
 * (1 where their sizes differ: a boundary drawn in the file for all of
 * them, a two-phase domain, may then fall inside an element, which the
 * copies allow, layout_copy.c), not distributed; the arrays' own
 * descriptions are its parts, each cell read through its array's. */
static int parts_desc(merge_t *m, async_req_t **b, int n) {
  darray_desc_t *d = &m->c.view.d;
  int64_t all = 0, es = d->esize, end;
  for (int k = 0; k < n; k++) {
    const darray_desc_t *p = &b[k]->c.view.d;
    int64_t bytes = p->fstride[p->perm[0]] * p->gsizes[p->perm[0]];
    if (!darray__add_ok(all, bytes, &all) ||
        !darray__add_ok(d->disp, all, &end))
      return darray__err(m->c.x.msg, DARRAY_ESIZE, "the merged arrays' "
                         "bytes overflow 64 bits");
    es = p->esize == es ? es : 1;
    m->parts[k] = p;
  }
  int64_t disp = d->disp;
  int nprocs = d->nprocs;
  *d = (darray_desc_t){.nprocs = nprocs, .ndims = 1, .type = DARRAY_OPAQUE,
                       .esize = es, .file_order = DARRAY_ORDER_C,
                       .disp = disp, .mem_order = DARRAY_ORDER_C,
                       .parts = m->parts, .nparts = n};
  d->gsizes[0] = d->block[0] = all / es;
  d->dist[0] = DARRAY_DIST_NONE;
  d->psizes[0] = 1;
  d->fstride[0] = es;
  return DARRAY_SUCCESS;
}

/* This process's cells of the merged access: request k's cells with
 * their array's number k, their memory offsets from base. */
static int parts_cells(merge_t *m, async_req_t **b, int n, char *base) {
  darray_s_t *v = &m->c.view;
  int all = 0;
  for (int k = 0; k < n; k++)
    all += b[k]->c.view.nsec;
  m->sec = malloc(sizeof *m->sec * (size_t)(all > 0 ? all : 1));
  if (m->sec == NULL)
    return darray__err(m->c.x.msg, DARRAY_ENOMEM, "out of memory");
  v->local_count = v->local_bytes = 0;
  v->nsec = 0;
  for (int k = 0; k < n; k++) {
    const darray_s_t *a = &b[k]->c.view;
    char *buf = b[k]->c.x.buf;
    int64_t off = buf != NULL ? (int64_t)((uintptr_t)buf - (uintptr_t)base)
                              : 0;
    for (int c = 0; c < a->nsec; c++) {
      section_t *t = &m->sec[v->nsec++];
      *t = a->sec[c];
      t->part = k;
      if (!darray__add_ok(t->mem_base, off, &t->mem_base))
        return darray__err(m->c.x.msg, DARRAY_ESIZE, "buffer offsets "
                           "overflow 64 bits");
    }
    v->local_bytes += a->local_bytes;
  }
  v->local_count = v->local_bytes / v->d.esize;
  v->sec = m->sec;
  return DARRAY_SUCCESS;
}

/* What every merged access starts from: the first request's call,
 * array and operation, a name for messages, and the lowest of the
 * requests' buffers (memory offsets are taken from it). */
static char *merge_start(merge_t *m, async_req_t **b, int n) {
  xcall_t *c0 = &b[0]->c, *c = &m->c;
  memset(m, 0, sizeof *m);
  c->x.f = c0->x.f;
  c->x.write = c0->x.write;
  c->x.a = &c->view;
  c->member = -1;
  c->view = c0->view;
  c->number = c0->number;
  c->t0 = MPI_Wtime();
  snprintf(m->name, sizeof m->name, "%s x%d (merged)",
           darray__xcall_name(c0), n);
  c->x.entry = m->name;
  c->x.bufsize = DARRAY_UNSIZED; /* the requests' own were checked */
  c->x.fortran = c0->x.fortran;
  darray__io_call_init(&c->x.io, &c->x.f->io, &c->x.stats);
  char *base = NULL;
  for (int k = 0; k < n; k++) {
    char *p = b[k]->c.x.buf;
    if (p != NULL && (base == NULL || (uintptr_t)p < (uintptr_t)base))
      base = p;
  }
  c->x.buf = base;
  return base;
}

/* The merged call of whole-array requests b[0..n) (local). */
static int merge_build(merge_t *m, async_req_t **b, int n) {
  char *base = merge_start(m, b, n);
  int rc = parts_desc(m, b, n);
  if (rc == DARRAY_SUCCESS)
    rc = parts_cells(m, b, n, base);
  return rc;
}

/* Free what begin made of a call's strategy (now: its buffers). */
static void unprepare(xfer_t *x) {
  if (x->strategy != NULL && x->strategy->finish != NULL)
    x->strategy->finish(x);
}

/* The merged call's end: its strategy's state, its access, its cells. */
static int merge_end(merge_t *m, int rc) {
  bool agree;
  if (m->c.x.strategy != NULL) /* else: not begun (merge_build failed) */
    rc = darray__xcall_end_local(&m->c, rc, &agree);
  free(m->sec);
  m->sec = NULL;
  return rc;
}

/* The bytes a request's data covers on this process. */
static int64_t data_bytes(const xcall_t *c) {
  if (!c->section)
    return c->view.local_bytes;
  int64_t n = c->view.d.esize;
  for (int d = 0; d < c->view.d.ndims; d++)
    n *= c->g.count[d];
  return n;
}

/* The merged access's counters into its requests': of the bytes it
 * moved each request but the first gets its own data's (as when it moves
 * alone) while they last, and the first one what is left (its own, and
 * the holes a window read or wrote back); everything else (file calls,
 * exchange, time) is counted on the first request. The shares add up to
 * the whole. */
static void share_stats(async_req_t **b, int n, const darray_stats_t *all) {
  darray_stats_t rest = *all;
  bool w = b[0]->c.x.write;
  int64_t *moved = w ? &rest.bytes_written : &rest.bytes_read;
  int64_t left = *moved;
  *moved = 0;
  darray__stats_fold(&b[0]->c.x.stats, &rest);
  for (int i = n - 1; i >= 0; i--) { /* the first one last: the rest */
    darray_stats_t *s = &b[i]->c.x.stats;
    int64_t d = data_bytes(&b[i]->c), share = i == 0 || d > left ? left : d;
    *(w ? &s->bytes_written : &s->bytes_read) += share;
    left -= share;
  }
}

/* Every process agreed on the merged access: it moves the bytes of all
 * n requests, each of which gets its result. */
static void run_whole(merge_t *m, async_req_t **b, int n, int *rcs) {
  xcall_t *c = &m->c;
  int rc = darray__xcall_run(c);
  rc = merge_end(m, rc);
  share_stats(b, n, &c->x.stats);
  for (int i = 0; i < n; i++) {
    xfer_t *x = &b[i]->c.x;
    x->strategy = c->x.strategy;
    rcs[i] = rc;
    if (rc != DARRAY_SUCCESS)
      memcpy(x->msg, c->x.msg, sizeof x->msg);
  }
  darray__async_count_add(&merged, 1);
  free(m);
}

/* Run request r alone (the chain is broken): prepared and agreed on
 * again unless prepared (one round), run, its buffers freed. */
static int run_alone(async_req_t *r, bool prepared, int rc) {
  if (!prepared)
    darray__async_begin_group(&r, 1, &rc);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_run(&r->c);
  unprepare(&r->c.x);
  return rc;
}

/* The chain's agreement (one round) on rcs[1..n]: requests b[1..n) and
 * the merged access's slot n, with their values; a failure of the
 * allreduce here alone is each request's, told at its end. Returns
 * whether every slot succeeded. */
static bool agree_chain(async_req_t **b, int n, int *rcs, char **msgs,
                        int64_t *vals, int *bads) {
  darray_file_t f = b[0]->c.x.f;
  f->rounds++;
  int64_t *prev = darray__coll_into(&b[1]->c.x.stats.collectives);
  int ok = darray__agree_each(f->comm, n, rcs + 1, msgs + 1, vals, 4,
                              bads + 1);
  darray__coll_into(prev);
  bool whole = true;
  for (int i = 1; i <= n; i++) {
    if (ok != DARRAY_SUCCESS && i < n && rcs[i] == DARRAY_SUCCESS)
      b[i]->c.x.late = darray__err(b[i]->c.x.msg, DARRAY_EMPI,
                                   "MPI_Allreduce failed while agreeing "
                                   "on the arguments");
    whole = whole && rcs[i] == DARRAY_SUCCESS;
  }
  return whole;
}

/* The merged access's slot in the chain's agreement when it could not be
 * allocated. */
static merge_t *merge_alloc(int *rc, char **msg, char *nomem, size_t len) {
  merge_t *m = calloc(1, sizeof *m);
  *rc = DARRAY_SUCCESS;
  if (m == NULL) {
    *rc = DARRAY_ENOMEM;
    *msg = nomem;
    snprintf(nomem, len, "out of memory");
  }
  return m;
}

static bool merge_arrays(async_req_t **b, int n, int *rcs) {
  enum { M = DARRAY_AGREE_EACH_MAX };
  int64_t vals[M * 4];
  int pre[M], bads[M + 1], ag[M + 1];
  char *msgs[M + 1], nomem[DARRAY_ERRMSG_LEN];
  for (int i = 1; i < n; i++) {
    rcs[i] = darray__xcall_begin_plan(&b[i]->c, vals + 4 * (i - 1), &pre[i]);
    msgs[i] = b[i]->c.x.msg;
    bads[i] = -1;
  }
  /* slot n: the merged call's preparation, and that its plan is the same
   * everywhere */
  int64_t *cv = vals + 4 * (n - 1);
  memset(cv, 0, sizeof *cv * 4);
  merge_t *m = merge_alloc(&rcs[n], &msgs[n], nomem, sizeof nomem);
  if (m != NULL) {
    rcs[n] = merge_build(m, b, n);
    msgs[n] = m->c.x.msg;
    if (rcs[n] == DARRAY_SUCCESS) {
      m->c.rc0 = DARRAY_SUCCESS;
      rcs[n] = darray__xcall_begin_merged(&m->c, cv, &pre[0]);
    }
  }
  bads[n] = -1;
  bool whole = agree_chain(b, n, rcs, msgs, vals, bads);
  for (int i = 1; i <= n; i++)
    ag[i] = rcs[i];
  for (int i = 1; i < n; i++)
    rcs[i] = darray__xcall_begin_agreed(&b[i]->c, rcs[i], bads[i],
                                        vals + 4 * (i - 1), pre[i]);
  if (whole) { /* one access for all */
    run_whole(m, b, n, rcs);
    return true;
  }
  if (m != NULL)
    merge_end(m, DARRAY_SUCCESS);
  free(m);
  /* broken: one after another; a request whose begin failed its
   * agreement and then fell back to direct runs
   * (darray__xfer_begin_fallback) holds that preparation */
  for (int i = 0; i < n; i++)
    if (rcs[i] == DARRAY_SUCCESS)
      rcs[i] = run_alone(b[i], i > 0 && ag[i] != DARRAY_SUCCESS, rcs[i]);
  return false;
}

/* ---- sections of one array ------------------------------------------- */

/* After the chain's agreement (every request's box inside the array, on
 * every process): this process's n boxes as the access's cells, box k in
 * request k's buffer (offsets from base); every process's n boxes,
 * gathered (collective); for writes, no two boxes may meet: two requests
 * that write the same bytes keep their order only one after the other
 * (the chain breaks, the same outcome everywhere: the same boxes). */
static int sections_gather(merge_t *m, async_req_t **b, int n, char *base) {
  xfer_t *x = &m->c.x;
  darray_s_t *v = &m->c.view;
  int nd = v->d.ndims;
  int64_t mine[2 * DARRAY_MAX_DIMS * DARRAY_AGREE_EACH_MAX];
  v->local_count = 0;
  for (int k = 0; k < n; k++) {
    const xcall_t *ck = &b[k]->c;
    section_t *t = &m->sec[k];
    darray__section_box(&ck->view, ck->g.start, ck->g.count, ck->g.order, t);
    t->mem_base = ck->x.buf != NULL
                      ? (int64_t)((uintptr_t)ck->x.buf - (uintptr_t)base)
                      : 0;
    darray__async_box_of(b[k], nd, mine + 2 * nd * k);
    v->local_count += t->alloc_bytes / v->d.esize;
  }
  v->local_bytes = v->local_count * v->d.esize;
  v->sec = m->sec;
  v->nsec = n;
  x->msec = n;
  int64_t i, j;
  int rc = darray__allgather_boxes(x, mine, n, x->boxes_owned);
  x->boxes = x->boxes_owned;
  if (rc == DARRAY_SUCCESS && x->write &&
      darray__boxes_first_meet(x->boxes, (int64_t)v->d.nprocs * n, nd, &i,
                               &j))
    rc = darray__err(x->msg, DARRAY_EOVERLAP, "the requests' sections "
                     "overlap: they move one by one");
  return rc;
}

/* The merged access of section requests b[0..n) once the chain is agreed
 * on: its boxes (sections_gather), its plan and preparation, and their
 * agreement (one round). */
static int sections_begin(merge_t *m, async_req_t **b, int n) {
  int64_t cv[4] = {0, 0, 0, 0};
  int pre, bad = -1;
  int rc = sections_gather(m, b, n, m->c.x.buf);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_begin_merged(&m->c, cv, &pre);
  darray_file_t f = m->c.x.f;
  char *msg = m->c.x.msg;
  f->rounds++;
  int64_t *prev = darray__coll_into(&b[0]->c.x.stats.collectives);
  if (darray__agree_each(f->comm, 1, &rc, &msg, cv, 4, &bad) !=
      DARRAY_SUCCESS)
    rc = DARRAY_EMPI; /* here alone: the requests move one by one, and
                         their own agreements tell */
  darray__coll_into(prev);
  return rc;
}

/* Request r of a broken chain of sections, alone: the first one prepared
 * again (its plan stands; one round), the others begun as a section call
 * is (two rounds and the gather), run, its buffers freed. */
static int run_section_alone(async_req_t *r, bool first) {
  int rc = first ? darray__xcall_reprepare(&r->c) : darray__xcall_begin(&r->c);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_run(&r->c);
  unprepare(&r->c.x);
  return rc;
}

static bool merge_sections(async_req_t **b, int n, int *rcs) {
  enum { M = DARRAY_AGREE_EACH_MAX };
  int64_t vals[M * 4];
  int bads[M + 1];
  char *msgs[M + 1], nomem[DARRAY_ERRMSG_LEN];
  for (int i = 1; i < n; i++) {
    rcs[i] = darray__xcall_section_local(&b[i]->c, vals + 4 * (i - 1));
    msgs[i] = b[i]->c.x.msg;
    bads[i] = -1;
  }
  /* slot n: the merged access's memory (its boxes come after) */
  memset(vals + 4 * (n - 1), 0, sizeof *vals * 4);
  merge_t *m = merge_alloc(&rcs[n], &msgs[n], nomem, sizeof nomem);
  if (m != NULL) {
    merge_start(m, b, n);
    msgs[n] = m->c.x.msg;
    size_t per = 2 * (size_t)m->c.view.d.ndims * (size_t)n;
    m->sec = malloc(sizeof *m->sec * (size_t)n);
    m->c.x.boxes_owned =
        malloc(sizeof(int64_t) * per * (size_t)m->c.view.d.nprocs);
    if (m->sec == NULL || m->c.x.boxes_owned == NULL)
      rcs[n] = darray__err(m->c.x.msg, DARRAY_ENOMEM, "out of memory");
  }
  bads[n] = -1;
  bool whole = agree_chain(b, n, rcs, msgs, vals, bads);
  for (int i = 1; i < n; i++)
    rcs[i] = darray__xcall_section_agreed(&b[i]->c, rcs[i], bads[i],
                                          vals + 4 * (i - 1));
  if (whole && sections_begin(m, b, n) == DARRAY_SUCCESS) {
    run_whole(m, b, n, rcs);
    return true;
  }
  if (m != NULL) {
    merge_end(m, DARRAY_SUCCESS);
    free(m->c.x.boxes_owned); /* when not begun */
  }
  free(m);
  for (int i = 0; i < n; i++) /* broken: one after another */
    if (rcs[i] == DARRAY_SUCCESS)
      rcs[i] = run_section_alone(b[i], i == 0);
  return false;
}

bool darray__async_merge(async_req_t **b, int n, int *rcs) {
  unprepare(&b[0]->c.x); /* begun and agreed on: the merged access moves
                            it */
  return b[0]->c.section ? merge_sections(b, n, rcs)
                         : merge_arrays(b, n, rcs);
}

