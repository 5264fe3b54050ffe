/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darrayio-bench - every darrayio strategy and the MPI-IO levels on the same
 * access pattern, in one run, every byte checked.
 *
 * Run (see bench/README.md):
 *   mpiexec -n 2 bench/darrayio-bench --pattern dist3d -n 256 -g 1x1x2 \
 *       --ops write,read --runs 3 [--cold] [--dir D] [--methods a,b,...] \
 *       [--hints "k=v;..."] [--plot out.png]
 *   mpiexec -n 4 bench/darrayio-bench --pattern btio --class A
 *   mpiexec -n 2 bench/darrayio-bench --pattern slabs -n 256 -g 1x1x2 \
 *       --slab 16
 *   mpiexec -n 2 bench/darrayio-bench --pattern multi -n 64 --arrays 8 \
 *       -g 1x1x2
 *
 * For each method and run: a timed write phase (every dump), then a check of
 * the file on disk against the closed form, then a timed read phase into a
 * poisoned buffer, checked element by element. A dump is moved in one call
 * per method and rank, or for the slab sweep in one call per slab (a
 * step); the K arrays of multi's one dump, one call per array. Before each
 * timed write the method's file is deleted and the page cache pre-touched
 * (bench_sys.c); with --cold the page cache is dropped before each timed
 * phase. A phase's time is the sum over dumps and steps of the slowest
 * rank's time in the I/O call alone, after a barrier. A method that reads or
 * writes wrong bytes is reported as VERIFY FAILED and the program exits with
 * status 1.
 *
 * Output: one line per measurement,
 *   RESULT pattern=dist3d op=write method=mpiio-l3 np=2 bytes=67108864
 *          seconds=0.0401 mib_s=1596.3 runs=3 min=0.0398 max=0.0420 ...
 * then a table with each method's speed relative to mpiio-l2, mpiio-l3 and
 * the physical reference (rank 0 alone, contiguous, large calls).
 */
#include "bench.h"
#include "bench_gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one phase: every dump written or read once ------------------------- */

/* Stretch methods: this rank's share [lo, hi) of the step's elements, all
 * of them for rank 0 of the reference, a 1-D BLOCK split for conforming. */
static void share(bench_t *b, mstate_t *s) {
  int64_t n = b->p.step_elems, sh = (n + b->nprocs - 1) / b->nprocs;
  if (s->m->stretch == 1) {
    s->lo = 0;
    s->hi = b->rank == 0 ? n : 0;
  } else if (s->m->stretch == 2) {
    s->lo = b->rank * sh < n ? b->rank * sh : n;
    s->hi = s->lo + sh < n ? s->lo + sh : n;
  }
}

static void prepare_data(bench_t *b, mstate_t *s, int dump, int salt) {
  if (s->m->stretch)
    bench_fill_share(&b->p, s->buf, s->lo, s->hi, dump, salt);
  else
    bench_fill(&b->p, s->buf, dump, salt);
}

static int64_t check_data(bench_t *b, mstate_t *s, int dump, int salt) {
  if (s->m->stretch)
    return bench_check_share(&b->p, s->buf, s->lo, s->hi, dump, salt,
                             b->rank);
  return bench_check(&b->p, s->buf, dump, salt, b->rank);
}

static void gather_counters(bench_t *b, mstate_t *s, int write,
                            counters_t *c) {
  int64_t sum[4], max[4];
  *c = (counters_t){s->calls, 0, 0, 0, "", 0, 0, 0, 0};
  if (s->m->stats)
    s->m->stats(b, s, write, c);
  sum[0] = c->calls, sum[1] = c->exchanged, sum[2] = c->copied;
  sum[3] = c->msgs;
  max[0] = c->cycles, max[1] = c->peak_temp, max[2] = c->colls;
  max[3] = c->da_calls; /* collective calls: the same count everywhere */
  MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, max, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  c->calls = sum[0], c->exchanged = sum[1], c->copied = sum[2];
  c->msgs = sum[3];
  c->cycles = max[0], c->peak_temp = max[1]; /* the strategy is agreed */
  c->colls = max[2], c->da_calls = max[3];
}

