/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_fault.c - fault injection below the posix back end's retry loops (a
 * testing facility; doc/reliability.md).
 *
 * When the environment variable DARRAYIO_FAULT is set at darray_file_open,
 * the posix back end makes its system calls through the table below
 * instead of libc's. Each call is counted per kind, and a rule can make
 * the k-th call of a kind on a chosen rank fail with a chosen errno, or
 * transfer only half of what it was asked (a short transfer):
 *
 *   DARRAYIO_FAULT="op=write,index=3,error=EIO,rank=1"
 *   DARRAYIO_FAULT="op=read,index=2,count=5,error=EINTR;op=lock,error=ENOLCK"
 *   DARRAYIO_FAULT="none"                    (count calls, inject nothing)
 *
 * A rule is comma-separated key=value items (spaces around keys and values
 * are ignored); rules are separated by ';':
 *   op     open | read | write | lock | unlock | sync | close | any, or one
 *          call: pread | preadv | pwrite | pwritev | map | reserve |
 *          unlink (required; map is the mapped strategy's mapping of a
 *          window, which also counts as a read or a write; reserve its
 *          fallocate; unlink darray_file_delete's, of a plain file, a
 *          subfile or a descriptor)
 *   index  the first call of that kind to fail, 1-based (default 1)
 *   count  how many consecutive calls fail (default 1)
 *   error  EIO | ENOSPC | EINTR | EACCES | EPERM | EROFS | EDQUOT | EFBIG |
 *          ENOLCK | ENOMEM | EAGAIN | a decimal errno | short (default EIO;
 *          `errno` is a synonym of `error`; short only for transfers)
 *   rank   a rank of the file's communicator, or all (default all)
 *   delay  milliseconds to sleep before the call (to force an order
 *          between ranks); a rule with a delay and no error only delays
 *
 * A failing call does nothing and returns -1 with errno set, as a real
 * failure before any byte moved would; EINTR is one such failure, which the
 * back end must retry. A short transfer moves the first half of the bytes
 * (requests of one byte cannot be short and go through whole). A failing
 * close is the exception: the descriptor is closed, then the failure
 * returned, as Linux does.
 *
 * The state lives in the file handle: counters start at zero at each open,
 * and nothing is shared between handles or threads.
 *
 * Only a build configured with --enable-fault-injection honours the
 * variable (DARRAY_FAULT_INJECTION); any other ignores it, so that a
 * stray setting cannot break a production run. The parser is built either
 * way (its fuzz target and darray__io_fault_check_spec use it).
 */
#define _DEFAULT_SOURCE /* preadv, pwritev: BSD extensions, not POSIX */
#include "io/io.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FAULT_MAX_RULES 8
#define FAULT_SHORT (-1) /* error value of a short transfer */

typedef struct fault_rule {
  int op;           /* the DARRAY_IO_FOP_* counter the rule watches */
  int64_t index;    /* first failing call, 1-based */
  int64_t count;    /* consecutive failing calls */
  int err;          /* errno, FAULT_SHORT, or 0: delay only */
  int rank;         /* -1: every rank */
  int64_t delay_ms; /* sleep before the call */
} fault_rule_t;

struct io_fault {
  int nrules;
  fault_rule_t rule[FAULT_MAX_RULES];
  int64_t calls[DARRAY_IO_FOP_N];
  int64_t injected;
};

static const char *const op_names[DARRAY_IO_FOP_N] = {
    "open",  "pread", "preadv", "pwrite",  "pwritev", "lock", "unlock",
    "sync",  "close", "map",    "reserve", "unlink", "read",    "write",
    "any"};

static const struct {
  const char *name;
  int value;
} errno_names[] = {
    {"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EINTR", EINTR},
    {"EACCES", EACCES}, {"EPERM", EPERM},   {"EROFS", EROFS},
    {"EDQUOT", EDQUOT}, {"EFBIG", EFBIG},   {"ENOLCK", ENOLCK},
    {"ENOMEM", ENOMEM}, {"EAGAIN", EAGAIN},
};

/* ---- parsing ------------------------------------------------------------- */

static bool parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out) {
  if (!isdigit((unsigned char)*v))
    return false;
  int64_t x = 0;
  for (; isdigit((unsigned char)*v); v++) {
    if (x > (INT64_MAX - 9) / 10)
      return false;
    x = 10 * x + (*v - '0');
  }
  if (*v != '\0' || x < lo || x > hi)
    return false;
  *out = x;
  return true;
}

