/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_xfer.c - fuzz target: whole transfers on one process, blocking and
 * nonblocking, checked against a serial model of the file.
 *
 * The input bytes are decoded into a case: a small array (1-4 dimensions,
 * at most 1 KiB; every element type, opaque elements of 1-24 bytes),
 * BLOCK(k) / CYCLIC(k) / NONE or MULTIPARTITION distributions on the grid
 * 1 x .. x 1, a storage order (C, Fortran or a permutation), a
 * displacement, a memory layout (C or Fortran order, ghosts, padding),
 * hints (back end, strategy, tiny buffer sizes, image piece, pipeline, the
 * romio switches, a temporary-memory limit, the cost model, how requests
 * run: darray_async, darray_nb_buffer_size), a file prefilled with a
 * known pattern up to some length (possibly short of the array), and up
 * to eight operations: whole-array or section writes and reads, each
 * blocking, posted (darray_iwrite, darray_iread, ..._section) or, for
 * writes, buffered (darray_bwrite, darray_bwrite_section), a new
 * displacement, a sync (darray_file_sync or darray_file_isync), the
 * completion of one pending request (darray_wait, or darray_test until
 * done) or of all (darray_wait_all, in post order or the reverse, with
 * null requests between, with or without codes); at the end the requests
 * still pending complete in darray_wait_all or darray_file_close, with the
 * array freed first or not. MPI runs at MPI_THREAD_MULTIPLE, so every
 * darray_async mode is possible.
 *
 * The model is computed here from the definitions, never by the library:
 * element g lives at disp + esize * (linear index of g in the storage
 * order) in the file, at sum((g[d] + ghost[d]) * mstride[d]) in the one
 * process's buffer (the whole array, extents padded[d] or n[d] + 2
 * ghost[d], in C or Fortran order), and at its dense index in a section
 * buffer. Calls and requests take effect on the model in the order they
 * are made or posted (darrayio.h: requests on one file take effect in post
 * order, a blocking call after the requests posted before it; the array's
 * description is copied when posted). When a call returns or a request
 * completes:
 *  - it returns what the blocking call returns by the model: writes
 *    succeed, reads fail with DARRAY_EEOF exactly when a byte they need
 *    was past the end of the file when they were posted; a buffered write
 *    whose copy would take the copies of the pending ones past
 *    darray_nb_buffer_size fails with DARRAY_ELIMIT having written
 *    nothing; darray_temp_limit may refuse a call with DARRAY_ELIMIT
 *    before any byte moves (named in the message), and a request exactly
 *    when the same blocking call (on a second file) is refused;
 *  - reads deliver the model's elements as they were when posted; ghosts,
 *    padding and the guard bytes after the buffer stay untouched, also
 *    when the read fails; writes, blocking or posted, leave the caller's
 *    buffer alone (a buffered write's buffer is overwritten as soon as it
 *    is posted: the library has its copy), and blocking writes read back
 *    equal;
 *  - the file holds the model (xfer_model.h says what that means while
 *    requests are under way; with none, byte for byte and in length: new
 *    elements, the prefill elsewhere, zeros where the file grew over a
 *    gap); it is checked after every operation, posts included;
 *  - alone, the call's counters name a strategy the hints allow (on one
 *    process the extents never interleave, so only a hint yields
 *    two-phase), at least the call's bytes moved, and a largest temporary
 *    buffer within the hint that bounds it (at least an element per
 *    buffer); darray_wait_all's counters add up;
 *  - a completed request's handle is DARRAY_REQUEST_NULL and its old
 *    identifier gives DARRAY_EREQUEST to darray_wait and darray_test;
 *    darray_wait_all returns the first failure of its array, and each
 *    request's code; darray_file_sync and darray_file_close return
 *    success, or the code of a pending request that failed.
 * Any difference aborts with the case printed: a finding.
 *
 * The decoding of a case is in xfer_case.h, the model and its checks in
 * xfer_model.h, requests and their completion in xfer_async.h. Build and
 * run: fuzz/run.sh (libFuzzer), or see fuzz/README.md.
 */
#include "darrayio.h"
#include "fuzz_util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>

