/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_format.c - datasets (.npy, .npz; doc/formats.md) at 1-4 ranks.
 *
 * For each case (shape, element type, distribution, storage order, memory
 * ghosts, strategy hint) every rank fills its local buffer from a closed
 * form (element with row-major logical index i holds i + 7 in the element
 * type), placed with darray_locate. The same darray_write goes to a raw
 * file, to a .npy file and, as member "u" after a member "w", to a .npz
 * archive. Oracles, none of them the library's format code:
 *  - the bytes of each member's data (at the offset the reopened file
 *    reports) equal the raw file's, byte for byte;
 *  - zlib's crc32 of the member's bytes in the file (its .npy header and
 *    data, from the local header's end) equals the CRC-32 the archive
 *    records, so the parallel combination (each rank's runs) is checked
 *    against a serial one of the whole member;
 *  - /usr/bin/python3 with NumPy loads both files and compares every
 *    element with the closed form (arange + 7, transposed for a permuted
 *    storage order); `python3 -m zipfile -t` and `unzip -t` accept the
 *    archive (skipped, and said so, where they are missing);
 *  - reopened, darray_inquire gives name, type, shape and order; a
 *    description with another distribution (NONE x BLOCK or CYCLIC(2) per
 *    dimension) reads every element back, with darray_verify_crc on;
 *    darray_verify passes, and fails with DARRAY_ECRC naming the member
 *    after one data byte is flipped.
 * The .npz archive is also written by nonblocking calls (darray_iwrite of
 * "u", darray_bwrite_section of "w", completed by darray_wait_all before
 * the close), once per way requests run (darray_async = thread, files,
 * none; MPI at MPI_THREAD_MULTIPLE), and checked by the same oracles; its
 * member "u" is read back by darray_iread with darray_verify_crc on.
 * Files written by numpy.save / numpy.savez are read back the same way,
 * and a numpy.savez_compressed archive opens but its member gives
 * DARRAY_ENOTSUP at darray_define on every rank (test_format_numpy: more
 * of NumPy's archives).
 * Refusals (bad suffix, mode, names, element type, ranks disagreeing, an
 * unbound array, a truncated archive, a file that is no .npy) give their
 * specific code on every rank.
 */
#include "testutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PY "/usr/bin/python3"

typedef struct fcase {
  int nd;
  int64_t g[3];
  darray_type_t type;
  const char *dtype; /* NumPy's name */
  darray_dist_t dist[3];
  int64_t dargs[3];
  darray_order_t order;
  int perm[3];
  int ghost;
  const char *hints;
} fcase_t;

static const fcase_t cases[] = {
    {2, {7, 5}, DARRAY_DOUBLE, "<f8", {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE},
     {-1, -1}, DARRAY_ORDER_C, {0, 1}, 0, ""},
    {2, {6, 9}, DARRAY_INT32, "<i4", {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC},
     {-1, 2}, DARRAY_ORDER_FORTRAN, {1, 0}, 1, "darray_strategy=twophase;"
                                               "cb_buffer_size=64"},
    {3, {3, 4, 5}, DARRAY_INT16, "<i2",
     {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK, DARRAY_DIST_NONE}, {1, -1, -1},
     DARRAY_ORDER_PERM, {2, 0, 1}, 0, "darray_strategy=sieve"},
    {1, {1000}, DARRAY_UINT8, "|u1", {DARRAY_DIST_CYCLIC}, {3},
     DARRAY_ORDER_C, {0}, 2, "darray_strategy=direct"},
    {2, {40, 33}, DARRAY_DOUBLE, "<f8",
     {DARRAY_DIST_CYCLIC, DARRAY_DIST_CYCLIC}, {1, 1}, DARRAY_ORDER_C, {0, 1},
     0, "striping_unit=64k"},
    /* the CRC share fed by two-phase's aggregators from their chunks as
     * vectors of pieces (no image) and pipelined, and by a thread beside
     * independent writes */
    {3, {5, 6, 7}, DARRAY_INT32, "<i4",
     {DARRAY_DIST_BLOCK, DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK}, {-1, 1, -1},
     DARRAY_ORDER_C, {0, 1, 2}, 0, "darray_strategy=twophase;"
     "darray_cb_image_piece=0;cb_buffer_size=96;darray_cb_pipeline=enable"},
    {2, {9, 11}, DARRAY_DOUBLE, "<f8", {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK},
     {2, -1}, DARRAY_ORDER_FORTRAN, {1, 0}, 1, "darray_strategy=direct;"
     "darray_crc_thread=enable"},
    {2, {8, 8}, DARRAY_INT16, "<i2", {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK},
     {-1, -1}, DARRAY_ORDER_C, {0, 1}, 0, "darray_strategy=sieve;"
     "darray_crc_thread=enable"},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int64_t esize_of(darray_type_t t) {
  return t == DARRAY_DOUBLE ? 8 : t == DARRAY_INT32 ? 4
         : t == DARRAY_INT16 ? 2 : 1;
}

static void put_value(darray_type_t t, char *p, int64_t v) {
  if (t == DARRAY_DOUBLE) {
    double d = (double)v;
    memcpy(p, &d, 8);
  } else if (t == DARRAY_INT32) {
    int32_t x = (int32_t)v;
    memcpy(p, &x, 4);
  } else if (t == DARRAY_INT16) {
    int16_t x = (int16_t)v;
    memcpy(p, &x, 2);
  } else {
    *(uint8_t *)p = (uint8_t)v;
  }
}

/* Visit every global element: its row-major index and its index. */
static int64_t nelems(const fcase_t *c) {
  int64_t n = 1;
  for (int d = 0; d < c->nd; d++)
    n *= c->g[d];
  return n;
}
static void unravel(const fcase_t *c, int64_t lin, int64_t idx[]) {
  for (int d = c->nd - 1; d >= 0; d--) {
    idx[d] = lin % c->g[d];
    lin /= c->g[d];
  }
}

/* Fill (or check, when check is set) this rank's buffer of a. */
static int64_t fill(const fcase_t *c, darray_t a, char *buf, bool check) {
  int64_t bad = 0, idx[3], off;
  int rank, me = tu_rank();
  char want[8];
  for (int64_t i = 0; i < nelems(c); i++) {
    unravel(c, i, idx);
    TU_OK(darray_locate(a, idx, &rank, NULL, NULL, &off));
    if (rank != me)
      continue;
    put_value(c->type, want, i + 7);
    if (!check)
      memcpy(buf + off, want, (size_t)esize_of(c->type));
    else if (memcmp(buf + off, want, (size_t)esize_of(c->type)) != 0)
      bad++;
  }
  return bad;
}

static darray_t describe(const fcase_t *c, const darray_dist_t *dist,
                         const int64_t *dargs, int ghost) {
  darray_t a = NULL;
  int64_t gh[3] = {ghost, ghost, ghost};
  TU_OK(darray_create(MPI_COMM_WORLD, c->nd, c->g, c->type, &a));
  TU_OK(darray_set_distribution(a, dist, dargs));
  TU_OK(darray_set_storage_order(a, c->order, c->perm));
  TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL));
  TU_OK(darray_commit(a));
  return a;
}

static char *local_buf(darray_t a) {
  int64_t n = 0;
  darray_local_bytes(a, &n);
  return calloc((size_t)(n > 0 ? n : 1), 1);
}

/* Write the case to raw, .npy and .npz files (member "u" after "w"). */
static void write_all(const fcase_t *c, const char *base) {
  char path[600];
  MPI_Info info = tu_info(c->hints);
  darray_t a = describe(c, c->dist, c->dargs, c->ghost);
  int64_t wg[1] = {5};
  darray_t w = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, wg, DARRAY_INT8, &w));
  TU_OK(darray_commit(w));
  char *buf = local_buf(a), wbuf[5] = {1, 2, 3, 4, 5};
  fill(c, a, buf, false);
  const char *suffix[3] = {".raw", ".npy", ".npz"};
  for (int k = 0; k < 3; k++) {
    darray_file_t f = NULL;
    int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
    snprintf(path, sizeof path, "%s%s", base, suffix[k]);
    TU_OK(k == 0 ? darray_file_open(MPI_COMM_WORLD, path, mode, info, &f)
                 : darray_dataset_open(MPI_COMM_WORLD, path, mode, info, &f));
    if (k == 2) {
      TU_OK(darray_define(f, "w", w));
      TU_OK(darray_write_section(f, w, (int64_t[]){0},
                                 (int64_t[]){tu_rank() == 0 ? 5 : 0},
                                 DARRAY_ORDER_C, wbuf));
    }
    if (k > 0)
      TU_OK(darray_define(f, "u", a));
    TU_OK(darray_write(f, a, buf));
    TU_OK(darray_file_close(&f));
  }
  free(buf);
  darray_free(&a);
  darray_free(&w);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
}

