/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * zip.c - the ZIP structures of a .npz archive: stored members, each a
 * local header (with a ZIP64 field when the member is 4 GiB or more and a
 * padding field that aligns its data, as zipalign does), then the central
 * directory and the end records (ZIP64 ones when counts, sizes or offsets
 * need them). All numbers are little-endian (APPNOTE.TXT, 4.3).
 */
#include "format/format.h"

#include <stdlib.h>
#include <string.h>

#define SIG_LOCAL UINT32_C(0x04034b50)
#define SIG_CENTRAL UINT32_C(0x02014b50)
#define SIG_END UINT32_C(0x06054b50)
#define SIG_END64 UINT32_C(0x06064b50)
#define SIG_LOC64 UINT32_C(0x07064b50)
#define ID_ZIP64 0x0001
#define ID_ALIGN 0xD935 /* the padding field zipalign uses */
#define MAX16 INT64_C(0xffff)
#define MAX32 INT64_C(0xffffffff)
#define DOS_DATE 0x21 /* 1980-01-01: equal inputs give equal files */
#define EXTRA_MAX 65535

static void put16(unsigned char *p, int64_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void put32(unsigned char *p, int64_t v) {
  put16(p, v & 0xffff);
  put16(p + 2, (v >> 16) & 0xffff);
}
static void put64(unsigned char *p, int64_t v) {
  put32(p, v & MAX32);
  put32(p + 4, (int64_t)((uint64_t)v >> 32));
}

bool darray__zip_name_ok(const char *name, size_t len) {
  if (len == 0 || len > DARRAY_NAME_MAX || strstr(name, "..") != NULL)
    return false;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\')
      return false;
  }
  return strlen(name) == len;
}

/* ---- writing */

int darray__zip_place(fmt_file_t *z, fmt_member_t *m, char *msg) {
  int64_t nz = (int64_t)strlen(m->info.name) + 4, size, end, a = z->align;
  if (!darray__add_ok(m->npy_len, m->info.bytes, &size))
    return darray__err(msg, DARRAY_ESIZE, "member '%s' is larger than "
                       "2^63 bytes", m->info.name);
  m->zip64 = size >= MAX32;
  int64_t z64 = m->zip64 ? 20 : 0, fixed = 30 + nz + z64, lo = z->end;
  int64_t need = (a - (lo + fixed + m->npy_len) % a) % a, pad = need;
  if (pad > 0 && pad < 4)
    pad += a; /* room for the field's own 4 bytes */
  if (pad > EXTRA_MAX - z64) { /* too far for a field: a gap before */
    lo += need;
    pad = 0;
  }
  m->lh_off = lo;
  m->lh_len = fixed + pad;
  m->info.offset = lo + m->lh_len + m->npy_len;
  if (!darray__add_ok(m->info.offset, m->info.bytes, &end) ||
      !darray__add_ok(end, INT64_C(1) << 32, &size)) /* room for the end */
    return darray__err(msg, DARRAY_ESIZE, "member '%s' would end past "
                       "2^63 bytes", m->info.name);
  z->end = end;
  return DARRAY_SUCCESS;
}

void darray__zip_local(const fmt_member_t *m, uint32_t crc,
                       unsigned char *b) {
  int64_t nz = (int64_t)strlen(m->info.name) + 4;
  int64_t size = m->npy_len + m->info.bytes, z64 = m->zip64 ? 20 : 0;
  int64_t pad = m->lh_len - 30 - nz - z64;
  memset(b, 0, (size_t)m->lh_len);
  put32(b, SIG_LOCAL);
  put16(b + 4, m->zip64 ? 45 : 20);
  put16(b + 12, DOS_DATE);
  put32(b + 14, crc);
  put32(b + 18, m->zip64 ? MAX32 : size);
  put32(b + 22, m->zip64 ? MAX32 : size);
  put16(b + 26, nz);
  put16(b + 28, z64 + pad);
  memcpy(b + 30, m->info.name, (size_t)nz - 4);
  memcpy(b + 30 + nz - 4, ".npy", 4);
  unsigned char *e = b + 30 + nz;
  if (m->zip64) {
    put16(e, ID_ZIP64);
    put16(e + 2, 16);
    put64(e + 4, size);
    put64(e + 12, size);
    e += 20;
  }
  if (pad > 0) {
    put16(e, ID_ALIGN);
    put16(e + 2, pad - 4);
  }
}

