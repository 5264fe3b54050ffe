/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_faults_ext.c - injected failures of allocations, MPI calls, MPI-IO
 * and close, on any rank, in every strategy and back end (test/io/fault_wrap.c,
 * doc/reliability.md sections 1, 3 and 7).
 *
 * A 12x10 int32 array, CYCLIC(2) rows over a grid MPI_Dims_create makes,
 * each local row padded by one ghost column on either side, sits at byte
 * 100 of a 680-byte file pre-filled with a background pattern. A scenario
 * creates and commits the array, opens the file, writes the array, reads it
 * back, writes a box per rank (disjoint), reads a box per rank
 * (overlapping), syncs and closes: nine phases, each one library call with
 * the wrappers armed. For each configuration (strategy x back end, tiny
 * buffers so that every call makes many calls below it):
 *
 *  1. a dry run counts each rank's calls of each kind after each phase;
 *  2. for each target rank, kind and call index k, the scenario runs with
 *     the target's k-th call of that kind failing (fault_wrap.h says how
 *     each kind fails), and checks:
 *       - every rank returns the same code in every phase (one MPI
 *         allreduce of the test per phase, not through the wrappers);
 *       - the phase that made the k-th call returns the kind's code
 *         (DARRAY_ENOMEM, DARRAY_EMPI, the MPI-IO class's code), every
 *         other phase succeeds; exactly one fault was injected;
 *       - the failing rank's message names the cause, the others' name
 *         the failing rank;
 *       - the file outside the array (outside the boxes, for box writes)
 *         is unchanged after every phase; inside it every byte is old or
 *         new after a failed write, new after a successful one;
 *       - a failed write or read, repeated on the same handles, succeeds
 *         and is exact; reads leave ghost cells untouched;
 *       - no hang: a watchdog names the scenario and ends the run.
 *     The indices: every allocation, on the posix back end (the back ends
 *     allocate nothing of their own); of the other kinds the first, the
 *     last and the middle call of each phase. Create and commit faults are
 *     tried with the first configuration only, open, sync and close
 *     faults with the first of each back end (the strategy plays no part);
 *  3. the posix back end's close fails on each rank (DARRAYIO_FAULT
 *     op=close).
 * Then two sweeps of their own: the first open on a new communicator,
 * which measures what a synchronization costs and keeps it (allocations,
 * allreduces and the attribute fail, then a second open must succeed
 * everywhere), and an mpiio open with DARRAY_MODE_TRUNC whose
 * MPI_File_set_size fails on each rank.
 *
 * The exception (doc/reliability.md, section 1): when the last collective
 * of a call's result agreement reports a failure on one rank after it
 * completed everywhere, the others have already returned success; no
 * protocol can tell them. Those scenarios are counted apart: the failing
 * rank must return DARRAY_EMPI, the others success, and nobody may hang.
 *
 * The last line gives the totals: scenarios, faults injected per kind,
 * exceptions, disagreements, wrong bytes, hangs (0: a hang ends the run).
 * At P <= 2 every rank is a target; at P >= 3 (more processes than cores
 * here) and under valgrind (DARRAY_TEST_VALGRIND) ranks 1 and P-1 are,
 * with the first and last index per phase and allocations sampled too.
 * FAULTS_FULL=1 makes every rank a target and tries every configuration
 * in every phase; FAULTS_SAMPLE=n sets the indices per phase;
 * FAULTS_VERBOSE=1 lists the scenarios. To chase one failure:
 * FAULTS_CONFIG=text and FAULTS_KIND=name keep the configurations whose
 * name contains text and the kind of that name ("close(2)": the posix
 * close), FAULTS_WATCHDOG=s sets the watchdog (default 120 s).
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include "fault_wrap.h"
#include "file.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NROWS = 12, NCOLS = 10, ESZ = 4, DISP = 100, TAIL = 100 };
#define ARRAY_BYTES (NROWS * NCOLS * ESZ)
#define FILE_BYTES (DISP + ARRAY_BYTES + TAIL)
#define LCOLS (NCOLS + 2) /* local row: ghost, 10 elements, ghost */
#define GHOST_BYTE 0xA5
#define WATCHDOG_S 120 /* s; no scenario comes near; only a hang does */
#define NOT_RUN 1      /* a phase's code when it did not run */

enum {
  PH_CREATE,
  PH_COMMIT,
  PH_OPEN,
  PH_WRITE,
  PH_READ,
  PH_WSEC,
  PH_RSEC,
  PH_SYNC,
  PH_CLOSE,
  NPH
};
static const char *const phase_names[NPH] = {
    "create",        "commit",       "open", "write", "read",
    "write_section", "read_section", "sync", "close"};

