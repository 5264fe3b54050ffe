/*
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
#include "internal.h"

#include <sched.h>

#define SPIN_POLLS 16

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
    if (k >= SPIN_POLLS)
      sched_yield();
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int darray__wait(MPI_Request *req) { return darray__wait_all(1, req); }
