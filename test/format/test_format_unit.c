/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_format_unit.c - the format room's pure parts, one process
 * (src/format): CRC-32 of pieces in place, the .npy header and the .npz
 * archive parser, including hostile archives.
 *
 * Oracles: zlib's crc32 of whole buffers (the pieces' combination must
 * equal it, whatever the pieces, gaps and owners); hand-written .npy
 * headers; archives built in memory and then damaged byte by byte at
 * known fields (each damage has its expected code).
 */
#include "format/format.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- CRC */

static void crc_pieces(uint64_t seed, int64_t n) {
  unsigned char *ref = calloc((size_t)n + 1, 1);
  crc_acc_t acc[4] = {DARRAY_CRC_ACC_INIT, DARRAY_CRC_ACC_INIT,
                       DARRAY_CRC_ACC_INIT, DARRAY_CRC_ACC_INIT};
  for (int64_t pos = 0, k = 0; pos < n; k++) {
    int64_t len = 1 + (int64_t)(tu_value(seed, 2 * k) % 3000);
    int owner = (int)(tu_value(seed, 2 * k + 1) % 5); /* 4: a hole */
    if (len > n - pos)
      len = n - pos;
    if (owner < 4) {
      tu_fill_bytes(ref + pos, len, seed + 1, pos);
      darray__crc_acc_add(&acc[owner], pos, ref + pos, len);
    }
    pos += len;
  }
  uint32_t r = 0;
  for (int p = 0; p < 4; p++)
    r ^= darray__crc_acc_end(&acc[p], n);
  uLong want = crc32(0, ref, (uInt)n);
  TU_EQ_U64(r ^ darray__crc_zeros(n), want);
  TU_EQ_U64(darray__crc_bytes(ref, n), want);
  const char hdr[] = "\x93NUMPY header bytes";
  unsigned char *all = malloc((size_t)n + sizeof hdr);
  memcpy(all, hdr, sizeof hdr);
  memcpy(all + sizeof hdr, ref, (size_t)n);
  TU_EQ_U64(darray__crc_member(darray__crc_bytes(hdr, sizeof hdr), r, n),
            crc32(0, all, (uInt)(n + (int64_t)sizeof hdr)));
  free(all);
  free(ref);
}

static void crc_tests(void) {
  int64_t sizes[] = {0, 1, 7, 1024, 1025, 20000, 100003};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (uint64_t s = 1; s <= 3; s++)
      crc_pieces(s * 77 + i, sizes[i]);
  unsigned char *z = calloc(100000, 1);
  TU_EQ_U64(darray__crc_zeros(100000), crc32(0, z, 100000));
  free(z);
  uint32_t c = 0x12345678;
  int64_t a = INT64_C(5) << 30, b = INT64_C(3) << 31;
  TU_EQ_U64(darray__crc_shift(c, a + b),
            darray__crc_shift(darray__crc_shift(c, a), b));
}

/* ---- the CRC register by carry-less multiplication (crc_clmul.c) */

#define POLY UINT64_C(0x104c11db7) /* P, highest power first */

/* x^e mod P, bit at a time, highest power first. */
static uint64_t xpow_mod(int e) {
  uint64_t r = 1;
  for (int i = 0; i < e; i++) {
    r <<= 1;
    if (r >> 32 & 1)
      r ^= POLY;
  }
  return r;
}

/* The n low bits of v in reverse order: refl_n. */
static uint64_t reflect(uint64_t v, int n) {
  uint64_t r = 0;
  for (int i = 0; i < n; i++)
    r |= (v >> i & 1) << (n - 1 - i);
  return r;
}

/* The folding constants, recomputed from the polynomial. */
static void clmul_constants(void) {
  static const int e[10] = {575, 511, 191, 127, 95, 63, 0, 0, 2111, 2047};
  for (int i = 0; i < 10; i++)
    if (e[i] > 0)
      TU_EQ_U64(darray__crc_clmul_k[i], reflect(xpow_mod(e[i]), 32) << 32);
  uint64_t num_hi = 1, q = 0, rem = 0; /* floor(x^64 / P), long division */
  for (int i = 64; i >= 0; i--) {
    rem = rem << 1 | (i == 64 ? num_hi : 0);
    if (rem >> 32 & 1) {
      rem ^= POLY;
      q |= UINT64_C(1) << i;
    }
  }
  TU_EQ_U64(darray__crc_clmul_k[6], reflect(q, 33));
  TU_EQ_U64(darray__crc_clmul_k[7], reflect(POLY, 33));
}