/* The .npz archive again, by nonblocking calls under darray_async=mode:
 * "w" by a buffered section write (read back for its CRC at close), "u"
 * by darray_iwrite; both completed by one darray_wait_all. */
static void write_npz_nb(const fcase_t *c, const char *path,
                         const char *mode) {
  char h[256];
  snprintf(h, sizeof h, "%s%sdarray_async=%s", c->hints ? c->hints : "",
           c->hints && c->hints[0] ? ";" : "", mode);
  MPI_Info info = tu_info(h);
  darray_t a = describe(c, c->dist, c->dargs, c->ghost);
  int64_t wg[1] = {5};
  darray_t w = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, wg, DARRAY_INT8, &w));
  TU_OK(darray_commit(w));
  char *buf = local_buf(a), wbuf[5] = {1, 2, 3, 4, 5};
  fill(c, a, buf, false);
  darray_file_t f = NULL;
  int fmode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  darray_request_t req[2];
  int codes[2] = {-1, -1};
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, fmode, info, &f));
  TU_OK(darray_define(f, "w", w));
  TU_OK(darray_define(f, "u", a));
  TU_OK(darray_bwrite_section(f, w, (int64_t[]){0},
                              (int64_t[]){tu_rank() == 0 ? 5 : 0},
                              DARRAY_ORDER_C, wbuf, &req[0]));
  memset(wbuf, 0, sizeof wbuf); /* copied when posted */
  TU_OK(darray_iwrite(f, a, buf, &req[1]));
  TU_OK(darray_wait_all(f, 2, req, codes));
  TU_EQ_CODE(codes[0], DARRAY_SUCCESS);
  TU_EQ_CODE(codes[1], DARRAY_SUCCESS);
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&a);
  darray_free(&w);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
}

