/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_domains_unit.c - two-phase's file domains as numbers (one process):
 * for logical and layout-aware domains over many extents, aggregator
 * counts, server counts, stripe units (multiples of the element and not),
 * element sizes, displacements and chunk sizes:
 *  (a) the chunks of every aggregator and cycle cover [lo, hi) exactly
 *      once (a byte map), each at most C bytes, its parts in file order
 *      (one for logical domains; for layout domains as many whole blocks
 *      as fit, so that short stripes do not multiply the cycles),
 *      starting and ending on element boundaries (or at hi), none past
 *      the cycle count;
 *  (b) darray__tp_locate finds, for every byte, the aggregator and cycle
 *      whose chunk holds it, and the end of that chunk's part;
 *  (c) layout domains: the stripe each chunk starts in is on one of its
 *      aggregator's servers; with A <= S and stripes of whole elements no
 *      two aggregators meet on a server in a cycle (contention 1), with
 *      A > S at most ceil(A / S) do;
 *  (e) layout chunks are full (full_chunks, below);
 *  (f) direct writes (dio, page_chunks below): logical domains whose
 *      boundaries and chunks are counted on pages, for any displacement
 *      on an element boundary: (a) and (b) hold, and every boundary
 *      between domains and every chunk but a domain's first starts on a
 *      page;
 *  (d) the automatic choice (darray_cb_domains) takes layout domains where
 *      logical ones meet on a server: 8 aggregators, 1 MiB domains, 64 KiB
 *      stripes over 16 servers (every domain starts on server 0), and
 *      logical domains where no two meet (domains of 5 stripes on 4
 *      servers);
 *      logical and layout hints force either.
 */
#include "testutil.h"
#include "twophase/twophase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dcase {
  int64_t lo, hi;
  int A;
  int64_t disp, es, su, S, C;
} dcase_t;

static int64_t round_c(int64_t C, int64_t es) { return C / es * es; }

/* One part [clo, chi) of aggregator i's chunk in cycle c: (a)-(c). */
static bool check_part(const tp_domains_t *d, int64_t C, int i, int64_t c,
                       int64_t cyc, int64_t clo, int64_t chi,
                       unsigned char *seen, const char *what) {
  if (!TU_CHECK(c < cyc && clo >= d->lo && chi <= d->hi) ||
      !TU_CHECK((clo - d->disp) % d->es == 0 &&
                (chi == d->hi || (chi - d->disp) % d->es == 0))) {
    TU_FAIL("%s: aggregator %d cycle %lld: [%lld, %lld)", what, i,
            (long long)c, (long long)clo, (long long)chi);
    return false;
  }
  for (int64_t b = clo; b < chi; b++)
    seen[b - d->lo]++;
  if (d->layout) { /* (c) on its own servers */
    int64_t s0, s1, s = (clo / d->su) % d->S;
    darray__tp_layout_servers(d, i, &s0, &s1);
    if (!TU_CHECK(s >= s0 && s < s1))
      TU_FAIL("%s: aggregator %d (servers [%lld, %lld)) on server "
              "%lld", what, i, (long long)s0, (long long)s1, (long long)s);
  }
  for (int64_t b = clo; b < chi; b += 1 + (chi - clo) / 7) { /* (b) */
    int agg;
    int64_t cy, end;
    darray__tp_locate(d, C, b, &agg, &cy, &end);
    if (!TU_CHECK(agg == i && cy == c && end == chi))
      TU_FAIL("%s: byte %lld: located at %d/%lld/%lld, is %d/%lld/%lld",
              what, (long long)b, agg, (long long)cy, (long long)end, i,
              (long long)c, (long long)chi);
  }
  return true;
}

/* Every chunk's parts: in file order, not touching one another, at most
 * C bytes together (they may touch: one aggregator of all servers);
 * logical chunks one part; a layout chunk of several
 * parts holds as many whole blocks as fit in C (a cycle that is not an
 * aggregator's last holds C / (stripes per block x su + es) blocks or
 * more: short stripes do not multiply the cycles). */
