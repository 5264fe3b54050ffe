/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_crc_read.c - whole-array reads of .npz members check the member's
 * CRC-32 by default (issue #38), at 1-4 ranks.
 *
 * A 3-D int32 array (BLOCK x CYCLIC(2) x BLOCK, one ghost cell in memory:
 * each process's runs are short and strided) is written as member "u" of
 * an archive after a member "w". Rank 0 then makes two damaged copies of
 * the file with stdio: one data byte of "u" flipped, and one padding byte
 * of its .npy header (a space made a tab, which the header's grammar
 * still accepts). Oracles, none of them the library's CRC code: zlib's
 * crc32 of the member's bytes in each file (from its .npy header to its
 * end) equals the CRC the archive records for the clean file and differs
 * from it for the damaged ones; the elements read are compared with the
 * closed form that wrote them.
 *
 * Each file is read under every strategy (darray_strategy, and the one the
 * planner picks; darray_file_get_stats says which one ran), by darray_read
 * and by darray_iread under each darray_async mode:
 *  - the clean file reads with success and every element right;
 *  - a damaged one gives DARRAY_ECRC on every rank, the message naming the
 *    call, the path, the member, the recorded CRC and zlib's CRC of the
 *    damaged member;
 *  - with darray_verify_crc=disable it reads with success: every element
 *    right after the header's flip, exactly one element wrong after the
 *    data's.
 * A section read (which cannot check) of the damaged data succeeds with
 * that one element wrong; a whole read after it still says DARRAY_ECRC.
 * A .npy file records no CRC: its damaged copy reads with success. A
 * member read back before the archive's close (no CRC recorded yet) reads
 * with success.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const int64_t G[3] = {10, 12, 14};
#define NEL (10 * 12 * 14)

static int32_t value(int64_t i) { return (int32_t)(3 * i + 11); }

static darray_t describe(void) {
  darray_t a = NULL;
  darray_dist_t dist[3] = {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC,
                           DARRAY_DIST_BLOCK};
  int64_t dargs[3] = {-1, 2, -1}, gh[3] = {1, 1, 1};
  TU_OK(darray_create(MPI_COMM_WORLD, 3, G, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, dist, dargs));
  TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL));
  TU_OK(darray_commit(a));
  return a;
}

static char *local_buf(darray_t a) {
  int64_t n = 0;
  TU_OK(darray_local_bytes(a, &n));
  return calloc((size_t)(n > 0 ? n : 1), 1);
}

/* Fill this rank's buffer, or count its wrong elements; the count over
 * every rank (collective). */
static int64_t fill(darray_t a, char *buf, bool check) {
  int64_t bad = 0, all = 0, idx[3], off;
  int rank;
  for (int64_t i = 0; i < NEL; i++) {
    idx[0] = i / (G[1] * G[2]);
    idx[1] = i / G[2] % G[1];
    idx[2] = i % G[2];
    TU_OK(darray_locate(a, idx, &rank, NULL, NULL, &off));
    int32_t v = value(i), got;
    if (rank != tu_rank())
      continue;
    memcpy(&got, buf + off, 4);
    if (!check)
      memcpy(buf + off, &v, 4);
    else if (got != v)
      bad++;
  }
  MPI_Allreduce(&bad, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static void write_file(const char *path, darray_t a) {
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  darray_file_t f = NULL;
  darray_t w = NULL;
  int64_t wg[1] = {5};
  char *buf = local_buf(a), wbuf[5] = {1, 2, 3, 4, 5};
  bool npz = strstr(path, ".npz") != NULL;
  fill(a, buf, false);
  TU_OK(darray_create(MPI_COMM_WORLD, 1, wg, DARRAY_INT8, &w));
  TU_OK(darray_commit(w));
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f));
  if (npz) {
    TU_OK(darray_define(f, "w", w));
    TU_OK(darray_write_section(f, w, (int64_t[]){0},
                               (int64_t[]){tu_rank() == 0 ? 5 : 0},
                               DARRAY_ORDER_C, wbuf));
  }
  TU_OK(darray_define(f, npz ? "u" : NULL, a));
  TU_OK(darray_write(f, a, buf));
  /* read back before the close: no CRC recorded yet, nothing checked */
  int64_t nb = 0;
  TU_OK(darray_local_bytes(a, &nb));
  memset(buf, 0, (size_t)nb);
  TU_OK(darray_read(f, a, buf));
  TU_EQ_I64(fill(a, buf, true), 0);
  TU_OK(darray_file_close(&f));
  darray_free(&w);
  free(buf);
}

