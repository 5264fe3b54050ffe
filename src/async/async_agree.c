/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_agree.c - a request's final agreement as a nonblocking collective
 * (below MPI_THREAD_MULTIPLE, async_complete.c).
 *
 * The same encoding as error.c's agreement: one MPI_Iallreduce(MAX) of
 * (-code, INT32_MAX - rank), so the most negative code wins and, among
 * equal codes, the lowest rank. Its message then goes from that rank to
 * every other by point-to-point messages on the same communicator, which
 * carries nothing else: posted in request order on every process, they
 * match in request order (MPI's messages from one sender with one tag do
 * not overtake each other), and no process ever blocks on a collective
 * that another has not reached (test may be called on one process and not
 * on another).
 */
#include "async/async.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_TELL 1

void darray__nbagree_post(nbagree_t *g, MPI_Comm comm, int code,
                          const int64_t *vals, int nv) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  g->code = code;
  g->nv = nv;
  g->bad = -1;
  /* error.c's encoding: the code and rank, the values, their complements
   * (whose maxima give each value's maximum and minimum) */
  g->in[0] = ((int64_t)(-code) << 32) | (int64_t)(INT32_MAX - rank);
  for (int i = 0; i < nv; i++) {
    g->in[1 + i] = vals[i];
    g->in[1 + nv + i] = ~vals[i];
  }
  g->phase = 1;
  if (MPI_Iallreduce(g->in, g->out, 1 + 2 * nv, MPI_INT64_T, MPI_MAX, comm,
                     &g->req) != MPI_SUCCESS) {
    g->phase = 3; /* this process alone: the others may wait (as error.c) */
    g->code = DARRAY_EMPI;
  }
}

/* The reduction is complete: the failing rank tells the others. */
static int start_telling(nbagree_t *g, MPI_Comm comm, const char *msg) {
  int agreed = (int)-(g->out[0] >> 32);
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  g->who = INT32_MAX - (int)(g->out[0] & 0xffffffff);
  g->failed_here = g->code != DARRAY_SUCCESS;
  g->code = agreed;
  for (int i = 0; i < g->nv && agreed == DARRAY_SUCCESS; i++)
    if (g->out[1 + i] != ~g->out[1 + g->nv + i]) { /* every process sees it */
      g->bad = i;
      g->code = DARRAY_EINCONSISTENT;
      return 3;
    }
  if (agreed == DARRAY_SUCCESS || P == 1)
    return 3;
  int want = rank == g->who ? P - 1 : 1, err = MPI_SUCCESS;
  g->tell = malloc(sizeof *g->tell * (size_t)want);
  g->ntell = 0;
  g->text[0] = '\0';
  if (rank == g->who) {
    snprintf(g->text, sizeof g->text, "%s", msg);
    for (int r = 0; r < P && err == MPI_SUCCESS; r++) {
      if (r == rank)
        continue;
      if (g->tell != NULL) /* else (out of memory) a blocking send: its
                              receiver posts its receive when it comes to
                              this request, as every process does */
        err = MPI_Isend(g->text, (int)sizeof g->text, MPI_CHAR, r, TAG_TELL,
                        comm, &g->tell[g->ntell++]);
      else
        err = MPI_Send(g->text, (int)sizeof g->text, MPI_CHAR, r, TAG_TELL,
                       comm);
    }
  } else if (g->tell != NULL) {
    err = MPI_Irecv(g->text, (int)sizeof g->text, MPI_CHAR, g->who, TAG_TELL,
                    comm, &g->tell[g->ntell++]);
  } else { /* out of memory: receive without a request */
    err = MPI_Recv(g->text, (int)sizeof g->text, MPI_CHAR, g->who, TAG_TELL,
                   comm, MPI_STATUS_IGNORE);
  }
  if (err != MPI_SUCCESS)
    g->code = DARRAY_EMPI;
  return 2;
}

static int test_or_wait(MPI_Request *req, int n, bool block, int *flag) {
  if (block) {
    *flag = 1;
    return darray__wait_all(n, req);
  }
  *flag = 1;
  for (int i = 0; i < n; i++) { /* a completed one is MPI_REQUEST_NULL */
    int one = 0;
    if (MPI_Test(&req[i], &one, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return DARRAY_EMPI;
    *flag &= one;
  }
  return DARRAY_SUCCESS;
}

int darray__nbagree_progress(nbagree_t *g, MPI_Comm comm, bool block,
                             bool *done, char *msg) {
  int flag = 0;
  if (g->phase == 1) {
    if (test_or_wait(&g->req, 1, block, &flag) != DARRAY_SUCCESS) {
      g->phase = 3;
      g->code = darray__err(msg, DARRAY_EMPI, "MPI_Iallreduce failed while "
                                              "agreeing on a request's "
                                              "result");
    } else if (flag) {
      g->phase = start_telling(g, comm, msg);
    }
  }
  if (g->phase == 2) {
    int rc = test_or_wait(g->tell, g->ntell, block, &flag);
    if (rc == DARRAY_SUCCESS && !flag) {
      *done = false;
      return DARRAY_SUCCESS;
    }
    g->text[sizeof g->text - 1] = '\0';
    if (!g->failed_here) /* a failing process keeps its own message */
      darray__err(msg, g->code, "failed on rank %d: %s", g->who,
                  rc == DARRAY_SUCCESS && g->text[0] != '\0'
                      ? g->text
                      : darray_strerror(g->code));
    free(g->tell);
    g->tell = NULL;
    g->phase = 3;
  }
  *done = g->phase == 3;
  return g->code;
}
