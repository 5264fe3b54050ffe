/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * npy.c - the NumPy .npy header: "\x93NUMPY", a version, the length of a
 * Python dictionary {'descr': ..., 'fortran_order': ..., 'shape': (...)}
 * padded with spaces and a newline, then the data. darrayio writes
 * version 1.0 and reads 1.0 to 3.0 (doc/formats.md).
 */
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NATIVE '>'
#define FOREIGN '<'
#else
#define NATIVE '<'
#define FOREIGN '>'
#endif

#define PERM_TAG "darrayio perm"

/* Element types with a NumPy name, their kind letters and sizes. */
static const struct {
  darray_type_t t;
  char kind;
  int size;
} types[] = {
    {DARRAY_CHAR, 'S', 1},   {DARRAY_INT8, 'i', 1},   {DARRAY_UINT8, 'u', 1},
    {DARRAY_INT16, 'i', 2},  {DARRAY_UINT16, 'u', 2}, {DARRAY_INT32, 'i', 4},
    {DARRAY_UINT32, 'u', 4}, {DARRAY_INT64, 'i', 8},  {DARRAY_UINT64, 'u', 8},
    {DARRAY_FLOAT, 'f', 4},  {DARRAY_DOUBLE, 'f', 8},
};
#define NTYPES (sizeof types / sizeof types[0])

int darray__npy_descr(darray_type_t t, int64_t esize, char *out, size_t n,
                      char *msg) {
  if (t == DARRAY_OPAQUE) {
    snprintf(out, n, "|V%lld", (long long)esize);
    return DARRAY_SUCCESS;
  }
  for (size_t i = 0; i < NTYPES; i++)
    if (types[i].t == t) {
      snprintf(out, n, "%c%c%d", types[i].size == 1 ? '|' : NATIVE,
               types[i].kind, types[i].size);
      return DARRAY_SUCCESS;
    }
  return darray__err(msg, DARRAY_ETYPE,
                     "element type %d has no portable NumPy name (long "
                     "double differs between machines): store it as "
                     "DARRAY_OPAQUE or convert it", (int)t);
}

/* The element type named by descr: DARRAY_EFORMAT when descr is no NumPy
 * type name (order, kind letter, size, [unit]), DARRAY_ENOTSUP when no
 * darrayio type is that type (m's type untouched then). */
static int descr_type(const char *d, darray_member_info_t *m, char *msg) {
  char order = d[0], kind = order ? d[1] : '\0';
  const char *p = kind ? d + 2 : d;
  int64_t size = 0;
  bool digits = false;
  for (; *p >= '0' && *p <= '9' && size < INT32_MAX; p++, digits = true)
    size = 10 * size + (*p - '0');
  const char *unit = p;
  if (*p == '[')
    while (*p != '\0' && *p != ']')
      p++;
  if (*p == ']')
    p++;
  if (strchr("<>|=", order) == NULL || order == '\0' ||
      !((kind >= 'a' && kind <= 'z') || (kind >= 'A' && kind <= 'Z')) ||
      *p != '\0' || (*unit == '[' && p[-1] != ']') ||
      (digits && size < 1))
    return darray__err(msg, DARRAY_EFORMAT, "descr '%s' is not a NumPy "
                       "type name", d);
  if (kind == 'O')
    return darray__err(msg, DARRAY_ENOTSUP, "descr '%s': Python objects "
                       "(pickled) are not supported", d);
  if (kind == 'M' || kind == 'm')
    return darray__err(msg, DARRAY_ENOTSUP, "descr '%s': datetime64 and "
                       "timedelta64 are not supported", d);
  if (order == FOREIGN && size > 1)
    return darray__err(msg, DARRAY_ENOTSUP, "descr '%s': %s-endian data is "
                       "not supported", d, NATIVE == '<' ? "big" : "little");
  if (kind == 'V' && digits && *unit == '\0') {
    m->type = DARRAY_OPAQUE;
    m->elem_size = size;
    return DARRAY_SUCCESS;
  }
  for (size_t i = 0; i < NTYPES && digits && *unit == '\0'; i++)
    if (types[i].kind == kind && types[i].size == size) {
      m->type = types[i].t;
      m->elem_size = size;
      return DARRAY_SUCCESS;
    }
  return darray__err(msg, DARRAY_ENOTSUP, "descr '%s': no darrayio element "
                     "type is that NumPy type", d);
}

