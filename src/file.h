/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * file.h - the file handle (darray_file.c).
 */
#ifndef DARRAYIO_FILE_H
#define DARRAYIO_FILE_H

#include "hints.h"
#include "io/io.h"

struct darray_file_s;

/*
 * What a room above the core attaches to a file (doc/rooms.md): the core
 * names no such room, it runs the hooks they set. Every slot may be NULL.
 * The rooms' hooks run in the order of their index below (requests, then
 * a dataset's format); a strategy's close runs after the back end closed.
 */
typedef struct file_hooks {
  /* before a collective of the caller: the room's work in flight is done
   * (async: the requests' thread idle) */
  void (*drain)(struct darray_file_s *f);
  /* at darray_file_sync (close false) and at the collective close (close
   * true): complete what is pending, the first failure in msg */
  int (*finish)(struct darray_file_s *f, bool close, char *msg);
  /* at the collective close, after every room's finish (agreed) */
  int (*close)(struct darray_file_s *f, char *msg);
  /* a close after MPI_Finalize: release what needs no MPI */
  void (*drop)(struct darray_file_s *f);
} file_hooks_t;

enum {
  DARRAY_HOOKS_REQUESTS, /* src/async, set at the file's first request */
  DARRAY_HOOKS_FORMAT,   /* src/format, set when a dataset opens */
  DARRAY_HOOKS_N
};

/* The most strategy close slots one file runs (strategy_t.close): at
 * least one per strategy (file_hooks.c asserts it). */
#define DARRAY_FILE_CLOSES 8

typedef struct darray_file_s {
  uint32_t magic;
  MPI_Comm comm;
  int rank, nprocs;
  int mode;
  darray_hints_t hints;
  bool cycle_at_open; /* darray_cb_cycle_ns was set by the open (wait.c) */
  int node_procs;     /* the file's processes on this node (wait.c, at
                         open; 0: unknown) */
  uint64_t id;        /* unique in the process (darray__next_id) */
  int64_t ncalls;     /* read and write calls posted so far (their number
                         in DARRAYIO_VERBOSE's lines) */
  int64_t rounds;     /* the agreements of read and write calls (begins
                         and ends, blocking or not; a batch's vectors
                         count once each), made by one thread at a time:
                         tests ask darray__async_rounds */
  /* the planner's whole-array decisions on this file, per operation
   * (read, write) for the last DARRAY_PLAN_MEMO arrays used with it
   * (plan.c): a committed array and the file's hints never change,
   * so a decision holds for the file's life */
  struct {
    uint64_t array; /* the array's id; 0: none */
    const struct strategy *s;
    bool proven; /* a blocking call with s has succeeded since (plan.c) */
  } plan_memo[2][4];
  int memo_next[2];
  io_file_t io;
  struct fmt_file *fmt; /* a dataset's format (src/format), NULL: raw */
  struct async_file *async; /* nonblocking requests (src/async), NULL
                               until the first */
  int async_mode; /* how they run (DARRAY_ASYNC_*), agreed at open: the
                     most cautious any process can take */
  /* the rows strategy's group communicators (src/rows/rows_comm.c): made
   * by its calls in the same order on every process, so the same ones
   * everywhere; freed at close */
  struct {
    bool used;
    int keep, ndims, psizes[DARRAY_MAX_DIMS], perm[DARRAY_MAX_DIMS];
    MPI_Comm comm;
  } rows_comm[4];
  int rows_next;
  /* the groups strategy's communicator and shared segment
   * (src/groups/groups_comm.c): made by its first call, freed at close */
  struct gr_cache *groups;
  darray_stats_t stats;
  /* the rooms' hooks (file_hooks_t) */
  file_hooks_t hooks[DARRAY_HOOKS_N];
  /* the close slots of the strategies prepared on this file (their
   * per-file state, rows' and groups' communicators), each once, run by
   * the close after the back end's (xfer_begin.c: darray__file_on_close) */
  void (*closes[DARRAY_FILE_CLOSES])(struct darray_file_s *f);
  int ncloses;
  /* the process's list of open files, in open order, and then of those
   * closed at MPI_Finalize (darray_final.c, under its mutex) */
  struct darray_file_s *reg_prev, *reg_next;
  int final_rc; /* what the close at MPI_Finalize returned (its message
                   in errmsg), for the program's darray_file_close */
  char errmsg[DARRAY_ERRMSG_LEN];
} darray_file_s_t;

/* Check that f is a live file handle and clear its message. */
/* darray_file_open; dataset: for darray_dataset_open, which refuses the
 * subfile back end (darray_file.c). */
DARRAY_HIDDEN int darray__file_open(MPI_Comm comm, const char *path, int mode,
                                    MPI_Info info, bool dataset,
                                    struct darray_file_s **out);
DARRAY_HIDDEN int darray__file_check(struct darray_file_s *f);
/* darray_file_close beneath the public entry (the rooms above the core
 * close a file they opened with darray__file_open through it). */
