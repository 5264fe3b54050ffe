/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray-advise - the storage advisor from the command line: which storage
 * order suits the programs that will read a dataset (doc/advisor.md).
 *
 *   darray-advise --shape 1024x1024 --esize 4 \
 *       --consumer 'rows,w=3,np=4,dist=block:*' \
 *       --consumer 'cols,w=1,np=4,dist=*:block'
 *
 * prints darray_advise_report(): every candidate order ranked, the
 * recommended one, and each consumer's verdict under it. --order evaluates
 * one given order as well; --quiet prints only the recommended order.
 *
 * Exit status: 0 on success, 1 when the advisor rejects the description
 * (its message names the bad argument), 2 on a usage error.
 */
#include "darrayio.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CONSUMERS 64

static const char *prog = "darray-advise";

static void usage(FILE *out) {
  fprintf(out,
      "usage: %s --shape N0xN1x... [--esize BYTES] --consumer SPEC "
      "[--consumer SPEC ...]\n"
      "       [--order C|F|P0,P1,...] [--quiet]\n"
      "\n"
      "Recommend the file storage order of an array from the programs that\n"
      "will read it, and tell which of them will need collective I/O.\n"
      "\n"
      "  --shape N0xN1x...  global size of each dimension (1 to %d of them)\n"
      "  --esize BYTES      bytes per element (default 8)\n"
      "  --consumer SPEC    one reading program (up to %d):\n"
      "                     NAME,w=WEIGHT,np=PROCS,dist=D0:D1:...[,grid=P0xP1x...]\n"
      "                     WEIGHT: how often it runs (default 1); PROCS: its\n"
      "                     process count; Di: * (not distributed), block,\n"
      "                     block(K), cyclic, cyclic(K) or mp (multipartition,\n"
      "                     on exactly three dimensions); grid: processes per\n"
      "                     dimension, 0 = chosen (default all 0)\n"
      "  --order ORDER      also evaluate this storage order: C, F, or the\n"
      "                     dimensions slowest first, e.g. 1,0\n"
      "  --quiet            print only the recommended order, slowest first\n"
      "  --help             this text\n"
      "  --version          the version of darrayio this tool runs with\n"
      "\n"
      "example:\n"
      "  %s --shape 1024x1024 --esize 4 \\\n"
      "      --consumer 'rows,w=3,np=4,dist=block:*' \\\n"
      "      --consumer 'cols,w=1,np=4,dist=*:block'\n",
      prog, DARRAY_MAX_DIMS, MAX_CONSUMERS, prog);
}

static int bad(const char *fmt, const char *what) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n(%s --help for usage)\n", prog);
  return 2;
}

/* A whole decimal integer, or -1 on failure. */
static int parse_i64(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0')
    return -1;
  *v = x;
  return 0;
}

/* "AxBxC" (or separated by sep) into up to DARRAY_MAX_DIMS integers;
 * returns the count, or -1 on a malformed list. */
static int parse_list(const char *s, char sep, int64_t out[]) {
  char buf[256];
  if (strlen(s) >= sizeof buf)
    return -1;
  strcpy(buf, s);
  int n = 0;
  char *save = NULL, seps[2] = {sep, '\0'};
  for (char *t = strtok_r(buf, seps, &save); t != NULL;
       t = strtok_r(NULL, seps, &save)) {
    if (n == DARRAY_MAX_DIMS || parse_i64(t, &out[n]) != 0)
      return -1;
    n++;
  }
  return n;
}

/* One distribution entry: *, none, block, block(K), cyclic, cyclic(K),
 * mp. */