/* One length at one alignment from one register, against zlib's crc32
 * (its register is inverted before and after). */
static void clmul_case(const unsigned char *buf, int64_t n, uint32_t r) {
  uLong want = crc32_z(r ^ 0xffffffffu, buf, (z_size_t)n) ^ 0xffffffffu;
  if (darray__crc_clmul_available())
    TU_EQ_U64(darray__crc_feed_clmul(r, buf, n), want);
  if (darray__crc_wide_available())
    TU_EQ_U64(darray__crc_feed_wide(r, buf, n), want);
  TU_EQ_U64(darray__crc_feed(r, buf, n), want);
  TU_EQ_U64(darray__crc_feed_zlib(r, buf, n), want);
}

/* Pieces of random lengths (short, a few hundred bytes, kilobytes) at
 * scattered places in memory, fed as one vector, against zlib's crc32 of
 * their concatenation. */
static void vec_tests(const unsigned char *buf, int64_t size) {
  enum { MAXP = 64 };
  static const int64_t cap[3] = {40, 600, 5000};
  struct iovec iov[MAXP];
  unsigned char *cat = malloc(MAXP * 5000);
  for (int k = 0; k < 300; k++) {
    int n = 1 + (int)(tu_value(21, k) % MAXP);
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
      int64_t len = (int64_t)(tu_value(25, k * MAXP + i) % cap[k % 3]);
      int64_t at =
          (int64_t)(tu_value(27, k * MAXP + i) % (uint64_t)(size - len));
      iov[i] = (struct iovec){(void *)(buf + at), (size_t)len};
      memcpy(cat + total, buf + at, (size_t)len);
      total += len;
    }
    uint32_t r = (uint32_t)tu_value(29, k);
    uLong want = crc32_z(r ^ 0xffffffffu, cat, (z_size_t)total) ^ 0xffffffffu;
    TU_EQ_U64(darray__crc_feed_vec(r, iov, n), want);
  }
  free(cat);
}

/* Pieces at increasing message offsets with zeros between them (gaps of
 * no bytes, of a few, of whole 256-byte blocks, of a regular length as a
 * distribution's runs have, and long ones), scattered in memory, fed as
 * one stream (darray__crc_feed_pieces, the narrow path, and an accumulator
 * over two batches), against zlib's crc32 of the message written out with
 * its zeros. */
static int64_t piece_len(uint64_t v, int cls) {
  switch (cls) {
  case 0: return 1 + (int64_t)(v % 40);
  case 1: return 256 * (int64_t)(1 + v % 4);
  case 2: return 512;
  default: return 1 + (int64_t)(v % 5000);
  }
}

static int64_t gap_len(uint64_t v, int cls) {
  switch (cls) {
  case 0: return 0;
  case 1: return (int64_t)(v % 300);
  case 2: return 512;
  case 3: return 256 * (int64_t)(1 + v % 9);
  default: return (int64_t)(v % 100000);
  }
}

