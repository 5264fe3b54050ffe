/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_groups_waits.c - the writer-group strategy (src/groups) waits as
 * the rest of the library does (issue 38): every collective it adds to a
 * call is a nonblocking one waited for with the polite wait (wait.c),
 * never a blocking MPI call, which MPI implementations wait in busily
 * (at 4 processes on 2 cores, 146 small arrays in groups took over 90 s:
 * the shared window MPICH made per file, 125-340 ms, and the agreements
 * on it, were blocking collectives).
 *
 * The test counts, through the MPI profiling interface (this program's
 * MPI_Allreduce, MPI_Win_allocate_shared, ... wrap PMPI's), the blocking
 * collective calls the library makes in a file's life (open, a write,
 * close, open, a read, close) of small 3-D arrays, with
 * darray_strategy=groups and with darray_strategy=twophase, whose waits
 * are all polite: groups must make no more than two-phase does (what is
 * left is the file's own: its communicator's duplicate and free). The
 * counts are of calls, not times: the check cannot pass or fail with the
 * machine's load. The bytes are checked too: rank 0 reads the file raw
 * against the element formula, every rank reads its piece back.
 * Run: mpiexec -n 1..4 ./test_groups_waits
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the count ---------------------------------------------------------- */

static int counting; /* only around the library's calls */
static long blocking; /* blocking collectives seen meanwhile */

#define COUNT() (blocking += counting)

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
                  MPI_Comm c) {
  COUNT();
  return PMPI_Allreduce(s, r, n, t, o, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
               int root, MPI_Comm c) {
  COUNT();
  return PMPI_Reduce(s, r, n, t, o, root, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  COUNT();
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c) {
  COUNT();
  return PMPI_Barrier(c);
}
int MPI_Allgather(const void *s, int n, MPI_Datatype t, void *r, int m,
                  MPI_Datatype u, MPI_Comm c) {
  COUNT();
  return PMPI_Allgather(s, n, t, r, m, u, c);
}
int MPI_Gather(const void *s, int n, MPI_Datatype t, void *r, int m,
               MPI_Datatype u, int root, MPI_Comm c) {
  COUNT();
  return PMPI_Gather(s, n, t, r, m, u, root, c);
}
int MPI_Win_allocate_shared(MPI_Aint size, int unit, MPI_Info info,
                            MPI_Comm c, void *base, MPI_Win *w) {
  COUNT();
  return PMPI_Win_allocate_shared(size, unit, info, c, base, w);
}
int MPI_Win_allocate(MPI_Aint size, int unit, MPI_Info info, MPI_Comm c,
                     void *base, MPI_Win *w) {
  COUNT();
  return PMPI_Win_allocate(size, unit, info, c, base, w);
}
int MPI_Win_create(void *base, MPI_Aint size, int unit, MPI_Info info,
                   MPI_Comm c, MPI_Win *w) {
  COUNT();
  return PMPI_Win_create(base, size, unit, info, c, w);
}
int MPI_Win_free(MPI_Win *w) {
  COUNT();
  return PMPI_Win_free(w);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
  COUNT();
  return PMPI_Comm_split(c, color, key, out);
}
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info,
                        MPI_Comm *out) {
  COUNT();
  return PMPI_Comm_split_type(c, type, key, info, out);
}

/* ---- the arrays --------------------------------------------------------- */

/* Element (i, j, k) of array s, row-major index g. */
static int32_t value(int s, int64_t g) { return (int32_t)(g * 7 + s * 1009 + 1); }

/* An n x (n+1) x (n+2) int32 array, CYCLIC(2) x BLOCK x '*' over the
 * processes (their extents interleave), C order in memory and file. */
static darray_t make(int64_t n) {
  darray_t a = NULL;
  int64_t g[3] = {n, n + 1, n + 2};
  darray_dist_t d[3] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK,
                        DARRAY_DIST_NONE};
  int64_t k[3] = {2, DARRAY_DEFAULT_ARG, DARRAY_DEFAULT_ARG};
  TU_OK(darray_create(MPI_COMM_WORLD, 3, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d, k));
  TU_OK(darray_commit(a));
  return a;
}

/* The blocking collectives of one file's life under strategy strat: open,
 * write array s, close, open, read it back, close; the bytes checked. */
static long one_file(const char *strat, int s, int64_t n) {
  char path[512], hints[128];
  darray_t a = make(n);
  int64_t cnt = 0, lshape[3], g[3] = {n, n + 1, n + 2};
  TU_OK(darray_local_count(a, &cnt));
  TU_OK(darray_local_shape(a, 0, lshape));
  int32_t *buf = malloc(sizeof *buf * (size_t)(cnt > 0 ? cnt : 1));
  /* local element l (C order, no ghosts) is global gi: filled from the
   * formula of its row-major index */
  for (int64_t l = 0; l < cnt; l++) {
    int64_t li[3] = {l / (lshape[1] * lshape[2]),
                     l / lshape[2] % lshape[1], l % lshape[2]};
    int64_t gi[3];
    TU_OK(darray_global_index(a, tu_rank(), 0, li, gi));
    buf[l] = value(s, (gi[0] * g[1] + gi[1]) * g[2] + gi[2]);
  }
  tu_tmpname(path, sizeof path, "groups_waits");
  snprintf(hints, sizeof hints, "darray_strategy=%s", strat);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  long before = blocking;
  counting = 1;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                             DARRAY_MODE_TRUNC,
                         info, &f));
  TU_OK(darray_write(f, a, buf));
  darray_stats_t st;
  TU_OK(darray_file_get_stats(f, &st));
  TU_EQ_STR(st.strategy, strat);
  TU_OK(darray_file_close(&f));
  counting = 0;
  /* the file against the formula, raw */
  if (tu_rank() == 0) {
    int64_t size = 0, bad = 0, N = g[0] * g[1] * g[2];
    unsigned char *raw = tu_read_file(path, &size);
    TU_EQ_I64(size, N * 4);
    for (int64_t e = 0; raw != NULL && e < N && size == N * 4; e++) {
      int32_t v;
      memcpy(&v, raw + 4 * e, 4);
      bad += v != value(s, e);
    }
    TU_EQ_I64(bad, 0);
    free(raw);
  }
  int32_t *back = malloc(sizeof *back * (size_t)(cnt > 0 ? cnt : 1));
  for (int64_t l = 0; l < cnt; l++)
    back[l] = -1;
  counting = 1;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                         &f));
  TU_OK(darray_read(f, a, back));
  TU_OK(darray_file_close(&f));
  counting = 0;
  TU_CHECK(cnt == 0 || memcmp(back, buf, sizeof *buf * (size_t)cnt) == 0);
  MPI_Info_free(&info);
  tu_remove(path);
  free(back);
  free(buf);
  darray_free(&a);
  return blocking - before;
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  long groups = 0, twophase = 0;
  for (int s = 0; s < 4; s++) {
    int64_t n = 5 + 3 * s;
    twophase += one_file("twophase", s, n);
    groups += one_file("groups", s, n);
  }
  if (groups > twophase)
    TU_FAIL("groups made %ld blocking collective calls in 4 files' lives, "
            "two-phase %ld: groups waits busily where the library waits "
            "politely", groups, twophase);
  else if (tu_rank() == 0)
    printf("blocking collectives in 4 files' lives: groups %ld, "
           "two-phase %ld\n", groups, twophase);
  return tu_finish();
}
