/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc_clmul.c - the CRC-32 register (zlib's polynomial, reflected, no
 * inversion) fed with bytes by carry-less multiplication (PCLMULQDQ) where
 * the processor has it, else by zlib. zlib 1.2.13's crc32 runs at about
 * 1.1 GB/s here, which made the CRC of a member cost more than half of
 * writing it (issue #18); folding runs an order of magnitude faster
 * (bench/RESULTS.md).
 *
 * The method is folding (as in Intel's white paper "Fast CRC Computation
 * for Generic Polynomials Using PCLMULQDQ"). Notation: refl_n(Q) is the
 * n-bit integer whose bit i is the coefficient of x^(n-1-i) of Q, the bit
 * order of a reflected CRC (the first bit of the message, bit 0 of its
 * first byte, is the highest power). Sixteen bytes loaded little-endian
 * are refl_128 of their polynomial. A carry-less product of refl_n(A) and
 * refl_m(B) is refl_(n+m-1)(AB), so
 *
 *   clmul(refl_64(A), refl_65(x K)) = refl_128(A x K),
 *
 * and refl_65(x K) = refl_32(K) << 32 for K of degree < 32: each constant
 * below is refl_32(x^e mod P) << 32.
 *
 *  - Fold: an accumulator A = H x^64 + L (refl_128: H in the low lane, L
 *    in the high one) followed by D more bits is replaced by
 *    H (x^(D+64) mod P) + L (x^D mod P), congruent to A x^D, of degree
 *    < 128, and the next block is XORed in. Four accumulators fold over
 *    D = 512 bits, then one over D = 128.
 *  - End: the register of the message is A x^32 mod P. T = H (x^96 mod P)
 *    + L x^32 (degree < 96), then U = T_hi (x^64 mod P) + T_lo (degree
 *    < 64), then Barrett: q = floor(floor(U / x^32) mu / x^32) with
 *    mu = floor(x^64 / P), and U mod P = U - q P.
 *
 * The constants are checked against a bit-at-a-time computation in
 * test/format/test_format_unit.c.
 */
#include "crc/crc.h"

#include <string.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#define F32 UINT32_C(0xffffffff)

/* Shorter inputs go to zlib: the end reduction costs about 16 bytes. */
#define CLMUL_MIN 64

/* refl_32(x^e mod P) << 32 for e = 575, 511 (fold 4), 191, 127 (fold 1),
 * 95, 63 (end); refl_33(mu) and refl_33(P). */
#define K_575 UINT64_C(0x653d982200000000)
#define K_511 UINT64_C(0xcad38e8f00000000)
#define K_191 UINT64_C(0x65673b4600000000)
#define K_127 UINT64_C(0x9ba54c6f00000000)
#define K_95 UINT64_C(0xccaa009e00000000)
#define K_63 UINT64_C(0xb8bc676500000000)
#define K_MU UINT64_C(0x1f7011641)
#define K_P UINT64_C(0x1db710641)
/* The wide path (512-bit registers, VPCLMULQDQ): four of them fold over
 * D = 2048 bits, e = 2111 and 2047. */
#define K_2111 UINT64_C(0x7cc8e1e700000000)
#define K_2047 UINT64_C(0x03f9f86300000000)

const uint64_t darray__crc_clmul_k[10] = {K_575, K_511, K_191, K_127,
                                          K_95,  K_63,  K_MU,  K_P,
                                          K_2111, K_2047};

/* The wide path from this many bytes on (its state is reduced through
 * the narrow one: 256 bytes). */
#define WIDE_MIN 1024

static const unsigned char zero_block[256];

uint32_t darray__crc_feed_zlib(uint32_t r, const void *p, int64_t n) {
#ifdef HAVE_ZLIB
  uLong c = r ^ F32;
  const unsigned char *b = p;
  while (n > 0) { /* crc32_z's length is size_t; keep pieces modest */
    int64_t k = n < (INT64_C(1) << 30) ? n : (INT64_C(1) << 30);
    c = crc32_z(c, b, (z_size_t)k);
    b += k;
    n -= k;
  }
  return (uint32_t)c ^ F32;
#else
  (void)p;
  (void)n;
  return r;
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_CLMUL_PATH 1
#include <immintrin.h>

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/* A x^D + B, the fold constants of D in k (low lane: x^(D+64)). */
CLMUL_TARGET static inline __m128i fold(__m128i a, __m128i k, __m128i b) {
  __m128i h = _mm_clmulepi64_si128(a, k, 0x00);
  __m128i l = _mm_clmulepi64_si128(a, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(h, l), b);
}

static inline __m128i load(const unsigned char *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}

CLMUL_TARGET static inline uint32_t barrett(uint64_t v);

/* refl_32(A x^32 mod P) of the accumulator A. */
CLMUL_TARGET static uint32_t reduce(__m128i a) {
  /* T = H (x^96 mod P) + L x^32: the high lane moved down 32 bits. */
  __m128i t = _mm_clmulepi64_si128(a, _mm_set_epi64x(0, (long long)K_95),
                                   0x00);
  t = _mm_xor_si128(t, _mm_slli_si128(_mm_srli_si128(a, 8), 4));
  /* U = T_hi (x^64 mod P) + T_lo: T_hi is the low lane, U the high one. */
  __m128i u = _mm_clmulepi64_si128(t, _mm_set_epi64x(0, (long long)K_63),
                                   0x00);
  return barrett((uint64_t)_mm_extract_epi64(_mm_xor_si128(u, t), 1));
}

CLMUL_TARGET static uint32_t feed_clmul(uint32_t r, const unsigned char *p,
                                        int64_t n) {
  __m128i k4 = _mm_set_epi64x((long long)K_511, (long long)K_575);
  __m128i k1 = _mm_set_epi64x((long long)K_127, (long long)K_191);
  __m128i a0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)r));
  __m128i a1 = load(p + 16), a2 = load(p + 32), a3 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    a0 = fold(a0, k4, load(p));
    a1 = fold(a1, k4, load(p + 16));
    a2 = fold(a2, k4, load(p + 32));
    a3 = fold(a3, k4, load(p + 48));
  }
  a0 = fold(fold(fold(a0, k1, a1), k1, a2), k1, a3);
  for (; n >= 16; p += 16, n -= 16)
    a0 = fold(a0, k1, load(p));
  uint32_t c = reduce(a0);
  return n > 0 ? darray__crc_feed_zlib(c, p, n) : c;
}

