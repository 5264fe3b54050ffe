/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_plan_unit.c - the planner and the strategies' estimates on access
 * summaries and hints built by hand (one process, no file: the arrays are
 * descriptions whose process count each case sets, and other processes'
 * runs come from section boxes).
 *
 *  1. Each strategy's estimate against its formula, computed here from the
 *     hint values and the sizing rules (doc/planner.md), with the numbers
 *     of one case of each worked out in the comments:
 *     - two-phase: the largest file domain at the bandwidth, plus
 *       ceil(domain / C) cycles of a call and a synchronization, plus the
 *       exchange (pipelined writes: the longer of the file time and the
 *       exchange, plus a cycle's share of the shorter); C = (cb - M) / parts
 *       in whole elements (M = cb / 4), no larger than the largest domain,
 *       parts = staging (times the overlap depth of section reads) + an
 *       image for short pieces + a second slot for pipelined writes; on a
 *       striped file at least the cycles times the aggregators that meet on
 *       a server, logical and layout-aware domains (worked out at
 *       striped_estimates);
 *     - sieving, extents apart: per process ceil(extent / W) windows of W =
 *       the buffer hint in whole elements, where that beats a call per run;
 *     - sieving, interleaved reads: the windows its join rule finds;
 *     - direct runs: a call per stretch of touching runs per buffer load,
 *       one per lone run; one per run for processes not sampled;
 *     - rows: the largest piece at the bandwidth, a call and a
 *       synchronization per window, the exchange within a group;
 *     - static: the busiest group's bytes at the bandwidth and its calls
 *       (one per run of the densest member's share of a cycle, at most
 *       the group's runs), a synchronization per cycle, the exchange at
 *       the process that sends or receives most;
 *     - mapped: per process a call, a call per window, its bytes at the
 *       bandwidth and its extent made ready at darray_map_*_mbs, where the
 *       file may be mapped and its processes share one node;
 *     - groups: per group of cb_group_size ranks, the writer's own copy
 *       plus the group's bytes at the bandwidth and its calls (a call per
 *       chunk where the group's bytes fill its extent, else one per run
 *       without list calls), against the busiest member's copy, plus a
 *       synchronization per chunk of cb_buffer_size / 2.
 *  2. The planner's rules on a table of stand-ins whose estimates the test
 *     sets: forcing hints and their order, switches (enable, disable),
 *     interleaved and apart extents, ties, no candidate at all.
 *  3. The real table on hand-built summaries: collective buffering off
 *     keeps interleaved reads direct though sieving is cheaper; sieving
 *     wins where it helps a process but not the slowest one (a tie).
 *  4. The summary's own verdicts (darray__access_totals), also when the
 *     bytes of overlapping boxes add up past INT64_MAX.
 * Run: ./test_plan_unit (one process)
 */
#include "agree.h" /* darray__cores */
#include "static/static.h"
#include "strategy.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static darray_file_s_t F; /* a file handle on paper: its hints */

/* Default hints with a measured-looking cycle cost; read-modify-write
 * allowed, as on a locked local file. */
static void hints(const char *set) {
  char msg[256] = "";
  memset(&F, 0, sizeof F);
  darray__hints_default(&F.hints);
  F.hints.cb_cycle_ns = 10000;
  F.io.rmw = true;
  if (set != NULL && !TU_OK(darray__hints_parse_string(&F.hints, set, msg,
                                                        sizeof msg)))
    TU_FAIL("hints '%s': %s", set, msg);
}

/* got equals want up to rounding (relative 1e-12). */
static int near(double got, double want) {
  if (fabs(got - want) <= 1e-12 * fabs(want) + 1e-9)
    return 1;
  return TU_FAIL("estimate %.6f ns, formula %.6f ns", got, want);
}

/* A committed array on this process: n0 x n1 int32 (n1 > 0) or, with
 * n1 = 0, n0 opaque elements of es bytes at disp. */
static darray_t array(int64_t n0, int64_t n1, int64_t es, int64_t disp) {
  int64_t g[2] = {n0, n1};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_SELF, n1 > 0 ? 2 : 1, g,
                      n1 > 0 ? DARRAY_INT32 : DARRAY_OPAQUE, &a));
  if (n1 == 0)
    TU_OK(darray_set_elem_size(a, es));
  TU_OK(darray_set_displacement(a, disp));
  TU_OK(darray_commit(a));
  return a;
}

/* A section call of P processes on array a: box i of every process i > 0
 * is boxes[4 i .. 4 i + 3] (start0, start1, count0, count1); process 0's
 * cells are sec. */
typedef struct call {
  darray_s_t a;    /* a copy of the array with P processes */
  int64_t boxes[4 * 12];
  xfer_t x;
} call_t;

static void call_init(call_t *c, darray_t a, int P, bool write,
                      const section_t *sec, int nsec) {
  c->a = *a;
  c->a.d.nprocs = P;
  c->x = (xfer_t){.f = &F, .a = &c->a, .write = write, .sec = sec,
                  .nsec = nsec, .boxes = c->boxes};
}

/* The access in numbers, by hand: ranks r[0..P), the verdicts given. */
static access_t summary(access_rank_t *r, int P, bool inter, int depth) {
  access_t acc = {P, r, 0, 0, 0, 0, false, inter, depth};
  bool any = false;
  for (int i = 0; i < P; i++) {
    if (r[i].hi > r[i].lo) {
      acc.lo = any && acc.lo < r[i].lo ? acc.lo : r[i].lo;
      acc.hi = any && acc.hi > r[i].hi ? acc.hi : r[i].hi;
      any = true;
    }
    acc.nruns += r[i].nruns;
    acc.bytes += r[i].bytes;
  }
  acc.dense = acc.bytes == acc.hi - acc.lo;
  return acc;
}

static const strategy_t *named(const char *name) {
  const strategy_t *s = darray__strategy_named(name);
  TU_CHECK(s != NULL);
  return s;
}

/* ---- 1a. two-phase ------------------------------------------------------- */

/* The largest domain of A over [lo, hi): even split, each boundary up to
 * the next element (disp + k es). */
static int64_t largest_domain(int64_t lo, int64_t hi, int A, int64_t disp,
                              int64_t es) {
  int64_t prev = lo, most = 0;
  for (int i = 1; i <= A; i++) {
    int64_t b = i == A ? hi : lo + (hi - lo) * i / A;
    if (i < A && (b - disp) % es != 0)
      b += es - (b - disp) % es;
    b = b > hi ? hi : b;
    most = b - prev > most ? b - prev : most;
    prev = b;
  }
  return most;
}

