/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_faults.c - injected system-call failures (DARRAYIO_FAULT, see
 * src/io/io_fault.c and doc/reliability.md) under every strategy.
 *
 * A 12x10 int32 array, CYCLIC(2) rows over the P ranks, each local row
 * padded by one ghost column on either side, sits at byte 100 of a 680-byte
 * file pre-filled with a background pattern. One scenario opens the file,
 * writes the array, reads it back, syncs and closes, with one fault rule in
 * DARRAYIO_FAULT. For each strategy (direct, twophase, sieve, rows,
 * static, groups, mapped; tiny buffers so that every call is many system
 * calls; a mapped window is one read or write call):
 *
 *  1. a dry run counts the target rank's calls of each kind (open, read,
 *     write, lock, unlock, sync) after each phase;
 *  2. for each target rank, kind, call index k in 1..min(N, CAP), N and
 *     N+1 (N = calls of that kind), and error (EIO, ENOSPC, EACCES, EINTR,
 *     a short transfer; see below), the scenario runs with the k-th call
 *     failing, and:
 *       - every rank returns the same code in every phase (Allreduce);
 *       - the phase that made the k-th call returns the expected code
 *         (EINTR and short transfers: success), every other phase succeeds;
 *         index N+1 injects nothing;
 *       - exactly one fault was injected on the target rank;
 *       - the failing rank's message names the system error, the others'
 *         name the failing rank;
 *       - the file outside the array is unchanged after every phase, inside
 *         it every byte is old or new after a failed write, and new after a
 *         successful one;
 *       - after a failure the same handle writes / reads correctly (the
 *         state is not poisoned); reads leave ghost cells untouched.
 *  3. every rank fails at once (rank=all), and long runs of EINTR and of
 *     short transfers on every call, which must all succeed.
 *
 * Hangs are caught by the test wrapper's timeout; leaks by the sanitizer
 * build (`./configure --enable-sanitizers`). The last line gives the counts:
 * scenarios, faults injected, disagreements, wrong bytes.
 *
 * At P <= 2 the sweep is complete: every rank, kind, index and error. At
 * P >= 3 (more processes than this machine's cores, where every collective
 * costs scheduler time slices) it is cut to stay quick: every error at the
 * first and the last call of a kind, EIO, EINTR and short transfers at the
 * calls between (the other errnos take the same paths), EIO alone past the
 * last call, open and sync faults with the first strategy only (they do
 * not depend on it), and rank 1 as the target (not the first to open, and
 * a two-phase aggregator whose failure the others must learn).
 * FAULTS_FULL=1 makes it complete at any P.
 *
 * Run: mpiexec -n 2 ./test_faults (any P >= 1; FAULTS_CAP=n changes the
 * per-kind index cap, default 5; FAULTS_VERBOSE=1 lists the scenarios).
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NROWS = 12, NCOLS = 10, ESZ = 4, DISP = 100, TAIL = 100 };
#define ARRAY_BYTES (NROWS * NCOLS * ESZ)
#define FILE_BYTES (DISP + ARRAY_BYTES + TAIL)
#define LCOLS (NCOLS + 2) /* local row: ghost, 10 elements, ghost */
#define GHOST_BYTE 0xA5
#define SHORT (-1)

enum { PH_OPEN, PH_WRITE, PH_READ, PH_SYNC, NPH };
static const char *const phase_names[NPH] = {"open", "write", "read", "sync"};

