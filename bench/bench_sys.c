/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_sys.c - file helpers, pre-touching the page cache, dropping it.
 *
 * Pre-touch: this machine is a VM that returns freed memory to its host, so
 * a buffered write that needs fresh page-cache pages can run ten times
 * slower than one that finds them. Before every timed write the ranks
 * write a scratch file as large as the phase, in the same directory, and
 * delete it: the write that follows then finds the memory at hand, as it
 * would on a machine that is not a VM.
 */
#define _XOPEN_SOURCE 700 /* sync() */

#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bench_pwrite_all(int fd, const void *buf, int64_t len, int64_t off) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = pwrite(fd, p, (size_t)len, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "darrayio-bench: pwrite: %s\n",
              n < 0 ? strerror(errno) : "wrote nothing");
      return -1;
    }
    p += n;
    len -= n;
    off += n;
  }
  return 0;
}

int bench_pread_all(int fd, void *buf, int64_t len, int64_t off) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = pread(fd, p, (size_t)len, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fprintf(stderr, "darrayio-bench: pread: %s\n",
              n < 0 ? strerror(errno) : "unexpected end of file");
      return -1;
    }
    p += n;
    len -= n;
    off += n;
  }
  return 0;
}

/* Rank 0 deletes path between barriers: a subfile set with its subfiles
 * (darray_file_delete; a plain unlink left them behind). A missing file
 * is no failure; another one is printed. */
void bench_remove(const bench_t *b, const char *path) {
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = b->rank == 0 ? darray_file_delete(path, MPI_INFO_NULL)
                        : DARRAY_SUCCESS;
  if (rc != DARRAY_SUCCESS && rc != DARRAY_ENOENT)
    fprintf(stderr, "darrayio-bench: %s\n", darray_errmsg(NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Every rank writes its share of a scratch file of `bytes` bytes; then the
 * file is deleted. */
int bench_pretouch(const bench_t *b, int64_t bytes) {
  char path[4096];
  int64_t chunk = INT64_C(8) << 20, share = (bytes + b->nprocs - 1) / b->nprocs;
  int64_t lo = b->rank * share < bytes ? b->rank * share : bytes;
  int64_t hi = lo + share < bytes ? lo + share : bytes;
  int rc = 0;
  snprintf(path, sizeof path, "%s/.darrayio-bench-pretouch", b->o.dir);
  bench_remove(b, path);
  char *buf = malloc((size_t)chunk);
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (buf == NULL || fd < 0) {
    fprintf(stderr, "darrayio-bench: cannot create %s\n", path);
    rc = -1;
  }
  else
    memset(buf, 0x5a, (size_t)chunk);
  for (int64_t at = lo; at < hi && rc == 0; at += chunk)
    rc = bench_pwrite_all(fd, buf, hi - at < chunk ? hi - at : chunk, at);
  if (fd >= 0)
    close(fd);
  free(buf);
  bench_remove(b, path);
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return rc;
}

/* sync; echo 3 > /proc/sys/vm/drop_caches, from rank 0, between barriers. */
int bench_drop_caches(const bench_t *b) {
  int rc = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (b->rank == 0) {
    sync();
    FILE *fp = fopen("/proc/sys/vm/drop_caches", "w");
    rc = fp != NULL && fputs("3\n", fp) >= 0 ? 0 : -1;
    if (fp != NULL && fclose(fp) != 0)
      rc = -1;
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/* --cold needs root; without it the run goes on with a warm cache. */
int bench_setup_cold(bench_t *b) {
  b->cold = 0;
  if (!b->o.cold)
    return 0;
  int ok = 0;
  if (b->rank == 0)
    ok = geteuid() == 0 && access("/proc/sys/vm/drop_caches", W_OK) == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok && b->rank == 0)
    fprintf(stderr, "darrayio-bench: --cold needs root (writing "
            "/proc/sys/vm/drop_caches); measuring with a warm cache\n");
  b->cold = ok;
  return 0;
}

/* Waiting that yields the processor: MPI busy-polls, and with more ranks
 * than cores a rank that finished its timed call and waits for the others
 * would take CPU from the ones still in theirs, adding noise (and a bias
 * against whatever finishes unevenly) to every measurement. */
static void quiet_wait(MPI_Request *req) {
  int done = 0;
  for (int k = 0;; k++) {
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (done)
      return;
    if (k >= 16)
      sched_yield();
  }
}

void bench_barrier(void) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  quiet_wait(&req);
}

void bench_max_doubles(double *v, int n) {
  MPI_Request req;
  MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                 &req);
  quiet_wait(&req);
}
