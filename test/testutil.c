/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * testutil.c - helpers shared by every darrayio test (see testutil.h).
 */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h" /* DARRAY_FAULT_INJECTION */
#endif
#include "testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Failures printed per rank before the rest are only counted. */
#define TU_MAX_PRINTED 40

static int tu_rank_ = 0;
static long tu_parts_skipped_ = 0; /* tu_skip_part calls */
static int tu_nprocs_ = 1;
static long tu_checks_ = 0;
static long tu_failures_ = 0;
static char tu_name_[128] = "unknown";

/* ---- the watchdog ------------------------------------------------------ */

/* Where the last check was made, for the watchdog: a run that hangs says
 * on stderr after DARRAY_TEST_WATCHDOG seconds (test/mpirun.sh sets it
 * short of its time limit), and again every as many seconds, which check
 * it passed last, so that a hang seen once (under helgrind, on a loaded
 * machine) says where it was. */
static const char *volatile tu_at_file_ = "(no check yet)";
static volatile int tu_at_line_ = 0;
static int tu_watch_s_ = 0;

static void tu_at(const char *file, int line) {
  tu_at_file_ = file;
  tu_at_line_ = line;
}

/* Decimal digits of v into p (async-signal-safe); the end. */
static char *tu_digits(char *p, long v) {
  char tmp[24];
  int n = 0;
  do
    tmp[n++] = (char)('0' + v % 10);
  while ((v /= 10) > 0 && n < 23);
  while (n > 0)
    *p++ = tmp[--n];
  return p;
}

static char *tu_text(char *p, const char *end, const char *s) {
  while (*s != '\0' && p < end)
    *p++ = *s++;
  return p;
}

static void tu_watchdog(int sig) {
  (void)sig;
  char buf[768], *p = buf, *end = buf + sizeof buf - 32;
  int saved = errno;
  p = tu_text(p, end, "[rank ");
  p = tu_digits(p, tu_rank_);
  p = tu_text(p, end, "] test ");
  p = tu_text(p, end, tu_name_);
  p = tu_text(p, end, ": watchdog: still running after ");
  p = tu_digits(p, tu_watch_s_);
  p = tu_text(p, end, " s; the last check was made at ");
  p = tu_text(p, end, tu_at_file_);
  *p++ = ':';
  p = tu_digits(p, tu_at_line_);
  *p++ = '\n';
  ssize_t w = write(2, buf, (size_t)(p - buf));
  (void)w;
  alarm((unsigned)tu_watch_s_);
  errno = saved;
}

/* tu_hang_limit's: the watchdog's words, then the run fails. */
static void tu_hang(int sig) {
  static const char m[] = "hang: the test did not end in time, FAIL\n";
  tu_watchdog(sig);
  ssize_t w = write(2, m, sizeof m - 1);
  (void)w;
  _exit(1);
}

void tu_hang_limit(int seconds) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tu_hang;
  sigemptyset(&sa.sa_mask);
  tu_watch_s_ = seconds;
  if (sigaction(SIGALRM, &sa, NULL) == 0)
    alarm((unsigned)seconds);
}

static void tu_watch(void) {
  const char *v = getenv("DARRAY_TEST_WATCHDOG");
  long s = v != NULL ? strtol(v, NULL, 10) : 0;
  if (s <= 0 || s > 86400)
    return;
  tu_watch_s_ = (int)s;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tu_watchdog;
  sa.sa_flags = SA_RESTART; /* the test's system calls go on */
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, NULL) == 0)
    alarm((unsigned)s);
}

/* ---- reporting -------------------------------------------------------- */

static void tu_vreport(const char *file, int line, const char *fmt,
                       va_list ap) {
  tu_failures_++;
  if (tu_failures_ > TU_MAX_PRINTED) {
    if (tu_failures_ == TU_MAX_PRINTED + 1)
      fprintf(stderr, "[rank %d] more failures follow; not printed\n",
              tu_rank_);
    return;
  }
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fprintf(stderr, "[rank %d] %s:%d: FAIL %s\n", tu_rank_, file, line, msg);
  fflush(stderr);
}

