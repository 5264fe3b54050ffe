/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray-subfile - join a striped subfile set (darray_backend=subfiles,
 * doc/subfiles.md) into one plain file, or split a plain file into one:
 *
 *   darray-subfile join data.sub data.raw
 *   darray-subfile split --unit 65536 --factor 4 data.raw data.sub
 *
 * The joined file is byte for byte what the posix back end writes for the
 * same calls. A set is the descriptor PATH (its record: format version,
 * striping unit, factor S and logical size) and the subfiles
 * PATH.sub<j>of<S>; stripe k, bytes [k*unit, (k+1)*unit) of the logical
 * file, is at offset (k div S)*unit of subfile k mod S. The tool reads
 * and writes the documented format itself, with plain system calls, on
 * one process (no MPI).
 *
 * Exit status: 0 on success, 1 when a file cannot be read or written or
 * a set is malformed (the message names the file), 2 on a usage error.
 */
#define _DEFAULT_SOURCE
#include "darrayio.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "darray-subfile";

#define MAGIC "darrayio-subfiles "
#define RECORD_LEN 96
#define FACTOR_MAX 1024
#define UNIT_MAX (INT64_C(1) << 40)
#define CHUNK (INT64_C(1) << 20) /* bytes per copy call */

typedef struct set {
  int64_t unit, factor, size;
  int fd[FACTOR_MAX];
} set_t;

static void usage(FILE *out) {
  fprintf(out,
      "usage: %s join [--force] PATH OUT\n"
      "       %s split --unit U --factor S [--force] IN PATH\n"
      "\n"
      "Join the striped subfiles of PATH (written with\n"
      "darray_backend=subfiles) into the plain file OUT, or split the plain\n"
      "file IN into a subfile set at PATH (PATH.sub<j>of<S>).\n"
      "\n"
      "  --unit U     stripe bytes (split; 1 .. 2^40)\n"
      "  --factor S   number of subfiles (split; 1 .. 1024)\n"
      "  --force      replace an existing OUT or PATH\n"
      "  --help       this text\n"
      "  --version    the version of darrayio this tool belongs to\n",
      prog, prog);
}

static int fail(const char *what, const char *path) {
  fprintf(stderr, "%s: %s '%s': %s\n", prog, what, path, strerror(errno));
  return 1;
}

/* ---- plain I/O -------------------------------------------------------- */

/* Read n bytes at off; bytes past the file's end read as zeros. */
static int read_at(int fd, char *buf, int64_t n, int64_t off) {
  while (n > 0) {
    ssize_t got = pread(fd, buf, (size_t)n, (off_t)off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -1;
    if (got == 0) {
      memset(buf, 0, (size_t)n);
      return 0;
    }
    buf += got, off += got, n -= got;
  }
  return 0;
}

static int write_at(int fd, const char *buf, int64_t n, int64_t off) {
  while (n > 0) {
    ssize_t put = pwrite(fd, buf, (size_t)n, (off_t)off);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      if (put == 0)
        errno = ENOSPC;
      return -1;
    }
    buf += put, off += put, n -= put;
  }
  return 0;
}

/* Open path for reading without blocking (a FIFO's open would wait for a
 * writer), refusing what has no offsets to read at; -1 once the message
 * (what: "cannot open", ...) is printed. */
static int open_in(const char *path, struct stat *st, const char *what) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return fail(what, path), -1;
  int fl = fcntl(fd, F_GETFL);
  const char *kind = NULL;
  if (fstat(fd, st) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
    fail(what, path);
    close(fd);
    return -1;
  }
  if (S_ISFIFO(st->st_mode))
    kind = "a FIFO (named pipe)";
  else if (S_ISSOCK(st->st_mode))
    kind = "a socket";
  else if (S_ISDIR(st->st_mode))
    kind = "a directory";
  if (kind != NULL) {
    fprintf(stderr, "%s: %s '%s': it is %s, not a file to read at an "
            "offset\n", prog, what, path, kind);
    close(fd);
    return -1;
  }
  return fd;
}

static int open_out(const char *path, int force) {
  int fl = O_WRONLY | O_CREAT | O_TRUNC | (force ? 0 : O_EXCL);
  return open(path, fl, 0666);
}

static void name_of(const char *path, int64_t j, int64_t s, char *buf,
                    size_t n) {
  snprintf(buf, n, "%s.sub%" PRId64 "of%" PRId64, path, j, s);
}

/* ---- the set ---------------------------------------------------------- */