/* Strategies x back ends; tiny buffers, so that one call makes many. */
static const struct {
  const char *name, *hints;
} configs[] = {
    {"direct/posix", "darray_strategy=direct;ind_wr_buffer_size=96;"
                     "ind_rd_buffer_size=96"},
    {"sieve/posix", "darray_strategy=sieve;ind_wr_buffer_size=256;"
                    "ind_rd_buffer_size=256"},
    {"twophase/posix", "darray_strategy=twophase;cb_buffer_size=64;"
                       "cb_nodes=2;darray_cb_image_piece=0;"
                       "darray_cb_pipeline=disable"},
    {"twophase-image-pipelined/posix",
     "darray_strategy=twophase;cb_buffer_size=128;"
     "darray_cb_image_piece=1m;darray_cb_pipeline=enable"},
    {"direct/mpiio", "darray_backend=mpiio;darray_strategy=direct;"
                     "ind_wr_buffer_size=96;ind_rd_buffer_size=96"},
    {"sieve/mpiio", "darray_backend=mpiio;darray_strategy=sieve;"
                    "ind_wr_buffer_size=256;ind_rd_buffer_size=256"},
    {"twophase-image/mpiio", "darray_backend=mpiio;darray_strategy=twophase;"
                             "cb_buffer_size=128;darray_cb_image_piece=1m;"
                             "darray_cb_pipeline=disable"},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

typedef struct ctx {
  int P, me;
  char path[512], path2[512];
  MPI_Info info;
  const char *config;
  int sample;        /* indices per phase */
  bool full;         /* every rank a target */
  bool full_phases;  /* every configuration's faults in every phase */
  unsigned watchdog; /* seconds */
  const char *only_config, *only_kind;
  /* the data */
  int64_t lbytes;
  unsigned char *wbuf, *rwant, *rbuf;                 /* whole-array buffers */
  int64_t wstart[2], wcount[2], rstart[2], rcount[2]; /* my boxes */
  int32_t *wsec, *rsec, *rsecwant;
  unsigned char *f0, *f1, *f2; /* the file: before, after write, after
                                  the box writes */
  unsigned char *inbox;        /* bytes of the file inside some written box */
  /* the totals */
  long scenarios, exceptions, disagreements, wrong_bytes, absorbed;
  long injected[FW_NKINDS + 1]; /* + 1: the posix close */
} ctx_t;

static char current[400]; /* the scenario, for the watchdog */

static void watchdog(int sig) {
  (void)sig;
  static const char head[] = "test_faults_ext: HANG in scenario ";
  ssize_t w = write(2, head, sizeof head - 1);
  w = write(2, current, strlen(current));
  w = write(2, "\n", 1);
  (void)w;
  _exit(3);
}

/* ---- the data -------------------------------------------------------------
 */

static int32_t v1(int64_t i, int64_t j) {
  return (int32_t)(i * 1000 + j * 7 + 3);
}
static int32_t v2(int64_t i, int64_t j) { return -(int32_t)(i * 100 + j + 1); }

static bool in_box(const int64_t *s, const int64_t *n, int64_t i, int64_t j) {
  return i >= s[0] && i < s[0] + n[0] && j >= s[1] && j < s[1] + n[1];
}

/* Rank r's boxes: written ones are disjoint, read ones overlap. */
static void boxes(int r, int64_t ws[2], int64_t wn[2], int64_t rs[2],
                  int64_t rn[2]) {
  ws[0] = 1 + 3 * r, ws[1] = 2, wn[0] = 3, wn[1] = 5;
  rs[0] = 2 * r, rs[1] = 1, rn[0] = 5, rn[1] = 8;
}

static void put(unsigned char *f, int64_t i, int64_t j, int32_t v) {
  memcpy(f + DISP + (i * NCOLS + j) * ESZ, &v, ESZ);
}

/* The three images of the file, and which of its bytes some box covers. */
static void file_images(ctx_t *c) {
  c->f0 = malloc(FILE_BYTES);
  c->f1 = malloc(FILE_BYTES);
  c->f2 = malloc(FILE_BYTES);
  c->inbox = calloc(FILE_BYTES, 1);
  tu_fill_bytes(c->f0, FILE_BYTES, 0xe47, 0);
  memcpy(c->f1, c->f0, FILE_BYTES);
  for (int64_t i = 0; i < NROWS; i++)
    for (int64_t j = 0; j < NCOLS; j++)
      put(c->f1, i, j, v1(i, j));
  memcpy(c->f2, c->f1, FILE_BYTES);
  for (int r = 0; r < c->P; r++) {
    int64_t ws[2], wn[2], rs[2], rn[2];
    boxes(r, ws, wn, rs, rn);
    for (int64_t i = 0; i < NROWS; i++)
      for (int64_t j = 0; j < NCOLS; j++)
        if (in_box(ws, wn, i, j)) {
          put(c->f2, i, j, v2(i, j));
          memset(c->inbox + DISP + (i * NCOLS + j) * ESZ, 1, ESZ);
        }
  }
}

/* This rank's buffers, from first principles: it owns the rows i with
 * (i / 2) mod P == me, as local row (i / 2) / P * 2 + i % 2. */
static void buffers(ctx_t *c) {
  int64_t rows = 0;
  for (int64_t i = 0; i < NROWS; i++)
    rows += (i / 2) % c->P == c->me;
  c->lbytes = rows * LCOLS * ESZ;
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
      int32_t v = v1(i, j);
      memcpy(c->wbuf + (l * LCOLS + j + 1) * ESZ, &v, ESZ);
      memcpy(c->rwant + (l * LCOLS + j + 1) * ESZ, &v, ESZ);
    }
  }
  boxes(c->me, c->wstart, c->wcount, c->rstart, c->rcount);
  c->wsec = malloc(sizeof(int32_t) * (size_t)(c->wcount[0] * c->wcount[1]));
  c->rsec = malloc(sizeof(int32_t) * (size_t)(c->rcount[0] * c->rcount[1]));
  c->rsecwant = malloc(sizeof(int32_t) * (size_t)(c->rcount[0] * c->rcount[1]));
  for (int64_t i = 0; i < c->wcount[0]; i++)
    for (int64_t j = 0; j < c->wcount[1]; j++)
      c->wsec[i * c->wcount[1] + j] = v2(c->wstart[0] + i, c->wstart[1] + j);
  for (int64_t i = 0; i < c->rcount[0]; i++)
    for (int64_t j = 0; j < c->rcount[1]; j++) {
      int64_t gi = c->rstart[0] + i, gj = c->rstart[1] + j;
      memcpy(&c->rsecwant[i * c->rcount[1] + j],
             c->f2 + DISP + (gi * NCOLS + gj) * ESZ, ESZ);
    }
}