int tu_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  tu_checks_++;
  tu_at(file, line);
  va_start(ap, fmt);
  tu_vreport(file, line, fmt, ap);
  va_end(ap);
  return 0;
}

/* Count a check that failed without counting it twice. */
static int tu_report(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int tu_report(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tu_vreport(file, line, fmt, ap);
  va_end(ap);
  return 0;
}

int tu__check(const char *file, int line, const char *expr, int ok) {
  tu_checks_++;
  tu_at(file, line);
  if (ok)
    return 1;
  return tu_report(file, line, "TU_CHECK(%s)", expr);
}

int tu__eq_i64(const char *file, int line, const char *ea, const char *eb,
               int64_t a, int64_t b) {
  tu_checks_++;
  tu_at(file, line);
  if (a == b)
    return 1;
  return tu_report(file, line, "%s == %s: %lld != %lld", ea, eb, (long long)a,
                   (long long)b);
}

int tu__eq_int(const char *file, int line, const char *ea, const char *eb,
               int a, int b) {
  tu_checks_++;
  tu_at(file, line);
  if (a == b)
    return 1;
  return tu_report(file, line, "%s == %s: %d != %d", ea, eb, a, b);
}

int tu__eq_u64(const char *file, int line, const char *ea, const char *eb,
               uint64_t a, uint64_t b) {
  tu_checks_++;
  tu_at(file, line);
  if (a == b)
    return 1;
  return tu_report(file, line, "%s == %s: 0x%llx != 0x%llx", ea, eb,
                   (unsigned long long)a, (unsigned long long)b);
}

int tu__eq_code(const char *file, int line, const char *expr, int rc,
                int expected) {
  tu_checks_++;
  tu_at(file, line);
  if (rc == expected)
    return 1;
  return tu_report(file, line, "%s: got %s (%d), expected %s (%d)", expr,
                   darray_err_name(rc), rc, darray_err_name(expected),
                   expected);
}

int tu__eq_str(const char *file, int line, const char *ea, const char *eb,
               const char *a, const char *b) {
  tu_checks_++;
  tu_at(file, line);
  if (a != NULL && b != NULL && strcmp(a, b) == 0)
    return 1;
  return tu_report(file, line, "%s == %s: \"%s\" != \"%s\"", ea, eb,
                   a ? a : "(null)", b ? b : "(null)");
}

int tu__contains(const char *file, int line, const char *ehay, const char *hay,
                 const char *needle) {
  tu_checks_++;
  tu_at(file, line);
  if (hay != NULL && needle != NULL && strstr(hay, needle) != NULL)
    return 1;
  return tu_report(file, line, "%s = \"%s\" does not contain \"%s\"", ehay,
                   hay ? hay : "(null)", needle ? needle : "(null)");
}

/* ---- life cycle ------------------------------------------------------- */

static void tu_init_common(int *argc, char ***argv);

void tu_init(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  tu_init_common(argc, argv);
}

int tu_init_thread(int *argc, char ***argv, int required) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, required, &provided);
  tu_init_common(argc, argv);
  return provided;
}

static void tu_init_common(int *argc, char ***argv) {
  MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &tu_nprocs_);
  if (argc != NULL && argv != NULL && *argc > 0 && (*argv)[0] != NULL) {
    const char *p = strrchr((*argv)[0], '/');
    p = p ? p + 1 : (*argv)[0];
    if (strncmp(p, "lt-", 3) == 0) /* libtool wrapper names */
      p += 3;
    snprintf(tu_name_, sizeof tu_name_, "%s", p);
  }
  tu_watch();
}

