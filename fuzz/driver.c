/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * driver.c - a deterministic random-input driver for the fuzz targets, for
 * compilers without libFuzzer (fuzz/run.sh falls back to it and says so).
 *
 * Usage: fuzz_X [-runs=N] [-seed=S] [-max_total_time=T] [-timeout=U]
 *               [FILE|DIR]...
 * Each file given (or each file in a directory given) is run once, then N
 * pseudo-random inputs (splitmix64 of S) of 0..256 bytes, half of them
 * mutations of the files, until N runs or T seconds. A crash is the
 * sanitizer's report and a non-zero exit, as with libFuzzer; so is an
 * input that runs longer than U seconds (default 0: no limit), which
 * would otherwise hang the run (a request that never completes). At the
 * end it prints libFuzzer's "stat::" lines for the runs and their rate.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t state;

static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct seed {
  uint8_t *p;
  size_t n;
} seed_t;

static seed_t seeds[4096];
static int nseeds;

/* -timeout: an input that runs too long is a crash, as in libFuzzer. */
static unsigned timeout;

static void timed_out(int sig) {
  static const char say[] = "\nTIMEOUT: an input ran longer than -timeout "
                            "(FUZZ_VERBOSE=1 prints each input's case)\n";
  (void)sig;
  if (write(2, say, sizeof say - 1) < 0) {
  }
  abort();
}

static void run_one(const uint8_t *p, size_t n) {
  alarm(timeout);
  LLVMFuzzerTestOneInput(p, n);
  alarm(0);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_file(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (fp == NULL)
    return;
  uint8_t buf[4096];
  size_t n = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  run_one(buf, n);
  if (nseeds < (int)(sizeof seeds / sizeof seeds[0])) {
    seeds[nseeds].p = malloc(n + 1);
    if (seeds[nseeds].p != NULL) {
      memcpy(seeds[nseeds].p, buf, n);
      seeds[nseeds++].n = n;
    }
  }
}

static void run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    run_file(path);
    return;
  }
  DIR *d = opendir(path);
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    char p[4096];
    if (e->d_name[0] == '.')
      continue;
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    run_file(p);
  }
  if (d != NULL)
    closedir(d);
}

int main(int argc, char **argv) {
  long runs = 100000;
  double limit = 0;
  state = 1;
  LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) /* before the files run */
    if (strncmp(argv[i], "-timeout=", 9) == 0)
      timeout = (unsigned)atoi(argv[i] + 9);
  signal(SIGALRM, timed_out);
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "-runs=", 6) == 0)
      runs = atol(argv[i] + 6);
    else if (strncmp(argv[i], "-seed=", 6) == 0)
      state = strtoull(argv[i] + 6, NULL, 10);
    else if (strncmp(argv[i], "-max_total_time=", 16) == 0)
      limit = atof(argv[i] + 16);
    else if (argv[i][0] != '-')
      run_path(argv[i]);
  }
  double t0 = now();
  uint8_t buf[257];
  long done = 0;
  for (; done < runs; done++) {
    if (limit > 0 && now() - t0 >= limit)
      break;
    size_t n;
    if (nseeds > 0 && next() % 2 == 0) { /* a mutated seed */
      const seed_t *s = &seeds[next() % (uint64_t)nseeds];
      n = s->n < sizeof buf ? s->n : sizeof buf;
      memcpy(buf, s->p, n);
      for (int k = (int)(next() % 4); k >= 0 && n > 0; k--)
        buf[next() % n] = (uint8_t)next();
      if (next() % 4 == 0 && n > 1)
        n = (size_t)(next() % n);
    } else {
      n = (size_t)(next() % sizeof buf);
      for (size_t b = 0; b < n; b++) {
        uint64_t r = next();
        /* printable text half of the time: the parsers read text */
        buf[b] = r % 2 ? (uint8_t)(32 + (r >> 8) % 95) : (uint8_t)(r >> 8);
      }
    }
    run_one(buf, n);
  }
  double secs = now() - t0;
  printf("Done %ld runs in %.0f second(s) (random-input driver)\n", done, secs);
  printf("stat::number_of_executed_units: %ld\n", done);
  printf("stat::average_exec_per_sec:     %.0f\n", secs > 0 ? done / secs : 0);
  for (int i = 0; i < nseeds; i++)
    free(seeds[i].p);
  return 0;
}