/* Member "u" read back by darray_iread with its CRC checked. */
static void reread_nb(const fcase_t *c, const char *path, const char *mode) {
  char h[96];
  snprintf(h, sizeof h, "darray_verify_crc=enable;darray_async=%s", mode);
  MPI_Info info = tu_info(h);
  darray_file_t f = NULL;
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 info, &f))) {
    MPI_Info_free(&info);
    return;
  }
  darray_t b = describe(c, c->dist, c->dargs, 0);
  char *buf = local_buf(b);
  darray_request_t r;
  TU_OK(darray_define(f, "u", b));
  TU_OK(darray_iread(f, b, buf, &r));
  TU_OK(darray_wait(f, &r));
  TU_EQ_I64(fill(c, b, buf, true), 0);
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&b);
  MPI_Info_free(&info);
}

/* The member "u" of a reopened dataset, checked against the case. */
static int find_u(darray_file_t f, const fcase_t *c, bool npz,
                  darray_member_info_t *m) {
  int n = 0, at = -1;
  TU_OK(darray_num_members(f, &n));
  TU_EQ_INT(n, npz ? 2 : 1);
  for (int i = 0; i < n; i++) {
    TU_OK(darray_inquire(f, i, m));
    if (strcmp(m->name, npz ? "u" : "") == 0)
      at = i;
  }
  if (!TU_CHECK(at >= 0))
    return -1;
  TU_OK(darray_inquire(f, at, m));
  TU_EQ_INT(m->type, c->type);
  TU_EQ_INT(m->ndims, c->nd);
  TU_EQ_INT(m->has_crc, npz);
  for (int d = 0; d < c->nd; d++) {
    TU_EQ_I64(m->gsizes[d], c->g[d]);
    TU_EQ_INT(m->perm[d], c->perm[d]);
  }
  TU_EQ_INT(m->order, c->order);
  TU_EQ_I64(m->bytes, nelems(c) * esize_of(c->type));
  return at;
}

