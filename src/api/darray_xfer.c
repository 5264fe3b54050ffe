/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_xfer.c - the blocking collective read and write entry points, for
 * whole arrays and for sections, and darray_xfer, which posts a request
 * (src/async) or runs the call. They run the phases of a call
 * (call/xfer_call.c); this floor, above every room, is the only one that
 * names both (doc/rooms.md).
 *
 * Every call ends with the same code on every process: see
 * call/xfer_call.c.
 */
#include "xfer.h"
#include "async/async.h"

#include <stdio.h>

static int xfer(darray_file_t f, darray_t a, void *buf, bool write,
                const region_t *g, const darray_xfer_args_t *args) {
  xcall_t c;
  int rc = darray__xcall_setup(&c, f, a, buf, write, g);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (args != NULL)
    darray__xcall_args(&c, args->nbytes, args->refuse, args->why);
  c.blocking = true;
  darray__async_idle(f); /* after the requests posted before it */
  rc = darray__xcall_begin(&c);
  if (rc == DARRAY_SUCCESS)
    rc = darray__xcall_run(&c);
  rc = darray__xcall_end(&c, rc);
  darray__xcall_fold(&c, rc);
  return rc;
}
int darray_write(darray_file_t f, darray_t a, const void *buf) {
  return xfer(f, a, (void *)buf, true, NULL, NULL);
}

int darray_read(darray_file_t f, darray_t a, void *buf) {
  return xfer(f, a, buf, false, NULL, NULL);
}

int darray_write_section(darray_file_t f, darray_t a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         const void *buf) {
  region_t g = {start, count, order};
  return xfer(f, a, (void *)buf, true, &g, NULL);
}

int darray_read_section(darray_file_t f, darray_t a, const int64_t start[],
                        const int64_t count[], darray_order_t order,
                        void *buf) {
  region_t g = {start, count, order};
  return xfer(f, a, buf, false, &g, NULL);
}

/* darray_xfer: the call how names, with args' size and refusal. A how
 * that names no call is refused as an argument is: the call its bits
 * name as nearly as they can fails on every process alike. */
int darray_xfer(darray_file_t f, darray_t a, const darray_xfer_args_t *args) {
  if (args == NULL)
    return darray__err(darray__errbuf_nohandle(), DARRAY_ENULL,
                       "args is NULL");
  unsigned how = args->how;
  bool write = how & DARRAY_XFER_WRITE, post = how & DARRAY_XFER_POST;
  bool buffered = how & DARRAY_XFER_BUFFERED;
  darray_xfer_args_t checked = *args;
  char why[96];
  if (checked.refuse == DARRAY_SUCCESS &&
      ((how & ~0xfu) != 0 || (buffered && !(post && write)))) {
    snprintf(why, sizeof why, "how = %#x: not an OR of DARRAY_XFER_* that "
             "names a call (BUFFERED needs POST and WRITE)", how);
    checked.refuse = DARRAY_EINVAL;
    checked.why = why;
    buffered = false;
  }
  region_t g = {args->start, args->count, args->order};
  const region_t *pg = how & DARRAY_XFER_SECTION ? &g : NULL;
  if (post)
    return darray__async_post(f, a, (void *)args->buf, write, pg, buffered,
                              args->req, &checked);
  return xfer(f, a, (void *)args->buf, write, pg, &checked);
}
