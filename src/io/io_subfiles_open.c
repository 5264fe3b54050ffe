/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_subfiles_open.c - the striped subfile back end's open, sync and
 * close (io_subfiles.c has the transfers and says how a set is laid out):
 * rank 0 creates or checks the descriptor and the subfiles, every process
 * opens them (and their O_DIRECT descriptors under darray_direct_write),
 * a sync or the close records the logical size.
 */
#define _DEFAULT_SOURCE
#include "agree.h"
#include "io/io_subfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- open ------------------------------------------------------------- */

/* Open path into h->fd through f's system calls (a FIFO, a socket or a
 * directory refused, io_posix.c). */
static int open_path(io_file_t *f, io_file_t *h, const char *path, int flags,
                     char *msg, size_t msglen) {
  return darray__io_posix_open_path(f, path, flags, &h->fd, msg, msglen);
}

/* Rank 0, the descriptor open: a new or empty one gets the record of the
 * layout asked for (*fresh), an existing one must hold it. */
static int descriptor(io_file_t *f, bool *fresh, char *msg, size_t msglen) {
  struct io_subfiles *s = f->sub;
  char buf[SUB_RECORD_LEN], sp[DARRAY_PATH_SHOWN + 1];
  const char *shown = darray__short_path(s->path, sp, sizeof sp);
  int rc = darray__io_posix_ops.pread(f, buf, sizeof buf, 0);
  *fresh = false;
  struct stat st;
  if (rc == DARRAY_EEOF && fstat(f->fd, &st) == 0 && st.st_size == 0) {
    *fresh = true;
    if (!s->rdwr)
      return darray__err(msg, DARRAY_EFORMAT, "'%s' is empty, not a "
                         "subfile descriptor", shown);
    darray__sub_format(&s->lay, buf);
    return darray__io_posix_ops.pwrite(f, buf, sizeof buf, 0);
  }
  if (rc != DARRAY_SUCCESS && rc != DARRAY_EEOF)
    return darray__err(msg, rc, "reading '%s': %s", shown,
                       strerror(f->err_errno));
  sub_layout_t l;
  if (!darray__sub_is_record(buf, rc == DARRAY_SUCCESS ? sizeof buf : 0))
    return darray__err(msg, DARRAY_EFORMAT, "'%s' exists and is not a "
                       "subfile descriptor (DARRAY_MODE_TRUNC replaces it)",
                       shown);
  rc = darray__sub_parse(buf, sizeof buf, s->path, &l, msg, msglen);
  if (rc == DARRAY_SUCCESS &&
      (l.unit != s->lay.unit || l.factor != s->lay.factor))
    rc = darray__err(msg, DARRAY_EHINT, "'%s' records striping_unit=%" PRId64
                     " striping_factor=%" PRId64 ", not the hints' %" PRId64
                     " and %" PRId64, shown, l.unit, l.factor, s->lay.unit,
                     s->lay.factor);
  s->lay.size = l.size;
  return rc;
}

/* Rank 0, an existing set: no subfile is shorter than the record says. */
static int check_length(io_file_t *f, int64_t j, const char *name, char *msg) {
  struct io_subfiles *s = f->sub;
  struct stat st;
  char sp[DARRAY_PATH_SHOWN + 1];
  int64_t want = darray__sub_expect(&s->lay, j, s->lay.size);
  if (fstat(s->part[j].fd, &st) != 0 || (int64_t)st.st_size >= want)
    return DARRAY_SUCCESS;
  return darray__err(msg, DARRAY_EFORMAT, "subfile '%s' is truncated: %" PRId64
                     " bytes, its descriptor's logical size %" PRId64
                     " implies %" PRId64, darray__short_path(name, sp,
                     sizeof sp), (int64_t)st.st_size, s->lay.size, want);
}

/* darray_direct_write: each subfile its own O_DIRECT descriptor. A stripe
 * unit of whole pages keeps logical pages whole in the subfiles, so that
 * two-phase's page-aligned chunks stay aligned there; any other unit only
 * sends fewer writes around the page cache (the test is made at each
 * system call). The set's descriptor says on when every subfile is. */