/* ---- writing */

int darray__npy_header(const darray_member_info_t *m, int64_t pos,
                       int64_t align, char *out, int64_t *len, char *msg) {
  char descr[32], shape[DARRAY_MAX_DIMS * 24], note[64] = "";
  int rc = darray__npy_descr(m->type, m->elem_size, descr, sizeof descr, msg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  bool c = true, f = true;
  for (int i = 0; i < m->ndims; i++) {
    c = c && m->perm[i] == i;
    f = f && m->perm[i] == m->ndims - 1 - i;
  }
  size_t k = 0;
  for (int i = 0; i < m->ndims; i++) { /* C order: the file's own order */
    int d = c || f ? i : m->perm[i];
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld,%s",
                          (long long)m->gsizes[d],
                          i + 1 < m->ndims ? " " : "");
  }
  if (m->ndims > 1)
    shape[k - 1] = '\0'; /* "(3,)" but "(3, 4)" */
  if (!c && !f) {
    k = (size_t)snprintf(note, sizeof note, " # " PERM_TAG);
    for (int i = 0; i < m->ndims; i++)
      k += (size_t)snprintf(note + k, sizeof note - k, " %d", m->perm[i]);
  }
  int n = snprintf(out + 10, 1024, "{'descr': '%s', 'fortran_order': %s, "
                   "'shape': (%s), }%s", descr, !c && f ? "True" : "False",
                   shape, note);
  int64_t a = align >= 1 && align <= 8192 ? align : 64;
  int64_t base = 10 + n + 1, pad = (a - (pos + base) % a) % a;
  memset(out + 10 + n, ' ', (size_t)pad);
  out[base + pad - 1] = '\n';
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  int64_t hlen = base + pad - 10;
  out[8] = (char)(hlen & 0xff);
  out[9] = (char)(hlen >> 8);
  *len = base + pad;
  return DARRAY_SUCCESS;
}

/* ---- reading: a small parser of the dictionary NumPy writes */

typedef struct cursor {
  const char *p, *end;
  char *msg;
} cursor_t;

static void ws(cursor_t *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' ||
                           *c->p == '\r'))
    c->p++;
}

static int bad(cursor_t *c, const char *what) {
  return darray__err(c->msg, DARRAY_EFORMAT, ".npy header: %s", what);
}

static bool take(cursor_t *c, char ch) {
  ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A quoted string without escapes, into out (n bytes). */
static int string(cursor_t *c, char *out, size_t n) {
  ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return bad(c, "a key or descr is not a quoted string");
  char q = *c->p++;
  size_t k = 0;
  for (; c->p < c->end && *c->p != q; c->p++) {
    if (*c->p == '\\' || k + 1 >= n)
      return bad(c, "a string is too long or has escapes");
    out[k++] = *c->p;
  }
  if (c->p >= c->end)
    return bad(c, "a string is not closed");
  c->p++;
  out[k] = '\0';
  return DARRAY_SUCCESS;
}

static int integer(cursor_t *c, int64_t *v) {
  ws(c);
  int64_t x = 0;
  const char *s = c->p;
  for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++)
    if (!darray__mul_ok(x, 10, &x) || !darray__add_ok(x, *c->p - '0', &x))
      return bad(c, "a size overflows 64 bits");
  if (c->p == s)
    return bad(c, "shape is not a tuple of integers");
  *v = x;
  return DARRAY_SUCCESS;
}

/* What the dictionary says, before it is checked against darrayio. */
typedef struct dict_s {
  char descr[32]; /* the descr string; a structured type's text, cut */
  bool structured;
  int fortran, seen; /* seen: the keys found, one bit each */
  int ndims;         /* shape's entries, even past DARRAY_MAX_DIMS */
} dict_t;

