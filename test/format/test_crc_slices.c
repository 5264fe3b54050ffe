/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_crc_slices.c - a checked whole read of a .npz member feeds its CRC
 * as the bytes arrive (issue #38): sieve's and mapped's windows and
 * two-phase's chunks are copied out in slices of DARRAY_CRC_SLICE bytes
 * of the file, each slice's bytes fed right after it; a process's runs go
 * in as one stream with the other processes' runs as zeros between them.
 * Runs that straddle slices, windows and chunks are fed in parts.
 *
 * An int32 array of 620 x 700 (1.7 MB: slices cut its runs) is written as
 * three members of one archive, each with another distribution: columns
 * CYCLIC(3) (runs of 12 bytes), rows CYCLIC (runs of 2800 bytes, gaps that
 * are no whole number of 256-byte blocks) and rows BLOCK (one run a
 * process, longer than a slice). Rank 0 makes damaged copies with stdio,
 * one byte flipped: just past the first slice boundary, and the last byte.
 * Each member is read under the planner's choice, sieve, mapped, two-phase
 * and direct, with the default buffers and with small ones (several
 * windows and chunks). Oracles: zlib's crc32 of the member's bytes in each
 * file equals the archive's CRC for the clean file; a damaged one reads
 * DARRAY_ECRC with zlib's CRC of the damaged member as the computed one in
 * the message (the library's streamed CRC is exactly zlib's); a clean one
 * reads every element of the closed form that wrote it.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const int64_t G[2] = {620, 700};
#define NEL ((int64_t)620 * 700)
#define NMEM 3
static const char *const names[NMEM] = {"cols", "rows", "block"};

static int32_t value(int k, int64_t i) {
  return (int32_t)tu_value(90 + (uint64_t)k, i);
}

static darray_t describe(int k) {
  darray_t a = NULL;
  darray_dist_t d[NMEM][2] = {{DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC},
                              {DARRAY_DIST_CYCLIC, DARRAY_DIST_NONE},
                              {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE}};
  int64_t dargs[NMEM][2] = {{-1, 3}, {1, -1}, {-1, -1}};
  TU_OK(darray_create(MPI_COMM_WORLD, 2, G, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d[k], dargs[k]));
  TU_OK(darray_commit(a));
  return a;
}

/* Fill this rank's buffer of member k, or count its wrong elements over
 * every rank (collective). */
static int64_t fill(int k, darray_t a, char *buf, bool check) {
  int64_t bad = 0, all = 0, idx[2], off;
  int rank;
  for (int64_t i = 0; i < NEL; i++) {
    idx[0] = i / G[1];
    idx[1] = i % G[1];
    TU_OK(darray_locate(a, idx, &rank, NULL, NULL, &off));
    int32_t v = value(k, i), got;
    if (rank != tu_rank())
      continue;
    memcpy(&got, buf + off, 4);
    if (!check)
      memcpy(buf + off, &v, 4);
    else
      bad += got != v;
  }
  MPI_Allreduce(&bad, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

static char *local_buf(darray_t a) {
  int64_t n = 0;
  TU_OK(darray_local_bytes(a, &n));
  return calloc((size_t)(n > 0 ? n : 1), 1);
}

static void write_file(const char *path, darray_member_info_t *m) {
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  darray_file_t f = NULL;
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f));
  for (int k = 0; k < NMEM; k++) {
    darray_t a = describe(k);
    char *buf = local_buf(a);
    fill(k, a, buf, false);
    TU_OK(darray_define(f, names[k], a));
    TU_OK(darray_write(f, a, buf));
    free(buf);
    darray_free(&a);
  }
  TU_OK(darray_file_close(&f));
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                            MPI_INFO_NULL, &f));
  for (int k = 0; k < NMEM; k++)
    TU_OK(darray_inquire(f, k, &m[k]));
  TU_OK(darray_file_close(&f));
}

/* Rank 0: copy src to dst with byte at ^= 0x20 (at < 0: none); zlib's CRC
 * of member m in the copy (its .npy header and data), broadcast. */
static uint32_t damage(const char *src, const char *dst,
                       const darray_member_info_t *m, int64_t at) {
  uint32_t crc = 0;
  if (tu_rank() == 0) {
    int64_t n = 0;
    unsigned char *b = tu_read_file(src, &n);
    if (TU_CHECK(b != NULL && m->offset + m->bytes <= n)) {
      if (at >= 0)
        b[at] ^= 0x20;
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

static const char *const strategies[] = {NULL, "sieve", "mapped",
                                         "twophase", "direct"};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))
static const char *const buffers[] = {
    "", ";ind_rd_buffer_size=100000;darray_map_window=65536;"
        "cb_buffer_size=300000"};

/* Member k of path read whole under every strategy and buffer size:
 * success and every element right when computed == recorded, else
 * DARRAY_ECRC naming zlib's CRC of the damaged member. */
static void read_all(const char *path, int k, uint32_t recorded,
                     uint32_t computed) {
  for (int s = 0; s < NSTRAT; s++)
    for (int b = 0; b < 2; b++) {
      char h[300], want[40];
      snprintf(h, sizeof h, "%s%s%s", strategies[s] ? "darray_strategy=" : "",
               strategies[s] ? strategies[s] : "", buffers[b]);
      MPI_Info info = tu_info(h);
      darray_file_t f = NULL;
      darray_t a = describe(k);
      char *buf = local_buf(a);
      TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                info, &f));
      TU_OK(darray_define(f, names[k], a));
      int rc = darray_read(f, a, buf);
      if (computed == recorded) {
        if (!TU_OK(rc))
          printf("# %s member %s hints %s\n", path, names[k], h);
        TU_EQ_I64(fill(k, a, buf, true), 0);
      } else {
        if (!TU_EQ_CODE(rc, DARRAY_ECRC))
          printf("# %s member %s hints %s\n", path, names[k], h);
        snprintf(want, sizeof want, "computed 0x%08x", (unsigned)computed);
        TU_CONTAINS(darray_file_errmsg(f), want);
      }
      darray_stats_t st;
      TU_OK(darray_file_get_stats(f, &st));
      if (strategies[s] != NULL)
        TU_EQ_STR(st.strategy, strategies[s]);
      TU_OK(darray_file_close(&f));
      free(buf);
      darray_free(&a);
      MPI_Info_free(&info);
    }
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char base[512], clean[600], bad[600];
  if (tu_tmpname(base, sizeof base, "darray_crc_slices") == NULL)
    return tu_finish();
  snprintf(clean, sizeof clean, "%s_clean.npz", base);
  snprintf(bad, sizeof bad, "%s_bad.npz", base);
  darray_member_info_t m[NMEM];
  write_file(clean, m);
  for (int k = 0; k < NMEM; k++) {
    TU_EQ_I64(m[k].bytes, NEL * 4);
    uint32_t zc = damage(clean, clean, &m[k], -1);
    TU_EQ_U64(zc, m[k].crc32); /* zlib agrees with the archive */
    read_all(clean, k, m[k].crc32, zc);
    const int64_t at[2] = {(INT64_C(512) << 10) + 1, m[k].bytes - 1};
    for (int i = 0; i < 2; i++) {
      uint32_t zb = damage(clean, bad, &m[k], m[k].offset + at[i]);
      TU_CHECK(zb != m[k].crc32);
      read_all(bad, k, m[k].crc32, zb);
    }
  }
  tu_remove(clean);
  tu_remove(bad);
  return tu_finish();
}
