/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_format_numpy.c - NumPy's everyday archives (#38, #39), at 1-3
 * ranks, from files /usr/bin/python3 writes with NumPy in the test's
 * temporary directory (skipped, and said so, without NumPy):
 *  - numpy.savez(u=2-D float64, t=0.5, i=numpy.int32(-3), o=objects,
 *    d=datetime64[s], td=timedelta64[ns], be=big-endian float64,
 *    w=int32): the archive opens; darray_inquire lists all eight members
 *    in file order with NumPy's type names; the 0-d t and i read as
 *    one-element arrays (scalar = 1) and u, w read with a distribution,
 *    every element compared with the values the generator computed;
 *    o, d, td and be are DARRAY_ENOTSUP at darray_define on every rank,
 *    the message naming the member and its type; darray_verify checks
 *    every member's CRC, those not read included;
 *  - numpy.savez_compressed: the archive opens, its member is listed and
 *    refused at darray_define as compressed;
 *  - numpy.savez of 65,535 arrays (the end record's count is 0xFFFF and
 *    Python writes no ZIP64 record, checked on the bytes; the file is
 *    written once into the working directory, MANY_PATH): the archive
 *    opens with every member; a few members read back their values.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PY "/usr/bin/python3"
#define MANY 65535

static const char *gen =
    "import os, sys, numpy as np\n"
    "p = sys.argv[1]\n"
    "u = (np.arange(12) + 7).astype('<f8').reshape(3, 4)\n"
    "np.savez(p + '_c.npz', u=u, t=0.5, i=np.int32(-3),\n"
    "         o=np.array([1, 'a', None], dtype=object),\n"
    "         d=np.array(['2026-01-01', '2026-11-28'], dtype='<M8[s]'),\n"
    "         td=np.array([5, 6, 7], dtype='<m8[ns]'),\n"
    "         be=(np.arange(5) + 0.25).astype('>f8'),\n"
    "         w=np.arange(6, dtype='<i4') * 11)\n"
    "np.savez_compressed(p + '_z.npz', a=u)\n"
    "if len(sys.argv) > 2:  # whole or not at all\n"
    "    t = sys.argv[2] + '.tmp.npz'\n"
    "    np.savez(t, *[np.array([3 * k + 1], dtype='<i4')\n"
    "                  for k in range(65535)])\n"
    "    os.replace(t, sys.argv[2])\n";

/* The 65,535 arrays, written once in the build directory (the working
 * directory of `make check`) for every process count: NumPy takes
 * seconds to write them. */
#define MANY_PATH "test_format_numpy_many.npz"

/* Read member name as a 1-D or 2-D array of type t (BLOCK over the first
 * dimension) and compare every element the process owns with want
 * (row-major). */
static void read_check(darray_file_t f, const char *name, darray_type_t t,
                       int nd, const int64_t *g, const double *want) {
  darray_t a = NULL;
  darray_dist_t dist[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  int64_t bytes = 0, n = 1;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, nd, g, t, &a)))
    return;
  TU_OK(darray_set_distribution(a, dist, NULL));
  TU_OK(darray_commit(a));
  TU_OK(darray_local_bytes(a, &bytes));
  char *buf = calloc((size_t)bytes + 8, 1);
  if (TU_OK(darray_define(f, name, a)))
    TU_OK(darray_read(f, a, buf));
  for (int d = 0; d < nd; d++)
    n *= g[d];
  for (int64_t k = 0; k < n; k++) {
    int64_t gi[2] = {nd == 2 ? k / g[1] : k, nd == 2 ? k % g[1] : 0}, off;
    int rank = -1;
    TU_OK(darray_locate(a, gi, &rank, NULL, NULL, &off));
    if (rank != tu_rank())
      continue;
    double v = 0;
    if (t == DARRAY_DOUBLE)
      memcpy(&v, buf + off, 8);
    else {
      int32_t x;
      memcpy(&x, buf + off, 4);
      v = x;
    }
    if (v != want[k])
      TU_FAIL("member '%s' element %lld: %g, NumPy wrote %g", name,
              (long long)k, v, want[k]);
  }
  free(buf);
  darray_free(&a);
}

/* Members not read: darray_define refuses them on every rank, naming the
 * member and its type. */
static void refused(darray_file_t f, const char *name, const char *descr) {
  darray_t a = NULL;
  int64_t g = 3;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT64, &a));
  TU_OK(darray_commit(a));
  TU_EQ_CODE(darray_define(f, name, a), DARRAY_ENOTSUP);
  char want[64];
  snprintf(want, sizeof want, "member '%s'", name);
  TU_CONTAINS(darray_file_errmsg(f), want);
  TU_CONTAINS(darray_file_errmsg(f), descr);
  darray_free(&a);
}