/* Cycles for `parts` buffers of C bytes out of cb. */
static int64_t cycles(int64_t cb, int parts, int64_t es, int64_t dmax) {
  int64_t M = cb / 4 / es * es;
  M = M < es ? es : M;
  int64_t C = (cb - M) / parts / es * es;
  if (C < es && M > es)
    C = (cb - es) / parts / es * es;
  C = C < es ? es : C > dmax ? dmax : C;
  return (dmax + C - 1) / C;
}

/* Two-phase by its formula, for an access whose every process holds
 * `most` bytes at most. */
static double tp_formula(const access_t *acc, const darray_desc_t *d,
                         bool write, int64_t most) {
  const darray_hints_t *h = &F.hints;
  int P = acc->P;
  int A = h->cb_nodes > 0 && h->cb_nodes < P ? (int)h->cb_nodes : P;
  int64_t dmax = largest_domain(acc->lo, acc->hi, A, d->disp, d->esize);
  bool image = acc->bytes / acc->nruns < h->cb_image_piece;
  int parts = (write ? 1 : acc->depth) + image;
  int64_t n = cycles(h->cb_buffer_size, parts, d->esize, dmax);
  bool pipe = write && h->cb_pipeline != DARRAY_TRI_DISABLE &&
              (h->cb_pipeline == DARRAY_TRI_ENABLE || (A >= 2 && n >= 2));
  if (pipe)
    n = cycles(h->cb_buffer_size, parts + 1, d->esize, dmax);
  double bw = 1000.0 / (double)h->ds_bandwidth_mbs;
  double lat = (double)(write ? h->ds_wr_latency_ns : h->ds_rd_latency_ns);
  double file = (double)dmax * bw;
  double xch = 2.0 * (double)most * (P - 1) / P * 1000.0 /
               (double)h->cb_exchange_mbs;
  /* pipelined: the exchange of the next chunk under this one's write */
  double cyc = (double)n * (lat + (double)h->cb_cycle_ns);
  if (pipe && n >= 2)
    return (file > xch ? file + xch / (double)n : xch + file / (double)n) +
           cyc;
  return file + cyc + xch;
}

/* Four processes, 24-byte elements: `total` bytes from disp, each process
 * a quarter in runs of `piece` bytes. */
static void tp_case(const char *set, bool write, int depth, int64_t disp,
                    int64_t total, int64_t piece, double hand) {
  hints(set);
  darray_t a = array(total / 24, 0, 24, disp);
  access_rank_t r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (access_rank_t){disp, disp + total, total / 4 / piece, total / 4,
                           piece, piece, 1, false};
  access_t acc = summary(r, 4, true, depth);
  call_t c;
  call_init(&c, a, 4, write, NULL, 0);
  estimate_t e = {0, ""};
  TU_OK(named("twophase")->estimate(&c.x, &acc, &e));
  if (!TU_EQ_STR(e.why, "") ||
      !near(e.ns, tp_formula(&acc, &a->d, write, total / 4)) ||
      (hand > 0 && !near(tp_formula(&acc, &a->d, write, total / 4), hand)))
    TU_FAIL("  two-phase, hints '%s', %s", set, write ? "write" : "read");
  acc.interleaved = false; /* apart: every process moves its own runs */
  e = (estimate_t){0, ""};
  TU_OK(named("twophase")->estimate(&c.x, &acc, &e));
  TU_CHECK(e.why[0] != '\0');
  darray_free(&a);
}

/* On a striped file the estimate charges a cycle the aggregators that meet
 * on one server. Four processes read 24 MiB of 24-byte elements in 1 KiB
 * pieces (vector mode, M = 1 MiB, C = 3 MiB: 2 cycles of 6 MiB domains)
 * from 4 servers of 1 MiB stripes:
 *  - logical domains start on stripes 0, 6, 12, 18 (servers 0, 2, 0, 2):
 *    every cycle all 4 aggregators' 3-stripe chunks meet on two servers,
 *    so the file time is 2 cycles x 4 x 3 MiB x 0.2 ns = 5033164.8 ns
 *    (not 6 MiB x 0.2); + 2 x (500 + 10000) + 2 x 6 MiB x 3/4 x 0.1 =
 *    5997883.2 ns;
 *  - layout domains: aggregator i the stripes of server i, 6 blocks of
 *    at most 1 MiB + 24 (an element: blocks end on element boundaries),
 *    6291600 bytes at most; one stream of 6 MiB cut into chunks of 3 MiB
 *    less 120 bytes (what rounding to elements may add to C / 1 MiB + 2
 *    = 5 parts, 5 x 23 = 115, then down to an element): 3 cycles (the
 *    third of 240 bytes),
 *    one aggregator per server: 6291600 x 0.2 = 1258320 ns, less than the
 *    four servers need for all of the call's calls and bytes, (4 x 3 x
 *    500 + 24 MiB x 0.2) / 4 = 1259791.2; + 3 x 10500 + 943718.4 =
 *    2235009.6 ns; a chunk of 3 MiB starting inside a block has up to 4
 *    parts (the end of one block, two whole ones, the start of the next),
 *    each at least a message (M) long, so the streams are cut at parts:
 *    3 more messages per cycle to each of the 3 other aggregators at
 *    darray_cb_message_ns = 2000, 3 x 3 x 3 x 2000 = 54000: 2289009.6 ns;
 *  - automatic weighs them (the logical meeting, 4, passes 1) and takes
 *    layout, the cheaper at darray_server_contention = 100;
 *  - darray_server_contention = 50, logical: each of the 3 further
 *    aggregators on a server adds half its work, 2.5 x 6 MiB x 0.2 =
 *    3145728 ns; + 21000 + 943718.4 = 4110446.4 ns;
 *  - darray_server_contention = 0, automatic: meeting costs nothing, so
 *    logical domains cost what the servers need for all (as above, with
 *    4 x 2 calls: 1259291.2) + 21000 + 943718.4 = 2224009.6 ns, less than
 *    layout's 2289009.6 (whose parts cost messages): logical. */
static void striped_estimates(void) {
  const int64_t MB = INT64_C(1) << 20, total = 24 * MB;
  const char *set[] = {"striping_unit=1m;striping_factor=4;"
                       "darray_cb_domains=logical",
                       "striping_unit=1m;striping_factor=4;"
                       "darray_cb_domains=layout",
                       "striping_unit=1m;striping_factor=4",
                       "striping_unit=1m;striping_factor=4;"
                       "darray_cb_domains=logical;darray_server_contention=50",
                       "striping_unit=1m;striping_factor=4;"
                       "darray_server_contention=0"};
  const double hand[] = {5997883.2, 2289009.6, 2289009.6, 4110446.4,
                         2224009.6};
  for (int k = 0; k < 5; k++) {
    hints(set[k]);
    darray_t a = array(total / 24, 0, 24, 0);
    access_rank_t r[4];
    for (int i = 0; i < 4; i++)
      r[i] = (access_rank_t){0, total, total / 4 / 1024, total / 4, 1024,
                             1024, 1, false};
    access_t acc = summary(r, 4, true, 1);
    call_t c;
    call_init(&c, a, 4, false, NULL, 0);
    estimate_t e = {0, ""};
    TU_OK(named("twophase")->estimate(&c.x, &acc, &e));
    if (!TU_EQ_STR(e.why, "") || !near(e.ns, hand[k]))
      TU_FAIL("  two-phase on a striped file, hints '%s'", set[k]);
    darray_free(&a);
  }
}

