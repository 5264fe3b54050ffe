/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_format_faults.c - an allocation that fails on one process during a
 * whole-array write of a .npz member (test/io/fault_wrap.c), the write's
 * own allocations and those of its CRC share alike.
 *
 * A 12x10 int32 array in BLOCK rows, stored in Fortran order while each
 * process holds its rows in C order: every run in the file is strided in
 * memory, so the CRC share after the write (darray_crc_thread=disable,
 * strategy direct) packs through a buffer of its own. For each process t
 * and each allocation k that t makes during the write, the write runs with
 * that allocation failing, and then:
 *  - every process returns the same code: DARRAY_ENOMEM (then the write is
 *    repeated without the fault) or success (the fault hit the CRC share,
 *    after the bytes were written);
 *  - the close succeeds on every process, within the watchdog's time
 *    (a process that could not keep its share reads the member back, and
 *    so must every other: they agree on which members);
 *  - the archive's CRC-32 of the member, as recorded, equals zlib's crc32
 *    of the member's bytes in the file (its .npy header and data), and the
 *    data are the closed form.
 * Then each allocation of the close itself fails on each process in turn:
 * the same code everywhere (success or DARRAY_ENOMEM), no hang, and a
 * whole archive after a success.
 */
#include "testutil.h"
#include "io/fault_wrap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define ROWS 12
#define COLS 10

static void watchdog(int sig) {
  (void)sig;
  static const char m[] = "test_format_faults: no progress in 60 s "
                          "(a hang)\n";
  ssize_t w = write(2, m, sizeof m - 1);
  (void)w;
  _exit(2);
}

static int32_t value(int64_t i, int64_t j) { return (int32_t)(i * 100 + j); }

static darray_t describe(void) {
  int64_t g[2] = {ROWS, COLS};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d, NULL));
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_FORTRAN, NULL));
  TU_OK(darray_commit(a));
  return a;
}

/* My rows, C order, from the closed form. */
static int32_t *my_rows(darray_t a, int64_t *n) {
  int64_t start[2] = {0, 0}, count[2] = {0, 0}, elems = 0;
  TU_OK(darray_local_count(a, &elems));
  if (elems > 0) {
    TU_OK(darray_local_start(a, 0, start));
    TU_OK(darray_local_shape(a, 0, count));
  }
  *n = count[0] * count[1];
  int32_t *b = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *b);
  for (int64_t i = 0; i < count[0]; i++)
    for (int64_t j = 0; j < count[1]; j++)
      b[i * count[1] + j] = value(start[0] + i, start[1] + j);
  return b;
}

/* The same code on every process (one allreduce, not through the
 * wrappers: they are disarmed). */
static bool same_everywhere(int rc) {
  int v[2] = {rc, -rc};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return v[0] == -v[1];
}

/* Rank 0: the member's recorded CRC against zlib's, its data against the
 * closed form (Fortran order: column by column). */
static void check_file(const char *path) {
  darray_file_t f = NULL;
  darray_member_info_t m;
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f)))
    return;
  if (TU_OK(darray_inquire(f, 0, &m)) && tu_rank() == 0) {
    int64_t n = 0;
    unsigned char *b = tu_read_file(path, &n);
    /* the .npy header sits right before the data: its magic */
    int64_t s = m.offset;
    while (b != NULL && s > 0 && memcmp(b + s, "\x93NUMPY", 6) != 0)
      s--;
    if (TU_CHECK(b != NULL && s > 0 && m.offset + m.bytes <= n)) {
      TU_EQ_U64(crc32(0, b + s, (uInt)(m.offset + m.bytes - s)), m.crc32);
      int bad = 0;
      for (int64_t j = 0; j < COLS; j++)
        for (int64_t i = 0; i < ROWS; i++) {
          int32_t v;
          memcpy(&v, b + m.offset + 4 * (j * ROWS + i), 4);
          bad += v != value(i, j);
        }
      TU_EQ_INT(bad, 0);
    }
    free(b);
  }
  TU_OK(darray_file_close(&f));
}

