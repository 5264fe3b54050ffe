/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_model.h - part of fuzz_xfer.c (header only, included once): the
 * library's handles for one case and the serial model of the file, kept
 * from the definitions of include/darrayio.h (offsets in the file, in the
 * buffer and in a section's buffer), with the checks of the file and of
 * the counters against it.
 *
 * The model is serial: every call and request takes effect, in the order
 * it was made or posted, on the model when it is made or posted, and the
 * model after each of them is kept (a state). Requests on one file take
 * effect in post order, and a blocking call after those posted before it
 * (darrayio.h, "Nonblocking reads and writes"), so once a request has
 * completed, or a blocking call has returned, the file has passed the
 * state after it (the floor); requests posted later may be under way.
 * The file then holds, at every byte, what one of the states from the
 * floor to the last has there, and a length between theirs: nothing else
 * is known (a write under way has written some of its bytes). With no
 * request under way that is the last state, exactly.
 */
#ifndef DARRAYIO_FUZZ_XFER_MODEL_H
#define DARRAYIO_FUZZ_XFER_MODEL_H

/* ------------------------------------------------------------------------ */
/* the run: the library's handles and the model of the file                 */

struct tx;

typedef struct run {
  xcase_t *c;
  darray_t a;
  darray_file_t f;
  darray_file_t probe;    /* the second file (xfer_async.h), or NULL */
  int64_t disp;           /* the array's displacement now */
  uint8_t model[FILECAP]; /* the last state: zeros past mlen */
  int64_t mlen;
  uint8_t state[MAXPOST + 1][FILECAP]; /* after the first k calls */
  int64_t slen[MAXPOST + 1];
  int nposts, floor;       /* calls made; the last one known done */
  struct tx *pend[MAXOPS]; /* the pending requests, in post order */
  int npend;
  int64_t held;   /* bytes the pending buffered writes hold */
  int64_t nb_cap; /* darray_nb_buffer_size */
  uint64_t rng;
} run_t;

static void ok(int rc, const char *what, const char *msg) {
  if (rc != DARRAY_SUCCESS)
    fz_fail("%s returned %s: %s", what, darray_err_name(rc), msg);
}

/* darray_temp_limit may be too small for a call: the library then
 * refuses it (DARRAY_ELIMIT) before any byte moves. Legal only with the
 * hint set and named in f's message (or elements too large for MPI's
 * counts); the caller then checks that nothing moved. */
static bool refused_by_limit(const run_t *r, darray_file_t f, int rc,
                             const char *what) {
  if (rc != DARRAY_ELIMIT)
    return false;
  const char *msg = darray_file_errmsg(f);
  if (strstr(msg, "too large for two-phase") == NULL &&
      (r->c->hint[H_TEMP_LIMIT] < 0 ||
       strstr(msg, "darray_temp_limit") == NULL))
    fz_fail("%s returned DARRAY_ELIMIT without a limit to name: %s", what, msg);
  return true;
}

static void *xmalloc(int64_t n) {
  void *p = malloc(n > 0 ? (size_t)n : 1);
  if (p == NULL)
    fz_fail("out of memory for %" PRId64 " bytes", n);
  return p;
}

/* Element g's offset in the file at displacement disp. */
static int64_t file_off(const xcase_t *c, int64_t disp, const int64_t g[]) {
  int64_t off = disp;
  for (int d = 0; d < c->nd; d++)
    off += g[d] * c->fstride[d];
  return off;
}

static int64_t mem_off(const xcase_t *c, const int64_t g[]) {
  int64_t off = 0;
  for (int d = 0; d < c->nd; d++)
    off += (g[d] + c->ghost[d]) * c->mstride[d];
  return off;
}

/* Offset of index i of a dense box of extents count in order. */
static int64_t box_off(const xcase_t *c, const int64_t count[],
                       darray_order_t order, const int64_t i[]) {
  int64_t off = 0, s = c->esize;
  for (int k = 0; k < c->nd; k++) {
    int d = order == DARRAY_ORDER_FORTRAN ? k : c->nd - 1 - k;
    off += i[d] * s;
    s *= count[d];
  }
  return off;
}

/* The next index of a box in C order; false after the last. */
static bool next_index(int nd, const int64_t count[], int64_t i[]) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++i[d] < count[d])
      return true;
    i[d] = 0;
  }
  return false;
}

static int64_t box_elems(int nd, const int64_t count[]) {
  int64_t n = 1;
  for (int d = 0; d < nd; d++)
    n *= count[d];
  return n;
}

/* The global index at file offset off, at displacement disp, for
 * reports. */
static void where(const xcase_t *c, int64_t disp, int64_t off, char *buf,
                  size_t n) {
  int64_t rel = off - disp;
  if (rel < 0 || rel >= c->abytes) {
    snprintf(buf, n, "outside the array [%" PRId64 ", %" PRId64 ")", disp,
             disp + c->abytes);
    return;
  }
  size_t k =
      (size_t)snprintf(buf, n, "byte %" PRId64 " of element (", rel % c->esize);
  for (int d = 0; d < c->nd && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%" PRId64, d ? "," : "",
                          rel / c->fstride[d] % c->g[d]);
  if (k < n)
    snprintf(buf + k, n - k, ")");
}

