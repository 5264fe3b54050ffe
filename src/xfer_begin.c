/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_begin.c - the helpers of a call's begin phase (xfer.h), which
 * call/xfer_call.c runs for the blocking and the nonblocking calls: the
 * call's name for messages, the agreement of a call, the access, the
 * check against darray_temp_limit and the strategy's preparation. Those
 * that ask the planner or the strategy table (the plan as
 * DARRAYIO_VERBOSE=1 tells it, the fallback to direct runs) are in
 * call/xfer_plan.c, a room above the strategies (doc/rooms.md).
 */
#include "xfer.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *darray__xfer_call_name(const xfer_t *x, const region_t *g) {
  static const char *const names[2][2] = {
      {"darray_read", "darray_read_section"},
      {"darray_write", "darray_write_section"}};
  return x->entry != NULL ? x->entry : names[x->write][g != NULL];
}

/* The agreement of a call: on the outcome so far (rc), and that every
 * process makes the same call (operation, whole array or section), on the
 * same array description, at the same displacement, with the same
 * strategy (s; NULL for a section call's first agreement, before the
 * plan). Both agreements of every call have this shape, so that processes
 * that make different calls still meet in matching collectives and learn
 * it (a read matched with a write, a section with a whole array); a
 * disagreement names the argument and two processes' values of it. It
 * also carries x->batch (the least over the processes comes back).
 */
void darray__xfer_call_vals(const xfer_t *x, const region_t *g,
                            const strategy_t *s, int64_t vals[4]) {
  vals[0] = (x->write ? 0 : 1) + (g != NULL ? 2 : 0);
  vals[1] = x->a->desc_hash;
  vals[2] = x->a->d.disp;
  vals[3] = s ? (int64_t)darray__hash(0, s->name, strlen(s->name)) : 0;
}

/* Processes passed different vals[bad] (collective, on the failure path:
 * every process comes here): the message names it and two values. */
void darray__xfer_call_differ(xfer_t *x, const region_t *g, const strategy_t *s,
                              const int64_t *vals, int bad, int rc) {
  static const char *const what[] = {"calls", "array descriptions",
                                     "displacements", "strategies (hints)"};
  char text[200];
  if (bad == 0)
    snprintf(text, sizeof text, "%s", darray__xfer_call_name(x, g));
  else if (bad == 1)
    darray__desc_text(&x->a->d, text, sizeof text);
  else if (bad == 2)
    snprintf(text, sizeof text, "%lld", (long long)x->a->d.disp);
  else
    snprintf(text, sizeof text, "%s", s ? s->name : "(none)");
  darray__err(x->msg, rc, "%s: processes %s different %s",
              darray__xfer_call_name(x, g), bad == 0 ? "made" : "passed",
              what[bad]);
  darray__agree_differ(x->f->comm, vals[bad], text, x->msg, sizeof x->msg);
}

int darray__xfer_agree_call(xfer_t *x, const region_t *g, const strategy_t *s,
                            int rc) {
  int64_t vals[4];
  darray__xfer_call_vals(x, g, s, vals);
  int bad = -1;
  x->f->rounds++;
  rc = darray__agree_batch(x->f->comm, rc, x->msg, vals, 4, &bad, &x->late,
                           &x->batch);
  if (rc == DARRAY_EINCONSISTENT)
    darray__xfer_call_differ(x, g, s, vals, bad, rc);
  return rc;
}

/* A buffer sized by the caller (darray_xfer, the Fortran module) that
 * holds fewer than the need bytes the call moves through it (g: a
 * section's; NULL: the local piece's): DARRAY_EBUFSIZE, both sizes
 * named. Local; agreed on with the other arguments, before any byte
 * moves. */
int darray__xfer_buf_check(xfer_t *x, const region_t *g, int64_t need) {
  if (x->bufsize == DARRAY_UNSIZED || x->bufsize >= need)
    return DARRAY_SUCCESS;
  return darray__err(x->msg, DARRAY_EBUFSIZE,
                     "buf holds %lld bytes, but %s needs %lld: %s",
                     (long long)x->bufsize, darray__xfer_call_name(x, g),
                     (long long)need,
                     g != NULL ? "the section's elements"
                               : "this process's local piece, ghosts and "
                                 "padding included (darray_local_bytes)");
}

/* Set up x's access: the array's cells, or this process's box. */
int darray__xfer_section_checks(xfer_t *x, const region_t *g, int rc) {
  int64_t n = 0;
  if (rc == DARRAY_SUCCESS)
    rc = darray__region_args(x, g, &n);
  if (rc == DARRAY_SUCCESS && x->buf == NULL && n > 0)
    rc = darray__err(x->msg, DARRAY_ENULL,
                     "buf is NULL but the section has %lld elements",
                     (long long)n);
  if (rc == DARRAY_SUCCESS) /* n * esize: the section lies in the array */
    rc = darray__xfer_buf_check(x, g, n * x->a->d.esize);
  return rc;
}