static void twophase_estimates(void) {
  const int64_t MB = INT64_C(1) << 20;
  /* 24 MiB over 2 aggregators (12 MiB domains), writes, 1 KiB pieces:
   * M = 1048560, C = 3145728 for one buffer: 4 cycles, so the pipeline
   * takes a second buffer: C = 1572864, 8 cycles (not 4: a chunk is not
   * cb_buffer_size). The file time 12582912 * 0.2 = 2516582.4 is the
   * longer; the exchange, 2 * 6291456 * 3/4 * 0.1 = 943718.4, runs under
   * it but for one chunk's share, 117964.8; + 8 * (5000 + 10000) =
   * 2754547.2 ns */
  tp_case("cb_nodes=2", true, 1, 0, 24 * MB, 1024, 2754547.2);
  /* reads of sections that overlap twice, 64-byte pieces (an image):
   * three buffers, C = 1048560, 13 cycles: 2516582.4 + 13 * 10500 +
   * 943718.4 = 3596800.8 ns */
  tp_case("cb_nodes=2", false, 2, 0, 24 * MB, 64, 3596800.8);
  /* 1004 elements from disp 8 over 4 and 3 aggregators, each boundary
   * rounded up to an element (over 3: 8040, 8040 and 8016 bytes); one
   * chunk, no pipeline */
  tp_case("", true, 1, 8, 24 * 1000 + 24 * 4, 24, 0);
  tp_case("cb_nodes=3", true, 1, 8, 24 * 1004, 24, 0);
  /* cb_buffer_size = 100, 24-byte elements: M = 24, C = 72, 34 cycles of
   * a 2400-byte domain (not 25) */
  tp_case("cb_buffer_size=100;cb_nodes=1", false, 1, 0, 2400, 600,
          2400 * 0.2 + 34 * (500 + 10000) + 2 * 600 * 0.75 * 0.1);
  tp_case("cb_buffer_size=100;darray_cb_pipeline=enable", true, 1, 0, 2400,
          24, 0);
  tp_case("cb_buffer_size=1000;darray_cb_pipeline=disable;"
          "darray_cb_image_piece=0", true, 1, 48, 24 * 4000, 24, 0);
}

/* ---- 1a'. rows ----------------------------------------------------------- */

/* Rows on a 64 x 256 int32 array (C order) over a grid of p0 x p1
 * processes, each holding an equal share in 64 runs; the formula's
 * numbers are worked out by hand in each case: the largest piece at the
 * bandwidth, ceil(piece / W) windows of a call and a synchronization
 * each, and
 * the exchange of (g - 1) / g of the slowest process's bytes, both ways.
 * W = cb - M (M = cb / 4) for vectors of pieces, half that with an image
 * (mean piece below darray_cb_image_piece), in whole elements. */
static void rows_case(const char *set, int p0, int p1, double hand) {
  hints(set);
  darray_t a = array(64, 256, 0, 0);
  int P = p0 * p1;
  call_t c;
  call_init(&c, a, P, true, NULL, 0);
  c.x.boxes = NULL; /* a whole-array call */
  c.a.d.psizes[0] = p0;
  c.a.d.psizes[1] = p1;
  c.a.d.block[0] = 64 / p0;
  c.a.d.block[1] = 256 / p1;
  access_rank_t r[4];
  for (int i = 0; i < P; i++)
    r[i] = (access_rank_t){0, 65536, 64, 65536 / P, 1024 / P, 1024 / P, 1,
                           false};
  access_t acc = summary(r, P, true, 1);
  estimate_t e = {0, ""};
  TU_OK(named("rows")->estimate(&c.x, &acc, &e));
  if (hand < 0) { /* not a candidate */
    TU_CONTAINS(e.why, strstr(set, "disable") ? "romio_cb_write=disable"
                                              : "every group is one process");
  } else if (!TU_EQ_STR(e.why, "") || !near(e.ns, hand)) {
    TU_FAIL("  rows, hints '%s', grid %dx%d", set, p0, p1);
  }
  acc.interleaved = false; /* apart: every process moves its own runs */
  e = (estimate_t){0, ""};
  TU_OK(named("rows")->estimate(&c.x, &acc, &e));
  TU_CHECK(e.why[0] != '\0');
  darray_free(&a);
}

static void rows_estimates(void) {
  /* 1 x 2: one group of both (the whole array, 65536 bytes, is one
   * extent shorter than 4 MiB); 512-byte pieces go as vectors; halves of
   * 32768 bytes in one window: 32768 * 0.2 + (5000 + 10000) + 2 * 32768
   * * 1/2 * 0.1 */
  rows_case("", 1, 2, 6553.6 + 15000 + 3276.8);
  /* 2 x 2 with 1000-byte extents: pairs sharing the row coordinate, each
   * region one extent of 32768 bytes, pieces of 16384: 16384 * 0.2 +
   * 15000 + 2 * 16384 * 1/2 * 0.1 */
  rows_case("darray_rows_extent=1000", 2, 2, 3276.8 + 15000 + 1638.4);
  /* cb_buffer_size = 4096: M = 1024, W = 3072: 6 windows */
  rows_case("darray_rows_extent=1000;cb_buffer_size=4096", 2, 2,
            3276.8 + 6 * 15000 + 1638.4);
  /* ... with an image (256-byte pieces are short under 1g): W = 1536, 11
   * windows */
  rows_case("darray_rows_extent=1000;cb_buffer_size=4096;"
            "darray_cb_image_piece=1g", 2, 2, 3276.8 + 11 * 15000 + 1638.4);
  /* 2 x 1 with 512-byte extents: every process's own rows are one extent
   * of 32768 bytes already: groups of one */
  rows_case("darray_rows_extent=512", 2, 1, -1);
  /* collective buffering off: no rows either (it has no switch of its
   * own in the table, so its estimate reads the hint) */
  rows_case("romio_cb_write=disable", 1, 2, -1);
}

/* ---- 1a''. static -------------------------------------------------------- */

/* Strategy `name`'s estimate *e of a whole-array call (write or read) on
 * the 64 x 256 int32 array over 1 x P processes (P <= 4), each 65536 / P
 * bytes in 64 runs of 1024 / P (inter: the extents interleave). */