static bool parse_op(const char *v, int *op) {
  for (int i = 0; i < DARRAY_IO_FOP_N; i++)
    if (strcmp(v, op_names[i]) == 0) {
      *op = i;
      return true;
    }
  return false;
}

static bool parse_errno(const char *v, int *err) {
  int64_t x;
  if (strcmp(v, "short") == 0) {
    *err = FAULT_SHORT;
    return true;
  }
  for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
    if (strcmp(v, errno_names[i].name) == 0) {
      *err = errno_names[i].value;
      return true;
    }
  if (!parse_int(v, 1, 4095, &x))
    return false;
  *err = (int)x;
  return true;
}

static bool is_transfer(int op) {
  return op != DARRAY_IO_FOP_OPEN && op != DARRAY_IO_FOP_LOCK &&
         op != DARRAY_IO_FOP_UNLOCK && op != DARRAY_IO_FOP_SYNC &&
         op != DARRAY_IO_FOP_CLOSE && op != DARRAY_IO_FOP_ANY &&
         op != DARRAY_IO_FOP_MAP && op != DARRAY_IO_FOP_RESERVE &&
         op != DARRAY_IO_FOP_UNLINK;
}

/* One item "key=value" of a rule. */
static int parse_item(char *item, fault_rule_t *r, bool *have_op, char *msg,
                      size_t msglen) {
  char *eq = strchr(item, '=');
  if (eq == NULL) {
    snprintf(msg, msglen, "DARRAYIO_FAULT: '%s' is not key=value", item);
    return DARRAY_EHINT;
  }
  *eq = '\0';
  const char *key = darray__trim(item), *val = darray__trim(eq + 1);
  int64_t x;
  bool ok;
  if (strcmp(key, "op") == 0) {
    ok = parse_op(val, &r->op);
    *have_op = *have_op || ok;
  } else if (strcmp(key, "index") == 0) {
    ok = parse_int(val, 1, INT64_MAX, &r->index);
  } else if (strcmp(key, "count") == 0) {
    ok = parse_int(val, 1, INT64_MAX, &r->count);
  } else if (strcmp(key, "error") == 0 || strcmp(key, "errno") == 0) {
    ok = parse_errno(val, &r->err);
  } else if (strcmp(key, "delay") == 0) {
    ok = parse_int(val, 0, 3600 * 1000, &r->delay_ms);
  } else if (strcmp(key, "rank") == 0) {
    x = -1;
    ok = strcmp(val, "all") == 0 || parse_int(val, 0, INT32_MAX, &x);
    r->rank = (int)x;
  } else {
    snprintf(msg, msglen, "DARRAYIO_FAULT: unknown key '%s'", key);
    return DARRAY_EHINT;
  }
  if (!ok) {
    snprintf(msg, msglen, "DARRAYIO_FAULT: bad value '%s' for %s", val, key);
    return DARRAY_EHINT;
  }
  return DARRAY_SUCCESS;
}