/* Whether byte o of the file may be b: some state from the floor on has
 * it (past a state's length, zeros: a write under way may have grown the
 * file over a gap first). */
static bool byte_ok(const run_t *r, int64_t o, uint8_t b) {
  if (r->model[o] == b)
    return true;
  for (int k = r->floor; k < r->nposts; k++)
    if (r->state[k][o] == b)
      return true;
  return false;
}

/* The file must be one of the states from the floor on, byte for byte,
 * and its length between theirs: with no request under way, exactly the
 * model. */
static void check_file(const run_t *r, const char *after) {
  static uint8_t bytes[FILECAP + 64];
  int fd = open(fz_files[0], O_RDONLY);
  ssize_t got = fd < 0 ? -1 : pread(fd, bytes, sizeof bytes, 0);
  if (fd >= 0)
    close(fd);
  if (got < 0)
    fz_fail("cannot read back %s", fz_files[0]);
  int64_t lo = r->slen[r->floor], n = (int64_t)got;
  if (n < lo || n > r->mlen)
    fz_fail("after %s the file has %" PRId64 "%s bytes, the model %" PRId64
            " (%d of %d calls known done: from %" PRId64 ")",
            after, n, got == (ssize_t)sizeof bytes ? " or more" : "", r->mlen,
            r->floor, r->nposts, lo);
  for (int64_t o = 0; o < n; o++)
    if (!byte_ok(r, o, bytes[o])) {
      char w[128];
      where(r->c, r->disp, o, w, sizeof w);
      fz_fail("after %s file byte %" PRId64 " (%s, at today's displacement) "
              "is 0x%02x, the model says 0x%02x%s (%d of %d calls known "
              "done)",
              after, o, w, bytes[o], r->model[o],
              r->floor < r->nposts ? " or an earlier state's" : "", r->floor,
              r->nposts);
    }
}

/* A call made or a request posted: the model after it is the next state. */
static int next_state(run_t *r) {
  if (r->nposts == MAXPOST)
    fz_fail("more than %d calls", MAXPOST);
  r->nposts++;
  memcpy(r->state[r->nposts], r->model, sizeof r->model);
  r->slen[r->nposts] = r->mlen;
  return r->nposts;
}

/* Every call up to k has taken effect. */
static void done_upto(run_t *r, int k) {
  r->floor = k > r->floor ? k : r->floor;
}

static int64_t hint_value(const run_t *r, const char *key) {
  char v[64];
  ok(darray_file_get_hint(r->f, key, v, sizeof v), "darray_file_get_hint",
     darray_file_errmsg(r->f));
  return strtoll(v, NULL, 10);
}

enum { ST_DIRECT = 1, ST_TWOPHASE = 2, ST_SIEVE = 4, ST_MAPPED = 8 };

/* The strategies the hints allow for a call on one process, by the rules
 * of darray_file_open's documentation: a forced strategy or two-phase
 * forced by romio_cb_*; else (one process never interleaves) sieving when
 * romio_ds_* enables it, direct runs when it disables it, and, by the
 * cost model, direct runs for a whole array (no holes) or either for a
 * section; the file's pages mapped compete by the cost model unless
 * romio_ds_* enables sieving (its switch stays automatic). */
static int allowed(const xcase_t *c, bool write, bool section) {
  static const int forced[] = {0, ST_DIRECT, ST_TWOPHASE, ST_SIEVE};
  int s = c->hint[H_STRATEGY] > 0 ? forced[c->hint[H_STRATEGY]] : 0;
  bool cb = c->hint[write ? H_CB_WRITE : H_CB_READ] == 1;
  int ds = c->hint[write ? H_DS_WRITE : H_DS_READ];
  if (s != 0 || cb)
    return s | (cb ? ST_TWOPHASE : 0);
  if (ds == 1)
    return ST_SIEVE;
  if (ds == 2)
    return ST_DIRECT | ST_MAPPED;
  return section ? ST_DIRECT | ST_SIEVE | ST_MAPPED : ST_DIRECT | ST_MAPPED;
}

/* The counters of one call: bytes is what the call had to move (-1: it
 * failed). */