static void estimate_64x256(const char *name, int P, bool write, bool inter,
                            estimate_t *e) {
  darray_t a = array(64, 256, 0, 0);
  call_t c;
  call_init(&c, a, P, write, NULL, 0);
  c.x.boxes = NULL; /* a whole-array call */
  access_rank_t r[4];
  int64_t run = 1024 / P;
  for (int i = 0; i < P; i++)
    r[i] = (access_rank_t){run * i, 65536 - run * (P - 1) + run * i, 64,
                           65536 / P, run, run, 1, false};
  access_t acc = summary(r, P, inter, 1);
  *e = (estimate_t){0, ""};
  TU_OK(named(name)->estimate(&c.x, &acc, e));
  darray_free(&a);
}

/* The same at 2 processes under hints `set`, against hand (< 0: not a
 * candidate, why containing `why`); what names the case in a failure. */
static void case_64x256(const char *name, const char *set, bool write,
                        bool inter, double hand, const char *why,
                        const char *what) {
  estimate_t e;
  estimate_64x256(name, 2, write, inter, &e);
  if (hand < 0 ? !TU_CONTAINS(e.why, why)
               : !TU_EQ_STR(e.why, "") || !near(e.ns, hand))
    TU_FAIL("  %s, hints '%s', %s", name, set, what);
}

/* Static segmentation on the 64 x 256 int32 array over 1 x 2 processes,
 * each 32768 bytes in 64 runs of 512 (interleaved: every row is half
 * each's). K = cb_buffer_size / (largest group + 1), whole elements, at
 * most the largest process's 32768 bytes; ceil(32768 / K) cycles; a
 * group's calls min(its runs, cycles x (1 + K x 64 / 32768)). Defaults:
 * 0.2 ns a byte, 5000 ns a write call, 10000 a cycle, 0.1 ns a byte
 * exchanged. hand < 0: not a candidate, why containing `why`. */
static void static_case(const char *set, bool inter, double hand,
                        const char *why) {
  hints(set);
  case_64x256("static", set, true, inter, hand, why, "write");
}

static void static_estimates(void) {
  /* cb_nodes unset: two groups of one, K = 32768, one cycle, 64 calls
   * each (min(64, 1 + 64)), nothing exchanged: 32768 * 0.2 + 64 * 5000 +
   * 10000 */
  static_case("", true, 6553.6 + 320000 + 10000, NULL);
  /* cb_nodes = 1: one group of two, K = 32768, one cycle, 65 calls
   * (min(128, 1 + 64)); rank 0 receives 32768 bytes, rank 1 sends as
   * many: 65536 * 0.2 + 65 * 5000 + 10000 + 32768 * 0.1 */
  static_case("cb_nodes=1", true, 13107.2 + 325000 + 10000 + 3276.8, NULL);
  /* cb_buffer_size = 4096: K = 4096 / 3 = 1365 -> 1364 (whole int32),
   * 25 cycles (24 x 1364 = 32736), 25 x (1 + 1364 x 64 / 32768) =
   * 91.6015625 calls */
  static_case("cb_nodes=1;cb_buffer_size=4096", true,
              13107.2 + 91.6015625 * 5000 + 25 * 10000 + 3276.8, NULL);
  /* 8 bytes for a group of two and the pack buffer: no element fits */
  static_case("cb_nodes=1;cb_buffer_size=8", true, -1, "holds no 4-byte");
  static_case("", false, -1, "do not interleave");
  static_case("romio_cb_write=disable", true, -1, "romio_cb_write=disable");
}

/* ---- 1a'''. groups ------------------------------------------------------- */

/* Writer groups on the same array as static's: 64 x 256 int32 over 1 x 2
 * processes, each 32768 bytes in 64 runs of 512, interleaved (rank 1's
 * extent starts 512 bytes after rank 0's). C = cb_buffer_size / 2 in
 * whole elements; a group's chunks ceil(extent / C); the posix back end
 * has no list call. node: the file's processes on this node (0: not
 * known). hand < 0: not a candidate, why containing `why`. */
static void groups_case(const char *set, int node, bool inter, double hand,
                        const char *why) {
  hints(set);
  F.node_procs = node;
  case_64x256("groups", set, true, inter, hand, why,
              node ? "the processes on one node" : "nodes not known");
}

static void groups_estimates(void) {
  /* groups of one: a chunk each (65024 bytes of extent, C = 2 MiB) with
   * holes, so a call per run: 32768 * 0.1 (its copy) + 32768 * 0.2 + 64
   * * 5000, + 10000 */
  groups_case("cb_group_size=1", 0, true,
              3276.8 + 6553.6 + 320000 + 10000, NULL);
  /* one group of two, dense: one chunk, one call; the writer's copy and
   * write (3276.8 + 13107.2 + 5000) outlast the member's copy (3276.8) */
  groups_case("cb_group_size=2", 0, true, 3276.8 + 13107.2 + 5000 + 10000,
              NULL);
  /* by node: not weighed, even where every process shares one */
  groups_case("", 2, true, -1, "set cb_group_size");
  /* C = 2048: 32 chunks, a call and a synchronization each */
  groups_case("cb_group_size=2;cb_buffer_size=4096", 0, true,
              3276.8 + 13107.2 + 32 * 5000 + 32 * 10000, NULL);
  groups_case("cb_group_size=2;cb_buffer_size=7", 0, true, -1,
              "holds no two 4-byte");
  groups_case("", 0, true, -1, "set cb_group_size");
  groups_case("cb_group_size=1", 0, false, -1, "do not interleave");
  groups_case("cb_group_size=1;romio_cb_write=disable", 0, true, -1,
              "romio_cb_write=disable");
}

/* ---- 1a''''. mapped ------------------------------------------------------ */

/* The file's pages mapped, on static's array (64 x 256 int32 over 1 x 2
 * processes, 32768 bytes each in 64 runs of 512 over an extent of 65024
 * bytes): per process a call (the reservation or the size), per window
 * (extent / window + 1) a call and the window's own cost
 * (darray_map_wr_window_ns 500000, darray_map_rd_window_ns 20000), the
 * bytes copied at darray_cb_exchange_mbs (0.1 ns) and the extent made
 * ready at darray_map_wr_mbs (2000: 1/2 ns a byte) or darray_map_rd_mbs
 * (25000: 1/25); the windows and the extent's making ready count node /
 * cores times where the node runs more processes than it has cores (S
 * below). ok: the file may be mapped; node: the file's processes on this
 * node. hand < 0: not a candidate, why containing `why`. */
