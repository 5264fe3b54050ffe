/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_file.c - files: open, close, sync, delete, beneath the public
 * calls (api/api_file.c, api_stats.c). The file core names
 * no room above it: close, sync and the drain before a collective run the
 * hooks those rooms attached (file.h: file_hooks_t; doc/rooms.md).
 */
#include "array.h"
#include "file.h"
#include "hints.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int darray__file_check(darray_file_t f) {
  if (f == NULL)
    return darray__err(darray__errbuf_nohandle(), DARRAY_EBADHANDLE,
                       "file handle is NULL");
  if (f->magic == DARRAY_MAGIC_FINAL) /* darray_file_close releases it */
    return darray__err(darray__errbuf_nohandle(), DARRAY_EMPI,
                       "MPI has been finalized: the library closed the file "
                       "at MPI_Finalize");
  if (f->magic != DARRAY_MAGIC_FILE)
    return darray__err(darray__errbuf_nohandle(), DARRAY_EBADHANDLE,
                       "file handle is not live (closed or corrupt)");
  f->errmsg[0] = '\0';
  return DARRAY_SUCCESS;
}

int darray__file_check_mpi(darray_file_t f) {
  int rc = darray__file_check(f);
  return rc == DARRAY_SUCCESS ? darray__mpi_ready(f->errmsg) : rc;
}

const char *darray__file_cause(const darray_file_s_t *f) {
  if (f->io.err_text[0] != '\0')
    return f->io.err_text;
  return f->io.err_errno != 0 ? strerror(f->io.err_errno) : "";
}

void darray__file_clear_cause(darray_file_s_t *f) {
  f->io.err_errno = 0;
  f->io.err_text[0] = '\0';
}

int64_t darray__file_direct_writes(const darray_file_s_t *f,
                                   int64_t *missed) {
  return darray__io_direct_calls(&f->io, missed);
}

/* The message of a failed back-end operation: the operation, the back
 * end, the code's text and the cause the back end recorded. */
static int io_failed(const darray_file_s_t *f, char *msg, int rc,
                     const char *what) {
  const char *cause = darray__file_cause(f);
  return darray__err(msg, rc, "%s (backend %s): %s%s%s", what,
                     f->io.ops->name, darray_strerror(rc),
                     cause[0] ? ": " : "", cause);
}

static int check_mode(int mode, char *msg) {
  int known = DARRAY_MODE_RDONLY | DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
              DARRAY_MODE_TRUNC;
  bool ro = mode & DARRAY_MODE_RDONLY, rw = mode & DARRAY_MODE_RDWR;
  if ((mode & ~known) != 0 || ro == rw)
    return darray__err(msg, DARRAY_EMODE,
                       "mode = %d: give exactly one of DARRAY_MODE_RDONLY and "
                       "DARRAY_MODE_RDWR, optionally with CREATE and TRUNC",
                       mode);
  if (ro && (mode & (DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC)))
    return darray__err(msg, DARRAY_EMODE,
                       "mode: CREATE and TRUNC need DARRAY_MODE_RDWR");
  return DARRAY_SUCCESS;
}

/* A dataset's file only where its back end can keep one (src/format
 * reads and sizes its file directly; io_ops_t.no_dataset): refused
 * before anything is opened. */
static int dataset_backend(const darray_file_s_t *f, const char *path,
                           char *msg) {
  char p[DARRAY_PATH_SHOWN + 8];
  const char *why = darray__io_backend(f->hints.backend)->no_dataset;
  if (why == NULL)
    return DARRAY_SUCCESS;
  return darray__err(msg, DARRAY_ENOTSUP, "'%s': a dataset (.npy, .npz) %s",
                     darray__short_path(path, p, sizeof p), why);
}

/* Local checks of darray_file_open's arguments; fills f's hints, which
 * an existing subfile descriptor overrides (the agreement that follows
 * compares them). */
static int open_args(darray_file_t f, const char *path, int mode,
                     MPI_Info info, bool dataset, char *msg) {
  if (path == NULL)
    return darray__err(msg, DARRAY_ENULL, "path is NULL");
  int rc = check_mode(mode, msg);
  if (rc == DARRAY_SUCCESS && f == NULL)
    rc = darray__err(msg, DARRAY_ENOMEM, "out of memory for the handle");
  if (rc == DARRAY_SUCCESS)
    rc = darray__hints_load(&f->hints, info, msg);
  if (rc == DARRAY_SUCCESS)
    rc = darray__io_detect(path, mode, &f->hints, msg, DARRAY_ERRMSG_LEN);
  if (f != NULL)
    f->hints.backend_given = false; /* used: not part of the agreement */
  if (rc == DARRAY_SUCCESS && dataset)
    rc = dataset_backend(f, path, msg);
  return rc;
}

