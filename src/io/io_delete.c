/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_delete.c - darray_file_delete's work: a file deleted whatever its
 * back end. A subfile descriptor (found as darray_file_open finds one,
 * io_subfiles_meta.c) takes its subfiles PATH.sub<j>of<S> with it, the
 * subfiles first; anything else is one unlink(2). Local: no MPI call.
 *
 * The unlinks go through the back end's system-call table, so that
 * DARRAYIO_FAULT (op=unlink) can make any of them fail in a build with
 * fault injection; the call has no communicator, so only rules for every
 * rank (no rank=) apply, and the calls are counted from each call's
 * start.
 */
#include "io/io_subfiles.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* unlink(2) through f's table, again when a signal interrupts it: 0 or
 * an errno value. */
static int unlink_errno(io_file_t *f, const char *path) {
  int rc;
  do
    rc = f->sys->unlink(f, path);
  while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

/* A plain file (or anything that is no descriptor): one unlink; note
 * ends the message of a failure. */
static int delete_plain(io_file_t *f, const char *path, const char *note,
                        char *msg) {
  int e = unlink_errno(f, path);
  if (e == 0)
    return DARRAY_SUCCESS;
  char sp[DARRAY_PATH_SHOWN + 1];
  return darray__err(msg, darray__io_errno_code(e),
                     "'%s': cannot delete: %s%s",
                     darray__short_path(path, sp, sizeof sp), strerror(e),
                     note);
}

/* What deleting a set's subfiles met: the first subfile missing and how
 * many were, the first that could not be deleted and why. */
typedef struct del_tally {
  int64_t missing, first_missing;
  int64_t failed; /* -1: none */
  int failed_errno;
} del_tally_t;

/* Unlink every subfile of the set, whatever happens to one of them. */
static void delete_subfiles(io_file_t *f, const char *path,
                            const sub_layout_t *l, char *name, size_t n,
                            del_tally_t *t) {
  *t = (del_tally_t){.first_missing = -1, .failed = -1};
  for (int64_t j = 0; j < l->factor; j++) {
    darray__sub_name(path, j, l->factor, name, n);
    int e = unlink_errno(f, name);
    if (e == ENOENT && t->missing++ == 0)
      t->first_missing = j;
    else if (e != 0 && e != ENOENT && t->failed < 0) {
      t->failed = j;
      t->failed_errno = e;
    }
  }
}

/* A subfile that could not be deleted (not for being missing): the
 * descriptor is kept, so that a later darray_file_delete finds the set
 * and deletes the rest. */
static int subfile_failed(const char *path, const sub_layout_t *l,
                          const del_tally_t *t, char *name, size_t n,
                          char *msg) {
  char sp[DARRAY_PATH_SHOWN + 1], sn[DARRAY_PATH_SHOWN + 1];
  darray__sub_name(path, t->failed, l->factor, name, n);
  return darray__err(msg, darray__io_errno_code(t->failed_errno),
                     "'%s': cannot delete this subfile of '%s': %s; the "
                     "descriptor is kept (delete the set again once the "
                     "cause is gone)",
                     darray__short_path(name, sn, sizeof sn),
                     darray__short_path(path, sp, sizeof sp),
                     strerror(t->failed_errno));
}

/* Subfiles that were missing: the rest of the set is gone, descriptor
 * included; DARRAY_ENOENT naming the first missing one. */
static int subfile_missing(const char *path, const sub_layout_t *l,
                           const del_tally_t *t, char *name, size_t n,
                           char *msg) {
  char sp[DARRAY_PATH_SHOWN + 1], sn[DARRAY_PATH_SHOWN + 1], more[64] = "";
  darray__sub_name(path, t->first_missing, l->factor, name, n);
  if (t->missing > 1)
    snprintf(more, sizeof more, " (and %" PRId64 " more of its %" PRId64
             " subfiles)", t->missing - 1, l->factor);
  return darray__err(msg, DARRAY_ENOENT,
                     "'%s': subfile of '%s' missing%s: %s; the rest of the "
                     "set and its descriptor are deleted",
                     darray__short_path(name, sn, sizeof sn),
                     darray__short_path(path, sp, sizeof sp), more,
                     strerror(ENOENT));
}

/* A set: its subfiles, then (unless one of them could not be deleted)
 * its descriptor. */
static int delete_set(io_file_t *f, const char *path, const sub_layout_t *l,
                      char *msg) {
  size_t n = strlen(path) + SUB_NAME_EXTRA;
  char *name = malloc(n);
  if (name == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory for a subfile's "
                       "name");
  del_tally_t t;
  delete_subfiles(f, path, l, name, n, &t);
  int rc = t.failed >= 0
               ? subfile_failed(path, l, &t, name, n, msg)
               : delete_plain(f, path, " (a subfile descriptor; its "
                              "subfiles are deleted)", msg);
  if (rc == DARRAY_SUCCESS && t.missing > 0)
    rc = subfile_missing(path, l, &t, name, n, msg);
  free(name);
  return rc;
}

int darray__io_delete(const char *path, char *msg) {
  sub_layout_t l;
  bool found = false;
  io_file_t f;
  memset(&f, 0, sizeof f);
  int rc = darray__io_fault_setup(&f, -1, msg, DARRAY_ERRMSG_LEN);
  if (rc != DARRAY_SUCCESS)
    return rc == DARRAY_ENOMEM ? darray__err(msg, rc, "out of memory")
                               : rc; /* a malformed DARRAYIO_FAULT */
  rc = darray__sub_look(path, &l, &found, msg, DARRAY_ERRMSG_LEN);
  if (rc != DARRAY_SUCCESS) { /* a malformed record: which set is it? */
    size_t k = strlen(msg);
    snprintf(msg + k, DARRAY_ERRMSG_LEN - k, "; nothing deleted (remove it "
             "and its subfiles by hand)");
  } else {
    rc = found ? delete_set(&f, path, &l, msg)
               : delete_plain(&f, path, "", msg);
  }
  darray__io_fault_free(&f);
  return rc;
}
