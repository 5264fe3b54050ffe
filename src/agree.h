/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * agree.h - collective agreement on results (error.c) and polite waiting
 * for MPI requests (wait.c).
 */
#ifndef DARRAYIO_AGREE_H
#define DARRAYIO_AGREE_H

#include "util.h"

/* Whether MPI may be called: DARRAY_EMPI with a message saying so before
 * MPI_Init or after MPI_Finalize (every entry point that takes a
 * communicator asks first: MPI would abort inside the call). */
DARRAY_HIDDEN int darray__mpi_ready(char *msg);

/*
 * The collectives of read and write calls (darray_stats_t.collectives).
 * Every collective MPI operation the library starts (an agreement's
 * allreduce, a failure's broadcast, a gather, a communicator split or
 * free) calls darray__coll next to it, which counts one into the counter
 * of the call the calling thread is working for. The phases of a call
 * name that counter (darray__coll_into, call/xfer_call.c), which returns the
 * one it replaces, to be named again when the phase returns; outside
 * calls it is NULL and nothing is counted. Per thread: a request's phases
 * run in the program's thread and in its file's I/O thread (src/async),
 * while other files' calls run in other threads.
 */
DARRAY_HIDDEN int64_t *darray__coll_into(int64_t *counter);
DARRAY_HIDDEN void darray__coll(void);

/*
 * Agree on a result across comm: every process returns the smallest
 * (most negative) code of any process. A process whose own code is
 * success but that sees another's failure gets that code and a message
 * "rank R failed: ..." in msg (if msg is not NULL). If the agreement
 * itself fails, returns DARRAY_EMPI.
 */
DARRAY_HIDDEN int darray__agree(MPI_Comm comm, int code, char *msg);

/* Agree on a result and check that vals[0..n) (n <= 32) are equal on every
 * process, in one collective. Returns the agreed code; when every process
 * succeeded but some value differs, returns DARRAY_EINCONSISTENT and sets
 * *bad (if not NULL) to the index of the first differing value. */
DARRAY_HIDDEN int darray__agree_check(MPI_Comm comm, int code, char *msg,
                                      const int64_t *vals, int n, int *bad);

/* darray__agree_check for an agreement that more collectives of the same
 * call follow: if its allreduce fails on this process alone, returns this
 * process's own code (so that it joins what the others do next) and sets
 * *late to DARRAY_EMPI (message in msg), which the caller must give to its
 * next agreement. *late is left alone otherwise. */
DARRAY_HIDDEN int darray__agree_first(MPI_Comm comm, int code, char *msg,
                                      const int64_t *vals, int n, int *bad,
                                      int *late);

/* darray__agree_first that also gives every process the smallest of the
 * processes' *least (into *least; 0 when the allreduce fails here): the
 * size of a batch of requests (src/async/async_batch.c), in the same
 * allreduce. */
DARRAY_HIDDEN int darray__agree_batch(MPI_Comm comm, int code, char *msg,
                                      const int64_t *vals, int n, int *bad,
                                      int *late, int64_t *least);

/* Many requests' agreements in one collective (src/async/async_batch.c):
 * request i's code codes[i] (replaced by the agreed one, a failure's
 * message told in msgs[i] as darray__agree does) and its values
 * vals[i * nv .. i * nv + nv) checked equal (a difference: codes[i] =
 * DARRAY_EINCONSISTENT, bads[i] the first index; bads may be NULL when
 * nv = 0). n <= DARRAY_AGREE_EACH_MAX, nv <= DARRAY_AGREE_EACH_VALS.
 * DARRAY_EMPI when the allreduce fails here (codes left alone). */
#define DARRAY_AGREE_EACH_MAX 32
#define DARRAY_AGREE_EACH_VALS 4
DARRAY_HIDDEN int darray__agree_each(MPI_Comm comm, int n, int *codes,
                                     char *const *msgs, const int64_t *vals,
                                     int nv, int *bads);

/*
 * After an agreement found that processes passed different values: name
 * two of them. Each process gives its value (mine, as agreed on) and the
 * value in words (text, at most 159 characters are used); the result
 * appends ": rank 0 has <rank 0's text>, rank R has <R's text>" to out
 * (n bytes), R the lowest rank whose value differs from rank 0's.
 * Collective, on the failure path only (two broadcasts and one allreduce
 * of a few bytes each); DARRAY_EMPI when one of them fails, and out is
 * left as it was.
 */
DARRAY_HIDDEN int darray__agree_differ(MPI_Comm comm, int64_t mine,
                                       const char *text, char *out,
                                       size_t n);

/* Complete MPI requests, polling and then yielding the processor between
 * polls (wait.c); DARRAY_EMPI if MPI reports an error. */
DARRAY_HIDDEN int darray__wait_all(int n, MPI_Request *req);
/* In this thread, waits sleep between polls (on) or yield (off, the
 * default): the I/O threads of nonblocking requests sleep, so that the
 * program computing beside them keeps its cores (wait.c). */
DARRAY_HIDDEN void darray__wait_sleeps(bool on);
/* A program thread waits for an I/O thread (on: it starts, off: it ends;
 * async_complete.c): while any does, the I/O threads' waits yield instead
 * of sleeping, since no computation needs the cores they would leave. */
DARRAY_HIDDEN void darray__wait_program(bool on);
/* The cost (ns) of one synchronization of comm's processes: CORE with a
 * core per process, SHARED when a node runs more processes than it has
 * cores; measured once per user communicator and kept as its attribute
 * (wait.c). cached: the kept value, if this process has it (local);
 * measure: collective over comm (a duplicate of user_comm), the same
 * answer everywhere, DARRAY_EMPI when an allreduce fails. Every process
 * must measure when one has no kept value. Both also give how many of
 * comm's processes run on this process's node (*node_procs). */
#define DARRAY_CYCLE_CORE_NS INT64_C(10000)
#define DARRAY_CYCLE_SHARED_NS INT64_C(1000000)
DARRAY_HIDDEN bool darray__sync_cost_cached(MPI_Comm user_comm, int64_t *ns,
                                           int *node_procs);
DARRAY_HIDDEN int darray__sync_cost_measure(MPI_Comm user_comm, MPI_Comm comm,
                                            int64_t *ns, int *node_procs);
/* Cores this process may run on. */
DARRAY_HIDDEN int darray__cores(void);
DARRAY_HIDDEN int darray__wait(MPI_Request *req);

#endif /* DARRAYIO_AGREE_H */