static void free_data(ctx_t *c) {
  free(c->wbuf), free(c->rwant), free(c->rbuf);
  free(c->wsec), free(c->rsec), free(c->rsecwant);
  free(c->f0), free(c->f1), free(c->f2), free(c->inbox);
}

/* ---- checks ---------------------------------------------------------------
 */

/* Every rank's codes rc[0..n), without the wrappers and without
 * busy-waiting (more processes than cores here): min and max of each. */
static void codes_all(int n, const int *rc, int *lo, int *hi) {
  int in[2 * NPH], out[2 * NPH];
  for (int i = 0; i < n; i++)
    in[i] = rc[i], in[n + i] = -rc[i];
  MPI_Request rq;
  MPI_Iallreduce(in, out, 2 * n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
  for (int done = 0; !done;) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (!done)
      sched_yield();
  }
  for (int i = 0; i < n; i++)
    hi[i] = out[i], lo[i] = -out[n + i];
}

static void codes_of(int rc, int *lo, int *hi) { codes_all(1, &rc, lo, hi); }

/* What the file may hold after a phase. */
enum { WANT_F0, WANT_F1, WANT_F0_OR_F1, WANT_F2, WANT_F1_OR_F2 };

/* Rank 0 checks the file. No barrier is needed: every collective call
 * ends in an agreement that no rank enters before its own I/O is done. */
static void check_file(ctx_t *c, int want, const char *what) {
  if (c->me != 0)
    return;
  int64_t n = -1;
  unsigned char *got = tu_read_file(c->path, &n);
  if (!TU_EQ_I64(n, FILE_BYTES)) {
    fprintf(stderr, "  (%s)\n", what);
    free(got);
    return;
  }
  long bad = 0;
  int64_t first = -1;
  for (int64_t b = 0; b < FILE_BYTES; b++) {
    bool in = b >= DISP && b < DISP + ARRAY_BYTES, ok;
    unsigned char g = got[b];
    switch (want) {
    case WANT_F0:
      ok = g == c->f0[b];
      break;
    case WANT_F1:
      ok = g == c->f1[b];
      break;
    case WANT_F0_OR_F1:
      ok = in ? g == c->f0[b] || g == c->f1[b] : g == c->f0[b];
      break;
    case WANT_F2:
      ok = g == c->f2[b];
      break;
    default:
      ok = c->inbox[b] ? g == c->f1[b] || g == c->f2[b] : g == c->f1[b];
      break;
    }
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
  free(got);
}

/* ---- one scenario ---------------------------------------------------------
 */

/* A fault: the target's k-th call of kind fails with err (kind FW_NKINDS:
 * the posix close, through DARRAYIO_FAULT); target -1: none. */
typedef struct fault {
  int kind, target, err;
  int64_t k;
  int phase;      /* where the target makes the k-th call */
  bool exception; /* it is the last collective of that phase's agreement */
} fault_t;

typedef struct outcome {
  int rc[NPH];
  char msg[NPH][DARRAY_ERRMSG_LEN];
  int64_t calls[NPH][FW_NKINDS]; /* this rank's, after each phase */
} outcome_t;

typedef struct run {
  ctx_t *c;
  const fault_t *ft;
  outcome_t *o;
  darray_t a;
  darray_file_t f;
  char what[300];
} run_t;

static void after(run_t *r, int p, int rc, const char *msg) {
  fw_arm(false);
  r->o->rc[p] = rc;
  snprintf(r->o->msg[p], DARRAY_ERRMSG_LEN, "%s", msg);
  for (int k = 0; k < FW_NKINDS; k++)
    r->o->calls[p][k] = fw_calls(k);
}

/* Whether every rank may go on after a phase that creates a handle: the
 * same decision everywhere (a disagreement is counted, then everyone
 * stops). */
static bool go_on(run_t *r, int p) {
  int lo, hi;
  codes_of(r->o->rc[p], &lo, &hi);
  return lo == DARRAY_SUCCESS && hi == DARRAY_SUCCESS;
}

/* The exception at open (and a disagreement there, which is counted):
 * the others hold an open file the target has closed; they release theirs
 * without the close's agreement, which the target cannot join (mpiio: the
 * close itself is collective, and pairs with the target's). */
static void drop_file(darray_file_t *pf) {
  darray_file_t f = *pf;
  if (f == NULL)
    return;
  darray__file_unregister(f); /* off the process's list of open files */
  f->io.ops->close(&f->io);
  MPI_Comm_free(&f->comm);
  f->magic = DARRAY_MAGIC_DEAD;
  free(f);
  *pf = NULL;
}

static int describe(run_t *r) {
  int64_t g[2] = {NROWS, NCOLS}, k[2] = {2, DARRAY_DEFAULT_ARG};
  int64_t ghost[2] = {0, 1};
  darray_dist_t d[2] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_NONE};
  int grid[2] = {0, 1}; /* MPI_Dims_create fills in P */
  int rc = darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &r->a);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_distribution(r->a, d, k);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_grid(r->a, grid);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_memory_layout(r->a, DARRAY_ORDER_C, ghost, NULL);
  if (rc == DARRAY_SUCCESS)
    rc = darray_set_displacement(r->a, DISP);
  return rc;
}

