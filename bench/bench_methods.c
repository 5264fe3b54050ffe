/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_methods.c - the ways of moving one pattern's bytes: the table of
 * methods, the MPI-IO and POSIX ones (bench_darrayio.c: darrayio's).
 *
 *   darrayio-auto/-direct/-sieve/-twophase/-rows/-static/-groups
 *                  darray_write/darray_read on the pattern's description,
 *                  one call per dump (multi: per array) after
 *                  darray_set_displacement; the strategy forced by the
 *                  darray_strategy hint, --hints added (and a variant's
 *                  own, "darrayio-direct@k=v;k=v")
 *   mpiio-l0       one MPI_File_write_at/read_at per contiguous run
 *   mpiio-l2       file view + one MPI_File_write_at/read_at per dump
 *                  (multi: per array)
 *   mpiio-l3       file view + one MPI_File_write_at_all/read_at_all per
 *                  dump (multi: per array), default hints
 *   mpiio-l3-nocb  the same with romio_cb_write/romio_cb_read = disable
 *   posix-l0       one pwrite/pread per contiguous run
 *   reference      the same bytes, rank 0 alone, one pwrite/pread per dump
 *   conforming     the same bytes, each rank one contiguous stretch of every
 *                  dump, one pwrite/pread per dump
 *   darrayio-npz   darrayio-auto on a .npz dataset (member "u", CRC-32
 *                  computed by the write call, headers written at close,
 *                  checked by the read call unless darray_verify_crc=disable):
 *                  one-dump patterns moved by whole-array calls only
 *   darrayio-async darray_iwrite/darray_iread (or the section calls) posted,
 *                  one per array of the step, the compute phase, one
 *                  darray_wait_all (--compute); under --fsync a
 *                  darray_file_isync posted with each dump
 *   mpiio-l3-async MPI_File_iwrite_at_all/iread_at_all on mpiio-l3's view
 *                  (one per array), the compute phase, MPI_Wait (then
 *                  MPI_File_sync under --fsync: MPI has no nonblocking
 *                  sync); not for slabs
 *
 * Under --fsync every blocking method syncs each dump after writing it
 * (darray_file_sync, MPI_File_sync, fsync), inside the timed region.
 *
 * A run is contiguous both in the file and in memory (BTIO "simple" writes
 * one x-row per call, which is such a run).
 *
 * The slab sweep (pattern slabs) moves each dump in steps, one slab per
 * rank and step: darrayio by darray_write_section/darray_read_section of
 * the slab; MPI-IO levels 2 and 3 by a subarray view of the slab, set at
 * every step, and one call; level 0 by the slab's runs; the reference and
 * the conforming split by the step's bytes (every rank's slab of the step:
 * whole planes, one stretch per block of the slowest dimension), rank 0
 * alone or split evenly, one pwrite/pread per stretch they touch.
 *
 * The K arrays of multi (one dump) are moved in one step, one call per
 * array at its own displacement and from its own part of the buffer, by
 * the methods that make a call per array; the level-0 methods make one
 * call per run of every array, the reference and the conforming split
 * one call per stretch of the whole file (the arrays are adjacent).
 */
#include "bench.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t bench_dump_bytes(const bench_t *b) {
  return b->p.dump_elems * b->p.esize;
}

/* Array k of dump d: its byte displacement in the file, its place in the
 * method's buffer (the pattern's buffer holds the arrays one after
 * another, buf_elems / narrays elements each). */
int64_t bench_array_disp(const bench_t *b, int dump, int k) {
  return ((int64_t)dump * b->p.narrays + k) * b->p.array_elems * b->p.esize;
}

void *bench_array_buf(const bench_t *b, const mstate_t *s, int k) {
  return (char *)s->buf + k * (b->p.buf_elems / b->p.narrays) * b->p.esize;
}

/* ---- MPI-IO -------------------------------------------------------------- */

static int mpi_fail(mstate_t *s, const char *what, int err) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, msg, &len);
  snprintf(s->why, sizeof s->why, "%.40s: %.200s", what, msg);
  return -1;
}

static int mpi_open(bench_t *b, mstate_t *s, int write, int view, int nocb) {
  MPI_Info info = MPI_INFO_NULL;
  if (nocb)
    info = bench_info("romio_cb_write=disable;romio_cb_read=disable");
  int amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;
  int err = MPI_File_open(MPI_COMM_WORLD, s->path, amode, info, &s->fh);
  if (err == MPI_SUCCESS && view && !b->p.slab) /* slabs: one per step */
    err = MPI_File_set_view(s->fh, 0, b->p.etype, b->p.ftype, "native", info);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_open/set_view", err);
}