/* A failure on any rank is explained on stderr by that rank. */
static void complain(const bench_t *b, const mstate_t *s) {
  fprintf(stderr, "darrayio-bench: rank %d: %s: %s\n", b->rank, s->m->name,
          s->why[0] ? s->why : "failed");
}

/* The timed work of step k of dump d: the I/O call, and under --fsync
 * (writes, the last step of a dump) the method's sync; under --compute
 * the compute phase too, before a blocking call (compute, then dump) or
 * between the post and the completion of a nonblocking one. */
static int timed(bench_t *b, mstate_t *s, int write, int d, int k) {
  const method_t *m = s->m;
  bool sync = b->o.fsync && write && k == b->p.nsteps - 1;
  bool comp = b->o.compute > 0 && k == b->p.nsteps - 1;
  if (m->post != NULL) {
    int rc = m->post(b, s, write, d, k);
    if (comp)
      bench_compute(b);
    int rc2 = m->complete(b, s, write);
    return rc != 0 ? rc : rc2;
  }
  if (comp)
    bench_compute(b);
  int rc = m->xfer(b, s, write, d, k);
  if (rc == 0 && sync && m->sync != NULL)
    rc = m->sync(b, s);
  return rc;
}

/* One timed step of dump d; *bad counts wrong elements read; *tc gets
 * the compute phase alone (--compute: timed apart, the same loop). */
static int step(bench_t *b, mstate_t *s, int write, int salt, int d, int k,
                double *t, double *tc, int64_t *bad) {
  bench_pattern_step(&b->p, k);
  share(b, s);
  prepare_data(b, s, d, write ? salt : salt + 1000);
  if (b->o.compute > 0 && k == b->p.nsteps - 1) {
    bench_barrier();
    double c = MPI_Wtime();
    bench_compute(b);
    c = MPI_Wtime() - c;
    bench_max_doubles(&c, 1);
    *tc += c;
  }
  bench_barrier();
  double t0 = MPI_Wtime();
  int rc = timed(b, s, write, d, k);
  double v[2] = {MPI_Wtime() - t0, rc == BENCH_UNAVAILABLE ? 1 : rc != 0 ? 2
                                                                      : 0};
  if (rc != 0 && rc != BENCH_UNAVAILABLE)
    complain(b, s);
  bench_max_doubles(v, 2);
  *t += v[0];
  if (v[1] != 0) /* a refusal is the same everywhere: unavailable */
    return v[1] == 1 ? ST_UNAVAILABLE : ST_FAILED;
  if (!write)
    *bad += check_data(b, s, d, salt);
  return ST_OK;
}

/* The timed loop over dumps and their steps. */
static int dumps(bench_t *b, mstate_t *s, int write, int salt, double *t,
                 double *tc, int64_t *bad) {
  for (int d = 0; d < b->p.ndumps; d++)
    for (int k = 0; k < b->p.nsteps; k++) {
      int st = step(b, s, write, salt, d, k, t, tc, bad);
      if (st != ST_OK)
        return st;
    }
  return ST_OK;
}