static int parse_dist(const char *t, darray_dist_t *d, int64_t *k) {
  *k = DARRAY_DEFAULT_ARG;
  if (!strcmp(t, "*") || !strcasecmp(t, "none")) {
    *d = DARRAY_DIST_NONE;
    return 0;
  }
  if (!strcasecmp(t, "mp") || !strcasecmp(t, "multipartition")) {
    *d = DARRAY_DIST_MULTIPARTITION;
    return 0;
  }
  size_t n;
  if (!strncasecmp(t, "block", 5))
    *d = DARRAY_DIST_BLOCK, n = 5;
  else if (!strncasecmp(t, "cyclic", 6))
    *d = DARRAY_DIST_CYCLIC, n = 6;
  else
    return -1;
  if (t[n] == '\0')
    return 0;
  char inner[32];
  size_t len = strlen(t + n);
  if (t[n] != '(' || t[n + len - 1] != ')' || len - 2 >= sizeof inner ||
      len < 3)
    return -1;
  memcpy(inner, t + n + 1, len - 2);
  inner[len - 2] = '\0';
  return parse_i64(inner, k) == 0 && *k >= 1 ? 0 : -1;
}

/* NAME,w=W,np=P,dist=D:D:...,grid=PxQ; the name may be omitted. */
static int parse_consumer(const char *spec, int ndims, darray_consumer_t *c,
                          char *name, size_t namelen) {
  char buf[512];
  if (strlen(spec) >= sizeof buf)
    return bad("--consumer '%s': too long", spec);
  strcpy(buf, spec);
  memset(c, 0, sizeof *c);
  c->weight = 1;
  int have_np = 0, have_dist = 0, field = 0;
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t != NULL;
       t = strtok_r(NULL, ",", &save), field++) {
    char *eq = strchr(t, '=');
    if (eq == NULL) {
      if (field != 0)
        return bad("--consumer: '%s' is not KEY=VALUE", t);
      snprintf(name, namelen, "%s", t);
      c->name = name;
      continue;
    }
    *eq = '\0';
    const char *key = t, *val = eq + 1;
    if (!strcmp(key, "name")) {
      snprintf(name, namelen, "%s", val);
      c->name = name;
    } else if (!strcmp(key, "w") || !strcmp(key, "weight")) {
      char *end;
      errno = 0;
      c->weight = strtod(val, &end);
      if (errno != 0 || end == val || *end != '\0')
        return bad("--consumer: weight '%s' is not a number", val);
    } else if (!strcmp(key, "np") || !strcmp(key, "nprocs")) {
      int64_t np;
      if (parse_i64(val, &np) != 0 || np < 1 || np > DARRAY_ADVISE_MAX_NPROCS)
        return bad("--consumer: np '%s' is not a process count", val);
      c->nprocs = (int)np;
      have_np = 1;
    } else if (!strcmp(key, "dist")) {
      char dbuf[256];
      snprintf(dbuf, sizeof dbuf, "%s", val);
      int n = 0;
      char *s2 = NULL;
      for (char *d = strtok_r(dbuf, ":", &s2); d != NULL;
           d = strtok_r(NULL, ":", &s2), n++) {
        if (n == ndims || parse_dist(d, &c->dist[n], &c->dargs[n]) != 0)
          return bad("--consumer: dist '%s' needs one of *, block, "
                     "block(K), cyclic, cyclic(K), mp per dimension, "
                     "separated by ':'", val);
      }
      if (n != ndims)
        return bad("--consumer: dist '%s' does not have one entry per "
                   "dimension of --shape", val);
      have_dist = 1;
    } else if (!strcmp(key, "grid")) {
      int64_t g[DARRAY_MAX_DIMS];
      if (parse_list(val, 'x', g) != ndims)
        return bad("--consumer: grid '%s' needs one process count per "
                   "dimension, e.g. 4x1", val);
      for (int d = 0; d < ndims; d++) {
        if (g[d] < 0 || g[d] > DARRAY_ADVISE_MAX_NPROCS)
          return bad("--consumer: grid '%s' has a bad entry", val);
        c->psizes[d] = (int)g[d];
      }
    } else {
      return bad("--consumer: unknown key '%s' (name, w, np, dist, grid)",
                 key);
    }
  }
  if (!have_np)
    return bad("--consumer '%s': np=PROCS is required", spec);
  if (!have_dist)
    return bad("--consumer '%s': dist=D0:D1:... is required", spec);
  return 0;
}