int tu_finish(void) {
  long local[2] = {tu_checks_, tu_failures_};
  long total[2] = {0, 0};
  MPI_Allreduce(local, total, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (tu_rank_ == 0) {
    printf("test %s: %ld checks, %ld failures", tu_name_, total[0], total[1]);
    if (tu_parts_skipped_ > 0)
      printf(", %ld part%s skipped at P=%d", tu_parts_skipped_,
             tu_parts_skipped_ > 1 ? "s" : "", tu_nprocs_);
    printf("\n");
    fflush(stdout);
  }
  MPI_Finalize();
  return total[1] == 0 ? 0 : 1;
}

int tu_skip(const char *why) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank_ == 0) {
    printf("test %s: SKIP (%s)\n", tu_name_, why ? why : "");
    fflush(stdout);
  }
  MPI_Finalize();
  return 77;
}

void tu_skip_part(const char *what, const char *why) {
  tu_parts_skipped_++;
  if (tu_rank_ == 0) {
    printf("test %s: SKIP part %s at P=%d (%s)\n", tu_name_, what, tu_nprocs_,
           why);
    fflush(stdout);
  }
}

int tu_rank(void) { return tu_rank_; }

int tu_nprocs(void) { return tu_nprocs_; }

long tu_failures(void) { return tu_failures_; }

int tu_any_failed(void) {
  long any = 0;
  MPI_Allreduce(&tu_failures_, &any, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return any != 0;
}

/* ---- files ------------------------------------------------------------ */

const char *tu_tmpdir(void) {
  const char *d = getenv("DARRAY_TEST_TMPDIR");
  return (d != NULL && d[0] != '\0') ? d : "/tmp";
}

/* mkdir -p of a directory path; 0 on success. */
static int tu_mkdir_p(const char *dir) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
    return -1;
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
    return -1;
  return 0;
}

char *tu_tmpname(char *buf, size_t n, const char *stem) {
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  int len = snprintf(buf, n, "%s/%s.%ld", tu_tmpdir(), stem, pid);
  if (len < 0 || (size_t)len >= n) {
    TU_FAIL("tu_tmpname: name for stem \"%s\" does not fit in %zu bytes", stem,
            n);
    return NULL;
  }
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", buf);
  char *slash = strrchr(dir, '/');
  if (slash != NULL && slash != dir) {
    *slash = '\0';
    if (tu_mkdir_p(dir) != 0) {
      TU_FAIL("tu_tmpname: cannot create directory %s: %s", dir,
              strerror(errno));
      return NULL;
    }
  }
  return buf;
}

void tu_remove(const char *path) {
  if (tu_rank_ == 0 && path != NULL)
    (void)remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
}

unsigned char *tu_read_file(const char *path, int64_t *size) {
  *size = -1;
  FILE *fp = fopen(path, "rb");
  if (fp == NULL)
    return NULL;
  size_t cap = 4096, len = 0;
  unsigned char *data = malloc(cap);
  while (data != NULL) {
    size_t got = fread(data + len, 1, cap - len, fp);
    len += got;
    if (len < cap) {
      if (ferror(fp)) {
        free(data);
        data = NULL;
      }
      break;
    }
    unsigned char *bigger = realloc(data, cap * 2);
    if (bigger == NULL) {
      free(data);
      data = NULL;
      break;
    }
    data = bigger;
    cap *= 2;
  }
  fclose(fp);
  if (data != NULL)
    *size = (int64_t)len;
  return data;
}

int tu_write_file(const char *path, const void *buf, int64_t n) {
  FILE *fp = fopen(path, "wb");
  if (fp == NULL)
    return -1;
  size_t put = n > 0 ? fwrite(buf, 1, (size_t)n, fp) : 0;
  int rc = (fclose(fp) == 0 && (int64_t)put == (n > 0 ? n : 0)) ? 0 : -1;
  return rc;
}

