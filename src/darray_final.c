/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray_final.c - the files this process has open, and what happens to
 * them at MPI_Finalize (issue #38).
 *
 * A program that calls MPI_Finalize with a file still open (requests
 * pending, a dataset whose headers were never written) would otherwise
 * leave the file's I/O thread inside MPI while MPI tears itself down, and
 * a dataset without its headers. So the library closes every file still
 * open, as darray_file_close() would (darray__file_finalize: pending
 * requests completed, a dataset's headers and central directory written,
 * the back end closed, every process agreeing), then stops the idle I/O
 * threads, from two places:
 *
 * - Its own MPI_Finalize (MPI's profiling interface), which does so
 *   before MPI's: MPI is then whole, threads included, and no library
 *   thread is inside MPI when MPI's finalize starts, as the MPI standard
 *   asks of every thread of the program. It then calls the next
 *   MPI_Finalize in link order (a tool's, or MPI's; PMPI_Finalize when
 *   none is found). Needed under MPICH: its MPI_Finalize turns its
 *   thread safety off before it deletes any attribute, so an I/O thread
 *   inside an MPI call at that moment (a collective of a request still
 *   running) leaves MPICH's global mutex locked, and MPI_Finalize aborts
 *   ("pthread_mutex_destroy: Device or resource busy"; seen in about 1
 *   run in 60 of test/finalize.sh under ASan before this wrapper).
 *   configure --disable-finalize-wrapper leaves it out.
 * - An attribute on MPI_COMM_SELF, put there at the first open, whose
 *   delete callback MPI runs first thing in its MPI_Finalize: for
 *   programs whose MPI_Finalize does not reach the wrapper (a tool's
 *   wrapper earlier in link order calling PMPI_Finalize, Open MPI's
 *   Fortran binding, which calls PMPI_Finalize, or a build without the
 *   wrapper). Under MPICH at MPI_THREAD_MULTIPLE with requests still
 *   running that path keeps the race above (doc/reliability.md).
 *
 * Files are closed in the order they were opened. Opens are collective,
 * so every process of a file's communicator opened the files it shares
 * with the others in the same order, and closes them so at finalize: no
 * process waits for a close another process has not reached.
 *
 * A handle closed here keeps its memory (on the list `gone`, so that a
 * leak checker sees it reachable) until the program closes it too, which
 * then releases it and returns what the close at finalize returned.
 *
 * This is the library's one piece of process-wide mutable state for
 * files: two lists and the hook's key, under one mutex. A handle is on
 * the list `open` from its open to its close (darray__file_register,
 * darray__file_unregister); the closing takes the handles off it one by
 * one, never holding the mutex while it closes one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include "file.h"
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#ifdef DARRAY_FINALIZE_WRAPPER
#include <dlfcn.h>
#endif

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
/* doubly linked through reg_prev and reg_next, oldest first */
static darray_file_s_t *open_head, *open_tail;
/* closed at finalize, not yet by the program; linked through reg_next */
static darray_file_s_t *gone;
static int hook_key = MPI_KEYVAL_INVALID; /* set: the hook is on SELF */

static void unlink_open(darray_file_s_t *f) {
  if (f->reg_prev != NULL)
    f->reg_prev->reg_next = f->reg_next;
  else
    open_head = f->reg_next;
  if (f->reg_next != NULL)
    f->reg_next->reg_prev = f->reg_prev;
  else
    open_tail = f->reg_prev;
  f->reg_prev = f->reg_next = NULL;
}

/* How the files still open were closed (darray__final_closer). */
static atomic_int closer = DARRAY_FINAL_NONE;

/* Close what is still open, oldest first, then stop the idle I/O
 * threads; by: who calls. */
static void close_all(int by) {
  for (;;) {
    pthread_mutex_lock(&reg_mu);
    darray_file_s_t *f = open_head;
    if (f != NULL)
      unlink_open(f);
    pthread_mutex_unlock(&reg_mu);
    if (f == NULL)
      break;
    int none = DARRAY_FINAL_NONE;
    atomic_compare_exchange_strong(&closer, &none, by);
    darray__file_finalize(f); /* collective over f's communicator */
    pthread_mutex_lock(&reg_mu);
    f->reg_next = gone;
    gone = f;
    pthread_mutex_unlock(&reg_mu);
  }
  darray__pool_stop(); /* no file left: the I/O threads end */
}

int darray__final_closer(void) { return atomic_load(&closer); }

/* MPI_Finalize deletes the attribute: close what is still open (nothing,
 * when the wrapper below ran first). Returns MPI_SUCCESS whatever
 * happened (a failure would make MPI_Finalize fail; each close's result
 * waits in its handle). */
static int at_finalize(MPI_Comm comm, int key, void *attr, void *extra) {
  (void)comm, (void)attr, (void)extra;
  close_all(DARRAY_FINAL_HOOK);
  pthread_mutex_lock(&reg_mu);
  hook_key = MPI_KEYVAL_INVALID;
  pthread_mutex_unlock(&reg_mu);
  MPI_Comm_free_keyval(&key);
  return MPI_SUCCESS;
}

#ifdef DARRAY_FINALIZE_WRAPPER
typedef int (*finalize_fn)(void);

/* The MPI_Finalize after this one in link order: a tool's or MPI's. */
static finalize_fn next_finalize(void) {
  finalize_fn next = NULL;
  void *sym = dlsym(RTLD_NEXT, "MPI_Finalize");
  if (sym != NULL) /* POSIX: a function's address, from a void * */
    memcpy(&next, &sym, sizeof next);
  if (next == NULL || next == MPI_Finalize)
    next = PMPI_Finalize;
  return next;
}

/* The library's MPI_Finalize (MPI's profiling interface): every file
 * closed while MPI is whole, then the next MPI_Finalize. */
DARRAY_API int MPI_Finalize(void) {
  int init = 0, fin = 0;
  if (MPI_Initialized(&init) == MPI_SUCCESS && init &&
      MPI_Finalized(&fin) == MPI_SUCCESS && !fin)
    close_all(DARRAY_FINAL_WRAPPER);
  return next_finalize()();
}
#endif

void darray__file_register(darray_file_s_t *f) {
  pthread_mutex_lock(&reg_mu);
  if (hook_key == MPI_KEYVAL_INVALID) { /* the first open: the hook */
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key,
                               NULL) == MPI_SUCCESS) {
      if (MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS)
        hook_key = key;
      else /* no hook: the next open tries again */
        MPI_Comm_free_keyval(&key);
    }
  }
  f->reg_next = NULL;
  f->reg_prev = open_tail;
  if (open_tail != NULL)
    open_tail->reg_next = f;
  else
    open_head = f;
  open_tail = f;
  pthread_mutex_unlock(&reg_mu);
}

void darray__file_unregister(darray_file_s_t *f) {
  pthread_mutex_lock(&reg_mu);
  if (f->magic == DARRAY_MAGIC_FINAL) { /* on gone */
    darray_file_s_t **p = &gone;
    while (*p != NULL && *p != f)
      p = &(*p)->reg_next;
    if (*p != NULL)
      *p = f->reg_next;
    f->reg_next = NULL;
  } else {
    unlink_open(f);
  }
  pthread_mutex_unlock(&reg_mu);
}
