/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_mapped_end.c - arrays whose last byte lies in the last page below
 * 2^63 (issue 39, item 4). No mapping may reach that page (the kernel
 * refuses it: mmap's EOVERFLOW), so the mapped strategy is no candidate
 * there, and forced it moves its runs as direct runs do.
 *
 * A 1-D int32 array of N = 65536 elements, CYCLIC(1) over the processes
 * (their extents interleave; at 3 processes the planner's choice for both
 * directions is mapped, at 2 for reads), at a displacement that puts its
 * end (the offset after its last byte) END bytes below 2^63 - 1, in a
 * sparse file (the test directory's file system if it takes offsets up to
 * there, else /dev/shm's; else the test skips). For each END (0, 100,
 * 4094: its last byte in the last page below 2^63; 4095 and 4096 + 100:
 * in the page before, where mapped maps) and each way of choosing
 * (automatic; darray_strategy=mapped with darray_map=enable; sieve, whose
 * read windows are copied out in slices that must not step past 2^63 - 1
 * either): a write of
 * element e = tu_value(SEED + END, e) and a read back into a buffer
 * filled with 0xEE succeed on every process, the read equals the write,
 * and rank 0's own pread of the file finds every element at its offset
 * and the file's size is the array's end. The strategy each call used is
 * printed (darray_file_get_stats). Before issue 39 the calls mapped
 * there failed with DARRAY_EIO (mmap's EOVERFLOW).
 * Run: mpiexec -n 1..3 ./test_mapped_end
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 65536
#define K 1
#define SEED 0x4d3

static int P, me;

/* Whether dir's file system takes a file of size bytes (rank 0 asks). */
static bool takes(const char *dir, int64_t size) {
  char path[600];
  snprintf(path, sizeof path, "%s/test_mapped_end_probe.%ld", dir,
           (long)getpid());
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    return false;
  bool ok = ftruncate(fd, (off_t)size) == 0;
  close(fd);
  unlink(path);
  return ok;
}

static darray_t make(int64_t disp) {
  int64_t g[1] = {N}, k[1] = {K};
  darray_dist_t d[1] = {DARRAY_DIST_CYCLIC};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d, k));
  TU_OK(darray_set_displacement(a, disp));
  TU_OK(darray_commit(a));
  return a;
}

/* My elements (CYCLIC(7)): global index of local element i. */
static int64_t global_of(int64_t i) {
  return (i / K * P + me) * K + i % K;
}

static int32_t value(int64_t end, int64_t e) {
  return (int32_t)tu_value(SEED + (uint64_t)end, e);
}

/* Rank 0: the file's size and every element at its offset. */
static void check_file(const char *path, int64_t disp, int64_t end,
                       const char *what) {
  if (me != 0)
    return;
  int fd = open(path, O_RDONLY);
  if (!TU_CHECK(fd >= 0))
    return;
  off_t size = lseek(fd, 0, SEEK_END);
  if (!TU_EQ_I64(size, disp + (int64_t)N * 4))
    TU_FAIL("  (%s: the file's size)", what);
  int32_t *all = malloc(sizeof *all * N);
  ssize_t got = pread(fd, all, sizeof *all * N, (off_t)disp);
  close(fd);
  int64_t bad = 0;
  for (int64_t e = 0; e < N && got == (ssize_t)(sizeof *all * N); e++)
    bad += all[e] != value(end, e);
  if (!TU_EQ_I64(got, (int64_t)sizeof *all * N) || !TU_EQ_I64(bad, 0))
    TU_FAIL("  (%s: the elements in the file)", what);
  free(all);
}

static void one(const char *path, int64_t end, const char *hints) {
  int64_t disp = INT64_MAX - end - (int64_t)N * 4;
  char what[160];
  snprintf(what, sizeof what, "end at 2^63 - 1 - %lld, hints '%s'",
           (long long)end, hints);
  darray_t a = make(disp);
  int64_t n = 0;
  TU_OK(darray_local_count(a, &n));
  int32_t *buf = malloc(sizeof *buf * (size_t)(n > 0 ? n : 1));
  int32_t *back = malloc(sizeof *back * (size_t)(n > 0 ? n : 1));
  for (int64_t i = 0; i < n; i++)
    buf[i] = value(end, global_of(i));
  memset(back, 0xEE, sizeof *back * (size_t)(n > 0 ? n : 1));
  darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDWR |
                                            DARRAY_MODE_CREATE |
                                            DARRAY_MODE_TRUNC);
  darray_stats_t st;
  if (f != NULL) {
    if (!TU_OK(darray_write(f, a, buf)))
      TU_FAIL("  (%s: write: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_get_stats(f, &st));
    if (me == 0)
      printf("test_mapped_end: P=%d %s: write by %s\n", P, what, st.strategy);
    if (!TU_OK(darray_read(f, a, back)))
      TU_FAIL("  (%s: read: %s)", what, darray_file_errmsg(f));
    TU_OK(darray_file_get_stats(f, &st));
    if (me == 0)
      printf("test_mapped_end: P=%d %s: read by %s\n", P, what, st.strategy);
    if (!TU_EQ_INT(memcmp(back, buf, sizeof *buf * (size_t)n), 0))
      TU_FAIL("  (%s: read back)", what);
    TU_OK(darray_file_close(&f));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, disp, end, what);
  tu_remove(path);
  free(buf);
  free(back);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const char *dirs[2] = {tu_tmpdir(), "/dev/shm"};
  int pick = -1;
  if (me == 0)
    for (int i = 0; i < 2 && pick < 0; i++)
      if (takes(dirs[i], INT64_MAX))
        pick = i;
  MPI_Bcast(&pick, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (pick < 0)
    return tu_skip("no file system here takes offsets up to 2^63 - 1");
  char path[600];
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/test_mapped_end.%ld", dirs[pick], pid);
  static const int64_t ends[] = {0, 100, 4094, 4095, 4096 + 100};
  static const char *const ways[] = {"", "darray_strategy=mapped;"
                                         "darray_map=enable",
                                     "darray_strategy=sieve"};
  for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++)
    for (int w = 0; w < 3; w++)
      one(path, ends[e], ways[w]);
  return tu_finish();
}
