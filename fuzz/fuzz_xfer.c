/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_xfer.c - fuzz target: whole transfers on one process, checked
 * against a serial model of the file.
 *
 * The input bytes are decoded into a case: a small array (1-4 dimensions,
 * at most 1 KiB; every element type, opaque elements of 1-24 bytes),
 * BLOCK(k) / CYCLIC(k) / NONE or MULTIPARTITION distributions on the grid
 * 1 x .. x 1, a storage order (C, Fortran or a permutation), a
 * displacement, a memory layout (C or Fortran order, ghosts, padding),
 * hints (back end, strategy, tiny buffer sizes, image piece, pipeline, the
 * romio switches, a temporary-memory limit, the cost model), a file
 * prefilled with a known pattern up to some length (possibly short of the
 * array), and up to four operations: whole-array or section writes and
 * reads, a new displacement, a sync.
 *
 * The model is computed here from the definitions, never by the library:
 * element g lives at disp + esize * (linear index of g in the storage
 * order) in the file, at sum((g[d] + ghost[d]) * mstride[d]) in the one
 * process's buffer (the whole array, extents padded[d] or n[d] + 2
 * ghost[d], in C or Fortran order), and at its dense index in a section
 * buffer. After every call:
 *  - writes succeed, leave the caller's buffer alone and make the file
 *    exactly the model: the new elements, the prefill elsewhere, zeros
 *    where the file grew over a gap; the data then reads back equal;
 *  - reads fail with DARRAY_EEOF exactly when a byte they need is past
 *    the end of the file, and else deliver the model's elements; ghosts,
 *    padding and the guard bytes after the buffer stay untouched either
 *    way, the file is unchanged and the counters show no byte written;
 *  - the counters name a strategy the hints allow (on one process the
 *    extents never interleave, so only a hint yields two-phase), at least
 *    the call's bytes moved, and a largest temporary buffer within the
 *    hint that bounds it (at least an element per buffer).
 * Any difference aborts with the case printed: a finding.
 *
 * The decoding of a case is in xfer_case.h, the model and its checks in
 * xfer_model.h. Build and run: fuzz/run.sh (libFuzzer), or see
 * fuzz/README.md.
 */
#include "darrayio.h"
#include "fuzz_util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/stat.h>

#define MAXD 4
#define MAXOPS 4
#define BUDGET 1024   /* most bytes of an array */
#define MEMCAP 16384  /* most bytes of the local buffer */
#define FILECAP 16384 /* most bytes of the file */
#define GUARD 32      /* bytes after a read buffer, checked untouched */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "xfer_case.h"
#include "xfer_model.h"

/* ------------------------------------------------------------------------ */
/* the operations                                                           */

static void read_whole(run_t *r) {
  const xcase_t *c = r->c;
  int64_t nb = c->lbytes + GUARD, g[MAXD] = {0};
  uint8_t *buf = xmalloc(nb), *orig = xmalloc(nb), *inside = xmalloc(nb);
  memset(inside, 0, (size_t)nb);
  fz_fill(buf, nb, &r->rng);
  memcpy(orig, buf, (size_t)nb);
  bool eof = r->disp + c->abytes > r->mlen;
  darray_file_reset_stats(r->f);
  int rc = darray_read(r->f, r->a, buf);
  if (refused_by_limit(r, rc, "darray_read")) {
    nothing_moved(r, buf, orig, nb, "darray_read");
    free(buf);
    free(orig);
    free(inside);
    return;
  }
  if (rc != (eof ? DARRAY_EEOF : DARRAY_SUCCESS))
    fz_fail("darray_read returned %s (file %" PRId64 " bytes, array ends at "
            "%" PRId64 "): %s",
            darray_err_name(rc), r->mlen, r->disp + c->abytes,
            darray_file_errmsg(r->f));
  do {
    int64_t mo = mem_off(c, g), fo = file_off(r, g);
    memset(inside + mo, 1, (size_t)c->esize);
    if (!eof && memcmp(buf + mo, r->model + fo, (size_t)c->esize) != 0) {
      char w[128];
      where(r, fo, w, sizeof w);
      fz_fail("darray_read: buffer byte %" PRId64 " differs from the file "
              "at %" PRId64 " (%s)",
              mo, fo, w);
    }
  } while (next_index(c->nd, c->g, g));
  for (int64_t b = 0; b < nb; b++)
    if (!inside[b] && buf[b] != orig[b])
      fz_fail("darray_read%s changed byte %" PRId64 " of the buffer, %s",
              eof ? " (failing)" : "", b,
              b >= c->lbytes ? "past its end" : "a ghost or padding byte");
  free(buf);
  free(orig);
  free(inside);
  check_file(r, "darray_read");
  check_stats(r, "darray_read", false, false, eof ? -1 : c->abytes);
}

static void write_whole(run_t *r) {
  const xcase_t *c = r->c;
  int64_t g[MAXD] = {0};
  uint8_t *buf = xmalloc(c->lbytes), *orig = xmalloc(c->lbytes);
  fz_fill(buf, c->lbytes, &r->rng);
  memcpy(orig, buf, (size_t)c->lbytes);
  darray_file_reset_stats(r->f);
  int rc = darray_write(r->f, r->a, buf);
  if (refused_by_limit(r, rc, "darray_write")) {
    nothing_moved(r, buf, orig, c->lbytes, "darray_write");
    free(buf);
    free(orig);
    return;
  }
  ok(rc, "darray_write", darray_file_errmsg(r->f));
  if (memcmp(buf, orig, (size_t)c->lbytes) != 0)
    fz_fail("darray_write changed the caller's buffer");
  do
    model_put(r, file_off(r, g), buf + mem_off(c, g), c->esize);
  while (next_index(c->nd, c->g, g));
  free(buf);
  free(orig);
  check_file(r, "darray_write");
  check_stats(r, "darray_write", true, false, c->abytes);
  read_whole(r);
}

