/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * advise.h - the storage advisor's state, shared by its search (advise.c)
 * and its report (advise_report.c).
 */
#ifndef DARRAYIO_ADVISE_H
#define DARRAYIO_ADVISE_H

#include "layout/layout.h"

/* Candidates listed by the report. */
#define ADVISE_SHOWN 24

/* One consumer's array, on paper, and room for its ranks' numbers. */
typedef struct consumer {
  darray_desc_t a;
  layout_rank_t *rr; /* a.nprocs entries */
} consumer_t;

typedef struct advisor {
  int ndims;
  int n;
  const darray_consumer_t *c;
  consumer_t *cs;
  double total; /* weight of all consumers */
} advisor_t;

/* The numbers that rank candidates. */
typedef struct score {
  double conf, coll, runs;
  int idx; /* place in the candidate list: earlier wins ties */
  int perm[DARRAY_MAX_DIMS];
} score_t;

/* The best candidates so far, best first, with each consumer's verdict
 * letter (report only). */
typedef struct ranking {
  int cap, len, n;
  score_t *sc;
  char *letters; /* cap * n */
} ranking_t;

/* The consumer's name, or "#i" when it has none (buf: n bytes). */
DARRAY_HIDDEN const char *darray__advise_label(const darray_consumer_t *c,
                                               int i, char *buf, size_t n);
/* Check the arguments every advisor call shares and describe the
 * consumers' arrays; messages into msg. */
DARRAY_HIDDEN int darray__advise_init(advisor_t *adv, int ndims,
                                      const int64_t gsizes[], int64_t esize,
                                      int nconsumers,
                                      const darray_consumer_t consumers[],
                                      char *msg);
DARRAY_HIDDEN void darray__advise_free(advisor_t *adv);
/* Evaluate every candidate order: the best into *best and best_v (one
 * verdict per consumer), the number of candidates into *ncand (*all: every
 * permutation was one) and, when rk is not NULL, the leaders into rk. */
DARRAY_HIDDEN int darray__advise_search(advisor_t *adv, score_t *best,
                                        darray_consumer_verdict_t *best_v,
                                        int *ncand, bool *all, ranking_t *rk,
                                        char *msg);

#endif /* DARRAYIO_ADVISE_H */
