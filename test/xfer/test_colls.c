/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_colls.c - darray_stats_t.collectives and .bytes_copied against
 * independent oracles.
 *
 * The oracle of collectives is MPI's profiling interface: this program
 * defines MPI's collective operations (reductions, gathers, broadcasts,
 * barriers, all-to-alls, scans, communicator dup, split, create and free;
 * blocking and nonblocking), counts each one it is called for while a
 * library call runs, and passes it on to PMPI_. The tests link the
 * library's objects, so its calls land here.
 *
 *  1. Every strategy (darray_strategy = direct, sieve, twophase, rows,
 *     static, groups, mapped; rows
 *     needs two processes and refuses sections), whole arrays and
 *     sections, writes and reads,
 *     each call made twice (the second one's plan is remembered): on every
 *     process, the call's collectives counted by the library equal those
 *     MPI saw; the same for darray_iwrite/darray_iread + darray_wait under
 *     darray_async = thread and files (the first request's post sets the
 *     file's requests up: collectives of their own).
 *  2. The limit of issue #16 on remembered whole-array calls (blocking):
 *     direct, sieve and mapped reads make exactly one collective (the
 *     agreement on
 *     the arguments and the result in one round); writes two (bad input on
 *     one process must change nothing on disk: the arguments are agreed on
 *     before the first byte is written); two-phase and rows two (the
 *     arguments before their exchange, the result after it: a process
 *     that failed before the exchange must not leave the others waiting in
 *     it, and the exchange carries no code to everyone); writer groups
 *     two and a synchronization of the group per chunk (one here).
 *  3. bytes_copied in cases counted by hand: direct calls on row blocks
 *     (one run, contiguous in memory and file): 0; sieve calls on column
 *     blocks (every run through the window): this process's bytes; two-phase
 *     in image mode with one aggregator: the array's bytes on rank 0 (the
 *     chunk's image is built from every process's bytes), 0 elsewhere (each
 *     stream is contiguous in its owner's buffer, sent as it lies); the
 *     file's pages mapped: this process's bytes, once.
 *  4. The folded reads of part 2 keep the error contract (P >= 2): after a
 *     direct write and two reads have succeeded, a read with buf = NULL on
 *     the last rank returns DARRAY_ENULL on every rank (its own message
 *     there, "failed on rank P-1: ..." elsewhere) in two collectives (the
 *     one agreement, then the failure's message from its rank); rank 0's
 *     read against the others' write of the same array, and against their
 *     section read, returns DARRAY_EINCONSISTENT on every rank ("made
 *     different calls"), nobody waiting. A repeated write of other values
 *     with buf = NULL on the last rank fails everywhere and changes no
 *     byte of the file (writes do not fold); then the array reads back
 *     exactly.
 *  5. After the one failure no agreement can tell (the result's allreduce
 *     failing on the last rank alone, injected through fault_wrap.c: that
 *     rank returns DARRAY_EMPI, the others success), the processes still
 *     fold the next read alike: once where it fails in a first read's end
 *     (which proves the plan), once in a folded read's; each time the next
 *     read succeeds everywhere in one collective (if one process folded
 *     and another did not, their collectives would pair wrongly and hang).
 *  6. A merged access (three arrays one after another, written and read
 *     by requests queued together, darray_async = thread; every strategy
 *     but rows, which does not merge): the library's count equals MPI's.
 *
 * Run: mpiexec -n 1..4 ./test_colls
 */
#include "io/fault_wrap.h"
#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the oracle: MPI's collectives, counted --------------------------- */

static atomic_long seen; /* every thread's: the I/O thread's too */
static atomic_int armed;

static void count(void) {
  if (atomic_load(&armed))
    atomic_fetch_add(&seen, 1);
}

#define BLOCKING_COLL(name, params, args)                                      \
  int MPI_##name params {                                                     \
    count();                                                                  \
    return PMPI_##name args;                                                  \
  }

BLOCKING_COLL(Allreduce, (const void *s, void *r, int n, MPI_Datatype t,
                          MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
BLOCKING_COLL(Iallreduce, (const void *s, void *r, int n, MPI_Datatype t,
                           MPI_Op o, MPI_Comm c, MPI_Request *q),
              (s, r, n, t, o, c, q))
BLOCKING_COLL(Reduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
                       int root, MPI_Comm c), (s, r, n, t, o, root, c))
BLOCKING_COLL(Ireduce, (const void *s, void *r, int n, MPI_Datatype t,
                        MPI_Op o, int root, MPI_Comm c, MPI_Request *q),
              (s, r, n, t, o, root, c, q))
BLOCKING_COLL(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c),
              (b, n, t, root, c))
BLOCKING_COLL(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c,
                       MPI_Request *q), (b, n, t, root, c, q))
BLOCKING_COLL(Allgather, (const void *s, int sn, MPI_Datatype st, void *r,
                          int rn, MPI_Datatype rt, MPI_Comm c),
              (s, sn, st, r, rn, rt, c))
BLOCKING_COLL(Iallgather, (const void *s, int sn, MPI_Datatype st, void *r,
                           int rn, MPI_Datatype rt, MPI_Comm c,
                           MPI_Request *q), (s, sn, st, r, rn, rt, c, q))
BLOCKING_COLL(Allgatherv, (const void *s, int sn, MPI_Datatype st, void *r,
                           const int rn[], const int d[], MPI_Datatype rt,
                           MPI_Comm c), (s, sn, st, r, rn, d, rt, c))
BLOCKING_COLL(Gather, (const void *s, int sn, MPI_Datatype st, void *r, int rn,
                       MPI_Datatype rt, int root, MPI_Comm c),
              (s, sn, st, r, rn, rt, root, c))
BLOCKING_COLL(Scatter, (const void *s, int sn, MPI_Datatype st, void *r,
                        int rn, MPI_Datatype rt, int root, MPI_Comm c),
              (s, sn, st, r, rn, rt, root, c))
BLOCKING_COLL(Alltoall, (const void *s, int sn, MPI_Datatype st, void *r,
                         int rn, MPI_Datatype rt, MPI_Comm c),
              (s, sn, st, r, rn, rt, c))
BLOCKING_COLL(Ialltoall, (const void *s, int sn, MPI_Datatype st, void *r,
                          int rn, MPI_Datatype rt, MPI_Comm c, MPI_Request *q),
              (s, sn, st, r, rn, rt, c, q))
BLOCKING_COLL(Alltoallv, (const void *s, const int sn[], const int sd[],
                          MPI_Datatype st, void *r, const int rn[],
                          const int rd[], MPI_Datatype rt, MPI_Comm c),
              (s, sn, sd, st, r, rn, rd, rt, c))
BLOCKING_COLL(Barrier, (MPI_Comm c), (c))
BLOCKING_COLL(Ibarrier, (MPI_Comm c, MPI_Request *q), (c, q))
BLOCKING_COLL(Scan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
                     MPI_Comm c), (s, r, n, t, o, c))
BLOCKING_COLL(Exscan, (const void *s, void *r, int n, MPI_Datatype t,
                       MPI_Op o, MPI_Comm c), (s, r, n, t, o, c))
BLOCKING_COLL(Comm_dup, (MPI_Comm c, MPI_Comm *n), (c, n))
BLOCKING_COLL(Comm_idup, (MPI_Comm c, MPI_Comm *n, MPI_Request *q), (c, n, q))
BLOCKING_COLL(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm *n),
              (c, color, key, n))