static const struct {
  const char *name;
  int op;
} kinds[] = {
    {"open", DARRAY_IO_FOP_OPEN},     {"read", DARRAY_IO_FOP_READ},
    {"write", DARRAY_IO_FOP_WRITE},   {"lock", DARRAY_IO_FOP_LOCK},
    {"unlock", DARRAY_IO_FOP_UNLOCK}, {"sync", DARRAY_IO_FOP_SYNC},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static const struct {
  const char *name;
  int err;
} errs[] = {
    {"EIO", EIO},     {"ENOSPC", ENOSPC}, {"EACCES", EACCES},
    {"EINTR", EINTR}, {"short", SHORT},
};
#define NERRS ((int)(sizeof errs / sizeof errs[0]))

/* Strategies and their hints: tiny buffers, so many system calls. */
static const char *const strategies[][7] = {
    {"direct", "darray_strategy", "direct", "ind_wr_buffer_size", "96",
     "ind_rd_buffer_size", "96"},
    {"twophase", "darray_strategy", "twophase", "cb_buffer_size", "64",
     "cb_nodes", "2"},
    {"sieve", "darray_strategy", "sieve", "ind_wr_buffer_size", "256",
     "ind_rd_buffer_size", "256"},
    /* one group of every process (the rows' extents are short): windows
     * of 16 bytes (32 as vectors of pieces), streams strided by the ghost
     * columns */
    {"rows", "darray_strategy", "rows", "cb_buffer_size", "64",
     "darray_rows_extent", "1m"},
    {"rows-vector", "darray_strategy", "rows", "cb_buffer_size", "64",
     "darray_cb_image_piece", "0"},
    /* static segmentation: one group of every process, shares of 20
     * bytes (5 elements: K = 64 / 3 at P = 2), rank 0 aggregating; and
     * groups of consecutive ranks ({0}, {1, 2} at P = 3: rank 1, the
     * target at P >= 3, aggregates) */
    {"static", "darray_strategy", "static", "cb_buffer_size", "64",
     "cb_nodes", "1"},
    {"static-groups", "darray_strategy", "static", "cb_buffer_size", "48",
     "cb_nodes", "2"},
    /* writer groups: by node (every process, rank 0 writing), chunks of
     * 32 bytes; and groups of one (every rank a writer, the target too),
     * chunks of 24 */
    {"groups", "darray_strategy", "groups", "cb_buffer_size", "64",
     "cb_group_size", "0"},
    {"groups-one", "darray_strategy", "groups", "cb_buffer_size", "48",
     "cb_group_size", "1"},
    /* the file's pages mapped, a window a page (the file is one page):
     * a mapping is a read or a write call, under a shared lock for
     * writes; darray_map=enable maps whatever the file system */
    {"mapped", "darray_strategy", "mapped", "darray_map_window", "4096",
     "darray_map", "enable"},
};
#define NSTRATS ((int)(sizeof strategies / sizeof strategies[0]))

typedef struct ctx {
  int P, me;
  char path[512];
  darray_t a;
  int64_t lbytes;
  unsigned char *wbuf;  /* what this rank writes */
  unsigned char *rwant; /* what a read must leave in the buffer */
  unsigned char *rbuf;
  unsigned char *oldf; /* the file before (every rank) */
  unsigned char *newf; /* the file after a write */
  MPI_Info info;
  bool full; /* every target rank and every error at every index */
  long scenarios, injected, disagreements, wrong_bytes, skipped;
} ctx_t;

static int32_t value(int64_t i, int64_t j) {
  return (int32_t)(i * 1000 + j * 7 + 3);
}

/* ---- set-up ---------------------------------------------------------------
 */

/* The local buffer from first principles: rank r owns the rows i with
 * (i / 2) mod P == r, as local row (i / 2) / P * 2 + i % 2. */
static int setup(ctx_t *c) {
  int64_t g[2] = {NROWS, NCOLS}, k[2] = {2, DARRAY_DEFAULT_ARG};
  int64_t ghost[2] = {0, 1};
  darray_dist_t d[2] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_NONE};
  int grid[2] = {c->P, 1};
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &c->a)) ||
      !TU_OK(darray_set_distribution(c->a, d, k)) ||
      !TU_OK(darray_set_grid(c->a, grid)) ||
      !TU_OK(darray_set_memory_layout(c->a, DARRAY_ORDER_C, ghost, NULL)) ||
      !TU_OK(darray_set_displacement(c->a, DISP)) ||
      !TU_OK(darray_commit(c->a)))
    return 0;
  TU_OK(darray_local_bytes(c->a, &c->lbytes));
  int64_t rows = 0;
  for (int64_t i = 0; i < NROWS; i++)
    rows += (i / 2) % c->P == c->me;
  TU_EQ_I64(c->lbytes, rows * LCOLS * ESZ);
  size_t n = (size_t)c->lbytes + 1;
  c->wbuf = malloc(n);
  c->rwant = malloc(n);
  c->rbuf = malloc(n);
  memset(c->wbuf, 0x11, n);
  memset(c->rwant, GHOST_BYTE, n);
  for (int64_t i = 0; i < NROWS; i++) {
    if ((i / 2) % c->P != c->me)
      continue;
    int64_t l = (i / 2) / c->P * 2 + i % 2;
    for (int64_t j = 0; j < NCOLS; j++) {
      int32_t v = value(i, j);
      int64_t off = (l * LCOLS + j + 1) * ESZ, got = -1;
      int64_t gidx[2] = {i, j};
      darray_locate(c->a, gidx, NULL, NULL, NULL, &got);
      TU_EQ_I64(got, off);
      memcpy(c->wbuf + off, &v, ESZ);
      memcpy(c->rwant + off, &v, ESZ);
    }
  }
  c->oldf = malloc(FILE_BYTES);
  c->newf = malloc(FILE_BYTES);
  tu_fill_bytes(c->oldf, FILE_BYTES, 0xfa17, 0);
  memcpy(c->newf, c->oldf, FILE_BYTES);
  for (int64_t i = 0; i < NROWS; i++)
    for (int64_t j = 0; j < NCOLS; j++) {
      int32_t v = value(i, j);
      memcpy(c->newf + DISP + (i * NCOLS + j) * ESZ, &v, ESZ);
    }
  return 1;
}