/* The member "u" (the only one of a .npy file) of the file at path. */
static void member(const char *path, darray_member_info_t *m) {
  darray_file_t f = NULL;
  int n = 0;
  memset(m, 0, sizeof *m);
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                            MPI_INFO_NULL, &f));
  TU_OK(darray_num_members(f, &n));
  for (int i = 0; i < n; i++) {
    TU_OK(darray_inquire(f, i, m));
    if (strcmp(m->name, "u") == 0 || m->name[0] == '\0')
      break;
  }
  TU_OK(darray_file_close(&f));
}

/* Rank 0: copy src to dst with byte at ^= x (at < 0: none); zlib's CRC of
 * the member's bytes in the copy (its .npy header and data), broadcast. */
static uint32_t damage(const char *src, const char *dst,
                       const darray_member_info_t *m, int64_t at, int x,
                       int expect) {
  uint32_t crc = 0;
  if (tu_rank() == 0) {
    int64_t n = 0;
    unsigned char *b = tu_read_file(src, &n);
    if (TU_CHECK(b != NULL && m->offset + m->bytes <= n)) {
      if (at >= 0 && TU_EQ_INT(b[at], expect))
        b[at] ^= (unsigned char)x;
      int64_t s = m->offset;
      while (s > 0 && memcmp(b + s, "\x93NUMPY", 6) != 0)
        s--;
      crc = (uint32_t)crc32(0, b + s, (uInt)(m->offset + m->bytes - s));
      TU_EQ_INT(tu_write_file(dst, b, n), 0);
    }
    free(b);
  }
  MPI_Bcast(&crc, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
  return crc;
}

typedef struct expect {
  const char *path;
  uint32_t recorded, computed; /* zlib's CRC of the member in the file */
  int64_t bad_off;             /* wrong elements with the check off */
} expect_t;

/* A whole read's code and message, and the elements when it succeeded. */
static void check_read(const expect_t *e, darray_file_t f, darray_t a,
                       char *buf, int rc, bool verify, const char *call) {
  bool damaged = e->computed != e->recorded;
  if (damaged && verify && e->recorded != 0) {
    char want[160];
    TU_EQ_CODE(rc, DARRAY_ECRC);
    const char *msg = darray_file_errmsg(f);
    TU_CONTAINS(msg, call);
    TU_CONTAINS(msg, e->path);
    TU_CONTAINS(msg, "member 'u'");
    snprintf(want, sizeof want, "expected 0x%08x", (unsigned)e->recorded);
    TU_CONTAINS(msg, want);
    snprintf(want, sizeof want, "computed 0x%08x", (unsigned)e->computed);
    TU_CONTAINS(msg, want);
    return;
  }
  TU_OK(rc);
  TU_EQ_I64(fill(a, buf, true), e->bad_off);
}

/* One whole read under hints h (strategy s forced unless NULL). */
static void read_whole(const expect_t *e, const char *s, bool verify,
                       const char *async) {
  char h[200];
  snprintf(h, sizeof h, "%s%s%s%s%s", s ? "darray_strategy=" : "",
           s ? s : "", verify ? "" : ";darray_verify_crc=disable",
           async ? ";darray_async=" : "", async ? async : "");
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  darray_t a = describe();
  char *buf = local_buf(a);
  bool npz = strstr(e->path, ".npz") != NULL;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, e->path, DARRAY_MODE_RDONLY,
                            info, &f));
  TU_OK(darray_define(f, npz ? "u" : NULL, a));
  int rc;
  if (async != NULL) {
    darray_request_t r;
    TU_OK(darray_iread(f, a, buf, &r));
    rc = darray_wait(f, &r);
  } else {
    rc = darray_read(f, a, buf);
  }
  check_read(e, f, a, buf, rc, verify,
             async != NULL ? "darray_iread" : "darray_read");
  if (s != NULL && async == NULL) {
    darray_stats_t st;
    TU_OK(darray_file_get_stats(f, &st));
    TU_EQ_STR(st.strategy, s);
  }
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&a);
  MPI_Info_free(&info);
}