BLOCKING_COLL(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i,
                                MPI_Comm *n), (c, type, key, i, n))
BLOCKING_COLL(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm *n), (c, g, n))
BLOCKING_COLL(Comm_free, (MPI_Comm * c), (c))
BLOCKING_COLL(Win_allocate_shared, (MPI_Aint n, int u, MPI_Info i, MPI_Comm c,
                                    void *p, MPI_Win *w), (n, u, i, c, p, w))
BLOCKING_COLL(Win_free, (MPI_Win * w), (w))

/* ---- calls, measured ---------------------------------------------------- */

typedef struct meas {
  int64_t lib, mpi; /* the call's collectives: the library's count, MPI's */
  int64_t copied;   /* the call's bytes_copied */
} meas_t;

static void stats_of(darray_file_t f, darray_stats_t *st) {
  memset(st, 0, sizeof *st);
  TU_OK(darray_file_get_stats(f, st));
}

static void arm(darray_file_t f, darray_stats_t *before) {
  stats_of(f, before);
  atomic_store(&seen, 0);
  atomic_store(&armed, 1);
}

static meas_t disarm(darray_file_t f, const darray_stats_t *before) {
  atomic_store(&armed, 0);
  darray_stats_t after;
  stats_of(f, &after);
  return (meas_t){after.collectives - before->collectives,
                  atomic_load(&seen),
                  after.bytes_copied - before->bytes_copied};
}