#define MAXD 4
#define MAXOPS 8
#define MAXPOST (2 * MAXOPS) /* calls: a blocking write is read back */
#define BUDGET 1024          /* most bytes of an array */
#define MEMCAP 16384         /* most bytes of the local buffer */
#define FILECAP 16384        /* most bytes of the file */
#define GUARD 32             /* bytes after a read buffer, checked untouched */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int thread_level; /* what MPI_Init_thread provided */

#include "xfer_case.h"
#include "xfer_model.h"

/* ------------------------------------------------------------------------ */
/* one transfer, from its call or post to its completion                    */

enum { LIM_TEMP = 1, LIM_NB }; /* why a call is refused with DARRAY_ELIMIT */

typedef struct tx {
  const op_t *o; /* the operation (a section's region) */
  bool write, section, sync;
  int how;      /* HOW_* */
  int post;     /* the model's state after it */
  int64_t disp; /* the displacement it was made at */
  darray_request_t req;
  uint8_t *buf, *orig; /* the caller's buffer, and its bytes before */
  uint8_t *want;       /* a read: what buf holds after a success */
  uint8_t *elem;       /* a read: 1 at the bytes of elements */
  int64_t nb;          /* bytes of buf (a read's with GUARD after) */
  int64_t bytes;       /* the bytes the call moves */
  int64_t end, flen;   /* a read: its last byte + 1; the file's length */
  int64_t copy, held;  /* a buffered write: its copy; what others held */
  int expect;          /* what its completion returns, by the model */
  int why;             /* expect is DARRAY_ELIMIT: LIM_* */
  char name[40];       /* the entry point */
} tx_t;

/* The elements of t's region in turn: start with e zeroed; false after
 * the last. */
typedef struct elem_it {
  int64_t i[MAXD], g[MAXD], k;
  int64_t bo, fo; /* offsets in t's buffer and in the file */
} elem_it_t;

static bool each_elem(const xcase_t *c, const tx_t *t, elem_it_t *e) {
  const int64_t *count = t->section ? t->o->count : c->g;
  if (e->k == box_elems(c->nd, count))
    return false;
  if (e->k++ > 0)
    next_index(c->nd, count, e->i);
  for (int d = 0; d < c->nd; d++)
    e->g[d] = (t->section ? t->o->start[d] : 0) + e->i[d];
  e->bo = t->section ? box_off(c, count, t->o->order, e->i) : mem_off(c, e->g);
  e->fo = file_off(c, t->disp, e->g);
  return true;
}

static void tx_name(tx_t *t) {
  static const char *const pre[] = {"", "i", "b"};
  if (t->sync)
    snprintf(t->name, sizeof t->name, "darray_file_isync");
  else
    snprintf(t->name, sizeof t->name, "darray_%s%s%s", pre[t->how],
             t->write ? "write" : "read", t->section ? "_section" : "");
}

/* A read's buffer: random bytes; after a success, the model's elements
 * (as they are now) in place of them. */
static void expect_read(const run_t *r, tx_t *t) {
  const xcase_t *c = r->c;
  t->want = xmalloc(t->nb);
  t->elem = xmalloc(t->nb);
  memcpy(t->want, t->orig, (size_t)t->nb);
  memset(t->elem, 0, (size_t)t->nb);
  elem_it_t e = {0};
  while (each_elem(c, t, &e)) {
    memset(t->elem + e.bo, 1, (size_t)c->esize);
    memcpy(t->want + e.bo, r->model + e.fo, (size_t)c->esize);
    t->end = e.fo + c->esize > t->end ? e.fo + c->esize : t->end;
  }
  t->flen = r->mlen;
  if (t->end > r->mlen)
    t->expect = DARRAY_EEOF;
}

/* Operation o as a transfer made now, its outcome by the model. */
static tx_t *tx_new(run_t *r, const op_t *o, int how) {
  const xcase_t *c = r->c;
  tx_t *t = xmalloc(sizeof *t);
  memset(t, 0, sizeof *t);
  t->o = o;
  t->how = how;
  t->disp = r->disp;
  t->write = o->kind == OP_WRITE || o->kind == OP_WRITE_SEC;
  t->section = o->kind == OP_WRITE_SEC || o->kind == OP_READ_SEC;
  t->sync = o->kind == OP_SYNC;
  t->expect = DARRAY_SUCCESS;
  tx_name(t);
  if (t->sync)
    return t;
  t->bytes = (t->section ? box_elems(c->nd, o->count) : c->n) * c->esize;
  t->nb = (t->section ? t->bytes : c->lbytes) + (t->write ? 0 : GUARD);
  t->buf = xmalloc(t->nb);
  t->orig = xmalloc(t->nb);
  fz_fill(t->buf, t->nb, &r->rng);
  memcpy(t->orig, t->buf, (size_t)t->nb);
  if (!t->write)
    expect_read(r, t);
  return t;
}