/* A section read of the whole array (which cannot check), then a whole
 * read of the same member, which does. */
static void read_section_then_whole(const expect_t *e) {
  darray_file_t f = NULL;
  darray_t a = describe();
  char *buf = local_buf(a);
  int32_t *sec = malloc(NEL * sizeof *sec);
  int64_t start[3] = {0, 0, 0}, none[3] = {0, 0, 0};
  bool me = tu_rank() == tu_nprocs() - 1;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, e->path, DARRAY_MODE_RDONLY,
                            MPI_INFO_NULL, &f));
  TU_OK(darray_define(f, "u", a));
  TU_OK(darray_read_section(f, a, start, me ? G : none, DARRAY_ORDER_C,
                            sec));
  if (me) {
    int64_t bad = 0;
    for (int64_t i = 0; i < NEL; i++)
      bad += sec[i] != value(i);
    TU_EQ_I64(bad, e->bad_off);
  }
  check_read(e, f, a, buf, darray_read(f, a, buf), true, "darray_read");
  TU_OK(darray_file_close(&f));
  free(sec);
  free(buf);
  darray_free(&a);
}

static const char *const strategies[] = {
    NULL, "direct", "static", "rows", "twophase", "sieve", "groups", "mapped"};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))

static void read_all(const expect_t *e, int level) {
  static const char *const modes[] = {"thread", "files", "none"};
  for (int v = 0; v < 2; v++) {
    for (int s = 0; s < NSTRAT; s++) /* rows: groups of 2 or more */
      if (tu_nprocs() > 1 || strcmp(strategies[s] ? strategies[s] : "",
                                    "rows") != 0)
        read_whole(e, strategies[s], v == 0, NULL);
    for (int m = level >= MPI_THREAD_MULTIPLE ? 0 : 1; m < 3; m++)
      read_whole(e, NULL, v == 0, modes[m]);
  }
}

int main(int argc, char **argv) {
  int level = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  char base[512], clean[600], data[600], hdr[600], npy[600], npyd[600];
  if (tu_tmpname(base, sizeof base, "darray_crc_read") == NULL)
    return tu_finish();
  snprintf(clean, sizeof clean, "%s_clean.npz", base);
  snprintf(data, sizeof data, "%s_data.npz", base);
  snprintf(hdr, sizeof hdr, "%s_header.npz", base);
  snprintf(npy, sizeof npy, "%s_clean.npy", base);
  snprintf(npyd, sizeof npyd, "%s_data.npy", base);
  darray_t a = describe();
  write_file(clean, a);
  write_file(npy, a);
  darray_free(&a);
  darray_member_info_t m, mn;
  member(clean, &m);
  member(npy, &mn);
  TU_EQ_INT(m.has_crc, 1);
  TU_EQ_INT(mn.has_crc, 0);

  /* the clean archive: zlib agrees with the recorded CRC */
  expect_t e = {clean, m.crc32, damage(clean, clean, &m, -1, 0, 0), 0};
  TU_EQ_U64(e.computed, m.crc32);
  read_all(&e, level);

  /* one data byte (of element NEL/2 + 1's second byte) flipped */
  int64_t at = m.offset + (NEL / 2 + 1) * 4 + 1;
  uint8_t was = (uint8_t)(value(NEL / 2 + 1) >> 8);
  e = (expect_t){data, m.crc32, damage(clean, data, &m, at, 0x10, was), 1};
  TU_CHECK(e.computed != e.recorded);
  read_all(&e, level);
  read_section_then_whole(&e);

  /* a padding space of the member's .npy header made a tab */
  e = (expect_t){hdr, m.crc32,
                 damage(clean, hdr, &m, m.offset - 2, ' ' ^ '\t', ' '), 0};
  TU_CHECK(e.computed != e.recorded);
  read_all(&e, level);

  /* a .npy file has no CRC: nothing to check, the damage reads */
  at = mn.offset + (NEL / 2 + 1) * 4 + 1;
  e = (expect_t){npyd, 0, 0, 1};
  damage(npy, npyd, &mn, at, 0x10, was);
  read_whole(&e, NULL, true, NULL);
  read_whole(&e, "twophase", true, NULL);

  const char *files[] = {clean, data, hdr, npy, npyd};
  for (int i = 0; i < 5; i++)
    tu_remove(files[i]);
  return tu_finish();
}
