/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * wait.c - waiting for MPI requests without starving the processes that
 * share our core.
 *
 * MPI implementations busy-poll while they wait. When a node runs more
 * processes than it has cores, a waiting process then burns the time slice
 * the process it waits for needs, and one collective can cost a whole
 * scheduler quantum (measured here: an MPI_Allreduce of 4 processes on 2
 * cores took 14 ms blocking, 0.5 ms with the polling loop below). So every
 * wait of the library polls a few times, then yields the processor between
 * polls. With a core per process the first polls usually succeed and
 * nothing changes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "agree.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPIN_POLLS 16

/* Set in the I/O threads of nonblocking requests (pool.c): a wait
 * there sleeps between polls instead of yielding. The program computes
 * meanwhile on the same cores, and a yield hands it the processor only
 * until the scheduler comes back to the poller, which then polls, and
 * yields, again: on a node whose cores all compute, the waiting I/O thread
 * would take a large share of a core for nothing. A short sleep costs the
 * transfer at most that much latency per poll. */
static _Thread_local bool sleeps;
#define SLEEP_NS 20000

void darray__wait_sleeps(bool on) { sleeps = on; }

/* But while a program thread waits for an I/O thread, nothing computes
 * on its core: the I/O threads then yield between polls, as the program's
 * own waits do, and a wait's latency is not a sleep per poll (measured:
 * eight section requests posted and waited for took 1.6x the time of the
 * blocking calls at 2 processes with the sleeps). A count under a mutex,
 * read only after the first polls. */
static pthread_mutex_t program_mu = PTHREAD_MUTEX_INITIALIZER;
static int program_waiting;

void darray__wait_program(bool on) {
  pthread_mutex_lock(&program_mu);
  program_waiting += on ? 1 : -1;
  pthread_mutex_unlock(&program_mu);
}

static bool sleep_now(void) {
  if (!sleeps)
    return false;
  pthread_mutex_lock(&program_mu);
  bool idle = program_waiting == 0;
  pthread_mutex_unlock(&program_mu);
  return idle;
}

/* GCC 12 takes MPI_STATUSES_IGNORE for a zero-length array and warns. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int darray__wait_all(int n, MPI_Request *req) {
  int done = 0;
  for (int k = 0;; k++) {
    if (MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return DARRAY_EMPI;
    if (done)
      return DARRAY_SUCCESS;
    if (k >= SPIN_POLLS && sleep_now())
      nanosleep(&(struct timespec){0, SLEEP_NS}, NULL);
    else if (k >= SPIN_POLLS)
      sched_yield();
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int darray__wait(MPI_Request *req) { return darray__wait_all(1, req); }

/*
 * What one synchronization of the processes of comm costs, for the
 * planner's darray_cb_cycle_ns. With a core per process, a two-phase
 * cycle's waits cost about 10 us (measured at 2 processes on 2 cores; an
 * allreduce alone takes under 1 us). With more processes on a node than it
 * has cores, a process that waits yields (above), but the one it waits for
 * may be off its core for part of a scheduler slice: measured at 4
 * processes on 2 cores, BTIO class A reads took 1.4 ms longer per call with
 * two-phase's one cycle than with sieving's none, though the allreduce of
 * processes already in step takes 10-30 us. So 1 ms per cycle there. The
 * answer is computed once per communicator the user opens files on and kept
 * as an attribute of it (finding the node's processes costs a collective),
 * the same on every process: oversubscribed if any node is. A process
 * whose attribute is missing (its lookup or keeping failed) makes every
 * process measure again: darray_file_open agrees on misses.
 */
static _Atomic int sync_keyval = MPI_KEYVAL_INVALID;

static int free_cost(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  free(attr);
  return MPI_SUCCESS;
}

/* The keyval, created once: two threads that race to create it keep one
 * and free the other. */
static int cost_keyval(void) {
  int k = atomic_load(&sync_keyval), mine;
  if (k != MPI_KEYVAL_INVALID)
    return k;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_cost, &mine,
                             NULL) != MPI_SUCCESS)
    return MPI_KEYVAL_INVALID;
  if (atomic_compare_exchange_strong(&sync_keyval, &k, mine))
    return mine;
  MPI_Comm_free_keyval(&mine);
  return k; /* another thread's */
}

int darray__cores(void) {
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Whether some node runs more of comm's processes than it has cores. When
 * every process has the same host name (one node: this machine's case) the
 * answer needs one allreduce, waited for with the yielding wait;
 * MPI_Comm_split_type, which waits busily (40 ms at 4 processes on 2
 * cores), is used only across nodes. DARRAY_EMPI when an allreduce fails
 * (the answer must be the same everywhere: no guess will do); a process
 * whose first allreduce failed still joins the second, taking its own host
 * for every process's, as the others do on one node. (Across nodes they
 * would wait in MPI_Comm_split_type: not covered, doc/reliability.md.) */
static int measure_sync(MPI_Comm comm, int64_t *ns, int *node_procs) {
  char host[256] = "";
  int P, here = 1, over, rc = DARRAY_SUCCESS;
  MPI_Comm_size(comm, &P);
  gethostname(host, sizeof host - 1);
  uint64_t h = darray__hash(0, host, strlen(host)), v[2] = {h, ~h};
  MPI_Request req;
  if (MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MIN, comm,
                     &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS) {
    rc = DARRAY_EMPI;
    v[0] = h, v[1] = ~h;
  }
  MPI_Comm node;
  if (v[0] == ~v[1])
    here = P;
  else if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                               &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &here);
    MPI_Comm_free(&node);
  }
  *node_procs = here;
  over = here > darray__cores(); /* a failed split only changes my vote */
  if (MPI_Iallreduce(MPI_IN_PLACE, &over, 1, MPI_INT, MPI_MAX, comm,
                     &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    rc = DARRAY_EMPI;
  *ns = over ? DARRAY_CYCLE_SHARED_NS : DARRAY_CYCLE_CORE_NS;
  return rc;
}

/* A lookup that fails (no key, no memory, an MPI failure) is a miss: the
 * caller agrees on misses, and then every process measures again. */
bool darray__sync_cost_cached(MPI_Comm user_comm, int64_t *ns,
                              int *node_procs) {
  int found = 0;
  int64_t *cached = NULL; /* {ns, node_procs} */
  int key = atomic_load(&sync_keyval);
  if (key == MPI_KEYVAL_INVALID ||
      MPI_Comm_get_attr(user_comm, key, &cached, &found) !=
          MPI_SUCCESS ||
      !found)
    return false;
  *ns = cached[0];
  *node_procs = (int)cached[1];
  return true;
}

int darray__sync_cost_measure(MPI_Comm user_comm, MPI_Comm comm,
                              int64_t *ns, int *node_procs) {
  int rc = measure_sync(comm, ns, node_procs);
  if (rc != DARRAY_SUCCESS)
    return rc;
  int key = cost_keyval();
  if (key == MPI_KEYVAL_INVALID)
    return DARRAY_SUCCESS; /* measured, not kept */
  int64_t *cached = malloc(2 * sizeof *cached);
  if (cached != NULL) {
    cached[0] = *ns;
    cached[1] = *node_procs;
    if (MPI_Comm_set_attr(user_comm, key, cached) != MPI_SUCCESS)
      free(cached);
  }
  return DARRAY_SUCCESS;
}
