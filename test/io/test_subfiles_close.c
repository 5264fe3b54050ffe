/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_subfiles_close.c - two communicators close one subfile set at
 * overlapping times: the recorded size is the larger extent, never the
 * smaller (issue #39, item 7; doc/subfiles.md: "a record is never
 * shortened").
 *
 * COMM_WORLD is split in two halves (even and odd ranks), each of which
 * opens the same set (S = 2 subfiles of 256-byte stripes) with its own
 * communicator. The "small" half writes logical bytes [0, 1000), the
 * "large" half [1000, 5000), both uint8 arrays distributed BLOCK.
 *  (a) forced order, under fault injection: the small half's locks are
 *      delayed 1 s each (DARRAYIO_FAULT op=lock,delay=...), so that its
 *      close looks at the subfiles (end 1000) before the large half writes
 *      and closes, and writes its record after. Before the record's
 *      read-modify-write under a lock, the set then recorded 1000.
 *  (b) unforced: both halves close at once (a barrier before), six times,
 *      the halves' roles swapped each time.
 * Oracle: the descriptor's record parsed as doc/subfiles.md documents it
 * (its size line must read 5000), and the 5000 logical bytes gathered
 * from the subfiles by the documented layout (stripe k in subfile k mod 2
 * at (k div 2) * 256), compared with each half's pattern. Needs two
 * processes at least (skips at one).
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define UNIT 256
#define SMALL 1000
#define LARGE 5000
#define HINTS "darray_backend=subfiles;striping_unit=256;striping_factor=2"

static char path[512];

static uint8_t pattern(int64_t i) { return (uint8_t)(i * 7 + 3); }

/* This half's array: n bytes at displacement disp, BLOCK over comm. */
static darray_t make_array(MPI_Comm comm, int64_t n, int64_t disp) {
  darray_dist_t d = DARRAY_DIST_BLOCK;
  darray_t a = NULL;
  TU_OK(darray_create(comm, 1, &n, DARRAY_UINT8, &a));
  TU_OK(darray_set_distribution(a, &d, NULL));
  TU_OK(darray_set_displacement(a, disp));
  TU_OK(darray_commit(a));
  return a;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Rank 0: the record's size and the logical bytes [0, LARGE) from the
 * subfiles, by the documented format; checks both. */
static void check_set(const char *what) {
  if (tu_rank() != 0)
    return;
  int64_t n = 0;
  unsigned char *rec = tu_read_file(path, &n);
  long long size = -1;
  const char *at = rec != NULL ? strstr((const char *)rec, "\nsize ") : NULL;
  if (TU_CHECK(at != NULL && n >= 96))
    size = strtoll(at + 6, NULL, 10);
  if (!TU_EQ_I64(size, LARGE))
    fprintf(stderr, "  %s: the record says size %lld\n", what, size);
  free(rec);
  unsigned char *sub[2] = {NULL, NULL}, want[LARGE], got[LARGE];
  int64_t z[2] = {0, 0};
  for (int j = 0; j < 2; j++) {
    char name[600];
    snprintf(name, sizeof name, "%s.sub%dof2", path, j);
    sub[j] = tu_read_file(name, &z[j]);
  }
  memset(got, 0xee, sizeof got);
  for (int64_t i = 0; i < LARGE; i++) {
    int64_t k = i / UNIT, j = k % 2, off = (k / 2) * UNIT + i % UNIT;
    if (sub[j] != NULL && off < z[j])
      got[i] = sub[j][off];
    want[i] = pattern(i);
  }
  if (tu_compare_bytes(got, want, LARGE, what) != 0)
    fprintf(stderr, "  (%s)\n", what);
  free(sub[0]);
  free(sub[1]);
}

/* One round: the set made anew (empty), both halves open it, write their
 * extents and close; small: whether this half writes [0, SMALL). spec: a
 * DARRAYIO_FAULT rule for the small half's open, or NULL. */
static void round_trip(MPI_Comm half, bool small, const char *spec,
                       long large_wait_ms, const char *what) {
  darray_file_t f = tu_open(path, HINTS, DARRAY_MODE_RDWR |
                                             DARRAY_MODE_CREATE |
                                             DARRAY_MODE_TRUNC);
  TU_OK(darray_file_close(&f));
  int64_t n = small ? SMALL : LARGE - SMALL, disp = small ? 0 : SMALL;
  darray_t a = make_array(half, n, disp);
  int64_t count = 0, start = 0;
  TU_OK(darray_local_count(a, &count));
  TU_OK(darray_local_start(a, 0, &start));
  uint8_t *buf = malloc((size_t)count + 1);
  for (int64_t i = 0; buf != NULL && i < count; i++)
    buf[i] = pattern(disp + start + i);
  MPI_Info info = tu_info(HINTS);
  if (small && spec != NULL)
    setenv("DARRAYIO_FAULT", spec, 1);
  TU_OK(darray_file_open(half, path, DARRAY_MODE_RDWR, info, &f));
  unsetenv("DARRAYIO_FAULT");
  MPI_Info_free(&info);
  if (small && f != NULL && buf != NULL)
    TU_OK(darray_write(f, a, buf));
  MPI_Barrier(MPI_COMM_WORLD); /* the small half has written */
  if (!small) {
    sleep_ms(large_wait_ms); /* the small half's close has begun */
    if (f != NULL && buf != NULL)
      TU_OK(darray_write(f, a, buf));
  }
  TU_OK(darray_file_close(&f));
  MPI_Barrier(MPI_COMM_WORLD);
  check_set(what);
  free(buf);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  if (tu_nprocs() < 2)
    return tu_skip("two communicators need two processes");
  if (tu_tmpname(path, sizeof path, "darray_subfiles_close") == NULL)
    return tu_finish();
  int me = tu_rank();
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  if (tu_fault_injection())
    round_trip(half, me % 2 == 1, "op=lock,count=1000000,delay=1000", 300,
               "(a) forced order");
  else
    tu_skip_part("(a) forced order", "no --enable-fault-injection");
  for (int r = 0; r < 6; r++) {
    char what[64];
    snprintf(what, sizeof what, "(b) round %d", r);
    round_trip(half, me % 2 == r % 2, NULL, 0, what);
  }
  MPI_Comm_free(&half);
  if (me == 0) {
    char name[600];
    for (int j = 0; j < 2; j++) {
      snprintf(name, sizeof name, "%s.sub%dof2", path, j);
      remove(name);
    }
  }
  tu_remove(path);
  return tu_finish();
}
