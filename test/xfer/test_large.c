/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_large.c - 64-bit sizes and offsets under every strategy
 * (doc/reliability.md).
 *
 * Quick part (`make check`, P = 1 and 2): small arrays at displacements of
 * 2^32 + 3 and 2^40 + 3 bytes, BLOCK and CYCLIC(3), each strategy: the
 * file is sparse (a few KiB on disk), its size is displacement + array
 * bytes, rank 0 checks the bytes with its own pread at the 64-bit offsets,
 * and darray_read gives the array back.
 *
 * Long part (`make check-long`, which sets DARRAY_TEST_LONG=1; P = 1 and
 * 2): a 1-D uint8 array of 2^32 + 5 elements (4 GiB), so that global
 * indices, file offsets and, at P <= 2, every rank's local part (more than
 * 2^31 bytes) are beyond 32 bits. For direct, twophase and sieve with BLOCK,
 * and twophase again with CYCLIC(2^28 + 3) (the processes' extents
 * interleave): each byte holds a function of its global index that differs
 * between g and g + 2^32 and between neighbours; rank 0 preads 64 KiB
 * windows around 2^31, 2^32 and the end and compares them with the
 * function; then every rank clears its buffer, reads the array back and
 * checks every byte. A count that went through an int anywhere (MPI or
 * POSIX) would lose data or fail. The file goes to DARRAY_TEST_LARGE_DIR,
 * or /dev/shm when it has room (the test is about offsets, not about the
 * disk), or the test directory; the run is skipped when none has 4.5 GiB
 * free, and files left there by earlier runs that were killed are removed
 * first. Memory: the file (on tmpfs) plus 4 GiB of buffers in all.
 *
 * Run: mpiexec -n 2 ./test_large   (DARRAY_TEST_LONG=1 for the long part)
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static int P, me;

static const char *const strategies[][2] = {
    {"darray_strategy", "direct"},
    {"darray_strategy", "twophase"},
    {"darray_strategy", "sieve"},
};
#define NSTRATS ((int)(sizeof strategies / sizeof strategies[0]))

/* The byte of global element g (uint8 arrays): neighbours differ, and so
 * do g and g + 2^32. */
static unsigned char byte_of(uint64_t g) {
  return (unsigned char)(g * 131u + (g >> 32) * 71u + (g >> 13) + 1u);
}

static MPI_Info strategy_info(int s, const char *cb) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, strategies[s][0], strategies[s][1]);
  if (cb != NULL)
    MPI_Info_set(info, "cb_buffer_size", cb);
  return info;
}

/* Rank 0 preads n bytes at off with its own descriptor. */
static int pread_at(const char *path, unsigned char *buf, int64_t n,
                    int64_t off) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return -1;
  int64_t done = 0;
  while (done < n) {
    ssize_t got =
        pread(fd, buf + done, (size_t)(n - done), (off_t)(off + done));
    if (got <= 0)
      break;
    done += got;
  }
  close(fd);
  return done == n ? 0 : -1;
}

/* ---- quick: small arrays at 64-bit displacements ------------------------- */

