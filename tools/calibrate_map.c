/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * calibrate_map.c - darray-calibrate's measurement of what the mapped
 * strategy pays to make a window's pages ready (darray_map_rd_mbs,
 * darray_map_wr_mbs): the process's region of a new file, its blocks
 * reserved, mapped in windows of 16 MiB and populated for writing, then
 * mapped again and populated for reading.
 */
#define _GNU_SOURCE /* fallocate, MADV_POPULATE_* */
#include "calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ /* Linux's values, for older C libraries */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif
#define MAP_WINDOW (INT64_C(16) << 20)

/* One pass of windows over [base, base + region): mapped and populated
 * for writing or reading, unmapped; -1 with errno on failure (EINVAL from
 * madvise: the kernel cannot populate). */
static int map_pass(int fd, int64_t region, int64_t base, bool write) {
  for (int64_t k = 0; k < region; k += MAP_WINDOW) {
    size_t n = (size_t)(region - k < MAP_WINDOW ? region - k : MAP_WINDOW);
    void *m = mmap(NULL, n, PROT_READ | (write ? PROT_WRITE : 0), MAP_SHARED,
                   fd, (off_t)(base + k));
    if (m == MAP_FAILED)
      return -1;
    int r = madvise(m, n, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
    int e = errno;
    munmap(m, n);
    if (r != 0) {
      errno = e;
      return -1;
    }
  }
  return 0;
}

/* The mapped strategy's rates of making pages ready (bytes per second),
 * on a new file at path; both 0 where the kernel cannot populate or the
 * file system cannot reserve (the strategy moves direct runs there). */
int calibrate_map_rates(const char *path, int64_t region, int64_t base,
                        double *rd, double *wr, char *err, size_t n) {
  *rd = *wr = 0;
  int fd = open(path, O_RDWR | O_CREAT, 0600), rc = 0;
  if (fd < 0 || fallocate(fd, 0, (off_t)base, (off_t)region) != 0)
    rc = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (rc == 0)
    rc = map_pass(fd, region, base, true);
  double tw = MPI_Wtime() - t;
  t = MPI_Wtime();
  if (rc == 0)
    rc = map_pass(fd, region, base, false);
  double tr = MPI_Wtime() - t;
  int e = errno;
  if (fd >= 0)
    close(fd);
  if (rc != 0 && (e == EINVAL || e == EOPNOTSUPP || e == ENOSYS))
    return 0; /* not measured: no populating, or no fallocate */
  if (rc != 0) {
    snprintf(err, n, "%s", strerror(e));
    return -1;
  }
  *wr = (double)region / tw;
  *rd = (double)region / tr;
  return 0;
}