static void check_chunks(const tp_domains_t *d, int64_t C, const char *what) {
  int64_t n = d->hi - d->lo, ntimes = 0;
  unsigned char *seen = calloc((size_t)n, 1);
  for (int i = 0; i < d->A; i++) {
    int64_t cyc = darray__tp_domain_cycles(d, i, C);
    ntimes = cyc > ntimes ? cyc : ntimes;
    for (int64_t c = 0; c < cyc + 2; c++) {
      int64_t clo, chi, sum = 0, prev = d->lo, j, parts = 0;
      for (j = 0; darray__tp_part(d, C, i, c, j, &clo, &chi); j++) {
        if (clo == chi)
          continue;
        parts++;
        sum += chi - clo;
        if (!TU_CHECK(clo >= prev) ||
            !check_part(d, C, i, c, cyc, clo, chi, seen, what)) {
          TU_FAIL("%s: aggregator %d cycle %lld part %lld: [%lld, %lld) "
                  "after %lld", what, i, (long long)c, (long long)j,
                  (long long)clo, (long long)chi, (long long)prev);
          free(seen);
          return;
        }
        prev = chi;
      }
      if (!TU_CHECK(j >= 1 && sum <= C && (d->layout || j == 1)))
        TU_FAIL("%s: aggregator %d cycle %lld: %lld parts, %lld bytes", what,
                i, (long long)c, (long long)j, (long long)sum);
      int64_t s0, s1;
      darray__tp_layout_servers(d, i, &s0, &s1);
      int64_t blk = (d->A <= d->S ? s1 - s0 : 1) * d->su + d->es;
      /* (with stripes of whole elements no block is empty but one before
       * the extent's start: cycle 0 may show one part less) */
      if (d->layout && d->su % d->es == 0 && c + 1 < cyc && blk <= C &&
          !TU_CHECK(parts + (c == 0) >= C / blk))
        TU_FAIL("%s: aggregator %d cycle %lld: %lld parts, want >= %lld "
                "(blocks <= %lld bytes)", what, i, (long long)c,
                (long long)parts, (long long)(C / blk), (long long)blk);
    }
  }
  int64_t bad = 0;
  for (int64_t b = 0; b < n; b++)
    bad += seen[b] != 1;
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("%s: %lld bytes not covered exactly once", what, (long long)bad);
  free(seen);
}

static void one(const dcase_t *k, bool layout) {
  tp_domains_t d = {k->lo, k->hi, k->A, k->disp, k->es, k->su, k->S, layout, 0};
  char what[200];
  snprintf(what, sizeof what,
           "%s [%lld, %lld) A=%d disp=%lld es=%lld su=%lld S=%lld C=%lld",
           layout ? "layout" : "logical", (long long)k->lo, (long long)k->hi,
           k->A, (long long)k->disp, (long long)k->es, (long long)k->su,
           (long long)k->S, (long long)k->C);
  int64_t C = round_c(k->C, k->es);
  check_chunks(&d, C, what);
  if (!layout || k->su % k->es != 0 || k->disp % k->su != 0)
    return;
  int cnt[64], servers;
  int meet = darray__tp_contention(&d, C, darray__tp_layout_cycles(&d, 0, C),
                                   INT64_MAX, cnt, &servers);
  int64_t want = k->A <= k->S ? 1 : (k->A + k->S - 1) / k->S;
  if (!TU_CHECK(meet <= want))
    TU_FAIL("%s: %d aggregators meet on a server, want <= %lld", what, meet,
            (long long)want);
}

static void matrix(void) {
  const int64_t es[] = {1, 4, 8, 12};
  const int64_t su[] = {8, 12, 64, 100};
  const int64_t S[] = {1, 2, 3, 4, 7};
  const int A[] = {1, 2, 3, 5, 8, 13};
  const int64_t C[] = {24, 96, 1000};
  for (size_t e = 0; e < 4; e++)
    for (size_t u = 0; u < 4; u++)
      for (size_t s = 0; s < 5; s++)
        for (size_t a = 0; a < 6; a++)
          for (size_t c = 0; c < 3; c++) {
            int64_t disp = (int64_t)(u * 8);
            int64_t lo = disp + es[e] * 3, hi = lo + es[e] * (400 + 37 * a);
            dcase_t k = {lo, hi, A[a], disp, es[e], su[u], S[s], C[c]};
            if (C[c] < es[e])
              continue;
            one(&k, false);
            one(&k, true);
          }
}

/* (e) Layout chunks are full: every chunk of an aggregator but its last
 * holds C bytes less what rounding to elements can take from its parts,
 * and the cycles are those of its bytes in chunks of C (1 MiB blocks in
 * 1.5 MiB chunks took one cycle each, 1.5 times the cycles of logical
 * domains; 64 KiB stripes 8-20 times with one stripe per chunk). */