static void direct_part(io_file_t *f, io_file_t *p, const char *name,
                        int mode) {
  p->direct_want = f->direct_want;
  darray__io_posix_direct(p, name, mode);
  bool first = p == &f->sub->part[0];
  if (first || !p->direct_on) {
    f->direct_on = p->direct_on;
    f->direct_why = p->direct_why;
  }
  f->dfd = -1; /* the record goes through the page cache */
}

int64_t darray__io_direct_calls(const io_file_t *f, int64_t *missed) {
  int64_t n = f->direct_calls;
  *missed = f->direct_missed;
  for (int64_t j = 0; f->sub != NULL && j < f->sub->lay.factor; j++) {
    n += f->sub->part[j].direct_calls;
    *missed += f->sub->part[j].direct_missed;
  }
  return n;
}

/* This process's open of the descriptor and the subfiles. */
static int open_all(io_file_t *f, int mode, bool first, char *msg,
                    size_t msglen) {
  struct io_subfiles *s = f->sub;
  bool fresh = false;
  int rc = open_path(f, f, s->path, darray__io_posix_flags(mode, first),
                     msg, msglen);
  if (rc == DARRAY_SUCCESS && first)
    rc = descriptor(f, &fresh, msg, msglen);
  size_t nlen = strlen(s->path) + SUB_NAME_EXTRA;
  char *name = malloc(nlen);
  if (name == NULL && rc == DARRAY_SUCCESS)
    rc = darray__err(msg, DARRAY_ENOMEM, "out of memory");
  for (int64_t j = 0; j < s->lay.factor && rc == DARRAY_SUCCESS; j++) {
    darray__sub_name(s->path, j, s->lay.factor, name, nlen);
    int fl = darray__io_posix_flags(mode, first) | (fresh ? O_TRUNC : 0);
    rc = open_path(f, &s->part[j], name, fl, msg, msglen);
    if (rc == DARRAY_SUCCESS && first && !fresh)
      rc = check_length(f, j, name, msg);
    if (rc == DARRAY_SUCCESS)
      direct_part(f, &s->part[j], name, mode);
  }
  free(name);
  return rc;
}