enum { WHOLE, SECTION, NONBLOCKING };

/* One call of the given kind; the section is this process's own block. */
static meas_t call(darray_file_t f, darray_t a, int kind, bool write,
                   int32_t *buf) {
  darray_stats_t before;
  int64_t start[2], count[2];
  TU_OK(darray_local_start(a, 0, start));
  TU_OK(darray_local_shape(a, 0, count));
  arm(f, &before);
  int rc;
  if (kind == WHOLE)
    rc = write ? darray_write(f, a, buf) : darray_read(f, a, buf);
  else if (kind == SECTION)
    rc = write ? darray_write_section(f, a, start, count, DARRAY_ORDER_C, buf)
               : darray_read_section(f, a, start, count, DARRAY_ORDER_C, buf);
  else {
    darray_request_t req = DARRAY_REQUEST_NULL;
    rc = write ? darray_iwrite(f, a, buf, &req) : darray_iread(f, a, buf, &req);
    if (rc == DARRAY_SUCCESS)
      rc = darray_wait(f, &req);
  }
  atomic_store(&armed, 0);
  if (!TU_OK(rc))
    fprintf(stderr, "  rank %d: %s\n", tu_rank(), darray_file_errmsg(f));
  return disarm(f, &before);
}

/* A G0 x G1 int32 array over a grid of p0 x p1 processes, BLOCK both. */
static darray_t array(int64_t g0, int64_t g1, int p0, int p1) {
  darray_t a = NULL;
  int64_t g[2] = {g0, g1};
  int grid[2] = {p0, p1};
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_set_grid(a, grid));
  TU_OK(darray_commit(a));
  return a;
}

static darray_file_t open_with(const char *path, const char *hints) {
  darray_file_t f = NULL;
  MPI_Info info = tu_info(hints);
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f));
  MPI_Info_free(&info);
  return f;
}

static const char *const strategies[] = {"direct", "sieve",  "twophase",
                                         "rows",   "static", "groups",
                                         "mapped"};
static const char *const kinds[] = {"whole", "section", "nonblocking"};

/* Whether processes counted different numbers (they should not: every
 * collective is made by every process). */
static int64_t same_everywhere(int64_t v) {
  int64_t lo = v, hi = v;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

/* ---- 1 and 2: collectives ------------------------------------------------ */

/* The limit of part 2 on a remembered blocking whole-array call. */
static int64_t memo_limit(const char *strategy, bool write) {
  if (strcmp(strategy, "groups") == 0)
    return 3; /* and its one chunk's synchronization of the group */
  return !write && (strcmp(strategy, "direct") == 0 ||
                    strcmp(strategy, "sieve") == 0 ||
                    strcmp(strategy, "mapped") == 0)
             ? 1
             : 2;
}

static void one_strategy(const char *s, const char *mode) {
  char path[4200], stem[64], hints[200];
  int P = tu_nprocs();
  snprintf(stem, sizeof stem, "colls_%s_%s", s, mode);
  if (tu_tmpname(path, sizeof path, stem) == NULL)
    return;
  snprintf(hints, sizeof hints, "darray_strategy=%s;darray_async=%s", s,
           mode);
  darray_t a = array(6, 4 * P, 1, P); /* column blocks: strided in the file */
  int64_t n = 0;
  TU_OK(darray_local_count(a, &n));
  int32_t *buf = calloc((size_t)n + 1, sizeof *buf);
  for (int64_t i = 0; i < n; i++)
    buf[i] = (int32_t)(tu_rank() * 1000 + i);
  darray_file_t f = open_with(path, hints);
  bool rows = strcmp(s, "rows") == 0; /* refuses section calls */
  for (int kind = WHOLE; kind <= NONBLOCKING; kind++)
    for (int w = 1; w >= 0 && !(kind == SECTION && rows); w--)
      for (int rep = 0; rep < 2; rep++) {
        meas_t m = call(f, a, kind, w == 1, buf);
        bool ok = TU_EQ_I64(m.lib, m.mpi) && TU_CHECK(m.mpi > 0);
        ok &= TU_CHECK(same_everywhere(m.lib));
        if (kind == WHOLE && rep == 1)
          ok &= TU_CHECK(m.lib == memo_limit(s, w == 1));
        if (tu_rank() == 0)
          printf("  P=%d %-8s async=%-6s %-11s %-5s %-6s collectives %lld "
                 "(MPI saw %lld)%s\n", P, s, mode, kinds[kind],
                 w ? "write" : "read", rep ? "repeat" : "first",
                 (long long)m.lib, (long long)m.mpi, ok ? "" : "  <-- FAIL");
      }
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  free(buf);
  darray_free(&a);
}

static void part_collectives(void) {
  static const char *const modes[] = {"thread", "files"};
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < 7; i++) {
      if (strcmp(strategies[i], "rows") == 0 && tu_nprocs() == 1) {
        if (m == 0)
          tu_skip_part("rows", "rows needs a group of two processes");
        continue;
      }
      one_strategy(strategies[i], modes[m]);
    }
}