static void check_stats(const run_t *r, const char *call, bool write,
                        bool section, int64_t bytes) {
  darray_stats_t st;
  ok(darray_file_get_stats(r->f, &st), "darray_file_get_stats", "");
  if (!write && (st.bytes_written != 0 || st.write_calls != 0))
    fz_fail("%s wrote %" PRId64 " bytes in %" PRId64 " calls", call,
            st.bytes_written, st.write_calls);
  if (bytes < 0)
    return;
  int k = strcmp(st.strategy, "direct") == 0     ? ST_DIRECT
          : strcmp(st.strategy, "twophase") == 0 ? ST_TWOPHASE
          : strcmp(st.strategy, "sieve") == 0    ? ST_SIEVE
          : strcmp(st.strategy, "mapped") == 0   ? ST_MAPPED
                                                 : 0;
  if ((k & allowed(r->c, write, section)) == 0)
    fz_fail("%s used strategy '%s', which the hints do not allow (mask "
            "%d)",
            call, st.strategy, allowed(r->c, write, section));
  if ((write ? st.bytes_written : st.bytes_read) < bytes)
    fz_fail("%s moved %" PRId64 " bytes of %" PRId64, call,
            write ? st.bytes_written : st.bytes_read, bytes);
  int64_t es = r->c->esize;
  int64_t bound = k == ST_TWOPHASE ? hint_value(r, "cb_buffer_size")
                  : write          ? hint_value(r, "ind_wr_buffer_size")
                                   : hint_value(r, "ind_rd_buffer_size");
  /* at least an element in each buffer: two-phase holds up to four (the
   * message buffer, two staging buffers, the chunk's image) */
  int64_t least = k == ST_TWOPHASE ? 4 * es : es;
  if (st.peak_temp_bytes > (bound > least ? bound : least))
    fz_fail("%s (%s) held %" PRId64 " temporary bytes; its bound is %" PRId64
            " (at least %" PRId64 ")",
            call, st.strategy, st.peak_temp_bytes, bound, least);
}

static void model_put(run_t *r, int64_t off, const uint8_t *src, int64_t n) {
  if (off + n > FILECAP)
    fz_fail("the model has no room for byte %" PRId64, off + n);
  memcpy(r->model + off, src, (size_t)n);
  if (off + n > r->mlen)
    r->mlen = off + n; /* the gap reads as zeros, as the model has them */
}

static void make_array(run_t *r) {
  const xcase_t *c = r->c;
  darray_t a = NULL;
  ok(darray_create(MPI_COMM_WORLD, c->nd, c->g, c->type, &a), "darray_create",
     darray_errmsg(NULL));
  r->a = a;
  if (c->type == DARRAY_OPAQUE)
    ok(darray_set_elem_size(a, c->esize), "darray_set_elem_size",
       darray_errmsg(a));
  ok(darray_set_distribution(a, c->dist, c->dargs_null ? NULL : c->dargs),
     "darray_set_distribution", darray_errmsg(a));
  int ones[MAXD] = {1, 1, 1, 1}, zeros[MAXD] = {0};
  if (c->grid != 0)
    ok(darray_set_grid(a, c->grid == 1 ? ones : zeros), "darray_set_grid",
       darray_errmsg(a));
  ok(darray_set_storage_order(a, c->sorder, c->perm),
     "darray_set_storage_order", darray_errmsg(a));
  ok(darray_set_displacement(a, c->disp), "darray_set_displacement",
     darray_errmsg(a));
  if (c->mem_set)
    ok(darray_set_memory_layout(a, c->morder, c->ghost_null ? NULL : c->ghost,
                                c->pad_null ? NULL : c->pad),
       "darray_set_memory_layout", darray_errmsg(a));
  ok(darray_commit(a), "darray_commit", darray_errmsg(a));
  int64_t es = 0, n = 0, lb = 0;
  ok(darray_elem_size(a, &es), "darray_elem_size", darray_errmsg(a));
  ok(darray_local_count(a, &n), "darray_local_count", darray_errmsg(a));
  ok(darray_local_bytes(a, &lb), "darray_local_bytes", darray_errmsg(a));
  if (es != c->esize || n != c->n || lb != c->lbytes)
    fz_fail("committed: element size %" PRId64 ", count %" PRId64 ", buffer "
            "%" PRId64 " bytes; expected %" PRId64 ", %" PRId64 ", %" PRId64,
            es, n, lb, c->esize, c->n, c->lbytes);
}

/* Create path with n bytes of data and open it with the case's hints. */
static darray_file_t open_file(const run_t *r, const char *path,
                               const uint8_t *data, int64_t n) {
  const xcase_t *c = r->c;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || pwrite(fd, data, (size_t)n, 0) != (ssize_t)n)
    fz_fail("cannot prefill %s", path);
  close(fd);
  MPI_Info info;
  MPI_Info_create(&info);
  for (int k = 0; k < NHINTS; k++)
    if (c->hint[k] >= 0)
      MPI_Info_set(info, hint_defs[k].key, hint_defs[k].vals[c->hint[k]]);
  darray_file_t f = NULL;
  ok(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f),
     "darray_file_open", darray_errmsg(NULL));
  MPI_Info_free(&info);
  return f;
}

/* The file before the calls: flen bytes of a pattern no element has by
 * design (they are random), then the file is opened with the hints; the
 * model's first state. */
static void make_file(run_t *r) {
  const xcase_t *c = r->c;
  memset(r->model, 0, sizeof r->model);
  for (int64_t o = 0; o < c->flen; o++)
    r->model[o] = (uint8_t)(0xa5 ^ (o * 29) ^ (o >> 7));
  r->mlen = c->flen;
  r->nposts = -1;
  next_state(r);
  r->floor = 0;
  r->f = open_file(r, fz_files[0], r->model, c->flen);
}

#endif /* DARRAYIO_FUZZ_XFER_MODEL_H */