/* The state: layout from the hints (f->stripe_*), handles closed. */
static int setup(io_file_t *f, const char *path, int mode, char *msg) {
  char sp[DARRAY_PATH_SHOWN + 1];
  if (f->stripe_unit <= 0 || f->stripe_factor < 1 ||
      f->stripe_factor > SUB_FACTOR_MAX)
    return darray__err(msg, DARRAY_EHINT, "darray_backend=subfiles for '%s' "
                       "needs striping_unit > 0 and striping_factor in 1..%d "
                       "(given: striping_unit=%" PRId64 ", striping_factor=%"
                       PRId64 ")", darray__short_path(path, sp, sizeof sp),
                       SUB_FACTOR_MAX, f->stripe_unit, f->stripe_factor);
  struct io_subfiles *s = calloc(1, sizeof *s);
  if (s != NULL) {
    s->part = calloc((size_t)f->stripe_factor, sizeof *s->part);
    s->path = strdup(path);
  }
  if (s != NULL)
    f->sub = s;
  if (s == NULL || s->part == NULL || s->path == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  s->lay = (sub_layout_t){f->stripe_unit, f->stripe_factor, 0};
  f->dfd = -1; /* the set's descriptor has none (direct_part) */
  s->rdwr = (mode & DARRAY_MODE_RDWR) != 0;
  for (int64_t j = 0; j < s->lay.factor; j++)
    s->part[j] = (io_file_t){.ops = &darray__io_posix_ops, .fd = -1,
                             .lock_fd = -1, .dfd = -1, .sys = f->sys,
                             .fault = f->fault};
  return DARRAY_SUCCESS;
}

int darray__sub_open(io_file_t *f, MPI_Comm comm, const char *path, int mode,
                     MPI_Info info, char *msg, size_t msglen) {
  (void)info;
  int rank;
  MPI_Comm_rank(comm, &rank);
  f->fd = -1;
  f->comm = comm;
  int rc = darray__io_fault_setup(f, rank, msg, msglen);
  if (rc == DARRAY_SUCCESS)
    rc = setup(f, path, mode, msg);
  if (f->sub != NULL)
    f->sub->rank = rank;
  if (rank == 0 && rc == DARRAY_SUCCESS)
    rc = open_all(f, mode, true, msg, msglen);
  /* rank 0's code and the record's size, to every process */
  int64_t v[2] = {rc, f->sub != NULL ? f->sub->lay.size : 0};
  MPI_Request req;
  if ((MPI_Ibcast(v, 2, MPI_INT64_T, 0, comm, &req) != MPI_SUCCESS ||
       darray__wait(&req) != DARRAY_SUCCESS) &&
      rc == DARRAY_SUCCESS)
    return darray__err(msg, DARRAY_EMPI, "MPI_Bcast failed after rank 0 "
                                         "opened '%s'", path);
  if (f->sub != NULL)
    f->sub->lay.size = v[1];
  if (rank != 0 && v[0] == DARRAY_SUCCESS && rc == DARRAY_SUCCESS)
    rc = open_all(f, mode, false, msg, msglen);
  return rc;
}

/* Whether any process has written (the close's synchronization: every
 * process's writes have ended when it returns). */
static int any_written(MPI_Comm comm, const struct io_subfiles *s,
                       int *any) {
  int mine = s != NULL && s->written;
  MPI_Request req;
  if (MPI_Iallreduce(&mine, any, 1, MPI_INT, MPI_MAX, comm, &req) !=
      MPI_SUCCESS)
    return DARRAY_EMPI;
  return darray__wait(&req);
}

/* ---- sync and close --------------------------------------------------- */

/* Every subfile's fsync (and the descriptor's). */
int darray__sub_sync(io_file_t *f) {
  int rc = darray__io_posix_ops.sync(f);
  for (int64_t j = 0; f->sub != NULL && j < f->sub->lay.factor; j++) {
    io_file_t *p = &f->sub->part[j];
    int r = p->fd >= 0 ? darray__io_posix_ops.sync(p) : DARRAY_SUCCESS;
    if (r != DARRAY_SUCCESS && rc == DARRAY_SUCCESS) {
      f->err_errno = p->err_errno;
      rc = r;
    }
  }
  return rc;
}

/* A subfile's close, through the shared system calls (not the posix
 * back end's close: that would free the shared fault state), and its
 * O_DIRECT descriptor's. */
static int close_part(io_file_t *f, io_file_t *p) {
  int rc = DARRAY_SUCCESS;
  if (p->fd >= 0 && f->sys->close(p) != 0) {
    f->err_errno = errno;
    rc = darray__io_errno_code(errno);
  }
  p->fd = -1;
  if (p->dfd >= 0 && close(p->dfd) != 0 && rc == DARRAY_SUCCESS) {
    f->err_errno = errno; /* a direct write's failure may show here */
    rc = darray__io_errno_code(errno);
  }
  p->dfd = -1;
  p->direct_on = false;
  return rc;
}

/* Collective once every process has entered the open: when some process
 * wrote, rank 0 records the size after every process's last write (a
 * handle that wrote nothing, or failed to open, changes nothing). */
int darray__sub_close(io_file_t *f) {
  struct io_subfiles *s = f->sub;
  int rc = DARRAY_SUCCESS, fin = 1, any = 0;
  MPI_Finalized(&fin);
  if (!fin && f->comm != MPI_COMM_NULL)
    rc = any_written(f->comm, s, &any);
  if (any && rc == DARRAY_SUCCESS && s != NULL && f->fd >= 0)
    rc = darray__io_subfiles_settle(f);
  for (int64_t j = 0; s != NULL && s->part != NULL && j < s->lay.factor;
       j++) {
    int r = close_part(f, &s->part[j]);
    rc = rc != DARRAY_SUCCESS ? rc : r;
  }
  if (s != NULL) {
    free(s->part);
    free(s->path);
    free(s);
  }
  f->sub = NULL;
  f->comm = MPI_COMM_NULL;
  int r = darray__io_posix_ops.close(f); /* the descriptor; locks; faults */
  return rc != DARRAY_SUCCESS ? rc : r;
}
