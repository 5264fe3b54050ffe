/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_nospace.c - a full file system (doc/reliability.md, section 3).
 *
 * Rank 0 mounts a 256 KiB tmpfs and fills it with a filler file. Then, for
 * each back end (posix, mpiio) and strategy (direct, two-phase; on posix
 * also the file's pages mapped, whose blocks are reserved before a page
 * is touched, so that a full disk is an error, not a signal): a write
 * of a 48 KiB array must fail with DARRAY_ENOSPC on every rank, and the
 * messages keep the error contract (tu_expect_failure_messages): a rank
 * that failed names the cause ("No space left on device"; with mpiio, the
 * MPI call too: MPICH reports a full disk as the vague class MPI_ERR_IO,
 * Open MPI's OMPIO as a write of nothing), the others name that rank and
 * its message; under OMPIO every rank fails on its own. Once the filler is
 * gone, the same write on the same handle succeeds and reads back exact.
 *
 * Mounting needs root (and the right to mount, which some containers
 * withhold): without it the test is skipped (exit 77) with the reason, so
 * it never passes without having run. The mount is lazily unmounted at the
 * end.
 * Run (as root): mpiexec -n 1..2 ./test_nospace
 */
#define _DEFAULT_SOURCE /* umount2, MNT_DETACH */

#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_SIZE "256k"
#define N INT64_C(12288) /* int32 elements: 48 KiB */

static int P, me;

static const char *const hints[] = {
    "darray_backend=posix;darray_strategy=direct",
    "darray_backend=posix;darray_strategy=twophase",
    "darray_backend=posix;darray_strategy=mapped",
    "darray_backend=mpiio;darray_strategy=direct",
    "darray_backend=mpiio;darray_strategy=twophase",
};
#define NHINTS ((int)(sizeof hints / sizeof hints[0]))

/* Rank 0 mounts the tmpfs at dir; every rank gets the same answer: 0, or
 * the reason it cannot (in why). */
static int mount_fs(const char *dir, char *why, size_t n) {
  int ok = 0;
  if (me == 0) {
    if (geteuid() != 0)
      snprintf(why, n, "not root: cannot mount a %s tmpfs", FS_SIZE);
    else if (mkdir(dir, 0755) != 0 && errno != EEXIST)
      snprintf(why, n, "mkdir %s: %s", dir, strerror(errno));
    else if (mount("darray_nospace", dir, "tmpfs", MS_NOSUID | MS_NODEV,
                   "size=" FS_SIZE ",mode=0777") != 0) {
      snprintf(why, n, "mount -t tmpfs -o size=%s %s: %s", FS_SIZE, dir,
               strerror(errno));
      rmdir(dir);
    } else
      ok = 1;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(why, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

/* Rank 0 fills the file system with path; true when it is full. */
static int fill(const char *path) {
  int full = 0;
  if (me == 0) {
    static char block[4096];
    FILE *fp = fopen(path, "wb");
    errno = 0;
    while (fp != NULL && fwrite(block, 1, sizeof block, fp) == sizeof block &&
           fflush(fp) == 0)
      ;
    full = fp != NULL && errno == ENOSPC;
    if (fp != NULL)
      fclose(fp);
  }
  MPI_Bcast(&full, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return full;
}

/* This rank's BLOCK piece of the array, values of seed. */
static int32_t *piece(uint64_t seed, int64_t *count) {
  int64_t b = (N + P - 1) / P, first = me * b < N ? me * b : N;
  *count = (first + b < N ? first + b : N) - first;
  int32_t *buf = malloc(sizeof *buf * (size_t)(*count + 1));
  for (int64_t i = 0; i < *count; i++)
    buf[i] = (int32_t)tu_value(seed, first + i);
  return buf;
}

/* The write fails for want of room and says so; after room is made the
 * same handle writes and reads back. */
static void full_then_room(darray_file_t f, darray_t a, const char *filler,
                           const char *h) {
  int64_t count;
  int32_t *buf = piece(7, &count);
  int32_t *back = malloc(sizeof *back * (size_t)(count + 1));
  int rc = darray_write(f, a, buf);
  const char *msg = darray_file_errmsg(f);
  if (!TU_EQ_CODE(rc, DARRAY_ENOSPC))
    fprintf(stderr, "  %s: %s\n", h, msg);
  tu_expect_failure_messages(msg, strerror(ENOSPC),
                             strstr(h, "mpiio") != NULL ? "MPI_File_write_at"
                                                        : NULL,
                             h);
  if (me == 0)
    TU_EQ_INT(remove(filler), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  TU_OK(darray_write(f, a, buf));
  TU_OK(darray_read(f, a, back));
  tu_compare_bytes(back, buf, count * 4, h);
  free(buf);
  free(back);
}

static void run(const char *dir, const char *h) {
  char data[600], filler[600];
  snprintf(data, sizeof data, "%s/data.dat", dir);
  snprintf(filler, sizeof filler, "%s/filler", dir);
  int64_t n = N;
  darray_t a = NULL;
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)) &&
      TU_OK(darray_commit(a)) &&
      TU_OK(darray_file_open(MPI_COMM_WORLD, data,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info,
                             &f)) &&
      TU_CHECK(fill(filler)))
    full_then_room(f, a, filler, h);
  darray_file_close(&f);
  tu_remove(data);
  tu_remove(filler);
  MPI_Info_free(&info);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  unsetenv("DARRAYIO_HINTS");
  char dir[512], why[800] = "";
  if (tu_tmpname(dir, sizeof dir, "darray_nospace") == NULL)
    return tu_finish();
  if (mount_fs(dir, why, sizeof why) != 0)
    return tu_skip(why);
  for (int i = 0; i < NHINTS; i++)
    run(dir, hints[i]);
  if (me == 0 && (umount2(dir, MNT_DETACH) != 0 || rmdir(dir) != 0))
    TU_FAIL("unmounting %s: %s", dir, strerror(errno));
  return tu_finish();
}