static void everyday(const char *base) {
  static const struct {
    const char *name, *descr;
    int status, scalar;
    darray_type_t type;
    int ndims;
    int64_t g0;
  } want[] = {
      {"u", "<f8", DARRAY_SUCCESS, 0, DARRAY_DOUBLE, 2, 3},
      {"t", "<f8", DARRAY_SUCCESS, 1, DARRAY_DOUBLE, 1, 1},
      {"i", "<i4", DARRAY_SUCCESS, 1, DARRAY_INT32, 1, 1},
      {"o", "|O", DARRAY_ENOTSUP, 0, 0, 1, 3},
      {"d", "<M8[s]", DARRAY_ENOTSUP, 0, 0, 1, 2},
      {"td", "<m8[ns]", DARRAY_ENOTSUP, 0, 0, 1, 3},
      {"be", ">f8", DARRAY_ENOTSUP, 0, 0, 1, 5},
      {"w", "<i4", DARRAY_SUCCESS, 0, DARRAY_INT32, 1, 6},
  };
  char path[600];
  darray_file_t f = NULL;
  snprintf(path, sizeof path, "%s_c.npz", base);
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f))) {
    fprintf(stderr, "  %s\n", darray_file_errmsg(NULL));
    return;
  }
  int n = 0;
  TU_OK(darray_num_members(f, &n));
  TU_EQ_INT(n, 8);
  for (int k = 0; k < n && k < 8; k++) {
    darray_member_info_t m;
    if (!TU_OK(darray_inquire(f, k, &m)))
      continue;
    TU_EQ_STR(m.name, want[k].name);
    TU_EQ_STR(m.descr, want[k].descr);
    TU_EQ_INT(m.status, want[k].status);
    TU_EQ_INT(m.scalar, want[k].scalar);
    TU_EQ_INT((int)m.type, (int)want[k].type);
    TU_EQ_INT(m.ndims, want[k].ndims);
    TU_EQ_I64(m.gsizes[0], want[k].g0);
    TU_EQ_INT(m.has_crc, 1);
  }
  double u[12], w[6], t = 0.5, i = -3;
  for (int k = 0; k < 12; k++)
    u[k] = k + 7;
  for (int k = 0; k < 6; k++)
    w[k] = 11 * k;
  int64_t gu[2] = {3, 4}, gw = 6, g1 = 1;
  refused(f, "o", "'|O'");
  read_check(f, "u", DARRAY_DOUBLE, 2, gu, u);
  refused(f, "d", "'<M8[s]'");
  refused(f, "td", "'<m8[ns]'");
  read_check(f, "t", DARRAY_DOUBLE, 1, &g1, &t);
  refused(f, "be", "'>f8'");
  read_check(f, "i", DARRAY_INT32, 1, &g1, &i);
  read_check(f, "w", DARRAY_INT32, 1, &gw, w);
  TU_OK(darray_verify(f));
  TU_OK(darray_file_close(&f));

  snprintf(path, sizeof path, "%s_z.npz", base);
  if (TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                MPI_INFO_NULL, &f))) {
    darray_member_info_t m;
    if (TU_OK(darray_inquire(f, 0, &m))) {
      TU_EQ_STR(m.name, "a");
      TU_EQ_INT(m.status, DARRAY_ENOTSUP);
      TU_EQ_INT(m.has_crc, 0);
    }
    refused(f, "a", "compressed");
    TU_OK(darray_verify(f)); /* nothing it can check */
    TU_OK(darray_file_close(&f));
  }
}

/* The end record of numpy.savez's 65,535 arrays: count 0xFFFF, no ZIP64
 * locator before it (what the test is about). */
static void end_record_is_python(const char *path) {
  int64_t size = 0;
  unsigned char *b = tu_read_file(path, &size);
  if (!TU_CHECK(b != NULL && size > 42))
    return;
  const unsigned char *e = b + size - 22, *l = e - 20;
  TU_EQ_I64(e[0] | e[1] << 8 | e[2] << 16 | (int64_t)e[3] << 24,
            0x06054b50);
  TU_EQ_I64(e[10] | e[11] << 8, 0xffff);
  TU_CHECK(!(l[0] == 0x50 && l[1] == 0x4b && l[2] == 6 && l[3] == 7));
  free(b);
}

static void many(void) {
  const char *path = MANY_PATH;
  darray_file_t f = NULL;
  if (tu_rank() == 0)
    end_record_is_python(path);
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f))) {
    fprintf(stderr, "  %s\n", darray_file_errmsg(NULL));
    return;
  }
  int n = 0;
  TU_OK(darray_num_members(f, &n));
  TU_EQ_INT(n, MANY);
  static const int pick[] = {0, 1, 4096, 65534};
  for (size_t k = 0; k < sizeof pick / sizeof pick[0]; k++) {
    char name[32];
    darray_member_info_t m;
    snprintf(name, sizeof name, "arr_%d", pick[k]);
    if (TU_OK(darray_inquire(f, pick[k], &m)))
      TU_EQ_STR(m.name, name);
    double v = 3.0 * pick[k] + 1;
    int64_t g1 = 1;
    read_check(f, name, DARRAY_INT32, 1, &g1, &v);
  }
  TU_OK(darray_file_close(&f));
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  char base[512], py[600], cmd[1400];
  if (tu_tmpname(base, sizeof base, "darray_fmtnp") == NULL)
    return tu_finish();
  int ok = 0;
  if (tu_rank() == 0)
    ok = system(PY " -c 'import numpy' 2>/dev/null") == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok)
    return tu_skip(PY " has no numpy (python3-numpy)");
  snprintf(py, sizeof py, "%s_gen.py", base);
  if (tu_rank() == 0) {
    TU_EQ_INT(tu_write_file(py, gen, (int64_t)strlen(gen)), 0);
    snprintf(cmd, sizeof cmd, PY " %s %s %s", py, base,
             access(MANY_PATH, R_OK) == 0 ? "" : MANY_PATH);
    ok = system(cmd) == 0;
    if (!ok)
      TU_FAIL("command failed: %s", cmd);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok) {
    everyday(base);
    many();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const char *suffix[] = {"_gen.py", "_c.npz", "_z.npz"};
  for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++) {
    snprintf(cmd, sizeof cmd, "%s%s", base, suffix[k]);
    tu_remove(cmd);
  }
  return tu_finish();
}