static int phase(bench_t *b, mstate_t *s, int write, int salt, double *t,
                 double *tc, counters_t *c) {
  int64_t bad = 0;
  int rc = s->m->open(b, s, write), any;
  int st = rc == 0 ? ST_OK : rc == BENCH_UNAVAILABLE ? ST_UNAVAILABLE
                                                     : ST_FAILED;
  if (st == ST_FAILED)
    complain(b, s);
  MPI_Allreduce(&st, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any != ST_OK) {
    if (rc == 0)
      s->m->close(b, s);
    return any;
  }
  s->calls = 0;
  *t = *tc = 0;
  st = dumps(b, s, write, salt, t, tc, &bad);
  gather_counters(b, s, write, c);
  if (s->m->close(b, s) != 0 && st == ST_OK)
    st = ST_FAILED;
  MPI_Allreduce(MPI_IN_PLACE, &st, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return st != ST_OK ? st : bad ? ST_VERIFY : ST_OK;
}

/* ---- one method: --runs write/read pairs --------------------------------- */

static int64_t phase_bytes(const bench_t *b) {
  return b->p.ndumps * b->p.dump_elems * b->p.esize;
}

/* A dataset's file check (untimed): darray_verify() recomputes every
 * member's CRC-32 and compares it with the archive's; *base gets the
 * data offset of member "u". */
static int check_dataset(mstate_t *s, int64_t *base) {
  darray_file_t f;
  darray_member_info_t m;
  int rc = darray_dataset_open(MPI_COMM_WORLD, s->path, DARRAY_MODE_RDONLY,
                               MPI_INFO_NULL, &f);
  if (rc == 0) {
    rc = darray_verify(f);
    if (rc == 0)
      rc = darray_inquire(f, 0, &m);
    if (rc)
      snprintf(s->why, sizeof s->why, "check: %s", darray_file_errmsg(f));
    darray_file_close(&f);
  } else {
    snprintf(s->why, sizeof s->why, "check: %s", darray_errmsg(NULL));
  }
  *base = rc == 0 ? m.offset : 0;
  return rc;
}

static int write_phase(bench_t *b, mstate_t *s, int salt, double *t,
                       double *tc, counters_t *c) {
  int64_t base = 0;
  bench_remove(b, s->path);
  if (b->cold)
    bench_drop_caches(b);
  if (bench_pretouch(b, phase_bytes(b)) != 0)
    return ST_FAILED;
  int st = phase(b, s, 1, salt, t, tc, c);
  if (st == ST_OK && s->m->dataset && check_dataset(s, &base) != 0) {
    complain(b, s);
    st = ST_VERIFY;
  }
  if (st == ST_OK && bench_check_file(b, s->path, base, salt) != 0)
    st = ST_VERIFY;
  return st;
}

static int method_buffer(bench_t *b, mstate_t *s);

/* --same-file: the file a read phase reads is rewritten, untimed, the way
 * the conforming method writes it (each rank one stretch per step), so
 * that the layout the page cache got from the method's own writes does
 * not count in the comparison of reads. */
static int rewrite_canonically(bench_t *b, mstate_t *s, int salt) {
  mstate_t w = {.m = bench_method("conforming"), .fd = -1};
  double t, tc;
  counters_t c;
  snprintf(w.path, sizeof w.path, "%s", s->path);
  if (w.m == NULL || method_buffer(b, &w) != 0)
    return ST_FAILED;
  int st = write_phase(b, &w, salt, &t, &tc, &c);
  if (w.buf != b->pbuf)
    free(w.buf);
  if (st != ST_OK)
    snprintf(s->why, sizeof s->why, "--same-file rewrite: %.200s", w.why);
  return st;
}

static int read_phase(bench_t *b, mstate_t *s, int salt, double *t,
                      double *tc, counters_t *c) {
  if (b->o.same_file && !s->m->dataset) { /* a dataset keeps its own */
    int st = rewrite_canonically(b, s, salt);
    if (st != ST_OK)
      return st;
  }
  if (b->cold)
    bench_drop_caches(b);
  return phase(b, s, 0, salt, t, tc, c);
}

/* Worst status wins; the first reason given is kept. */
static void set_status(result_t *r, int st, const char *why) {
  if (st > r->status)
    r->status = st;
  if (st == ST_VERIFY && r->why[0] == '\0')
    why = "wrong bytes; the first mismatch is on stderr";
  if (st != ST_OK && r->why[0] == '\0')
    snprintf(r->why, sizeof r->why, "%s", why[0] ? why : "see stderr");
}

/* Run number `run` of a method: a timed write, then a timed read (a read
 * alone needs a file: the method writes it, untimed, before its first run,
 * or before every run with --rotate, since the files are then removed after
 * each run). A method stops at its first failure. */
static void run_once(bench_t *b, mstate_t *s, result_t r[2], int run) {
  double t, tc;
  if (r[0].status != ST_OK || r[1].status != ST_OK)
    return;
  int salt = b->o.do_write || b->o.rotate ? run + 1 : 1;
  if (!b->o.do_write && (run == 0 || b->o.rotate)) {
    counters_t c;
    set_status(&r[1], write_phase(b, s, salt, &t, &tc, &c), s->why);
  }
  if (b->o.do_write && r[1].status == ST_OK) {
    int st = write_phase(b, s, salt, &r[0].t[run], &r[0].tc[run], &r[0].c);
    set_status(&r[0], st, s->why);
    if (st == ST_UNAVAILABLE)
      set_status(&r[1], st, s->why);
    if (st != ST_OK)
      return;
    r[0].nruns++;
  }
  if (b->o.do_read && r[1].status == ST_OK) {
    set_status(&r[1],
               read_phase(b, s, salt, &r[1].t[run], &r[1].tc[run], &r[1].c),
               s->why);
    if (r[1].status == ST_OK)
      r[1].nruns++;
  }
  if (b->o.rotate)
    bench_remove(b, s->path);
}

/* Buffers: the pattern's, or room for this rank's share of the largest
 * step. */
static int method_buffer(bench_t *b, mstate_t *s) {
  int64_t n = b->p.step_max, sh = (n + b->nprocs - 1) / b->nprocs;
  s->buf = b->pbuf;
  if (s->m->stretch == 0)
    return 0;
  n = s->m->stretch == 2 ? sh : b->rank == 0 ? n : 0;
  s->buf = malloc((size_t)(n * b->p.esize + 1));
  return s->buf ? 0 : -1;
}

static void start(bench_t *b, const method_t *m, mstate_t *s, result_t r[2]) {
  *s = (mstate_t){.m = m, .fd = -1};
  snprintf(s->path, sizeof s->path, "%s/darrayio-bench.%s.%s.%s", b->o.dir,
           b->p.name, m->name, m->dataset ? "npz" : "dat");
  for (int w = 0; w < 2; w++) {
    r[w] = (result_t){.method = m->name, .write = 1 - w};
    r[w].t = calloc((size_t)b->o.runs, sizeof(double));
    r[w].tc = calloc((size_t)b->o.runs, sizeof(double));
  }
  /* nonblocking methods: a request per array (or slab) of a step, and a
   * sync */
  int nreq = b->p.slab ? bench_slab_pieces(&b->p) : b->p.narrays;
  s->req = calloc((size_t)(nreq > b->p.narrays ? nreq : b->p.narrays) + 1,
                  sizeof *s->req);
  s->mreq = calloc((size_t)b->p.narrays, sizeof *s->mreq);
  if (method_buffer(b, s) != 0 || r[0].t == NULL || r[1].t == NULL ||
      r[0].tc == NULL || r[1].tc == NULL || s->req == NULL ||
      s->mreq == NULL)
    set_status(&r[0], ST_FAILED, "out of memory");
}

static void finish(bench_t *b, mstate_t *s, result_t r[2]) {
  bench_remove(b, s->path);
  if (s->buf != b->pbuf)
    free(s->buf);
  free(s->req);
  free(s->mreq);
  for (int w = 0; w < 2; w++) {
    if (r[w].nruns == 0 && r[w].status == ST_OK)
      set_status(&r[w], ST_NOTRUN, "an earlier phase of this method failed");
    bench_summarize(&r[w]); /* printed once all have run (overlaps) */
  }
}

/* All runs of each method in turn, or with --rotate run k of every method
 * before run k + 1 of any, so that slow drifts of a shared machine touch
 * every method alike. Results are printed in method order either way. */
static void measure_all(bench_t *b, const method_t **list, int n,
                        result_t *r) {
  static mstate_t s[BENCH_MAX_METHODS]; /* 4 KiB paths: not on the stack */
  if (!b->o.rotate) {
    for (int i = 0; i < n; i++) {
      start(b, list[i], &s[i], &r[2 * i]);
      for (int run = 0; run < b->o.runs; run++)
        run_once(b, &s[i], &r[2 * i], run);
      finish(b, &s[i], &r[2 * i]);
    }
    return;
  }
  for (int i = 0; i < n; i++)
    start(b, list[i], &s[i], &r[2 * i]);
  for (int run = 0; run < b->o.runs; run++)
    for (int i = 0; i < n; i++)
      run_once(b, &s[i], &r[2 * i], run);
  for (int i = 0; i < n; i++)
    finish(b, &s[i], &r[2 * i]);
}

/* ---- main ---------------------------------------------------------------- */

static int select_methods(const bench_t *b, const method_t **list) {
  int n = 0;
  if (b->o.methods == NULL) {
    for (int i = 0; i < bench_nmethods; i++)
      list[n++] = &bench_methods[i];
    return n;
  }
  char *copy = strdup(b->o.methods), *cur = copy;
  for (char *t = bench_next_method(&cur); t && n < BENCH_MAX_METHODS;
       t = bench_next_method(&cur))
    list[n++] = bench_method(t);
  free(copy);
  return n;
}

static void header(const bench_t *b) {
  if (b->rank != 0)
    return;
  printf("darrayio-bench: pattern=%s (%s) np=%d bytes=%lld runs=%d "
         "cache=%s thread=%s", b->p.name, b->p.label, b->nprocs,
         (long long)(b->p.ndumps * b->p.dump_elems * b->p.esize), b->o.runs,
         b->cold ? "cold" : "warm",
         b->thread_level == MPI_THREAD_MULTIPLE     ? "multiple"
         : b->thread_level == MPI_THREAD_SERIALIZED ? "serialized"
         : b->thread_level == MPI_THREAD_FUNNELED   ? "funneled"
                                                    : "single");
  if (b->o.compute > 0)
    printf(" compute=%gs (%lld element updates over %lld doubles)",
           b->o.compute, (long long)b->sweeps, (long long)b->work_n);
  if (b->o.fsync)
    printf(" fsync=yes");
  if (b->o.data != BENCH_DATA_INDEX)
    printf(" data=%s", bench_data_name(b->o.data));
  printf("\n");
  fflush(stdout);
}

static int bench(bench_t *b) {
  const method_t *list[BENCH_MAX_METHODS];
  result_t r[2 * BENCH_MAX_METHODS];
  int n = select_methods(b, list), bad = 0;
  /* page-aligned, as programs that write around the page cache align
   * their arrays (darray_direct_write) */
  if (posix_memalign(&b->pbuf, 4096,
                     (size_t)(b->p.buf_elems * b->p.esize + 1)) != 0)
    b->pbuf = NULL;
  if (b->pbuf == NULL)
    return 2;
  header(b);
  measure_all(b, list, n, r);
  bench_result_lines(b, r, 2 * n);
  bench_table(b, r, 2 * n);
  if (b->o.plot)
    bench_plot(b, r, 2 * n);
  for (int i = 0; i < 2 * n; i++) {
    bad |= r[i].status >= ST_FAILED;
    free(r[i].t);
    free(r[i].tc);
  }
  free(b->pbuf);
  return bad;
}

/* The thread level must be asked for before MPI runs: --thread is read
 * here, and again (checked) with the other options. */
static int thread_wanted(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--thread")) {
      if (!strcmp(argv[i + 1], "single"))
        return MPI_THREAD_SINGLE;
      if (!strcmp(argv[i + 1], "funneled"))
        return MPI_THREAD_FUNNELED;
      if (!strcmp(argv[i + 1], "serialized"))
        return MPI_THREAD_SERIALIZED;
    }
  return MPI_THREAD_MULTIPLE;
}

int main(int argc, char **argv) {
  bench_t b = {0};
  MPI_Init_thread(&argc, &argv, thread_wanted(argc, argv), &b.thread_level);
  b.p.ftype = b.p.mtype = MPI_DATATYPE_NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.nprocs);
  int rc = bench_parse(argc, argv, &b.o, b.rank);
  if (rc == 0)
    bench_setup_cold(&b);
  if (rc == 0 && bench_pattern_build(&b) != 0)
    rc = -1;
  if (rc == 0 && b.o.compute > 0 && bench_compute_setup(&b) != 0)
    rc = -1;
  if (rc == 0)
    rc = bench(&b);
  bench_pattern_free(&b.p);
  free(b.work);
  MPI_Finalize();
  return rc < 0 ? 2 : rc == 1 && b.o.help ? 0 : rc;
}