static int parse_order(const char *s, int ndims, int perm[]) {
  if (!strcasecmp(s, "C") || !strcasecmp(s, "F") ||
      !strcasecmp(s, "Fortran")) {
    for (int i = 0; i < ndims; i++)
      perm[i] = toupper((unsigned char)s[0]) == 'C' ? i : ndims - 1 - i;
    return 0;
  }
  int64_t p[DARRAY_MAX_DIMS];
  if (parse_list(s, ',', p) != ndims)
    return -1;
  for (int i = 0; i < ndims; i++) {
    if (p[i] < 0 || p[i] >= ndims)
      return -1;
    perm[i] = (int)p[i];
  }
  return 0; /* the advisor checks that it is a permutation */
}

static const char *const verdict_name[] = {"conforming", "fragmented",
                                           "interleaved (collective I/O)"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  int64_t shape[DARRAY_MAX_DIMS], esize = 8;
  int ndims = 0, nc = 0, quiet = 0, have_order = 0;
  const char *specs[MAX_CONSUMERS], *order = NULL;
  for (int i = 1; i < argc && status == 0; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      MPI_Finalize();
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("%s (darrayio) %s\n", prog, darray_version_string());
      MPI_Finalize();
      return 0;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      quiet = 1;
    } else if (v == NULL) {
      status = bad("option '%s' needs a value or is unknown", a);
    } else if (!strcmp(a, "--shape")) {
      ndims = parse_list(v, 'x', shape);
      if (ndims < 1)
        status = bad("--shape '%s': expected N0xN1x... (1 to 8 sizes)", v);
      i++;
    } else if (!strcmp(a, "--esize")) {
      if (parse_i64(v, &esize) != 0)
        status = bad("--esize '%s' is not a number", v);
      i++;
    } else if (!strcmp(a, "--consumer")) {
      if (nc == MAX_CONSUMERS)
        status = bad("too many consumers (at most %s)", "64");
      else
        specs[nc++] = v;
      i++;
    } else if (!strcmp(a, "--order")) {
      order = v;
      have_order = 1;
      i++;
    } else {
      status = bad("unknown option '%s'", a);
    }
  }
  if (status == 0 && ndims == 0)
    status = bad("%s", "--shape is required");
  if (status == 0 && nc == 0)
    status = bad("%s", "at least one --consumer is required");
  darray_consumer_t c[MAX_CONSUMERS];
  char names[MAX_CONSUMERS][64];
  for (int i = 0; status == 0 && i < nc; i++)
    status = parse_consumer(specs[i], ndims, &c[i], names[i], sizeof names[i]);
  int perm[DARRAY_MAX_DIMS];
  if (status == 0 && have_order && parse_order(order, ndims, perm) != 0)
    status = bad("--order '%s': expected C, F or the dimensions slowest "
                 "first, separated by commas", order);
  if (status != 0) {
    MPI_Finalize();
    return status;
  }

  darray_advice_t adv;
  int rc = quiet ? darray_advise_storage(ndims, shape, esize, nc, c, &adv,
                                         NULL)
                 : darray_advise_report(ndims, shape, esize, nc, c, stdout);
  if (rc == DARRAY_SUCCESS && quiet) {
    for (int d = 0; d < ndims; d++)
      printf("%s%d", d ? " " : "", adv.perm[d]);
    printf("\n");
  }
  if (rc == DARRAY_SUCCESS && have_order && !quiet) {
    darray_consumer_verdict_t v[MAX_CONSUMERS];
    rc = darray_advise_order(ndims, shape, esize, nc, c, perm, &adv, v);
    if (rc == DARRAY_SUCCESS) {
      printf("  under the given order");
      for (int d = 0; d < ndims; d++)
        printf(" %d", perm[d]);
      printf(": conforming weight %g, collective weight %g of %g\n",
             adv.conforming_weight, adv.collective_weight, adv.total_weight);
      for (int i = 0; i < nc; i++)
        printf("    %-16s %s, %" PRId64 " runs per process at most\n",
               c[i].name ? c[i].name : "(unnamed)",
               verdict_name[v[i].verdict], v[i].max_runs);
    }
  }
  if (rc != DARRAY_SUCCESS) {
    fprintf(stderr, "%s: %s: %s\n", prog, darray_err_name(rc),
            darray_errmsg(NULL));
    status = 1;
  }
  MPI_Finalize();
  return status;
}