/* create, commit, open: the handles; false when the scenario stops. */
static bool make_handles(run_t *r) {
  ctx_t *c = r->c;
  const fault_t *ft = r->ft;
  fw_arm(true);
  int rc = describe(r);
  after(r, PH_CREATE, rc, darray_errmsg(r->a));
  if (ft->exception && ft->phase == PH_CREATE)
    return false;
  if (!go_on(r, PH_CREATE))
    return false;
  fw_arm(true);
  rc = darray_commit(r->a);
  after(r, PH_COMMIT, rc, darray_errmsg(r->a));
  if (ft->exception && ft->phase == PH_COMMIT)
    return false;
  if (!go_on(r, PH_COMMIT))
    return false;
  if (ft->kind == FW_NKINDS) { /* the posix close, at the target */
    char spec[64];
    snprintf(spec, sizeof spec, "op=close,index=%lld,error=EIO,rank=%d",
             (long long)ft->k, ft->target);
    setenv("DARRAYIO_FAULT", spec, 1);
  }
  fw_arm(true);
  rc = darray_file_open(MPI_COMM_WORLD, c->path, DARRAY_MODE_RDWR, c->info,
                        &r->f);
  after(r, PH_OPEN, rc, darray_errmsg(NULL));
  unsetenv("DARRAYIO_FAULT");
  TU_CHECK((r->f == NULL) == (rc != DARRAY_SUCCESS));
  if (ft->exception && ft->phase == PH_OPEN) {
    drop_file(&r->f);
    check_file(c, WANT_F0, r->what);
    return false;
  }
  if (!go_on(r, PH_OPEN)) {
    drop_file(&r->f); /* only after a disagreement */
    check_file(c, WANT_F0, r->what);
    return false;
  }
  check_file(c, WANT_F0, r->what);
  return true;
}

/* A whole-array or box write, repeated (disarmed) after a failure. */
static void write_phase(run_t *r, int p) {
  ctx_t *c = r->c;
  bool sec = p == PH_WSEC;
  char w[350];
  fw_arm(true);
  int rc = sec ? darray_write_section(r->f, r->a, c->wstart, c->wcount,
                                      DARRAY_ORDER_C, c->wsec)
               : darray_write(r->f, r->a, c->wbuf);
  after(r, p, rc, darray_file_errmsg(r->f));
  int lo, hi;
  codes_of(rc, &lo, &hi);
  snprintf(w, sizeof w, "%s: %s", r->what, phase_names[p]);
  /* the exception: the write is done, only the target knows otherwise */
  bool failed =
      lo != DARRAY_SUCCESS && !(r->ft->exception && r->ft->phase == p);
  check_file(c,
             !failed ? (sec ? WANT_F2 : WANT_F1)
                     : (sec ? WANT_F1_OR_F2 : WANT_F0_OR_F1),
             w);
  if (!failed)
    return;
  rc = sec ? darray_write_section(r->f, r->a, c->wstart, c->wcount,
                                  DARRAY_ORDER_C, c->wsec)
           : darray_write(r->f, r->a, c->wbuf);
  if (!TU_OK(rc))
    fprintf(stderr, "  (%s again: %s)\n", w, darray_file_errmsg(r->f));
  check_file(c, sec ? WANT_F2 : WANT_F1, w);
}

/* A whole-array or box read, repeated (disarmed) after a failure; the
 * buffer must then hold exactly the file's values and its ghosts. */