/* A 1-D int32 array of n elements, BLOCK or CYCLIC(3), at disp. */
static void quick_case(const char *path, int64_t disp, bool cyclic, int s) {
  const int64_t n = 1000;
  char what[200];
  snprintf(what, sizeof what, "disp=%lld %s %s", (long long)disp,
           cyclic ? "CYCLIC(3)" : "BLOCK", strategies[s][1]);
  darray_t a = NULL;
  darray_dist_t d = cyclic ? DARRAY_DIST_CYCLIC : DARRAY_DIST_BLOCK;
  int64_t k = cyclic ? 3 : DARRAY_DEFAULT_ARG;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)) ||
      !TU_OK(darray_set_distribution(a, &d, &k)) ||
      !TU_OK(darray_set_displacement(a, disp)) || !TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }
  int64_t count = 0;
  darray_local_count(a, &count);
  int32_t *buf = malloc(sizeof *buf * (size_t)(count + 1));
  int32_t *back = malloc(sizeof *back * (size_t)(count + 1));
  for (int64_t l = 0; l < count; l++) { /* local l -> global, by formula */
    int64_t g =
        cyclic ? (l / 3 * P + me) * 3 + l % 3 : me * ((n + P - 1) / P) + l;
    buf[l] = (int32_t)(g * 11 + 5);
  }
  MPI_Info info = strategy_info(s, "4k");
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             info, &f))) {
    if (!TU_OK(darray_write(f, a, buf)))
      fprintf(stderr, "  (%s: %s)\n", what, darray_file_errmsg(f));
    memset(back, 0, sizeof *back * (size_t)(count + 1));
    if (!TU_OK(darray_read(f, a, back)))
      fprintf(stderr, "  (%s: %s)\n", what, darray_file_errmsg(f));
    if (tu_compare_bytes(back, buf, count * 4, what) != 0)
      fprintf(stderr, "  (%s)\n", what);
    TU_OK(darray_file_close(&f));
  }
  if (me == 0) {
    struct stat st;
    if (TU_EQ_INT(stat(path, &st), 0)) {
      TU_EQ_I64(st.st_size, disp + 4 * n);
      TU_CHECK((int64_t)st.st_blocks * 512 < INT64_C(1) << 24); /* sparse */
    }
    int32_t got[3] = {0, 0, 0};
    int64_t probe[3] = {0, 517, n - 1};
    for (int i = 0; i < 3; i++) {
      TU_EQ_INT(
          pread_at(path, (unsigned char *)&got[i], 4, disp + 4 * probe[i]), 0);
      TU_EQ_INT(got[i], probe[i] * 11 + 5);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Info_free(&info);
  free(buf);
  free(back);
  darray_free(&a);
}

static void quick(void) {
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_large_sparse") == NULL)
    return;
  const int64_t disps[2] = {(INT64_C(1) << 32) + 3, (INT64_C(1) << 40) + 3};
  for (int i = 0; i < 2; i++)
    for (int c = 0; c < 2; c++)
      for (int s = 0; s < NSTRATS; s++)
        quick_case(path, disps[i], c == 1, s);
  tu_remove(path);
}

/* ---- long: 2^32 + 5 elements ----------------------------------------------
 */

static const char *large_dir(int64_t need) {
  const char *d = getenv("DARRAY_TEST_LARGE_DIR");
  if (d != NULL && d[0] != '\0')
    return d;
  const char *cands[2] = {"/dev/shm", tu_tmpdir()};
  for (int i = 0; i < 2; i++) {
    struct statvfs sv;
    if (statvfs(cands[i], &sv) == 0 &&
        (int64_t)sv.f_bavail * (int64_t)sv.f_frsize > need)
      return cands[i];
  }
  return NULL;
}

/* Rank 0 removes the files of earlier runs that were killed (a timeout)
 * before they could clean up: darray_large.PID whose process is gone. */
static void remove_stale(const char *dir) {
  if (me != 0)
    return;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    long pid = 0;
    char rest = 0, path[600];
    if (sscanf(e->d_name, "darray_large.%ld%c", &pid, &rest) != 1 ||
        pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    remove(path);
  }
  if (d != NULL)
    closedir(d);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fill (check == false) or check this rank's local bytes: local block j
 * of k bytes is global block j * P + me (BLOCK: one block of
 * ceil(n / P)). Returns the number of wrong bytes, *first the first. */
static int64_t pattern(unsigned char *buf, int64_t bytes, int64_t n, int64_t k,
                       bool cyclic, bool check, int64_t *first) {
  int64_t bad = 0;
  *first = -1;
  if (!cyclic)
    k = (n + P - 1) / P;
  for (int64_t l0 = 0, j = 0; l0 < bytes; l0 += k, j++) {
    uint64_t g0 = (uint64_t)((j * P + me) * k);
    int64_t len = bytes - l0 < k ? bytes - l0 : k;
    unsigned char *p = buf + l0;
    if (!check) {
      for (int64_t t = 0; t < len; t++)
        p[t] = byte_of(g0 + (uint64_t)t);
      continue;
    }
    for (int64_t t = 0; t < len; t++)
      if (p[t] != byte_of(g0 + (uint64_t)t)) {
        bad++;
        if (*first < 0)
          *first = l0 + t;
      }
  }
  return bad;
}

/* Windows rank 0 checks with its own preads: around 2^31, 2^32, the end. */
static void check_windows(const char *path, int64_t n, const char *what) {
  if (me != 0)
    return;
  const int64_t w = n < 4 * 65536 ? n / 4 : 65536;
  int64_t at[4] = {0, (INT64_C(1) << 31) - w / 2, (INT64_C(1) << 32) - w / 2,
                   n - w};
  for (int i = 1; i < 3; i++)
    if (at[i] + w > n)
      at[i] = n / 2;
  unsigned char *buf = malloc((size_t)w);
  for (int i = 0; i < 4; i++) {
    if (!TU_EQ_INT(pread_at(path, buf, w, at[i]), 0)) {
      fprintf(stderr, "  (%s: pread of %lld bytes at %lld failed)\n", what,
              (long long)w, (long long)at[i]);
      continue;
    }
    int64_t bad = 0, first = -1;
    for (int64_t b = 0; b < w; b++)
      if (buf[b] != byte_of((uint64_t)(at[i] + b))) {
        bad++;
        first = first < 0 ? at[i] + b : first;
      }
    if (!TU_EQ_I64(bad, 0))
      fprintf(stderr, "  (%s: window at %lld: first wrong byte at %lld)\n",
              what, (long long)at[i], (long long)first);
  }
  free(buf);
}

static void long_case(const char *path, int64_t n, int s, bool cyclic,
                      unsigned char *buf, int64_t cap) {
  const int64_t k = n / 16 + 3;
  char what[160];
  snprintf(what, sizeof what, "n=%lld uint8 %s(%lld), %s", (long long)n,
           cyclic ? "CYCLIC" : "BLOCK",
           (long long)(cyclic ? k : (n + P - 1) / P), strategies[s][1]);
  darray_t a = NULL;
  darray_dist_t d = cyclic ? DARRAY_DIST_CYCLIC : DARRAY_DIST_BLOCK;
  int64_t darg = cyclic ? k : DARRAY_DEFAULT_ARG, bytes = 0;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_UINT8, &a)) ||
      !TU_OK(darray_set_distribution(a, &d, &darg)) ||
      !TU_OK(darray_commit(a)) || !TU_OK(darray_local_bytes(a, &bytes)) ||
      !TU_CHECK(bytes <= cap)) {
    darray_free(&a);
    return;
  }
  int64_t most = 0;
  MPI_Allreduce(&bytes, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (P <= 2 && n > INT64_C(1) << 32)
    TU_CHECK(most > INT64_C(1) << 31); /* a local part is over 2 GiB */
  int64_t first;
  pattern(buf, bytes, n, k, cyclic, false, &first);
  MPI_Info info = strategy_info(s, NULL);
  darray_file_t f = NULL;
  double t1 = now(), t2 = t1, t3 = t1;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info,
                             &f))) {
    if (!TU_OK(darray_write(f, a, buf)))
      fprintf(stderr, "  (%s: %s)\n", what, darray_file_errmsg(f));
    t2 = now();
    check_windows(path, n, what);
    memset(buf, 0, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t3 = now();
    if (!TU_OK(darray_read(f, a, buf)))
      fprintf(stderr, "  (%s: %s)\n", what, darray_file_errmsg(f));
    TU_OK(darray_file_close(&f));
  }
  double t4 = now();
  int64_t bad = pattern(buf, bytes, n, k, cyclic, true, &first);
  if (!TU_EQ_I64(bad, 0))
    fprintf(stderr,
            "  (%s: rank %d: %lld wrong bytes read back, first at "
            "local byte %lld)\n",
            what, me, (long long)bad, (long long)first);
  long wrong = (long)bad, total = 0;
  MPI_Reduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("test_large: %s: %lld bytes per rank at most, write %.1f s, "
           "read %.1f s, wrong bytes %ld\n",
           what, (long long)most, t2 - t1, t4 - t3, total);
  MPI_Info_free(&info);
  darray_free(&a);
}

