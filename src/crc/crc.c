/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc.c - CRC-32 (zlib's, the one ZIP records) of pieces placed in a
 * message, so that processes that each hold some pieces of a member
 * compute its CRC with one XOR-reduction and no data moved.
 *
 * The CRC register after a message is linear in (initial register,
 * bytes) over GF(2); zlib inverts the register before and after, so with
 * F = 0xffffffff and X of n bytes
 *
 *   crc(X) = T_n(F) ^ F ^ R(X) = crc(0^n) ^ R(X),
 *
 * R linear, T_n the multiplication by x^(8n) modulo the polynomial
 * (crc32_combine64(c, 0, n) computes T_n(c) in O(log n)). A message is
 * the XOR of its pieces each in place in zeros, so its R is the XOR of
 * theirs; a piece's R is the register it leaves when the bytes are fed
 * from register 0 (leading zeros leave it 0; trailing ones shift it).
 */
#include "crc/crc.h"

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#define F32 UINT32_C(0xffffffff)

/* Gaps up to this long are fed as zeros rather than shifted: feeding
 * costs about a byte per cycle, a shift about as much as 1-2 KiB. */
#define CRC_FEED_MAX 1024
static const unsigned char zeros[CRC_FEED_MAX];

/* The register after feeding p[0..n) from register r (no inversion). */
static uint32_t feed(uint32_t r, const void *p, int64_t n) {
  return darray__crc_feed(r, p, n);
}

#ifdef HAVE_ZLIB

/* The longest shift one crc32_combine() call takes (z_off_t may be 32
 * bits; T_(a+b) = T_a T_b). */
#define SHIFT_MAX                                                              \
  (sizeof(z_off_t) >= 8 ? INT64_MAX : (int64_t)INT32_MAX)

uint32_t darray__crc_shift(uint32_t c, int64_t n) {
  uLong r = c;
  for (; n > 0; n -= n < SHIFT_MAX ? n : SHIFT_MAX)
    r = crc32_combine(r, 0, (z_off_t)(n < SHIFT_MAX ? n : SHIFT_MAX));
  return (uint32_t)r;
}

uint32_t darray__crc_bytes(const void *p, int64_t n) {
  return feed(0, p, n) ^ darray__crc_zeros(n);
}

#else /* without zlib the formats are refused at open (format/format.c) */

uint32_t darray__crc_shift(uint32_t c, int64_t n) {
  (void)n;
  return c;
}
uint32_t darray__crc_bytes(const void *p, int64_t n) {
  (void)p;
  (void)n;
  return 0;
}

#endif

uint32_t darray__crc_zeros(int64_t n) {
  return darray__crc_shift(F32, n) ^ F32;
}

/* Move the register across a gap of zeros. While the gaps have one
 * length (a process's runs of a regular distribution), by one product
 * with x^(8 gap) mod P, computed at the first gap and kept in acc; once
 * another length comes (acc->gap = -2), short gaps are fed as zeros and
 * long ones shifted. */
static uint32_t skip(crc_acc_t *acc, uint32_t r, int64_t gap) {
  if (gap == 0)
    return r;
  if (acc->gap == -1) {
    acc->gap = gap;
    acc->xgap = darray__crc_shift(UINT32_C(0x80000000), gap); /* refl 1 */
  }
  if (gap == acc->gap)
    return darray__crc_mulmod(r, acc->xgap);
  acc->gap = -2;
  return gap <= CRC_FEED_MAX ? feed(r, zeros, gap)
                             : darray__crc_shift(r, gap);
}

void darray__crc_acc_add(crc_acc_t *acc, int64_t off, const void *p,
                         int64_t n) {
  if (n <= 0)
    return;
  if (acc->r == 0) /* zeros before the first piece leave R at 0 */
    acc->pos = off;
  acc->r = feed(skip(acc, acc->r, off - acc->pos), p, n);
  acc->pos = off + n;
}

void darray__crc_acc_addv(crc_acc_t *acc, int64_t off,
                          const struct iovec *iov, int n, int64_t total) {
  if (total <= 0)
    return;
  if (acc->r == 0)
    acc->pos = off;
  acc->r = darray__crc_feed_vec(skip(acc, acc->r, off - acc->pos), iov, n);
  acc->pos = off + total;
}

void darray__crc_acc_add_pieces(crc_acc_t *acc, const crc_piece_t *pc,
                                int n) {
  if (n <= 0)
    return;
  if (acc->r == 0)
    acc->pos = pc[0].off;
  acc->r = darray__crc_feed_pieces(skip(acc, acc->r, pc[0].off - acc->pos),
                                   pc, n);
  acc->pos = pc[n - 1].off + pc[n - 1].n;
}

uint32_t darray__crc_acc_end(const crc_acc_t *acc, int64_t len) {
  return darray__crc_shift(acc->r, len - acc->pos);
}

uint32_t darray__crc_member(uint32_t hdr_crc, uint32_t r, int64_t len) {
  uint32_t data = r ^ darray__crc_zeros(len);
#ifdef HAVE_ZLIB
  return darray__crc_shift(hdr_crc, len) ^ data;
#else
  (void)hdr_crc;
  return data;
#endif
}
