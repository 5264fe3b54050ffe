/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_domain.c - two-phase's file domains and chunks, from numbers alone.
 *
 * The union of every process's extent is split evenly into one domain
 * per aggregator (moved to the striping unit and to element boundaries),
 * and each domain is moved in chunks of C bytes, one per cycle. How large
 * C and the message buffer M are follows from cb_buffer_size and the
 * buffers the call needs; both the strategy's preparation (twophase.c)
 * and its estimate for the planner size them here, so the planner counts
 * the cycles the strategy runs. The cost model over domains
 * (darray__tp_cost: the estimate's, and what weighs logical against
 * layout domains) is here too, beside the sizes it is made of, so that
 * twophase.c calls this file and never the other way round.
 */
#include "twophase.h"

bool darray__tp_weigh(const xfer_t *x, const access_t *acc,
                      const tp_domains_t *d, double *ns_layout,
                      double *ns_logical) {
  const darray_hints_t *h = &x->f->hints;
  tp_domains_t logical = *d, layout = *d;
  logical.layout = false;
  layout.layout = true;
  if (h->cb_domains != DARRAY_DOMAINS_AUTO || h->striping_unit <= 0 ||
      !darray__tp_layout_wanted(&logical, h))
    return false;
  *ns_layout = darray__tp_cost(x, acc, &layout);
  *ns_logical = darray__tp_cost(x, acc, &logical);
  return true;
}

void darray__tp_domains(const xfer_t *x, const access_t *acc,
                        tp_domains_t *d) {
  const darray_hints_t *h = &x->f->hints;
  const darray_desc_t *a = &x->a->d;
  int P = acc->P;
  *d = (tp_domains_t){acc->lo, acc->hi,
                      h->cb_nodes > 0 && h->cb_nodes < P ? (int)h->cb_nodes
                                                         : P,
                      a->disp, a->esize, h->striping_unit,
                      h->striping_factor, false,
                      h->direct_write == 1 ? DARRAY_DIO_PAGE : 0};
  double ns_layout, ns_logical;
  d->layout = darray__tp_weigh(x, acc, d, &ns_layout, &ns_logical)
                  ? ns_layout < ns_logical
                  : darray__tp_layout_wanted(d, h);
  if (d->su <= 0 && d->dio > 0 && d->dio % d->es == 0)
    d->su = d->dio; /* boundaries on whole pages for direct writes (not
                       a striping: layout domains stay off) */
}

int darray__tp_agg_rank(int i, int P, int A) {
  return (int)((int64_t)i * P / A);
}

/* The smallest base + k * unit (k >= 0) at or after b, or hi when that
 * lies past hi (base <= hi, unit >= 1): b + unit - 1 may pass INT64_MAX
 * when the array ends near it, so the remainder is taken first. */
int64_t darray__tp_round_up(int64_t b, int64_t base, int64_t unit,
                            int64_t hi) {
  if (b <= base)
    return base;
  int64_t r = (b - base) % unit;
  if (r == 0)
    return b;
  return b - r > hi - unit ? hi : b - r + unit;
}

/* An even split of [lo, hi), moved to the nearest striping_unit boundary
 * if that hint is set, then up to an element boundary so that no element
 * is split between domains or chunks. Every step stays within [0, hi]: an
 * array may end at INT64_MAX. */
int64_t darray__tp_boundary(const tp_domains_t *d, int i) {
  if (i <= 0)
    return d->lo;
  if (i >= d->A)
    return d->hi;
  int64_t span = d->hi - d->lo, su = d->su;
  /* lo + span * i / A without forming span * i */
  int64_t b = d->lo + span / d->A * i + span % d->A * i / d->A;
  if (su > 0) /* to the nearest multiple of su; halves round up */
    b = b % su < su - su / 2 ? b - b % su
                             : darray__tp_round_up(b, 0, su, d->hi);
  b = darray__tp_round_up(b, d->disp, d->es, d->hi);
  return b < d->lo ? d->lo : b > d->hi ? d->hi : b;
}