static int l0_open(bench_t *b, mstate_t *s, int w) {
  return mpi_open(b, s, w, 0, 0);
}
static int l2_open(bench_t *b, mstate_t *s, int w) {
  return mpi_open(b, s, w, 1, 0);
}
static int l3nocb_open(bench_t *b, mstate_t *s, int w) {
  return mpi_open(b, s, w, 1, 1);
}

typedef struct l0ctx {
  mstate_t *s;
  int write;
  int64_t disp;
} l0ctx_t;

static int l0_run(void *ctx, int64_t foff, int64_t moff, int64_t len) {
  l0ctx_t *c = ctx;
  char *p = (char *)c->s->buf + moff;
  MPI_Status st;
  int err = c->write ? MPI_File_write_at(c->s->fh, c->disp + foff, p, (int)len,
                                         MPI_BYTE, &st)
                     : MPI_File_read_at(c->s->fh, c->disp + foff, p, (int)len,
                                        MPI_BYTE, &st);
  c->s->calls++;
  return err == MPI_SUCCESS ? 0 : mpi_fail(c->s, "MPI_File_*_at", err);
}

static int l0_xfer(bench_t *b, mstate_t *s, int write, int dump, int step) {
  (void)step; /* the pattern's box is the step's */
  l0ctx_t c = {s, write, dump * bench_dump_bytes(b)};
  return bench_runs(&b->p, l0_run, &c);
}

/*
 * Slabs, levels 2 and 3: the view of the step, a subarray of the slab in
 * the global array (MPI_File_set_view is collective: a rank with no slab
 * left sets a view of plain elements), then the slab's elements from the
 * dense slab buffer at view offset 0: one independent call (none for an
 * empty slab) or one collective call (a zero-count one for an empty slab).
 * Making the type and setting the view are timed with the call: an
 * out-of-core program pays them at every slab.
 */
static int slab_xfer(bench_t *b, mstate_t *s, int write, int dump, int coll) {
  const pattern_t *p = &b->p;
  int64_t n = p->count[0] * p->count[1] * p->count[2];
  MPI_Datatype ft = p->etype;
  MPI_Status st;
  int err;
  if (n > INT_MAX) {
    snprintf(s->why, sizeof s->why, "a slab of %lld elements is too large "
             "for an MPI count", (long long)n);
    return -1;
  }
  if (n > 0) {
    int gs[3], sub[3], start[3];
    for (int d = 0; d < 3; d++) {
      gs[d] = (int)p->gsize[d];
      sub[d] = (int)p->count[d];
      start[d] = (int)p->start[d];
    }
    MPI_Type_create_subarray(3, gs, sub, start, MPI_ORDER_C, p->etype, &ft);
    MPI_Type_commit(&ft);
  }
  err = MPI_File_set_view(s->fh, dump * bench_dump_bytes(b), p->etype, ft,
                          "native", MPI_INFO_NULL);
  if (n > 0)
    MPI_Type_free(&ft);
  if (err != MPI_SUCCESS)
    return mpi_fail(s, "MPI_File_set_view", err);
  if (n == 0 && !coll)
    return 0;
  if (coll)
    err = write ? MPI_File_write_at_all(s->fh, 0, s->buf, (int)n, p->etype, &st)
                : MPI_File_read_at_all(s->fh, 0, s->buf, (int)n, p->etype, &st);
  else
    err = write ? MPI_File_write_at(s->fh, 0, s->buf, (int)n, p->etype, &st)
                : MPI_File_read_at(s->fh, 0, s->buf, (int)n, p->etype, &st);
  s->calls++;
  return err == MPI_SUCCESS ? 0
                            : mpi_fail(s, coll ? "MPI_File_*_at_all"
                                               : "MPI_File_*_at", err);
}

/* Levels 2 and 3: the view tiles the file with one array per tile (the
 * darray type spans one whole array), so array k of dump d starts after
 * d * narrays + k tiles of this rank's elements (offsets count etypes):
 * the view at the array's displacement, without setting it again. */
static MPI_Offset view_off(const bench_t *b, int dump, int k) {
  return ((MPI_Offset)dump * b->p.narrays + k) * b->p.local_elems;
}

static int l2_xfer(bench_t *b, mstate_t *s, int write, int dump, int step) {
  (void)step;
  if (b->p.slab)
    return slab_xfer(b, s, write, dump, 0);
  int err = MPI_SUCCESS;
  for (int k = 0; k < b->p.narrays && err == MPI_SUCCESS; k++) {
    MPI_Offset off = view_off(b, dump, k);
    void *buf = bench_array_buf(b, s, k);
    MPI_Status st;
    err = write ? MPI_File_write_at(s->fh, off, buf, 1, b->p.mtype, &st)
                : MPI_File_read_at(s->fh, off, buf, 1, b->p.mtype, &st);
    s->calls++;
  }
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_*_at", err);
}