/* Rank 0: the member's data equal the raw file's bytes, and zlib's CRC
 * of the member in the file is the one recorded. */
static void check_bytes(const char *path, const char *raw,
                        const darray_member_info_t *m) {
  int64_t n = 0, nr = 0;
  unsigned char *b = tu_read_file(path, &n), *r = tu_read_file(raw, &nr);
  if (TU_CHECK(b != NULL && r != NULL) && TU_EQ_I64(nr, m->bytes) &&
      TU_CHECK(m->offset + m->bytes <= n)) {
    tu_compare_bytes(b + m->offset, r, nr, path);
    int64_t s = m->offset;
    while (s > 0 && memcmp(b + s, "\x93NUMPY", 6) != 0)
      s--; /* the member's .npy header */
    if (m->has_crc)
      TU_EQ_U64(crc32(0, b + s, (uInt)(m->offset + m->bytes - s)), m->crc32);
  }
  free(b);
  free(r);
}

/* Read member "u" with another distribution and check every element. */
static void reread(const fcase_t *c, const char *path, const char *raw,
                   bool npz) {
  darray_file_t f = NULL;
  darray_member_info_t m;
  MPI_Info info = tu_info("darray_verify_crc=enable");
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 info, &f)))
    return;
  if (find_u(f, c, npz, &m) >= 0 && tu_rank() == 0)
    check_bytes(path, raw, &m);
  darray_dist_t dist[3] = {DARRAY_DIST_NONE, DARRAY_DIST_BLOCK,
                           DARRAY_DIST_CYCLIC};
  int64_t dargs[3] = {-1, -1, 2};
  if (c->nd == 1)
    dist[0] = DARRAY_DIST_BLOCK;
  darray_t b = describe(c, dist, dargs, 0);
  char *buf = local_buf(b);
  TU_OK(darray_define(f, npz ? "u" : NULL, b));
  TU_OK(darray_read(f, b, buf));
  TU_EQ_I64(fill(c, b, buf, true), 0);
  TU_OK(darray_verify(f));
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&b);
  MPI_Info_free(&info);
}

/* A damaged byte: darray_verify and a checked read say DARRAY_ECRC. */
static void damaged(const fcase_t *c, const char *path) {
  darray_file_t f = NULL;
  darray_member_info_t m;
  MPI_Info info = tu_info("darray_verify_crc=enable");
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                            &f));
  find_u(f, c, true, &m);
  if (tu_rank() == 0) {
    int64_t n = 0;
    unsigned char *b = tu_read_file(path, &n);
    b[m.offset + m.bytes / 2] ^= 0x10;
    TU_EQ_INT(tu_write_file(path, b, n), 0);
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  TU_EQ_CODE(darray_verify(f), DARRAY_ECRC);
  TU_CONTAINS(darray_file_errmsg(f), "member 'u'");
  darray_t b = describe(c, c->dist, c->dargs, 0);
  char *buf = local_buf(b);
  TU_OK(darray_define(f, "u", b));
  TU_EQ_CODE(darray_read(f, b, buf), DARRAY_ECRC);
  TU_CONTAINS(darray_file_errmsg(f), "member 'u'");
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&b);
  MPI_Info_free(&info);
}