/* Where the chunks of a logical domain starting at dlo are counted
 * from: dlo, or with direct writes the page at or before it, so that
 * every chunk but the first (cut short) starts on a page and may be
 * written around the page cache, whatever the displacement; only where
 * pages fall on element boundaries (chunks end on them). */
static int64_t chunk_base(const tp_domains_t *d, int64_t dlo) {
  if (d->dio <= 0 || d->dio % d->es != 0 || d->disp % d->es != 0)
    return dlo;
  return dlo - dlo % d->dio;
}

/* Logical domains: cycle `cycle` covers [base + cycle * C, + C) of the
 * domain [dlo, dhi) (base: chunk_base), from dlo for the first; past the
 * domain's end the chunk is empty, at dhi. The offsets are compared as
 * distances from base, never formed past dhi, which may be INT64_MAX. */
bool darray__tp_part(const tp_domains_t *d, int64_t C, int i, int64_t cycle,
                     int64_t j, int64_t *plo, int64_t *phi) {
  if (d->layout)
    return darray__tp_layout_part(d, C, i, cycle, j, plo, phi);
  if (j > 0)
    return false;
  int64_t dlo = darray__tp_boundary(d, i), dhi = darray__tp_boundary(d, i + 1);
  int64_t base = chunk_base(d, dlo), len = dhi - base;
  if (dhi <= dlo || cycle > (len - 1) / C) {
    *plo = *phi = dhi;
    return true;
  }
  int64_t at = cycle * C; /* < len */
  *plo = cycle == 0 ? dlo : base + at;
  *phi = len - at > C ? base + at + C : dhi;
  return true;
}

int64_t darray__tp_parts_max(const tp_domains_t *d, int64_t C) {
  int64_t most = 1;
  for (int i = 0; d->layout && i < d->A; i++) {
    int64_t m = darray__tp_layout_parts(d, i, C);
    most = m > most ? m : most;
  }
  return most;
}

bool darray__tp_split(const tp_domains_t *d, int64_t C, int64_t M, int P) {
  int64_t m = darray__tp_parts_max(d, C);
  /* the shortest block: the fewest stripes an aggregator has per round */
  int64_t width = d->A < d->S ? d->S / d->A : 1, shortest;
  if (!darray__mul_ok(width, d->su, &shortest))
    shortest = INT64_MAX;
  return m > 1 && shortest >= M &&
         m <= TP_SPLIT_REQUESTS / ((int64_t)P + d->A);
}

bool darray__tp_busy(const tp_domains_t *d, int64_t C, int i, int64_t cycle) {
  int64_t plo, phi;
  for (int64_t j = 0; darray__tp_part(d, C, i, cycle, j, &plo, &phi); j++)
    if (plo < phi)
      return true;
  return false;
}

void darray__tp_domain_len(const tp_domains_t *d, int i, int64_t *total,
                           int64_t *most) {
  if (d->layout) {
    darray__tp_layout_len(d, i, total, most);
    return;
  }
  int64_t dlo = darray__tp_boundary(d, i), dhi = darray__tp_boundary(d, i + 1);
  *total = dhi - dlo;
  *most = dhi > dlo ? dhi - chunk_base(d, dlo) : 0; /* one chunk's span */
}

int64_t darray__tp_domain_cycles(const tp_domains_t *d, int i, int64_t C) {
  if (d->layout)
    return darray__tp_layout_cycles(d, i, C);
  int64_t dlo = darray__tp_boundary(d, i), dhi = darray__tp_boundary(d, i + 1);
  if (dhi <= dlo)
    return 0;
  int64_t len = dhi - chunk_base(d, dlo);
  return len / C + (len % C != 0); /* len + C may overflow */
}

/* The logical domain holding off: the last i whose boundary is <= off
 * (boundaries never decrease). */