/* ---- 6: a merged access ------------------------------------------------- */

/* the library's test hooks (src/async/async.h) */
void darray__async_hold(bool on);
int64_t darray__async_merged(void);

/* Three arrays stored one after another, written then read by requests
 * queued together: one merged access (src/async/async_merge.c) whose
 * collectives, its rounds and its strategy's, the library counts as MPI
 * saw them. */
static void one_merged(const char *s) {
  enum { B = 3 };
  char path[4200], stem[64], hints[200];
  int P = tu_nprocs();
  snprintf(stem, sizeof stem, "colls_merged_%s", s);
  if (tu_tmpname(path, sizeof path, stem) == NULL)
    return;
  snprintf(hints, sizeof hints, "darray_strategy=%s;darray_async=thread", s);
  darray_t a[B];
  int32_t *buf[B];
  int64_t n = 0;
  for (int k = 0; k < B; k++) {
    int64_t g[2] = {6, 4 * P};
    int grid[2] = {1, P};
    a[k] = NULL;
    TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a[k]));
    TU_OK(darray_set_grid(a[k], grid));
    TU_OK(darray_set_displacement(a[k], k * 6 * 4 * P * 4));
    TU_OK(darray_commit(a[k]));
    TU_OK(darray_local_count(a[k], &n));
    buf[k] = calloc((size_t)n + 1, sizeof *buf[k]);
  }
  darray_file_t f = open_with(path, hints);
  for (int w = 1; w >= 0; w--) {
    darray_request_t req[B];
    darray_stats_t before;
    int64_t m0 = darray__async_merged();
    arm(f, &before);
    darray__async_hold(true);
    for (int k = 0; k < B; k++)
      TU_OK(w ? darray_iwrite(f, a[k], buf[k], &req[k])
              : darray_iread(f, a[k], buf[k], &req[k]));
    darray__async_hold(false);
    TU_OK(darray_wait_all(f, B, req, NULL));
    meas_t m = disarm(f, &before);
    bool ok = TU_EQ_I64(darray__async_merged() - m0, 1);
    ok &= TU_EQ_I64(m.lib, m.mpi) && TU_CHECK(m.mpi > 0);
    ok &= TU_CHECK(same_everywhere(m.lib));
    if (tu_rank() == 0)
      printf("  P=%d %-8s merged %d %-5s collectives %lld (MPI saw %lld)%s\n",
             P, s, B, w ? "write" : "read", (long long)m.lib,
             (long long)m.mpi, ok ? "" : "  <-- FAIL");
  }
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  for (int k = 0; k < B; k++) {
    free(buf[k]);
    darray_free(&a[k]);
  }
}

static void part_merged(int level) {
  if (level < MPI_THREAD_MULTIPLE) {
    tu_skip_part("merged accesses", "need MPI_THREAD_MULTIPLE");
    return;
  }
  for (int i = 0; i < 5; i++)
    if (strcmp(strategies[i], "rows") != 0) /* does not merge */
      one_merged(strategies[i]);
}

/* ---- 3: bytes copied ----------------------------------------------------- */

/* Both directions of a whole-array call under hints, on array a: each
 * process's bytes_copied must be want[rank]. */
