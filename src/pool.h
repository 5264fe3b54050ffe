/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * pool.h - the library's threads (pool.c): they serve files' nonblocking
 * requests (src/async) and compute CRC shares beside a write
 * (src/format); a thread that has run before keeps its core.
 */
#ifndef DARRAYIO_POOL_H
#define DARRAYIO_POOL_H

#include "util.h"

/* Have a thread run serve(q): an idle one of the pool, or a new one; it
 * returns to the pool when serve returns. -1: no thread. */
DARRAY_HIDDEN int darray__pool_start(void (*serve)(void *), void *q);
/* At MPI_Finalize, once no file is left (darray_final.c): the idle
 * threads of the pool end, and any that returns to it later ends too;
 * returns when the idle ones have ended. */
DARRAY_HIDDEN void darray__pool_stop(void);
/* Wait until no thread serves q any more (serve(q) has returned): then q
 * may be freed. */
DARRAY_HIDDEN void darray__pool_wait(const void *q);

#endif /* DARRAYIO_POOL_H */