/* ---- Python: NumPy and zipfile, and unzip (rank 0) */

static const char *script =
    "import sys, zipfile, numpy as np\n"
    "path, name, dt, shape, perm = sys.argv[1:6]\n"
    "shape = tuple(int(x) for x in shape.split(','))\n"
    "perm = [int(x) for x in perm.split(',')]\n"
    "if path.endswith('.npz'):\n"
    "    z = np.load(path)\n"
    "    arr = z[name]\n"
    "    assert list(z['w']) == [1, 2, 3, 4, 5], z['w']\n"
    "    assert zipfile.ZipFile(path).testzip() is None\n"
    "else:\n"
    "    arr = np.load(path, mmap_mode='r')\n"
    "e = (np.arange(int(np.prod(shape))) + 7).astype(dt).reshape(shape)\n"
    "ident = list(range(len(shape)))\n"
    "want = e if perm in (ident, ident[::-1]) else e.transpose(perm)\n"
    "ok = arr.dtype == np.dtype(dt) and arr.shape == want.shape and "
    "np.array_equal(arr, want)\n"
    "print('numpy', path, 'ok' if ok else 'MISMATCH', arr.dtype, arr.shape)\n"
    "sys.exit(0 if ok else 1)\n";

static bool have(const char *prog) { return access(prog, X_OK) == 0; }

static int run(const char *cmd) {
  int rc = system(cmd);
  if (rc != 0)
    TU_FAIL("command failed (%d): %s", rc, cmd);
  return rc;
}

static void python_check(const fcase_t *c, const char *base,
                         const char *py) {
  char shape[64] = "", perm[64] = "", cmd[2048];
  for (int d = 0; d < c->nd; d++) {
    snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld",
             d ? "," : "", (long long)c->g[d]);
    snprintf(perm + strlen(perm), sizeof perm - strlen(perm), "%s%d",
             d ? "," : "", c->perm[d]);
  }
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, PY " %s %s%s u '%s' %s %s", py, base,
             k ? ".npz" : ".npy", c->dtype, shape, perm);
    run(cmd);
  }
  snprintf(cmd, sizeof cmd, PY " -m zipfile -t %s.npz > /dev/null", base);
  run(cmd);
  if (have("/usr/bin/unzip")) {
    snprintf(cmd, sizeof cmd, "/usr/bin/unzip -tq %s.npz > /dev/null", base);
    run(cmd);
  }
}

/* ---- refusals: the same code on every rank, nothing written */