/* One write of the member with rank t's k-th allocation failing (k = 0:
 * none); returns how many allocations this process made in the write. */
static int64_t scenario(darray_t a, const int32_t *buf, const char *path,
                        MPI_Info info, int t, int64_t k) {
  darray_file_t f = NULL;
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, info, &f));
  TU_OK(darray_define(f, "u", a));
  fw_reset();
  if (k > 0 && tu_rank() == t)
    fw_rule(FW_ALLOC, k, 0);
  fw_arm(true);
  int rc = darray_write(f, a, buf);
  fw_arm(false);
  int64_t calls = fw_calls(FW_ALLOC);
  if (!TU_CHECK(same_everywhere(rc)))
    MPI_Abort(MPI_COMM_WORLD, 3); /* processes out of step: stop */
  if (rc != DARRAY_SUCCESS) {
    TU_EQ_CODE(rc, DARRAY_ENOMEM);
    TU_OK(darray_write(f, a, buf));
  }
  alarm(60);
  rc = darray_file_close(&f);
  alarm(0);
  TU_OK(rc);
  TU_CHECK(same_everywhere(rc));
  if (k > 0 || t == 0)
    check_file(path);
  return calls;
}

/* The close with rank t's k-th allocation failing (k = 0: none, and the
 * count is returned): the same code everywhere, success or
 * DARRAY_ENOMEM, no hang; after a success the archive is whole. */
static int64_t close_fault(darray_t a, const int32_t *buf, const char *path,
                           MPI_Info info, int t, int64_t k) {
  darray_file_t f = NULL;
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, info, &f));
  TU_OK(darray_define(f, "u", a));
  TU_OK(darray_write(f, a, buf));
  fw_reset();
  if (k > 0 && tu_rank() == t)
    fw_rule(FW_ALLOC, k, 0);
  alarm(60);
  fw_arm(true);
  int rc = darray_file_close(&f);
  fw_arm(false);
  alarm(0);
  int64_t calls = fw_calls(FW_ALLOC);
  if (!TU_CHECK(same_everywhere(rc)))
    MPI_Abort(MPI_COMM_WORLD, 3);
  TU_CHECK(rc == DARRAY_SUCCESS || rc == DARRAY_ENOMEM);
  if (rc == DARRAY_SUCCESS)
    check_file(path);
  return calls;
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  signal(SIGALRM, watchdog);
  char stem[480], path[512];
  tu_tmpname(stem, sizeof stem, "format_faults");
  snprintf(path, sizeof path, "%s.npz", stem);
  MPI_Info info = tu_info("darray_strategy=direct;darray_crc_thread=disable");
  darray_t a = describe();
  int64_t n = 0;
  int32_t *buf = my_rows(a, &n);
  int64_t calls = scenario(a, buf, path, info, 0, 0); /* counts */
  int64_t hits = 0;
  for (int t = 0; t < tu_nprocs(); t++) {
    int64_t kt = calls;
    MPI_Bcast(&kt, 1, MPI_INT64_T, t, MPI_COMM_WORLD);
    for (int64_t k = 1; k <= kt; k++) {
      scenario(a, buf, path, info, t, k);
      hits += tu_rank() == t ? fw_injected() : 0;
    }
  }
  TU_CHECK(calls > 0); /* the share's packing buffer at least */
  MPI_Allreduce(MPI_IN_PLACE, &hits, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  int64_t total = calls;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  TU_EQ_I64(hits, total); /* every allocation was failed once */
  /* the close's own allocations, each failed on each rank in turn */
  int64_t ccalls = close_fault(a, buf, path, info, 0, 0);
  for (int t = 0; t < tu_nprocs(); t++) {
    int64_t kt = ccalls;
    MPI_Bcast(&kt, 1, MPI_INT64_T, t, MPI_COMM_WORLD);
    for (int64_t k = 1; k <= kt; k++)
      close_fault(a, buf, path, info, t, k);
  }
  TU_CHECK(ccalls > 0);
  free(buf);
  MPI_Info_free(&info);
  darray_free(&a);
  tu_remove(path);
  return tu_finish();
}
