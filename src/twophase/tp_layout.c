/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_layout.c - layout-aware file domains (LACIO: Chen, Sun, Thakur, Roth
 * and Gropp): on a file striped over S servers in stripes of su bytes
 * (stripe k on server k mod S), domains split evenly by offset put every
 * aggregator, in the same cycle, at the same place of its domain, so that
 * all of them meet on a few servers while the others idle. Layout domains
 * give each aggregator the stripes of its own servers instead:
 *
 *  - A <= S: aggregator i serves servers [i S / A, (i + 1) S / A); in each
 *    round of S stripes its stripes are one contiguous block of the file;
 *  - A > S: the A / S (or one more) aggregators of a server share its
 *    stripes, each a contiguous run of them in file order, one block per
 *    stripe.
 *
 * An aggregator moves its blocks in file order (the server's physical
 * order), as one stream cut into chunks of at most C bytes (below): a
 * chunk holds as many blocks as fit, its parts, each a contiguous range of
 * the file (one aggregator's stripes of several rounds, which on the
 * server are one contiguous extent), and pieces of the blocks at its
 * ends. Every cycle of an aggregator stays on its own servers, and the
 * cycles are those of logical domains: neither a short stripe (with one
 * stripe per chunk a 64 KiB stripe cost 8 to 20 times the cycles) nor a
 * block that does not fit a chunk a whole number of times (a 1 MiB block
 * in a 1.5 MiB chunk cost 1.5 times) multiplies them. Block and chunk
 * boundaries are moved up to element boundaries (an element is never
 * split between chunks), clipped to the access's extent [lo, hi).
 *
 * Everything is numbers, the same on every process (no exchange): the
 * strategy's preparation, its estimate and darray_plan_virtual's tally
 * size the same chunks.
 */
#include "twophase.h"

#include <stdio.h>

/* Stripe index of the first and the last byte of [lo, hi). */
static int64_t first_stripe(const tp_domains_t *d) { return d->lo / d->su; }
static int64_t last_stripe(const tp_domains_t *d) {
  return (d->hi - 1) / d->su;
}

/* Where stripe k's block begins: k su moved up to an element boundary,
 * clipped to [lo, hi]. */
static int64_t stripe_start(const tp_domains_t *d, int64_t k) {
  if (k <= first_stripe(d))
    return d->lo;
  if (k > last_stripe(d))
    return d->hi;
  int64_t b = darray__tp_round_up(k * d->su, d->disp, d->es, d->hi);
  return b < d->lo ? d->lo : b > d->hi ? d->hi : b;
}

/* Aggregator i's blocks: block b covers stripes [first + b step,
 * first + b step + width); nb blocks. */
typedef struct share {
  int64_t first, step, width, nb;
} share_t;

/* n * j / g without forming n * j (n may be near 2^63 stripes). */
static int64_t part(int64_t n, int64_t j, int64_t g) {
  return n / g * j + n % g * j / g;
}

/* The aggregators of server s (A > S): [*g0, *g1). */
static void server_group(const tp_domains_t *d, int64_t s, int64_t *g0,
                         int64_t *g1) {
  int64_t A = d->A, S = d->S;
  *g0 = (s * A + S - 1) / S;
  *g1 = ((s + 1) * A + S - 1) / S;
}

/* Server s's stripes in [first_stripe, last_stripe]: s + S m for m in
 * [*m0, *m0 + *n). */
static void server_stripes(const tp_domains_t *d, int64_t s, int64_t *m0,
                           int64_t *n) {
  int64_t k0 = first_stripe(d), k1 = last_stripe(d), S = d->S;
  *m0 = k0 <= s ? 0 : (k0 - s + S - 1) / S;
  int64_t m1 = k1 < s ? -1 : (k1 - s) / S;
  *n = m1 >= *m0 ? m1 - *m0 + 1 : 0;
}

void darray__tp_layout_servers(const tp_domains_t *d, int i, int64_t *s0,
                               int64_t *s1) {
  int64_t A = d->A, S = d->S;
  if (A <= S) {
    *s0 = (int64_t)i * S / A;
    *s1 = ((int64_t)i + 1) * S / A;
  } else {
    *s0 = (int64_t)i * S / A;
    *s1 = *s0 + 1;
  }
}