static void refusals(const char *base) {
  char path[600];
  int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  darray_file_t f = NULL;
  darray_t a = NULL, l = NULL;
  int64_t g[2] = {4, 3};
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_commit(a));
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_LONG_DOUBLE, &l));
  TU_OK(darray_commit(l));
  snprintf(path, sizeof path, "%s.dat", base);
  TU_EQ_CODE(darray_dataset_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL,
                                 &f), DARRAY_EINVAL);
  snprintf(path, sizeof path, "%s.npz", base);
  TU_EQ_CODE(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR,
                                 MPI_INFO_NULL, &f), DARRAY_EMODE);
  TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f));
  TU_EQ_CODE(darray_write(f, a, NULL), DARRAY_ESTATE); /* not bound */
  TU_CONTAINS(darray_file_errmsg(f), "darray_define");
  TU_EQ_CODE(darray_define(f, "a/b", a), DARRAY_EINVAL);
  TU_EQ_CODE(darray_define(f, "..", a), DARRAY_EINVAL);
  TU_EQ_CODE(darray_define(f, "x", l), DARRAY_ETYPE);
  TU_EQ_CODE(darray_define(f, tu_rank() == 0 ? "p" : "q", a),
             tu_nprocs() > 1 ? DARRAY_EINCONSISTENT : DARRAY_SUCCESS);
  if (tu_nprocs() > 1)
    TU_OK(darray_define(f, "p", a));
  TU_EQ_CODE(darray_define(f, "p2", a), DARRAY_EINVAL); /* bound already */
  int n = -1;
  TU_OK(darray_num_members(f, &n));
  TU_EQ_INT(n, 1);
  TU_OK(darray_file_close(&f));
  /* a truncated archive and a file that is no .npy: every rank says so */
  if (tu_rank() == 0) {
    int64_t sz = 0;
    unsigned char *b = tu_read_file(path, &sz);
    TU_EQ_INT(tu_write_file(path, b, sz - 5), 0);
    free(b);
    snprintf(path, sizeof path, "%s.npy", base);
    TU_EQ_INT(tu_write_file(path, "not a numpy file, not at all", 28), 0);
    snprintf(path, sizeof path, "%s.npz", base);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  TU_EQ_CODE(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f), DARRAY_EFORMAT);
  TU_CONTAINS(darray_file_errmsg(NULL), "end of central directory");
  snprintf(path, sizeof path, "%s.npy", base);
  TU_EQ_CODE(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f), DARRAY_EFORMAT);
  TU_CONTAINS(darray_file_errmsg(NULL), "magic");
  darray_free(&a);
  darray_free(&l);
}

/* ---- files NumPy wrote */

static void read_numpy(const char *path, const char *name, const fcase_t *c) {
  darray_file_t f = NULL;
  darray_member_info_t m;
  if (!TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                 MPI_INFO_NULL, &f)))
    return;
  int n = 0, found = 0;
  TU_OK(darray_num_members(f, &n));
  for (int i = 0; i < n; i++)
    if (darray_inquire(f, i, &m) == DARRAY_SUCCESS &&
        strcmp(m.name, name) == 0) {
      found = 1;
      TU_EQ_INT(m.type, c->type);
      TU_EQ_INT(m.order, c->order);
      for (int d = 0; d < c->nd; d++)
        TU_EQ_I64(m.gsizes[d], c->g[d]);
    }
  TU_CHECK(found);
  darray_dist_t dist[2] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK};
  darray_t b = describe(c, dist, NULL, 1);
  char *buf = local_buf(b);
  TU_OK(darray_define(f, name, b));
  TU_OK(darray_read(f, b, buf));
  TU_EQ_I64(fill(c, b, buf, true), 0);
  TU_OK(darray_verify(f));
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&b);
}

static void numpy_files(const char *base) {
  char cmd[2048], path[600];
  if (tu_rank() == 0) {
    snprintf(cmd, sizeof cmd, PY " -c \"import numpy as np; "
             "a = (np.arange(12) + 7).astype('<f8').reshape(3, 4); "
             "b = np.asfortranarray((np.arange(30) + 7).astype('<i4')"
             ".reshape(5, 6)); np.save('%s_np.npy', a); "
             "np.savez('%s_np.npz', a=a, b=b); "
             "np.savez_compressed('%s_z.npz', a=a)\"", base, base, base);
    run(cmd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  fcase_t a = {2, {3, 4}, DARRAY_DOUBLE, "<f8", {0}, {0}, DARRAY_ORDER_C,
               {0, 1}, 0, ""};
  fcase_t b = {2, {5, 6}, DARRAY_INT32, "<i4", {0}, {0},
               DARRAY_ORDER_FORTRAN, {1, 0}, 0, ""};
  snprintf(path, sizeof path, "%s_np.npy", base);
  read_numpy(path, "", &a);
  snprintf(path, sizeof path, "%s_np.npz", base);
  read_numpy(path, "a", &a);
  read_numpy(path, "b", &b);
  darray_file_t f = NULL;
  snprintf(path, sizeof path, "%s_z.npz", base);
  if (TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                                MPI_INFO_NULL, &f))) {
    darray_dist_t dist[2] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK};
    darray_t d = describe(&a, dist, NULL, 1);
    TU_EQ_CODE(darray_define(f, "a", d), DARRAY_ENOTSUP);
    TU_CONTAINS(darray_file_errmsg(f), "compressed");
    darray_free(&d);
    TU_OK(darray_file_close(&f));
  }
}