/* The hints as the file uses them: a value that means "chosen by the
 * library" (cb_nodes = 0, or more aggregators than processes) becomes the
 * choice, so that darray_file_get_hint and darray_file_get_info answer
 * with what is in effect. DARRAYIO_PRINT_HINTS=1: rank 0 prints them, one
 * a line. */
static void settle_hints(darray_file_t f, const char *path) {
  darray_hints_t *h = &f->hints;
  if (h->cb_nodes <= 0 || h->cb_nodes > f->nprocs)
    h->cb_nodes = f->nprocs; /* twophase: every process aggregates */
  const char *pr = getenv("DARRAYIO_PRINT_HINTS");
  if (pr == NULL || pr[0] == '\0' || strcmp(pr, "0") == 0 || f->rank != 0)
    return;
  char head[DARRAY_PATH_SHOWN + 64], sp[DARRAY_PATH_SHOWN + 8];
  snprintf(head, sizeof head, "hints of '%s' (%d processes), one a line:",
           darray__short_path(path, sp, sizeof sp), f->nprocs);
  darray__hints_print(h, head, stderr);
}

/* What a synchronization costs (wait.c; darray_cb_cycle_ns, unless the
 * hint was given) and how many of the file's processes share this one's
 * node: the values kept from an earlier open, or measured by every
 * process (the open's first agreement decided which, the same everywhere)
 * before the open's last agreement, which learns a failure. Returns rc, or
 * the measurement's failure. */
static int cycle_cost(darray_file_t f, MPI_Comm comm, bool kept, int64_t ns,
                      int node_procs, int rc, char *msg) {
  f->cycle_at_open = f->hints.cb_cycle_ns < 0;
  int rc2 = kept ? DARRAY_SUCCESS
                 : darray__sync_cost_measure(comm, f->comm, &ns, &node_procs);
  f->node_procs = node_procs;
  if (f->cycle_at_open)
    f->hints.cb_cycle_ns = ns;
  if (rc == DARRAY_SUCCESS && rc2 != DARRAY_SUCCESS)
    rc = darray__err(msg, rc2, "MPI_Allreduce failed while measuring what "
                               "a synchronization costs");
  return rc;
}

/* The first hint whose value differs between processes (collective: one
 * allreduce), or -1. */
static int differing_hint(MPI_Comm comm, const darray_hints_t *h) {
  enum { MAXH = 48 };
  int64_t v[MAXH];
  int n = darray__hints_count() < MAXH ? darray__hints_count() : MAXH;
  for (int i = 0; i < n; i++)
    v[i] = darray__hints_value(h, i);
  int bad = -1;
  darray__agree_check(comm, DARRAY_SUCCESS, NULL, v, n, &bad);
  return bad;
}

/* DARRAY_EINCONSISTENT at open: which argument (bad: 0 path, 1 mode, 2
 * hints) and two processes' values of it, into msg (collective). */
static void name_difference(MPI_Comm comm, const darray_file_s_t *f,
                            const char *path, int mode, int bad, char *msg) {
  char text[200], sp[DARRAY_PATH_SHOWN + 8];
  int64_t mine = 0;
  darray_hints_t none;
  const darray_hints_t *h = &none;
  darray__hints_default(&none);
  if (f != NULL)
    h = &f->hints;
  int key = bad == 2 ? differing_hint(comm, h) : -1;
  if (bad == 0) {
    snprintf(text, sizeof text, "path '%s'",
             path ? darray__short_path(path, sp, sizeof sp) : "(null)");
    mine = path ? (int64_t)darray__hash(0, path, strlen(path)) : 0;
  } else if (bad == 1) {
    snprintf(text, sizeof text, "mode 0x%x", (unsigned)mode);
    mine = mode;
  } else if (key >= 0) {
    char v[64];
    darray__hints_get(h, darray__hints_key(key), v, sizeof v);
    snprintf(text, sizeof text, "%s=%s", darray__hints_key(key), v);
    mine = darray__hints_value(h, key);
  } else {
    snprintf(text, sizeof text, "other hints");
  }
  darray__err(msg, DARRAY_EINCONSISTENT,
              "darray_file_open: processes passed different %s",
              bad == 0 ? "paths" : bad == 1 ? "modes" : "hints");
  darray__agree_differ(comm, mine, text, msg, DARRAY_ERRMSG_LEN);
}

