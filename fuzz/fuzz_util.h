/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_util.h - what fuzz_xfer and fuzz_plan share (header only, every
 * function static): a reader of the input bytes, a scratch directory on
 * tmpfs, and the report of a finding.
 */
#ifndef DARRAYIO_FUZZ_UTIL_H
#define DARRAYIO_FUZZ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A reader of the input; past the end it yields zeros, so every input
 * decodes to a case. */
typedef struct fz_in {
  const uint8_t *p;
  size_t n, at;
} fz_in_t;

static inline uint8_t fz_u8(fz_in_t *in) {
  return in->at < in->n ? in->p[in->at++] : 0;
}

static inline uint16_t fz_u16(fz_in_t *in) {
  uint16_t hi = fz_u8(in);
  return (uint16_t)(hi << 8 | fz_u8(in));
}

/* A pseudo-random stream for the bytes of buffers (splitmix64): the input
 * chooses the seed, so a case replays exactly. */
static inline uint64_t fz_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline void fz_fill(uint8_t *p, int64_t n, uint64_t *s) {
  for (int64_t i = 0; i < n; i++)
    p[i] = (uint8_t)(fz_next(s) >> 24);
}

/* The case being run, printed with every finding (the target fills it),
 * and with every input when FUZZ_VERBOSE is set; FUZZ_VERBOSE=2 also has
 * a target say what each step returned (fz_trace). */
static char fz_case[2048];

static inline int fz_verbose(void) {
  static int verbose = -1;
  const char *v = getenv("FUZZ_VERBOSE");
  if (verbose < 0) /* set: at least 1, whatever its value */
    verbose = v == NULL ? 0 : atoi(v) > 1 ? atoi(v) : 1;
  return verbose;
}

static inline void fz_show_case(void) {
  if (fz_verbose() > 0)
    fprintf(stderr, "case: %s\n", fz_case);
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void
fz_trace(const char *fmt, ...) {
  if (fz_verbose() < 2)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* A finding: say what failed and for which case, then abort so that
 * libFuzzer (or the driver's sanitizer run) keeps the input. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void
fz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\nFINDING: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\ncase: %s\n", fz_case);
  fflush(stderr);
  abort();
}

/* A scratch directory, on tmpfs when /dev/shm is there (the targets write
 * a file per input), removed at exit with the files named in fz_files.
 * It goes under $FUZZ_SCRATCH when that is set: fuzz/run.sh sets it and
 * removes it at the end, also after a crash, which skips the exit
 * handlers. */
static char fz_dir[256];
static char fz_files[2][320];

static void fz_cleanup(void) {
  for (int i = 0; i < 2; i++)
    if (fz_files[i][0] != '\0')
      unlink(fz_files[i]);
  if (fz_dir[0] != '\0')
    rmdir(fz_dir);
}

/* Make the directory and name file i in it. */
static inline void fz_scratch(const char *tag, const char *const names[],
                              int n) {
  const char *base = getenv("FUZZ_SCRATCH");
  if (base == NULL || base[0] == '\0')
    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
           : getenv("TMPDIR") != NULL    ? getenv("TMPDIR")
                                         : "/tmp";
  snprintf(fz_dir, sizeof fz_dir, "%s/darrayio-%s-XXXXXX", base, tag);
  if (mkdtemp(fz_dir) == NULL) {
    perror(fz_dir);
    exit(1);
  }
  for (int i = 0; i < n && i < 2; i++)
    snprintf(fz_files[i], sizeof fz_files[i], "%s/%s", fz_dir, names[i]);
  atexit(fz_cleanup);
}

#endif /* DARRAYIO_FUZZ_UTIL_H */