static void tx_free(tx_t *t) {
  free(t->buf);
  free(t->orig);
  free(t->want);
  free(t->elem);
  free(t);
}

/* The buffer the library is given: NULL for an empty section, if the
 * case says so. */
static void *tx_ptr(const tx_t *t, uint8_t *buf) {
  return t->section && t->bytes == 0 && t->o->null_buf ? NULL : buf;
}

/* A write on the model, with the data it had when made. */
static void tx_effect(run_t *r, const tx_t *t) {
  elem_it_t e = {0};
  while (each_elem(r->c, t, &e))
    model_put(r, e.fo, t->orig + e.bo, r->c->esize);
}

/* t as a blocking call on file f, from buf. */
static int tx_call(const run_t *r, darray_file_t f, const tx_t *t,
                   uint8_t *buf) {
  const op_t *o = t->o;
  void *p = tx_ptr(t, buf);
  if (t->section)
    return t->write
               ? darray_write_section(f, r->a, o->start, o->count, o->order, p)
               : darray_read_section(f, r->a, o->start, o->count, o->order, p);
  return t->write ? darray_write(f, r->a, p) : darray_read(f, r->a, p);
}

/* t posted: its request in t->req. */
static int tx_post(const run_t *r, tx_t *t) {
  const op_t *o = t->o;
  void *p = t->sync ? NULL : tx_ptr(t, t->buf);
  bool b = t->how == HOW_BUF;
  if (t->sync)
    return darray_file_isync(r->f, &t->req);
  if (t->section && t->write)
    return (b ? darray_bwrite_section : darray_iwrite_section)(
        r->f, r->a, o->start, o->count, o->order, p, &t->req);
  if (t->section)
    return darray_iread_section(r->f, r->a, o->start, o->count, o->order, p,
                                &t->req);
  if (t->write)
    return (b ? darray_bwrite : darray_iwrite)(r->f, r->a, p, &t->req);
  return darray_iread(r->f, r->a, p, &t->req);
}

/* A read's buffer byte b is wrong: say which element, or which other
 * byte, it is. */
static void bad_read_byte(const run_t *r, const tx_t *t, int rc, int64_t b) {
  const xcase_t *c = r->c;
  elem_it_t e = {0};
  while (rc == DARRAY_SUCCESS && t->elem[b] && each_elem(c, t, &e))
    if (b >= e.bo && b < e.bo + c->esize) {
      char w[128];
      where(c, t->disp, e.fo, w, sizeof w);
      fz_fail("%s: buffer byte %" PRId64 " is 0x%02x, the file had 0x%02x "
              "at %" PRId64 " (%s) when it was made",
              t->name, b, t->buf[b], t->want[b], e.fo + b - e.bo, w);
    }
  fz_fail("%s%s changed byte %" PRId64 " of the buffer, %s", t->name,
          rc != DARRAY_SUCCESS ? " (failing)" : "", b,
          b >= t->nb - GUARD ? "past its end"
          : t->section       ? "an element"
                             : "a ghost or padding byte");
}

/* t has completed with rc, its message in the file's when msg: the code
 * and the buffer, by the model. */
