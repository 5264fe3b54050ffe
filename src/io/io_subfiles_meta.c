/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_subfiles_meta.c - the subfile back end's layout arithmetic and its
 * descriptor record: written, parsed, detected at open and by
 * darray_file_delete (io_delete.c; doc/subfiles.md).
 *
 * Logical stripe k, bytes [k*unit, (k+1)*unit), lives in subfile k mod S
 * at offset (k div S)*unit. The record is a few text lines at the start of
 * the file the user names:
 *
 *   darrayio-subfiles 1
 *   unit 0000000000000004096
 *   factor 0000000004
 *   size 0000000000000123456
 *
 * always SUB_RECORD_LEN bytes long (the numbers padded with zeros).
 */
#include "agree.h"
#include "hints.h"
#include "io/io_subfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void darray__sub_name(const char *path, int64_t j, int64_t factor, char *buf,
                      size_t n) {
  snprintf(buf, n, "%s.sub%" PRId64 "of%" PRId64, path, j, factor);
}

int64_t darray__sub_end(const sub_layout_t *l, int64_t j, int64_t z) {
  if (z <= 0)
    return 0;
  int64_t row = (z - 1) / l->unit, w = (z - 1) % l->unit, k, at, end;
  if (!darray__mul_ok(row, l->factor, &k) || !darray__add_ok(k, j, &k) ||
      !darray__mul_ok(k, l->unit, &at) || !darray__add_ok(at, w + 1, &end))
    return INT64_MAX;
  return end;
}

int64_t darray__sub_expect(const sub_layout_t *l, int64_t j, int64_t size) {
  if (size <= 0)
    return 0;
  int64_t last = (size - 1) / l->unit;  /* the last stripe */
  int64_t rem = (size - 1) % l->unit + 1; /* its bytes */
  int64_t row = last / l->factor, jl = last % l->factor;
  if (j < jl)
    return (row + 1) * l->unit;
  return j == jl ? row * l->unit + rem : row * l->unit;
}

void darray__sub_format(const sub_layout_t *l, char *buf) {
  char t[SUB_RECORD_LEN + 1];
  int n = snprintf(t, sizeof t,
                   SUB_MAGIC "%d\nunit %019" PRId64 "\nfactor %010" PRId64
                             "\nsize %019" PRId64 "\n",
                   SUB_VERSION, l->unit, l->factor, l->size);
  memset(buf, '\n', SUB_RECORD_LEN); /* pad: blank lines */
  memcpy(buf, t, (size_t)n < sizeof t ? (size_t)n : SUB_RECORD_LEN);
}

bool darray__sub_is_record(const char *buf, size_t n) {
  size_t m = strlen(SUB_MAGIC);
  return n >= m && memcmp(buf, SUB_MAGIC, m) == 0;
}

int darray__sub_parse(const char *buf, size_t n, const char *path,
                      sub_layout_t *l, char *msg, size_t msglen) {
  char t[SUB_RECORD_LEN + 1], sp[DARRAY_PATH_SHOWN + 1];
  n = n < SUB_RECORD_LEN ? n : SUB_RECORD_LEN;
  memcpy(t, buf, n);
  t[n] = '\0';
  int version = 0;
  if (sscanf(t, SUB_MAGIC "%d", &version) != 1 || version != SUB_VERSION)
    return darray__err(msg, DARRAY_EFORMAT, "'%s': subfile descriptor of "
                       "version %d (this darrayio reads version %d)",
                       darray__short_path(path, sp, sizeof sp), version,
                       SUB_VERSION);
  if (n < SUB_RECORD_LEN) /* written whole: a shorter one was cut */
    return darray__err(msg, DARRAY_EFORMAT, "'%s': subfile descriptor cut "
                       "short (%zu of its %d bytes)",
                       darray__short_path(path, sp, sizeof sp), n,
                       SUB_RECORD_LEN);
  int got = sscanf(t, SUB_MAGIC "%*d\nunit %" SCNd64 "\nfactor %" SCNd64
                              "\nsize %" SCNd64,
                   &l->unit, &l->factor, &l->size);
  const char *shown = darray__short_path(path, sp, sizeof sp);
  if (got != 3)
    return darray__err(msg, DARRAY_EFORMAT, "'%s': malformed subfile "
                       "descriptor (want lines unit, factor, size)", shown);
  if (l->unit < 1 || l->unit > SUB_UNIT_MAX)
    return darray__err(msg, DARRAY_EFORMAT, "'%s': subfile descriptor's "
                       "unit %" PRId64 " is out of range (1 .. 2^40 = %"
                       PRId64 ")", shown, l->unit, SUB_UNIT_MAX);
  if (l->factor < 1 || l->factor > SUB_FACTOR_MAX)
    return darray__err(msg, DARRAY_EFORMAT, "'%s': subfile descriptor's "
                       "factor %" PRId64 " is out of range (1 .. %d)", shown,
                       l->factor, SUB_FACTOR_MAX);
  if (l->size < 0)
    return darray__err(msg, DARRAY_EFORMAT, "'%s': subfile descriptor's "
                       "size %" PRId64 " is negative", shown, l->size);
  (void)msglen;
  return DARRAY_SUCCESS;
}