static void read_section(run_t *r, const op_t *o) {
  const xcase_t *c = r->c;
  int64_t ne = box_elems(c->nd, o->count), nb = ne * c->esize + GUARD;
  int64_t i[MAXD] = {0}, g[MAXD], end = 0;
  uint8_t *buf = xmalloc(nb), *orig = xmalloc(nb);
  fz_fill(buf, nb, &r->rng);
  memcpy(orig, buf, (size_t)nb);
  for (int64_t k = 0; k < ne; k++, next_index(c->nd, o->count, i)) {
    for (int d = 0; d < c->nd; d++)
      g[d] = o->start[d] + i[d];
    int64_t e = file_off(r, g) + c->esize;
    end = e > end ? e : end;
  }
  bool eof = end > r->mlen;
  darray_file_reset_stats(r->f);
  int rc = darray_read_section(r->f, r->a, o->start, o->count, o->order,
                               ne == 0 && o->null_buf ? NULL : buf);
  if (refused_by_limit(r, rc, "darray_read_section")) {
    nothing_moved(r, buf, orig, nb, "darray_read_section");
    free(buf);
    free(orig);
    return;
  }
  if (rc != (eof ? DARRAY_EEOF : DARRAY_SUCCESS))
    fz_fail("darray_read_section returned %s (file %" PRId64 " bytes, the "
            "section ends at %" PRId64 "): %s",
            darray_err_name(rc), r->mlen, end, darray_file_errmsg(r->f));
  for (int64_t k = 0; !eof && k < ne; k++, next_index(c->nd, o->count, i)) {
    for (int d = 0; d < c->nd; d++)
      g[d] = o->start[d] + i[d];
    int64_t bo = box_off(c, o->count, o->order, i), fo = file_off(r, g);
    if (memcmp(buf + bo, r->model + fo, (size_t)c->esize) != 0) {
      char w[128];
      where(r, fo, w, sizeof w);
      fz_fail("darray_read_section: buffer byte %" PRId64 " differs from "
              "the file at %" PRId64 " (%s)",
              bo, fo, w);
    }
  }
  for (int64_t b = ne * c->esize; b < nb; b++)
    if (buf[b] != orig[b])
      fz_fail("darray_read_section changed byte %" PRId64 " past the end "
              "of the buffer",
              b);
  free(buf);
  free(orig);
  check_file(r, "darray_read_section");
  check_stats(r, "darray_read_section", false, true, eof ? -1 : ne * c->esize);
}

static void write_section(run_t *r, const op_t *o) {
  const xcase_t *c = r->c;
  int64_t ne = box_elems(c->nd, o->count), nb = ne * c->esize;
  int64_t i[MAXD] = {0}, g[MAXD];
  uint8_t *buf = xmalloc(nb), *orig = xmalloc(nb);
  fz_fill(buf, nb, &r->rng);
  memcpy(orig, buf, (size_t)nb);
  darray_file_reset_stats(r->f);
  int rc = darray_write_section(r->f, r->a, o->start, o->count, o->order,
                                ne == 0 && o->null_buf ? NULL : buf);
  if (refused_by_limit(r, rc, "darray_write_section")) {
    nothing_moved(r, buf, orig, nb, "darray_write_section");
    free(buf);
    free(orig);
    return;
  }
  ok(rc, "darray_write_section", darray_file_errmsg(r->f));
  if (memcmp(buf, orig, (size_t)nb) != 0)
    fz_fail("darray_write_section changed the caller's buffer");
  for (int64_t k = 0; k < ne; k++, next_index(c->nd, o->count, i)) {
    for (int d = 0; d < c->nd; d++)
      g[d] = o->start[d] + i[d];
    model_put(r, file_off(r, g), buf + box_off(c, o->count, o->order, i),
              c->esize);
  }
  free(buf);
  free(orig);
  check_file(r, "darray_write_section");
  check_stats(r, "darray_write_section", true, true, nb);
  read_section(r, o);
}


int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const char *const names[] = {"xfer.dat"};
  fz_scratch("xfer", names, 1);
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
  for (int k = 0; k < c.nops; k++) {
    const op_t *o = &c.op[k];
    switch (o->kind) {
    case OP_WRITE:
      write_whole(&r);
      break;
    case OP_WRITE_SEC:
      write_section(&r, o);
      break;
    case OP_READ:
      read_whole(&r);
      break;
    case OP_READ_SEC:
      read_section(&r, o);
      break;
    case OP_DISP:
      ok(darray_set_displacement(r.a, o->disp), "darray_set_displacement",
         darray_errmsg(r.a));
      r.disp = o->disp;
      break;
    default:
      ok(darray_file_sync(r.f), "darray_file_sync", darray_file_errmsg(r.f));
      check_file(&r, "darray_file_sync");
      break;
    }
  }
  ok(darray_file_close(&r.f), "darray_file_close", "");
  ok(darray_free(&r.a), "darray_free", "");
  return 0;
}
