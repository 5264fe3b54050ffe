/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * zlib-speed - zlib's raw deflate and inflate on one core, on the data of
 * darrayio-bench (--data, bench_gen.h): the yardstick of compressed
 * dataset members (issue #34, doc/compression.md).
 *
 *   bench/zlib-speed [--data smooth|random|index] [--type double|int32]
 *                    [--n N | --mib M] [--level L] [--runs R]
 *                    [--block B]...
 *
 * The data: N^3 elements (--n; the bench's dist3d -n N), or M MiB
 * (--mib, default 64) whose rows are the cube root of its elements long;
 * the bench's values of its first write (salt 1). Lines:
 *   whole      one raw deflate stream (deflateInit2, windowBits -15,
 *              level L) of all the bytes; inflated in one stream
 *   block B    the bytes cut into blocks of B bytes, each compressed
 *              independently (a fresh history: deflateReset), every one
 *              but the last ended by Z_FULL_FLUSH on a byte boundary, the
 *              last by Z_FINISH: the pieces laid end to end are one deflate
 *              stream, and any piece inflates alone. Inflate: each piece
 *              alone (inflateReset), as a parallel reader would.
 *              Default B: 256K, 1M and 4M (suffixes K, M; repeatable)
 * Each line: the compression ratio (uncompressed / compressed bytes), the
 * compressed bytes, and deflate and inflate speeds in MiB/s of
 * uncompressed bytes per second of the thread's processor time (other
 * jobs of a shared machine are not counted), min / median / max over R
 * runs (default 5), with the median wall-clock speed.
 * Checked every run: the stream inflates back to the data, byte for byte
 * (the blocked stream also as one stream, as zipfile and unzip read it),
 * and the CRC-32 of the blocks combined (crc32_combine) equals crc32 of
 * all the bytes. A mismatch exits with status 1.
 */
#include "bench_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define MAX_RUNS 64
#define MAX_BLOCKS 8
#define CHUNK ((int64_t)1 << 30) /* bytes per zlib call (uInt counts) */

static double now(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct job {
  const unsigned char *in;
  int64_t n, block; /* block 0: the whole as one stream */
  int level;
  unsigned char *z;  /* compressed bytes */
  int64_t zcap, zlen;
  int64_t *zoff;     /* piece k starts at zoff[k]; zoff[nblocks] = zlen */
  int64_t nblocks;
  unsigned char *out; /* inflated */
} job_t;

/* Feed [in, in + len) to s with flush at its end; output appended at
 * *at. Returns 0, or -1 on a zlib error or a full buffer. */
static int deflate_piece(z_stream *s, job_t *j, const unsigned char *in,
                         int64_t len, int flush) {
  for (;;) {
    int64_t take = len < CHUNK ? len : CHUNK;
    int64_t room = j->zcap - j->zlen < CHUNK ? j->zcap - j->zlen : CHUNK;
    s->next_in = (unsigned char *)in;
    s->avail_in = (uInt)take;
    s->next_out = j->z + j->zlen;
    s->avail_out = (uInt)room;
    int last = take == len;
    int rc = deflate(s, last ? flush : Z_NO_FLUSH);
    j->zlen += room - s->avail_out;
    in += take - s->avail_in;
    len -= take - s->avail_in;
    if (rc == Z_STREAM_ERROR || (rc == Z_BUF_ERROR && room == 0))
      return -1;
    if (last && len == 0 && s->avail_out != 0 &&
        (flush != Z_FINISH || rc == Z_STREAM_END))
      return 0;
    if (j->zlen == j->zcap)
      return -1;
  }
}

static int compress_all(job_t *j) {
  z_stream s;
  memset(&s, 0, sizeof s);
  if (deflateInit2(&s, j->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return -1;
  int64_t b = j->block ? j->block : j->n;
  int rc = 0;
  j->zlen = 0;
  for (int64_t k = 0; k < j->nblocks && rc == 0; k++) {
    int64_t lo = k * b, len = j->n - lo < b ? j->n - lo : b;
    j->zoff[k] = j->zlen;
    if (k > 0)
      deflateReset(&s);
    rc = deflate_piece(&s, j, j->in + lo, len,
                       k == j->nblocks - 1 ? Z_FINISH : Z_FULL_FLUSH);
  }
  j->zoff[j->nblocks] = j->zlen;
  deflateEnd(&s);
  return rc;
}

/* Inflate [z, z + zlen) into [out, out + n): exactly n bytes, and the
 * stream's end exactly at zlen when fin (a piece ended by a full flush
 * has no end: its input is used up instead). */
static int inflate_span(z_stream *s, const unsigned char *z, int64_t zlen,
                        unsigned char *out, int64_t n, int fin) {
  int64_t zin = 0, got = 0;
  int rc = Z_OK;
  while (rc == Z_OK && (zin < zlen || got < n)) {
    int64_t a = zlen - zin < CHUNK ? zlen - zin : CHUNK;
    int64_t o = n - got < CHUNK ? n - got : CHUNK;
    s->next_in = (unsigned char *)z + zin;
    s->avail_in = (uInt)a;
    s->next_out = out + got;
    s->avail_out = (uInt)o;
    rc = inflate(s, Z_NO_FLUSH);
    zin += a - s->avail_in;
    got += o - s->avail_out;
    if (rc == Z_BUF_ERROR && zin == zlen)
      break; /* used up: a piece without an end */
    if (rc == Z_BUF_ERROR && got == n)
      return -1; /* more output than n */
  }
  if (got != n || zin != zlen)
    return -1;
  return fin ? (rc == Z_STREAM_END ? 0 : -1)
             : (rc == Z_OK || rc == Z_BUF_ERROR ? 0 : -1);
}

/* Each piece alone (pieces = 1), or the whole stream at once. */
static int inflate_all(job_t *j, int pieces) {
  z_stream s;
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -15) != Z_OK)
    return -1;
  int rc = 0;
  if (!pieces) {
    rc = inflate_span(&s, j->z, j->zlen, j->out, j->n, 1);
  } else {
    int64_t b = j->block ? j->block : j->n;
    for (int64_t k = 0; k < j->nblocks && rc == 0; k++) {
      int64_t lo = k * b, len = j->n - lo < b ? j->n - lo : b;
      if (k > 0)
        inflateReset(&s);
      rc = inflate_span(&s, j->z + j->zoff[k], j->zoff[k + 1] - j->zoff[k],
                        j->out + lo, len, k == j->nblocks - 1);
    }
  }
  inflateEnd(&s);
  return rc;
}

/* The CRC-32 of the blocks, one by one, combined: as processes that
 * compressed the blocks would compute it. */
static uint32_t blocks_crc(const job_t *j) {
  int64_t b = j->block ? j->block : j->n;
  uLong crc = crc32_z(0, NULL, 0);
  for (int64_t k = 0; k < j->nblocks; k++) {
    int64_t lo = k * b, len = j->n - lo < b ? j->n - lo : b;
    uLong c = crc32_z(0, j->in + lo, (z_size_t)len);
    crc = crc32_combine(crc, c, (z_off_t)len); /* len <= a block */
  }
  return (uint32_t)crc;
}

static void speeds(double *t, int runs, int64_t n, double *v) {
  qsort(t, (size_t)runs, sizeof t[0], cmp);
  v[0] = (double)n / t[runs - 1] / 1048576.0; /* slowest run */
  v[1] = (double)n / t[runs / 2] / 1048576.0;
  v[2] = (double)n / t[0] / 1048576.0;
}

/* One line: R runs of deflate and of inflate, every run checked. */
static int measure(job_t *j, int runs, uint32_t want_crc, double whole_ratio) {
  double td[MAX_RUNS], ti[MAX_RUNS], wd[MAX_RUNS], wi[MAX_RUNS];
  double vd[3], vi[3], vwd[3], vwi[3];
  int bad = 0;
  for (int r = 0; r < runs && !bad; r++) {
    double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    bad |= compress_all(j) != 0;
    td[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    wd[r] = now(CLOCK_MONOTONIC) - w0;
    memset(j->out, 0xA5, (size_t)j->n);
    c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    bad |= inflate_all(j, j->block != 0) != 0;
    ti[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    wi[r] = now(CLOCK_MONOTONIC) - w0;
    bad |= memcmp(j->out, j->in, (size_t)j->n) != 0;
    if (j->block && r == 0) { /* as one stream, as zipfile reads it */
      memset(j->out, 0x5A, (size_t)j->n);
      bad |= inflate_all(j, 0) != 0 ||
             memcmp(j->out, j->in, (size_t)j->n) != 0;
    }
  }
  bad |= blocks_crc(j) != want_crc;
  char name[32] = "whole";
  if (j->block)
    snprintf(name, sizeof name, "block %lldK", (long long)(j->block >> 10));
  if (bad) {
    printf("%-12s MISMATCH: the stream does not inflate back to the data "
           "or the CRC differs\n", name);
    return 1;
  }
  speeds(td, runs, j->n, vd);
  speeds(ti, runs, j->n, vi);
  speeds(wd, runs, j->n, vwd);
  speeds(wi, runs, j->n, vwi);
  double ratio = (double)j->n / (double)j->zlen;
  printf("%-12s %7.4f %12lld %+6.2f%%  %7.1f %7.1f %7.1f (%7.1f)  "
         "%7.1f %7.1f %7.1f (%7.1f)\n", name, ratio, (long long)j->zlen,
         whole_ratio > 0 ? 100.0 * (whole_ratio / ratio - 1.0) : 0.0, vd[0],
         vd[1], vd[2], vwd[1], vi[0], vi[1], vi[2], vwi[1]);
  fflush(stdout);
  return 0;
}

static int64_t parse_size(const char *v) {
  char *end;
  long long x = strtoll(v, &end, 10);
  if (*end == 'K' || *end == 'k')
    x <<= 10, end++;
  else if (*end == 'M' || *end == 'm')
    x <<= 20, end++;
  return *end || x < 1 || x > ((int64_t)1 << 30) ? -1 : x; /* z_off_t */
}

static int usage(void) {
  fprintf(stderr, "usage: zlib-speed [--data smooth|random|index] "
          "[--type double|int32] [--n N | --mib M] [--level 0..9] "
          "[--runs 1..%d] [--block B[K|M]]...\n", MAX_RUNS);
  return 2;
}

int main(int argc, char **argv) {
  int kind = BENCH_DATA_SMOOTH, esize = 8, level = 1, runs = 5, nb = 0;
  int64_t n3 = 0, mib = 64, blocks[MAX_BLOCKS];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL)
      return usage();
    i++;
    if (!strcmp(a, "--data") && (kind = bench_data_kind(v)) >= 0)
      continue;
    if (!strcmp(a, "--type") && (!strcmp(v, "double") || !strcmp(v, "int32")))
      esize = !strcmp(v, "double") ? 8 : 4;
    else if (!strcmp(a, "--n") && (n3 = atoll(v)) >= 1 && n3 <= 2048)
      continue;
    else if (!strcmp(a, "--mib") && (mib = atoll(v)) >= 1 && mib <= 8192)
      continue;
    else if (!strcmp(a, "--level") && sscanf(v, "%d", &level) == 1 &&
             level >= 0 && level <= 9)
      continue;
    else if (!strcmp(a, "--runs") && (runs = atoi(v)) >= 1 &&
             runs <= MAX_RUNS)
      continue;
    else if (!strcmp(a, "--block") && nb < MAX_BLOCKS &&
             (blocks[nb] = parse_size(v)) > 0)
      nb++;
    else
      return usage();
  }
  if (nb == 0) {
    blocks[0] = 256 << 10, blocks[1] = 1 << 20, blocks[2] = 4 << 20;
    nb = 3;
  }
  int64_t elems = n3 ? n3 * n3 * n3 : (mib << 20) / esize;
  int64_t row = n3 ? n3 : (int64_t)llround(cbrt((double)elems));
  int64_t n = elems * esize, maxblocks = n / blocks[0] + 1;
  for (int i = 1; i < nb; i++)
    if (n / blocks[i] + 1 > maxblocks)
      maxblocks = n / blocks[i] + 1;
  job_t j = {.n = n, .level = level, .nblocks = 1};
  unsigned char *in = malloc((size_t)n);
  j.zcap = (int64_t)deflateBound(NULL, (uLong)n) + 64 * maxblocks + 64;
  j.z = malloc((size_t)j.zcap);
  j.out = malloc((size_t)n);
  j.zoff = malloc((size_t)(maxblocks + 1) * sizeof *j.zoff);
  if (in == NULL || j.z == NULL || j.out == NULL || j.zoff == NULL) {
    fprintf(stderr, "zlib-speed: out of memory\n");
    return 2;
  }
  bench_gen_fill(kind, esize, 0, elems, row, 1, in);
  j.in = in;
  uint32_t want = (uint32_t)crc32_z(0, in, (z_size_t)n);
  printf("zlib-speed: data=%s type=%s rows of %lld, %lld bytes, level %d, "
         "%d runs, zlib %s\n", bench_data_name(kind),
         esize == 8 ? "double" : "int32", (long long)row, (long long)n,
         level, runs, zlibVersion());
  printf("%-12s %7s %12s %7s  %-31s  %-31s\n", "", "ratio", "compressed",
         "vs whole", "deflate MiB/s min med max (wall)",
         "inflate MiB/s min med max (wall)");
  int bad = measure(&j, runs, want, 0.0);
  double whole = (double)n / (double)j.zlen;
  for (int i = 0; i < nb && !bad; i++) {
    j.block = blocks[i];
    j.nblocks = (n + j.block - 1) / j.block;
    bad |= measure(&j, runs, want, whole);
  }
  free(in);
  free(j.z);
  free(j.out);
  free(j.zoff);
  return bad;
}
