/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * format_lines.c - the format table: raw files, .npy files and .npz
 * archives, one fmt_ops_t line each (format.h says what each slot does),
 * and what each format does where the others differ. format.c and
 * format_close.c ask a file's line and name no format.
 *
 * Adding a format (doc/formats.md, "Adding a format"): its line here, or in
 * a file of its own declared below, with the slots it has (designated
 * initializers, the others left out), one word in FORMATS, its files in
 * Makefile.am and its tests. Keep raw first: files without a dataset's
 * state are raw.
 */
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t darray__format_npy_align(const fmt_file_t *z) {
  return z->ops->npy_align > 0 ? z->ops->npy_align : z->align;
}

/* Rank 0 at close: member i's .npy header into b, after the prefix bytes
 * of its own there, written at the member's start. */
static int put_header(const fmt_file_t *z, io_call_t *c, int i,
                      unsigned char *b, int64_t prefix, char *msg) {
  const fmt_member_t *m = &z->m[i];
  int64_t len = 0;
  int rc = darray__npy_header(&m->info, 0, darray__format_npy_align(z),
                              (char *)b + prefix, &len, msg);
  return rc == DARRAY_SUCCESS ? darray__io_pwrite(c, b, prefix + len,
                                                  m->lh_off)
                              : rc;
}

/* ---- raw: the bytes of one array, no header */

static const fmt_ops_t raw = {.name = "raw"};

/* ---- npy: one array after its header */

static int npy_verify(fmt_reader_t *r, fmt_file_t *z, char *msg) {
  if ((z->m = calloc(1, sizeof *z->m)) == NULL)
    return darray__err(msg, DARRAY_ENOMEM, "out of memory");
  z->n = 1;
  return darray__npy_read(r, 0, -1, &z->m[0], msg);
}

static void npy_inquire(const char *name, darray_member_info_t *info) {
  (void)name; /* the one array has none */
  info->name[0] = '\0';
  info->has_crc = 0;
}

static int npy_place(fmt_file_t *z, fmt_member_t *m, char *msg) {
  int64_t end;
  m->info.offset = m->npy_len;
  if (!darray__add_ok(m->info.offset, m->info.bytes, &end))
    return darray__err(msg, DARRAY_ESIZE, "the file would pass 2^63 bytes");
  z->end = end;
  return DARRAY_SUCCESS;
}

static int npy_close(darray_file_t f, io_call_t *c, char *msg) {
  unsigned char *b = malloc(DARRAY_NPY_HEADER_MAX);
  int rc = b == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                     : put_header(f->fmt, c, 0, b, 0, msg);
  free(b);
  return rc;
}

static const fmt_ops_t npy = {
    .name = "npy",
    .suffix = ".npy",
    .verify = npy_verify,
    .inquire = npy_inquire,
    .place = npy_place,
    .after = darray__format_crc_after, /* no CRC: marks what to fill */
    .close = npy_close,
};

/* ---- npz: a ZIP archive of stored .npy members (zip.c, zip_read.c) */

static void npz_inquire(const char *name, darray_member_info_t *info) {
  snprintf(info->name, sizeof info->name, "%s", name);
  info->has_crc = 1;
}

/* The local header and .npy header of every member, then the central
 * directory. */
static int npz_close(darray_file_t f, io_call_t *c, char *msg) {
  const fmt_file_t *z = f->fmt;
  unsigned char *b = malloc(DARRAY_NPY_HEADER_MAX + 65536 + 256);
  int rc = b == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                     : DARRAY_SUCCESS;
  for (int i = 0; i < z->n && rc == DARRAY_SUCCESS; i++) {
    darray__zip_local(&z->m[i], z->m[i].info.crc32, b);
    rc = put_header(z, c, i, b, z->m[i].lh_len, msg);
  }
  free(b);
  unsigned char *cd = NULL;
  int64_t n = 0;
  if (rc == DARRAY_SUCCESS)
    rc = darray__zip_central(z, &cd, &n, msg);
  if (rc == DARRAY_SUCCESS)
    rc = darray__io_pwrite(c, cd, n, z->end);
  free(cd);
  return rc;
}

static const fmt_ops_t npz = {
    .name = "npz",
    .suffix = ".npz",
    .members = true,
    .npy_align = 64,
    .verify = darray__zip_parse,
    .inquire = npz_inquire,
    .place = darray__zip_place,
    .begin = darray__format_crc_begin,
    .after = darray__format_crc_after,
    .after_collective = darray__format_crc_collective,
    .close = npz_close,
};

/* ---- the table */

#define FORMATS(X) X(raw) X(npy) X(npz)

#define ENTRY(name) &name,
static const fmt_ops_t *const formats[] = {FORMATS(ENTRY) NULL};

const fmt_ops_t *darray__format_line(const fmt_file_t *z) {
  return z != NULL ? z->ops : formats[0];
}

const fmt_ops_t *darray__format_of_path(const char *path) {
  size_t n = strlen(path);
  for (int k = 0; formats[k] != NULL; k++) {
    const char *s = formats[k]->suffix;
    size_t sn = s != NULL ? strlen(s) : 0;
    if (sn > 0 && n >= sn && strcmp(path + n - sn, s) == 0)
      return formats[k];
  }
  return NULL;
}

void darray__format_suffixes(char *out, size_t n) {
  const char *s[8];
  int m = 0;
  for (int k = 0; formats[k] != NULL && m < 8; k++)
    if (formats[k]->suffix != NULL)
      s[m++] = formats[k]->suffix;
  size_t at = 0;
  out[0] = '\0';
  for (int k = 0; k < m && at < n; k++)
    at += (size_t)snprintf(out + at, n - at, "%s%s",
                           k == 0 ? "" : k == m - 1 ? " or " : ", ", s[k]);
}