static void mapped_case(const char *set, bool ok, int node, bool write,
                        double hand, const char *why) {
  hints(set);
  int nprocs = F.nprocs;
  F.nprocs = 2;
  F.node_procs = node;
  F.io.map_ok = ok;
  F.io.map_why = ok ? "" : "not a file system of one node";
  case_64x256("mapped", set, write, true, hand, why,
              write ? "write" : "read");
  F.nprocs = nprocs;
  F.io.map_ok = false;
  F.io.map_why = NULL;
}

static void mapped_estimates(void) {
  int cores = darray__cores();
  double S = 2 > cores ? 2.0 / cores : 1; /* 2 processes on this node */
  /* one window of 16 MiB: 5000 + 32768 * 0.1 + S (5000 + 500000 +
   * 65024 / 2) */
  mapped_case("", true, 2, true, 5000 + 3276.8 + S * (505000 + 65024.0 / 2),
              NULL);
  /* reads: 500 + 3276.8 + S (500 + 20000 + 65024 / 25) */
  mapped_case("", true, 2, false, 500 + 3276.8 + S * (20500 + 65024.0 / 25),
              NULL);
  /* windows of a page: 65024 / 4096 + 1 = 16 */
  mapped_case("darray_map_window=4096", true, 2, true,
              5000 + 3276.8 + S * (16 * 505000 + 65024.0 / 2), NULL);
  mapped_case("darray_map_window=4096;darray_map_wr_mbs=1000;"
              "darray_map_wr_window_ns=0;darray_cb_exchange_mbs=5000", true,
              2, true, 5000 + 6553.6 + S * (16 * 5000 + 65024.0), NULL);
  /* four processes on this node: S = 4 / cores where that is more than
   * one */
  double S4 = 4 > cores ? 4.0 / cores : 1;
  int nprocs = F.nprocs;
  hints("");
  F.nprocs = 4;
  F.node_procs = 4;
  F.io.map_ok = true;
  F.io.map_why = "";
  estimate_t e;
  estimate_64x256("mapped", 4, false, true, &e);
  if (!near(e.ns, 500 + 16384 * 0.1 + S4 * (20500 + 64768.0 / 25)))
    TU_FAIL("  mapped at 4 processes on %d cores: %f", cores, e.ns);
  F.nprocs = nprocs;
  F.io.map_ok = false;
  F.io.map_why = NULL;
  mapped_case("", false, 2, true, -1, "one node");
  mapped_case("", true, 1, true, -1, "more than one node");
  mapped_case("", true, 0, false, -1, "more than one node");
}

/* Static segmentation's groups: group i is the ranks [i P / A, (i + 1) P /
 * A), and the group of rank r the one that holds it, up to the largest
 * process count a virtual array may have (where (r + 1) A passes 2^31). */
static void static_groups(void) {
  const int P[] = {1, 3, 7, 1 << 24, (1 << 24) - 1};
  for (int i = 0; i < 5; i++) {
    int As[] = {1, 2, 3, P[i] / 2 + 1, P[i] - 1, P[i]};
    for (int a = 0; a < 6; a++) {
      int A = As[a] < 1 ? 1 : As[a] > P[i] ? P[i] : As[a];
      int probe[] = {0, P[i] / 2, P[i] > 1 ? P[i] - 2 : 0, P[i] - 1};
      for (int k = 0; k < 4; k++) {
        int r = probe[k], g = darray__static_group(r, P[i], A);
        if (!TU_CHECK(g >= 0 && g < A &&
                      darray__static_first(g, P[i], A) <= r &&
                      r < darray__static_first(g + 1, P[i], A)))
          TU_FAIL("  rank %d of %d in %d groups: group %d", r, P[i], A, g);
      }
    }
  }
}

/* ---- 1b. sieving, extents apart ------------------------------------------ */

/* One process's time under sieving by the model (doc/sieving.md): w =
 * ceil(E / W) windows of W = the hint in whole elements. */
static double sieve_rank(const access_rank_t *r, bool write, int64_t es,
                         bool *pays) {
  const darray_hints_t *h = &F.hints;
  double bw = 1000.0 / (double)h->ds_bandwidth_mbs;
  double lr = (double)h->ds_rd_latency_ns, lw = (double)h->ds_wr_latency_ns;
  int64_t hint = write ? h->ind_wr_buffer_size : h->ind_rd_buffer_size;
  int64_t W = hint >= es ? hint / es * es : es, E = r->hi - r->lo;
  double runs = (double)r->nruns * (write ? lw : lr) + (double)r->bytes * bw;
  double w = (double)((E + W - 1) / W);
  double sieved = write ? w * (3 * lr + lw) + 2.0 * (double)E * bw
                        : w * lr + (double)E * bw;
  *pays = E > r->bytes && r->nruns > 1 && sieved < runs;
  return *pays ? sieved : runs;
}

static void sieve_apart(void) {
  /* 24-byte elements, 100-byte buffers: windows of 96 bytes, so process
   * 0's 2400-byte extent takes 25 windows (not 24): reads 25 * 500 + 2400
   * * 0.2 = 12980 ns against 50 * 500 + 1200 * 0.2 = 25240 by runs;
   * process 1 gains nothing (5 windows for 2 runs) */
  access_rank_t r[2] = {{0, 2400, 50, 1200, 24, 24, 1, false},
                        {10000, 10480, 2, 96, 48, 48, 1, false}};
  access_t acc = summary(r, 2, false, 1);
  darray_t a = array(1000, 0, 24, 0);
  for (int w = 0; w <= 1; w++) {
    hints("ind_rd_buffer_size=100;ind_wr_buffer_size=100");
    call_t c;
    call_init(&c, a, 2, w, NULL, 0);
    bool p0, p1;
    double want = fmax(sieve_rank(&r[0], w, 24, &p0),
                       sieve_rank(&r[1], w, 24, &p1));
    TU_CHECK(p0 && !p1);
    TU_CHECK(near(want, w ? 163460 : 12980));
    estimate_t e = {0, ""};
    TU_OK(named("sieve")->estimate(&c.x, &acc, &e));
    if (!TU_EQ_STR(e.why, "") || !near(e.ns, want))
      TU_FAIL("  sieving apart, %s", w ? "write" : "read");
    F.io.rmw = false; /* writes: no read-modify-write, no sieving */
    e = (estimate_t){0, ""};
    TU_OK(named("sieve")->estimate(&c.x, &acc, &e));
    TU_CHECK(w ? e.why[0] != '\0' : near(e.ns, want));
    /* calls cost nothing: no hole is worth reading anywhere */
    hints("darray_ds_rd_latency_ns=0;darray_ds_wr_latency_ns=0");
    e = (estimate_t){0, ""};
    TU_OK(named("sieve")->estimate(&c.x, &acc, &e));
    TU_CONTAINS(e.why, "would not pay");
  }
  darray_free(&a);
}

/* ---- 1c. sieving, interleaved reads -------------------------------------- */