static void pieces_tests(const unsigned char *buf, int64_t size) {
  enum { MAXP = 64 };
  crc_piece_t pc[MAXP];
  unsigned char *msg = calloc(MAXP * (100000 + 5000) + 1000, 1);
  for (int k = 0; k < 600; k++) {
    int n = 1 + (int)(tu_value(31, k) % MAXP);
    int lc = (int)(k % 4), gc = (int)(k / 4 % 5);
    int64_t pos = (int64_t)(tu_value(33, k) % 1000); /* leading zeros */
    memset(msg, 0, (size_t)pos);
    for (int i = 0; i < n; i++) {
      int64_t g = i == 0 ? 0 : gap_len(tu_value(35, k * MAXP + i), gc);
      int64_t len = piece_len(tu_value(37, k * MAXP + i), lc);
      int64_t at =
          (int64_t)(tu_value(39, k * MAXP + i) % (uint64_t)(size - len));
      memset(msg + pos, 0, (size_t)g);
      pos += g;
      pc[i] = (crc_piece_t){pos, buf + at, len};
      memcpy(msg + pos, buf + at, (size_t)len);
      pos += len;
    }
    int64_t from = pc[0].off;
    uint32_t r = (uint32_t)tu_value(41, k);
    uLong want = crc32_z(r ^ 0xffffffffu, msg + from, (z_size_t)(pos - from)) ^
                 0xffffffffu;
    TU_EQ_U64(darray__crc_feed_pieces(r, pc, n), want);
    TU_EQ_U64(darray__crc_feed_pieces_narrow(r, pc, n), want);
    crc_acc_t acc = DARRAY_CRC_ACC_INIT; /* leading zeros, two batches */
    darray__crc_acc_add_pieces(&acc, pc, n / 2);
    darray__crc_acc_add_pieces(&acc, pc + n / 2, n - n / 2);
    int64_t len = pos + 77; /* and trailing ones */
    memset(msg + pos, 0, 77);
    TU_EQ_U64(darray__crc_acc_end(&acc, len) ^ darray__crc_zeros(len),
              crc32_z(0, msg, (z_size_t)len));
  }
  free(msg);
  /* the constants that fold over the zeros, against the bit-at-a-time
   * powers (the wide loop's own for d = 2048) */
  static const int64_t d[] = {8, 512, 2048, 4096, 8 * 2560};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    uint64_t c[2];
    darray__crc_fold_consts(d[i], c);
    TU_EQ_U64(c[0], reflect(xpow_mod((int)d[i] + 63), 32) << 32);
    TU_EQ_U64(c[1], reflect(xpow_mod((int)d[i] - 1), 32) << 32);
  }
}

static void clmul_tests(void) {
  int64_t big = INT64_C(3) << 20;
  unsigned char *buf = malloc((size_t)big + 64);
  tu_fill_bytes(buf, big + 64, 4242, 0);
  clmul_constants();
  if (!darray__crc_clmul_available())
    printf("# no PCLMULQDQ here: the zlib path alone is checked\n");
  if (!darray__crc_wide_available())
    printf("# no AVX-512 VPCLMULQDQ here: the wide path is not checked\n");
  for (int64_t n = 0; n <= 4096; n += n < 300 ? 1 : 1 + n % 61)
    clmul_case(buf + n % 16, n, (uint32_t)tu_value(7, n));
  for (int k = 0; k < 200; k++) {
    int64_t n = (int64_t)(tu_value(9, k) % 4097);
    clmul_case(buf + tu_value(11, k) % 64, n, (uint32_t)tu_value(13, k));
  }
  /* the product that shifts a register over a gap, against zlib's shift */
  for (int k = 0; k < 64; k++) {
    uint32_t c = (uint32_t)tu_value(17, k);
    int64_t gap = 1 + (int64_t)(tu_value(19, k) % 100000);
    TU_EQ_U64(darray__crc_mulmod(c, darray__crc_shift(UINT32_C(1) << 31, gap)),
              darray__crc_shift(c, gap));
  }
  clmul_case(buf + 3, big + 7, 0);
  clmul_case(buf, big, 0xffffffffu);
  vec_tests(buf, big);
  pieces_tests(buf, big);
  free(buf);
}

/* ---- memory "files": a head and a tail, zeros between */

typedef struct mem {
  const unsigned char *head, *tail;
  int64_t nhead, ntail, size;
} mem_t;

static int mem_read(void *ctx, void *buf, int64_t len, int64_t off) {
  mem_t *m = ctx;
  if (off < 0 || len < 0 || off > m->size - len)
    return DARRAY_EEOF;
  unsigned char *b = buf;
  for (int64_t i = 0; i < len; i++) {
    int64_t o = off + i, t = o - (m->size - m->ntail);
    b[i] = o < m->nhead ? m->head[o] : t >= 0 ? m->tail[t] : 0;
  }
  return DARRAY_SUCCESS;
}

static int parse_mem(const unsigned char *b, int64_t n, fmt_file_t *z,
                     char *msg) {
  mem_t m = {b, NULL, n, 0, n};
  fmt_reader_t r = {&m, n, mem_read};
  memset(z, 0, sizeof *z);
  return darray__zip_parse(&r, z, msg);
}