static void copied_case(const char *what, const char *hints, darray_t a,
                        int64_t want) {
  char path[4200];
  if (tu_tmpname(path, sizeof path, "colls_copied") == NULL)
    return;
  int64_t n = 0;
  TU_OK(darray_local_count(a, &n));
  int32_t *buf = calloc((size_t)n + 1, sizeof *buf);
  for (int64_t i = 0; i < n; i++)
    buf[i] = (int32_t)(tu_rank() * 1000 + i);
  darray_file_t f = open_with(path, hints);
  for (int w = 1; w >= 0; w--) {
    meas_t m = call(f, a, WHOLE, w == 1, buf);
    bool ok = TU_EQ_I64(m.copied, want);
    darray_stats_t st;
    stats_of(f, &st);
    if (tu_rank() == 0 || !ok)
      printf("  P=%d rank %d %s %s: bytes_copied %lld (want %lld), "
             "strategy %s\n", tu_nprocs(), tu_rank(), what,
             w ? "write" : "read", (long long)m.copied, (long long)want,
             st.strategy);
  }
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  free(buf);
}

static void part_copied(void) {
  int P = tu_nprocs();
  int64_t G0 = 6, G1 = 4 * P, bytes = G0 * G1 * 4;
  /* row blocks: one run each, contiguous in memory and in the file */
  darray_t rows = array(4 * P, 5, P, 1);
  copied_case("direct, row blocks", "darray_strategy=direct", rows, 0);
  darray_free(&rows);
  /* column blocks: 6 runs of 16 bytes, sieved through one window (at
   * P = 1 the block is the array: one run, moved from the buffer) */
  darray_t cols = array(G0, G1, 1, P);
  copied_case("sieve, column blocks",
              "darray_strategy=sieve;romio_ds_read=enable;"
              "romio_ds_write=enable",
              cols, P == 1 ? 0 : G0 * 4 * 4);
  /* two-phase, one aggregator, image mode forced: rank 0 builds the
   * chunk's image from everyone's bytes; owners send their streams as
   * they lie in their buffers */
  copied_case("twophase image, one aggregator",
              "darray_strategy=twophase;cb_nodes=1;"
              "darray_cb_image_piece=1099511627776",
              cols, tu_rank() == 0 ? bytes : 0);
  /* the file's pages mapped: each byte copied once, between the buffer
   * and the page, whatever the layout (contiguous at P = 1 too) */
  copied_case("mapped, column blocks",
              "darray_strategy=mapped;darray_map=enable", cols, G0 * 4 * 4);
  darray_free(&cols);
}

/* ---- 4: folded calls keep the error contract ----------------------------- */

static void expect_everywhere(int rc, int want, darray_file_t f,
                              const char *mine, const char *others,
                              bool failing) {
  TU_EQ_CODE(rc, want);
  const char *msg = darray_file_errmsg(f);
  if (!TU_CONTAINS(msg, failing ? mine : others))
    fprintf(stderr, "  rank %d: %s\n", tu_rank(), msg);
}

