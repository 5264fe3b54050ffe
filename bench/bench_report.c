/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_report.c - what darrayio-bench prints: RESULT lines, the table,
 * and a gnuplot bar chart. Only rank 0 prints.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {"ok", "not-run", "unavailable",
                                           "failed", "VERIFY-FAILED"};

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void bench_summarize(result_t *r) {
  int n = r->nruns;
  if (n == 0)
    return;
  double *s = malloc((size_t)n * sizeof *s);
  memcpy(s, r->t, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  r->min = s[0];
  r->max = s[n - 1];
  r->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  memcpy(s, r->tc, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  r->compute = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
}

static int64_t total_bytes(const bench_t *b) {
  return b->p.ndumps * b->p.dump_elems * b->p.esize;
}

static double mibs(const bench_t *b, double t) {
  return (double)total_bytes(b) / (1 << 20) / (t > 0 ? t : 1e-9);
}

static int measured(const result_t *r) {
  return r->status == ST_OK && r->nruns > 0;
}

/* A nonblocking method's overlap of I/O with computation, from medians
 * of the same run: (T_compute + T_io - T_total) / min(T_compute, T_io),
 * T_io being its blocking twin's time less that twin's compute phases;
 * -1 when it cannot be computed. */
static double overlap(const result_t *r, const result_t *twin) {
  if (twin == NULL || !measured(twin) || !measured(r))
    return -1;
  double tio = twin->median - twin->compute, tc = r->compute;
  double m = tio < tc ? tio : tc;
  return m > 0 ? (tc + tio - r->median) / m : -1;
}

static void result_line(const bench_t *b, const result_t *r,
                        const result_t *twin);

static const result_t *find(const result_t *r, int n, const char *m, int w);

void bench_result_lines(const bench_t *b, const result_t *r, int n) {
  for (int i = 0; i < n; i++) {
    if ((r[i].write && !b->o.do_write) || (!r[i].write && !b->o.do_read))
      continue;
    const method_t *m = bench_method(r[i].method);
    const result_t *twin = m != NULL && m->twin != NULL && b->o.compute > 0
                               ? find(r, n, m->twin, r[i].write)
                               : NULL;
    result_line(b, &r[i], twin);
  }
}

void bench_result_line(const bench_t *b, const result_t *r) {
  result_line(b, r, NULL);
}

static void result_line(const bench_t *b, const result_t *r,
                        const result_t *twin) {
  if (b->rank != 0)
    return;
  printf("RESULT pattern=%s op=%s method=%s np=%d bytes=%lld", b->p.name,
         r->write ? "write" : "read", r->method, b->nprocs,
         (long long)total_bytes(b));
  if (measured(r))
    printf(" seconds=%.6f mib_s=%.1f runs=%d min=%.6f max=%.6f calls=%lld "
           "exchanged=%lld cycles=%lld peak_temp=%lld",
           r->median, mibs(b, r->median), r->nruns, r->min, r->max,
           (long long)r->c.calls, (long long)r->c.exchanged,
           (long long)r->c.cycles,
           (long long)r->c.peak_temp);
  if (measured(r) && r->c.strategy[0] != '\0')
    printf(" strategy=%s", r->c.strategy);
  if (measured(r) && r->c.da_calls > 0) /* darrayio: per call, per byte */
    printf(" colls=%.3g copied=%.3g msgs=%lld",
           (double)r->c.colls / (double)r->c.da_calls,
           (double)r->c.copied / (double)total_bytes(b),
           (long long)r->c.msgs);
  if (measured(r) && b->o.compute > 0)
    printf(" compute=%.6f", r->compute);
  if (twin != NULL) {
    double ov = overlap(r, twin);
    if (ov > -1)
      printf(" overlap=%.2f twin=%s", ov, twin->method);
    else
      printf(" overlap=none twin=%s", twin->method);
  }
  printf(" cache=%s status=%s", b->cold ? "cold" : "warm",
         status_names[r->status]);
  if (r->status != ST_OK)
    printf(" reason=\"%s\"", r->why);
  printf("\n");
  if (r->status == ST_VERIFY)
    printf("VERIFY FAILED: method=%s op=%s\n", r->method,
           r->write ? "write" : "read");
  fflush(stdout);
}

static const result_t *find(const result_t *r, int n, const char *m, int w) {
  for (int i = 0; i < n; i++)
    if (r[i].write == w && !strcmp(r[i].method, m) && measured(&r[i]))
      return &r[i];
  return NULL;
}

static void ratio(const result_t *base, const result_t *r) {
  if (base)
    printf(" %7.2f", base->median / (r->median > 0 ? r->median : 1e-9));
  else
    printf(" %7s", "-");
}

static void table_op(const bench_t *b, const result_t *r, int n, int w) {
  const result_t *l2 = find(r, n, "mpiio-l2", w);
  const result_t *l3 = find(r, n, "mpiio-l3", w);
  const result_t *ref = find(r, n, "reference", w);
  printf("\n%s: %s (%s), np=%d, %lld bytes, %s cache, median of %d\n",
         w ? "write" : "read", b->p.name, b->p.label, b->nprocs,
         (long long)total_bytes(b), b->cold ? "cold" : "warm", b->o.runs);
  printf("%-18s %9s %9s %9s %9s %7s %7s %7s %10s %10s\n", "method",
         "median s", "min s", "max s", "MiB/s", "x l2", "x l3", "x ref",
         "calls", "exch MiB");
  for (int i = 0; i < n; i++) {
    if (r[i].write != w)
      continue;
    printf("%-18s", r[i].method);
    if (!measured(&r[i])) {
      printf(" %s: %s\n", r[i].status == ST_VERIFY ? "VERIFY FAILED"
                          : status_names[r[i].status], r[i].why);
      continue;
    }
    printf(" %9.5f %9.5f %9.5f %9.1f", r[i].median, r[i].min, r[i].max,
           mibs(b, r[i].median));
    ratio(l2, &r[i]);
    ratio(l3, &r[i]);
    ratio(ref, &r[i]);
    printf(" %10lld %10.1f\n", (long long)r[i].c.calls,
           (double)r[i].c.exchanged / (1 << 20));
  }
}

void bench_table(const bench_t *b, const result_t *r, int n) {
  if (b->rank != 0)
    return;
  if (b->o.do_write)
    table_op(b, r, n, 1);
  if (b->o.do_read)
    table_op(b, r, n, 0);
  printf("\nx l2, x l3, x ref: speed relative to mpiio-l2, mpiio-l3 and the "
         "reference\n(> 1 is faster); times are the slowest rank's I/O calls, "
         "summed over dumps\nand steps; calls: file calls over all ranks "
         "(MPI-IO levels 2/3: MPI calls)\nin one phase.\n");
  fflush(stdout);
}

/* ---- gnuplot ------------------------------------------------------------- */

/* Results come in pairs per method: write, then read. */
static void plot_data(const bench_t *b, const result_t *r, int n, FILE *fp) {
  for (int i = 0; i + 1 < n; i += 2) {
    fprintf(fp, "%s", r[i].method);
    for (int w = 0; w < 2; w++)
      if (measured(&r[i + w]))
        fprintf(fp, " %.1f", mibs(b, r[i + w].median));
      else
        fprintf(fp, " ?");
    fprintf(fp, "\n");
  }
}

static void plot_script(const bench_t *b, const char *dat, FILE *fp) {
  fprintf(fp,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 1200,650 noenhanced\n"
          "} else {\n"
          "  set terminal png size 1200,650 noenhanced\n"
          "}\n"
          "set output '%s'\n"
          "set title 'darrayio-bench: %s (%s), np=%d, %s cache, median of %d'\n"
          "set style data histogram\n"
          "set style histogram clustered gap 1\n"
          "set style fill solid 0.85 border -1\n"
          "set datafile missing '?'\n"
          "set logscale y\n"
          "set ylabel 'MiB/s (log scale)'\n"
          "set grid ytics\n"
          "set xtics rotate by -30\n"
          "set key top right\n"
          "plot ",
          b->o.plot, b->p.name, b->p.label, b->nprocs,
          b->cold ? "cold" : "warm", b->o.runs);
  if (b->o.do_write)
    fprintf(fp, "'%s' using 2:xtic(1) title 'write'%s", dat,
            b->o.do_read ? ", " : "\n");
  if (b->o.do_read)
    fprintf(fp, "'%s' using 3:xtic(1) title 'read'\n", dat);
}

void bench_plot(const bench_t *b, const result_t *r, int n) {
  if (b->rank != 0)
    return;
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    printf("darrayio-bench: gnuplot not found, no plot "
           "(apt-get install gnuplot-nox)\n");
    return;
  }
  char dat[4200], gp[4200], cmd[4300];
  snprintf(dat, sizeof dat, "%s.dat", b->o.plot);
  snprintf(gp, sizeof gp, "%s.gp", b->o.plot);
  FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
  if (fd)
    plot_data(b, r, n, fd);
  if (fg)
    plot_script(b, dat, fg);
  if (fd)
    fclose(fd);
  if (fg)
    fclose(fg);
  snprintf(cmd, sizeof cmd, "gnuplot '%s'", gp);
  if (fd == NULL || fg == NULL || system(cmd) != 0)
    printf("darrayio-bench: gnuplot failed; data in %s, script in %s\n", dat,
           gp);
  else
    printf("darrayio-bench: plot in %s (data %s, script %s)\n", b->o.plot,
           dat, gp);
}
