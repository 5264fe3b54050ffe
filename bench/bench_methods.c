/*
 * bench_methods.c - the ways of moving one pattern's bytes.
 *
 *   darrayio-auto/-direct/-sieve/-twophase
 *                  darray_write/darray_read on the pattern's description,
 *                  one call per dump after darray_set_displacement; the
 *                  strategy forced by the darray_strategy hint, --hints added
 *   mpiio-l0       one MPI_File_write_at/read_at per contiguous run
 *   mpiio-l2       file view + one MPI_File_write_at/read_at per dump
 *   mpiio-l3       file view + one MPI_File_write_at_all/read_at_all per
 *                  dump, default hints
 *   mpiio-l3-nocb  the same with romio_cb_write/romio_cb_read = disable
 *   posix-l0       one pwrite/pread per contiguous run
 *   reference      the same bytes, rank 0 alone, one pwrite/pread per dump
 *   conforming     the same bytes, each rank one contiguous stretch of every
 *                  dump, one pwrite/pread per dump
 *
 * A run is contiguous both in the file and in memory (BTIO "simple" writes
 * one x-row per call, which is such a run).
 */
#include "bench.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int64_t dump_bytes(const bench_t *b) {
  return b->p.dump_elems * b->p.esize;
}

/* ---- darrayio ------------------------------------------------------------ */

/* Open with darray_strategy = strategy (NULL: leave it to darrayio). A
 * strategy this build does not know makes the method unavailable. */
static int da_open_with(bench_t *b, mstate_t *s, int write,
                        const char *strategy) {
  MPI_Info info = bench_info(b->o.hints);
  if (strategy)
    MPI_Info_set(info, "darray_strategy", strategy);
  int mode = write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE : DARRAY_MODE_RDONLY;
  int rc = darray_file_open(MPI_COMM_WORLD, s->path, mode, info, &s->df);
  MPI_Info_free(&info);
  if (rc == DARRAY_EHINT && strategy &&
      strstr(darray_errmsg(NULL), "darray_strategy")) {
    snprintf(s->why, sizeof s->why, "this darrayio has no strategy '%s' (%s)",
             strategy, darray_errmsg(NULL));
    return BENCH_UNAVAILABLE;
  }
  if (rc) {
    snprintf(s->why, sizeof s->why, "darray_file_open: %s",
             darray_errmsg(NULL));
    return -1;
  }
  char v[64];
  darray_file_get_hint(s->df, "darray_strategy", v, sizeof v);
  if (strcmp(v, strategy ? strategy : "auto") != 0) {
    snprintf(s->why, sizeof s->why, "darray_strategy is %s, not %s "
             "(DARRAYIO_HINTS?)", v, strategy ? strategy : "auto");
    darray_file_close(&s->df);
    return BENCH_UNAVAILABLE;
  }
  darray_file_reset_stats(s->df);
  if (b->o.explain && !strategy && b->rank == 0 && !b->explained[write]) {
    b->explained[write] = 1;
    darray_explain(s->df, b->p.darr, write, stdout);
    fflush(stdout);
  }
  return 0;
}

static int da_auto(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, NULL);
}
static int da_direct(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "direct");
}
static int da_sieve(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "sieve");
}
static int da_twophase(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "twophase");
}

static int da_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  darray_set_displacement(b->p.darr, dump * dump_bytes(b));
  int rc = write ? darray_write(s->df, b->p.darr, s->buf)
                 : darray_read(s->df, b->p.darr, s->buf);
  if (rc)
    snprintf(s->why, sizeof s->why, "%s: %s",
             write ? "darray_write" : "darray_read", darray_file_errmsg(s->df));
  return rc ? -1 : 0;
}

static int da_close(bench_t *b, mstate_t *s) {
  (void)b;
  return darray_file_close(&s->df) ? -1 : 0;
}

