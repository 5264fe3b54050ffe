/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_special.c - files darrayio cannot read or write at an offset are
 * refused at open, at once and on every process (issue #39, item 6).
 *
 * A FIFO opened for reading only used to wait for a writer for ever (the
 * open(2) of the posix back end, and MPI_File_open), with every other
 * process waiting in the open's broadcast. Each case runs under a watchdog
 * of its own (WATCHDOG_S): an open that does not return ends the run with
 * the case's name and a failure. Cases, with the posix and the mpiio back
 * ends where they apply:
 *   - a FIFO opened read-only, read-write, and read-write with
 *     DARRAY_MODE_CREATE: DARRAY_ENOTSUP on every process, the message
 *     naming the path and "FIFO" (tu_expect_failure_messages), the handle
 *     NULL;
 *   - a FIFO at a .npz path opened as a dataset, read-only and for
 *     writing (DARRAY_MODE_RDWR | DARRAY_MODE_CREATE);
 *   - a subfile set (S = 2, written by the library) whose second subfile
 *     is replaced by a FIFO, read-only and read-write: DARRAY_ENOTSUP
 *     naming that subfile;
 *   - a Unix socket (DARRAY_ENOTSUP, "socket");
 *   - a directory, read-only and read-write (DARRAY_EISDIR);
 *   - /dev/null, a character device that seeks, still opens (read-only
 *     and read-write) and reads as end of file.
 * The oracle is stat(2): the FIFO, the socket and the directory are still
 * what they were after each refusal (nothing was created or replaced).
 */
#define _DEFAULT_SOURCE /* mkfifo */
#include "testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define WATCHDOG_S 30 /* an open that refuses takes milliseconds */
#define NEL 1000

static const char *volatile current = "(none)";

static void watchdog(int sig) {
  (void)sig;
  char buf[300];
  int n = snprintf(buf, sizeof buf, "test_special: case '%s' did not return "
                   "in %d s (a hang)\n", current, WATCHDOG_S);
  ssize_t w = write(2, buf, n > 0 ? (size_t)n : 0);
  (void)w;
  _exit(1);
}

static darray_t block_1d(void) {
  int64_t g = NEL;
  darray_dist_t d = DARRAY_DIST_BLOCK;
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, &d, NULL));
  TU_OK(darray_commit(a));
  return a;
}

/* An open (of a dataset when dataset) that must fail with code on every
 * process, in time, the messages naming text. */