/* A .npy member written only in part (a section: its first row), or not
 * at all: the close extends the file to the member's end, the rest reads
 * as zeros (a .npy records no CRC: nothing is read back for one). */
static void partial_npy(const char *base) {
  char path[600];
  snprintf(path, sizeof path, "%s_part.npy", base);
  int64_t g[2] = {4, 5};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_commit(a));
  int32_t row[5] = {1, 2, 3, 4, 5};
  for (int written = 0; written < 2; written++) {
    darray_file_t f = NULL;
    int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
    TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f));
    TU_OK(darray_define(f, "", a));
    if (written)
      TU_OK(darray_write_section(f, a, (int64_t[]){0, 0},
                                 (int64_t[]){tu_rank() == 0 ? 1 : 0, 5},
                                 DARRAY_ORDER_C, row));
    TU_OK(darray_file_close(&f));
    darray_member_info_t m;
    TU_OK(darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                              MPI_INFO_NULL, &f));
    if (TU_OK(darray_inquire(f, 0, &m)) && tu_rank() == 0) {
      int64_t n = 0;
      unsigned char *b = tu_read_file(path, &n);
      if (TU_CHECK(b != NULL) && TU_EQ_I64(n, m.offset + 80)) {
        int32_t want[20] = {0};
        if (written)
          memcpy(want, row, sizeof row);
        TU_CHECK(memcmp(b + m.offset, want, sizeof want) == 0);
      }
      free(b);
    }
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
  tu_remove(path);
}

static bool numpy_present(void) {
  int ok = 0;
  if (tu_rank() == 0)
    ok = system(PY " -c 'import numpy' 2>/dev/null") == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

int main(int argc, char **argv) {
  int level = tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  char base[512], path[600], raw[600], py[600];
  if (tu_tmpname(base, sizeof base, "darray_format") == NULL)
    return tu_finish();
  bool numpy = numpy_present();
  snprintf(py, sizeof py, "%s_check.py", base);
  if (tu_rank() == 0)
    TU_EQ_INT(tu_write_file(py, script, (int64_t)strlen(script)), 0);
  for (int i = 0; i < NCASES; i++) {
    const fcase_t *c = &cases[i];
    write_all(c, base);
    snprintf(raw, sizeof raw, "%s.raw", base);
    snprintf(path, sizeof path, "%s.npy", base);
    reread(c, path, raw, false);
    snprintf(path, sizeof path, "%s.npz", base);
    reread(c, path, raw, true);
    if (numpy && tu_rank() == 0)
      python_check(c, base, py);
    static const char *const modes[] = {"thread", "files", "none"};
    for (int m = level >= MPI_THREAD_MULTIPLE ? 0 : 1; i < 3 && m < 3; m++) {
      char nb[600];
      snprintf(nb, sizeof nb, "%s_nb.npz", base);
      write_npz_nb(c, nb, modes[m]);
      reread(c, nb, raw, true);
      reread_nb(c, nb, modes[m]);
      tu_remove(nb);
    }
    if (i == NCASES - 1)
      damaged(c, path);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  refusals(base);
  partial_npy(base);
  if (numpy)
    numpy_files(base);
  else
    tu_skip_part("NumPy checks", PY " has no numpy (python3-numpy)");
  const char *suffix[] = {".raw", ".npy", ".npz", "_check.py", "_np.npy",
                          "_np.npz", "_z.npz"};
  for (size_t k = 0; k < sizeof suffix / sizeof suffix[0]; k++) {
    snprintf(path, sizeof path, "%s%s", base, suffix[k]);
    tu_remove(path);
  }
  return tu_finish();
}