static void da_stats(bench_t *b, mstate_t *s, int write, counters_t *c) {
  darray_stats_t st;
  (void)b;
  darray_file_get_stats(s->df, &st);
  *c = (counters_t){write ? st.write_calls : st.read_calls,
                    st.bytes_exchanged, st.meta_bytes_exchanged, st.cycles,
                    st.peak_temp_bytes};
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
  if (err == MPI_SUCCESS && view)
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

static int l0_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  l0ctx_t c = {s, write, dump * dump_bytes(b)};
  return bench_runs(&b->p, l0_run, &c);
}

/* Levels 2 and 3: the view tiles the file with one dump per tile, so dump
 * d starts after d tiles of this rank's elements (offsets count etypes). */
static int l2_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  MPI_Offset off = (MPI_Offset)dump * b->p.local_elems;
  MPI_Status st;
  int err = write ? MPI_File_write_at(s->fh, off, s->buf, 1, b->p.mtype, &st)
                  : MPI_File_read_at(s->fh, off, s->buf, 1, b->p.mtype, &st);
  s->calls++;
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_*_at", err);
}

static int l3_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  MPI_Offset off = (MPI_Offset)dump * b->p.local_elems;
  MPI_Status st;
  int err = write
                ? MPI_File_write_at_all(s->fh, off, s->buf, 1, b->p.mtype, &st)
                : MPI_File_read_at_all(s->fh, off, s->buf, 1, b->p.mtype, &st);
  s->calls++;
  return err == MPI_SUCCESS ? 0 : mpi_fail(s, "MPI_File_*_at_all", err);
}

static int mpi_close(bench_t *b, mstate_t *s) {
  (void)b;
  return MPI_File_close(&s->fh) == MPI_SUCCESS ? 0 : -1;
}

/* ---- POSIX --------------------------------------------------------------- */

/* Stretch methods where this rank has nothing open no file. */
static int px_open(bench_t *b, mstate_t *s, int write) {
  (void)b;
  s->fd = -1;
  if (s->m->stretch && s->hi <= s->lo)
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

static int px_l0_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  l0ctx_t c = {s, write, dump * dump_bytes(b)};
  return bench_runs(&b->p, px_run, &c);
}

/* reference and conforming: this rank's stretch [lo, hi) of the dump. */
static int px_stretch_xfer(bench_t *b, mstate_t *s, int write, int dump) {
  if (s->hi <= s->lo)
    return 0;
  l0ctx_t c = {s, write, dump * dump_bytes(b)};
  return px_run(&c, s->lo * b->p.esize, 0, (s->hi - s->lo) * b->p.esize);
}

static int px_close(bench_t *b, mstate_t *s) {
  (void)b;
  int rc = s->fd >= 0 ? close(s->fd) : 0;
  s->fd = -1;
  return rc ? -1 : 0;
}

/* ---- the table ----------------------------------------------------------- */

const method_t bench_methods[] = {
    {"darrayio-auto", 0, da_auto, da_xfer, da_close, da_stats},
    {"darrayio-direct", 0, da_direct, da_xfer, da_close, da_stats},
    {"darrayio-sieve", 0, da_sieve, da_xfer, da_close, da_stats},
    {"darrayio-twophase", 0, da_twophase, da_xfer, da_close, da_stats},
    {"mpiio-l0", 0, l0_open, l0_xfer, mpi_close, NULL},
    {"mpiio-l2", 0, l2_open, l2_xfer, mpi_close, NULL},
    {"mpiio-l3", 0, l2_open, l3_xfer, mpi_close, NULL},
    {"mpiio-l3-nocb", 0, l3nocb_open, l3_xfer, mpi_close, NULL},
    {"posix-l0", 0, px_open, px_l0_xfer, px_close, NULL},
    {"reference", 1, px_open, px_stretch_xfer, px_close, NULL},
    {"conforming", 2, px_open, px_stretch_xfer, px_close, NULL},
};
const int bench_nmethods = sizeof bench_methods / sizeof bench_methods[0];

const method_t *bench_method(const char *name) {
  for (int i = 0; i < bench_nmethods; i++)
    if (!strcmp(bench_methods[i].name, name))
      return &bench_methods[i];
  return NULL;
}