/* Windows of runs of `len` bytes every `every` bytes: holes join while
 * reading them costs no more than a call; cap bytes per window. */
static double sieve_windows(int64_t runs, int64_t len, int64_t every,
                            int64_t cap) {
  const darray_hints_t *h = &F.hints;
  double bw = 1000.0 / (double)h->ds_bandwidth_mbs;
  double lr = (double)h->ds_rd_latency_ns;
  bool join = (double)(every - len) * bw <= lr;
  double span = join ? (double)((runs - 1) * every + len)
                     : (double)(runs * len);
  double breaks = join ? 1 : (double)runs;
  return (breaks + span / (double)cap) * lr + span * bw;
}

/* 8 x 64 int32 read in two interleaved column boxes: process 0 columns
 * 0-15 (runs of 64 bytes every 256), process 1 columns 32-63 (128 every
 * 256). */
typedef struct columns {
  darray_t a;
  section_t mine;
  access_rank_t r[2];
  access_t acc;
} columns_t;

static void columns_init(columns_t *k) {
  int64_t start[2] = {0, 0}, count[2] = {8, 16};
  k->a = array(8, 64, 4, 0);
  darray__section_box(k->a, start, count, DARRAY_ORDER_C, &k->mine);
  k->r[0] = (access_rank_t){0, 1856, 8, 512, 64, 64, 1, false};
  k->r[1] = (access_rank_t){128, 2048, 8, 1024, 128, 128, 1, false};
  k->acc = summary(k->r, 2, true, 1);
}

/* A read of the columns under the hints in F. */
static void columns_call(columns_t *k, call_t *c) {
  const int64_t box1[4] = {0, 32, 8, 32};
  call_init(c, k->a, 2, false, &k->mine, 1);
  memcpy(c->boxes + 4, box1, sizeof box1);
}

static void sieve_interleaved(void) {
  columns_t k;
  columns_init(&k);
  const char *sets[3] = {NULL, "ind_rd_buffer_size=1000",
                         "darray_ds_rd_latency_ns=20;ind_rd_buffer_size=999"};
  for (int i = 0; i < 3; i++) {
    hints(sets[i]);
    call_t c;
    columns_call(&k, &c);
    int64_t cap = F.hints.ind_rd_buffer_size / 4 * 4;
    double want = fmax(sieve_windows(8, 64, 256, cap),
                       sieve_windows(8, 128, 256, cap));
    estimate_t e = {0, ""};
    TU_OK(named("sieve")->estimate(&c.x, &k.acc, &e));
    if (!TU_EQ_STR(e.why, "") || !near(e.ns, want))
      TU_FAIL("  sieving interleaved reads, hints '%s'",
              sets[i] ? sets[i] : "");
    c.x.write = true; /* the holes are the other's data */
    e = (estimate_t){0, ""};
    TU_OK(named("sieve")->estimate(&c.x, &k.acc, &e));
    TU_CHECK(e.why[0] != '\0');
  }
  /* the default case by hand: process 1, one window of 1920 bytes:
   * (1 + 1920 / 4194304) * 500 + 384 = 884.2289 ns */
  hints(NULL);
  TU_CHECK(near(sieve_windows(8, 128, 256, INT64_C(4) << 20),
                500.0 + 1920.0 * 500 / 4194304 + 384));
  darray_free(&k.a);
}

/* ---- 1d. direct runs ----------------------------------------------------- */

/* Process 0 of a 3 x 8 int32 array owns columns {0, 1} and {6, 7} of
 * every row: six runs of 8 bytes, where the end of a row touches the
 * start of the next: stretches of 1, 2, 2 and 1 runs. */
static void direct_touching(section_t *s) {
  memset(s, 0, sizeof *s);
  darray__dist_set_range(&s->set[0], 0, 3);
  s->set[1] = (dist_set_t){0, 2, 6, 2, 2};
  s->mem_stride[1] = 4;
  s->mem_stride[0] = 16;
  s->alloc_bytes = 48;
}

static void direct_estimates(void) {
  darray_t a = array(3, 8, 4, 0);
  section_t mine;
  direct_touching(&mine);
  /* cap = min(hint in elements, 48 bytes of data): 4 calls with a buffer
   * of 16 bytes or more (a stretch of two runs is one load), 6 with 8 */
  const struct {
    const char *set;
    int64_t calls;
  } k1[3] = {{NULL, 4}, {"ind_wr_buffer_size=16", 4},
             {"ind_wr_buffer_size=8;ind_rd_buffer_size=8", 6}};
  access_rank_t r[10];
  r[0] = (access_rank_t){0, 96, 6, 48, 8, 8, 1, false};
  for (int i = 0; i < 3; i++)
    for (int w = 0; w <= 1; w++) {
      hints(k1[i].set);
      call_t c;
      call_init(&c, a, 1, w, &mine, 1);
      access_t acc = summary(r, 1, false, 1);
      double lat = (double)(w ? F.hints.ds_wr_latency_ns
                              : F.hints.ds_rd_latency_ns);
      estimate_t e = {0, ""};
      TU_OK(named("direct")->estimate(&c.x, &acc, &e));
      if (!TU_EQ_STR(e.why, "") ||
          !near(e.ns, (double)k1[i].calls * lat + 48 * 0.2))
        TU_FAIL("  direct runs, hints '%s', %s",
                k1[i].set ? k1[i].set : "", w ? "write" : "read");
    }
  /* ten processes: eight are sampled (0, 1, 2, 3, 5, 6, 7, 8); the others
   * (4 and 9) are charged a call per run from the summary. Process 4 has
   * the most runs: its 40 calls are the estimate; given fewer, process 0's
   * four calls and 48 bytes are. */
  hints(NULL);
  call_t c;
  call_init(&c, a, 10, false, &mine, 1);
  for (int i = 1; i < 10; i++) {
    int64_t b[4] = {0, 2, 3, 1}; /* column 2: three runs of 4 bytes */
    memcpy(c.boxes + 4 * i, b, sizeof b);
    r[i] = (access_rank_t){8, 76, 3, 12, 4, 4, 1, false};
  }
  r[4].nruns = 40;
  access_t acc = summary(r, 10, true, 1);
  estimate_t e = {0, ""};
  TU_OK(named("direct")->estimate(&c.x, &acc, &e));
  TU_CHECK(near(e.ns, 40 * 500 + 12 * 0.2));
  r[4].nruns = 3;
  TU_OK(named("direct")->estimate(&c.x, &acc, &e));
  TU_CHECK(near(e.ns, 4 * 500 + 48 * 0.2));
  darray_free(&a);
}

/* ---- 2. the rules, on stand-ins ------------------------------------------ */