int64_t tu__compare_bytes(const char *file, int line, const void *a,
                          const void *b, int64_t n, const char *what) {
  const unsigned char *x = a, *y = b;
  int64_t bad = 0, first = -1;
  tu_checks_++;
  if (n > 0 && (x == NULL || y == NULL)) {
    tu_report(file, line, "%s: compare_bytes got a NULL buffer", what);
    return n;
  }
  for (int64_t i = 0; i < n; i++) {
    if (x[i] != y[i]) {
      if (first < 0)
        first = i;
      bad++;
    }
  }
  if (bad == 0)
    return 0;
  tu_report(file, line,
            "%s: %lld of %lld bytes differ; first at offset %lld: "
            "0x%02x != 0x%02x",
            what, (long long)bad, (long long)n, (long long)first, x[first],
            y[first]);
  return bad;
}

/* ---- data ------------------------------------------------------------- */

uint64_t tu_value(uint64_t seed, int64_t i) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tu_fill_bytes(void *buf, int64_t n, uint64_t seed, int64_t start) {
  unsigned char *p = buf;
  for (int64_t b = 0; b < n; b++)
    p[b] = (unsigned char)tu_value(seed, start + b);
}

char *tu_explain(darray_file_t f, darray_t a, int write) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  TU_OK(darray_explain(f, a, write, mem));
  fclose(mem);
  return text;
}

darray_file_t tu_open(const char *path, const char *hints, int mode) {
  darray_file_t f = NULL;
  MPI_Info info = tu_info(hints);
  TU_OK(darray_file_open(MPI_COMM_WORLD, path, mode, info, &f));
  MPI_Info_free(&info);
  return f;
}

MPI_Info tu_info(const char *hints) {
  MPI_Info info;
  MPI_Info_create(&info);
  /* a copy by malloc, not strdup: test_bufbound wraps malloc and free at
   * link time, and strdup's block (libc's own malloc) would reach its
   * free unwrapped */
  const char *h = hints != NULL ? hints : "";
  size_t hn = strlen(h) + 1;
  char *copy = malloc(hn), *save = NULL;
  if (copy != NULL)
    memcpy(copy, h, hn);
  for (char *t = copy ? strtok_r(copy, ";", &save) : NULL; t != NULL;
       t = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(t, '=');
    if (eq != NULL) {
      *eq = '\0';
      MPI_Info_set(info, t, eq + 1);
    }
  }
  free(copy);
  return info;
}

bool tu_fault_injection(void) {
#ifdef DARRAY_FAULT_INJECTION
  return true;
#else
  return false;
#endif
}

int tu_estimate(const char *text, const char *name, double *us) {
  const char *line = strstr(text, "  estimates:");
  if (line == NULL)
    return -1;
  const char *end = strchr(line, '\n');
  size_t n = strlen(name);
  /* entries are "NAME 1.234 us" or "NAME not a candidate: ...", each
   * after ": " (the first) or "; " */
  for (const char *p = line + strlen("  estimates:"); p != NULL && p < end;
       p = strstr(p, "; ")) {
    p += p[0] == ';' ? 2 : 1;
    if (strncmp(p, name, n) != 0 || p[n] != ' ')
      continue;
    if (strncmp(p + n + 1, "not a candidate: ", 17) == 0)
      return 0;
    int used = 0;
    return sscanf(p + n + 1, "%lf%n", us, &used) == 1 &&
                   strncmp(p + n + 1 + used, " us", 3) == 0
               ? 1
               : -1;
  }
  return -1;
}

/* ---- the error contract ------------------------------------------------ */

#define TU_MSG_LEN 512

/* strstr regardless of letter case. */
static const char *find_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay != '\0'; hay++)
    if (strncasecmp(hay, needle, n) == 0)
      return hay;
  return n == 0 ? hay : NULL;
}

/* A rank that did not fail itself: "failed on rank R: <R's message>" (the
 * start of it: the library may shorten a long one), R a rank that did. */
