/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_format.c - fuzz target: the .npy header parser and the .npz (ZIP)
 * reader (src/format/npy.c, zip_read.c) on files held in memory.
 *
 * Input: one byte choosing the parser (even: .npz, odd: .npy), then the
 * file's bytes. The parser reads through a memory reader that refuses,
 * as a finding, any read outside the file. What must hold:
 *  - the result is DARRAY_SUCCESS, DARRAY_EFORMAT or DARRAY_ENOTSUP, and a
 *    refusal has a message;
 *  - an accepted file's members are sane by the definitions: a name of 1
 *    to DARRAY_NAME_MAX bytes without '/', '\' or ".." (a .npz), 1 to 8
 *    positive sizes whose product times the element size is the member's
 *    bytes, data inside the file, members (local header to end of data)
 *    disjoint and before the end of the file, the storage permutation a
 *    permutation.
 *
 * Build and run: fuzz/run.sh fuzz_format (libFuzzer), or fuzz/README.md.
 */
#include "format/format.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  return 0;
}

typedef struct mem {
  const uint8_t *p;
  int64_t n;
} mem_t;

static int mem_read(void *ctx, void *buf, int64_t len, int64_t off) {
  const mem_t *m = ctx;
  if (off < 0 || len < 0 || off > m->n || len > m->n - off)
    fz_fail("a read of %lld bytes at %lld, outside the file of %lld",
            (long long)len, (long long)off, (long long)m->n);
  memcpy(buf, m->p + off, (size_t)len);
  return DARRAY_SUCCESS;
}

static void check_member(const fmt_member_t *m, bool npz, int64_t size) {
  const darray_member_info_t *i = &m->info;
  size_t len = strnlen(i->name, sizeof i->name);
  if (npz && (len == 0 || len > DARRAY_NAME_MAX ||
              !darray__zip_name_ok(i->name, len) || strstr(i->name, "..") ||
              strchr(i->name, '/') || strchr(i->name, '\\')))
    fz_fail("accepted member name '%.220s'", i->name);
  /* a member listed but not read (compressed, a type or order darrayio
   * does not read: doc/formats.md) has no shape to check; it must say so */
  if (i->status != DARRAY_SUCCESS) {
    if (i->status != DARRAY_ENOTSUP)
      fz_fail("member '%s': status %d", i->name, i->status);
    return;
  }
  if (i->ndims < 1 || i->ndims > DARRAY_MAX_DIMS || i->elem_size < 1)
    fz_fail("member '%s': %d dimensions, %lld-byte elements", i->name,
            i->ndims, (long long)i->elem_size);
  int64_t bytes = i->elem_size;
  bool seen[DARRAY_MAX_DIMS] = {false};
  for (int d = 0; d < i->ndims; d++) {
    if (i->gsizes[d] < 1 || bytes > INT64_MAX / i->gsizes[d])
      fz_fail("member '%s': size %lld of dimension %d", i->name,
              (long long)i->gsizes[d], d);
    bytes *= i->gsizes[d];
    int p = i->perm[d];
    if (p < 0 || p >= i->ndims || seen[p])
      fz_fail("member '%s': perm is not a permutation", i->name);
    seen[p] = true;
  }
  if (bytes != i->bytes)
    fz_fail("member '%s': shape holds %lld bytes, member %lld", i->name,
            (long long)bytes, (long long)i->bytes);
  if (i->offset < 0 || i->offset > size || i->bytes > size - i->offset ||
      m->lh_off < 0 || m->lh_off > i->offset)
    fz_fail("member '%s': data [%lld, +%lld) (header at %lld) in a file of "
            "%lld bytes", i->name, (long long)i->offset, (long long)i->bytes,
            (long long)m->lh_off, (long long)size);
}

/* Members, ordered by their local headers, do not overlap. */
static void check_disjoint(const fmt_file_t *z) {
  for (int a = 0; a < z->n; a++)
    for (int b = 0; b < z->n; b++) {
      const fmt_member_t *x = &z->m[a], *y = &z->m[b];
      if (a != b && x->lh_off <= y->lh_off &&
          y->lh_off < x->info.offset + x->info.bytes)
        fz_fail("members '%s' and '%s' overlap", x->info.name, y->info.name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  bool npz = (data[0] & 1) == 0;
  mem_t mem = {data + 1, (int64_t)size - 1};
  fmt_reader_t r = {&mem, mem.n, mem_read};
  fmt_file_t z;
  char msg[DARRAY_ERRMSG_LEN] = "";
  memset(&z, 0, sizeof z);
  snprintf(fz_case, sizeof fz_case, "%s of %lld bytes", npz ? ".npz" : ".npy",
           (long long)mem.n);
  fz_show_case();
  int rc;
  if (npz) {
    rc = darray__zip_parse(&r, &z, msg);
  } else {
    z.m = calloc(1, sizeof *z.m);
    z.n = 1;
    rc = darray__npy_read(&r, 0, -1, &z.m[0], msg);
  }
  if (rc != DARRAY_SUCCESS && rc != DARRAY_EFORMAT && rc != DARRAY_ENOTSUP)
    fz_fail("code %d (%s): %s", rc, darray_err_name(rc), msg);
  if (rc != DARRAY_SUCCESS && msg[0] == '\0')
    fz_fail("refused (%s) without a message", darray_err_name(rc));
  for (int i = 0; rc == DARRAY_SUCCESS && i < z.n; i++)
    check_member(&z.m[i], npz, mem.n);
  if (rc == DARRAY_SUCCESS)
    check_disjoint(&z);
  free(z.m);
  return 0;
}