/* Stand-ins at the table's places: a (no switch), c (collective, switched
 * by romio_cb_*) and s (switched by romio_ds_*); darray_strategy names
 * them by the real table's names at the same places (direct, static,
 * rows). NAN: not a candidate. */
static double stand_in[3];

static int stand_in_estimate(int i, estimate_t *e) {
  if (isnan(stand_in[i]))
    snprintf(e->why, sizeof e->why, "stand-in %d is not", i);
  else
    e->ns = stand_in[i];
  return DARRAY_SUCCESS;
}

static int est_a(const xfer_t *x, const access_t *acc, estimate_t *e) {
  (void)x, (void)acc;
  return stand_in_estimate(0, e);
}
static int est_c(const xfer_t *x, const access_t *acc, estimate_t *e) {
  (void)x, (void)acc;
  return stand_in_estimate(1, e);
}
static int est_s(const xfer_t *x, const access_t *acc, estimate_t *e) {
  (void)x, (void)acc;
  return stand_in_estimate(2, e);
}

static const strategy_t sa = {.name = "a", .estimate = est_a};
static const strategy_t sc = {.name = "c",
                              .collective = true,
                              .switches = {"romio_cb_read", "romio_cb_write"},
                              .estimate = est_c};
static const strategy_t ss = {.name = "s",
                              .switches = {"romio_ds_read", "romio_ds_write"},
                              .estimate = est_s};
static const strategy_t *const stand_ins[] = {&sa, &sc, &ss, NULL};

typedef struct rule_case {
  const char *hints;
  bool write, inter;
  double a, c, s;
  const char *want; /* the entry chosen */
  bool forced;      /* by a hint (rule 1) */
  const char *why;  /* in the reason */
} rule_case_t;

static const rule_case_t rules[] = {
    /* 4: the cheapest; ties to the later entry */
    {"", true, true, 10, 5, 7, "c", false, "its estimate, 0.005 us, is the "
                                           "lowest"},
    {"", false, true, 5, 5, NAN, "c", false, "processes interleave;"},
    {"", false, false, 5, NAN, 5, "s", false, "do not interleave"},
    {"", false, true, 5, 6, 5, "s", false, "lowest"},
    {"", false, false, 5, NAN, NAN, "a", false, "the only candidate"},
    {"", false, false, NAN, NAN, NAN, "a", false, "no strategy is a cand"},
    /* 1: forcing hints, the table's first forced entry */
    {"darray_strategy=direct;romio_cb_write=enable", true, true, 9, 1, 1,
     "a", true, "darray_strategy=a"},
    {"darray_strategy=sieve;romio_cb_write=enable", true, true, 1, 9, 1, "c",
     true, "romio_cb_write=enable"},
    {"romio_cb_write=enable", true, false, 1, NAN, 1, "c", true,
     "romio_cb_write=enable"},
    {"romio_cb_write=enable", false, true, 1, 5, 7, "a", false, "lowest"},
    {"darray_strategy=static", false, false, 1, NAN, 1, "c", true,
     "darray_strategy=c"},
    {"darray_strategy=rows;romio_ds_read=disable", false, true, 1, 1, 9,
     "s", true, "darray_strategy=s"},
    /* 2: a switch set to disable */
    {"romio_ds_read=disable", false, false, 10, NAN, 1, "a", false,
     "the only candidate"},
    {"romio_cb_read=disable", false, false, 10, 1, 2, "s", false, "lowest"},
    /* 3: no collective candidate */
    {"romio_cb_read=disable", false, true, 10, 1, 2, "a", false,
     "interleave but no collective"},
    {"romio_ds_write=enable", true, true, 10, NAN, NAN, "s", false,
     "romio_ds_write=enable and no collective"},
    {"romio_ds_write=enable", true, false, 1, NAN, 9, "s", false,
     "romio_ds_write=enable"},
    {"romio_ds_write=enable", true, true, 10, 5, 1, "s", false, "lowest"},
    {"romio_ds_write=enable", true, true, 10, 5, NAN, "c", false, "lowest"},
    {"romio_ds_read=enable;romio_cb_read=disable", false, true, 1, 0, 9, "s",
     false, "romio_ds_read=enable"},
    {"romio_ds_read=disable;romio_cb_read=disable", false, true, 9, 0, 1,
     "a", false, "only candidate"},
};

/* What the planner must say of entry i: NULL when it is a candidate with
 * its stand-in's estimate, else a piece of why it is not. */
static const char *set_aside(const rule_case_t *k, int i, const char **key) {
  static const char *const keys[2][2] = {{"romio_cb_read", "romio_ds_read"},
                                         {"romio_cb_write",
                                          "romio_ds_write"}};
  int cb = darray__hints_enum(&F.hints, keys[k->write][0]);
  int ds = darray__hints_enum(&F.hints, keys[k->write][1]);
  bool collective = !isnan(k->c) && cb != DARRAY_TRI_DISABLE;
  *key = i == 0 ? "" : keys[k->write][i - 1];
  if ((i == 1 && cb == DARRAY_TRI_DISABLE) ||
      (i == 2 && ds == DARRAY_TRI_DISABLE))
    return "=disable";
  if (isnan(stand_in[i]))
    return "stand-in";
  if (i == 2 && !collective && k->inter && ds == DARRAY_TRI_AUTO)
    return "no collective strategy is a candidate";
  return NULL;
}

static void check_rule(const rule_case_t *k) {
  hints(k->hints);
  darray_t a = array(4, 4, 4, 0);
  access_rank_t r[2] = {{0, 64, 4, 32, 8, 8, 1, false},
                        {8, 64, 4, 32, 8, 8, 1, false}};
  access_t acc = summary(r, 2, k->inter, 1);
  call_t c;
  call_init(&c, a, 2, k->write, NULL, 0);
  stand_in[0] = k->a, stand_in[1] = k->c, stand_in[2] = k->s;
  plan_t p;
  TU_OK(darray__plan_decide(&c.x, stand_ins, &acc, &p));
  int ok = TU_EQ_INT(p.n, 3) && TU_EQ_STR(p.s->name, k->want) &&
           TU_EQ_INT(p.forced, k->forced) && TU_CONTAINS(p.why, k->why);
  for (int i = 0; i < 3 && ok; i++) {
    const char *key, *aside = set_aside(k, i, &key);
    if (aside == NULL)
      ok = TU_EQ_STR(p.est[i].why, "") && near(p.est[i].ns, stand_in[i]);
    else
      ok = TU_CONTAINS(p.est[i].why, aside) &&
           (strcmp(aside, "=disable") != 0 || TU_CONTAINS(p.est[i].why, key));
  }
  if (!ok)
    TU_FAIL("  hints '%s', %s, %s: chose %s because %s", k->hints,
            k->write ? "write" : "read", k->inter ? "interleaved" : "apart",
            p.s->name, p.why);
  darray_free(&a);
}