static void part_fold(void) {
  int P = tu_nprocs(), me = tu_rank();
  if (P < 2) {
    tu_skip_part("fold", "a failure on some processes needs two");
    return;
  }
  char path[4200];
  if (tu_tmpname(path, sizeof path, "colls_fold") == NULL)
    return;
  darray_t a = array(6, 4 * P, 1, P);
  int64_t n = 0, start[2], count[2];
  TU_OK(darray_local_count(a, &n));
  TU_OK(darray_local_start(a, 0, start));
  TU_OK(darray_local_shape(a, 0, count));
  int32_t *buf = calloc((size_t)n, sizeof *buf), *back = calloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++)
    buf[i] = (int32_t)(me * 1000 + i);
  darray_file_t f = open_with(path, "darray_strategy=direct");
  TU_OK(darray_write(f, a, buf));
  TU_OK(darray_read(f, a, back)); /* the read's plan proven */
  TU_OK(darray_read(f, a, back));
  darray_stats_t before;
  arm(f, &before);
  int rc = darray_read(f, a, me == P - 1 ? NULL : back);
  atomic_store(&armed, 0);
  expect_everywhere(rc, DARRAY_ENULL, f, "buf is NULL", "failed on rank",
                    me == P - 1);
  meas_t m = disarm(f, &before); /* (a successful call clears the message) */
  TU_EQ_I64(m.lib, m.mpi);
  TU_EQ_I64(m.mpi, 2); /* the one agreement, and the failure's message */
  rc = me == 0 ? darray_read(f, a, back) : darray_write(f, a, buf);
  expect_everywhere(rc, DARRAY_EINCONSISTENT, f, "made different calls",
                    "made different calls", true);
  rc = me == 0 ? darray_read(f, a, back)
               : darray_read_section(f, a, start, count, DARRAY_ORDER_C,
                                     back);
  expect_everywhere(rc, DARRAY_EINCONSISTENT, f, "made different calls",
                    "made different calls", true);
  /* a repeated write with bad input on one process: nothing on disk */
  TU_OK(darray_file_sync(f));
  int64_t size0 = 0, size1 = 0;
  unsigned char *disk0 = me == 0 ? tu_read_file(path, &size0) : NULL;
  int32_t *other = calloc((size_t)n, sizeof *other);
  for (int64_t i = 0; i < n; i++)
    other[i] = -buf[i] - 1;
  rc = darray_write(f, a, me == P - 1 ? NULL : other);
  expect_everywhere(rc, DARRAY_ENULL, f, "buf is NULL", "failed on rank",
                    me == P - 1);
  TU_OK(darray_file_sync(f));
  unsigned char *disk1 = me == 0 ? tu_read_file(path, &size1) : NULL;
  if (me == 0 && TU_EQ_I64(size1, size0))
    tu_compare_bytes(disk1, disk0, size0, "the file after a refused write");
  free(disk0);
  free(disk1);
  free(other);
  memset(back, 0, sizeof *back * (size_t)n);
  TU_OK(darray_read(f, a, back));
  tu_compare_bytes(back, buf, 4 * n, "the array after the folded calls");
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  free(buf);
  free(back);
  darray_free(&a);
}

/* ---- 5: an unagreeable failure does not split the fold ------------------- */

/* A direct read whose index-th allreduce fails on the last rank. */
static void read_failing(darray_file_t f, darray_t a, int32_t *buf,
                         int64_t index) {
  int P = tu_nprocs(), me = tu_rank();
  fw_reset();
  if (me == P - 1)
    fw_rule(FW_IALLREDUCE, index, MPI_ERR_OTHER);
  fw_arm(true);
  int rc = darray_read(f, a, buf);
  fw_arm(false);
  TU_EQ_I64(fw_injected(), me == P - 1 ? 1 : 0);
  TU_EQ_CODE(rc, me == P - 1 ? DARRAY_EMPI : DARRAY_SUCCESS);
  if (me == P - 1)
    TU_CONTAINS(darray_file_errmsg(f), "agreeing on the result");
  fw_reset();
}

static void read_once(darray_file_t f, darray_t a, int32_t *buf) {
  darray_stats_t before;
  arm(f, &before);
  int rc = darray_read(f, a, buf);
  meas_t m = disarm(f, &before);
  TU_OK(rc);
  TU_EQ_I64(m.lib, m.mpi);
  TU_EQ_I64(m.mpi, 1); /* folded everywhere */
}

static void part_unagreeable(void) {
  if (tu_nprocs() < 2) {
    tu_skip_part("unagreeable", "a failure on one process needs two");
    return;
  }
  char path[4200];
  if (tu_tmpname(path, sizeof path, "colls_late") == NULL)
    return;
  darray_t a = array(6, 4 * tu_nprocs(), 1, tu_nprocs());
  int64_t n = 0;
  TU_OK(darray_local_count(a, &n));
  int32_t *buf = calloc((size_t)n, sizeof *buf);
  for (int64_t i = 0; i < n; i++)
    buf[i] = (int32_t)(tu_rank() * 1000 + i);
  darray_file_t f = open_with(path, "darray_strategy=direct");
  TU_OK(darray_write(f, a, buf)); /* something to read */
  read_failing(f, a, buf, 2); /* a first read: its end is the second */
  read_once(f, a, buf);
  read_failing(f, a, buf, 1); /* a folded read: its only one */
  read_once(f, a, buf);
  TU_OK(darray_file_close(&f));
  tu_remove(path);
  free(buf);
  darray_free(&a);
}

int main(int argc, char **argv) {
  int level = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  if (level < MPI_THREAD_MULTIPLE && tu_rank() == 0)
    printf("  (thread level %d: darray_async=thread runs as the level "
           "allows)\n", level);
  part_collectives();
  part_copied();
  part_fold();
  part_unagreeable();
  part_merged(level);
  return tu_finish();
}