static void long_part(void) {
  int64_t n = (INT64_C(1) << 32) + 5;
  const char *nenv = getenv("DARRAY_TEST_LARGE_N"); /* smaller, to debug */
  if (nenv != NULL && atoll(nenv) >= 1024)
    n = atoll(nenv);
  const char *dir = large_dir(n + (INT64_C(1) << 29));
  int ok = dir != NULL;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    if (me == 0)
      printf("test_large: long part skipped: no directory with 4.5 GiB "
             "free (set DARRAY_TEST_LARGE_DIR)\n");
    return;
  }
  remove_stale(dir);
  char path[600];
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/darray_large.%ld", dir, pid);
  int64_t cap = (n + P - 1) / P + n / 16 + 3; /* + a cyclic block */
  unsigned char *buf = malloc((size_t)cap);
  if (!TU_CHECK(buf != NULL))
    return;
  if (me == 0)
    printf("test_large: long part in %s\n", dir);
  for (int s = 0; s < NSTRATS; s++)
    long_case(path, n, s, false, buf, cap);
  long_case(path, n, 1, true, buf, cap);
  free(buf);
  tu_remove(path);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  quick();
  const char *lg = getenv("DARRAY_TEST_LONG");
  if (lg != NULL && lg[0] != '\0' && lg[0] != '0')
    long_part();
  return tu_finish();
}