/* "(a, b, ...)" into m->gsizes (file order; the first DARRAY_MAX_DIMS). */
static int shape(cursor_t *c, darray_member_info_t *m, dict_t *h) {
  if (!take(c, '('))
    return bad(c, "shape is not a tuple");
  h->ndims = 0;
  while (!take(c, ')')) {
    int64_t v;
    int rc = integer(c, &v);
    if (rc != DARRAY_SUCCESS)
      return rc;
    if (h->ndims < DARRAY_MAX_DIMS)
      m->gsizes[h->ndims] = v;
    if (h->ndims++ == 64 * DARRAY_MAX_DIMS)
      return bad(c, "shape has too many entries");
    if (!take(c, ',') && !(ws(c), c->p < c->end && *c->p == ')'))
      return bad(c, "shape is not a tuple of integers");
  }
  return DARRAY_SUCCESS;
}

/* A structured type's list, brackets balanced, strings skipped; its first
 * bytes (cut with "...") into out (n bytes). */
static int literal(cursor_t *c, char *out, size_t n) {
  const char *s = c->p;
  int depth = 0;
  do {
    if (c->p >= c->end)
      return bad(c, "a structured descr is not closed");
    char ch = *c->p++;
    if (ch == '\'' || ch == '"') {
      while (c->p < c->end && *c->p != ch)
        c->p += *c->p == '\\' && c->end - c->p > 1 ? 2 : 1;
      if (c->p >= c->end)
        return bad(c, "a string is not closed");
      c->p++;
    } else if (ch == '[' || ch == '(' || ch == '{') {
      depth++;
    } else if (ch == ']' || ch == ')' || ch == '}') {
      depth--;
    }
  } while (depth > 0);
  size_t len = (size_t)(c->p - s);
  if (len < n) {
    memcpy(out, s, len);
    out[len] = '\0';
  } else {
    memcpy(out, s, n - 4);
    memcpy(out + n - 4, "...", 4);
  }
  return DARRAY_SUCCESS;
}

/* After the dictionary: white space, and darrayio's permutation. */
static int trailer(cursor_t *c, int perm[], int *nperm) {
  *nperm = 0;
  if (!take(c, '#'))
    return ws(c), c->p == c->end ? DARRAY_SUCCESS
                                 : bad(c, "text after the dictionary");
  ws(c);
  size_t t = strlen(PERM_TAG);
  bool ours = c->end - c->p >= (ptrdiff_t)t && memcmp(c->p, PERM_TAG, t) == 0;
  if (ours)
    c->p += t;
  while (ours && (ws(c), c->p < c->end && *c->p >= '0' && *c->p <= '9')) {
    int64_t v;
    if (integer(c, &v) != DARRAY_SUCCESS || *nperm == DARRAY_MAX_DIMS ||
        v >= DARRAY_MAX_DIMS)
      return bad(c, "the darrayio permutation is malformed");
    perm[(*nperm)++] = (int)v;
  }
  while (c->p < c->end && *c->p != '\n') /* someone else's comment */
    c->p++;
  ws(c);
  return c->p == c->end ? DARRAY_SUCCESS : bad(c, "text after the comment");
}

/* One "key: value" of the dictionary. */
static int entry(cursor_t *c, darray_member_info_t *m, dict_t *h) {
  char key[32];
  int rc = string(c, key, sizeof key);
  if (rc == DARRAY_SUCCESS && !take(c, ':'))
    rc = bad(c, "':' missing after a key");
  if (rc != DARRAY_SUCCESS)
    return rc;
  int bit = strcmp(key, "descr") == 0           ? 1
            : strcmp(key, "fortran_order") == 0 ? 2
            : strcmp(key, "shape") == 0         ? 4
                                                : 0;
  if (bit == 0 || (h->seen & bit))
    return bad(c, bit == 0 ? "a key other than descr, fortran_order, shape"
                           : "a key appears twice");
  h->seen |= bit;
  if (bit == 2) {
    ws(c);
    size_t left = (size_t)(c->end - c->p);
    h->fortran = left >= 4 && memcmp(c->p, "True", 4) == 0 ? 1 : 0;
    if (!h->fortran && !(left >= 5 && memcmp(c->p, "False", 5) == 0))
      return bad(c, "fortran_order is neither True nor False");
    c->p += h->fortran ? 4 : 5;
    return DARRAY_SUCCESS;
  }
  if (bit == 1 && (ws(c), c->p < c->end && *c->p == '[')) {
    h->structured = true;
    return literal(c, h->descr, sizeof h->descr);
  }
  return bit == 1 ? string(c, h->descr, sizeof h->descr) : shape(c, m, h);
}