/* Each line of the strategy table is the one its word in
 * DARRAY_STRATEGY_LIST names, and its .name is that word: the table is
 * built from the list (&darray__strategy_WORD, call/strategies.c), and
 * the core takes the list's words, not the lines' names, as the values of
 * darray_strategy (hints.c), so a line whose name differs from its word
 * would be chosen by one name and reported by another. The names live in
 * the strategies' own files, so no compiler sees both to compare. */
static void table_names(void) {
#define WORD(name) #name,
  static const char *const words[] = {DARRAY_STRATEGY_LIST(WORD) NULL};
#undef WORD
  int n = 0;
  for (; darray__strategies[n] != NULL; n++) {
    if (words[n] == NULL) {
      TU_FAIL("table line %d (%s) past the list's end", n,
              darray__strategies[n]->name);
      break;
    }
    TU_EQ_STR(darray__strategies[n]->name, words[n]);
  }
  TU_EQ_INT(n, DARRAY_STRATEGY_COUNT);
}

/* darray_strategy takes the table's names, and auto. */
static void strategy_hint(void) {
  char v[32], msg[256] = "";
  for (int i = 0; darray__strategies[i] != NULL; i++) {
    char set[64];
    snprintf(set, sizeof set, "darray_strategy=%s",
             darray__strategies[i]->name);
    hints(set);
    TU_EQ_INT(F.hints.strategy, i + 1);
    TU_OK(darray__hints_get(&F.hints, "darray_strategy", v, sizeof v));
    TU_EQ_STR(v, darray__strategies[i]->name);
  }
  hints(NULL);
  TU_OK(darray__hints_get(&F.hints, "darray_strategy", v, sizeof v));
  TU_EQ_STR(v, "auto");
  TU_EQ_CODE(darray__hints_parse_string(&F.hints, "darray_strategy=gangs",
                                        msg, sizeof msg),
             DARRAY_EHINT);
  TU_CONTAINS(msg, "auto, direct, static, rows, twophase, sieve, groups");
}

/* ---- 3. the real table --------------------------------------------------- */

static void real_table(void) {
  /* collective buffering off, interleaved reads: sieving would be the
   * cheapest (1c) but is left automatic, so direct runs */
  columns_t k;
  columns_init(&k);
  call_t c;
  plan_t p;
  const char *sets[2] = {"", "romio_cb_read=disable"};
  const char *want[2] = {"sieve", "direct"};
  for (int i = 0; i < 2; i++) {
    hints(sets[i]);
    F.hints.cb_cycle_ns = 1000000; /* more processes than cores */
    columns_call(&k, &c);
    TU_OK(darray__plan_decide(&c.x, darray__strategies, &k.acc, &p));
    if (!TU_EQ_STR(p.s->name, want[i]))
      TU_FAIL("  interleaved reads, hints '%s': %s", sets[i], p.why);
  }
  darray_free(&k.a);
  /* apart: process 0 reads 10 runs of 4 bytes 8 KiB apart (no hole worth
   * reading: 10 calls, 5008 ns), process 1 two runs of 8160 bytes 32 apart
   * (one window, 3770.4 ns against 4264 by runs). Sieving does not speed
   * up the slowest process, but ties with direct runs and saves process 1
   * a call: it wins the tie. */
  hints(NULL);
  darray_t a = array(16, 2048, 4, 0);
  section_t mine;
  int64_t s0[2] = {0, 0}, n0[2] = {10, 1};
  darray__section_box(a, s0, n0, DARRAY_ORDER_C, &mine);
  access_rank_t q[2] = {{0, 9 * 8192 + 4, 10, 40, 4, 4, 1, false},
                        {81920, 81920 + 8192 + 8160, 2, 16320, 8160, 8160, 1,
                         false}};
  access_t acc = summary(q, 2, false, 1);
  call_init(&c, a, 2, false, &mine, 1);
  int64_t box1[4] = {10, 0, 2, 2040};
  memcpy(c.boxes + 4, box1, sizeof box1);
  TU_OK(darray__plan_decide(&c.x, darray__strategies, &acc, &p));
  TU_EQ_STR(p.s->name, "sieve");
  TU_CHECK(near(p.est[0].ns, 5008) && near(p.est[4].ns, 5008));
  TU_CONTAINS(p.est[3].why, "do not interleave"); /* two-phase */
  TU_CONTAINS(p.est[2].why, "section calls"); /* rows */
  TU_CONTAINS(p.est[1].why, "do not interleave"); /* static */
  darray_free(&a);
}

/* ---- 4. the summary's verdicts ------------------------------------------- */

static void totals(void) {
  /* an empty process in the middle, extents [0, 40) and [40, 100): apart,
   * dense; then [0, 40) and [20, 100): interleaved, 20 bytes counted
   * twice, not dense */
  access_rank_t r[3] = {{0, 40, 2, 40, 20, 20, 1, true},
                        {0, 0, 0, 0, 0, 0, 1, true},
                        {40, 100, 3, 60, 20, 20, 1, true}};
  access_t acc = {3, r, -1, -1, -1, -1, false, true, 1};
  TU_OK(darray__access_totals(&acc));
  TU_EQ_I64(acc.lo, 0);
  TU_EQ_I64(acc.hi, 100);
  TU_EQ_I64(acc.nruns, 5);
  TU_EQ_I64(acc.bytes, 100);
  TU_CHECK(acc.dense && !acc.interleaved);
  r[2].lo = 20;
  r[2].bytes = 80;
  TU_OK(darray__access_totals(&acc));
  TU_CHECK(!acc.dense && acc.interleaved);
  acc.P = 1; /* one process interleaves with nobody */
  TU_OK(darray__access_totals(&acc));
  TU_CHECK(acc.dense && !acc.interleaved);
  /* section boxes that overlap: their bytes add up past INT64_MAX, and
   * the sum stops there (not dense, no overflow) */
  const int64_t big = INT64_C(3) << 61;
  r[0] = (access_rank_t){0, big, 1, big, big, big, 1, true};
  r[1] = r[0];
  acc.P = 2;
  TU_OK(darray__access_totals(&acc));
  TU_EQ_I64(acc.bytes, INT64_MAX);
  TU_EQ_I64(acc.hi, big);
  TU_CHECK(!acc.dense && acc.interleaved);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  table_names(); /* first: the cases below find lines by their names */
  twophase_estimates();
  striped_estimates();
  rows_estimates();
  static_estimates();
  static_groups();
  groups_estimates();
  mapped_estimates();
  sieve_apart();
  sieve_interleaved();
  direct_estimates();
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    check_rule(&rules[i]);
  strategy_hint();
  real_table();
  totals();
  return tu_finish();
}
