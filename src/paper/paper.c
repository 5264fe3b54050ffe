/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * paper.c - a whole-array call planned on paper for any number of
 * processes (darray_plan_virtual).
 *
 * Nothing a call plans needs another process's metadata: every process
 * derives every other's runs from the description. So a call over P
 * processes can be planned, and each strategy's run counted, by one
 * process that is none of them: a virtual array (darray_create_virtual)
 * carries the description, a file handle that opens no file carries the
 * hints, and the planner (plan.c) and each strategy's tally (strategy.h)
 * run on them unchanged. What the planner cannot know off line it takes
 * from the hints: the synchronization cost darray_cb_cycle_ns, when not
 * given, is that of a machine with a core per process.
 */
#include "strategy.h"
#include "agree.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int plan_args(darray_t a, int nrows, darray_plan_row_t rows[],
                     int *nfilled, char *msg) {
  if (rows == NULL || nfilled == NULL)
    return darray__err(msg, DARRAY_ENULL, "%s is NULL",
                       rows == NULL ? "rows" : "nfilled");
  if (!a->committed)
    return darray__err(msg, DARRAY_ESTATE, "a: the array is not committed");
  if (a->comm != MPI_COMM_NULL)
    return darray__err(msg, DARRAY_ECOMM, "a is an array over real "
                       "processes: plan it with darray_explain; "
                       "darray_plan_virtual takes a virtual array "
                       "(darray_create_virtual)");
  int n = 0;
  while (darray__strategies[n] != NULL)
    n++;
  if (nrows < n)
    return darray__err(msg, DARRAY_EINVAL, "nrows = %d: the table has %d "
                       "strategies", nrows, n);
  int64_t end, bytes = a->d.fstride[a->d.perm[0]] * a->d.gsizes[a->d.perm[0]];
  if (!darray__add_ok(a->d.disp, bytes, &end))
    return darray__err(msg, DARRAY_ESIZE,
                       "displacement + array bytes overflows 64 bits");
  return DARRAY_SUCCESS;
}

/* A file handle that opens no file: the hints as darray_file_open would
 * settle them for P processes, a file open for writing that takes locks
 * where the hints ask for them. */
static int paper_file(darray_file_t f, int P, MPI_Info info, char *msg) {
  memset(f, 0, sizeof *f);
  int rc = darray__hints_load(&f->hints, info, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray_hints_t *h = &f->hints;
  if (h->cb_nodes <= 0 || h->cb_nodes > P)
    h->cb_nodes = P;
  if (h->cb_cycle_ns < 0)
    h->cb_cycle_ns = DARRAY_CYCLE_CORE_NS;
  f->comm = MPI_COMM_NULL;
  f->rank = -1;
  f->nprocs = P;
  f->mode = DARRAY_MODE_RDWR;
  f->io.fd = f->io.lock_fd = -1;
  f->io.can_lock = true;
  f->io.rmw = h->concurrency != DARRAY_CONC_UNLOCKED;
  f->io.locks = h->concurrency == DARRAY_CONC_LOCKED;
  /* the mapped strategy: the processes are taken to share one node where
   * darray_map=enable says so (and the back end is posix) */
  bool maps = darray__io_backend(h->backend)->maps;
  f->io.map_ok = h->map == DARRAY_TRI_ENABLE && maps;
  f->node_procs = f->io.map_ok ? P : 0;
  f->io.map_why =
      !maps
          ? "only a file of the posix back end is mapped"
          : "a call on paper: its processes are taken to run on several "
            "nodes, each with its own copy of the file's pages "
            "(darray_map=enable: on one node)";
  if (f->io.map_ok)
    f->io.map_why = "";
  return DARRAY_SUCCESS;
}

static void unknown(darray_plan_row_t *r) {
  r->file_calls_max = r->file_calls_sum = r->file_bytes_max = -1;
  r->sent_bytes_max = r->sent_bytes_sum = r->messages_max = -1;
  r->messages_sum = r->cycles = r->aggregators = r->agg_pieces_max = -1;
  r->temp_bytes_max = r->romio_metadata_max = r->romio_metadata_sum = -1;
  r->metadata_bytes_max = 0; /* by design: only data moves */
}

static int fill_rows(const xfer_t *x, const access_t *acc, const plan_t *p,
                     int64_t plan_ns, darray_plan_row_t rows[]) {
  for (int i = 0; i < p->n; i++) {
    const strategy_t *s = p->table[i];
    darray_plan_row_t *r = &rows[i];
    memset(r, 0, sizeof *r);
    snprintf(r->strategy, sizeof r->strategy, "%s", s->name);
    snprintf(r->why, sizeof r->why, "%s", p->est[i].why);
    r->candidate = p->est[i].why[0] == '\0';
    r->chosen = p->s == s;
    r->estimate_ns = r->candidate ? p->est[i].ns : 0;
    r->plan_ns = (double)plan_ns;
    unknown(r);
    int rc = s->tally != NULL ? s->tally(x, acc, r) : DARRAY_SUCCESS;
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  return DARRAY_SUCCESS;
}

int darray_plan_virtual(darray_t a, MPI_Info info, int write, int nrows,
                        darray_plan_row_t rows[], int *nfilled) {
  int rc = darray__array_check(a);
  if (rc == DARRAY_SUCCESS)
    rc = darray__mpi_ready(a->errmsg);
  if (rc == DARRAY_SUCCESS)
    rc = plan_args(a, nrows, rows, nfilled, a->errmsg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  *nfilled = 0;
  darray_file_t f = malloc(sizeof *f);
  if (f == NULL)
    return darray__err(a->errmsg, DARRAY_ENOMEM, "out of memory");
  rc = paper_file(f, a->d.nprocs, info, a->errmsg);
  xfer_t x = {.f = f, .a = a, .write = write != 0};
  darray__io_call_init(&x.io, &f->io, &x.stats);
  plan_t p;
  if (rc == DARRAY_SUCCESS) { /* what a call plans: its access, then this */
    int64_t t0 = cpu_ns();
    rc = darray__plan_explain(&x, &p);
    int64_t plan_ns = cpu_ns() - t0;
    if (rc == DARRAY_SUCCESS)
      rc = fill_rows(&x, x.access, &p, plan_ns, rows);
    if (rc == DARRAY_ENOMEM)
      darray__err(a->errmsg, rc, "out of memory counting the call");
  }
  if (rc == DARRAY_SUCCESS)
    *nfilled = p.n;
  darray__xfer_access_free(&x);
  free(f);
  return rc;
}
