/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_plan.c - the helpers of a call's begin phase (xfer.h) that ask the
 * planner or the strategy table: the plan as DARRAYIO_VERBOSE=1 tells it,
 * and the fallback to direct runs. They sit in the call room, above the
 * strategies, so that the core's helpers (xfer_begin.c) name none
 * (doc/rooms.md).
 */
#include "xfer.h"

#include <stdio.h>

int darray__xfer_say_plan(xfer_t *x, const region_t *g, const strategy_t **s) {
  plan_t p;
  char est[DARRAY_ESTIMATES_LEN];
  int rc = darray__plan_explain(x, &p);
  *s = p.s;
  if (rc == DARRAY_SUCCESS && x->a->rank == 0)
    fprintf(stderr, "darrayio: %s: strategy %s, back end %s: %s; estimates: "
            "%s\n", darray__xfer_call_name(x, g), p.s->name,
            x->f->io.ops->name, p.why,
            darray__plan_estimates(&p, est, sizeof est));
  return rc;
}


/* After the begin's agreement (rc): the planner's choice needs more memory
 * than darray_temp_limit allows (or larger MPI counts than exist)? Direct
 * runs (the table's first entry) need at most one element of buffer, none
 * for cells contiguous in memory. Every process comes here (the code and
 * the hints are agreed on), also one whose own failure came before the
 * plan (pre; its strategy is not the others'): it agrees again on that
 * failure, with its message. */
int darray__xfer_begin_fallback(xfer_t *x, const region_t *g, int pre, int rc) {
  const strategy_t *s = x->strategy, *fallback = darray__strategies[0];
  if (rc == DARRAY_ELIMIT && darray__plan_forced(x) == NULL) {
    const struct darray_s *a = x->a;
    if (darray__xfer_verbose() && a->rank == 0 && pre == DARRAY_SUCCESS)
      fprintf(stderr, "darrayio: %s: strategy %s instead of %s: %s\n",
              darray__xfer_call_name(x, g), fallback->name, s->name, x->msg);
    if (pre == DARRAY_SUCCESS)
      x->msg[0] = '\0';
    rc = darray__xfer_begin_with(x, g, fallback, pre);
    if (rc == DARRAY_SUCCESS && g == NULL && !x->background && s != fallback)
      darray__plan_keep(x->f, a, x->write, fallback); /* the same refusal */
  }
  x->failed_early = rc != DARRAY_SUCCESS;
  return rc;
}