static void read_phase(run_t *r, int p) {
  ctx_t *c = r->c;
  bool sec = p == PH_RSEC;
  int64_t n =
      sec ? (int64_t)sizeof(int32_t) * c->rcount[0] * c->rcount[1] : c->lbytes;
  void *buf = sec ? (void *)c->rsec : (void *)c->rbuf;
  const void *want = sec ? (const void *)c->rsecwant : (const void *)c->rwant;
  char w[350];
  snprintf(w, sizeof w, "%s: %s", r->what, phase_names[p]);
  memset(buf, GHOST_BYTE, (size_t)n);
  fw_arm(true);
  int rc = sec ? darray_read_section(r->f, r->a, c->rstart, c->rcount,
                                     DARRAY_ORDER_C, buf)
               : darray_read(r->f, r->a, buf);
  after(r, p, rc, darray_file_errmsg(r->f));
  int lo, hi;
  codes_of(rc, &lo, &hi);
  if (lo != DARRAY_SUCCESS && !(r->ft->exception && r->ft->phase == p)) {
    memset(buf, GHOST_BYTE, (size_t)n);
    rc = sec ? darray_read_section(r->f, r->a, c->rstart, c->rcount,
                                   DARRAY_ORDER_C, buf)
             : darray_read(r->f, r->a, buf);
    if (!TU_OK(rc))
      fprintf(stderr, "  (%s again: %s)\n", w, darray_file_errmsg(r->f));
  }
  if (rc == DARRAY_SUCCESS)
    c->wrong_bytes += tu_compare_bytes(buf, want, n, w);
  check_file(c, p == PH_READ ? WANT_F1 : WANT_F2, w);
}

/* The nine phases; codes not reached stay NOT_RUN. */
static void scenario(ctx_t *c, const fault_t *ft, outcome_t *o,
                     const char *what) {
  run_t r = {c, ft, o, NULL, NULL, ""};
  snprintf(r.what, sizeof r.what, "%s", what);
  snprintf(current, sizeof current, "%s", what);
  for (int p = 0; p < NPH; p++)
    o->rc[p] = NOT_RUN, o->msg[p][0] = '\0';
  if (c->me == 0)
    TU_EQ_INT(tu_write_file(c->path, c->f0, FILE_BYTES), 0);
  fw_reset();
  if (ft->target == c->me && ft->kind < FW_NKINDS)
    fw_rule(ft->kind, ft->k, ft->err);
  alarm(c->watchdog);
  c->scenarios++;
  if (make_handles(&r)) {
    write_phase(&r, PH_WRITE);
    read_phase(&r, PH_READ);
    write_phase(&r, PH_WSEC);
    read_phase(&r, PH_RSEC);
    fw_arm(true);
    int rc = darray_file_sync(r.f);
    after(&r, PH_SYNC, rc, darray_file_errmsg(r.f));
    fw_arm(true);
    rc = darray_file_close(&r.f);
    after(&r, PH_CLOSE, rc, darray_errmsg(NULL));
    char w[350];
    snprintf(w, sizeof w, "%s: close", what);
    check_file(c, WANT_F2, w);
  }
  fw_arm(false);
  darray_free(&r.a); /* local: frees whatever handle this rank holds */
  alarm(0);
}

/* ---- the expectations -----------------------------------------------------
 */

/* The code a fault of kind gives (for the MPI-IO kinds, the class the
 * test injects). */
static int code_of(int kind) {
  switch (kind) {
  case FW_ALLOC:
    return DARRAY_ENOMEM;
  case FW_COMM_FREE:
    return DARRAY_SUCCESS; /* the handle goes anyway */
  case FW_ATTR:
    return DARRAY_SUCCESS; /* a miss: every rank measures */
  case FW_DIMS_CREATE:
    return DARRAY_EGRID; /* "could not complete" */
  case FW_FILE_OPEN:
  case FW_FILE_SET_SIZE:
  case FW_FILE_READ_AT:
  case FW_FILE_SYNC:
  case FW_FILE_CLOSE:
  case FW_NKINDS:
    return DARRAY_EIO;
  case FW_FILE_WRITE_AT:
    return DARRAY_ENOSPC;
  default:
    return DARRAY_EMPI;
  }
}

static int err_of(int kind) {
  switch (kind) {
  case FW_FILE_OPEN:
  case FW_FILE_SET_SIZE:
  case FW_FILE_READ_AT:
  case FW_FILE_SYNC:
  case FW_FILE_CLOSE:
    return MPI_ERR_IO;
  case FW_FILE_WRITE_AT:
    return MPI_ERR_NO_SPACE;
  default:
    return MPI_ERR_OTHER;
  }
}

/* What the failing rank's message must name. */
static const char *cause_of(int kind) {
  if (kind == FW_DIMS_CREATE)
    return "MPI_Dims_create";
  if (kind == FW_FILE_SET_SIZE)
    return "MPI_File_set_size";
  int code = code_of(kind);
  return code == DARRAY_EMPI ? "MPI" : darray_strerror(code);
}

static void check_message(const ctx_t *c, const fault_t *ft, int p,
                          const outcome_t *o, const char *what) {
  char want[128];
  if (ft->kind == FW_FILE_OPEN) /* ROMIO fails the open everywhere */
    snprintf(want, sizeof want, "MPI_File_open");
  else if (c->me == ft->target)
    snprintf(want, sizeof want, "%s", cause_of(ft->kind));
  else
    snprintf(want, sizeof want, "rank %d", ft->target);
  if (!TU_CONTAINS(o->msg[p], want))
    fprintf(stderr, "  (%s: %s)\n", what, phase_names[p]);
}

/* Every phase: the same code everywhere (or the exception), the kind's
 * code where the fault struck, success elsewhere. */
