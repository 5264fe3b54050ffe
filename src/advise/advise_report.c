/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * advise_report.c - darray_advise_report: the storage advisor's findings
 * in words, for people deciding how to store a dataset.
 */
#include "advise/advise.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* the report                                                               */

static const char *const verdict_name[] = {"conforming", "fragmented",
                                           "interleaved"};
static const char *const verdict_io[] = {"independent, one run per cell",
                                         "independent (sieve or direct runs)",
                                         "two-phase collective"};

/* "0 1 2" plus " (C)" or " (Fortran)". */
static const char *perm_text(const int *p, int nd, char *buf, size_t n) {
  size_t k = 0;
  bool c = true, f = true;
  for (int i = 0; i < nd; i++) {
    k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? " " : "", p[i]);
    c &= p[i] == i;
    f &= p[i] == nd - 1 - i;
  }
  snprintf(buf + k, n - k, "%s", c ? " (C)" : f ? " (Fortran)" : "");
  return buf;
}

static void dist_text(const darray_desc_t *a, char *buf, size_t n) {
  size_t k = 0;
  for (int d = 0; d < a->ndims && k < n; d++) {
    const char *sep = d ? " x " : "";
    switch (a->dist[d]) {
    case DARRAY_DIST_NONE:
      k += (size_t)snprintf(buf + k, n - k, "%s*", sep);
      break;
    case DARRAY_DIST_BLOCK:
    case DARRAY_DIST_CYCLIC:
      k += (size_t)snprintf(
          buf + k, n - k, "%s%s(%" PRId64 ")", sep,
          a->dist[d] == DARRAY_DIST_BLOCK ? "BLOCK" : "CYCLIC", a->block[d]);
      break;
    default:
      k += (size_t)snprintf(buf + k, n - k, "%sMP", sep);
      break;
    }
  }
}