int darray__xfer_access_of(xfer_t *x, const region_t *g, int rc, bool *agreed) {
  if (g == NULL) {
    x->sec = x->a->sec;
    x->nsec = x->a->nsec;
    if (rc == DARRAY_SUCCESS && x->buf == NULL && x->a->local_count > 0)
      rc = darray__err(x->msg, DARRAY_ENULL,
                       "buf is NULL but this process owns %lld elements",
                       (long long)x->a->local_count);
    if (rc == DARRAY_SUCCESS)
      rc = darray__xfer_buf_check(x, NULL, x->a->local_bytes);
    return rc;
  }
  rc = darray__xfer_section_checks(x, g, rc);
  size_t nb = 2 * (size_t)x->a->d.ndims * (size_t)x->a->d.nprocs;
  if (rc == DARRAY_SUCCESS &&
      (x->boxes_owned = malloc(sizeof *x->boxes_owned * nb)) == NULL)
    rc = darray__err(x->msg, DARRAY_ENOMEM, "out of memory");
  rc = darray__xfer_agree_call(x, g, NULL, rc); /* before the gather */
  *agreed = rc != DARRAY_SUCCESS; /* every process knows it */
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__section_box(x->a, g->start, g->count, g->order, &x->box_sec);
  x->sec = &x->box_sec;
  x->nsec = 1;
  x->boxes = x->boxes_owned;
  return darray__gather_boxes(x, g, x->boxes_owned);
}

/* DARRAYIO_VERBOSE=1: rank 0 says what each call does and why. */
bool darray__xfer_verbose(void) {
  const char *v = getenv("DARRAYIO_VERBOSE");
  return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Refuse a call that darray_temp_limit cannot hold in any strategy: one
 * whose limit is below one element while a cell of this process is
 * strided in memory, since every strategy copies such runs through a
 * buffer of whole elements. Local; agreed on with the arguments. */
int darray__xfer_temp_check(xfer_t *x) {
  int64_t lim = x->f->hints.temp_limit, es = x->a->d.esize;
  if (lim <= 0 || es <= lim)
    return DARRAY_SUCCESS;
  for (int c = 0; c < x->nsec; c++)
    if (!darray__layout_mem_contig(&x->a->d, &x->sec[c]))
      return darray__err(x->msg, DARRAY_ELIMIT,
                         "darray_temp_limit = %lld bytes is less than the "
                         "%lld bytes this call needs: one element, to copy "
                         "cell %lld, which is strided in memory",
                         (long long)lim, (long long)es,
                         darray__ix(x->fortran, c));
  return DARRAY_SUCCESS;
}

int64_t darray__xfer_buffer_cap(const xfer_t *x, int64_t hint) {
  int64_t es = x->a->d.esize, lim = x->f->hints.temp_limit;
  if (hint >= es)
    return hint / es * es;
  return lim > 0 && lim < es ? hint : es;
}

/* Prepare strategy s (local): this process's result so far (rc) and the
 * preparation's. */
int darray__xfer_begin_local(xfer_t *x, const region_t *g, const strategy_t *s,
                             int rc) {
  if (x->strategy != NULL && x->strategy->finish != NULL)
    x->strategy->finish(x); /* an earlier attempt's state */
  x->strategy = s;
  if (s->close != NULL) /* what it may keep on the file, freed at close */
    darray__file_on_close(x->f, s->close);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xfer_temp_check(x);
  if (rc == DARRAY_SUCCESS && s->prepare != NULL) {
    rc = s->prepare(x);
    if (rc != DARRAY_SUCCESS && x->msg[0] == '\0')
      darray__err(x->msg, rc, "%s (strategy %s): preparing: %s",
                  darray__xfer_call_name(x, g), s->name, darray_strerror(rc));
  }
  if (rc == DARRAY_SUCCESS) /* an earlier agreement failed here alone */
    rc = x->late;
  x->late = DARRAY_SUCCESS;
  return rc;
}

/* Prepare strategy s and agree, before any byte moves, on the outcome
 * (rc: this process's result so far), the call, the description, the
 * displacement and the strategy. */
int darray__xfer_begin_with(xfer_t *x, const region_t *g, const strategy_t *s,
                            int rc) {
  return darray__xfer_agree_call(x, g, s,
                                 darray__xfer_begin_local(x, g, s, rc));
}