static int l3_xfer(bench_t *b, mstate_t *s, int write, int dump, int step) {
  (void)step;
  if (b->p.slab)
    return slab_xfer(b, s, write, dump, 1);
  int err = MPI_SUCCESS;
  for (int k = 0; k < b->p.narrays && err == MPI_SUCCESS; k++) {
    MPI_Offset off = view_off(b, dump, k);
    void *buf = bench_array_buf(b, s, k);
    MPI_Status st;
    err = write ? MPI_File_write_at_all(s->fh, off, buf, 1, b->p.mtype, &st)
                : MPI_File_read_at_all(s->fh, off, buf, 1, b->p.mtype, &st);
    s->calls++;
  }
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_*_at_all", err);
}

/* mpiio-l3-async: one nonblocking collective per dump (multi: per array)
 * on the view (the slab sweep's per-step views are not offered). */
static int l3a_open(bench_t *b, mstate_t *s, int w) {
  if (b->p.slab) {
    snprintf(s->why, sizeof s->why, "not offered for slabs");
    return BENCH_UNAVAILABLE;
  }
  return mpi_open(b, s, w, 1, 0);
}

static int l3a_post(bench_t *b, mstate_t *s, int write, int dump, int step) {
  (void)step;
  int err = MPI_SUCCESS;
  s->nreq = 0;
  for (int k = 0; k < b->p.narrays && err == MPI_SUCCESS; k++) {
    MPI_Offset off = view_off(b, dump, k);
    void *buf = bench_array_buf(b, s, k);
    MPI_Request *req = &s->mreq[s->nreq];
    err = write ? MPI_File_iwrite_at_all(s->fh, off, buf, 1, b->p.mtype, req)
                : MPI_File_iread_at_all(s->fh, off, buf, 1, b->p.mtype, req);
    s->nreq += err == MPI_SUCCESS;
    s->calls++;
  }
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_i*_at_all", err);
}

static int mpi_sync(bench_t *b, mstate_t *s) {
  (void)b;
  int err = MPI_File_sync(s->fh);
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_sync", err);
}

static int l3a_complete(bench_t *b, mstate_t *s, int write) {
  /* one MPI_Wait per request: GCC takes MPICH's MPI_STATUSES_IGNORE
   * for an array of size 0 passed to MPI_Waitall */
  int err = MPI_SUCCESS;
  for (int k = 0; k < s->nreq; k++) {
    int e = MPI_Wait(&s->mreq[k], MPI_STATUS_IGNORE);
    err = err == MPI_SUCCESS ? e : err;
  }
  s->nreq = 0;
  if (err != MPI_SUCCESS)
    return mpi_fail(s, "MPI_Wait", err);
  return write && b->o.fsync ? mpi_sync(b, s) : 0;
}

static int mpi_close(bench_t *b, mstate_t *s) {
  (void)b;
  return MPI_File_close(&s->fh) == MPI_SUCCESS ? 0 : -1;
}

/* ---- POSIX --------------------------------------------------------------- */

/* The reference opens no file on ranks other than 0. */
static int px_open(bench_t *b, mstate_t *s, int write) {
  s->fd = -1;
  if (s->m->stretch == 1 && b->rank != 0)
    return 0;
  s->fd = open(s->path, write ? O_RDWR | O_CREAT : O_RDONLY, 0644);
  if (s->fd < 0)
    snprintf(s->why, sizeof s->why, "cannot open %.200s", s->path);
  return s->fd < 0 ? -1 : 0;
}

static int px_run(void *ctx, int64_t foff, int64_t moff, int64_t len) {
  l0ctx_t *c = ctx;
  char *p = (char *)c->s->buf + moff;
  c->s->calls++;
  return c->write ? bench_pwrite_all(c->s->fd, p, len, c->disp + foff)
                  : bench_pread_all(c->s->fd, p, len, c->disp + foff);
}

static int px_l0_xfer(bench_t *b, mstate_t *s, int write, int dump,
                      int step) {
  (void)step; /* the pattern's box is the step's */
  l0ctx_t c = {s, write, dump * bench_dump_bytes(b)};
  return bench_runs(&b->p, px_run, &c);
}

/* reference and conforming: this rank's share [lo, hi) of the step, one
 * call per stretch of the file it touches (one, but for slabs). */
static int px_stretch_xfer(bench_t *b, mstate_t *s, int write, int dump,
                           int step) {
  (void)step;
  l0ctx_t c = {s, write, dump * bench_dump_bytes(b)};
  return bench_pieces(&b->p, s->lo, s->hi, px_run, &c);
}

static int px_sync(bench_t *b, mstate_t *s) {
  (void)b;
  if (s->fd >= 0 && fsync(s->fd) != 0) {
    snprintf(s->why, sizeof s->why, "fsync failed");
    return -1;
  }
  return 0;
}

static int px_close(bench_t *b, mstate_t *s) {
  (void)b;
  int rc = s->fd >= 0 ? close(s->fd) : 0;
  s->fd = -1;
  return rc ? -1 : 0;
}