static void tx_check(const run_t *r, const tx_t *t, int rc, bool msg) {
  const char *m = msg ? darray_file_errmsg(r->f) : "(not kept)";
  fz_trace("  %s (state %d): %s %s", t->name, t->post, darray_err_name(rc), m);
  if (rc != t->expect && !t->write && !t->sync)
    fz_fail("%s returned %s, the model says %s (its bytes end at %" PRId64
            ", the file had %" PRId64 " when it was made): %s",
            t->name, darray_err_name(rc), darray_err_name(t->expect), t->end,
            t->flen, m);
  if (rc != t->expect)
    fz_fail("%s returned %s, the model says %s (copies held before it: "
            "%" PRId64 " bytes): %s",
            t->name, darray_err_name(rc), darray_err_name(t->expect), t->held,
            m);
  if (rc == DARRAY_ELIMIT && msg && t->why == LIM_NB &&
      strstr(m, "darray_nb_buffer_size") == NULL)
    fz_fail("%s was refused for darray_nb_buffer_size, but the message "
            "does not say so: %s",
            t->name, m);
  if (rc == DARRAY_ELIMIT && msg && t->why == LIM_TEMP)
    refused_by_limit(r, r->f, rc, t->name);
  if (t->sync || (t->write && t->how == HOW_BUF))
    return;
  if (t->write) {
    if (memcmp(t->buf, t->orig, (size_t)t->nb) != 0)
      fz_fail("%s changed the caller's buffer", t->name);
    return;
  }
  for (int64_t b = 0; b < t->nb; b++) {
    bool fine = rc == DARRAY_SUCCESS ? t->buf[b] == t->want[b]
                : rc == DARRAY_EEOF  ? t->elem[b] || t->buf[b] == t->orig[b]
                                     : t->buf[b] == t->orig[b];
    if (!fine)
      bad_read_byte(r, t, rc, b);
  }
}

/* The counters of t alone (reset before it). */
static void tx_stats(const run_t *r, const tx_t *t, int rc) {
  if (!t->sync)
    check_stats(r, t->name, t->write, t->section,
                rc == DARRAY_SUCCESS ? t->bytes : -1);
}

/* ------------------------------------------------------------------------ */
/* the operations                                                           */

#include "xfer_async.h"

/* A blocking call: the model changes once it has succeeded. It takes
 * effect after every request posted before it; a write is read back. */
static void blocking(run_t *r, const op_t *o) {
  tx_t *t = tx_new(r, o, HOW_BLOCK);
  darray_file_reset_stats(r->f);
  int rc = tx_call(r, r->f, t, t->buf);
  bool refused = refused_by_limit(r, r->f, rc, t->name);
  if (refused) {
    t->expect = rc;
    t->why = LIM_TEMP;
  }
  if (t->write && rc == DARRAY_SUCCESS)
    tx_effect(r, t);
  t->post = next_state(r);
  if (!refused) /* else it took no effect: nothing follows from it */
    done_upto(r, t->post);
  tx_check(r, t, rc, true);
  tx_stats(r, t, rc);
  check_file(r, t->name);
  bool back = t->write && rc == DARRAY_SUCCESS;
  tx_free(t);
  if (back) {
    op_t rb = *o;
    rb.kind = o->kind == OP_WRITE ? OP_READ : OP_READ_SEC;
    blocking(r, &rb);
  }
}

static void set_disp(run_t *r, const op_t *o) {
  ok(darray_set_displacement(r->a, o->disp), "darray_set_displacement",
     darray_errmsg(r->a));
  r->disp = o->disp; /* requests posted before keep theirs */
}

static void run_op(run_t *r, const op_t *o) {
  switch (o->kind) {
  case OP_WRITE:
  case OP_WRITE_SEC:
  case OP_READ:
  case OP_READ_SEC:
    if (o->how == HOW_BLOCK)
      blocking(r, o);
    else
      post(r, o);
    break;
  case OP_DISP:
    set_disp(r, o);
    break;
  case OP_SYNC:
    if (o->how == HOW_BLOCK)
      sync_op(r);
    else
      post(r, o);
    break;
  case OP_WAIT:
    complete_one(r, o);
    break;
  default:
    complete_all(r, o);
    break;
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &thread_level);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const char *const names[] = {"xfer.dat", "probe.dat"};
  fz_scratch("xfer", names, 2);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static xcase_t c;
  static run_t r;
  fz_in_t in = {data, size, 0};
  memset(&c, 0, sizeof c);
  decode_shape(&in, &c);
  decode_dist(&in, &c);
  decode_orders(&in, &c);
  decode_ops(&in, &c);
  derive(&c);
  c.seed = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++)
    c.seed = (c.seed ^ data[i]) * 1099511628211ull;
  describe(&c);
  fz_show_case();
  r.c = &c;
  r.disp = c.disp;
  r.rng = c.seed;
  make_array(&r);
  make_file(&r);
  start_requests(&r);
  for (int k = 0; k < c.nops; k++)
    run_op(&r, &c.op[k]);
  finish(&r);
  return 0;
}