/* The mode of the file's nonblocking requests this process can take
 * (DARRAY_ASYNC_*): the hint's, lowered to what MPI's thread level
 * allows (src/async runs them in that mode). */
static int async_wanted(const darray_file_s_t *f) {
  int level = MPI_THREAD_SINGLE, want = f->hints.async_mode;
  MPI_Query_thread(&level);
  int can = level >= MPI_THREAD_MULTIPLE    ? DARRAY_ASYNC_THREAD
            : level >= MPI_THREAD_FUNNELED ? DARRAY_ASYNC_FILES
                                            : DARRAY_ASYNC_NONE;
  if (want == DARRAY_ASYNC_AUTO || want < can)
    return can; /* a hint beyond the level is lowered to it */
  return want;
}

/* The back end's handle of f (collective for mpiio): what the hints ask
 * of it set first, then opened, its locks and its mapping probed. */
static int open_backend(darray_file_t f, const char *path, int mode,
                        MPI_Info info, char *msg) {
  f->io.ops = darray__io_backend(f->hints.backend);
  f->io.fd = -1;
  f->io.lock_fd = -1;
  f->io.fh = MPI_FILE_NULL;
  f->io.comm = MPI_COMM_NULL;
  f->io.stripe_unit = f->hints.striping_unit;
  f->io.stripe_factor = f->hints.striping_factor;
  f->io.dfd = -1;
  f->io.direct_want = f->hints.direct_write == 1 && f->io.ops->own_fd;
  int rc = f->io.ops->open(&f->io, f->comm, path, mode, info, msg,
                           DARRAY_ERRMSG_LEN);
  if (rc == DARRAY_SUCCESS)
    darray__io_lock_setup(&f->io, path, mode, f->hints.concurrency);
  if (rc == DARRAY_SUCCESS)
    darray__io_map_probe(&f->io, f->hints.map);
  return rc;
}

int darray__file_open(MPI_Comm comm, const char *path, int mode,
                      MPI_Info info, bool dataset, darray_file_t *out) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (out == NULL)
    return darray__err(msg, DARRAY_ENULL, "f (the output handle) is NULL");
  *out = NULL;
  int inter = 0;
  int rc0 = darray__mpi_ready(msg);
  if (rc0 != DARRAY_SUCCESS)
    return rc0;
  if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != 0 ||
      inter)
    return darray__err(msg, DARRAY_ECOMM, "comm is MPI_COMM_NULL, invalid or "
                                          "an intercommunicator");
  darray_file_t f = calloc(1, sizeof *f);
  int rc = open_args(f, path, mode, info, dataset, msg);
  /* MPI_Comm_dup is collective: every process makes it, before the
   * agreement, so that a failure of it on one process is agreed on too */
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) {
    dup = MPI_COMM_NULL;
    if (rc == DARRAY_SUCCESS)
      rc = darray__err(msg, DARRAY_EMPI, "MPI_Comm_dup failed");
  }
  int64_t h[4] = {0, mode, 0, 1}, cycle_ns = 0;
  int node_procs = 0;
  if (path != NULL)
    h[0] = (int64_t)darray__hash(0, path, strlen(path));
  if (f != NULL)
    h[2] = (int64_t)darray__hash(0, &f->hints, sizeof f->hints);
  if (rc == DARRAY_SUCCESS)
    h[3] = darray__sync_cost_cached(comm, &cycle_ns, &node_procs);
  /* with the arguments, the mode of the file's requests (the most
   * cautious any process can take: the smallest negation) */
  int64_t mode_neg = f != NULL ? -(int64_t)async_wanted(f) : 0;
  int bad = -1, late = DARRAY_SUCCESS;
  rc = darray__agree_batch(comm, rc, msg, h, 4, &bad, &late, &mode_neg);
  if (rc == DARRAY_EINCONSISTENT && bad == 3) { /* some process lost it */
    rc = DARRAY_SUCCESS;
    h[3] = 0;
  }
  if (rc == DARRAY_EINCONSISTENT)
    name_difference(comm, f, path, mode, bad, msg);
  if (rc != DARRAY_SUCCESS) {
    if (dup != MPI_COMM_NULL)
      MPI_Comm_free(&dup);
    free(f);
    return rc;
  }
  f->comm = dup;
  f->async_mode = (int)-mode_neg;
  MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(f->comm, &f->rank);
  MPI_Comm_size(f->comm, &f->nprocs);
  f->mode = mode;
  rc = open_backend(f, path, mode, info, msg);
  rc = cycle_cost(f, comm, h[3] != 0, cycle_ns, node_procs, rc, msg);
  if (rc == DARRAY_SUCCESS)
    rc = late;
  rc = darray__agree(f->comm, rc, msg);
  if (rc != DARRAY_SUCCESS) {
    f->io.ops->close(&f->io);
    MPI_Comm_free(&f->comm);
    free(f);
    return rc;
  }
  f->id = darray__next_id();
  f->magic = DARRAY_MAGIC_FILE;
  darray__file_register(f); /* closed at MPI_Finalize if still open */
  settle_hints(f, path);
  *out = f;
  return DARRAY_SUCCESS;
}