/* The storage order: fortran_order, or darrayio's permutation of a C
 * order shape (m->gsizes in file order on entry, unpermuted after). */
static int order_of(darray_member_info_t *m, int fortran, const int perm[],
                    int nperm, char *msg) {
  int n = m->ndims;
  bool seen[DARRAY_MAX_DIMS] = {false};
  if (nperm != 0 && (nperm != n || fortran))
    return darray__err(msg, DARRAY_EFORMAT, ".npy header: the darrayio "
                       "permutation does not fit the shape");
  for (int i = 0; i < nperm; i++) {
    if (perm[i] >= n || seen[perm[i]])
      return darray__err(msg, DARRAY_EFORMAT, ".npy header: the darrayio "
                         "permutation is not a permutation");
    seen[perm[i]] = true;
  }
  int64_t file[DARRAY_MAX_DIMS];
  memcpy(file, m->gsizes, sizeof file);
  for (int i = 0; i < n; i++)
    m->perm[i] = nperm ? perm[i] : fortran ? n - 1 - i : i;
  if (nperm)
    for (int i = 0; i < n; i++)
      m->gsizes[perm[i]] = file[i];
  m->order = nperm ? DARRAY_ORDER_PERM
             : fortran && n > 1 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int i = 0; i < n; i++)
    if (file[i] < 1)
      return darray__err(msg, DARRAY_ENOTSUP, ".npy header: shape[%d] = "
                         "%lld: empty arrays are not supported", i,
                         (long long)file[i]);
  return DARRAY_SUCCESS;
}

/* Whether the dictionary's type and shape are darrayio's: DARRAY_ENOTSUP
 * (message in msg) where they are well formed but not (m's type then 0);
 * a 0-d array (shape ()) is one element (m->scalar). */
static int mappable(darray_member_info_t *m, const dict_t *h,
                    const int perm[], int nperm, char *msg) {
  char tmsg[DARRAY_ERRMSG_LEN];
  int trc = DARRAY_ENOTSUP;
  if (h->structured)
    darray__err(tmsg, trc, "descr %s: structured element types are not "
                "supported", h->descr);
  else
    trc = descr_type(h->descr, m, tmsg);
  if (trc == DARRAY_EFORMAT)
    return darray__err(msg, trc, ".npy header: %s", tmsg);
  int rc = DARRAY_SUCCESS;
  m->ndims = h->ndims;
  if (h->ndims > DARRAY_MAX_DIMS) {
    m->ndims = 0;
    memset(m->gsizes, 0, sizeof m->gsizes);
    rc = darray__err(msg, DARRAY_ENOTSUP, ".npy header: %d dimensions, "
                     "more than %d", h->ndims, DARRAY_MAX_DIMS);
  } else if (h->ndims == 0) { /* a 0-d array: one element */
    m->ndims = 1;
    m->gsizes[0] = 1;
    m->scalar = 1;
  }
  if (rc == DARRAY_SUCCESS)
    rc = order_of(m, h->fortran, perm, nperm, msg);
  if (rc == DARRAY_SUCCESS && trc != DARRAY_SUCCESS)
    rc = darray__err(msg, trc, "%s", tmsg);
  if (rc != DARRAY_SUCCESS) {
    m->type = 0;
    m->elem_size = 0;
  }
  return rc;
}

/* The dictionary text into m's descr, type, shape and order. */
static int dict(cursor_t *c, darray_member_info_t *m) {
  dict_t h;
  memset(&h, 0, sizeof h);
  int rc = DARRAY_SUCCESS, perm[DARRAY_MAX_DIMS], nperm;
  if (!take(c, '{'))
    return bad(c, "no dictionary");
  while (rc == DARRAY_SUCCESS && !take(c, '}')) {
    rc = entry(c, m, &h);
    if (rc == DARRAY_SUCCESS && !take(c, ',') &&
        !(ws(c), c->p < c->end && *c->p == '}'))
      rc = bad(c, "',' or '}' missing");
  }
  if (rc == DARRAY_SUCCESS && h.seen != 7)
    rc = bad(c, "descr, fortran_order or shape is missing");
  if (rc == DARRAY_SUCCESS)
    rc = trailer(c, perm, &nperm);
  if (rc != DARRAY_SUCCESS)
    return rc;
  memcpy(m->descr, h.descr, sizeof m->descr);
  return mappable(m, &h, perm, nperm, c->msg);
}

