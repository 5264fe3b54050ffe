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
 * a dataset without its headers. So the first open puts an attribute on
 * MPI_COMM_SELF; MPI_Finalize deletes it before anything else, while MPI
 * is still whole, and its delete callback closes every file still open,
 * as darray_file_close() would (darray__file_finalize: pending requests
 * completed, a dataset's headers and central directory written, the back
 * end closed, every process agreeing), then stops the idle I/O threads.
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
 * darray__file_unregister); the callback takes the handles off it one by
 * one, never holding the mutex while it closes one.
 */
#include "file.h"
#include "pool.h"

#include <pthread.h>

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

/* MPI_Finalize deletes the attribute: close what is still open, oldest
 * first. Returns MPI_SUCCESS whatever happened (a failure would make
 * MPI_Finalize fail; each close's result waits in its handle). */
static int at_finalize(MPI_Comm comm, int key, void *attr, void *extra) {
  (void)comm, (void)attr, (void)extra;
  for (;;) {
    pthread_mutex_lock(&reg_mu);
    darray_file_s_t *f = open_head;
    if (f != NULL)
      unlink_open(f);
    pthread_mutex_unlock(&reg_mu);
    if (f == NULL)
      break;
    darray__file_finalize(f); /* collective over f's communicator */
    pthread_mutex_lock(&reg_mu);
    f->reg_next = gone;
    gone = f;
    pthread_mutex_unlock(&reg_mu);
  }
  darray__pool_stop(); /* no file left: the I/O threads end */
  pthread_mutex_lock(&reg_mu);
  hook_key = MPI_KEYVAL_INVALID;
  pthread_mutex_unlock(&reg_mu);
  MPI_Comm_free_keyval(&key);
  return MPI_SUCCESS;
}

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
