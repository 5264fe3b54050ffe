/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_darrayio.c - the darrayio methods (bench_methods.c has the table
 * and says what each method does): darrayio-auto and the forced
 * strategies, darrayio-npz, the slab sweep's section calls with
 * --explain's strategies, and darrayio-async's posts and wait.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- darrayio ------------------------------------------------------------ */

/* Open with darray_strategy = strategy (NULL: leave it to darrayio). A
 * strategy this build does not know makes the method unavailable. */
static int da_open_with(bench_t *b, mstate_t *s, int write,
                        const char *strategy) {
  MPI_Info info = bench_info(b->o.hints);
  bench_info_add(info, s->m->hints);
  if (strategy)
    MPI_Info_set(info, "darray_strategy", strategy);
  int mode = write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE : DARRAY_MODE_RDONLY;
  int rc = darray_file_open(MPI_COMM_WORLD, s->path, mode, info, &s->df);
  MPI_Info_free(&info);
  if (rc == DARRAY_EHINT && strategy &&
      strstr(darray_errmsg(NULL), "darray_strategy")) {
    snprintf(s->why, sizeof s->why, "this darrayio has no strategy '%s' (%s)",
             strategy, darray_errmsg(NULL));
    return BENCH_UNAVAILABLE;
  }
  if (rc) {
    snprintf(s->why, sizeof s->why, "darray_file_open: %s",
             darray_errmsg(NULL));
    return -1;
  }
  char v[64];
  darray_file_get_hint(s->df, "darray_strategy", v, sizeof v);
  if (strcmp(v, strategy ? strategy : "auto") != 0) {
    snprintf(s->why, sizeof s->why, "darray_strategy is %s, not %s "
             "(DARRAYIO_HINTS?)", v, strategy ? strategy : "auto");
    darray_file_close(&s->df);
    return BENCH_UNAVAILABLE;
  }
  darray_file_reset_stats(s->df);
  s->explain = b->o.explain && !strategy && !b->explained[write];
  if (s->explain && b->rank == 0) {
    if (b->p.slab)
      printf("darrayio-auto, %s of slabs: darray_explain() describes whole "
             "arrays; the strategy of each section call follows (the first "
             "one's reason from darrayio on stderr)\n",
             write ? "write" : "read");
    else
      darray_explain(s->df, b->p.darr, write, stdout);
    fflush(stdout);
  }
  b->explained[write] |= s->explain;
  return 0;
}

int bench_da_auto(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, NULL);
}
int bench_da_direct(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "direct");
}
int bench_da_sieve(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "sieve");
}
int bench_da_twophase(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "twophase");
}
int bench_da_rows(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "rows");
}
int bench_da_static(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "static");
}
int bench_da_groups(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "groups");
}

int bench_da_mapped(bench_t *b, mstate_t *s, int w) {
  return da_open_with(b, s, w, "mapped");
}

/* A .npz dataset with the pattern's array as member "u": created whole
 * for writing, bound to the existing member for reading. Patterns of
 * several dumps or slabs are not offered (a member per dump would need a
 * description per dump; sections would read the member back at close). */
int bench_da_npz(bench_t *b, mstate_t *s, int write) {
  if (b->p.ndumps != 1 || b->p.narrays != 1 || b->p.slab) {
    snprintf(s->why, sizeof s->why, "darrayio-npz: one array, whole arrays "
             "only (not %s)", b->p.name);
    return BENCH_UNAVAILABLE;
  }
  MPI_Info info = bench_info(b->o.hints);
  bench_info_add(info, s->m->hints);
  int mode = write ? DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC
                   : DARRAY_MODE_RDONLY;
  int rc = darray_dataset_open(MPI_COMM_WORLD, s->path, mode, info, &s->df);
  MPI_Info_free(&info);
  if (rc == DARRAY_ENOTSUP) {
    snprintf(s->why, sizeof s->why, "%s", darray_errmsg(NULL));
    return BENCH_UNAVAILABLE;
  }
  if (rc) {
    snprintf(s->why, sizeof s->why, "darray_dataset_open: %s",
             darray_errmsg(NULL));
    return -1;
  }
  if ((rc = darray_define(s->df, "u", b->p.darr)) != 0) {
    snprintf(s->why, sizeof s->why, "darray_define: %s",
             darray_file_errmsg(s->df));
    darray_file_close(&s->df);
    return -1;
  }
  darray_file_reset_stats(s->df);
  return 0;
}

/* --explain, slabs: rank 0 prints the strategies of the steps, a range of
 * steps per strategy. */
static void explain_step(bench_t *b, mstate_t *s, int step) {
  darray_stats_t st;
  darray_file_get_stats(s->df, &st);
  int last = step == b->p.nsteps - 1, change = strcmp(st.strategy, s->xs);
  if (step > 0 && change && b->rank == 0)
    printf("  steps %d-%d: %s\n", s->xfrom, step - 1, s->xs);
  if (step == 0 || change) {
    s->xfrom = step;
    snprintf(s->xs, sizeof s->xs, "%s", st.strategy);
  }
  if (last && b->rank == 0) {
    printf("  steps %d-%d: %s\n", s->xfrom, step, s->xs);
    fflush(stdout);
  }
}

/* Slabs: this rank's section of the step (empty when it has none left).
 * With --explain the first call runs with DARRAYIO_VERBOSE=1, on which
 * darrayio's rank 0 says on stderr what it chose and why. */