/* ---- the table ----------------------------------------------------------- */

const method_t bench_methods[] = {
    {"darrayio-auto", 0, bench_da_auto, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-direct", 0, bench_da_direct, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-sieve", 0, bench_da_sieve, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-twophase", 0, bench_da_twophase, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-rows", 0, bench_da_rows, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-static", 0, bench_da_static, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-groups", 0, bench_da_groups, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-mapped", 0, bench_da_mapped, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, NULL, NULL, bench_da_sync, NULL},
    {"mpiio-l0", 0, l0_open, l0_xfer, mpi_close, NULL, NULL, 0, NULL, NULL,
     mpi_sync, NULL},
    {"mpiio-l2", 0, l2_open, l2_xfer, mpi_close, NULL, NULL, 0, NULL, NULL,
     mpi_sync, NULL},
    {"mpiio-l3", 0, l2_open, l3_xfer, mpi_close, NULL, NULL, 0, NULL, NULL,
     mpi_sync, NULL},
    {"mpiio-l3-nocb", 0, l3nocb_open, l3_xfer, mpi_close, NULL, NULL, 0,
     NULL, NULL, mpi_sync, NULL},
    {"posix-l0", 0, px_open, px_l0_xfer, px_close, NULL, NULL, 0, NULL, NULL,
     px_sync, NULL},
    {"reference", 1, px_open, px_stretch_xfer, px_close, NULL, NULL, 0, NULL,
     NULL, px_sync, NULL},
    {"conforming", 2, px_open, px_stretch_xfer, px_close, NULL, NULL, 0,
     NULL, NULL, px_sync, NULL},
    {"darrayio-npz", 0, bench_da_npz, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 1, NULL, NULL, bench_da_sync, NULL},
    {"darrayio-async", 0, bench_da_auto, bench_da_xfer, bench_da_close,
     bench_da_stats, NULL, 0, bench_da_post, bench_da_complete, bench_da_sync,
     "darrayio-auto"},
    {"mpiio-l3-async", 0, l3a_open, l3_xfer, mpi_close, NULL, NULL, 0,
     l3a_post, l3a_complete, mpi_sync, "mpiio-l3"},
};
const int bench_nmethods = sizeof bench_methods / sizeof bench_methods[0];

/* The next name of a --methods list at *cur (split at commas outside
 * brackets, in place), or NULL at its end. */
char *bench_next_method(char **cur) {
  char *t = *cur;
  int depth = 0;
  if (t == NULL || *t == '\0')
    return NULL;
  char *p = t;
  for (; *p != '\0' && (*p != ',' || depth > 0); p++)
    depth += *p == '[' ? 1 : *p == ']' && depth > 0 ? -1 : 0;
  *cur = *p == ',' ? p + 1 : p;
  *p = '\0';
  return t;
}

/* A method by name. "darrayio-X[k=v;k=v]" (or "darrayio-X@k=v;k=v") is
 * darrayio-X with hints of its own (added after --hints), so that one
 * rotated run can compare settings of one strategy; such variants are
 * made once per name, which RESULT lines keep. */
const method_t *bench_method(const char *name) {
  static method_t variant[BENCH_MAX_METHODS];
  static int nvariants;
  const char *at = strchr(name, '@'), *br = strchr(name, '[');
  size_t len = strlen(name);
  if (br != NULL && (at == NULL || br < at)) {
    if (len < 2 || name[len - 1] != ']' || strchr(br + 1, '[') != NULL)
      return NULL; /* one bracketed list, at the end */
    at = br;
  }
  size_t base = at ? (size_t)(at - name) : len;
  for (int i = 0; at && i < nvariants; i++)
    if (!strcmp(variant[i].name, name))
      return &variant[i];
  for (int i = 0; i < bench_nmethods; i++) {
    const method_t *m = &bench_methods[i];
    if (strlen(m->name) != base || strncmp(m->name, name, base) != 0)
      continue;
    if (!at)
      return m;
    if (strncmp(name, "darrayio-", 9) != 0 || at[1] == '\0' ||
        nvariants == BENCH_MAX_METHODS)
      return NULL; /* hints are darrayio's */
    if (at == br && at[1] == ']')
      return NULL; /* no hints in the brackets */
    variant[nvariants] = *m;
    variant[nvariants].name = strdup(name);
    if (at == br) { /* without the ']'; ',' separates hints there too */
      char *h = strndup(at + 1, len - base - 2);
      for (char *c = h; c != NULL && *c != '\0'; c++)
        *c = *c == ',' ? ';' : *c;
      variant[nvariants].hints = h;
    } else {
      variant[nvariants].hints = variant[nvariants].name + base + 1;
    }
    return &variant[nvariants++];
  }
  return NULL;
}