static int npy_mem(const char *text, fmt_member_t *m, char *msg) {
  unsigned char b[512];
  size_t n = strlen(text);
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  b[8] = (unsigned char)n;
  b[9] = 0;
  memcpy(b + 10, text, n);
  memset(b + 10 + n, 0, 64);
  mem_t mm = {b, NULL, (int64_t)n + 10 + 64, 0, (int64_t)n + 10 + 64};
  fmt_reader_t r = {&mm, mm.size, mem_read};
  memset(m, 0, sizeof *m);
  return darray__npy_read(&r, 0, -1, m, msg);
}

/* ---- .npy headers */

static void npy_tests(void) {
  fmt_member_t m;
  char msg[DARRAY_ERRMSG_LEN];
  TU_OK(npy_mem("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)"
                ", }\n", &m, msg));
  TU_EQ_INT(m.info.type, DARRAY_DOUBLE);
  TU_EQ_INT(m.info.ndims, 2);
  TU_EQ_I64(m.info.gsizes[1], 3);
  TU_EQ_INT(m.info.order, DARRAY_ORDER_C);
  TU_EQ_I64(m.info.bytes, 48);
  TU_OK(npy_mem("{\"shape\": (2, 3), \"fortran_order\": True, \"descr\": "
                "'<i4'}", &m, msg));
  TU_EQ_INT(m.info.order, DARRAY_ORDER_FORTRAN);
  TU_EQ_INT(m.info.perm[0], 1);
  TU_OK(npy_mem("{'descr': '|u1', 'fortran_order': False, 'shape': (5, 2, "
                "3), } # darrayio perm 2 0 1\n", &m, msg));
  TU_EQ_INT(m.info.order, DARRAY_ORDER_PERM);
  TU_EQ_I64(m.info.gsizes[0], 2);
  TU_EQ_I64(m.info.gsizes[1], 3);
  TU_EQ_I64(m.info.gsizes[2], 5);
  TU_EQ_INT(m.info.perm[0], 2);
  TU_OK(npy_mem("{'descr': '|V3', 'fortran_order': False, 'shape': (4,), }",
                &m, msg));
  TU_EQ_INT(m.info.type, DARRAY_OPAQUE);
  TU_EQ_I64(m.info.elem_size, 3);
  static const struct {
    const char *text;
    int code;
  } bad[] = {
      {"{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '<m8[ns]', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '>f8', 'fortran_order': False, 'shape': (2,1,1,1,1,1,1,1,1,1), }", DARRAY_ENOTSUP},
      {"{'descr': 'f8', 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<8', 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<M8[s', 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8x', 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '', 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': [('a', '<f8'), 'fortran_order': False, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", DARRAY_ENOTSUP},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", DARRAY_ENOTSUP},
      {"{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", DARRAY_ENOTSUP},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'descr': '<f8', 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (100,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), } x", DARRAY_EFORMAT},
      {"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), } # darrayio perm 0 0", DARRAY_EFORMAT},
      {"{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), } # darrayio perm 1 0", DARRAY_EFORMAT},
      {"hello", DARRAY_EFORMAT},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,", DARRAY_EFORMAT},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (!TU_EQ_CODE(npy_mem(bad[i].text, &m, msg), bad[i].code))
      fprintf(stderr, "  header: %s\n  message: %s\n", bad[i].text, msg);
  /* what a member not read says of itself: NumPy's name, the shape */
  TU_EQ_CODE(npy_mem("{'descr': '<M8[ns]', 'fortran_order': True, 'shape': "
                     "(2, 3), }", &m, msg), DARRAY_ENOTSUP);
  TU_CONTAINS(msg, "'<M8[ns]'");
  TU_EQ_STR(m.info.descr, "<M8[ns]");
  TU_EQ_INT(m.info.status, DARRAY_ENOTSUP);
  TU_EQ_INT(m.info.type, 0);
  TU_EQ_INT(m.info.ndims, 2);
  TU_EQ_I64(m.info.gsizes[1], 3);
  TU_EQ_CODE(npy_mem("{'descr': '|O', 'fortran_order': False, 'shape': (), "
                     "}", &m, msg), DARRAY_ENOTSUP);
  TU_CONTAINS(msg, "'|O'");
  TU_EQ_CODE(npy_mem("{'descr': [('a', '<f8'), ('b', [('c', '|u1')])], "
                     "'fortran_order': False, 'shape': (2,), }", &m, msg),
             DARRAY_ENOTSUP);
  TU_EQ_STR(m.info.descr, "[('a', '<f8'), ('b', [('c', ...");
  TU_CONTAINS(msg, "structured");
  /* a 0-d array: one element */
  TU_OK(npy_mem("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                &m, msg));
  TU_EQ_INT(m.info.status, DARRAY_SUCCESS);
  TU_EQ_INT(m.info.scalar, 1);
  TU_EQ_INT(m.info.type, DARRAY_DOUBLE);
  TU_EQ_INT(m.info.ndims, 1);
  TU_EQ_I64(m.info.gsizes[0], 1);
  TU_EQ_I64(m.info.bytes, 8);
  TU_EQ_INT(m.info.order, DARRAY_ORDER_C);
  TU_EQ_STR(m.info.descr, "<f8");
  /* a header length past what the file holds, and a bad magic */
  unsigned char b[40] = "\x93NUMPY\x01\x00\xff\xff{}";
  mem_t mm = {b, NULL, 40, 0, 40};
  fmt_reader_t r = {&mm, 40, mem_read};
  TU_EQ_CODE(darray__npy_read(&r, 0, -1, &m, msg), DARRAY_EFORMAT);
  b[1] = 'X';
  TU_EQ_CODE(darray__npy_read(&r, 0, -1, &m, msg), DARRAY_EFORMAT);
  /* written headers read back, aligned */
  darray_member_info_t in = {.type = DARRAY_INT16, .elem_size = 2,
                             .ndims = 3, .gsizes = {4, 5, 6},
                             .perm = {1, 2, 0}};
  char *h = malloc(DARRAY_NPY_HEADER_MAX + 64);
  int64_t len = 0;
  TU_OK(darray__npy_header(&in, 100, 4096, h, &len, msg));
  TU_EQ_I64((100 + len) % 4096, 0);
  memset(h + len, 0, 4 * 5 * 6 * 2);
  mem_t hm = {(unsigned char *)h, NULL, len + 240, 0, len + 240};
  fmt_reader_t hr = {&hm, hm.size, mem_read};
  TU_OK(darray__npy_read(&hr, 0, -1, &m, msg));
  TU_EQ_INT(m.info.order, DARRAY_ORDER_PERM);
  for (int d = 0; d < 3; d++) {
    TU_EQ_I64(m.info.gsizes[d], in.gsizes[d]);
    TU_EQ_INT(m.info.perm[d], in.perm[d]);
  }
  TU_EQ_I64(m.info.offset, len);
  in.type = DARRAY_LONG_DOUBLE;
  TU_EQ_CODE(darray__npy_header(&in, 0, 64, h, &len, msg), DARRAY_ETYPE);
  free(h);
}

/* ---- .npz archives built in memory */

typedef struct arc {
  fmt_file_t z;
  unsigned char *b;
  int64_t n, cd; /* bytes; where the central directory starts */
} arc_t;

static void add(fmt_file_t *z, const char *name, darray_type_t t,
                int64_t es, int64_t count) {
  fmt_member_t *m = &z->m[z->n++];
  char *h = malloc(DARRAY_NPY_HEADER_MAX);
  char msg[DARRAY_ERRMSG_LEN];
  memset(m, 0, sizeof *m);
  snprintf(m->info.name, sizeof m->info.name, "%s", name);
  m->info.type = t;
  m->info.elem_size = es;
  m->info.ndims = 1;
  m->info.gsizes[0] = count;
  m->info.bytes = es * count;
  TU_OK(darray__npy_header(&m->info, 0, 64, h, &m->npy_len, msg));
  TU_OK(darray__zip_place(z, m, msg));
  free(h);
}

/* Write every header and the directory of z into b (data: a pattern),
 * CRCs from zlib over the bytes written. */
static void build(arc_t *a, int64_t align) {
  fmt_file_t *z = &a->z;
  char msg[DARRAY_ERRMSG_LEN];
  memset(a, 0, sizeof *a);
  z->align = align;
  z->m = calloc(4, sizeof *z->m);
  add(z, "u", DARRAY_DOUBLE, 8, 12);
  add(z, "v", DARRAY_INT32, 4, 10);
  unsigned char *cd = NULL;
  int64_t ncd = 0;
  a->b = calloc((size_t)z->end + 4096, 1);
  for (int i = 0; i < z->n; i++) {
    fmt_member_t *m = &z->m[i];
    int64_t len = 0;
    unsigned char *p = a->b + m->lh_off + m->lh_len;
    TU_OK(darray__npy_header(&m->info, 0, 64, (char *)p, &len, msg));
    tu_fill_bytes(a->b + m->info.offset, m->info.bytes, 9, i);
    m->info.crc32 = (uint32_t)crc32(0, p, (uInt)(len + m->info.bytes));
    darray__zip_local(m, m->info.crc32, a->b + m->lh_off);
  }
  TU_OK(darray__zip_central(z, &cd, &ncd, msg));
  memcpy(a->b + z->end, cd, (size_t)ncd);
  a->cd = z->end;
  a->n = z->end + ncd;
  free(cd);
}

static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Parse a damaged copy of a's bytes (n of them); expect code. */
static void expect(const arc_t *a, int64_t n, int64_t at, int len,
                   const void *with, int code, const char *what) {
  unsigned char *b = malloc((size_t)a->n);
  char msg[DARRAY_ERRMSG_LEN] = "";
  fmt_file_t z;
  memcpy(b, a->b, (size_t)a->n);
  if (len > 0)
    memcpy(b + at, with, (size_t)len);
  if (!TU_EQ_CODE(parse_mem(b, n, &z, msg), code))
    fprintf(stderr, "  damage: %s: %s\n", what, msg);
  free(z.m);
  free(b);
}

static void zip_tests(void) {
  int64_t aligns[] = {4096, 100, 1 << 20};
  for (size_t k = 0; k < 3; k++) {
    arc_t a;
    fmt_file_t z;
    char msg[DARRAY_ERRMSG_LEN] = "";
    build(&a, aligns[k]);
    if (TU_OK(parse_mem(a.b, a.n, &z, msg)) && TU_EQ_INT(z.n, 2))
      for (int i = 0; i < 2; i++) {
        TU_EQ_STR(z.m[i].info.name, a.z.m[i].info.name);
        TU_EQ_I64(z.m[i].info.offset, a.z.m[i].info.offset);
        TU_EQ_I64(z.m[i].info.offset % aligns[k], 0);
        TU_EQ_U64(z.m[i].info.crc32, a.z.m[i].info.crc32);
        TU_EQ_U64(darray__crc_member(z.m[i].hdr_crc,
                                     darray__crc_bytes(a.b + z.m[i].info.offset,
                                                       z.m[i].info.bytes) ^
                                         darray__crc_zeros(z.m[i].info.bytes),
                                     z.m[i].info.bytes),
                  z.m[i].info.crc32);
      }
    free(z.m);
    if (k > 0) {
      free(a.b);
      free(a.z.m);
      continue;
    }
    int64_t e1 = a.cd + 46 + 5; /* the second directory entry */
    unsigned char out[4], slash = '/', dots[2] = {'.', '.'}, eight = 8;
    unsigned char ffff[2] = {0xff, 0xff};
    put32(out, (uint32_t)a.n);
    expect(&a, a.n - 1, 0, 0, NULL, DARRAY_EFORMAT, "truncated by a byte");
    expect(&a, a.n / 2, 0, 0, NULL, DARRAY_EFORMAT, "truncated by half");
    expect(&a, 10, 0, 0, NULL, DARRAY_EFORMAT, "ten bytes");
    expect(&a, a.n, a.n - 6, 4, out, DARRAY_EFORMAT, "directory outside");
    expect(&a, a.n, a.n - 10, 4, out, DARRAY_EFORMAT, "directory too long");
    expect(&a, a.n, a.cd + 46, 1, &slash, DARRAY_EFORMAT, "'/' in a name");
    expect(&a, a.n, e1 + 46 - 1, 2, dots, DARRAY_EFORMAT, "'..' in a name");
    /* a deflated member is listed, not read; the other one reads */
    expect(&a, a.n, a.cd + 10, 1, &eight, DARRAY_SUCCESS, "deflated");
    unsigned char *dfl = malloc((size_t)a.n);
    memcpy(dfl, a.b, (size_t)a.n);
    dfl[a.cd + 10] = 8;
    if (TU_OK(parse_mem(dfl, a.n, &z, msg)) && TU_EQ_INT(z.n, 2)) {
      TU_EQ_INT(z.m[0].info.status, DARRAY_ENOTSUP);
      TU_CONTAINS(z.m[0].why, "compressed (method 8)");
      TU_EQ_INT(z.m[0].info.has_crc, 0);
      TU_EQ_I64(z.m[0].info.offset, a.z.m[0].lh_off + a.z.m[0].lh_len);
      TU_EQ_I64(z.m[0].info.bytes, a.z.m[0].npy_len + a.z.m[0].info.bytes);
      TU_EQ_INT(z.m[1].info.status, DARRAY_SUCCESS);
      TU_EQ_I64(z.m[1].info.offset, a.z.m[1].info.offset);
    }
    free(z.m);
    free(dfl);
    unsigned char u = 'u', one[2] = {1, 0};
    expect(&a, a.n, e1 + 46, 1, &u, DARRAY_EFORMAT, "two members named u");
    expect(&a, a.n, a.n - 22 + 10, 2, one, DARRAY_EFORMAT,
           "a count short of the directory's entries");
    put32(out, (uint32_t)a.z.m[0].lh_off);
    expect(&a, a.n, e1 + 42, 4, out, DARRAY_EFORMAT, "overlapping members");
    put32(out, (uint32_t)a.cd);
    expect(&a, a.n, e1 + 42, 4, out, DARRAY_EFORMAT, "local header in cd");
    put32(out, 0xfffffff0u);
    expect(&a, a.n, e1 + 20, 4, out, DARRAY_EFORMAT, "absurd size");
    expect(&a, a.n, a.z.m[0].lh_off + a.z.m[0].lh_len + 8, 2, ffff,
           DARRAY_EFORMAT, "absurd .npy header length");
    expect(&a, a.n, a.z.m[1].lh_off + 26, 1, &eight, DARRAY_EFORMAT,
           "local name length");
    free(a.b);
    free(a.z.m);
  }
}

/* A member of 5 GiB after a small one: ZIP64 fields, parsed back. */
static void zip64_test(void) {
  fmt_file_t z = {.align = 4096};
  char msg[DARRAY_ERRMSG_LEN] = "";
  z.m = calloc(4, sizeof *z.m);
  add(&z, "small", DARRAY_UINT8, 1, 10);
  add(&z, "big", DARRAY_UINT8, 1, INT64_C(5) << 30);
  TU_CHECK(z.m[1].zip64);
  int64_t head = z.m[1].info.offset, ncd = 0;
  unsigned char *h = calloc((size_t)head, 1), *cd = NULL;
  for (int i = 0; i < 2; i++) {
    fmt_member_t *m = &z.m[i];
    int64_t len = 0;
    TU_OK(darray__npy_header(&m->info, 0, 64, (char *)h + m->lh_off +
                             m->lh_len, &len, msg));
    m->hdr_crc = darray__crc_bytes(h + m->lh_off + m->lh_len, len);
    m->info.crc32 = darray__crc_member(m->hdr_crc, 0, m->info.bytes);
    darray__zip_local(m, m->info.crc32, h + m->lh_off);
  }
  TU_OK(darray__zip_central(&z, &cd, &ncd, msg));
  mem_t mm = {h, cd, head, ncd, z.end + ncd};
  fmt_reader_t r = {&mm, mm.size, mem_read};
  fmt_file_t got;
  memset(&got, 0, sizeof got);
  if (TU_OK(darray__zip_parse(&r, &got, msg)) && TU_EQ_INT(got.n, 2)) {
    TU_EQ_I64(got.m[1].info.bytes, INT64_C(5) << 30);
    TU_EQ_I64(got.m[1].info.offset, z.m[1].info.offset);
    TU_EQ_U64(got.m[1].info.crc32, z.m[1].info.crc32);
  } else {
    fprintf(stderr, "  zip64: %s\n", msg);
  }
  free(got.m);
  free(cd);
  free(h);
  free(z.m);
}

/* The duplicate check by sorting: among many names, a pair far apart or
 * next to each other is found; distinct names pass. */
static void unique_test(void) {
  enum { N = 5000 };
  fmt_member_t *m = calloc(N, sizeof *m);
  char msg[DARRAY_ERRMSG_LEN] = "";
  for (int i = 0; i < N; i++)
    snprintf(m[i].info.name, sizeof m[i].info.name, "arr_%d", (i * 7919) % N);
  TU_OK(darray__zip_unique(m, N, msg));
  TU_OK(darray__zip_unique(m, 0, msg));
  int pairs[3][2] = {{0, N - 1}, {2500, 2501}, {4998, 17}};
  for (int k = 0; k < 3; k++) {
    char keep[DARRAY_NAME_MAX + 1];
    fmt_member_t *b = &m[pairs[k][1]];
    memcpy(keep, b->info.name, sizeof keep);
    memcpy(b->info.name, m[pairs[k][0]].info.name, sizeof keep);
    TU_EQ_CODE(darray__zip_unique(m, N, msg), DARRAY_EFORMAT);
    TU_CONTAINS(msg, m[pairs[k][0]].info.name);
    memcpy(b->info.name, keep, sizeof keep);
  }
  free(m);
}

/* What Python's zipfile writes for exactly 65,535 members (numpy.savez of
 * that many arrays): the end record's count is 0xFFFF and no ZIP64 record
 * follows the directory (it writes them only past 65,535). The archive is
 * darrayio's own with its ZIP64 end records cut out; the sentinel count
 * must then be taken as it is. */
static void count_ffff_test(void) {
  enum { N = 65535 };
  fmt_file_t z = {.align = 64};
  char msg[DARRAY_ERRMSG_LEN] = "";
  z.m = calloc(N, sizeof *z.m);
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "arr_%d", i);
    add(&z, name, DARRAY_INT32, 4, 1);
  }
  unsigned char *b = calloc((size_t)z.end, 1), *cd = NULL;
  for (int i = 0; i < N; i++) {
    fmt_member_t *m = &z.m[i];
    int64_t len = 0;
    unsigned char *p = b + m->lh_off + m->lh_len;
    TU_OK(darray__npy_header(&m->info, 0, 64, (char *)p, &len, msg));
    int32_t v = 3 * i + 1;
    memcpy(b + m->info.offset, &v, 4);
    m->info.crc32 = (uint32_t)crc32(0, p, (uInt)(len + 4));
    darray__zip_local(m, m->info.crc32, b + m->lh_off);
  }
  int64_t ncd = 0;
  TU_OK(darray__zip_central(&z, &cd, &ncd, msg));
  /* directory, ZIP64 end record (56), locator (20), end record (22) */
  int64_t dir = ncd - 22 - 76;
  TU_EQ_U64(cd[dir] | cd[dir + 1] << 8, 0x4b50);
  memmove(cd + dir, cd + dir + 76, 22);
  ncd -= 76;
  TU_EQ_I64(cd[ncd - 22 + 10] | cd[ncd - 22 + 11] << 8, 0xffff);
  mem_t mm = {b, cd, z.end, ncd, z.end + ncd};
  fmt_reader_t r = {&mm, mm.size, mem_read};
  fmt_file_t got;
  memset(&got, 0, sizeof got);
  if (TU_OK(darray__zip_parse(&r, &got, msg)) && TU_EQ_INT(got.n, N))
    for (int i = 0; i < N; i += 4681) {
      int32_t v = 0;
      TU_EQ_STR(got.m[i].info.name, z.m[i].info.name);
      TU_EQ_I64(got.m[i].info.offset, z.m[i].info.offset);
      memcpy(&v, b + got.m[i].info.offset, 4);
      TU_EQ_INT(v, 3 * i + 1);
    }
  else
    fprintf(stderr, "  65535 members: %s\n", msg);
  free(got.m);
  free(cd);
  free(b);
  free(z.m);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  crc_tests();
  clmul_tests();
  npy_tests();
  zip_tests();
  zip64_test();
  unique_test();
  count_ffff_test();
  return tu_finish();
}