/* Barrett: refl_32(U mod P) of U = refl_64 v (floor(U / x^32) in bits
 * 0..31). */
CLMUL_TARGET static inline uint32_t barrett(uint64_t v) {
  __m128i q = _mm_clmulepi64_si128(
      _mm_cvtsi64_si128((long long)(v & 0xffffffff)),
      _mm_cvtsi64_si128((long long)K_MU), 0x00);
  q = _mm_and_si128(q, _mm_cvtsi64_si128(0xffffffff));
  __m128i qp = _mm_clmulepi64_si128(q, _mm_cvtsi64_si128((long long)K_P),
                                    0x00);
  uint64_t w = (uint64_t)_mm_cvtsi128_si64(qp);
  return (uint32_t)((w >> 32) ^ (v >> 32));
}

/* refl_32(a) refl_32(b) is refl_63 of the product: refl_64 once shifted. */
CLMUL_TARGET static uint32_t mulmod_clmul(uint32_t a, uint32_t b) {
  __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a),
                                   _mm_cvtsi32_si128((int)b), 0x00);
  return barrett((uint64_t)_mm_cvtsi128_si64(p) << 1);
}

bool darray__crc_clmul_available(void) {
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

/*
 * The wide path: the same folding on four 512-bit registers, each four
 * 128-bit lanes folded over 2048 bits, so 256 bytes per round. What the
 * registers hold at the end is, as bytes in memory order, a 256-byte
 * message whose register (fed from 0) is the register of everything folded
 * so far: the narrow path reduces it, then the rest follows. About twice
 * the narrow path's speed here (bench/crc-speed).
 */
#define WIDE_TARGET                                                            \
  __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.1")))

WIDE_TARGET static inline __m512i fold_wide(__m512i a, __m512i k, __m512i b) {
  __m512i h = _mm512_clmulepi64_epi128(a, k, 0x00);
  __m512i l = _mm512_clmulepi64_epi128(a, k, 0x11);
  return _mm512_ternarylogic_epi64(h, l, b, 0x96); /* h ^ l ^ b */
}

/*
 * A stream of pieces at increasing places in the message, fed with one
 * folding state across them: pieces are folded in place 256 bytes at a
 * time, what straddles two pieces goes through a 256-byte block, and the
 * state is reduced once at the end (two-phase's vector writes: pieces of
 * a few hundred bytes, each of which would otherwise pay a reduction; a
 * process's runs of a checked read: the same, with the other processes'
 * runs between them as zeros).
 *
 * Zeros between pieces: up to the next block boundary through the block;
 * whole blocks of them, once the state has started, are kept pending and
 * crossed by the next block's fold: its registers fold over D = 2048 (k +
 * 1) bits instead of 2048 for k pending blocks (constants e = D + 63 and
 * D - 1, computed for the last k seen: a regular distribution's gaps have
 * one length), so a gap costs no more than the block after it (as when
 * the message goes on D bits, the state's polynomial is multiplied by
 * x^D).
 */
typedef struct wide_stream {
  __m512i a[4];
  bool started;
  uint32_t r;
  unsigned char blk[256];
  int nb;
  int64_t pend;    /* zero blocks not folded over yet */
  int64_t kblocks; /* the blocks kfold folds over; 0: none yet */
  __m512i kfold;
} wide_stream_t;

/* The constants that fold over k blocks (256 k bytes). */
WIDE_TARGET static __m512i wide_k(wide_stream_t *s, int64_t k) {
  if (k == 1)
    return _mm512_broadcast_i32x4(
        _mm_set_epi64x((long long)K_2047, (long long)K_2111));
  if (k != s->kblocks) {
    uint64_t c[2];
    darray__crc_fold_consts(8 * 256 * k, c);
    s->kfold = _mm512_broadcast_i32x4(
        _mm_set_epi64x((long long)c[1], (long long)c[0]));
    s->kblocks = k;
  }
  return s->kfold;
}

WIDE_TARGET static void wide_block(wide_stream_t *s, const unsigned char *q) {
  if (!s->started) {
    s->a[0] = _mm512_xor_si512(_mm512_loadu_si512(q),
                               _mm512_zextsi128_si512(
                                   _mm_cvtsi32_si128((int)s->r)));
    s->a[1] = _mm512_loadu_si512(q + 64);
    s->a[2] = _mm512_loadu_si512(q + 128);
    s->a[3] = _mm512_loadu_si512(q + 192);
    s->started = true;
    return;
  }
  __m512i k = wide_k(s, 1 + s->pend);
  s->pend = 0;
  for (int i = 0; i < 4; i++)
    s->a[i] = fold_wide(s->a[i], k, _mm512_loadu_si512(q + 64 * i));
}

WIDE_TARGET static void wide_init(wide_stream_t *s, uint32_t r) {
  s->started = false;
  s->r = r;
  s->nb = 0;
  s->pend = 0;
  s->kblocks = 0;
  s->kfold = _mm512_setzero_si512();
}

WIDE_TARGET static void wide_bytes(wide_stream_t *s, const unsigned char *p,
                                   int64_t len) {
  while (len > 0) {
    if (s->nb == 0 && len >= 256) {
      wide_block(s, p);
      p += 256;
      len -= 256;
      continue;
    }
    int64_t take = 256 - s->nb < len ? 256 - s->nb : len;
    memcpy(s->blk + s->nb, p, (size_t)take);
    s->nb += (int)take;
    p += take;
    len -= take;
    if (s->nb == 256) {
      wide_block(s, s->blk);
      s->nb = 0;
    }
  }
}

WIDE_TARGET static void wide_zeros(wide_stream_t *s, int64_t g) {
  if (s->nb == 0 && s->started && g >= 256) {
    s->pend += g / 256;
    g %= 256;
  }
  while (g > 0) {
    int64_t take = g < 256 - s->nb ? g : 256 - s->nb;
    wide_bytes(s, zero_block, take);
    g -= take;
    if (s->nb == 0 && g >= 256) {
      s->pend += g / 256;
      g %= 256;
    }
  }
}

WIDE_TARGET static uint32_t wide_end(wide_stream_t *s) {
  if (!s->started)
    return darray__crc_feed(s->r, s->blk, s->nb);
  if (s->pend > 0) { /* the zeros at the end: folded over alone */
    __m512i k = wide_k(s, s->pend);
    for (int i = 0; i < 4; i++)
      s->a[i] = _mm512_xor_si512(_mm512_clmulepi64_epi128(s->a[i], k, 0x00),
                                 _mm512_clmulepi64_epi128(s->a[i], k, 0x11));
    s->pend = 0;
  }
  unsigned char state[256];
  for (int i = 0; i < 4; i++)
    _mm512_storeu_si512(state + 64 * i, s->a[i]);
  uint32_t c = feed_clmul(0, state, 256);
  return s->nb > 0 ? darray__crc_feed(c, s->blk, s->nb) : c;
}

WIDE_TARGET static uint32_t feed_wide_vec(uint32_t r, const struct iovec *iov,
                                          int n) {
  wide_stream_t s;
  wide_init(&s, r);
  for (int i = 0; i < n; i++)
    wide_bytes(&s, iov[i].iov_base, (int64_t)iov[i].iov_len);
  return wide_end(&s);
}

WIDE_TARGET static uint32_t feed_wide_pieces(uint32_t r,
                                             const crc_piece_t *pc, int n) {
  wide_stream_t s;
  wide_init(&s, r);
  for (int i = 0; i < n; i++) {
    if (i > 0)
      wide_zeros(&s, pc[i].off - (pc[i - 1].off + pc[i - 1].n));
    wide_bytes(&s, pc[i].p, pc[i].n);
  }
  return wide_end(&s);
}

/* One buffer: a vector of one piece. */
WIDE_TARGET static uint32_t feed_wide(uint32_t r, const unsigned char *p,
                                      int64_t n) {
  struct iovec v = {(void *)p, (size_t)n};
  return feed_wide_vec(r, &v, 1);
}

bool darray__crc_wide_available(void) {
  return darray__crc_clmul_available() &&
         __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("vpclmulqdq");
}

uint32_t darray__crc_feed_wide(uint32_t r, const void *p, int64_t n) {
  if (n < 256)
    return darray__crc_feed_clmul(r, p, n);
  return feed_wide(r, p, n);
}

static uint32_t feed_vec(uint32_t r, const struct iovec *iov, int n) {
  if (darray__crc_wide_available())
    return feed_wide_vec(r, iov, n);
  for (int i = 0; i < n; i++)
    r = darray__crc_feed(r, iov[i].iov_base, (int64_t)iov[i].iov_len);
  return r;
}

static uint32_t feed_pieces(uint32_t r, const crc_piece_t *pc, int n) {
  if (darray__crc_wide_available())
    return feed_wide_pieces(r, pc, n);
  return darray__crc_feed_pieces_narrow(r, pc, n);
}

uint32_t darray__crc_feed_clmul(uint32_t r, const void *p, int64_t n) {
  if (n < CLMUL_MIN)
    return darray__crc_feed_zlib(r, p, n);
  return feed_clmul(r, p, n);
}

#else

bool darray__crc_clmul_available(void) { return false; }
bool darray__crc_wide_available(void) { return false; }

static uint32_t feed_vec(uint32_t r, const struct iovec *iov, int n) {
  for (int i = 0; i < n; i++)
    r = darray__crc_feed(r, iov[i].iov_base, (int64_t)iov[i].iov_len);
  return r;
}

static uint32_t feed_pieces(uint32_t r, const crc_piece_t *pc, int n) {
  return darray__crc_feed_pieces_narrow(r, pc, n);
}

uint32_t darray__crc_feed_wide(uint32_t r, const void *p, int64_t n) {
  return darray__crc_feed_zlib(r, p, n);
}

uint32_t darray__crc_feed_clmul(uint32_t r, const void *p, int64_t n) {
  return darray__crc_feed_zlib(r, p, n);
}

#endif

/* Bit at a time, reflected: a x^k for each coefficient x^k of b. */
static uint32_t mulmod_bits(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (uint32_t m = UINT32_C(1) << 31; m != 0 && a != 0; m >>= 1) {
    if (b & m)
      r ^= a;
    a = a & 1 ? (a >> 1) ^ UINT32_C(0xedb88320) : a >> 1;
  }
  return r;
}

uint32_t darray__crc_mulmod(uint32_t a, uint32_t b) {
#ifdef HAVE_CLMUL_PATH
  if (darray__crc_clmul_available())
    return mulmod_clmul(a, b);
#endif
  return mulmod_bits(a, b);
}

uint32_t darray__crc_feed(uint32_t r, const void *p, int64_t n) {
#ifdef HAVE_CLMUL_PATH
  /* __builtin_cpu_supports reads what the runtime's constructor found:
   * no state of ours. */
  if (n >= WIDE_MIN && darray__crc_wide_available())
    return feed_wide(r, p, n);
  if (n >= CLMUL_MIN && darray__crc_clmul_available())
    return feed_clmul(r, p, n);
#endif
  return darray__crc_feed_zlib(r, p, n);
}

uint32_t darray__crc_feed_vec(uint32_t r, const struct iovec *iov, int n) {
  return feed_vec(r, iov, n);
}

uint32_t darray__crc_feed_pieces(uint32_t r, const crc_piece_t *pc, int n) {
  return feed_pieces(r, pc, n);
}

/* The zeros between pieces: fed while short, else shifted over. */
uint32_t darray__crc_feed_pieces_narrow(uint32_t r, const crc_piece_t *pc,
                                        int n) {
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      int64_t g = pc[i].off - (pc[i - 1].off + pc[i - 1].n);
      if (g > 0)
        r = g <= 256 ? darray__crc_feed(r, zero_block, g)
                     : darray__crc_shift(r, g);
    }
    r = darray__crc_feed(r, pc[i].p, pc[i].n);
  }
  return r;
}

/* refl_32(x^e mod P) for e = 8 m + j (j < 8): x^(8 m) times x^j. */
static uint32_t xpow(int64_t e) {
  return darray__crc_mulmod(darray__crc_shift(UINT32_C(0x80000000), e / 8),
                            UINT32_C(0x80000000) >> (e % 8));
}

void darray__crc_fold_consts(int64_t d, uint64_t c[2]) {
  c[0] = (uint64_t)xpow(d + 63) << 32;
  c[1] = (uint64_t)xpow(d - 1) << 32;
}