static int da_section(bench_t *b, mstate_t *s, int write, int step) {
  const pattern_t *p = &b->p;
  int verbose = s->explain && step == 0 && getenv("DARRAYIO_VERBOSE") == NULL;
  if (verbose)
    setenv("DARRAYIO_VERBOSE", "1", 1);
  int rc = 0;
  for (int g = 0; g < bench_slab_pieces(p) && rc == 0; g++) {
    int64_t start[3], count[3];
    char *buf = (char *)s->buf + bench_slab_piece(p, g, start, count);
    rc = write ? darray_write_section(s->df, p->darr, start, count,
                                      DARRAY_ORDER_C, buf)
               : darray_read_section(s->df, p->darr, start, count,
                                     DARRAY_ORDER_C, buf);
  }
  if (verbose) {
    fflush(stderr);
    unsetenv("DARRAYIO_VERBOSE");
  }
  if (rc == 0 && s->explain)
    explain_step(b, s, step);
  return rc;
}

int bench_da_xfer(bench_t *b, mstate_t *s, int write, int dump, int step) {
  int rc = 0;
  if (b->p.slab) {
    darray_set_displacement(b->p.darr, dump * bench_dump_bytes(b));
    rc = da_section(b, s, write, step);
  } else {
    for (int k = 0; k < b->p.narrays && rc == 0; k++) {
      darray_set_displacement(b->p.darr, bench_array_disp(b, dump, k));
      rc = write ? darray_write(s->df, b->p.darr, bench_array_buf(b, s, k))
                 : darray_read(s->df, b->p.darr, bench_array_buf(b, s, k));
    }
  }
  if (rc)
    snprintf(s->why, sizeof s->why, "%s: %s",
             b->p.slab ? write ? "darray_write_section" : "darray_read_section"
                       : write ? "darray_write" : "darray_read",
             darray_file_errmsg(s->df));
  /* a forced strategy that cannot move this pattern (rows on one
   * process, on MULTIPARTITION or on slabs): refused on every rank */
  if (rc == DARRAY_EHINT && strstr(s->why, "darray_strategy="))
    return BENCH_UNAVAILABLE;
  return rc ? -1 : 0;
}

/* Post array k of the step, or for a sweep its slab k (of the step's
 * --slab-group). The description is copied at post: the next array may
 * move it at once. */
static int da_post_array(bench_t *b, mstate_t *s, int write, int dump,
                         int k) {
  const pattern_t *p = &b->p;
  darray_request_t *req = &s->req[s->nreq];
  if (p->slab) {
    int64_t start[3], count[3];
    char *buf = (char *)s->buf + bench_slab_piece(p, k, start, count);
    darray_set_displacement(p->darr, dump * bench_dump_bytes(b));
    return write ? darray_iwrite_section(s->df, p->darr, start, count,
                                         DARRAY_ORDER_C, buf, req)
                 : darray_iread_section(s->df, p->darr, start, count,
                                        DARRAY_ORDER_C, buf, req);
  }
  void *buf = bench_array_buf(b, s, k);
  darray_set_displacement(p->darr, bench_array_disp(b, dump, k));
  return write ? darray_iwrite(s->df, p->darr, buf, req)
               : darray_iread(s->df, p->darr, buf, req);
}

/* darrayio-async: post step k of dump d, a request per array (with a sync
 * after a dump's last step under --fsync); complete waits for them all
 * with one darray_wait_all. */
int bench_da_post(bench_t *b, mstate_t *s, int write, int dump, int step) {
  const pattern_t *p = &b->p;
  int rc = 0;
  s->nreq = 0;
  int n = p->slab ? bench_slab_pieces(p) : p->narrays;
  for (int k = 0; k < n && rc == 0; k++)
    if ((rc = da_post_array(b, s, write, dump, k)) == 0)
      s->nreq++;
  if (rc == 0 && write && b->o.fsync && step == p->nsteps - 1 &&
      (rc = darray_file_isync(s->df, &s->req[s->nreq])) == 0)
    s->nreq++;
  if (rc)
    snprintf(s->why, sizeof s->why, "posting: %s", darray_file_errmsg(s->df));
  return rc ? -1 : 0;
}

int bench_da_complete(bench_t *b, mstate_t *s, int write) {
  (void)b, (void)write;
  int rc = darray_wait_all(s->df, s->nreq, s->req, NULL);
  s->nreq = 0;
  s->calls++;
  if (rc)
    snprintf(s->why, sizeof s->why, "darray_wait_all: %s",
             darray_file_errmsg(s->df));
  return rc ? -1 : 0;
}

int bench_da_sync(bench_t *b, mstate_t *s) {
  (void)b;
  int rc = darray_file_sync(s->df);
  if (rc)
    snprintf(s->why, sizeof s->why, "darray_file_sync: %s",
             darray_file_errmsg(s->df));
  return rc ? -1 : 0;
}

int bench_da_close(bench_t *b, mstate_t *s) {
  (void)b;
  s->explain = 0;
  return darray_file_close(&s->df) ? -1 : 0;
}

void bench_da_stats(bench_t *b, mstate_t *s, int write, counters_t *c) {
  darray_stats_t st;
  (void)b;
  darray_file_get_stats(s->df, &st);
  *c = (counters_t){write ? st.write_calls : st.read_calls,
                    st.bytes_exchanged, st.cycles, st.peak_temp_bytes, "",
                    st.calls, st.collectives, st.bytes_copied, st.messages};
  snprintf(c->strategy, sizeof c->strategy, "%s", st.strategy);
}