static void share_of(const tp_domains_t *d, int i, share_t *sh) {
  int64_t s0, s1, S = d->S;
  darray__tp_layout_servers(d, i, &s0, &s1);
  if (d->A <= S) {
    int64_t r0 = first_stripe(d) / S, r1 = last_stripe(d) / S;
    *sh = (share_t){r0 * S + s0, S, s1 - s0, r1 - r0 + 1};
    return;
  }
  int64_t g0, g1, m0, n;
  server_group(d, s0, &g0, &g1);
  server_stripes(d, s0, &m0, &n);
  int64_t j = i - g0, g = g1 - g0;
  int64_t jlo = part(n, j, g), jhi = part(n, j + 1, g);
  *sh = (share_t){s0 + S * (m0 + jlo), S, 1, jhi - jlo};
}

/* Block b of a share: [*blo, *bhi). */
static void block(const tp_domains_t *d, const share_t *sh, int64_t b,
                  int64_t *blo, int64_t *bhi) {
  int64_t k = sh->first + b * sh->step;
  *blo = stripe_start(d, k);
  *bhi = stripe_start(d, k + sh->width);
}

/* The longest block a share can have: its stripes plus an element (the
 * rounding moves both ends), at most the extent. */
static int64_t block_max(const tp_domains_t *d, const share_t *sh) {
  int64_t len;
  if (!darray__mul_ok(sh->width, d->su, &len) ||
      !darray__add_ok(len, d->es, &len) || len > d->hi - d->lo)
    len = d->hi - d->lo;
  return len;
}

void darray__tp_layout_len(const tp_domains_t *d, int i, int64_t *total,
                           int64_t *most) {
  share_t sh;
  share_of(d, i, &sh);
  int64_t blk = sh.nb > 0 ? block_max(d, &sh) : 0;
  if (!darray__mul_ok(sh.nb, blk, most))
    *most = INT64_MAX;
  *total = *most < d->hi - d->lo ? *most : d->hi - d->lo;
}

/* ---- chunks: an aggregator's blocks as one stream ----------------------
 *
 * An aggregator's blocks, one after another, are its stream: block b is
 * nominally L = width su bytes (its stripes, before their ends move up to
 * elements), less what lies before lo in the first block and past hi in
 * the last. Chunk c is the stream's nominal bytes [c Cn, (c + 1) Cn):
 * every chunk but the last is full, whether blocks are shorter than a
 * chunk (a chunk holds several of them, its parts: one aggregator's
 * stripes of several rounds, which on a server are one contiguous extent)
 * or longer (a chunk may hold the end of one block and the start of the
 * next). A part is the piece of one block a chunk holds, mapped to the
 * file, its ends moved up to element boundaries (at). That moves each
 * part's end by less than an element, so a chunk may grow by (es - 1)
 * bytes for every part it has, and Cn is C less that. Where stripes hold
 * whole elements (L and Cn multiples of es) a block's ends move alike, and
 * a chunk grows by less than one element (its two ends' moves; the moves
 * between its parts cancel), or not at all when the displacement is a
 * multiple of es too (every boundary is an element boundary: lo is one).
 * Where that leaves less than an element (chunks of a few elements cut by
 * stripes shorter than elements) blocks are grouped whole instead
 * (grouping, below). */
typedef struct stream {
  share_t sh;
  int64_t L;     /* a block's nominal bytes */
  int64_t skip;  /* the first block's nominal bytes before lo */
  int64_t total; /* the stream's nominal bytes */
  int64_t Cn;    /* a chunk's nominal bytes */
  int64_t parts; /* the most parts a chunk has */
  int64_t grow;  /* the most bytes the rounding adds to a chunk */
} stream_t;

/* The most bytes the rounding to elements adds to a chunk of n parts. */
static bool growth(const tp_domains_t *d, int64_t n, int64_t *g) {
  if (d->su % d->es != 0)
    return darray__mul_ok(n, d->es - 1, g);
  *g = d->disp % d->es != 0 ? d->es - 1 : 0;
  return true;
}

/* k su, or -1 past INT64_MAX (past hi, then). */
static int64_t stripe_off(const tp_domains_t *d, int64_t k) {
  int64_t x;
  return darray__mul_ok(k, d->su, &x) ? x : -1;
}

/* The file offset of nominal byte o (0 <= o <= L) of the block starting
 * at stripe k, moved up to an element and into [lo, hi]. */