static void refused(const char *what, const char *path, int mode,
                    const char *hints, bool dataset, int code,
                    const char *text) {
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  current = what;
  alarm(WATCHDOG_S);
  int rc = dataset ? darray_dataset_open(MPI_COMM_WORLD, path, mode, info, &f)
                   : darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  alarm(0);
  MPI_Info_free(&info);
  if (!TU_EQ_CODE(rc, code))
    fprintf(stderr, "  (%s [%s]: %s)\n", what, hints,
            darray_file_errmsg(f));
  TU_CHECK(f == NULL);
  tu_expect_failure_messages(darray_file_errmsg(NULL), text, NULL, what);
  darray_file_close(&f);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 makes a FIFO at path (anything there removed first). */
static void make_fifo(const char *path) {
  int ok = 1;
  if (tu_rank() == 0) {
    (void)remove(path);
    ok = mkfifo(path, 0600) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  TU_CHECK(ok);
}

/* Every process: path is (still) of the kind that mode's S_IF* says. */
static void still(const char *path, mode_t kind) {
  struct stat st;
  if (!TU_CHECK(lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind))
    fprintf(stderr, "  %s is no longer what it was\n", path);
  MPI_Barrier(MPI_COMM_WORLD); /* before rank 0 removes it */
}

static const char *const backends[] = {"", "darray_backend=mpiio"};

static void fifo_raw(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/pipe.dat", dir);
  make_fifo(p);
  for (int b = 0; b < 2; b++) {
    refused("raw FIFO, read-only", p, DARRAY_MODE_RDONLY, backends[b], false,
            DARRAY_ENOTSUP, "FIFO");
    refused("raw FIFO, read-write", p, DARRAY_MODE_RDWR, backends[b], false,
            DARRAY_ENOTSUP, "FIFO");
    refused("raw FIFO, create", p, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE,
            backends[b], false, DARRAY_ENOTSUP, "pipe.dat");
    still(p, S_IFIFO);
  }
  tu_remove(p);
}

static void fifo_npz(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/pipe.npz", dir);
  make_fifo(p);
  refused("npz FIFO, read-only", p, DARRAY_MODE_RDONLY, "", true,
          DARRAY_ENOTSUP, "FIFO");
  refused("npz FIFO, for writing", p, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
          DARRAY_MODE_TRUNC, "", true, DARRAY_ENOTSUP, "pipe.npz");
  still(p, S_IFIFO);
  tu_remove(p);
}

/* A set of two subfiles written by the library, its second subfile then
 * a FIFO. */
static void fifo_subfile(const char *dir) {
  char p[600], sub[700];
  snprintf(p, sizeof p, "%s/set", dir);
  snprintf(sub, sizeof sub, "%s.sub1of2", p);
  const char *hints = "darray_backend=subfiles;striping_unit=256;"
                      "striping_factor=2";
  darray_t a = block_1d();
  int64_t first = 0, count = 0;
  TU_OK(darray_local_count(a, &count));
  TU_OK(darray_local_start(a, 0, &first));
  int32_t *buf = calloc((size_t)(count > 0 ? count : 1), sizeof *buf);
  for (int64_t i = 0; buf != NULL && i < count; i++)
    buf[i] = (int32_t)(first + i);
  darray_file_t f = tu_open(p, hints, DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                          DARRAY_MODE_TRUNC);
  if (f != NULL && buf != NULL)
    TU_OK(darray_write(f, a, buf));
  TU_OK(darray_file_close(&f));
  make_fifo(sub);
  refused("subfile FIFO, read-only", p, DARRAY_MODE_RDONLY, "", false,
          DARRAY_ENOTSUP, "set.sub1of2");
  refused("subfile FIFO, read-write", p, DARRAY_MODE_RDWR, "", false,
          DARRAY_ENOTSUP, "FIFO");
  still(sub, S_IFIFO);
  if (tu_rank() == 0)
    TU_OK(darray_file_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  darray_free(&a);
}

static void socket_file(const char *dir) {
  char p[600];
  snprintf(p, sizeof p, "%s/sock", dir);
  int ok = 1, s = -1;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(p) >= sizeof addr.sun_path) {
    tu_skip_part("socket", "the test directory's path is too long for a "
                           "Unix socket's name");
    return;
  }
  if (tu_rank() == 0) {
    memcpy(addr.sun_path, p, strlen(p) + 1);
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    ok = s >= 0 && bind(s, (struct sockaddr *)&addr, sizeof addr) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (TU_CHECK(ok))
    for (int b = 0; b < 2; b++)
      refused("socket, read-only", p, DARRAY_MODE_RDONLY, backends[b], false,
              DARRAY_ENOTSUP, "socket");
  if (s >= 0)
    close(s);
  tu_remove(p);
}

static void directory(const char *dir) {
  for (int b = 0; b < 2; b++) {
    refused("directory, read-only", dir, DARRAY_MODE_RDONLY, backends[b],
            false, DARRAY_EISDIR, b == 0 ? "directory" : "");
    refused("directory, read-write", dir, DARRAY_MODE_RDWR, backends[b],
            false, DARRAY_EISDIR, b == 0 ? "directory" : "");
  }
  still(dir, S_IFDIR);
}

/* A character device that seeks is a file darrayio opens. */
static void dev_null(void) {
  struct stat st;
  if (stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode)) {
    tu_skip_part("/dev/null", "no /dev/null here");
    return;
  }
  darray_t a = block_1d();
  int64_t count = 0;
  TU_OK(darray_local_count(a, &count));
  int32_t *buf = calloc((size_t)(count > 0 ? count : 1), sizeof *buf);
  for (int m = 0; m < 2; m++) {
    current = m ? "/dev/null, read-write" : "/dev/null, read-only";
    alarm(WATCHDOG_S);
    darray_file_t f = tu_open("/dev/null", "",
                              m ? DARRAY_MODE_RDWR : DARRAY_MODE_RDONLY);
    if (f != NULL && buf != NULL)
      TU_EQ_CODE(darray_read(f, a, buf), DARRAY_EEOF);
    TU_OK(darray_file_close(&f));
    alarm(0);
  }
  free(buf);
  darray_free(&a);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  signal(SIGALRM, watchdog);
  char dir[512];
  if (tu_tmpname(dir, sizeof dir, "darray_special") != NULL) {
    if (tu_rank() == 0)
      TU_CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
    MPI_Barrier(MPI_COMM_WORLD);
    fifo_raw(dir);
    fifo_npz(dir);
    fifo_subfile(dir);
    socket_file(dir);
    directory(dir);
    dev_null();
    if (tu_rank() == 0)
      (void)rmdir(dir);
  }
  return tu_finish();
}