static void teardown(ctx_t *c) {
  darray_free(&c->a);
  free(c->wbuf);
  free(c->rwant);
  free(c->rbuf);
  free(c->oldf);
  free(c->newf);
}

/* ---- checks ---------------------------------------------------------------
 */

/* Whether every rank has the same code in each phase (one Allreduce);
 * counts a check per phase. */
static void same_everywhere(ctx_t *c, const int rc[NPH], const char *what) {
  int v[2 * NPH], m[2 * NPH];
  for (int p = 0; p < NPH; p++) {
    v[p] = rc[p];
    v[NPH + p] = -rc[p];
  }
  MPI_Allreduce(v, m, 2 * NPH, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int p = 0; p < NPH; p++) {
    if (m[p] == -m[NPH + p]) {
      TU_CHECK(m[p] == -m[NPH + p]);
      continue;
    }
    c->disagreements++;
    TU_FAIL("%s: phase %s: ranks returned different codes (%s .. %s)", what,
            phase_names[p], darray_err_name(-m[NPH + p]),
            darray_err_name(m[p]));
  }
}

/* Rank 0 compares the file: outside the array it must be old; inside it
 * must be new (exact) or, after a failed write, old or new byte by byte.
 * No barrier is needed: every collective call ends in an agreement that no
 * rank enters before its own I/O is done, and the next call that could
 * change the file starts with one that waits for rank 0. */
static void check_file(ctx_t *c, bool exact_new, bool inside_old,
                       const char *what) {
  if (c->me == 0) {
    int64_t n = -1;
    unsigned char *got = tu_read_file(c->path, &n);
    if (TU_EQ_I64(n, FILE_BYTES)) {
      long bad = 0;
      int64_t first = -1;
      for (int64_t b = 0; b < FILE_BYTES; b++) {
        bool in = b >= DISP && b < DISP + ARRAY_BYTES;
        bool ok = !in          ? got[b] == c->oldf[b]
                  : inside_old ? got[b] == c->oldf[b]
                  : exact_new  ? got[b] == c->newf[b]
                               : got[b] == c->oldf[b] || got[b] == c->newf[b];
        if (!ok && first < 0)
          first = b;
        bad += !ok;
      }
      if (bad > 0)
        TU_FAIL("%s: %ld wrong bytes in the file, first at %lld", what, bad,
                (long long)first);
      else
        TU_CHECK(bad == 0);
      c->wrong_bytes += bad;
    }
    free(got);
  }
}