/* One rule "k=v,k=v" (modified in place). */
static int parse_rule(char *s, fault_rule_t *r, char *msg, size_t msglen) {
  *r = (fault_rule_t){-1, 1, 1, -2, -1, 0};
  bool have_op = false;
  char *save = NULL;
  for (char *it = strtok_r(s, ",", &save); it != NULL;
       it = strtok_r(NULL, ",", &save)) {
    int rc = parse_item(it, r, &have_op, msg, msglen);
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  if (!have_op) {
    snprintf(msg, msglen, "DARRAYIO_FAULT: a rule needs op=...");
    return DARRAY_EHINT;
  }
  if (r->err == -2) /* no error given */
    r->err = r->delay_ms > 0 ? 0 : EIO;
  if (r->err == FAULT_SHORT && !is_transfer(r->op)) {
    snprintf(msg, msglen,
             "DARRAYIO_FAULT: error=short needs a transfer op "
             "(read, write, pread, preadv, pwrite, pwritev), "
             "not %s",
             op_names[r->op]);
    return DARRAY_EHINT;
  }
  return DARRAY_SUCCESS;
}

/* Parse a whole specification into st (which is zeroed first). Keeps only
 * the rules that apply to `rank`. */
static int parse_spec(const char *spec, int rank, struct io_fault *st,
                      char *msg, size_t msglen) {
  memset(st, 0, sizeof *st);
  if (strcmp(spec, "none") == 0)
    return DARRAY_SUCCESS;
  char *copy = strdup(spec);
  if (copy == NULL)
    return DARRAY_ENOMEM;
  int rc = DARRAY_SUCCESS, n = 0;
  char *save = NULL;
  for (char *s = strtok_r(copy, ";", &save); s != NULL && rc == 0;
       s = strtok_r(NULL, ";", &save)) {
    fault_rule_t r;
    if (n == FAULT_MAX_RULES) {
      snprintf(msg, msglen, "DARRAYIO_FAULT: more than %d rules",
               FAULT_MAX_RULES);
      rc = DARRAY_EHINT;
      break;
    }
    rc = parse_rule(s, &r, msg, msglen);
    n++;
    if (rc == DARRAY_SUCCESS && (r.rank < 0 || r.rank == rank))
      st->rule[st->nrules++] = r;
  }
  if (rc == DARRAY_SUCCESS && n == 0) {
    snprintf(msg, msglen,
             "DARRAYIO_FAULT: empty (use \"none\" to count "
             "calls only)");
    rc = DARRAY_EHINT;
  }
  free(copy);
  return rc;
}

#ifdef DARRAY_FAULT_INJECTION
/* ---- the system calls ---------------------------------------------------- */

/* Count a call of kind op (a mapped window: also a read, or a write when
 * `write`) and return the error to inject: 0 for none, an errno, or
 * FAULT_SHORT. */
static int fault_check_rw(io_file_t *f, int op, bool write) {
  struct io_fault *st = f->fault;
  bool map = op == DARRAY_IO_FOP_MAP;
  bool rd = op == DARRAY_IO_FOP_PREAD || op == DARRAY_IO_FOP_PREADV ||
            (map && !write);
  bool wr = op == DARRAY_IO_FOP_PWRITE || op == DARRAY_IO_FOP_PWRITEV ||
            (map && write);
  st->calls[op]++;
  if (rd)
    st->calls[DARRAY_IO_FOP_READ]++;
  if (wr)
    st->calls[DARRAY_IO_FOP_WRITE]++;
  st->calls[DARRAY_IO_FOP_ANY]++;
  for (int i = 0; i < st->nrules; i++) {
    const fault_rule_t *r = &st->rule[i];
    int64_t k = st->calls[r->op];
    bool kind = r->op == op || r->op == DARRAY_IO_FOP_ANY ||
                (r->op == DARRAY_IO_FOP_READ && rd) ||
                (r->op == DARRAY_IO_FOP_WRITE && wr);
    if (!kind || k < r->index || k - r->index >= r->count)
      continue;
    if (r->delay_ms > 0) {
      struct timespec ts = {(time_t)(r->delay_ms / 1000),
                            (long)(r->delay_ms % 1000) * 1000000L};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    }
    if (r->err != 0)
      return r->err;
  }
  return 0;
}

static int fault_check(io_file_t *f, int op) {
  return fault_check_rw(f, op, false);
}

/* Inject a failure: nothing happens, errno is set. */
static int fail_with(io_file_t *f, int err) {
  f->fault->injected++;
  errno = err;
  return -1;
}

static int fault_open(io_file_t *f, const char *path, int flags, int mode) {
  int e = fault_check(f, DARRAY_IO_FOP_OPEN);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.open(f, path, flags, mode);
}

static size_t short_len(io_file_t *f, int e, size_t n) {
  if (e != FAULT_SHORT || n < 2)
    return n;
  f->fault->injected++;
  return n / 2;
}

static ssize_t fault_pread(io_file_t *f, void *buf, size_t n, int64_t off) {
  int e = fault_check(f, DARRAY_IO_FOP_PREAD);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.pread(f, buf, short_len(f, e, n), off);
}

static ssize_t fault_pwrite(io_file_t *f, const void *buf, size_t n,
                            int64_t off) {
  int e = fault_check(f, DARRAY_IO_FOP_PWRITE);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.pwrite(f, buf, short_len(f, e, n), off);
}

/* A vector call, short or not. */
static ssize_t vector(io_file_t *f, const struct iovec *iov, int n, int64_t off,
                      int op) {
  int e = fault_check(f, op);
  if (e > 0)
    return fail_with(f, e);
  const io_sys_t *sys = &darray__io_sys_libc;
  size_t total = 0;
  for (int i = 0; i < n; i++)
    total += iov[i].iov_len;
  size_t want = short_len(f, e, total);
  if (want == total || n > DARRAY_IOV_MAX)
    return op == DARRAY_IO_FOP_PREADV ? sys->preadv(f, iov, n, off)
                                      : sys->pwritev(f, iov, n, off);
  struct iovec cut[DARRAY_IOV_MAX];
  int m = 0;
  for (size_t got = 0; got < want; m++) {
    cut[m] = iov[m];
    if (cut[m].iov_len > want - got)
      cut[m].iov_len = want - got;
    got += cut[m].iov_len;
  }
  return op == DARRAY_IO_FOP_PREADV ? sys->preadv(f, cut, m, off)
                                    : sys->pwritev(f, cut, m, off);
}

static ssize_t fault_preadv(io_file_t *f, const struct iovec *iov, int n,
                            int64_t off) {
  return vector(f, iov, n, off, DARRAY_IO_FOP_PREADV);
}

static ssize_t fault_pwritev(io_file_t *f, const struct iovec *iov, int n,
                             int64_t off) {
  return vector(f, iov, n, off, DARRAY_IO_FOP_PWRITEV);
}

static int fault_fsync(io_file_t *f) {
  int e = fault_check(f, DARRAY_IO_FOP_SYNC);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.fsync(f);
}

static int fault_lock(io_file_t *f, int cmd, struct flock *fl) {
  int op = fl->l_type == F_UNLCK ? DARRAY_IO_FOP_UNLOCK : DARRAY_IO_FOP_LOCK;
  int e = fault_check(f, op);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.fcntl_lock(f, cmd, fl);
}

/* A failing close still releases the descriptor, as Linux's does (the
 * back end never retries a close), so nothing leaks. */
static int fault_close(io_file_t *f) {
  int e = fault_check(f, DARRAY_IO_FOP_CLOSE);
  int r = darray__io_sys_libc.close(f);
  return e > 0 && r == 0 ? fail_with(f, e) : r;
}

/* A window that fails to map does nothing. A mapping is never partial, so
 * error=short (a rule on reads or writes) is counted as injected and the
 * window maps whole, as a short transfer is finished by the retry loop. */
static int fault_map(io_file_t *f, size_t n, int64_t off, size_t skip,
                     bool write, void **p) {
  int e = fault_check_rw(f, DARRAY_IO_FOP_MAP, write);
  if (e > 0)
    return fail_with(f, e);
  if (e == FAULT_SHORT)
    f->fault->injected++;
  return darray__io_sys_libc.map(f, n, off, skip, write, p);
}

static int fault_reserve(io_file_t *f, int64_t off, int64_t len) {
  int e = fault_check(f, DARRAY_IO_FOP_RESERVE);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.reserve(f, off, len);
}

static int fault_unlink(io_file_t *f, const char *path) {
  int e = fault_check(f, DARRAY_IO_FOP_UNLINK);
  if (e > 0)
    return fail_with(f, e);
  return darray__io_sys_libc.unlink(f, path);
}

static const io_sys_t fault_sys = {
    fault_open,    fault_pread, fault_pwrite, fault_preadv,
    fault_pwritev, fault_fsync, fault_lock,   fault_close,
    fault_map,     fault_reserve, fault_unlink};

/* ---- set-up and queries -------------------------------------------------- */

#endif /* DARRAY_FAULT_INJECTION */

int darray__io_fault_setup(io_file_t *f, int rank, char *msg, size_t msglen) {
  f->sys = &darray__io_sys_libc;
  f->fault = NULL;
#ifdef DARRAY_FAULT_INJECTION
  const char *spec = getenv("DARRAYIO_FAULT");
  if (spec == NULL || spec[0] == '\0')
    return DARRAY_SUCCESS;
  struct io_fault *st = malloc(sizeof *st);
  if (st == NULL)
    return DARRAY_ENOMEM;
  int rc = parse_spec(spec, rank, st, msg, msglen);
  if (rc != DARRAY_SUCCESS) {
    free(st);
    return rc;
  }
  f->fault = st;
  f->sys = &fault_sys;
#else
  (void)rank, (void)msg, (void)msglen; /* the variable is ignored */
#endif
  return DARRAY_SUCCESS;
}

void darray__io_fault_free(io_file_t *f) {
  free(f->fault);
  f->fault = NULL;
  f->sys = &darray__io_sys_libc;
}

int64_t darray__io_fault_calls(const io_file_t *f, int op) {
  if (f->fault == NULL || op < 0 || op >= DARRAY_IO_FOP_N)
    return -1;
  return f->fault->calls[op];
}

bool darray__io_fault_built(void) {
#ifdef DARRAY_FAULT_INJECTION
  return true;
#else
  return false;
#endif
}

int64_t darray__io_fault_injected(const io_file_t *f) {
  return f->fault == NULL ? -1 : f->fault->injected;
}

int darray__io_fault_check_spec(const char *spec, int rank, char *msg,
                                size_t msglen) {
  struct io_fault st;
  return parse_spec(spec, rank, &st, msg, msglen);
}
