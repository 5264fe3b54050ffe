/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * zip_read.c - parse a .npz archive, trusting nothing: the end record
 * must end the file, the central directory and every member must lie
 * inside it, members must not overlap, and every size is checked before
 * it is used. Any fault is DARRAY_EFORMAT (damaged or hostile) or
 * DARRAY_ENOTSUP (a ZIP feature darrayio does not read), with a message.
 */
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIG_LOCAL UINT32_C(0x04034b50)
#define SIG_CENTRAL UINT32_C(0x02014b50)
#define SIG_END UINT32_C(0x06054b50)
#define SIG_END64 UINT32_C(0x06064b50)
#define SIG_LOC64 UINT32_C(0x07064b50)
#define MAX16 INT64_C(0xffff)
#define MAX32 INT64_C(0xffffffff)
/* The largest central directory read: 46 bytes and a name per member. */
#define CD_MAX (INT64_C(1) << 30)

static int64_t get16(const unsigned char *p) { return p[0] | p[1] << 8; }
static int64_t get32(const unsigned char *p) {
  return get16(p) | get16(p + 2) << 16;
}
static uint64_t get64(const unsigned char *p) {
  return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int bad(char *msg, const char *what) {
  return darray__err(msg, DARRAY_EFORMAT, ".npz: %s", what);
}

/* Where the central directory is: cd bytes at *off, n entries; *limit is
 * where the end records start (nothing of a member may reach past it). */
typedef struct dir {
  int64_t n, cd, off, limit;
} dir_t;

/* The ZIP64 end record the locator at loc points to. */
static int end64(fmt_reader_t *r, int64_t loc, dir_t *d, char *msg) {
  unsigned char b[56];
  int rc = r->read(r->ctx, b, 20, loc);
  if (rc != DARRAY_SUCCESS)
    return rc;
  uint64_t at = get64(b + 8);
  if (get32(b) != SIG_LOC64 || at > (uint64_t)loc - 56 || loc < 56)
    return bad(msg, "the ZIP64 locator points outside the file");
  if ((rc = r->read(r->ctx, b, 56, (int64_t)at)) != DARRAY_SUCCESS)
    return rc;
  if (get32(b) != SIG_END64)
    return bad(msg, "no ZIP64 end record where the locator points");
  if (get32(b + 16) != 0 || get32(b + 20) != 0)
    return darray__err(msg, DARRAY_ENOTSUP, ".npz: archives split over "
                       "several disks are not supported");
  uint64_t n = get64(b + 32), cd = get64(b + 40), off = get64(b + 48);
  if (n > (uint64_t)INT64_MAX || cd > (uint64_t)at || off > (uint64_t)at - cd)
    return bad(msg, "the central directory points outside the file");
  d->n = (int64_t)n;
  d->cd = (int64_t)cd;
  d->off = (int64_t)off;
  d->limit = (int64_t)at;
  return DARRAY_SUCCESS;
}

/* Find the end record: the last signature whose comment ends the file.
 * A ZIP64 locator right before it gives the ZIP64 end record. Without
 * one, the record's values stand as they are, 0xFFFF and 0xFFFFFFFF too:
 * the ZIP64 records are written where a value does not fit (Python's
 * zipfile, as numpy.savez uses it, writes none for exactly 65,535
 * members), and a count that was cut is caught by the directory's size
 * (entries). */
static int find_end(fmt_reader_t *r, dir_t *d, char *msg) {
  if (r->size < 22)
    return bad(msg, "the file is too short for a ZIP archive");
  int64_t tail = r->size < 22 + MAX16 ? r->size : 22 + MAX16;
  unsigned char *b = malloc((size_t)tail);
  if (b == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  int rc = r->read(r->ctx, b, tail, r->size - tail);
  int64_t at = -1;
  for (int64_t i = tail - 22; rc == DARRAY_SUCCESS && i >= 0 && at < 0; i--)
    if (get32(b + i) == SIG_END && i + 22 + get16(b + i + 20) == tail)
      at = i;
  if (rc == DARRAY_SUCCESS && at < 0)
    rc = bad(msg, "no end of central directory record (not a ZIP archive, "
                  "or truncated)");
  if (rc == DARRAY_SUCCESS && (get16(b + at + 4) != 0 ||
                               get16(b + at + 6) != 0))
    rc = darray__err(msg, DARRAY_ENOTSUP, ".npz: archives split over "
                     "several disks are not supported");
  if (rc == DARRAY_SUCCESS) {
    int64_t pos = r->size - tail + at;
    d->n = get16(b + at + 10);
    d->cd = get32(b + at + 12);
    d->off = get32(b + at + 16);
    d->limit = pos;
    unsigned char loc[4] = {0};
    if (pos >= 20)
      rc = r->read(r->ctx, loc, 4, pos - 20);
    if (rc == DARRAY_SUCCESS && pos >= 20 && get32(loc) == SIG_LOC64)
      rc = end64(r, pos - 20, d, msg);
    else if (rc == DARRAY_SUCCESS && (d->cd > pos || d->off > pos - d->cd))
      rc = bad(msg, d->n == MAX16 || d->cd == MAX32 || d->off == MAX32
                        ? "the central directory points outside the file "
                          "(and no ZIP64 locator precedes the end record)"
                        : "the central directory points outside the file");
  }
  free(b);
  return rc;
}

/* A ZIP64 field's values for the entry's 0xffffffff fields. */
static int zip64_field(const unsigned char *e, int64_t elen, int64_t *usize,
                       int64_t *csize, int64_t *lh, char *msg) {
  for (int64_t k = 0; k + 4 <= elen;) {
    int64_t id = get16(e + k), n = get16(e + k + 2);
    if (k + 4 + n > elen)
      return bad(msg, "a central directory extra field overruns its entry");
    if (id == 0x0001) {
      int64_t *want[3] = {usize, csize, lh}, j = 0;
      for (int w = 0; w < 3; w++) {
        if (*want[w] != MAX32)
          continue;
        if (j + 8 > n || get64(e + k + 4 + j) > (uint64_t)INT64_MAX)
          return bad(msg, "a ZIP64 field is short or its value too large");
        *want[w] = (int64_t)get64(e + k + 4 + j);
        j += 8;
      }
    }
    k += 4 + n;
  }
  return DARRAY_SUCCESS;
}

/* Central directory entry at b (room bytes left) into m; *len its size. */
static int central(const unsigned char *b, int64_t room, fmt_member_t *m,
                   int64_t *len, char *msg) {
  if (room < 46 || get32(b) != SIG_CENTRAL)
    return bad(msg, "a central directory entry is missing or damaged");
  int64_t nlen = get16(b + 28), elen = get16(b + 30), clen = get16(b + 32);
  *len = 46 + nlen + elen + clen;
  if (*len > room)
    return bad(msg, "a central directory entry overruns the directory");
  char name[DARRAY_NAME_MAX + 8];
  if (nlen < 5 || nlen > DARRAY_NAME_MAX + 4 ||
      memcmp(b + 46 + nlen - 4, ".npy", 4) != 0)
    return darray__err(msg, DARRAY_EFORMAT, ".npz: an entry's name is not "
                       "NAME.npy with NAME of 1 to %d bytes",
                       DARRAY_NAME_MAX);
  memcpy(name, b + 46, (size_t)nlen - 4);
  name[nlen - 4] = '\0';
  if (!darray__zip_name_ok(name, (size_t)nlen - 4))
    return darray__err(msg, DARRAY_EFORMAT, ".npz: entry name '%.40s' has "
                       "'/', '\\', '..' or control characters", name);
  /* encrypted or compressed: listed, not read (its CRC is of bytes
   * darrayio does not see) */
  int method = (int)get16(b + 10);
  if (get16(b + 8) & 1)
    snprintf(m->why, sizeof m->why, "encrypted");
  else if (method != 0)
    snprintf(m->why, sizeof m->why, "compressed (method %d): darrayio reads "
             "stored members (numpy.savez, not savez_compressed)", method);
  bool stored = m->why[0] == '\0';
  int64_t csize = get32(b + 20), usize = get32(b + 24), lh = get32(b + 42);
  int rc = zip64_field(b + 46 + nlen, elen, &usize, &csize, &lh, msg);
  if (rc == DARRAY_SUCCESS && ((stored && csize != usize) ||
                               usize == MAX32 || csize == MAX32 ||
                               lh == MAX32))
    rc = bad(msg, "a stored member's sizes disagree or lack ZIP64 fields");
  memcpy(m->info.name, name, (size_t)nlen - 3);
  m->info.status = stored ? DARRAY_SUCCESS : DARRAY_ENOTSUP;
  m->info.crc32 = stored ? (uint32_t)get32(b + 16) : 0;
  m->info.has_crc = stored;
  m->lh_off = lh;
  m->info.bytes = csize; /* the member's bytes until the header is read */
  return rc;
}

/* The local header of m: where its .npy starts; then the .npy header. */
static int local(fmt_reader_t *r, const dir_t *d, fmt_member_t *m,
                 char *msg) {
  unsigned char b[30];
  int64_t size = m->info.bytes, start;
  if (m->lh_off > d->off - 30)
    return darray__err(msg, DARRAY_EFORMAT, ".npz: member '%s': the local "
                       "header lies outside the members' part of the file",
                       m->info.name);
  int rc = r->read(r->ctx, b, 30, m->lh_off);
  if (rc != DARRAY_SUCCESS)
    return rc;
  size_t nlen = strlen(m->info.name);
  start = m->lh_off + 30 + get16(b + 26) + get16(b + 28);
  if (get32(b) != SIG_LOCAL || get16(b + 26) != (int64_t)nlen + 4)
    return darray__err(msg, DARRAY_EFORMAT, ".npz: member '%s': no local "
                       "header where the directory points", m->info.name);
  if (start > d->off || size > d->off - start)
    return darray__err(msg, DARRAY_EFORMAT, ".npz: member '%s' (%lld "
                       "bytes) reaches past the central directory",
                       m->info.name, (long long)size);
  m->lh_len = start - m->lh_off;
  if (m->info.status != DARRAY_SUCCESS) { /* compressed or encrypted */
    m->info.offset = start;
    return DARRAY_SUCCESS;
  }
  rc = darray__npy_read(r, start, size, m, msg);
  if (rc == DARRAY_ENOTSUP) { /* listed, not read */
    snprintf(m->why, sizeof m->why, "%s", msg);
    msg[0] = '\0';
    return DARRAY_SUCCESS;
  }
  if (rc != DARRAY_SUCCESS && strncmp(msg, ".npz", 4) != 0) {
    char inner[DARRAY_ERRMSG_LEN];
    memcpy(inner, msg, sizeof inner);
    darray__err(msg, rc, ".npz: member '%s': %.400s", m->info.name, inner);
  }
  return rc;
}

static int by_offset(const void *p, const void *q) {
  const fmt_member_t *a = p, *b = q;
  return a->lh_off < b->lh_off ? -1 : a->lh_off > b->lh_off;
}

static int by_name(const void *p, const void *q) {
  const fmt_member_t *const *a = p, *const *b = q;
  return strcmp((*a)->info.name, (*b)->info.name);
}

int darray__zip_unique(const fmt_member_t *m, int n, char *msg) {
  const fmt_member_t **s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
  if (s == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    s[i] = &m[i];
  qsort(s, (size_t)n, sizeof *s, by_name);
  int rc = DARRAY_SUCCESS;
  for (int i = 1; i < n && rc == DARRAY_SUCCESS; i++)
    if (strcmp(s[i - 1]->info.name, s[i]->info.name) == 0)
      rc = darray__err(msg, DARRAY_EFORMAT, ".npz: two members are named "
                       "'%s'", s[i]->info.name);
  free(s);
  return rc;
}

/* Members must not overlap nor share a name. */
static int disjoint(fmt_member_t *m, int n, char *msg) {
  fmt_member_t *s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
  if (s == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  memcpy(s, m, sizeof *s * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, by_offset);
  int rc = DARRAY_SUCCESS;
  for (int i = 1; i < n && rc == DARRAY_SUCCESS; i++)
    if (s[i].lh_off < s[i - 1].info.offset + s[i - 1].info.bytes)
      rc = darray__err(msg, DARRAY_EFORMAT, ".npz: members '%s' and '%s' "
                       "overlap", s[i - 1].info.name, s[i].info.name);
  free(s);
  return rc == DARRAY_SUCCESS ? darray__zip_unique(m, n, msg) : rc;
}

/* The directory's entries into z->m. */
static int entries(fmt_reader_t *r, const dir_t *d, fmt_file_t *z,
                   char *msg) {
  if (d->cd > CD_MAX || d->n > d->cd / 46 || d->n > INT32_MAX)
    return bad(msg, "the central directory's size and count disagree");
  unsigned char *b = malloc((size_t)(d->cd > 0 ? d->cd : 1));
  z->m = calloc((size_t)(d->n > 0 ? d->n : 1), sizeof *z->m);
  int rc = b == NULL || z->m == NULL
               ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
               : r->read(r->ctx, b, d->cd, d->off);
  int64_t k = 0, len = 0;
  for (int64_t i = 0; rc == DARRAY_SUCCESS && i < d->n; i++, k += len) {
    rc = central(b + k, d->cd - k, &z->m[i], &len, msg);
    if (rc == DARRAY_SUCCESS)
      rc = local(r, d, &z->m[i], msg);
    z->n = (int)i + 1;
  }
  if (rc == DARRAY_SUCCESS && k != d->cd) /* a count cut at 0xFFFF, say */
    rc = bad(msg, "the central directory holds more than its count of "
                  "entries");
  free(b);
  return rc == DARRAY_SUCCESS ? disjoint(z->m, z->n, msg) : rc;
}

int darray__zip_parse(fmt_reader_t *r, fmt_file_t *z, char *msg) {
  dir_t d;
  int rc = find_end(r, &d, msg);
  if (rc == DARRAY_SUCCESS && d.off + d.cd > d.limit)
    rc = bad(msg, "the central directory overlaps the end records");
  if (rc == DARRAY_SUCCESS)
    rc = entries(r, &d, z, msg);
  return rc;
}