/* One central directory entry into b (NULL: only its length). */
static int64_t central_entry(const fmt_member_t *m, unsigned char *b) {
  int64_t nz = (int64_t)strlen(m->info.name) + 4;
  int64_t size = m->npy_len + m->info.bytes;
  bool big = size >= MAX32, far = m->lh_off >= MAX32;
  int64_t z64 = (big ? 16 : 0) + (far ? 8 : 0);
  int64_t len = 46 + nz + (z64 ? 4 + z64 : 0);
  if (b == NULL)
    return len;
  memset(b, 0, (size_t)len);
  put32(b, SIG_CENTRAL);
  put16(b + 4, 3 << 8 | 45); /* made by: Unix, 4.5 */
  put16(b + 6, m->zip64 || far ? 45 : 20);
  put16(b + 14, DOS_DATE);
  put32(b + 16, m->info.crc32);
  put32(b + 20, big ? MAX32 : size);
  put32(b + 24, big ? MAX32 : size);
  put16(b + 28, nz);
  put16(b + 30, z64 ? 4 + z64 : 0);
  put32(b + 38, INT64_C(0100644) << 16); /* a regular file, rw-r--r-- */
  put32(b + 42, far ? MAX32 : m->lh_off);
  memcpy(b + 46, m->info.name, (size_t)nz - 4);
  memcpy(b + 46 + nz - 4, ".npy", 4);
  unsigned char *e = b + 46 + nz;
  if (z64) {
    put16(e, ID_ZIP64);
    put16(e + 2, z64);
    e += 4;
  }
  if (big) {
    put64(e, size);
    put64(e + 8, size);
    e += 16;
  }
  if (far)
    put64(e, m->lh_off);
  return len;
}

/* The end records after a directory of n entries, cd bytes at off. */
static int64_t end_records(int64_t n, int64_t cd, int64_t off,
                           unsigned char *b) {
  bool z64 = n >= MAX16 || cd >= MAX32 || off >= MAX32;
  if (b == NULL)
    return 22 + (z64 ? 56 + 20 : 0);
  if (z64) {
    memset(b, 0, 76);
    put32(b, SIG_END64);
    put64(b + 4, 44);
    put16(b + 12, 45);
    put16(b + 14, 45);
    put64(b + 24, n);
    put64(b + 32, n);
    put64(b + 40, cd);
    put64(b + 48, off);
    put32(b + 56, SIG_LOC64);
    put64(b + 64, off + cd);
    put32(b + 72, 1);
    b += 76;
  }
  memset(b, 0, 22);
  put32(b, SIG_END);
  put16(b + 8, n < MAX16 ? n : MAX16);
  put16(b + 10, n < MAX16 ? n : MAX16);
  put32(b + 12, cd < MAX32 ? cd : MAX32);
  put32(b + 16, off < MAX32 ? off : MAX32);
  return 22;
}

int darray__zip_central(const fmt_file_t *z, unsigned char **buf,
                        int64_t *len, char *msg) {
  int64_t cd = 0;
  for (int i = 0; i < z->n; i++)
    cd += central_entry(&z->m[i], NULL);
  int64_t total = cd + end_records(z->n, cd, z->end, NULL);
  unsigned char *b = malloc((size_t)total);
  if (b == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory for the central "
                       "directory (%lld bytes)", (long long)total);
  int64_t k = 0;
  for (int i = 0; i < z->n; i++)
    k += central_entry(&z->m[i], b + k);
  end_records(z->n, cd, z->end, b + k);
  *buf = b;
  *len = total;
  return DARRAY_SUCCESS;
}