static int logical_domain(const tp_domains_t *d, int64_t off) {
  int lo = 0, hi = d->A - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (darray__tp_boundary(d, mid) <= off)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

void darray__tp_locate(const tp_domains_t *d, int64_t C, int64_t off,
                       int *agg, int64_t *cycle, int64_t *chi) {
  if (d->layout) {
    darray__tp_layout_locate(d, C, off, agg, cycle, chi);
    return;
  }
  int i = logical_domain(d, off);
  int64_t dlo = darray__tp_boundary(d, i), dhi = darray__tp_boundary(d, i + 1);
  int64_t base = chunk_base(d, dlo);
  *agg = i;
  *cycle = (off - base) / C;
  *chi = dhi - base - *cycle * C > C ? base + (*cycle + 1) * C : dhi;
}

void darray__tp_chunks(const tp_domains_t *d, int64_t cb, int parts,
                       tp_sizes_t *s) {
  int64_t es = d->es;
  s->parts = parts;
  s->M = cb / 4 / es * es;
  if (s->M < es)
    s->M = es;
  s->C = (cb - s->M) / parts / es * es;
  if (s->C < es && s->M > es) { /* a smaller M before chunks too small */
    s->M = es;
    s->C = (cb - s->M) / parts / es * es;
  }
  if (s->C < es)
    s->C = es;
  if (d->dio > 0 && d->dio % es == 0 && s->C >= d->dio)
    s->C -= s->C % d->dio; /* chunks of whole pages for direct writes */
  s->dmax = 0; /* the largest domain */
  int64_t most = 0; /* the largest chunk a domain can use */
  for (int i = 0; i < d->A; i++) {
    int64_t len, use;
    darray__tp_domain_len(d, i, &len, &use);
    s->dmax = len > s->dmax ? len : s->dmax;
    most = use > most ? use : most;
  }
  if (most > 0 && s->C > most) /* whole elements: domains and blocks */
    s->C = (most + es - 1) / es * es; /* start on element bounds, end on
                                          them or at hi */
  if (s->M > s->C)
    s->M = s->C;
  s->ntimes = s->cmax = 0;
  for (int i = 0; i < d->A; i++) {
    int64_t n = darray__tp_domain_cycles(d, i, s->C), len, use;
    s->ntimes = n > s->ntimes ? n : s->ntimes;
    if (d->layout) {
      len = darray__tp_layout_chunk_max(d, i, s->C);
    } else {
      darray__tp_domain_len(d, i, &len, &use);
      len = len < s->C ? len : s->C;
    }
    s->cmax = len > s->cmax ? len : s->cmax;
  }
  /* a message is M bytes or less, and MPI counts them in an int; then
   * C <= max(cb, M) < 2^31 and the sum cannot overflow */
  s->need = s->M <= INT32_MAX ? s->M + parts * s->C : INT64_MAX;
}

/* Whether the buffers of s fit in darray_temp_limit (0: no limit) and in
 * MPI's int counts; sets s->refuse. */
static bool fits(const darray_hints_t *h, tp_sizes_t *s) {
  int64_t lim = h->temp_limit;
  s->refuse = s->M > INT32_MAX                 ? TP_HUGE_ELEMENT
              : lim > 0 && s->need > lim ? TP_OVER_LIMIT
                                               : TP_FITS;
  return s->refuse == TP_FITS;
}

void darray__tp_size(const tp_domains_t *d, const darray_hints_t *h,
                     bool write, const access_t *acc, tp_sizes_t *s) {
  s->image = acc->nruns > 0 && acc->bytes / acc->nruns < h->cb_image_piece;
  /* direct writes leave from the page-aligned image of a chunk: the
   * pieces of a vector call lie where the others' streams and the
   * caller's buffer put them */
  if (write && d->dio > 0)
    s->image = true;
  int parts = (write ? 1 : acc->depth) + s->image;
  darray__tp_chunks(d, h->cb_buffer_size, parts, s);
  /* pipelined writes need a second staging slot: worth it with two
   * aggregators or more taking turns and two cycles or more */
  int pl = h->cb_pipeline;
  s->pipeline = write && pl != DARRAY_TRI_DISABLE &&
                (pl == DARRAY_TRI_ENABLE || (d->A >= 2 && s->ntimes >= 2));
  fits(h, s);
  if (!s->pipeline || s->refuse == TP_HUGE_ELEMENT)
    return;
  darray__tp_chunks(d, h->cb_buffer_size, parts + 1, s);
  /* whole elements can make the buffers exceed cb_buffer_size, and so
   * darray_temp_limit: the automatic pipeline gives up its second buffer
   * first */
  if (!fits(h, s) && pl == DARRAY_TRI_AUTO) {
    s->pipeline = false;
    darray__tp_chunks(d, h->cb_buffer_size, parts, s);
    fits(h, s);
  }
}

/* ---- the cost model ---------------------------------------------------- */

/*
 * The call's time (ns) by the sieving model's latencies and bandwidth (B)
 * plus an exchange rate (darray_cb_exchange_mbs, each byte counted when
 * sent and when received) and a synchronization cost per cycle
 * (darray_cb_cycle_ns, measured when the file opens): the largest domain
 * at B (on a striped file, at least the bytes of the busiest aggregator
 * -- its domain, or ntimes of the largest chunks if less -- at B, each
 * further aggregator that meets it on one server in a cycle adding
 * darray_server_contention percent: tp_servers.c), plus
 * ntimes cycles of one file call and one synchronization each (and for
 * a layout chunk of several parts, what the parts add: a message each to
 * each other aggregator, darray_cb_message_ns, or a pack of the bytes),
 * plus the exchange of every process's data that lives in other domains
 * (the slowest process's bytes, (P - 1) / P of them, both ways); where
 * writes are pipelined (darray_cb_pipeline) the exchange of the next
 * chunk runs while this one is written, so the two terms count as the
 * longer plus one chunk's share of the shorter (measured: DIST3D N=256
 * at 2 processes writes 1.35x faster pipelined than rows, whose windows
 * exchange, then write). Domains
 * and ntimes are the strategy's own (darray__tp_size), so the estimate
 * counts the cycles prepare will run. Only interleaved extents are worth
 * exchanging: otherwise every process moves its own runs at no cost of
 * communication.
 */
double darray__tp_cost(const xfer_t *x, const access_t *acc,
                       const tp_domains_t *d) {
  const darray_hints_t *h = &x->f->hints;
  tp_sizes_t s;
  darray__tp_size(d, h, x->write, acc, &s);
  cost_rates_t c = darray__cost_rates(x);
  double bw = c.bw, xw = c.xw, lat = c.lat, sync = c.cyc;
  int64_t most = darray__access_most(acc);
  /* on a striped file, each further aggregator that meets on a server in
   * a cycle adds darray_server_contention percent of the server's work */
  double file = (double)s.dmax * bw;
  double moved = (double)s.ntimes * (double)s.cmax; /* the most chunks */
  moved = (double)s.dmax < moved ? (double)s.dmax : moved;
  double meet = d->su > 0 && d->S > 0 ? darray__tp_meet(d, s.C) : 1;
  double served = (1 + (meet - 1) * (double)h->server_contention / 100) *
                  moved * bw;
  double servers = darray__servers_ns(
      x, (double)d->A * (double)s.ntimes * lat + (double)(d->hi - d->lo) * bw);
  file = served > file ? served : file;
  file = servers > file ? servers : file;
  double xch = 2.0 * (double)most * (acc->P - 1) / acc->P * xw;
  /* pipelined writes exchange chunk c + 1 while chunk c is written: the
   * longer of the two, plus one chunk's share of the shorter */
  double cyc = (double)s.ntimes * (lat + sync);
  /* a layout chunk of several parts: its streams go as a message per part,
   * each one more handshake with each other aggregator, or are packed by
   * their owners (a copy of their bytes): the process's own work either
   * way, which does not hide behind its own file call (cyc) */
  int64_t parts = d->layout ? darray__tp_parts_max(d, s.C) : 1;
  if (parts > 1 && darray__tp_split(d, s.C, s.M, acc->P))
    cyc += (double)s.ntimes * (double)(parts - 1) * (double)(d->A - 1) *
           (double)h->cb_message_ns;
  else if (parts > 1)
    cyc += (double)most * (acc->P - 1) / acc->P * xw;
  if (s.pipeline && s.ntimes >= 2)
    return (file > xch ? file : xch) +
           (file > xch ? xch : file) / (double)s.ntimes + cyc;
  return file + cyc + xch; /* summed in rows' order: where the two move
                              alike they tie */
}