static void grid_text(const int *psizes, int nd, char *buf, size_t n) {
  size_t k = 0;
  for (int d = 0; d < nd && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%d", d ? "x" : "", psizes[d]);
}

static void print_header(const advisor_t *adv, const int64_t gsizes[],
                         int64_t esize, FILE *out) {
  char h[32];
  int64_t bytes = esize;
  for (int d = 0; d < adv->ndims; d++)
    bytes *= gsizes[d];
  fprintf(out, "darrayio storage advisor: %d-D array ", adv->ndims);
  for (int d = 0; d < adv->ndims; d++)
    fprintf(out, "%s%" PRId64, d ? " x " : "", gsizes[d]);
  fprintf(out,
          " of %" PRId64 "-byte elements (%s), %d consumer%s, total "
          "weight %g\n",
          esize, darray__human_bytes(bytes, h, sizeof h), adv->n,
          adv->n == 1 ? "" : "s", adv->total);
  fprintf(out, "  %3s  %-16s %8s %6s  %-16s %s\n", "#", "consumer", "weight",
          "procs", "grid", "distribution");
  for (int i = 0; i < adv->n; i++) {
    char grid[96], dist[160], name[32];
    grid_text(adv->cs[i].a.psizes, adv->ndims, grid, sizeof grid);
    dist_text(&adv->cs[i].a, dist, sizeof dist);
    fprintf(out, "  %3d  %-16s %8g %6d  %-16s %s\n", i,
            darray__advise_label(&adv->c[i], i, name, sizeof name),
            adv->c[i].weight, adv->c[i].nprocs, grid, dist);
  }
}

static void print_ranking(const advisor_t *adv, const ranking_t *rk, int ncand,
                          bool all, FILE *out) {
  fprintf(out, "  candidate storage orders, slowest dimension first, best "
               "first\n  (verdicts, one letter per consumer in the order "
               "above: C conforming, F fragmented, I interleaved)\n");
  fprintf(out, "  %4s  %-28s %12s %12s %14s  %s\n", "rank", "order",
          "conforming", "collective", "weighted runs", "verdicts");
  for (int k = 0; k < rk->len; k++) {
    char p[64];
    const score_t *s = &rk->sc[k];
    fprintf(out, "  %4d  %-28s %12g %12g %14.6g  %.*s\n", k + 1,
            perm_text(s->perm, adv->ndims, p, sizeof p), s->conf, s->coll,
            s->runs, adv->n, rk->letters + (size_t)k * (size_t)adv->n);
  }
  if (ncand > rk->len)
    fprintf(out, "  ... %d more candidates not shown\n", ncand - rk->len);
  if (!all)
    fprintf(out,
            "  (%d dimensions: dimensions no consumer distributes stay "
            "fastest; C and Fortran order are candidates too)\n",
            adv->ndims);
}

static void print_verdicts(const advisor_t *adv, const score_t *best,
                           const darray_consumer_verdict_t *v, FILE *out) {
  char p[64];
  double tw = adv->total > 0 ? adv->total : 1;
  fprintf(out, "  recommended storage order: %s\n",
          perm_text(best->perm, adv->ndims, p, sizeof p));
  fprintf(out,
          "    conforming weight %g of %g (%.1f%%), collective weight "
          "%g (%.1f%%)\n",
          best->conf, adv->total, 100 * best->conf / tw, best->coll,
          100 * best->coll / tw);
  fprintf(out, "  %-16s %8s  %-12s %12s %14s  %-23s  %s\n", "consumer",
          "weight", "verdict", "runs/proc", "runs in all", "run length", "I/O");
  for (int i = 0; i < adv->n; i++) {
    char lo[32], hi[32], len[48], name[32];
    snprintf(len, sizeof len, "%s .. %s",
             darray__human_bytes(v[i].min_run, lo, sizeof lo),
             darray__human_bytes(v[i].max_run, hi, sizeof hi));
    fprintf(out, "  %-16s %8g  %-12s %12" PRId64 " %14" PRId64 "  %-23s  %s\n",
            darray__advise_label(&adv->c[i], i, name, sizeof name),
            adv->c[i].weight, verdict_name[v[i].verdict], v[i].max_runs,
            v[i].total_runs, len, verdict_io[v[i].verdict]);
  }
  int ncoll = 0;
  for (int i = 0; i < adv->n; i++)
    if (v[i].verdict == DARRAY_VERDICT_INTERLEAVED) {
      char name[32];
      fprintf(out, "%s %s (weight %g)",
              ncoll++ ? "," : "  need collective I/O:",
              darray__advise_label(&adv->c[i], i, name, sizeof name),
              adv->c[i].weight);
    }
  fputs(ncoll ? "\n" : "  no consumer needs collective I/O\n", out);
}

int darray_advise_report(int ndims, const int64_t gsizes[], int64_t esize,
                         int nconsumers, const darray_consumer_t consumers[],
                         FILE *out) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (out == NULL)
    return darray__err(msg, DARRAY_ENULL, "out is NULL");
  advisor_t adv;
  int rc = darray__advise_init(&adv, ndims, gsizes, esize, nconsumers,
                               consumers, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  ranking_t rk = {ADVISE_SHOWN, 0, nconsumers, NULL, NULL};
  rk.sc = malloc(sizeof *rk.sc * ADVISE_SHOWN);
  rk.letters = malloc((size_t)ADVISE_SHOWN * (size_t)nconsumers);
  darray_consumer_verdict_t *v = malloc(sizeof *v * (size_t)nconsumers);
  score_t best;
  int ncand = 0;
  bool all = false;
  if (rk.sc == NULL || rk.letters == NULL || v == NULL)
    rc = darray__err(msg, DARRAY_ENOMEM, "out of memory");
  else
    rc = darray__advise_search(&adv, &best, v, &ncand, &all, &rk, msg);
  if (rc == DARRAY_SUCCESS) {
    print_header(&adv, gsizes, esize, out);
    print_ranking(&adv, &rk, ncand, all, out);
    print_verdicts(&adv, &best, v, out);
  }
  free(rk.sc);
  free(rk.letters);
  free(v);
  darray__advise_free(&adv);
  return rc;
}
