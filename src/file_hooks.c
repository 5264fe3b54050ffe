/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * file_hooks.c - what the file core runs for the rooms above it
 * (file.h: file_hooks_t; doc/rooms.md, "Hooks"): their drain before a
 * collective, their finish at sync and close, their close after every
 * finish, and the close slots of the strategies prepared on the file.
 * darray_file.c calls these; it names no room above the core.
 */
#include "file.h"

#include <string.h>

/* Every strategy's close slot fits in a file's closes[]: a strategy
 * registers its own once (darray__xfer_begin_local), so a file holds at
 * most one per strategy, and the list names them all. */
_Static_assert(DARRAY_STRATEGY_COUNT <= DARRAY_FILE_CLOSES,
               "more strategies (DARRAY_STRATEGY_LIST, hints.h) than close "
               "slots a file keeps (DARRAY_FILE_CLOSES, file.h)");

/* The rooms' finish hooks (sync: close false; close: true), in order:
 * the first failure, its message in amsg. */
int darray__file_finish_hooks(darray_file_t f, bool close, char *amsg) {
  int arc = DARRAY_SUCCESS;
  for (int k = 0; k < DARRAY_HOOKS_N; k++)
    if (f->hooks[k].finish != NULL) {
      char m[DARRAY_ERRMSG_LEN] = "";
      int rc = f->hooks[k].finish(f, close, m);
      if (rc != DARRAY_SUCCESS && arc == DARRAY_SUCCESS) {
        arc = rc;
        memcpy(amsg, m, DARRAY_ERRMSG_LEN);
      }
    }
  return arc;
}

/* The rooms' close hooks (a dataset's headers: agreed), in order. */
int darray__file_close_hooks(darray_file_t f, char *msg) {
  int frc = DARRAY_SUCCESS;
  for (int k = 0; k < DARRAY_HOOKS_N; k++)
    if (f->hooks[k].close != NULL) {
      int rc = f->hooks[k].close(f, msg);
      if (frc == DARRAY_SUCCESS)
        frc = rc;
    }
  return frc;
}

void darray__file_drain(darray_file_t f) {
  for (int k = 0; k < DARRAY_HOOKS_N; k++)
    if (f->hooks[k].drain != NULL)
      f->hooks[k].drain(f);
}

void darray__file_on_close(darray_file_t f, void (*close)(darray_file_t)) {
  for (int k = 0; k < f->ncloses; k++)
    if (f->closes[k] == close)
      return;
  /* never full: each strategy's slot once, and the _Static_assert above */
  if (f->ncloses < DARRAY_FILE_CLOSES)
    f->closes[f->ncloses++] = close;
}

void darray__file_run_closes(darray_file_t f) {
  for (int k = 0; k < f->ncloses; k++)
    f->closes[k](f);
}