/* ---- the logical size ----------------------------------------------- */

int darray__sub_logical_end(io_file_t *f, int64_t *end) {
  struct io_subfiles *s = f->sub;
  *end = 0;
  for (int64_t j = 0; j < s->lay.factor; j++) {
    struct stat st;
    if (fstat(s->part[j].fd, &st) != 0) {
      f->err_errno = errno;
      return darray__io_errno_code(errno);
    }
    int64_t e = darray__sub_end(&s->lay, j, (int64_t)st.st_size);
    *end = e > *end ? e : *end;
  }
  return DARRAY_SUCCESS;
}

/* Subfile j holds at least `want` bytes: a zero byte at want-1 where it
 * is shorter. That byte is a hole of the logical file, which no writer
 * wrote; the exclusive lock over it (when the file takes locks) keeps a
 * writer from putting data there between the look and the write. */
static int pad(io_file_t *f, int64_t j, int64_t want) {
  struct io_subfiles *s = f->sub;
  if (want <= 0)
    return DARRAY_SUCCESS;
  int64_t row = (want - 1) / s->lay.unit, w = (want - 1) % s->lay.unit;
  int64_t at = (row * s->lay.factor + j) * s->lay.unit + w;
  darray_stats_t stats;
  io_call_t c;
  memset(&stats, 0, sizeof stats);
  darray__io_call_init(&c, f, &stats);
  int rc = darray__io_lock(&c, at, 1, true);
  struct stat st;
  io_file_t *p = &s->part[j];
  if (rc == DARRAY_SUCCESS && fstat(p->fd, &st) != 0) {
    f->err_errno = errno;
    rc = darray__io_errno_code(errno);
  } else if (rc == DARRAY_SUCCESS && (int64_t)st.st_size < want) {
    rc = darray__io_posix_ops.pwrite(p, "", 1, want - 1);
    if (rc != DARRAY_SUCCESS)
      f->err_errno = p->err_errno;
  }
  int rc2 = darray__io_unlock(&c, at, 1);
  return rc != DARRAY_SUCCESS ? rc : rc2;
}

/* The record as it is on disk now (another handle of the set, opened by
 * another communicator, may have grown it since this one was opened):
 * its size into s->lay.size when larger. DARRAY_EFORMAT (cause in
 * f->err_text) when it no longer describes this set. */
static int reread(io_file_t *f) {
  struct io_subfiles *s = f->sub;
  char buf[SUB_RECORD_LEN], why[DARRAY_ERRMSG_LEN];
  ssize_t n;
  do
    n = pread(f->fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    f->err_errno = errno;
    return darray__io_errno_code(errno);
  }
  sub_layout_t l;
  int rc = darray__sub_parse(buf, (size_t)n, s->path, &l, why, sizeof why);
  if (rc == DARRAY_SUCCESS &&
      (l.unit != s->lay.unit || l.factor != s->lay.factor))
    rc = darray__err(why, DARRAY_EFORMAT, "its record now says unit %"
                     PRId64 ", factor %" PRId64 ", not %" PRId64 " and %"
                     PRId64, l.unit, l.factor, s->lay.unit, s->lay.factor);
  if (rc != DARRAY_SUCCESS) {
    darray__short_text(why, sizeof f->err_text - 1, f->err_text,
                       sizeof f->err_text);
    return rc;
  }
  if (l.size > s->lay.size)
    s->lay.size = l.size;
  return DARRAY_SUCCESS;
}

/* The size the subfiles imply, never less than the record's: subfiles
 * padded to it, the record written when it grew. */
static int record_locked(io_file_t *f) {
  struct io_subfiles *s = f->sub;
  int64_t end;
  int rc = darray__sub_logical_end(f, &end);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (end < s->lay.size) /* a record is never shortened */
    end = s->lay.size;
  for (int64_t j = 0; j < s->lay.factor && rc == DARRAY_SUCCESS; j++)
    rc = pad(f, j, darray__sub_expect(&s->lay, j, end));
  if (rc != DARRAY_SUCCESS || end == s->lay.size)
    return rc;
  sub_layout_t l = s->lay;
  l.size = end;
  char rec[SUB_RECORD_LEN];
  darray__sub_format(&l, rec);
  rc = darray__io_posix_ops.pwrite(f, rec, SUB_RECORD_LEN, 0);
  if (rc == DARRAY_SUCCESS)
    s->lay.size = end;
  return rc;
}