static int read_record(const char *path, set_t *s) {
  char rec[RECORD_LEN + 1];
  int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO must not block */
  if (fd < 0)
    return fail("cannot open", path);
  ssize_t n = pread(fd, rec, RECORD_LEN, 0);
  close(fd);
  if (n < 0)
    return fail("cannot read", path);
  rec[n] = '\0';
  int version = 0;
  if (strncmp(rec, MAGIC, strlen(MAGIC)) != 0 ||
      sscanf(rec, MAGIC "%d\nunit %" SCNd64 "\nfactor %" SCNd64
                  "\nsize %" SCNd64,
             &version, &s->unit, &s->factor, &s->size) != 4 ||
      version != 1 || s->unit < 1 || s->unit > UNIT_MAX || s->factor < 1 ||
      s->factor > FACTOR_MAX || s->size < 0) {
    fprintf(stderr, "%s: '%s' is not a subfile descriptor of version 1\n",
            prog, path);
    return 1;
  }
  return 0;
}

/* The bytes subfile j holds of a logical file of size bytes. */
static int64_t expect(const set_t *s, int64_t j, int64_t size) {
  if (size == 0)
    return 0;
  int64_t last = (size - 1) / s->unit, rem = (size - 1) % s->unit + 1;
  int64_t row = last / s->factor, jl = last % s->factor;
  return j < jl ? (row + 1) * s->unit
                : j == jl ? row * s->unit + rem : row * s->unit;
}

/* The logical end of subfile j's z bytes: its last byte's logical offset
 * plus one (0 for an empty subfile), or -1 where that passes 2^63 - 1
 * (a sparse subfile of 2^62 bytes in a set of 4). */
static int64_t logical_end(const set_t *s, int64_t j, int64_t z) {
  if (z <= 0)
    return 0;
  int64_t row = (z - 1) / s->unit, w = (z - 1) % s->unit, k, at, end;
  if (__builtin_mul_overflow(row, s->factor, &k) ||
      __builtin_add_overflow(k, j, &k) ||
      __builtin_mul_overflow(k, s->unit, &at) ||
      __builtin_add_overflow(at, w + 1, &end))
    return -1;
  return end;
}

/* Open every subfile; the logical size grows to what they hold (a writer
 * that stopped before its close), and none is shorter than the record. */
static int open_parts(const char *path, set_t *s) {
  char name[4096];
  for (int64_t j = 0; j < s->factor; j++) {
    name_of(path, j, s->factor, name, sizeof name);
    struct stat st;
    s->fd[j] = open_in(name, &st, "cannot open subfile");
    if (s->fd[j] < 0)
      return 1;
    int64_t z = (int64_t)st.st_size, want = expect(s, j, s->size);
    if (z < want) {
      fprintf(stderr, "%s: subfile '%s' is truncated: %" PRId64 " bytes, "
              "the record's logical size %" PRId64 " implies %" PRId64 "\n",
              prog, name, z, s->size, want);
      return 1;
    }
    int64_t end = logical_end(s, j, z);
    if (end < 0) {
      fprintf(stderr, "%s: subfile '%s' holds %" PRId64 " bytes: its last "
              "byte's logical offset would pass 2^63 - 1 (unit %" PRId64
              ", factor %" PRId64 ")\n", prog, name, z, s->unit, s->factor);
      return 1;
    }
    s->size = end > s->size ? end : s->size;
  }
  return 0;
}

/* Stripe by stripe: between the logical file (fd) and the subfiles. */
static int copy(set_t *s, int fd, int join, const char *path) {
  char *buf = malloc((size_t)(s->unit < CHUNK ? s->unit : CHUNK));
  if (buf == NULL)
    return fail("out of memory for", path);
  int rc = 0;
  for (int64_t at = 0; at < s->size && rc == 0;) {
    int64_t k = at / s->unit, in = at % s->unit;
    int64_t n = s->unit - in < CHUNK ? s->unit - in : CHUNK;
    n = n < s->size - at ? n : s->size - at;
    int sf = s->fd[k % s->factor];
    int64_t soff = (k / s->factor) * s->unit + in;
    if (join)
      rc = read_at(sf, buf, n, soff) || write_at(fd, buf, n, at);
    else
      rc = read_at(fd, buf, n, at) || write_at(sf, buf, n, soff);
    at += n;
  }
  free(buf);
  return rc != 0 ? fail("cannot copy", path) : 0;
}

static void close_parts(set_t *s) {
  for (int64_t j = 0; j < s->factor; j++)
    if (s->fd[j] >= 0)
      close(s->fd[j]);
}

static int join(const char *path, const char *out, int force) {
  set_t s;
  memset(s.fd, -1, sizeof s.fd);
  s.factor = 0;
  int rc = read_record(path, &s);
  if (rc == 0)
    rc = open_parts(path, &s);
  int fd = rc == 0 ? open_out(out, force) : -1;
  if (rc == 0 && fd < 0)
    rc = fail("cannot create", out);
  if (rc == 0)
    rc = copy(&s, fd, 1, out);
  if (fd >= 0 && close(fd) != 0 && rc == 0)
    rc = fail("cannot close", out);
  close_parts(&s);
  return rc;
}