/* Bytes of the data a shape holds. */
static int data_bytes(const darray_member_info_t *m, int64_t *bytes,
                      char *msg) {
  int64_t b = m->elem_size;
  for (int i = 0; i < m->ndims; i++)
    if (!darray__mul_ok(b, m->gsizes[i], &b))
      return darray__err(msg, DARRAY_EFORMAT, ".npy header: the shape's "
                         "bytes overflow 64 bits");
  *bytes = b;
  return DARRAY_SUCCESS;
}

/* The length of the header from its first 12 bytes (magic, version). */
static int prefix(const unsigned char *b, int64_t *pre, int64_t *total,
                  char *msg) {
  if (memcmp(b, "\x93NUMPY", 6) != 0)
    return darray__err(msg, DARRAY_EFORMAT, "no .npy magic (\\x93NUMPY)");
  if (b[6] < 1 || b[6] > 3 || b[7] != 0)
    return darray__err(msg, DARRAY_ENOTSUP, ".npy version %d.%d is not "
                       "supported", b[6], b[7]);
  int64_t h = b[8] | (int64_t)b[9] << 8;
  *pre = 10;
  if (b[6] > 1) {
    h |= (int64_t)b[10] << 16 | (int64_t)b[11] << 24;
    *pre = 12;
  }
  *total = *pre + h;
  if (*total > DARRAY_NPY_HEADER_MAX)
    return darray__err(msg, DARRAY_EFORMAT, ".npy header length %lld "
                       "(%lld bytes with the prefix) is more than %d bytes",
                       (long long)h, (long long)*total,
                       DARRAY_NPY_HEADER_MAX);
  return DARRAY_SUCCESS;
}

int darray__npy_read(fmt_reader_t *r, int64_t off, int64_t avail,
                     fmt_member_t *m, char *msg) {
  int64_t room = avail >= 0 ? avail : r->size - off, pre = 0, total = 0;
  int64_t bytes = 0;
  unsigned char b[12];
  if (room < 12)
    return darray__err(msg, DARRAY_EFORMAT, ".npy header: %lld bytes, too "
                       "short", (long long)room);
  int rc = r->read(r->ctx, b, 12, off);
  if (rc == DARRAY_SUCCESS)
    rc = prefix(b, &pre, &total, msg);
  if (rc == DARRAY_SUCCESS && total > room)
    rc = darray__err(msg, DARRAY_EFORMAT, ".npy header of %lld bytes does "
                     "not fit in the %lld bytes there", (long long)total,
                     (long long)room);
  char *h = rc == DARRAY_SUCCESS ? malloc((size_t)total) : NULL;
  if (rc == DARRAY_SUCCESS && h == NULL)
    rc = darray__err(msg, DARRAY_ENOMEM, "out of memory");
  if (rc == DARRAY_SUCCESS)
    rc = r->read(r->ctx, h, total, off);
  if (rc == DARRAY_SUCCESS) {
    cursor_t c = {h + pre, h + total, msg};
    rc = dict(&c, &m->info);
    m->hdr_crc = darray__crc_bytes(h, total);
  } else if (rc == DARRAY_ENOTSUP) { /* a version not read: all data */
    total = 0;
  }
  free(h);
  if (rc == DARRAY_SUCCESS)
    rc = data_bytes(&m->info, &bytes, msg);
  if (rc == DARRAY_SUCCESS && (avail >= 0 ? bytes != room - total
                                          : bytes > room - total))
    rc = darray__err(msg, DARRAY_EFORMAT, ".npy: the shape holds %lld "
                     "bytes but %lld follow the header%s",
                     (long long)bytes, (long long)(room - total),
                     avail >= 0 ? " in the member" : " (truncated file)");
  if (rc == DARRAY_ENOTSUP) /* not darrayio's: the rest is its data */
    bytes = room - total;
  m->info.status = rc == DARRAY_ENOTSUP ? rc : DARRAY_SUCCESS;
  m->npy_len = total;
  m->info.offset = off + total;
  m->info.bytes = bytes;
  return rc;
}