static void check_outcome(ctx_t *c, const fault_t *ft, const outcome_t *o,
                          const char *what) {
  int lo[NPH], hi[NPH];
  codes_all(NPH, o->rc, lo, hi);
  for (int p = 0; p < NPH; p++) {
    if (ft->exception && p == ft->phase) {
      c->exceptions++;
      int want = c->me == ft->target ? DARRAY_EMPI : DARRAY_SUCCESS;
      if (!TU_EQ_CODE(o->rc[p], want))
        fprintf(stderr, "  (%s: %s: %s)\n", what, phase_names[p], o->msg[p]);
      continue; /* after create, commit or open nothing more runs */
    }
    if (lo[p] != hi[p]) {
      c->disagreements++;
      TU_FAIL("%s: phase %s: ranks returned different codes (%s .. %s): %s",
              what, phase_names[p], darray_err_name(lo[p]),
              darray_err_name(hi[p]), o->msg[p]);
      return;
    }
    if (o->rc[p] == NOT_RUN)
      continue;
    int want = p == ft->phase ? code_of(ft->kind) : DARRAY_SUCCESS;
    if (p == ft->phase && ft->kind == FW_ALLOC && o->rc[p] == DARRAY_SUCCESS) {
      c->absorbed++; /* an allocation with a fallback */
      if (getenv("FAULTS_VERBOSE") != NULL)
        printf("  rank %d: absorbed: %s\n", c->me, what);
      continue;
    }
    if (!TU_EQ_CODE(o->rc[p], want)) {
      fprintf(stderr, "  (%s: phase %s: %s)\n", what, phase_names[p],
              o->msg[p]);
      continue;
    }
    if (want != DARRAY_SUCCESS)
      check_message(c, ft, p, o, what);
  }
  if (c->me == ft->target && ft->kind < FW_NKINDS &&
      !TU_EQ_I64(fw_injected(), 1))
    fprintf(stderr, "  (%s: faults injected)\n", what);
}

/* ---- the sweep ------------------------------------------------------------
 */

static void one_fault(ctx_t *c, fault_t *ft,
                      const int64_t tdry[NPH][FW_NKINDS]) {
  const char *kname = ft->kind < FW_NKINDS ? fw_name(ft->kind) : "close(2)";
  if (c->only_kind != NULL && strcmp(c->only_kind, kname) != 0)
    return;
  ft->phase = -1;
  for (int p = 0; p < NPH && ft->phase < 0; p++)
    if (ft->kind < FW_NKINDS && tdry[p][ft->kind] >= ft->k)
      ft->phase = p;
  if (ft->kind == FW_NKINDS)
    ft->phase = PH_CLOSE;
  ft->exception = ft->kind == FW_IALLREDUCE && ft->phase >= 0 &&
                  tdry[ft->phase][FW_IALLREDUCE] == ft->k;
  ft->err = err_of(ft->kind);
  char what[300];
  snprintf(what, sizeof what, "%s: rank %d, %s #%lld (%s)", c->config,
           ft->target, kname, (long long)ft->k,
           ft->phase >= 0 ? phase_names[ft->phase] : "-");
  if (getenv("FAULTS_VERBOSE") != NULL && c->me == 0) {
    printf("  %s\n", what);
    fflush(stdout);
  }
  outcome_t o;
  scenario(c, ft, &o, what);
  check_outcome(c, ft, &o, what);
  c->injected[ft->kind]++;
}

/* The indices of a kind to try in one phase: [lo, hi] sampled. */
static int pick(int64_t lo, int64_t hi, int n, int64_t *ks) {
  int m = 0;
  for (int i = 0; i < n && lo <= hi; i++) {
    int64_t k = n == 1 ? lo : lo + (hi - lo) * i / (n - 1);
    if (m == 0 || ks[m - 1] != k)
      ks[m++] = k;
  }
  return m;
}

/* Whether a configuration's faults in phase p are worth trying: create
 * and commit do not depend on the file's hints (the first configuration
 * tries them), open, sync and close only on its back end (the first of
 * each tries them). */
static bool phase_wanted(const ctx_t *c, int s, int p) {
  if (c->full_phases)
    return true;
  if (p == PH_CREATE || p == PH_COMMIT)
    return s == 0;
  if (p == PH_OPEN || p == PH_SYNC || p == PH_CLOSE)
    return s == 0 || (strstr(configs[s].name, "mpiio") != NULL &&
                      strstr(configs[s - 1].name, "mpiio") == NULL);
  return true;
}

static void sweep_target(ctx_t *c, int s, int t,
                         const int64_t dry[NPH][FW_NKINDS], bool posix) {
  int64_t tdry[NPH][FW_NKINDS];
  memcpy(tdry, dry, sizeof tdry);
  MPI_Bcast(tdry, NPH * FW_NKINDS, MPI_INT64_T, t, MPI_COMM_WORLD);
  for (int kind = 0; kind < FW_NKINDS; kind++)
    for (int p = 0; p < NPH; p++) {
      if (!phase_wanted(c, s, p))
        continue;
      int64_t lo = (p > 0 ? tdry[p - 1][kind] : 0) + 1, hi = tdry[p][kind];
      int64_t ks[64];
      /* every allocation is its own failure path: all of them, once per
       * strategy (the back ends allocate nothing of their own) */
      bool all = kind == FW_ALLOC && c->full && posix && hi - lo < 64;
      int m = pick(lo, hi, all ? (int)(hi - lo + 1) : c->sample, ks);
      for (int i = 0; i < m; i++) {
        fault_t ft = {kind, t, 0, ks[i], -1, false};
        one_fault(c, &ft, tdry);
      }
    }
  if (posix && phase_wanted(c, s, PH_CLOSE) && tu_fault_injection()) {
    fault_t ft = {FW_NKINDS, t, 0, 1, -1, false};
    one_fault(c, &ft, tdry);
  }
}