static int64_t at(const tp_domains_t *d, int64_t k, int64_t o) {
  int64_t x = stripe_off(d, k);
  if (x < 0 || !darray__add_ok(x, o, &x) || x >= d->hi)
    return d->hi;
  if (x <= d->lo)
    return d->lo;
  return darray__tp_round_up(x, d->disp, d->es, d->hi);
}

/* Aggregator i's stream for chunks of at most C bytes; false: its blocks
 * are grouped whole (or it has none). */
static bool stream_of(const tp_domains_t *d, int i, int64_t C, stream_t *st) {
  share_t *sh = &st->sh;
  share_of(d, i, sh);
  int64_t L, all;
  if (sh->nb <= 0 || !darray__mul_ok(sh->width, d->su, &L) ||
      !darray__mul_ok(sh->nb, L, &all))
    return false;
  int64_t x0 = stripe_off(d, sh->first);
  int64_t xl = stripe_off(d, sh->first + (sh->nb - 1) * sh->step);
  st->L = L;
  st->skip = x0 < 0 || x0 >= d->lo ? 0 : d->lo - x0 < L ? d->lo - x0 : L;
  int64_t in_last = xl < 0 || xl >= d->hi ? 0 : d->hi - xl; /* before hi */
  int64_t tail = in_last < L ? L - in_last : 0;
  st->total = all - st->skip - tail;
  if (st->total < 0)
    st->total = 0;
  int64_t slack; /* what chunks of C nominal bytes could grow by */
  if (!growth(d, C / L + 2, &slack) || C - slack < d->es)
    return false;
  st->Cn = (C - slack) / d->es * d->es;
  st->parts = (st->Cn - 1) / L + 2;
  if (st->parts > sh->nb)
    st->parts = sh->nb;
  return growth(d, st->parts, &st->grow); /* <= slack */
}

static int64_t stream_cycles(const stream_t *st) {
  return st->total / st->Cn + (st->total % st->Cn != 0);
}

/* Chunk c's nominal bytes of the stream, [*qa, *qb) from the first
 * block's start (c below the cycle count). */
static void stream_chunk(const stream_t *st, int64_t c, int64_t *qa,
                         int64_t *qb) {
  int64_t at_c = c * st->Cn, rest = st->total - at_c;
  *qa = st->skip + at_c;
  *qb = *qa + (rest < st->Cn ? rest : st->Cn);
}

/* Part j of chunk c: false past its last part. */
static bool stream_part(const tp_domains_t *d, const stream_t *st, int64_t c,
                        int64_t j, int64_t *plo, int64_t *phi) {
  int64_t qa, qb;
  stream_chunk(st, c, &qa, &qb);
  int64_t b0 = qa / st->L;
  if (j > (qb - 1) / st->L - b0)
    return false;
  int64_t b = b0 + j, start = b * st->L, k = st->sh.first + b * st->sh.step;
  int64_t e = qb - start < st->L ? qb - start : st->L;
  *plo = at(d, k, qa > start ? qa - start : 0);
  *phi = at(d, k, e);
  return true;
}

/* Blocks grouped whole (stream_of false): *n chunks per block (blocks
 * longer than C; *m = 1), or *m blocks per chunk (*n = 1). */
static void grouping(const tp_domains_t *d, const share_t *sh, int64_t C,
                     int64_t *n, int64_t *m) {
  int64_t bm = block_max(d, sh);
  *n = bm > C ? bm / C + (bm % C != 0) : 1;
  *m = bm > C ? 1 : C / bm;
}

int64_t darray__tp_layout_cycles(const tp_domains_t *d, int i, int64_t C) {
  stream_t st;
  if (stream_of(d, i, C, &st))
    return stream_cycles(&st);
  share_t *sh = &st.sh;
  if (sh->nb <= 0)
    return 0;
  int64_t n, m, c;
  grouping(d, sh, C, &n, &m);
  if (m > 1)
    return sh->nb / m + (sh->nb % m != 0);
  return darray__mul_ok(sh->nb, n, &c) ? c : INT64_MAX;
}

int64_t darray__tp_layout_chunk_max(const tp_domains_t *d, int i,
                                   int64_t C) {
  stream_t st;
  if (stream_of(d, i, C, &st)) {
    int64_t most = (st.total < st.Cn ? st.total : st.Cn) + st.grow;
    return most < C ? most : C; /* (it is, by Cn) */
  }
  share_t *sh = &st.sh;
  if (sh->nb <= 0)
    return 0;
  int64_t n, m;
  grouping(d, sh, C, &n, &m);
  return n > 1 ? C : (m < sh->nb ? m : sh->nb) * block_max(d, sh); /* <= C */
}

