/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_servers.c - the servers of a striped file under two-phase's domains:
 * how many aggregators meet on one server in a cycle (the contention
 * LACIO removes, sampled the same way on every process), whether layout
 * domains are wanted (darray_cb_domains; automatic weighs both kinds by
 * the cost model, darray__tp_cost), and the domains in words for
 * darray_explain.
 */
#include "twophase.h"

#include <stdio.h>
#include <string.h>

/* Count the servers [lo, hi) touches into cnt[0, S), once per aggregator
 * and cycle (cnt[S + s] = tag: server s is counted for it already);
 * returns how many it newly counts. A chunk that spills less than an
 * element into a stripe (blocks end on element boundaries, stripes need
 * not) is not counted there. */
static int touch(const tp_domains_t *d, int64_t lo, int64_t hi, int *cnt,
                 int tag) {
  int64_t k0 = lo / d->su, k1 = (hi - 1) / d->su;
  if (k1 > k0 && d->su - lo % d->su < d->es)
    k0++;
  if (k1 > k0 && hi - k1 * d->su < d->es)
    k1--;
  int64_t n = k1 - k0 + 1 < d->S ? k1 - k0 + 1 : d->S;
  int added = 0;
  for (int64_t k = k0; k < k0 + n; k++) {
    int *mark = &cnt[d->S + k % d->S];
    if (*mark != tag) {
      *mark = tag;
      cnt[k % d->S]++;
      added++;
    }
  }
  return added;
}

int darray__tp_contention(const tp_domains_t *d, int64_t C, int64_t cycles,
                          int64_t parts, int *cnt, int *servers) {
  int most = 0;
  *servers = 0;
  if (d->su <= 0 || d->S <= 0)
    return 0;
  for (int64_t c = 0; c < cycles; c++) {
    for (int64_t s = 0; s < 2 * d->S; s++)
      cnt[s] = 0;
    for (int i = 0; i < d->A; i++) {
      int64_t plo, phi;
      int n = 0;
      for (int64_t j = 0;
           j < parts && darray__tp_part(d, C, i, c, j, &plo, &phi); j++)
        n += plo < phi ? touch(d, plo, phi, cnt, i + 1) : 0;
      *servers = n > *servers ? n : *servers;
    }
    for (int64_t s = 0; s < d->S; s++)
      most = cnt[s] > most ? cnt[s] : most;
  }
  return most;
}

/* Cycles sampled by the automatic choice: enough to see where the
 * aggregators meet, few enough to plan every call; the parts of a layout
 * chunk it looks at (they lie on the same servers of their aggregator,
 * round after round); and the most servers it counts (on its stack: the
 * choice must not depend on an allocation that could fail on one process
 * only). More servers: layout domains. */
#define SAMPLE_CYCLES 4
#define SAMPLE_PARTS 4
#define SAMPLE_SERVERS 4096

int darray__tp_meet(const tp_domains_t *d, int64_t C) {
  if (d->su <= 0 || d->S <= 0 || d->hi <= d->lo)
    return 1;
  if (d->S > SAMPLE_SERVERS) /* not counted: what layout domains give */
    return (int)((d->A + d->S - 1) / d->S);
  int cnt[2 * SAMPLE_SERVERS], servers;
  int meet = darray__tp_contention(d, C, SAMPLE_CYCLES, SAMPLE_PARTS, cnt,
                                   &servers);
  return meet > 0 ? meet : 1;
}

bool darray__tp_layout_wanted(const tp_domains_t *d, const darray_hints_t *h) {
  if (d->su <= 0 || d->S <= 0 || d->hi <= d->lo ||
      h->cb_domains == DARRAY_DOMAINS_LOGICAL)
    return false;
  if (h->cb_domains == DARRAY_DOMAINS_LAYOUT)
    return true;
  if (d->S < 2 || d->A < 2)
    return false;
  /* automatic: the logical domains' meeting, sampled with chunks of the
   * whole collective buffer, against the layout's (one aggregator per
   * server, or the share of a server's aggregators) */
  if (d->S > SAMPLE_SERVERS)
    return true;
  tp_domains_t logical = *d;
  logical.layout = false;
  return darray__tp_meet(&logical, h->cb_buffer_size) >
         (d->A + d->S - 1) / d->S;
}

void darray__tp_domains_text(const tp_domains_t *d, int64_t C, char *buf,
                             size_t n) {
  size_t at = 0;
  int k;
  if (d->su <= 0 || d->S <= 0) {
    snprintf(buf, n, "logical (striping unknown: striping_unit and "
             "striping_factor not given)");
    return;
  }
  k = snprintf(buf, n, "%s, %lld servers of %lld-byte stripes, at most %d "
               "aggregator%s per server per cycle",
               d->layout ? "layout" : "logical", (long long)d->S,
               (long long)d->su, darray__tp_meet(d, C),
               darray__tp_meet(d, C) > 1 ? "s" : "");
  at = k > 0 ? (size_t)k : 0;
  for (int i = 0; d->layout && i < d->A && i < 8 && at < n; i++) {
    int64_t s0, s1;
    darray__tp_layout_servers(d, i, &s0, &s1);
    k = s1 - s0 > 1 ? snprintf(buf + at, n - at, "%s aggregator %d: "
                               "servers %lld-%lld", i ? ";" : ":", i,
                               (long long)s0, (long long)(s1 - 1))
                    : snprintf(buf + at, n - at, "%s aggregator %d: "
                               "server %lld", i ? ";" : ":", i,
                               (long long)s0);
    at += k > 0 ? (size_t)k : 0;
  }
  if (d->layout && d->A > 8 && at < n)
    snprintf(buf + at, n - at, "; ...");
}

int darray__tp_explain(xfer_t *x, char *buf, size_t n) {
  const access_t *acc;
  buf[0] = '\0';
  int rc = darray__xfer_access(x, &acc);
  if (rc != DARRAY_SUCCESS || !acc->interleaved)
    return rc;
  tp_domains_t d;
  tp_sizes_t s;
  const darray_hints_t *h = &x->f->hints;
  darray__tp_domains(x, acc, &d);
  darray__tp_size(&d, h, x->write, acc, &s);
  int head = snprintf(buf, n, "two-phase file domains (darray_cb_domains): ");
  size_t at = head > 0 && (size_t)head < n ? (size_t)head : 0;
  darray__tp_domains_text(&d, s.C, buf + at, n - at);
  double ns_layout, ns_logical;
  at = strlen(buf);
  if (darray__tp_weigh(x, acc, &d, &ns_layout, &ns_logical) && at < n)
    snprintf(buf + at, n - at, "; automatic: layout domains estimated "
             "%.3g ms, logical %.3g ms (darray_server_contention=%lld)",
             ns_layout * 1e-6, ns_logical * 1e-6,
             (long long)h->server_contention);
  return DARRAY_SUCCESS;
}