DARRAY_HIDDEN int darray__file_close(struct darray_file_s **pf);
/* ---- file_hooks.c: the hooks of the rooms above the core */
/* The rooms' drain hooks, in order: their work in flight done before the
 * caller's collective (nothing when none is attached). */
DARRAY_HIDDEN void darray__file_drain(struct darray_file_s *f);
/* The rooms' finish hooks (darray_file_sync: close false; the collective
 * close: true), in order: the first failure, its message in amsg. */
DARRAY_HIDDEN int darray__file_finish_hooks(struct darray_file_s *f,
                                            bool close, char *amsg);
/* The rooms' close hooks (a dataset's headers: agreed), in order: the
 * first failure, its message in msg. */
DARRAY_HIDDEN int darray__file_close_hooks(struct darray_file_s *f,
                                           char *msg);
/* Run close at f's collective close (after the back end's), once however
 * often it is asked; local. Only strategies' close slots come here
 * (darray__xfer_begin_local), one per strategy, and file_hooks.c asserts
 * at compile time that DARRAY_FILE_CLOSES holds one per strategy of
 * DARRAY_STRATEGY_LIST, so the list is never full.
 *
 * Unsynchronised (f->closes, f->ncloses have no lock) because only one
 * thread at a time runs the begins of a file's calls, where it is called:
 * a blocking call waits until the file's requests are idle before its
 * begin (darray__async_idle, api/darray_xfer.c); a request begins in the
 * program's thread (async modes files and none: async.c, start) or, in
 * mode thread, in the file's one I/O thread, or in the program's thread
 * when it runs queued requests itself (darray__async_run_here), which
 * first waits until the I/O thread has nothing it may start; the I/O
 * thread of mode files runs only transfers, never a begin. The close reads
 * the list after every request is complete and the thread let go. */
DARRAY_HIDDEN void darray__file_on_close(struct darray_file_s *f,
                                         void (*close)(struct darray_file_s *));
/* The close slots registered by darray__file_on_close, in order (the
 * collective close, after the back end's). */
DARRAY_HIDDEN void darray__file_run_closes(struct darray_file_s *f);
/* The same, and that MPI is running (calls that use MPI). */
DARRAY_HIDDEN int darray__file_check_mpi(struct darray_file_s *f);
/* The cause of the back end's last failure, for a message: the MPI call
 * and MPI's text (mpiio), the system error (posix), or "". */
DARRAY_HIDDEN const char *darray__file_cause(const struct darray_file_s *f);
/* Forget the back end's last failure (before an operation). */
DARRAY_HIDDEN void darray__file_clear_cause(struct darray_file_s *f);
/* Tests: the writes of f that went around the page cache on this process
 * (darray_direct_write; io_posix.c). */
DARRAY_HIDDEN int64_t darray__file_direct_writes(const struct darray_file_s *f,
                                                 int64_t *missed);
/* A file just opened joins the process's list of open files, and the
 * first one puts the finalize hook on MPI_COMM_SELF; a file closed leaves
 * it (darray_final.c). Local, thread-safe. */
DARRAY_HIDDEN void darray__file_register(struct darray_file_s *f);
DARRAY_HIDDEN void darray__file_unregister(struct darray_file_s *f);
/* At MPI_Finalize (the hook, darray_final.c): close f as
 * darray_file_close() does (collective), keeping the handle's memory,
 * marked DARRAY_MAGIC_FINAL with the result in final_rc and errmsg
 * (darray_file.c). */
DARRAY_HIDDEN void darray__file_finalize(struct darray_file_s *f);
/* Who closed the files left open at MPI_Finalize (darray_final.c): none
 * yet, the library's MPI_Finalize, or the attribute's delete callback.
 * For tests (test/api/test_finalize.c). */
enum { DARRAY_FINAL_NONE, DARRAY_FINAL_WRAPPER, DARRAY_FINAL_HOOK };
DARRAY_HIDDEN int darray__final_closer(void);
/* Beneath the public file and stats calls of src/api (api_file.c,
 * api_stats.c), which only forward: darray_file_sync, darray_file_delete
 * (darray_file.c), darray_file_get_stats, darray_file_reset_stats
 * (darray_file.c) and darray_file_stats_summary (stats.c). */
DARRAY_HIDDEN int darray__file_sync(struct darray_file_s *f);
DARRAY_HIDDEN int darray__file_delete(const char *path, MPI_Info info);
DARRAY_HIDDEN int darray__file_get_stats(struct darray_file_s *f,
                                         darray_stats_t *stats);
DARRAY_HIDDEN int darray__file_reset_stats(struct darray_file_s *f);
DARRAY_HIDDEN int darray__file_stats_summary(struct darray_file_s *f,
                                             darray_stats_summary_t *s);
/* What a call counted (c) added into a file's counters (into; stats.c). */
DARRAY_HIDDEN void darray__stats_fold(darray_stats_t *into,
                                      const darray_stats_t *c);

#endif /* DARRAYIO_FILE_H */