/* Rank 0 writes the background; darray_file_open agrees before any rank
 * opens, so no barrier is needed after it. */
static void prefill(ctx_t *c) {
  if (c->me == 0)
    TU_EQ_INT(tu_write_file(c->path, c->oldf, FILE_BYTES), 0);
}

/* The message of a failed phase: the failing rank names the system error,
 * the others the failing rank (when only one failed). */
static void check_message(const char *msg, int err, int target, int me,
                          const char *what) {
  if (!TU_CHECK(msg != NULL && msg[0] != '\0')) {
    fprintf(stderr, "  (%s: empty message)\n", what);
    return;
  }
  if (target < 0 || err == SHORT || err == EINTR)
    return;
  char want[128];
  if (me == target)
    snprintf(want, sizeof want, "%s", strerror(err));
  else
    snprintf(want, sizeof want, "rank %d", target);
  if (!TU_CONTAINS(msg, want))
    fprintf(stderr, "  (%s)\n", what);
}

/* ---- one scenario ---------------------------------------------------------
 */

typedef struct outcome {
  int rc[NPH];
  int64_t calls[NPH][DARRAY_IO_FOP_N]; /* this rank's counts after each */
  int64_t injected;                    /* on this rank; -1: never opened */
  char msg[NPH][DARRAY_ERRMSG_LEN];
} outcome_t;

static void read_phase(ctx_t *c, darray_file_t f, outcome_t *o,
                       const char *what) {
  char w[300];
  snprintf(w, sizeof w, "%s: read", what);
  memset(c->rbuf, GHOST_BYTE, (size_t)c->lbytes + 1);
  o->rc[PH_READ] = darray_read(f, c->a, c->rbuf);
  snprintf(o->msg[PH_READ], DARRAY_ERRMSG_LEN, "%s", darray_file_errmsg(f));
  if (o->rc[PH_READ] != DARRAY_SUCCESS) { /* the handle still reads */
    memset(c->rbuf, GHOST_BYTE, (size_t)c->lbytes + 1);
    snprintf(w, sizeof w, "%s: read again", what);
    if (!TU_OK(darray_read(f, c->a, c->rbuf)))
      fprintf(stderr, "  (%s: %s)\n", w, darray_file_errmsg(f));
  }
  c->wrong_bytes += tu_compare_bytes(c->rbuf, c->rwant, c->lbytes, what);
  check_file(c, true, false, w);
}