static void check_remote_message(const char *m, const char *all,
                                 const char *what) {
  int R = -1, used = 0;
  const char *f = strstr(m, "failed on rank ");
  if (!TU_CHECK(sscanf(f, "failed on rank %d: %n", &R, &used) == 1 &&
                used > 0 && R >= 0 && R < tu_nprocs())) {
    fprintf(stderr, "  %s: no rank named in \"%s\"\n", what, m);
    return;
  }
  const char *theirs = all + (size_t)R * TU_MSG_LEN;
  if (!TU_CHECK(strstr(theirs, "failed on rank ") == NULL))
    fprintf(stderr, "  %s: rank %d, named as failing, says \"%s\"\n", what,
            R, theirs);
  size_t k = strlen(f + used), t = strlen(theirs);
  k = k < t ? k : t;
  k = k < 40 ? k : 40;
  if (!TU_CHECK(k > 0 && strncmp(f + used, theirs, k) == 0))
    fprintf(stderr, "  %s: \"%s\" is not rank %d's message \"%s\"\n", what,
            m, R, theirs);
}

void tu_expect_failure_messages(const char *msg, const char *cause,
                                const char *call, const char *what) {
  int P = tu_nprocs(), own = 0;
  char mine[TU_MSG_LEN];
  snprintf(mine, sizeof mine, "%s", msg != NULL ? msg : "");
  char *all = malloc((size_t)P * TU_MSG_LEN);
  if (all == NULL) {
    fprintf(stderr, "testutil: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 99);
  }
  MPI_Allgather(mine, TU_MSG_LEN, MPI_CHAR, all, TU_MSG_LEN, MPI_CHAR,
                MPI_COMM_WORLD);
  for (int r = 0; r < P; r++)
    own += strstr(all + (size_t)r * TU_MSG_LEN, "failed on rank ") == NULL;
  if (!TU_CHECK(own > 0) && tu_rank() == 0)
    fprintf(stderr, "  %s: no rank has a message of its own\n", what);
  if (strstr(mine, "failed on rank ") != NULL) {
    check_remote_message(mine, all, what);
  } else {
    if (!TU_CHECK(find_nocase(mine, cause) != NULL))
      fprintf(stderr, "  %s: rank %d's message does not name \"%s\": \"%s\"\n",
              what, tu_rank(), cause, mine);
    if (call != NULL)
      TU_CONTAINS(mine, call);
  }
  free(all);
}

unsigned char *tu_arrays_bytes(const tu_arrays_t *l, const bool *want,
                               int64_t *n) {
  *n = l->n * l->stride;
  unsigned char *b = malloc((size_t)*n);
  memset(b, l->bg, (size_t)*n);
  for (int k = 0; k < l->n; k++)
    for (int64_t e = 0; want[k] && e < l->elems; e++) {
      int64_t v = (int64_t)tu_value(l->seed0 + (uint64_t)k, e);
      memcpy(b + k * l->stride + e * 8, &v, 8);
    }
  return b;
}

void tu_arrays_write(const tu_arrays_t *l, const char *path,
                     const bool *want) {
  if (tu_rank() == 0) {
    int64_t n;
    unsigned char *b = tu_arrays_bytes(l, want, &n);
    TU_CHECK(tu_write_file(path, b, n) == 0);
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void tu_arrays_local(darray_file_t f, darray_t a, int64_t *bytes, char **buf,
                     char **back) {
  *bytes = 0;
  TU_OK(darray_local_bytes(a, bytes));
  *buf = calloc(1, (size_t)*bytes + 8);
  *back = calloc(1, (size_t)*bytes + 8);
  TU_OK(darray_read(f, a, *buf));
}

void tu_arrays_check(const tu_arrays_t *l, const char *path,
                     const bool *want, const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) {
    int64_t n, got_n;
    unsigned char *b = tu_arrays_bytes(l, want, &n);
    unsigned char *got = tu_read_file(path, &got_n);
    if (TU_EQ_I64(got_n, n))
      tu_compare_bytes(got, b, n, what);
    free(b);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