static void full_chunks(void) {
  const int64_t MB = INT64_C(1) << 20;
  const struct {
    int64_t hi, su, S, es, disp, C;
    int A;
  } k[] = {{64 * MB, MB, 2, 8, 0, 3 * MB / 2, 2},
           {64 * MB, MB, 4, 8, 0, 3 * MB / 2, 4},
           {64 * MB, MB, 4, 8, 0, 3 * MB / 2, 2},
           {64 * MB, 64 << 10, 2, 8, 0, 3 * MB / 2, 2},
           {48 * MB, MB, 4, 24, 0, 3 * MB, 4},
           {48 * MB, 64 << 10, 4, 40, 8, 3 * MB / 2, 4},
           {48 * MB, 64 << 10, 3, 8, 16, 3 * MB / 2, 6}};
  for (size_t n = 0; n < sizeof k / sizeof k[0]; n++) {
    int64_t lo = k[n].disp + 5 * k[n].es;
    int64_t hi = lo + (k[n].hi - lo) / k[n].es * k[n].es;
    tp_domains_t d = {lo, hi, k[n].A, k[n].disp, k[n].es, k[n].su, k[n].S,
                      true, 0};
    int64_t C = round_c(k[n].C, k[n].es);
    for (int i = 0; i < d.A; i++) {
      int64_t s0, s1, cyc = darray__tp_domain_cycles(&d, i, C), all = 0;
      darray__tp_layout_servers(&d, i, &s0, &s1);
      int64_t L = (d.A <= d.S ? s1 - s0 : 1) * d.su;
      int64_t room = C - 2 * (C / L + 2) * (d.es - 1) - d.es;
      for (int64_t c = 0; c < cyc; c++) {
        int64_t plo, phi, sum = 0;
        for (int64_t j = 0; darray__tp_part(&d, C, i, c, j, &plo, &phi); j++)
          sum += phi - plo;
        all += sum;
        if (c + 1 < cyc && !TU_CHECK(sum >= room && sum <= C))
          TU_FAIL("case %zu aggregator %d cycle %lld of %lld: %lld bytes, "
                  "want %lld .. %lld", n, i, (long long)c, (long long)cyc,
                  (long long)sum, (long long)room, (long long)C);
      }
      if (!TU_CHECK(cyc <= (all + room - 1) / room))
        TU_FAIL("case %zu aggregator %d: %lld cycles for %lld bytes in "
                "chunks of %lld", n, i, (long long)cyc, (long long)all,
                (long long)C);
    }
  }
}

static void automatic(void) {
  darray_hints_t h;
  darray__hints_default(&h);
  h.cb_buffer_size = 256 << 10;
  /* 8 aggregators x 1 MiB domains, 64 KiB stripes on 16 servers: every
   * domain starts on server 0, so logical cycles all meet there */
  tp_domains_t d = {0, 8 << 20, 8, 0, 8, 64 << 10, 16, false, 0};
  TU_CHECK(darray__tp_layout_wanted(&d, &h));
  h.cb_domains = DARRAY_DOMAINS_LOGICAL;
  TU_CHECK(!darray__tp_layout_wanted(&d, &h));
  /* 4 aggregators x 80 KiB domains (5 stripes of 16 KiB, 4 servers):
   * aggregator i starts on server i, and in cycle c is on (i + c) mod 4:
   * never two on one server */
  tp_domains_t e = {0, 320 << 10, 4, 0, 8, 16 << 10, 4, false, 0};
  h.cb_domains = DARRAY_DOMAINS_AUTO;
  h.cb_buffer_size = 16 << 10;
  TU_CHECK(!darray__tp_layout_wanted(&e, &h));
  h.cb_domains = DARRAY_DOMAINS_LAYOUT;
  TU_CHECK(darray__tp_layout_wanted(&e, &h));
  h.striping_factor = 0;
  tp_domains_t f = {0, 256 << 10, 4, 0, 8, 16 << 10, 0, false, 0};
  TU_CHECK(!darray__tp_layout_wanted(&f, &h)); /* no servers known */
}

/* (f) Pages of dio bytes (a multiple of the element), chunks of whole
 * pages; domains and chunks as darray__tp_domains sets them for direct
 * writes (su = dio where striping_unit is not set). */
static void page_chunks(void) {
  const int64_t es[] = {1, 4, 8}, disp[] = {0, 8, 24}, C[] = {64, 192, 640};
  const int A[] = {1, 2, 3, 5};
  const int64_t dio = 64;
  for (size_t e = 0; e < 3; e++)
    for (size_t p = 0; p < 3; p++)
      for (size_t a = 0; a < 4; a++)
        for (size_t c = 0; c < 3; c++) {
          int64_t lo = disp[p] + es[e] * 3, hi = lo + es[e] * (400 + 37 * a);
          tp_domains_t d = {lo, hi, A[a], disp[p], es[e], dio, 0, false, dio};
          char what[160];
          snprintf(what, sizeof what, "pages of %lld: [%lld, %lld) A=%d "
                   "disp=%lld es=%lld C=%lld", (long long)dio, (long long)lo,
                   (long long)hi, A[a], (long long)disp[p], (long long)es[e],
                   (long long)C[c]);
          check_chunks(&d, C[c], what);
          for (int i = 0; i < d.A; i++) {
            int64_t b = darray__tp_boundary(&d, i);
            if (i > 0 && b < hi && !TU_EQ_I64(b % dio, 0))
              TU_FAIL("%s: domain %d starts at %lld", what, i, (long long)b);
            for (int64_t k = 1; k < darray__tp_domain_cycles(&d, i, C[c]);
                 k++) {
              int64_t clo, chi;
              darray__tp_part(&d, C[c], i, k, 0, &clo, &chi);
              if (!TU_EQ_I64(clo % dio, 0))
                TU_FAIL("%s: domain %d chunk %lld starts at %lld", what, i,
                        (long long)k, (long long)clo);
            }
          }
        }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  matrix();
  full_chunks();
  page_chunks();
  automatic();
  return tu_finish();
}