/* Open, write, read, sync, close with DARRAYIO_FAULT = spec. */
static void scenario(ctx_t *c, const char *spec, outcome_t *o,
                     const char *what) {
  char w[300];
  memset(o, 0, sizeof *o);
  o->injected = -1;
  prefill(c);
  darray_file_t f = NULL;
  setenv("DARRAYIO_FAULT", spec, 1);
  o->rc[PH_OPEN] =
      darray_file_open(MPI_COMM_WORLD, c->path, DARRAY_MODE_RDWR, c->info, &f);
  unsetenv("DARRAYIO_FAULT");
  snprintf(o->msg[PH_OPEN], DARRAY_ERRMSG_LEN, "%s", darray_errmsg(NULL));
  snprintf(w, sizeof w, "%s: open", what);
  TU_CHECK((f == NULL) == (o->rc[PH_OPEN] != DARRAY_SUCCESS));
  c->scenarios++;
  if (f == NULL) {
    check_file(c, false, true, w);
    same_everywhere(c, o->rc, what);
    return;
  }
  for (int k = 0; k < DARRAY_IO_FOP_N; k++)
    o->calls[PH_OPEN][k] = darray__io_fault_calls(&f->io, k);
  check_file(c, false, true, w);

  o->rc[PH_WRITE] = darray_write(f, c->a, c->wbuf);
  snprintf(o->msg[PH_WRITE], DARRAY_ERRMSG_LEN, "%s", darray_file_errmsg(f));
  snprintf(w, sizeof w, "%s: write", what);
  for (int k = 0; k < DARRAY_IO_FOP_N; k++)
    o->calls[PH_WRITE][k] = darray__io_fault_calls(&f->io, k);
  check_file(c, o->rc[PH_WRITE] == DARRAY_SUCCESS, false, w);
  if (o->rc[PH_WRITE] != DARRAY_SUCCESS) { /* the handle still writes */
    snprintf(w, sizeof w, "%s: write again", what);
    if (!TU_OK(darray_write(f, c->a, c->wbuf)))
      fprintf(stderr, "  (%s: %s)\n", w, darray_file_errmsg(f));
    check_file(c, true, false, w);
  }

  read_phase(c, f, o, what);
  for (int k = 0; k < DARRAY_IO_FOP_N; k++)
    o->calls[PH_READ][k] = darray__io_fault_calls(&f->io, k);

  o->rc[PH_SYNC] = darray_file_sync(f);
  snprintf(o->msg[PH_SYNC], DARRAY_ERRMSG_LEN, "%s", darray_file_errmsg(f));
  for (int k = 0; k < DARRAY_IO_FOP_N; k++)
    o->calls[PH_SYNC][k] = darray__io_fault_calls(&f->io, k);
  o->injected = darray__io_fault_injected(&f->io);
  snprintf(w, sizeof w, "%s: close", what);
  if (!TU_OK(darray_file_close(&f)))
    fprintf(stderr, "  (%s)\n", w);
  check_file(c, true, false, w);
  same_everywhere(c, o->rc, what);
}

/* ---- the sweep ------------------------------------------------------------
 */

static int code_of(int op, int err) {
  if (err == EINTR || err == SHORT)
    return DARRAY_SUCCESS;
  if (op == DARRAY_IO_FOP_LOCK || op == DARRAY_IO_FOP_UNLOCK)
    return DARRAY_ELOCK;
  return darray__io_errno_code(err);
}

/* One fault: the k-th call of kind `kind` on `target` (-1: every rank)
 * fails with errs[e]; dry[] are this rank's counts from the dry run. */