int64_t darray__tp_layout_parts(const tp_domains_t *d, int i, int64_t C) {
  stream_t st;
  if (stream_of(d, i, C, &st))
    return st.parts;
  int64_t n, m;
  grouping(d, &st.sh, C, &n, &m);
  return st.sh.nb <= 0 || n > 1 ? 1 : m < st.sh.nb ? m : st.sh.nb;
}

bool darray__tp_layout_part(const tp_domains_t *d, int64_t C, int i,
                            int64_t cycle, int64_t j, int64_t *plo,
                            int64_t *phi) {
  stream_t st;
  bool packed = stream_of(d, i, C, &st);
  share_t *sh = &st.sh;
  *plo = *phi = d->hi;
  if (sh->nb <= 0)
    return j == 0; /* one empty part */
  if (packed)
    return cycle >= stream_cycles(&st) ? j == 0 /* past the last cycle */
                                       : stream_part(d, &st, cycle, j, plo,
                                                     phi);
  int64_t n, m, blo, bhi;
  grouping(d, sh, C, &n, &m);
  if (j >= m)
    return false;
  /* a long block's chunk k, or part j of m blocks (checked before cycle
   * m is formed: callers may ask past the last cycle) */
  int64_t b = n > 1 ? cycle / n : cycle > sh->nb / m ? sh->nb : cycle * m + j;
  int64_t k = n > 1 ? cycle % n : 0;
  if (b >= sh->nb)
    return j == 0; /* past the last cycle: one empty part */
  block(d, sh, b, &blo, &bhi);
  if (bhi - blo <= k * C) { /* past the block's end: an empty chunk */
    *plo = *phi = bhi;
    return true;
  }
  *plo = blo + k * C;
  *phi = bhi - *plo > C ? *plo + C : bhi;
  return true;
}

/* The stripe whose block holds off. */
static int64_t stripe_of(const tp_domains_t *d, int64_t off) {
  int64_t k = off / d->su;
  while (k > first_stripe(d) && stripe_start(d, k) > off)
    k--;
  while (k < last_stripe(d) && stripe_start(d, k + 1) <= off)
    k++;
  return k;
}

void darray__tp_layout_locate(const tp_domains_t *d, int64_t C, int64_t off,
                              int *agg, int64_t *cycle, int64_t *chi) {
  int64_t k = stripe_of(d, off), S = d->S, A = d->A, s = k % S, i;
  if (A <= S) {
    i = ((s + 1) * A + S - 1) / S - 1; /* the last i with i S / A <= s */
  } else {
    int64_t g0, g1, m0, n;
    server_group(d, s, &g0, &g1);
    server_stripes(d, s, &m0, &n);
    int64_t p = (k - s) / S - m0, g = g1 - g0;
    int64_t j = ((p + 1) * g + n - 1) / n - 1; /* part(n, j, g) <= p */
    while (j > 0 && part(n, j, g) > p)
      j--;
    while (j + 1 < g && part(n, j + 1, g) <= p)
      j++;
    i = g0 + j;
  }
  *agg = (int)i;
  stream_t st;
  bool packed = stream_of(d, (int)i, C, &st);
  share_t *sh = &st.sh;
  int64_t b = (k - sh->first) / sh->step, blo, bhi, n, m;
  if (packed) {
    /* off's element starts at nominal byte o of block b (o < L: an
     * element before the block's nominal end ends in it) */
    int64_t kb = sh->first + b * sh->step;
    int64_t o = off - (off - d->disp) % d->es - kb * d->su;
    int64_t p = b * st.L + o - st.skip, qa, qb;
    *cycle = p / st.Cn;
    stream_chunk(&st, *cycle, &qa, &qb);
    int64_t e = qb - b * st.L;
    *chi = at(d, kb, e < st.L ? e : st.L);
    return;
  }
  block(d, sh, b, &blo, &bhi);
  grouping(d, sh, C, &n, &m);
  if (n == 1) { /* part b % m of cycle b / m: the whole block */
    *cycle = b / m;
    *chi = bhi;
    return;
  }
  int64_t j = (off - blo) / C;
  *cycle = b * n + j;
  *chi = bhi - blo - j * C > C ? blo + (j + 1) * C : bhi;
}