/* darray_file_close after MPI_Finalize: no collective can run, so the
 * handle's memory (and a posix descriptor) is released locally, nothing
 * more is written (a dataset's headers are not), and the call says so. */
static int close_without_mpi(darray_file_t *pf, char *msg) {
  darray_file_t f = *pf;
  if (f->hooks[DARRAY_HOOKS_REQUESTS].drop != NULL)
    f->hooks[DARRAY_HOOKS_REQUESTS].drop(f);
  if (f->io.ops->close_local)
    f->io.ops->close(&f->io); /* close(2) and the lock descriptor */
  for (int k = DARRAY_HOOKS_REQUESTS + 1; k < DARRAY_HOOKS_N; k++)
    if (f->hooks[k].drop != NULL)
      f->hooks[k].drop(f);
  f->magic = DARRAY_MAGIC_DEAD;
  free(f);
  *pf = NULL;
  return darray__err(msg, DARRAY_EMPI,
                     "MPI has been finalized: the file handle was released "
                     "without the collective close (close files before "
                     "MPI_Finalize)");
}

/* Everything darray_file_close does but release the handle's memory
 * (collective): pending requests completed, a dataset's headers written,
 * the back end closed, the file's communicators freed; f is dead. */
static int close_collective(darray_file_t f, char *msg) {
  /* pending requests complete first (agreed), their failures reported */
  char amsg[DARRAY_ERRMSG_LEN] = "";
  int arc = darray__file_finish_hooks(f, true, amsg);
  int frc = darray__file_close_hooks(f, msg); /* headers: agreed */
  darray__file_clear_cause(f);
  int rc = f->io.ops->close(&f->io);
  if (rc != DARRAY_SUCCESS)
    io_failed(f, msg, rc, "darray_file_close");
  rc = darray__agree(f->comm, rc, msg);
  if (rc == DARRAY_SUCCESS)
    rc = frc;
  if (arc != DARRAY_SUCCESS) {
    rc = arc;
    snprintf(msg, DARRAY_ERRMSG_LEN, "darray_file_close: %s", amsg);
  }
  darray__file_run_closes(f); /* what strategies kept on it */
  f->magic = DARRAY_MAGIC_DEAD;
  MPI_Comm_free(&f->comm);
  return rc;
}

void darray__file_finalize(darray_file_t f) {
  char msg[DARRAY_ERRMSG_LEN] = "";
  f->final_rc = close_collective(f, msg);
  snprintf(f->errmsg, sizeof f->errmsg, "%s", msg);
  f->magic = DARRAY_MAGIC_FINAL;
}

/* darray_file_close of a handle the library closed at MPI_Finalize
 * (darray_final.c): its memory released, that close's result returned. */
static int close_finalized(darray_file_t *pf, char *msg) {
  darray_file_t f = *pf;
  int rc = f->final_rc;
  darray__file_unregister(f);
  if (rc != DARRAY_SUCCESS)
    darray__err(msg, rc, "closed at MPI_Finalize: %s", f->errmsg);
  f->magic = DARRAY_MAGIC_DEAD;
  free(f);
  *pf = NULL;
  return rc;
}