static void one_fault(ctx_t *c, const char *strat, int kind, int64_t k, int e,
                      int target, const int64_t dry[NPH][DARRAY_IO_FOP_N]) {
  int op = kinds[kind].op;
  char spec[200], what[300];
  char rk[16];
  snprintf(rk, sizeof rk, target < 0 ? "all" : "%d", target);
  snprintf(spec, sizeof spec, "op=%s,index=%lld,error=%s,rank=%s",
           kinds[kind].name, (long long)k, errs[e].name, rk);
  snprintf(what, sizeof what, "%s %s", strat, spec);
  bool mine = target < 0 || target == c->me;
  int phase = -1; /* the phase in which this rank makes the k-th call */
  for (int p = 0; mine && p < NPH && phase < 0; p++)
    if (dry[p][op] >= k)
      phase = p;
  long in[NPH + 1] = {0}, fails[NPH + 1]; /* per phase: ranks failing */
  if (phase >= 0)
    in[phase] = in[NPH] = 1;
  MPI_Allreduce(in, fails, NPH + 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  outcome_t o;
  if (getenv("FAULTS_VERBOSE") != NULL && c->me == 0) {
    printf("  %s\n", what);
    fflush(stdout);
  }
  scenario(c, spec, &o, what);
  for (int p = 0; p < NPH; p++) {
    int want = fails[p] > 0 ? code_of(op, errs[e].err) : DARRAY_SUCCESS;
    if (p > PH_OPEN && o.rc[PH_OPEN] != DARRAY_SUCCESS)
      break;
    if (!TU_EQ_CODE(o.rc[p], want)) {
      fprintf(stderr, "  (%s: phase %s: %s)\n", what, phase_names[p], o.msg[p]);
      continue;
    }
    if (want != DARRAY_SUCCESS)
      check_message(o.msg[p], errs[e].err, target, c->me, what);
  }
  if (mine && o.injected >= 0) {
    int64_t want = phase >= 0 ? 1 : 0;
    if (!TU_EQ_I64(o.injected, want))
      fprintf(stderr, "  (%s: faults injected)\n", what);
  }
  c->injected += fails[NPH];
}

/* The call indices to try for a kind with n calls. */
static int indices(int64_t n, int cap, int64_t *ks) {
  int m = 0;
  for (int64_t k = 1; k <= n && k <= cap; k++)
    ks[m++] = k;
  if (n > cap)
    ks[m++] = n;
  ks[m++] = n + 1; /* past the last call: nothing is injected */
  return m;
}

static void sweep_strategy(ctx_t *c, int s, int cap) {
  const char *name = strategies[s][0];
  if (c->P == 1 && !strcmp(strategies[s][2], "rows")) {
    /* one process forms no group: rows refuses it (test_rows checks) */
    tu_skip_part(name, "one process forms no group of two");
    return;
  }
  MPI_Info_create(&c->info);
  for (int h = 1; h < 7; h += 2)
    MPI_Info_set(c->info, strategies[s][h], strategies[s][h + 1]);
  /* is the strategy there? */
  darray_file_t f = NULL;
  prefill(c);
  int rc =
      darray_file_open(MPI_COMM_WORLD, c->path, DARRAY_MODE_RDWR, c->info, &f);
  if (rc == DARRAY_EHINT) {
    if (c->me == 0)
      printf("test_faults: strategy %s not available, skipped\n", name);
    c->skipped++;
    MPI_Info_free(&c->info);
    return;
  }
  TU_OK(rc);
  darray_file_close(&f);

  outcome_t dry;
  scenario(c, "none", &dry, name);
  for (int p = 0; p < NPH; p++)
    TU_OK(dry.rc[p]);
  if (c->me == 0)
    printf("test_faults: %s at P=%d: calls of rank 0: open %lld, read %lld, "
           "write %lld, lock %lld, unlock %lld, sync %lld\n",
           name, c->P, (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_OPEN],
           (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_READ],
           (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_WRITE],
           (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_LOCK],
           (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_UNLOCK],
           (long long)dry.calls[PH_SYNC][DARRAY_IO_FOP_SYNC]);
  for (int t = 0; t < c->P; t++) {
    if (!c->full && c->P > 2 && t != 1)
      continue; /* rank 1: not the first to open, a two-phase aggregator */
    int64_t tdry[NPH][DARRAY_IO_FOP_N];
    memcpy(tdry, dry.calls, sizeof tdry);
    MPI_Bcast(tdry, NPH * DARRAY_IO_FOP_N, MPI_INT64_T, t, MPI_COMM_WORLD);
    for (int kd = 0; kd < NKINDS; kd++) {
      int op = kinds[kd].op;
      if (s > 0 && !c->full &&
          (op == DARRAY_IO_FOP_OPEN || op == DARRAY_IO_FOP_SYNC))
        continue; /* the same whatever the strategy */
      int64_t ks[64];
      int m = indices(tdry[PH_SYNC][op], cap, ks);
      bool transfer = op == DARRAY_IO_FOP_READ || op == DARRAY_IO_FOP_WRITE;
      for (int i = 0; i < m; i++) {
        /* unless full: every error at the first and the last call, else
         * EIO, EINTR and a short transfer; past the last call, EIO */
        bool past = i == m - 1, all = c->full || ks[i] == 1 || i == m - 2;
        for (int e = 0; e < NERRS; e++) {
          int err = errs[e].err;
          if (err == SHORT && !transfer)
            continue;
          if (past ? c->full || err == EIO
                   : all || err == EIO || err == EINTR || err == SHORT)
            one_fault(c, name, kd, ks[i], e, t,
                      (const int64_t(*)[DARRAY_IO_FOP_N])dry.calls);
        }
      }
    }
  }
  /* every rank fails its first write / read at once */
  one_fault(c, name, 2, 1, 1, -1, (const int64_t(*)[DARRAY_IO_FOP_N])dry.calls);
  one_fault(c, name, 1, 1, 0, -1, (const int64_t(*)[DARRAY_IO_FOP_N])dry.calls);
  /* an unlock that fails while another rank waits for an overlapping
   * lock: the lock must still go, or the waiting rank hangs (rank 1's first
   * lock is delayed so that rank 0's failed unlock comes first) */
  if (c->P > 1 && strcmp(name, "sieve") == 0) {
    outcome_t o;
    const char *spec = "op=unlock,index=1,error=ENOLCK,rank=0;"
                       "op=lock,index=1,delay=300,rank=1";
    char what[300];
    snprintf(what, sizeof what, "%s %s", name, spec);
    scenario(c, spec, &o, what);
    if (!TU_EQ_CODE(o.rc[PH_WRITE], DARRAY_ELOCK))
      fprintf(stderr, "  (%s: %s)\n", what, o.msg[PH_WRITE]);
    TU_OK(o.rc[PH_READ]);
  }
  /* long runs of interruptions and of short transfers: all succeed */
  static const char *const storms[] = {
      "op=any,count=40,error=EINTR",
      "op=read,count=100000,error=short;op=write,count=100000,error=short",
      "op=pwrite,index=2,count=3,error=EINTR;op=preadv,error=short",
  };
  for (size_t i = 0; i < sizeof storms / sizeof storms[0]; i++) {
    outcome_t o;
    char what[300];
    snprintf(what, sizeof what, "%s %s", name, storms[i]);
    scenario(c, storms[i], &o, what);
    for (int p = 0; p < NPH; p++)
      if (!TU_OK(o.rc[p]))
        fprintf(stderr, "  (%s: phase %s: %s)\n", what, phase_names[p],
                o.msg[p]);
  }
  MPI_Info_free(&c->info);
}

/* A malformed specification is refused at open, on every rank. */
static void bad_specs(ctx_t *c) {
  static const char *const bad[] = {
      "op=write,index=0",
      "op=bogus",
      "index=3",
      "op=lock,error=short",
      "op=write,error=EWHAT",
      "op=write,rank=-1",
      "op=write,color=red",
      "op=write;;op",
      ";",
  };
  c->info = MPI_INFO_NULL;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    darray_file_t f = NULL;
    setenv("DARRAYIO_FAULT", bad[i], 1);
    int rc = darray_file_open(MPI_COMM_WORLD, c->path, DARRAY_MODE_RDWR,
                              MPI_INFO_NULL, &f);
    unsetenv("DARRAYIO_FAULT");
    if (!TU_EQ_CODE(rc, DARRAY_EHINT))
      fprintf(stderr, "  (DARRAYIO_FAULT=%s)\n", bad[i]);
    TU_CONTAINS(darray_errmsg(NULL), "DARRAYIO_FAULT");
    darray_file_close(&f);
  }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  if (!tu_fault_injection())
    return tu_skip("built without --enable-fault-injection: DARRAYIO_FAULT "
                   "is ignored");
  ctx_t c = {0};
  c.P = tu_nprocs();
  c.me = tu_rank();
  c.full = c.P <= 2 || getenv("FAULTS_FULL") != NULL;
  const char *capenv = getenv("FAULTS_CAP");
  int cap = capenv != NULL ? atoi(capenv) : 5;
  if (cap < 1 || cap > 60)
    cap = 5;
  if (tu_tmpname(c.path, sizeof c.path, "darray_faults") == NULL || !setup(&c))
    return tu_finish();
  prefill(&c);
  bad_specs(&c);
  for (int s = 0; s < NSTRATS; s++)
    sweep_strategy(&c, s, cap);
  long wrong = 0;
  MPI_Allreduce(&c.wrong_bytes, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (c.me == 0)
    printf("test_faults: P=%d: %ld scenarios, %ld faults injected, "
           "%ld disagreements, %ld wrong bytes, 0 hangs, %ld strategies "
           "skipped\n",
           c.P, c.scenarios, c.injected, c.disagreements, wrong, c.skipped);
  teardown(&c);
  tu_remove(c.path);
  return tu_finish();
}