/* ---- the first open on a communicator, and truncation ------------------
 */

/* The code of one open with a fault (checked as a phase is), then a
 * second open without one, which must succeed everywhere. */
static void reopen(ctx_t *c, MPI_Comm comm, const char *path, int mode,
                   MPI_Info info, const fault_t *ft, const char *what,
                   int64_t counts[FW_NKINDS]) {
  outcome_t o;
  darray_file_t f = NULL;
  snprintf(current, sizeof current, "%s", what);
  for (int p = 0; p < NPH; p++)
    o.rc[p] = NOT_RUN, o.msg[p][0] = '\0';
  fw_reset();
  if (ft->target == c->me)
    fw_rule(ft->kind, ft->k, ft->err);
  alarm(c->watchdog);
  c->scenarios++;
  fw_arm(true);
  o.rc[PH_OPEN] = darray_file_open(comm, path, mode, info, &f);
  fw_arm(false);
  snprintf(o.msg[PH_OPEN], DARRAY_ERRMSG_LEN, "%s", darray_errmsg(NULL));
  for (int k = 0; k < FW_NKINDS; k++)
    counts[k] = fw_calls(k);
  int lo, hi;
  if (ft->exception)
    drop_file(&f); /* the others' open, which the target left */
  codes_of(o.rc[PH_OPEN], &lo, &hi);
  if (lo != hi)
    drop_file(&f); /* after a disagreement: counted below */
  if (f != NULL && !TU_OK(darray_file_close(&f)))
    fprintf(stderr, "  (%s: close)\n", what);
  int rc = darray_file_open(comm, path, DARRAY_MODE_RDWR, info, &f);
  if (!TU_OK(rc))
    fprintf(stderr, "  (%s: open again: %s)\n", what, darray_errmsg(NULL));
  if (rc == DARRAY_SUCCESS && !TU_OK(darray_file_close(&f)))
    fprintf(stderr, "  (%s: close again)\n", what);
  alarm(0);
  if (ft->target >= 0) {
    check_outcome(c, ft, &o, what);
    c->injected[ft->kind]++;
  }
}

/* The first open on a communicator measures what a synchronization costs
 * and keeps it as the communicator's attribute (src/base/wait.c): a fault there
 * (an allreduce of the measurement, the attribute, its memory) must leave
 * the processes measuring again together, or not at all, at the next
 * open: else some wait in a measurement the others never start. */
static void fresh_comm(ctx_t *c) {
  static const int kinds[] = {FW_ALLOC, FW_IALLREDUCE, FW_ATTR};
  fault_t none = {FW_ALLOC, -1, 0, 0, -1, false};
  int64_t dry[NPH][FW_NKINDS] = {{0}};
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  c->config = "first open on a communicator";
  reopen(c, comm, c->path, DARRAY_MODE_RDWR, MPI_INFO_NULL, &none,
         "first open: dry run", dry[PH_OPEN]);
  MPI_Comm_free(&comm);
  for (int p = PH_OPEN + 1; p < NPH; p++)
    memcpy(dry[p], dry[PH_OPEN], sizeof dry[p]);
  for (int t = 0; t < c->P; t++) {
    if (!c->full && t != 1 && t != c->P - 1)
      continue;
    int64_t tdry[NPH][FW_NKINDS];
    memcpy(tdry, dry, sizeof tdry);
    MPI_Bcast(tdry, NPH * FW_NKINDS, MPI_INT64_T, t, MPI_COMM_WORLD);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
      for (int64_t k = 1; k <= tdry[PH_OPEN][kinds[i]]; k++) {
        if (c->only_kind != NULL && strcmp(c->only_kind, fw_name(kinds[i])))
          continue;
        fault_t ft = {kinds[i], t, err_of(kinds[i]), k, PH_OPEN, false};
        ft.exception =
            ft.kind == FW_IALLREDUCE && k == tdry[PH_OPEN][FW_IALLREDUCE];
        char what[300];
        int64_t counts[FW_NKINDS];
        snprintf(what, sizeof what, "%s: rank %d, %s #%lld", c->config, t,
                 fw_name(ft.kind), (long long)k);
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        reopen(c, comm, c->path, DARRAY_MODE_RDWR, MPI_INFO_NULL, &ft, what,
               counts);
        MPI_Comm_free(&comm);
      }
  }
}

/* An open with DARRAY_MODE_TRUNC on the mpiio back end, whose
 * MPI_File_set_size fails on one rank: every rank must fail, close the
 * file together (MPI_File_close is collective) and open it again. */