int darray__file_close(darray_file_t *pf) {
  if (pf == NULL || *pf == NULL)
    return DARRAY_SUCCESS;
  darray_file_t f = *pf;
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (f->magic == DARRAY_MAGIC_FINAL)
    return close_finalized(pf, msg);
  int rc = darray__file_check(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__file_unregister(f);
  if (darray__mpi_ready(msg) != DARRAY_SUCCESS)
    return close_without_mpi(pf, msg);
  rc = close_collective(f, msg);
  free(f);
  *pf = NULL;
  return rc;
}

int darray__file_sync(darray_file_t f) {
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  /* pending requests first: their failures are reported here and again
   * by their waits */
  char amsg[DARRAY_ERRMSG_LEN] = "";
  int arc = darray__file_finish_hooks(f, false, amsg);
  darray__file_clear_cause(f);
  rc = f->io.ops->sync(&f->io);
  if (rc != DARRAY_SUCCESS)
    io_failed(f, f->errmsg, rc, "darray_file_sync");
  rc = darray__agree(f->comm, rc, f->errmsg);
  if (rc == DARRAY_SUCCESS && f->io.ops->settle != NULL) {
    /* every process's writes have ended: what the back end records then
     * (the subfiles' logical size) */
    rc = f->io.ops->settle(&f->io);
    if (rc != DARRAY_SUCCESS)
      io_failed(f, f->errmsg, rc, "darray_file_sync (recording the size)");
    rc = darray__agree(f->comm, rc, f->errmsg);
  }
  if (arc != DARRAY_SUCCESS && rc == DARRAY_SUCCESS) {
    rc = arc;
    snprintf(f->errmsg, sizeof f->errmsg, "darray_file_sync: %s", amsg);
  }
  return rc;
}

int darray__file_get_stats(darray_file_t f, darray_stats_t *stats) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS && stats == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "stats is NULL");
  if (rc == DARRAY_SUCCESS)
    *stats = f->stats;
  return rc;
}

int darray__file_reset_stats(darray_file_t f) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS)
    memset(&f->stats, 0, sizeof f->stats);
  return rc;
}

int darray_file_get_hint(darray_file_t f, const char *key, char *value,
                         int len) {
  int rc = darray__file_check(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (key == NULL || value == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "%s is NULL",
                       key == NULL ? "key" : "value");
  rc = darray__hints_get(&f->hints, key, value, len > 0 ? (size_t)len : 0);
  if (rc == DARRAY_EHINT)
    darray__err(f->errmsg, rc, "key '%s' is not a darrayio hint", key);
  else if (rc != DARRAY_SUCCESS)
    darray__err(f->errmsg, rc, "len = %d is too small for the value", len);
  return rc;
}

int darray__file_delete(const char *path, MPI_Info info) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  (void)info; /* MPI_File_delete's form; the file itself says what it is */
  if (path == NULL)
    return darray__err(msg, DARRAY_ENULL, "path is NULL");
  return darray__io_delete(path, msg);
}

const char *darray_file_errmsg(darray_file_t f) {
  if (f == NULL || f->magic != DARRAY_MAGIC_FILE)
    return darray__errbuf_nohandle();
  return f->errmsg;
}

const char *darray_errmsg(darray_t a) {
  if (a == NULL || a->magic != DARRAY_MAGIC_ARRAY)
    return darray__errbuf_nohandle();
  return a->errmsg;
}

int darray_file_get_info(darray_file_t f, MPI_Info *info) {
  int rc = darray__file_check(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (info == NULL)
    return darray__err(f->errmsg, DARRAY_ENULL, "info is NULL");
  *info = MPI_INFO_NULL;
  rc = darray__mpi_ready(f->errmsg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  if (MPI_Info_create(info) != MPI_SUCCESS)
    return darray__err(f->errmsg, DARRAY_EMPI, "MPI_Info_create failed");
  for (int i = 0; i < darray__hints_count(); i++) {
    char v[64];
    darray__hints_get(&f->hints, darray__hints_key(i), v, sizeof v);
    if (MPI_Info_set(*info, darray__hints_key(i), v) != MPI_SUCCESS) {
      MPI_Info_free(info);
      return darray__err(f->errmsg, DARRAY_EMPI, "MPI_Info_set('%s') failed",
                         darray__hints_key(i));
    }
  }
  return DARRAY_SUCCESS;
}
