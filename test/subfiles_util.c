/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * subfiles_util.c - striped subfile sets by the layout's closed form
 * (subfiles_util.h). Written from the format doc/subfiles.md describes,
 * not from the library's code, so that it can be an oracle for it.
 */
#include "subfiles_util.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int record(const char *path, int64_t *unit, int64_t *factor,
                  int64_t *size) {
  int64_t n;
  unsigned char *rec = tu_read_file(path, &n);
  char text[128] = "";
  if (rec != NULL)
    memcpy(text, rec, (size_t)(n < 127 ? n : 127));
  free(rec);
  long long u, f, z;
  if (sscanf(text, "darrayio-subfiles 1\nunit %lld\nfactor %lld\nsize %lld",
             &u, &f, &z) != 3 || u < 1 || f < 1 || z < 0)
    return -1;
  *unit = u, *factor = f, *size = z;
  return 0;
}

static void name_of(const char *path, int64_t j, int64_t factor, char *buf,
                    size_t n) {
  snprintf(buf, n, "%s.sub%lldof%lld", path, (long long)j, (long long)factor);
}

/* Subfile j's bytes into the logical file out (size bytes): 0, or -1 when
 * it is missing or holds a byte past the size. */
static int place(const char *path, int64_t j, int64_t unit, int64_t factor,
                 unsigned char *out, int64_t size) {
  char name[4096];
  int64_t z;
  name_of(path, j, factor, name, sizeof name);
  unsigned char *sub = tu_read_file(name, &z);
  int rc = sub != NULL ? 0 : -1;
  for (int64_t at = 0; rc == 0 && at < z; at++) {
    int64_t k = (at / unit) * factor + j, off = k * unit + at % unit;
    if (off >= size)
      rc = -1;
    else
      out[off] = sub[at];
  }
  free(sub);
  return rc;
}

unsigned char *tu_read_subfiles(const char *path, int64_t *size) {
  int64_t unit, factor;
  unsigned char *out = NULL;
  if (record(path, &unit, &factor, size) == 0)
    out = calloc((size_t)*size + 1, 1);
  for (int64_t j = 0; out != NULL && j < factor; j++)
    if (place(path, j, unit, factor, out, *size) != 0) {
      free(out);
      out = NULL;
    }
  if (out == NULL)
    *size = -1;
  return out;
}

int tu_write_subfiles(const char *path, const void *buf, int64_t n,
                      int64_t unit, int64_t factor) {
  char rec[97];
  snprintf(rec, sizeof rec, "darrayio-subfiles 1\nunit %019lld\nfactor "
           "%010lld\nsize %019lld\n", (long long)unit, (long long)factor,
           (long long)n);
  size_t len = strlen(rec);
  memset(rec + len, '\n', sizeof rec - len); /* padded to 96 bytes */
  int rc = tu_write_file(path, rec, 96);
  for (int64_t j = 0; j < factor && rc == 0; j++) {
    char name[4096];
    name_of(path, j, factor, name, sizeof name);
    FILE *fp = fopen(name, "wb");
    for (int64_t k = j; fp != NULL && k * unit < n; k += factor) {
      int64_t l = n - k * unit < unit ? n - k * unit : unit;
      if (fwrite((const char *)buf + k * unit, 1, (size_t)l, fp) != (size_t)l)
        rc = -1;
    }
    if (fp == NULL || fclose(fp) != 0)
      rc = -1;
  }
  return rc;
}

void tu_remove_subfiles(const char *path, int64_t factor) {
  for (int64_t j = 0; j < factor && tu_rank() == 0; j++) {
    char name[4096];
    name_of(path, j, factor, name, sizeof name);
    remove(name);
  }
  tu_remove(path);
}