/*
 * Handles of one set opened by different communicators close at times of
 * their own, each from the record it read at open: read, compare and write
 * must be one step, or a close that looked at the subfiles before another
 * handle's writes and wrote after that handle's close would record less.
 * The step holds an exclusive lock of subfile 0's first byte: no data
 * writer locks there (their locks are on the descriptor, over logical
 * offsets), so only record writers wait for it, and a record writer holds
 * it with at most one data lock more (pad's), which no one holding a data
 * lock waits for: no deadlock. A file system without locks gets the step
 * unlocked, as before.
 */
int darray__sub_record(io_file_t *f) {
  int fd = f->sub->part[0].fd;
  int rc = darray__io_fd_lock(fd, true);
  bool held = rc == DARRAY_SUCCESS;
  if (rc == DARRAY_ELOCK) {
    f->err_errno = errno;
    return rc;
  }
  rc = reread(f);
  if (rc == DARRAY_SUCCESS)
    rc = record_locked(f);
  if (held && darray__io_fd_lock(fd, false) != DARRAY_SUCCESS &&
      rc == DARRAY_SUCCESS) {
    f->err_errno = errno;
    rc = DARRAY_ELOCK;
  }
  return rc;
}

int darray__io_subfiles_settle(io_file_t *f) {
  if (f->sub == NULL || f->sub->rank != 0 || !f->sub->rdwr)
    return DARRAY_SUCCESS;
  return darray__sub_record(f);
}

/* ---- detection (open, delete) ---------------------------------------- */

int darray__sub_look(const char *path, sub_layout_t *l, bool *found,
                     char *msg, size_t msglen) {
  *found = false;
  int fd;
  do /* without blocking: path may be a FIFO or a device */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) /* the caller's own call on path reports what is wrong */
    return DARRAY_SUCCESS;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* no descriptor */
    close(fd);
    return DARRAY_SUCCESS;
  }
  char buf[SUB_RECORD_LEN];
  ssize_t n;
  do
    n = pread(fd, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0 || !darray__sub_is_record(buf, (size_t)n))
    return DARRAY_SUCCESS;
  *found = true;
  return darray__sub_parse(buf, (size_t)n, path, l, msg, msglen);
}

/* An explicit hint against the record: DARRAY_EHINT naming both. */
static int contradicts(const char *path, const char *key, int64_t hint,
                       int64_t rec, char *msg) {
  char sp[DARRAY_PATH_SHOWN + 1];
  return darray__err(msg, DARRAY_EHINT, "%s=%" PRId64 ", but '%s' is a "
                     "subfile descriptor that records %s=%" PRId64, key, hint,
                     darray__short_path(path, sp, sizeof sp), key, rec);
}

/* An explicit other back end would read the record as data and write
 * over it, orphaning the subfiles: refused (the default posix gives way;
 * DARRAY_MODE_TRUNC, which replaces the set, never gets here). */
static int other_backend(const char *path, const darray_hints_t *h,
                         char *msg) {
  char sp[DARRAY_PATH_SHOWN + 1];
  return darray__err(msg, DARRAY_EHINT, "darray_backend=%s, but '%s' is a "
                     "subfile descriptor (recorded: darray_backend=subfiles)"
                     "; leave the hint out to open the set, join it into a "
                     "plain file (darray-subfile join), or replace it "
                     "(DARRAY_MODE_TRUNC)",
                     darray__io_backend(h->backend)->name,
                     darray__short_path(path, sp, sizeof sp));
}

static int apply(const char *path, const sub_layout_t *l, darray_hints_t *h,
                 char *msg) {
  /* another back end than the default (line 0), or one asked for */
  int self = darray__io_backend_index(&darray__io_subfiles_ops);
  if (h->backend != self && (h->backend != 0 || h->backend_given))
    return other_backend(path, h, msg);
  if (h->striping_unit != 0 && h->striping_unit != l->unit)
    return contradicts(path, "striping_unit", h->striping_unit, l->unit,
                       msg);
  if (h->striping_factor != 0 && h->striping_factor != l->factor)
    return contradicts(path, "striping_factor", h->striping_factor,
                       l->factor, msg);
  h->backend = self;
  h->striping_unit = l->unit;
  h->striping_factor = l->factor;
  return DARRAY_SUCCESS;
}

/* Every process looks for itself (no MPI call: the open's first
 * agreement, which compares the hints, catches processes that saw
 * different things). */
int darray__io_subfiles_detect(const char *path, int mode,
                               struct darray_hints *h, char *msg,
                               size_t msglen) {
  sub_layout_t l;
  bool found = false;
  if (mode & DARRAY_MODE_TRUNC) /* the hints decide: the set is made anew */
    return DARRAY_SUCCESS;
  int rc = darray__sub_look(path, &l, &found, msg, msglen);
  if (rc != DARRAY_SUCCESS || !found)
    return rc;
  return apply(path, &l, h, msg);
}