/* --force onto an existing set: the set goes first, subfiles included, so
 * that a set of another factor leaves none behind (darray_file_delete; a
 * plain file, a malformed descriptor or nothing at path are replaced as
 * before). */
static int replace_set(const char *path) {
  int rc = darray_file_delete(path, MPI_INFO_NULL);
  if (rc == DARRAY_SUCCESS || rc == DARRAY_ENOENT || rc == DARRAY_EFORMAT)
    return 0;
  fprintf(stderr, "%s: cannot replace '%s': %s\n", prog, path,
          darray_errmsg(NULL));
  return 1;
}

static int split(const char *in, const char *path, set_t *s, int force) {
  char name[4096], rec[RECORD_LEN + 1];
  struct stat st;
  int fd = open_in(in, &st, "cannot open");
  if (fd < 0)
    return 1;
  if (force && replace_set(path) != 0) {
    close(fd);
    return 1;
  }
  s->size = (int64_t)st.st_size;
  int rc = 0, dfd = open_out(path, force);
  if (dfd < 0)
    rc = fail("cannot create", path);
  for (int64_t j = 0; j < s->factor && rc == 0; j++) {
    name_of(path, j, s->factor, name, sizeof name);
    s->fd[j] = open(name, O_RDWR | O_CREAT | O_TRUNC, 0666);
    if (s->fd[j] < 0 ||
        ftruncate(s->fd[j], (off_t)expect(s, j, s->size)) != 0)
      rc = fail("cannot create subfile", name);
  }
  if (rc == 0)
    rc = copy(s, fd, 0, path);
  memset(rec, '\n', RECORD_LEN);
  int n = snprintf(rec, sizeof rec, MAGIC "1\nunit %019" PRId64
                   "\nfactor %010" PRId64 "\nsize %019" PRId64 "\n",
                   s->unit, s->factor, s->size);
  rec[n] = '\n'; /* the padding goes on; the record has no terminator */
  if (rc == 0 && write_at(dfd, rec, RECORD_LEN, 0) != 0)
    rc = fail("cannot write", path);
  if (dfd >= 0 && close(dfd) != 0 && rc == 0)
    rc = fail("cannot close", path);
  close(fd);
  close_parts(s);
  return rc;
}

/* ---- the command line ------------------------------------------------- */

static int number(const char *v, int64_t lo, int64_t hi, int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long x = v != NULL ? strtoll(v, &end, 10) : 0;
  if (v == NULL || errno != 0 || end == v || *end != '\0' || x < lo ||
      x > hi)
    return -1;
  *out = x;
  return 0;
}

static int usage_error(const char *what) {
  fprintf(stderr, "%s: %s\n", prog, what);
  usage(stderr);
  return 2;
}

int main(int argc, char **argv) {
  set_t s;
  memset(s.fd, -1, sizeof s.fd);
  s.unit = s.factor = 0;
  const char *cmd = NULL, *arg[2] = {NULL, NULL};
  int nargs = 0, force = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("%s (darrayio) %s\n", prog, darray_version_string());
      return 0;
    } else if (!strcmp(a, "--force")) {
      force = 1;
    } else if (!strcmp(a, "--unit") || !strcmp(a, "--factor")) {
      int u = !strcmp(a, "--unit");
      if (number(v, 1, u ? UNIT_MAX : FACTOR_MAX, u ? &s.unit : &s.factor))
        return usage_error(u ? "--unit needs a number in 1 .. 2^40"
                             : "--factor needs a number in 1 .. 1024");
      i++;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "%s: unknown option: %s\n", prog, a);
      usage(stderr);
      return 2;
    } else if (cmd == NULL) {
      cmd = a;
    } else if (nargs < 2) {
      arg[nargs++] = a;
    } else {
      return usage_error("too many arguments");
    }
  }
  int is_join = cmd != NULL && !strcmp(cmd, "join");
  int is_split = cmd != NULL && !strcmp(cmd, "split");
  if (!is_join && !is_split)
    return usage_error("give a command: join or split");
  if (nargs != 2)
    return usage_error("give two paths");
  if (is_split && (s.unit == 0 || s.factor == 0))
    return usage_error("split needs --unit and --factor");
  if (is_join && (s.unit != 0 || s.factor != 0))
    return usage_error("join reads the layout from the set's record; "
                       "--unit and --factor are for split");
  return is_join ? join(arg[0], arg[1], force)
                 : split(arg[0], arg[1], &s, force);
}