static void truncating(ctx_t *c) {
  MPI_Info info = tu_info("darray_backend=mpiio");
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  c->config = "mpiio open with truncation";
  for (int t = 0; t < c->P; t++) {
    if (c->only_kind != NULL && strcmp(c->only_kind, "file_set_size") != 0)
      break;
    fault_t ft = {FW_FILE_SET_SIZE, t, MPI_ERR_IO, 1, PH_OPEN, false};
    char what[300];
    int64_t counts[FW_NKINDS];
    snprintf(what, sizeof what, "%s: rank %d, file_set_size #1", c->config, t);
    reopen(c, MPI_COMM_WORLD, c->path2, mode, info, &ft, what, counts);
    TU_EQ_I64(counts[FW_FILE_SET_SIZE], 1);
  }
  MPI_Info_free(&info);
}

static void sweep_config(ctx_t *c, int s) {
  c->config = configs[s].name;
  if (c->only_config != NULL && strstr(c->config, c->only_config) == NULL)
    return;
  c->info = tu_info(configs[s].hints);
  fault_t none = {FW_ALLOC, -1, 0, 0, -1, false};
  outcome_t dry;
  char what[300];
  snprintf(what, sizeof what, "%s: dry run", c->config);
  scenario(c, &none, &dry, what);
  for (int p = 0; p < NPH; p++)
    if (!TU_OK(dry.rc[p]))
      fprintf(stderr, "  (%s: %s: %s)\n", what, phase_names[p], dry.msg[p]);
  if (c->me == 0) {
    printf("test_faults_ext: %s at P=%d: calls of rank 0:", c->config, c->P);
    for (int k = 0; k < FW_NKINDS; k++)
      if (dry.calls[PH_CLOSE][k] > 0)
        printf(" %s %lld", fw_name(k), (long long)dry.calls[PH_CLOSE][k]);
    printf("\n");
    for (int p = 0; getenv("FAULTS_VERBOSE") != NULL && p < NPH; p++)
      printf("  after %s: alloc %lld\n", phase_names[p],
             (long long)dry.calls[p][FW_ALLOC]);
    fflush(stdout);
  }
  bool posix = strstr(c->config, "posix") != NULL;
  for (int t = 0; t < c->P; t++)
    if (c->full || t == 1 || t == c->P - 1)
      sweep_target(c, s, t, (const int64_t(*)[FW_NKINDS])dry.calls, posix);
  MPI_Info_free(&c->info);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  ctx_t c = {0};
  c.P = tu_nprocs();
  c.me = tu_rank();
  /* under valgrind (make check-valgrind) the cut sweep: it is there for
   * the memory checks, which the sanitizer build runs on the whole one */
  bool slow = getenv("DARRAY_TEST_VALGRIND") != NULL;
  c.full = (c.P <= 2 && !slow) || getenv("FAULTS_FULL") != NULL;
  c.full_phases = getenv("FAULTS_FULL") != NULL;
  c.sample = c.full ? 3 : 2;
  if (getenv("FAULTS_SAMPLE") != NULL)
    c.sample = atoi(getenv("FAULTS_SAMPLE"));
  if (c.sample < 1 || c.sample > 16)
    c.sample = 3;
  c.watchdog = WATCHDOG_S;
  if (getenv("FAULTS_WATCHDOG") != NULL)
    c.watchdog = (unsigned)atoi(getenv("FAULTS_WATCHDOG"));
  c.only_config = getenv("FAULTS_CONFIG");
  c.only_kind = getenv("FAULTS_KIND");
  signal(SIGALRM, watchdog);
  if (tu_tmpname(c.path, sizeof c.path, "darray_faults_ext") == NULL ||
      tu_tmpname(c.path2, sizeof c.path2, "darray_faults_ext_trunc") == NULL)
    return tu_finish();
  file_images(&c);
  buffers(&c);
  /* the first open on a communicator measures what a synchronization
   * costs and keeps it (src/base/wait.c): done here, so that every dry run
   * counts what its scenarios do */
  darray_file_t f = NULL;
  if (c.me == 0)
    TU_EQ_INT(tu_write_file(c.path, c.f0, FILE_BYTES), 0);
  TU_OK(darray_file_open(MPI_COMM_WORLD, c.path, DARRAY_MODE_RDWR,
                         MPI_INFO_NULL, &f));
  TU_OK(darray_file_close(&f));
  for (int s = 0; s < NCONFIGS; s++)
    sweep_config(&c, s);
  if (c.only_config == NULL || strstr("first open", c.only_config))
    fresh_comm(&c);
  if (c.only_config == NULL || strstr("truncation", c.only_config))
    truncating(&c);
  long wrong = 0, total = 0;
  MPI_Allreduce(&c.wrong_bytes, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (c.me == 0) {
    for (int k = 0; k <= FW_NKINDS; k++)
      total += c.injected[k];
    printf("test_faults_ext: P=%d: %ld scenarios, %ld faults injected:", c.P,
           c.scenarios, total);
    for (int k = 0; k <= FW_NKINDS; k++)
      if (c.injected[k] > 0)
        printf(" %s %ld", k < FW_NKINDS ? fw_name(k) : "close(2)",
               c.injected[k]);
    printf("; %ld exceptions, %ld absorbed, %ld disagreements, "
           "%ld wrong bytes, 0 hangs\n",
           c.exceptions, c.absorbed, c.disagreements, wrong);
  }
  free_data(&c);
  tu_remove(c.path);
  tu_remove(c.path2);
  return tu_finish();
}
