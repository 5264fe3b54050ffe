/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_errors.c - the error contract (run at 2 and 3 ranks; any P works,
 * the parts that need two ranks are skipped at P = 1).
 *
 *  (a) darray_write with buf = NULL on rank 1 only: every rank returns the
 *      same code (DARRAY_ENULL), nobody hangs, the file is unchanged, and
 *      the handles still work afterwards;
 *  (b) opening a path in a missing directory: DARRAY_ENOENT everywhere,
 *      *f == NULL; a directory: DARRAY_EISDIR;
 *  (c) processes that disagree (gsizes at create, distribution at commit,
 *      displacement at write, path/mode/hints at open): EINCONSISTENT
 *      everywhere, nothing written, and a later correct call succeeds;
 *  (d) darray_strerror / darray_err_name over the whole error table;
 *  (e) local bad inputs with their specific codes and messages naming the
 *      argument; read-only files, short files (DARRAY_EEOF), bad hints;
 *  (f) the cause of an I/O failure reaches darray_file_errmsg, with both
 *      back ends and the direct and two-phase strategies: a write to
 *      /dev/full is DARRAY_ENOSPC and says "No space left on device" (the
 *      mpiio back end once said only "input/output error"), a FIFO is
 *      DARRAY_ENOTSUP at open, naming it, a failed MPI_File_sync says so with MPI's
 *      text, and a 493-character path is shortened in the middle so that
 *      the system error still fits the message.
 * The I/O parts run once per back end and strategy (posix, direct,
 * twophase with a 16-byte cb_buffer_size, mpiio).
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int P, me;

/* Every rank: rc is the expected code; when rc is an error, the message is
 * not empty and mentions `word` (if given). */
#define EXPECT(rc, code, msg, word)                                            \
  expect_(__FILE__, __LINE__, #rc, (rc), (code), (msg), (word))

static void expect_(const char *file, int line, const char *expr, int rc,
                    int code, const char *msg, const char *word) {
  if (!tu__eq_code(file, line, expr, rc, code))
    fprintf(stderr, "  message: %s\n", msg ? msg : "(null)");
  if (code == DARRAY_SUCCESS || msg == NULL)
    return;
  if (!tu__check(file, line, "message is not empty", msg[0] != '\0'))
    return;
  if (word != NULL)
    tu__contains(file, line, expr, msg, word);
}

/* A disagreement's message names two processes' values: rank 0's and the
 * first rank whose value differs from it (every rank's message). */
static void names_values(const char *msg, const char *v0, int r,
                         const char *vr) {
  char want[400];
  snprintf(want, sizeof want, "rank 0 has %s, rank %d has %s", v0, r, vr);
  TU_CONTAINS(msg, want);
}

/* Fill a file on rank 0 with n pattern bytes; everybody waits. */
static unsigned char *make_pattern_file(const char *path, int64_t n,
                                        uint64_t seed) {
  unsigned char *pat = malloc((size_t)n);
  tu_fill_bytes(pat, n, seed, 0);
  if (me == 0)
    TU_EQ_INT(tu_write_file(path, pat, n), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  return pat;
}

/* Rank 0 checks that the file still holds exactly the pattern. */
static void check_file_is(const char *path, const unsigned char *want,
                          int64_t n, const char *what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    int64_t size = -1;
    unsigned char *got = tu_read_file(path, &size);
    if (TU_EQ_I64(size, n))
      tu_compare_bytes(got, want, n, what);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A 1-D BLOCK array of n int32 over WORLD, committed. */
static darray_t block_1d(int64_t n) {
  darray_t a = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &a)) &&
      !TU_OK(darray_commit(a)))
    darray_free(&a);
  return a;
}

/* This rank's piece of the 1-D BLOCK array, values v(g) = g * 7 + 1. */
static int32_t *block_1d_buf(int64_t n, int64_t *first, int64_t *count) {
  int64_t b = (n + P - 1) / P;
  *first = me * b < n ? me * b : n;
  *count = (*first + b < n ? *first + b : n) - *first;
  int32_t *buf = malloc(sizeof(int32_t) * (size_t)(*count + 1));
  for (int64_t i = 0; i < *count; i++)
    buf[i] = (int32_t)((*first + i) * 7 + 1);
  return buf;
}

/* ---- (a) NULL buffer on one rank -------------------------------------- */

/* Hints the I/O tests loop over: every strategy and back end must keep the
 * error contract. */
static const char *const io_hints[][2] = {
    {"darray_backend", "posix"},
    {"darray_strategy", "direct"},
    {"darray_strategy", "twophase"},
    {"darray_backend", "mpiio"},
};
#define N_IO_HINTS ((int)(sizeof io_hints / sizeof io_hints[0]))

static void test_null_buffer(MPI_Info info) {
  char path[512];
  const int64_t n = 40, fbytes = 200; /* file longer than the array */
  if (tu_tmpname(path, sizeof path, "darray_errors_null") == NULL)
    return;
  unsigned char *pat = make_pattern_file(path, fbytes, 1);
  darray_t a = block_1d(n);
  darray_file_t f = NULL;
  if (a == NULL || !TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                                           DARRAY_MODE_RDWR, info, &f))) {
    darray_free(&a);
    free(pat);
    return;
  }
  int64_t first, count;
  int32_t *buf = block_1d_buf(n, &first, &count);
  int rc = darray_write(f, a, me == 1 ? NULL : buf);
  EXPECT(rc, P > 1 ? DARRAY_ENULL : DARRAY_SUCCESS, darray_file_errmsg(f),
         me == 1 ? "buf" : "rank 1");
  if (P > 1) { /* every rank reads rank 1's own words, with its count */
    char want[200];
    int64_t b = (n + P - 1) / P, own = n - b < b ? n - b : b; /* rank 1 */
    snprintf(want, sizeof want, "%sbuf is NULL but this process owns %lld "
             "elements", me == 1 ? "" : "failed on rank 1: ",
             (long long)own);
    TU_CONTAINS(darray_file_errmsg(f), want);
    check_file_is(path, pat, fbytes, "file after a failed write");
  }

  /* the handles still work: a correct write, then the bytes are right */
  rc = darray_write(f, a, buf);
  EXPECT(rc, DARRAY_SUCCESS, darray_file_errmsg(f), NULL);
  TU_EQ_STR(darray_file_errmsg(f), "");
  unsigned char *want = malloc((size_t)fbytes);
  memcpy(want, pat, (size_t)fbytes);
  for (int64_t g = 0; g < n; g++) {
    int32_t v = (int32_t)(g * 7 + 1);
    memcpy(want + 4 * g, &v, 4);
  }
  check_file_is(path, want, fbytes, "file after the correct write");

  /* a read into NULL fails the same way */
  int32_t *rbuf = calloc((size_t)(count + 1), sizeof *rbuf);
  rc = darray_read(f, a, me == P - 1 && P > 1 ? NULL : rbuf);
  EXPECT(rc, P > 1 ? DARRAY_ENULL : DARRAY_SUCCESS, darray_file_errmsg(f),
         NULL);
  TU_OK(darray_file_close(&f));
  TU_CHECK(f == NULL);
  darray_free(&a);

  /* a rank that owns nothing may pass NULL: 1 element over P ranks */
  a = block_1d(1);
  if (a != NULL && TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                                          DARRAY_MODE_RDWR, info, &f))) {
    int32_t one = 12345;
    TU_OK(darray_write(f, a, me == 0 ? &one : NULL));
    TU_OK(darray_file_close(&f));
    memcpy(want, &one, 4);
    check_file_is(path, want, fbytes, "file after a write of one element");
  }
  darray_free(&a);
  free(rbuf);
  free(buf);
  free(want);
  free(pat);
  tu_remove(path);
}

/* ---- (b) open errors -------------------------------------------------- */

static void test_open_errors(void) {
  char dir[512], path[600];
  darray_file_t f = (darray_file_t)&f; /* not NULL: must be reset */
  if (tu_tmpname(dir, sizeof dir, "darray_errors_nodir") == NULL)
    return;
  snprintf(path, sizeof path, "%s/sub/file.dat", dir);
  int rc = darray_file_open(MPI_COMM_WORLD, path,
                            DARRAY_MODE_RDWR | DARRAY_MODE_CREATE,
                            MPI_INFO_NULL, &f);
  EXPECT(rc, DARRAY_ENOENT, darray_file_errmsg(NULL), NULL);
  TU_CHECK(f == NULL);
  if (me == 0)
    TU_CONTAINS(darray_file_errmsg(NULL), "file.dat");
  /* RDONLY without CREATE on a missing file */
  f = (darray_file_t)&f;
  rc = darray_file_open(MPI_COMM_WORLD, dir, DARRAY_MODE_RDONLY, MPI_INFO_NULL,
                        &f);
  EXPECT(rc, DARRAY_ENOENT, darray_file_errmsg(NULL), NULL);
  TU_CHECK(f == NULL);
  /* a directory */
  rc = darray_file_open(MPI_COMM_WORLD, tu_tmpdir(), DARRAY_MODE_RDONLY,
                        MPI_INFO_NULL, &f);
  EXPECT(rc, DARRAY_EISDIR, darray_file_errmsg(NULL), NULL);
  TU_CHECK(f == NULL);
  /* bad modes, NULL arguments */
  static const int bad_modes[] = {0,
                                  DARRAY_MODE_RDONLY | DARRAY_MODE_RDWR,
                                  DARRAY_MODE_RDONLY | DARRAY_MODE_CREATE,
                                  DARRAY_MODE_RDONLY | DARRAY_MODE_TRUNC,
                                  DARRAY_MODE_CREATE,
                                  64 | 2};
  for (size_t i = 0; i < sizeof bad_modes / sizeof bad_modes[0]; i++) {
    rc =
        darray_file_open(MPI_COMM_WORLD, path, bad_modes[i], MPI_INFO_NULL, &f);
    EXPECT(rc, DARRAY_EMODE, darray_file_errmsg(NULL), "mode");
    TU_CHECK(f == NULL);
  }
  rc = darray_file_open(MPI_COMM_WORLD, NULL, DARRAY_MODE_RDONLY, MPI_INFO_NULL,
                        &f);
  EXPECT(rc, DARRAY_ENULL, darray_file_errmsg(NULL), "path");
  rc = darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, MPI_INFO_NULL,
                        NULL);
  EXPECT(rc, DARRAY_ENULL, darray_file_errmsg(NULL), NULL);
  rc = darray_file_open(MPI_COMM_NULL, path, DARRAY_MODE_RDONLY, MPI_INFO_NULL,
                        &f);
  EXPECT(rc, DARRAY_ECOMM, darray_file_errmsg(NULL), "comm");
  TU_OK(darray_file_close(NULL));
  f = NULL;
  TU_OK(darray_file_close(&f));
}

/* ---- (c) disagreement ------------------------------------------------- */

static void test_inconsistent(void) {
  if (P < 2) {
    tu_skip_part("inconsistent descriptions", "one process cannot disagree");
    return;
  }
  /* gsizes differ on rank 1 */
  int64_t g[2] = {8, me == 1 ? 9 : 8};
  darray_t a = (darray_t)&a;
  int rc = darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_errmsg(NULL), NULL);
  names_values(darray_errmsg(NULL), "ndims 2, gsizes 8x8, type INT32", 1,
               "ndims 2, gsizes 8x9, type INT32");
  TU_CHECK(a == NULL);
  /* type differs on the last rank */
  rc = darray_create(MPI_COMM_WORLD, 1, g,
                     me == P - 1 ? DARRAY_INT64 : DARRAY_DOUBLE, &a);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_errmsg(NULL), NULL);
  TU_CHECK(a == NULL);

  /* distribution differs at commit; then agree and commit again */
  g[1] = 8;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a)))
    return;
  darray_dist_t d1[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK};
  darray_dist_t d2[2] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_BLOCK};
  TU_OK(darray_set_distribution(a, me == 1 ? d2 : d1, NULL));
  rc = darray_commit(a);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_errmsg(a), "dist");
  names_values(darray_errmsg(a), "dist BLOCK x BLOCK", 1,
               "dist CYCLIC x BLOCK");
  int ps[2];
  TU_EQ_CODE(darray_grid(a, ps), DARRAY_ESTATE); /* still not committed */
  TU_OK(darray_set_distribution(a, d1, NULL));
  /* block sizes differ */
  int64_t k1[2] = {8, DARRAY_DEFAULT_ARG}, k2[2] = {7, DARRAY_DEFAULT_ARG};
  TU_OK(darray_set_distribution(a, d1, me == 0 ? k2 : k1));
  EXPECT(darray_commit(a), DARRAY_EINCONSISTENT, darray_errmsg(a), NULL);
  names_values(darray_errmsg(a), "dist BLOCK(7) x BLOCK", 1,
               "dist BLOCK(8) x BLOCK");
  /* storage orders differ */
  TU_OK(darray_set_distribution(a, d1, k1));
  TU_OK(darray_set_storage_order(
      a, me == 1 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C, NULL));
  EXPECT(darray_commit(a), DARRAY_EINCONSISTENT, darray_errmsg(a), NULL);
  names_values(darray_errmsg(a), "C order, perm 0,1", 1,
               "Fortran order, perm 1,0");
  TU_OK(darray_set_storage_order(a, DARRAY_ORDER_C, NULL));
  if (!TU_OK(darray_commit(a))) {
    darray_free(&a);
    return;
  }

  /* displacement differs at write time: nothing is written */
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_errors_disp") == NULL) {
    darray_free(&a);
    return;
  }
  const int64_t fbytes = 8 * 8 * 4 + 64;
  unsigned char *pat = make_pattern_file(path, fbytes, 2);
  darray_file_t f = NULL;
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR,
                             MPI_INFO_NULL, &f))) {
    int64_t bytes = 0;
    darray_local_bytes(a, &bytes);
    unsigned char *buf = calloc((size_t)bytes + 1, 1);
    TU_OK(darray_set_displacement(a, me == 1 ? 8 : 0));
    rc = darray_write(f, a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), "displacement");
    names_values(darray_file_errmsg(f), "0", 1, "8");
    rc = darray_read(f, a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), NULL);
    check_file_is(path, pat, fbytes, "file after an inconsistent write");
    TU_OK(darray_set_displacement(a, 0));
    TU_OK(darray_write(f, a, buf)); /* and now it works */
    TU_OK(darray_file_close(&f));
    free(buf);
  }

  /* open: different paths, modes, hints */
  char other[600];
  snprintf(other, sizeof other, "%s.other", path);
  f = (darray_file_t)&f;
  rc = darray_file_open(MPI_COMM_WORLD, me == 1 ? other : path,
                        DARRAY_MODE_RDWR, MPI_INFO_NULL, &f);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(NULL), "path");
  char p0[700], p1[700];
  snprintf(p0, sizeof p0, "path '%s'", path);
  snprintf(p1, sizeof p1, "path '%s'", other);
  names_values(darray_file_errmsg(NULL), p0, 1, p1);
  TU_CHECK(f == NULL);
  rc = darray_file_open(MPI_COMM_WORLD, path,
                        me == 1 ? DARRAY_MODE_RDONLY : DARRAY_MODE_RDWR,
                        MPI_INFO_NULL, &f);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(NULL), "mode");
  TU_CHECK(f == NULL);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ind_rd_buffer_size", me == 1 ? "1024" : "2048");
  rc = darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f);
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(NULL), "hint");
  names_values(darray_file_errmsg(NULL), "ind_rd_buffer_size=2048", 1,
               "ind_rd_buffer_size=1024");
  TU_CHECK(f == NULL);
  MPI_Info_free(&info);
  if (me == 1)
    setenv("DARRAYIO_HINTS", "ind_wr_buffer_size=4096", 1);
  rc = darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, MPI_INFO_NULL,
                        &f);
  unsetenv("DARRAYIO_HINTS");
  EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(NULL), "hint");
  names_values(darray_file_errmsg(NULL), "ind_wr_buffer_size=524288", 1,
               "ind_wr_buffer_size=4096");
  TU_CHECK(f == NULL);
  tu_remove(path);
  free(pat);
  darray_free(&a);
}

/* Ranks pass different (each consistently committed) arrays, or an
 * uncommitted one, to one darray_write: all get the same code and nothing
 * is written. */
static void test_write_disagreement(MPI_Info info) {
  if (P < 2) {
    tu_skip_part("write disagreement", "one process cannot disagree");
    return;
  }
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_errors_desc") == NULL)
    return;
  const int64_t fbytes = 256;
  unsigned char *pat = make_pattern_file(path, fbytes, 4);
  darray_t a = block_1d(40), b = block_1d(41), u = NULL;
  int64_t n = 40;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &u));
  darray_file_t f = NULL;
  if (a != NULL && b != NULL && u != NULL &&
      TU_OK(
          darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f))) {
    int32_t *buf = calloc(64, sizeof *buf);
    int rc = darray_write(f, me == 1 ? b : a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), "descriptions");
    TU_CONTAINS(darray_file_errmsg(f), "rank 0 has gsizes 40, type INT32 ");
    TU_CONTAINS(darray_file_errmsg(f), "rank 1 has gsizes 41, type INT32 ");
    /* a write matched with a read, a whole array with a section: refused
     * everywhere, each naming both calls */
    rc = me == 0 ? darray_write(f, a, buf) : darray_read(f, a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), NULL);
    names_values(darray_file_errmsg(f), "darray_write", 1, "darray_read");
    int64_t start = 0, count = me == 1 ? 1 : 0;
    rc = me == 1 ? darray_write_section(f, a, &start, &count, DARRAY_ORDER_C,
                                        buf)
                 : darray_write(f, a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), NULL);
    names_values(darray_file_errmsg(f), "darray_write", 1,
                 "darray_write_section");
    rc = darray_read(f, me == 0 ? b : a, buf);
    EXPECT(rc, DARRAY_EINCONSISTENT, darray_file_errmsg(f), NULL);
    rc = darray_write(f, me == P - 1 ? u : a, buf);
    EXPECT(rc, DARRAY_ESTATE, darray_file_errmsg(f),
           me == P - 1 ? "commit" : NULL);
    check_file_is(path, pat, fbytes, "file after disagreeing writes");
    TU_OK(darray_file_close(&f));
    free(buf);
  }
  darray_free(&a);
  darray_free(&b);
  darray_free(&u);
  free(pat);
  tu_remove(path);
}

/* ---- (d) the error table ---------------------------------------------- */

typedef struct code_entry {
  int code;
  const char *name, *text;
} code_entry_t;

#define ENTRY(name, value, text) {value, #name, text},
static const code_entry_t table[] = {DARRAY_ERROR_TABLE(ENTRY)};
#undef ENTRY

static void test_error_table(void) {
  int n = (int)(sizeof table / sizeof table[0]);
  TU_CHECK(n >= 28);
  for (int i = 0; i < n; i++) {
    const char *name = darray_err_name(table[i].code);
    const char *text = darray_strerror(table[i].code);
    TU_EQ_STR(name, table[i].name);
    TU_EQ_STR(text, table[i].text);
    TU_CHECK(text != NULL && text[0] != '\0');
    TU_CHECK(strncmp(name, "DARRAY_", 7) == 0);
    TU_CHECK(strcmp(text, "unknown error code") != 0);
    /* bands: 0, -1..-99 usage, -100..-199 disagreement, -200..-299 I/O */
    TU_CHECK(table[i].code <= 0 && table[i].code > -300);
    for (int j = 0; j < i; j++) {
      TU_CHECK(table[i].code != table[j].code);
      TU_CHECK(strcmp(name, darray_err_name(table[j].code)) != 0);
      TU_CHECK(strcmp(text, darray_strerror(table[j].code)) != 0);
    }
  }
  TU_EQ_INT(DARRAY_SUCCESS, 0);
  TU_EQ_STR(darray_err_name(DARRAY_EINCONSISTENT), "DARRAY_EINCONSISTENT");
  TU_EQ_STR(darray_err_name(DARRAY_EEOF), "DARRAY_EEOF");
  static const int unknown[] = {
      1,    77,   -98,     -99,        -102,           -199,
      -23,  -210, -300, -100000, 2147483647, -2147483647 - 1};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    TU_EQ_STR(darray_strerror(unknown[i]), "unknown error code");
    TU_EQ_STR(darray_err_name(unknown[i]), "DARRAY_EUNKNOWN");
  }
}

/* ---- (e) local bad inputs --------------------------------------------- */

static void test_create_errors(void) {
  darray_t a = (darray_t)&a;
  int64_t g[DARRAY_MAX_DIMS + 1];
  for (int d = 0; d <= DARRAY_MAX_DIMS; d++)
    g[d] = 2;
  EXPECT(darray_create(MPI_COMM_WORLD, 0, g, DARRAY_INT32, &a), DARRAY_ENDIMS,
         darray_errmsg(NULL), "ndims");
  TU_CHECK(a == NULL);
  EXPECT(darray_create(MPI_COMM_WORLD, -1, g, DARRAY_INT32, &a), DARRAY_ENDIMS,
         darray_errmsg(NULL), "ndims");
  EXPECT(
      darray_create(MPI_COMM_WORLD, DARRAY_MAX_DIMS + 1, g, DARRAY_INT32, &a),
      DARRAY_ENDIMS, darray_errmsg(NULL), "ndims");
  int64_t g0[2] = {4, 0}, gneg[2] = {-3, 4};
  EXPECT(darray_create(MPI_COMM_WORLD, 2, g0, DARRAY_INT32, &a), DARRAY_ESIZE,
         darray_errmsg(NULL), "gsizes");
  EXPECT(darray_create(MPI_COMM_WORLD, 2, gneg, DARRAY_INT32, &a), DARRAY_ESIZE,
         darray_errmsg(NULL), "gsizes");
  int64_t gbig[3] = {INT64_C(1) << 32, INT64_C(1) << 31, 2};
  EXPECT(darray_create(MPI_COMM_WORLD, 3, gbig, DARRAY_INT32, &a), DARRAY_ESIZE,
         darray_errmsg(NULL), "gsizes");
  EXPECT(darray_create(MPI_COMM_WORLD, 2, g, (darray_type_t)0, &a),
         DARRAY_ETYPE, darray_errmsg(NULL), "type");
  EXPECT(darray_create(MPI_COMM_WORLD, 2, g, (darray_type_t)99, &a),
         DARRAY_ETYPE, darray_errmsg(NULL), "type");
  EXPECT(darray_create(MPI_COMM_WORLD, 2, NULL, DARRAY_INT32, &a), DARRAY_ENULL,
         darray_errmsg(NULL), "gsizes");
  EXPECT(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, NULL), DARRAY_ENULL,
         darray_errmsg(NULL), NULL);
  EXPECT(darray_create(MPI_COMM_NULL, 2, g, DARRAY_INT32, &a), DARRAY_ECOMM,
         darray_errmsg(NULL), "comm");
  TU_CHECK(a == NULL);
  /* an intercommunicator */
  if (P >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7, &inter);
    EXPECT(darray_create(inter, 2, g, DARRAY_INT32, &a), DARRAY_ECOMM,
           darray_errmsg(NULL), "comm");
    TU_CHECK(a == NULL);
    darray_file_t f = (darray_file_t)&f;
    EXPECT(darray_file_open(inter, "x", DARRAY_MODE_RDONLY, MPI_INFO_NULL, &f),
           DARRAY_ECOMM, darray_file_errmsg(NULL), "comm");
    TU_CHECK(f == NULL);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
  /* the element count of a large array that fits in 64 bits is fine */
  int64_t gok[2] = {INT64_C(1) << 31, INT64_C(1) << 31};
  TU_OK(darray_create(MPI_COMM_WORLD, 2, gok, DARRAY_CHAR, &a));
  TU_OK(darray_free(&a));
  TU_CHECK(a == NULL);
  /* free(NULL) and free(&NULL) do nothing */
  TU_OK(darray_free(NULL));
  TU_OK(darray_free(&a));
  /* a NULL handle */
  int64_t v;
  EXPECT(darray_local_count(NULL, &v), DARRAY_EBADHANDLE, darray_errmsg(NULL),
         NULL);
  EXPECT(darray_commit(NULL), DARRAY_EBADHANDLE, darray_errmsg(NULL), NULL);
  EXPECT(darray_set_displacement(NULL, 0), DARRAY_EBADHANDLE,
         darray_errmsg(NULL), NULL);
}

static void test_setter_errors(void) {
  int64_t g[3] = {6, 5, 4};
  darray_t a = NULL;
  if (!TU_OK(darray_create(MPI_COMM_WORLD, 3, g, DARRAY_INT32, &a)))
    return;
  int badperm[3] = {0, 0, 2}, outperm[3] = {0, 3, 1}, negperm[3] = {2, -1, 0};
  EXPECT(darray_set_storage_order(a, DARRAY_ORDER_PERM, badperm), DARRAY_EORDER,
         darray_errmsg(a), "perm");
  EXPECT(darray_set_storage_order(a, DARRAY_ORDER_PERM, outperm), DARRAY_EORDER,
         darray_errmsg(a), "perm");
  EXPECT(darray_set_storage_order(a, DARRAY_ORDER_PERM, negperm), DARRAY_EORDER,
         darray_errmsg(a), "perm");
  EXPECT(darray_set_storage_order(a, DARRAY_ORDER_PERM, NULL), DARRAY_ENULL,
         darray_errmsg(a), "perm");
  EXPECT(darray_set_storage_order(a, (darray_order_t)9, NULL), DARRAY_EORDER,
         darray_errmsg(a), "order");
  int64_t gh[3] = {0, -1, 0}, pad[3] = {0, 0, -2}, gh0[3] = {0, 0, 0};
  EXPECT(darray_set_memory_layout(a, DARRAY_ORDER_C, gh, NULL), DARRAY_EGHOST,
         darray_errmsg(a), "ghost");
  EXPECT(darray_set_memory_layout(a, DARRAY_ORDER_C, gh0, pad), DARRAY_EGHOST,
         darray_errmsg(a), "padded");
  EXPECT(darray_set_memory_layout(a, DARRAY_ORDER_PERM, NULL, NULL),
         DARRAY_EORDER, darray_errmsg(a), "order");
  EXPECT(darray_set_displacement(a, -1), DARRAY_EDISP, darray_errmsg(a),
         "disp");
  darray_dist_t dbad[3] = {DARRAY_DIST_BLOCK, (darray_dist_t)7,
                           DARRAY_DIST_NONE};
  EXPECT(darray_set_distribution(a, dbad, NULL), DARRAY_EDIST, darray_errmsg(a),
         "dist");
  darray_dist_t dc[3] = {DARRAY_DIST_CYCLIC, DARRAY_DIST_NONE,
                         DARRAY_DIST_NONE};
  int64_t k0[3] = {0, 1, 1}, kneg[3] = {-5, 1, 1};
  EXPECT(darray_set_distribution(a, dc, k0), DARRAY_EDIST, darray_errmsg(a),
         "dargs");
  EXPECT(darray_set_distribution(a, dc, kneg), DARRAY_EDIST, darray_errmsg(a),
         "dargs");
  darray_dist_t mp2[3] = {DARRAY_DIST_MULTIPARTITION,
                          DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_NONE};
  EXPECT(darray_set_distribution(a, mp2, NULL), DARRAY_EDIST, darray_errmsg(a),
         "MULTIPARTITION");
  EXPECT(darray_set_distribution(a, NULL, NULL), DARRAY_ENULL, darray_errmsg(a),
         "dist");
  int psneg[3] = {1, -1, 0};
  EXPECT(darray_set_grid(a, psneg), DARRAY_EGRID, darray_errmsg(a), "psizes");
  EXPECT(darray_set_grid(a, NULL), DARRAY_ENULL, darray_errmsg(a), "psizes");
  EXPECT(darray_set_elem_size(a, 4), DARRAY_ETYPE, darray_errmsg(a), NULL);
  /* the failed setters changed nothing: the default description commits */
  TU_OK(darray_commit(a));
  TU_EQ_STR(darray_errmsg(a), "");
  EXPECT(darray_set_distribution(a, dc, NULL), DARRAY_ESTATE, darray_errmsg(a),
         NULL);
  EXPECT(darray_set_memory_layout(a, DARRAY_ORDER_C, NULL, NULL), DARRAY_ESTATE,
         darray_errmsg(a), NULL);
  TU_OK(darray_set_displacement(a, 12)); /* allowed after commit */
  darray_free(&a);

  /* opaque elements */
  if (TU_OK(darray_create(MPI_COMM_WORLD, 1, g, DARRAY_OPAQUE, &a))) {
    int64_t es = 0;
    EXPECT(darray_set_elem_size(a, 0), DARRAY_ETYPE, darray_errmsg(a), "size");
    EXPECT(darray_elem_size(a, &es), DARRAY_ETYPE, darray_errmsg(a), NULL);
    EXPECT(darray_commit(a), DARRAY_ETYPE, darray_errmsg(a), NULL);
    TU_OK(darray_set_elem_size(a, 24));
    TU_OK(darray_commit(a));
    TU_OK(darray_elem_size(a, &es));
    TU_EQ_I64(es, 24);
    darray_free(&a);
  }
}

/* Create, describe with one setter call, commit: return commit's code. */
static int commit_with(int ndims, const int64_t *g, const darray_dist_t *dist,
                       const int64_t *dargs, const int *psizes,
                       const int64_t *ghost, const int64_t *padded, char *msg,
                       size_t msglen) {
  darray_t a = NULL;
  int rc = darray_create(MPI_COMM_WORLD, ndims, g, DARRAY_INT32, &a);
  if (!TU_OK(rc))
    return rc;
  if (dist)
    TU_OK(darray_set_distribution(a, dist, dargs));
  if (psizes)
    TU_OK(darray_set_grid(a, psizes));
  if (ghost || padded)
    TU_OK(darray_set_memory_layout(a, DARRAY_ORDER_C, ghost, padded));
  rc = darray_commit(a);
  snprintf(msg, msglen, "%s", darray_errmsg(a));
  darray_free(&a);
  return rc;
}

static void test_commit_errors(void) {
  char msg[600];
  int rc;
  /* BLOCK(k) with k*p < n */
  int64_t g1[1] = {100}, k4[1] = {4};
  darray_dist_t b1[1] = {DARRAY_DIST_BLOCK};
  rc = commit_with(1, g1, b1, k4, NULL, NULL, NULL, msg, sizeof msg);
  EXPECT(rc, DARRAY_EDIST, msg, "dargs");
  /* BLOCK(k) with k*p == n is fine */
  int64_t gk[1] = {4 * (int64_t)P};
  TU_OK(commit_with(1, gk, b1, k4, NULL, NULL, NULL, msg, sizeof msg));
  /* the grid's product is not P */
  int64_t g2[2] = {8, 8};
  int ps_big[2] = {P + 1, 1}, ps_none[2] = {2, 1};
  rc = commit_with(2, g2, NULL, NULL, ps_big, NULL, NULL, msg, sizeof msg);
  EXPECT(rc, DARRAY_EGRID, msg, "psizes");
  if (P > 1) {
    int ps_small[2] = {1, 1};
    rc = commit_with(2, g2, NULL, NULL, ps_small, NULL, NULL, msg, sizeof msg);
    EXPECT(rc, DARRAY_EGRID, msg, "psizes");
  }
  /* a NONE dimension with two processes */
  darray_dist_t nb[2] = {DARRAY_DIST_NONE, DARRAY_DIST_BLOCK};
  rc = commit_with(2, g2, nb, NULL, ps_none, NULL, NULL, msg, sizeof msg);
  EXPECT(rc, DARRAY_EGRID, msg, "psizes");
  /* padded smaller than interior + 2 ghost (1-D over P: at least 2 local) */
  int64_t g3[1] = {2 * (int64_t)P}, gh[1] = {1}, pad[1] = {3};
  rc = commit_with(1, g3, NULL, NULL, NULL, gh, pad, msg, sizeof msg);
  EXPECT(rc, DARRAY_EGHOST, msg, "padded");
  /* a description wrong on some ranks only (their local extent does not
   * fit the padding; the last rank's does): the same code everywhere */
  if (P > 1) {
    int64_t g6[1] = {2 * (int64_t)P - 1}, pad1[1] = {1};
    rc = commit_with(1, g6, NULL, NULL, NULL, NULL, pad1, msg, sizeof msg);
    EXPECT(rc, DARRAY_EGHOST, msg, me == P - 1 ? "rank 0" : "padded");
  }
  /* MULTIPARTITION: P not a square, or a dimension smaller than q */
  darray_dist_t mp[3] = {DARRAY_DIST_MULTIPARTITION, DARRAY_DIST_MULTIPARTITION,
                         DARRAY_DIST_MULTIPARTITION};
  int64_t gm[3] = {6, 6, 6}, gsmall[3] = {6, 1, 6};
  int q = 0;
  while ((q + 1) * (q + 1) <= P)
    q++;
  rc = commit_with(3, gm, mp, NULL, NULL, NULL, NULL, msg, sizeof msg);
  if (q * q != P)
    EXPECT(rc, DARRAY_EDIST, msg, "MULTIPARTITION");
  else
    TU_OK(rc);
  if (q * q == P && q > 1) {
    rc = commit_with(3, gsmall, mp, NULL, NULL, NULL, NULL, msg, sizeof msg);
    EXPECT(rc, DARRAY_EDIST, msg, "gsizes");
  }
  /* MULTIPARTITION with an explicit grid that is not {q,q,q} */
  int ps_mp[3] = {q, q, q + 1};
  rc = commit_with(3, gm, mp, NULL, ps_mp, NULL, NULL, msg, sizeof msg);
  EXPECT(rc, q * q == P ? DARRAY_EGRID : DARRAY_EDIST, msg, NULL);
  /* the array's bytes overflow 64 bits (its element count does not) */
  int64_t gbig[2] = {INT64_C(1) << 61, 2};
  darray_t a = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 2, gbig, DARRAY_INT64, &a)))
    EXPECT(darray_commit(a), DARRAY_ESIZE, darray_errmsg(a), NULL);
  darray_free(&a);
  /* the local buffer (padding) overflows */
  int64_t g5[1] = {100}, hugepad[1] = {INT64_C(1) << 62};
  rc = commit_with(1, g5, NULL, NULL, NULL, NULL, hugepad, msg, sizeof msg);
  EXPECT(rc, DARRAY_ESIZE, msg, NULL);
}

static void test_io_errors(MPI_Info info) {
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_errors_io") == NULL)
    return;
  const int64_t n = 30;
  darray_t a = block_1d(n);
  if (a == NULL)
    return;
  int64_t first, count;
  int32_t *buf = block_1d_buf(n, &first, &count);
  darray_file_t f = NULL;
  /* create the file with the array */
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                             DARRAY_MODE_RDWR | DARRAY_MODE_CREATE |
                                 DARRAY_MODE_TRUNC,
                             info, &f))) {
    TU_OK(darray_write(f, a, buf));
    TU_OK(darray_file_close(&f));
  }
  /* write on a read-only file */
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    EXPECT(darray_write(f, a, buf), DARRAY_EMODE, darray_file_errmsg(f),
           "read-only");
    /* reading past the end: the array displaced beyond the file's end */
    TU_OK(darray_set_displacement(a, 4 * n - 8));
    EXPECT(darray_read(f, a, buf), DARRAY_EEOF, darray_file_errmsg(f), NULL);
    TU_OK(darray_set_displacement(a, 0));
    TU_OK(darray_read(f, a, buf));
    TU_OK(darray_file_close(&f));
  }
  /* a short file */
  unsigned char *pat = make_pattern_file(path, 10, 3);
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    EXPECT(darray_read(f, a, buf), DARRAY_EEOF, darray_file_errmsg(f), NULL);
    TU_OK(darray_file_close(&f));
  }
  check_file_is(path, pat, 10, "short file after reads");
  /* an uncommitted array */
  darray_t u = NULL;
  if (TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT32, &u)) &&
      TU_OK(
          darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info, &f))) {
    EXPECT(darray_write(f, u, buf), DARRAY_ESTATE, darray_file_errmsg(f),
           "commit");
    /* an array over another communicator */
    if (P > 1) {
      darray_t s = NULL;
      if (TU_OK(darray_create(MPI_COMM_SELF, 1, &n, DARRAY_INT32, &s)) &&
          TU_OK(darray_commit(s))) {
        int32_t *sbuf = calloc((size_t)n, sizeof *sbuf);
        EXPECT(darray_write(f, s, sbuf), DARRAY_ECOMM, darray_file_errmsg(f),
               "communicator");
        free(sbuf);
      }
      darray_free(&s);
    }
    /* get_hint */
    char val[64];
    TU_OK(darray_file_get_hint(f, "ind_rd_buffer_size", val, sizeof val));
    TU_EQ_STR(val, "4194304");
    TU_OK(darray_file_get_hint(f, "ind_wr_buffer_size", val, sizeof val));
    TU_EQ_STR(val, "524288");
    EXPECT(darray_file_get_hint(f, "no_such_hint", val, sizeof val),
           DARRAY_EHINT, darray_file_errmsg(f), "no_such_hint");
    EXPECT(darray_file_get_hint(f, "ind_rd_buffer_size", val, 3), DARRAY_EINVAL,
           darray_file_errmsg(f), "len");
    EXPECT(darray_file_get_hint(f, NULL, val, 3), DARRAY_ENULL,
           darray_file_errmsg(f), "key");
    darray_stats_t st;
    EXPECT(darray_file_get_stats(f, NULL), DARRAY_ENULL, darray_file_errmsg(f),
           "stats");
    TU_OK(darray_file_get_stats(f, &st));
    TU_OK(darray_file_close(&f));
  }
  darray_free(&u);
  /* NULL handles are refused without hanging */
  EXPECT(darray_write(NULL, a, buf), DARRAY_EBADHANDLE,
         darray_file_errmsg(NULL), NULL);
  free(pat);
  free(buf);
  darray_free(&a);
  tu_remove(path);
}

static void test_hint_errors(void) {
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_errors_hints") == NULL)
    return;
  darray_file_t f = (darray_file_t)&f;
  const int mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE;
  static const struct {
    const char *env, *word;
  } bad[] = {
      {"no_such_key=1", "no_such_key"},
      {"ind_rd_buffer_size=1k;bogus_hint=2", "bogus_hint"},
      {"cb_buffer_size=abc", "cb_buffer_size"},
      {"darray_backend=ext4", "darray_backend"},
      {"ind_wr_buffer_size", "ind_wr_buffer_size"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("DARRAYIO_HINTS", bad[i].env, 1);
    int rc = darray_file_open(MPI_COMM_WORLD, path, mode, MPI_INFO_NULL, &f);
    unsetenv("DARRAYIO_HINTS");
    EXPECT(rc, DARRAY_EHINT, darray_file_errmsg(NULL), bad[i].word);
    TU_CHECK(f == NULL);
    if (rc == DARRAY_SUCCESS)
      darray_file_close(&f);
  }
  /* MPI_Info: unknown keys are ignored, malformed known values are not */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "some_romio_hint", "whatever");
  MPI_Info_set(info, "ind_rd_buffer_size", "1000");
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, mode, info, &f))) {
    char val[64];
    TU_OK(darray_file_get_hint(f, "ind_rd_buffer_size", val, sizeof val));
    TU_EQ_STR(val, "1000");
    TU_OK(darray_file_close(&f));
  }
  /* DARRAYIO_HINTS wins over info */
  setenv("DARRAYIO_HINTS", "ind_rd_buffer_size=2k", 1);
  int rc = darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  unsetenv("DARRAYIO_HINTS");
  if (TU_OK(rc)) {
    char val[64];
    TU_OK(darray_file_get_hint(f, "ind_rd_buffer_size", val, sizeof val));
    TU_EQ_STR(val, "2048");
    TU_OK(darray_file_close(&f));
  }
  MPI_Info_set(info, "cb_buffer_size", "lots");
  rc = darray_file_open(MPI_COMM_WORLD, path, mode, info, &f);
  EXPECT(rc, DARRAY_EHINT, darray_file_errmsg(NULL), "cb_buffer_size");
  TU_CHECK(f == NULL);
  MPI_Info_free(&info);
  tu_remove(path);
}

/* ---- (f) the cause reaches the user ----------------------------------- */

/* Back ends and strategies of part (f). */
static const char *const cause_hints[] = {
    "darray_backend=posix;darray_strategy=direct",
    "darray_backend=posix;darray_strategy=twophase",
    "darray_backend=mpiio;darray_strategy=direct",
    "darray_backend=mpiio;darray_strategy=twophase",
};
#define N_CAUSE_HINTS ((int)(sizeof cause_hints / sizeof cause_hints[0]))

/* Every rank got code, no message was cut, and the messages keep the error
 * contract (tu_expect_failure_messages): a rank that failed names cause
 * and, when given, the call that failed; the others name that rank and
 * its message. */
static void expect_cause(int rc, int code, const char *msg, const char *cause,
                         const char *call, const char *what) {
  if (!TU_EQ_CODE(rc, code))
    fprintf(stderr, "  %s: %s\n", what, msg);
  TU_CHECK(strlen(msg) < 511); /* not cut at DARRAY_ERRMSG_LEN */
  tu_expect_failure_messages(msg, cause, call, what);
}

static int is_mpiio(const char *hints) {
  return strstr(hints, "mpiio") != NULL;
}

/* One case of (f) needs ROMIO behind the mpiio back end (mpio.h defines
 * ROMIO_VERSION in MPICH and its derivatives); elsewhere it is skipped,
 * and counted as skipped: Open MPI's OMPIO's sharedfp "lockedfile"
 * component overflows a fixed buffer in MPI_File_open (an abort under
 * _FORTIFY_SOURCE) for paths of some 250 characters or more. */
static bool needs_romio(const char *hints, const char *what) {
#ifdef ROMIO_VERSION
  (void)hints;
  (void)what;
  return false;
#else
  if (!is_mpiio(hints))
    return false;
  tu_skip_part(what, "the MPI-IO here is not ROMIO (see needs_romio)");
  return true;
#endif
}

/* Writes to /dev/full fail with ENOSPC. */
static void test_cause_full(const char *hints) {
  struct stat st;
  if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) {
    if (me == 0)
      printf("  (f) no /dev/full here: full-device case not run\n");
    return;
  }
  const int64_t n = 40;
  darray_t a = block_1d(n);
  int64_t first, count;
  int32_t *buf = block_1d_buf(n, &first, &count);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  if (a != NULL && TU_OK(darray_file_open(MPI_COMM_WORLD, "/dev/full",
                                          DARRAY_MODE_RDWR, info, &f))) {
    int rc = darray_write(f, a, buf);
    expect_cause(rc, DARRAY_ENOSPC, darray_file_errmsg(f), strerror(ENOSPC),
                 is_mpiio(hints) ? "MPI_File_write_at" : NULL, hints);
    TU_OK(darray_file_close(&f));
  }
  MPI_Info_free(&info);
  free(buf);
  darray_free(&a);
}

/* A FIFO is refused at open; a read-only file cannot be synced
 * through MPI-IO (MPI's rule; posix syncs it). */
static void test_cause_fifo_sync(const char *hints) {
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_errors_fifo") == NULL)
    return;
  int ok = 1;
  if (me == 0)
    ok = mkfifo(path, 0600) == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const int64_t n = 40;
  darray_t a = block_1d(n);
  int64_t first, count;
  int32_t *buf = block_1d_buf(n, &first, &count);
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  if (TU_CHECK(ok) && a != NULL) { /* refused at open (test_special) */
    int rc = darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDWR, info,
                              &f);
    expect_cause(rc, DARRAY_ENOTSUP, darray_errmsg(NULL), "FIFO", NULL,
                 hints);
    darray_file_close(&f);
  }
  tu_remove(path);
  free(make_pattern_file(path, 64, 5)); /* a plain file, opened read-only */
  if (TU_OK(darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                             &f))) {
    int rc = darray_file_sync(f);
    if (is_mpiio(hints))
      expect_cause(rc, DARRAY_EACCESS, darray_file_errmsg(f),
                   "MPI_File_sync: ", NULL, hints);
    else
      TU_OK(rc);
    TU_OK(darray_file_close(&f));
  }
  tu_remove(path);
  MPI_Info_free(&info);
  free(buf);
  darray_free(&a);
}

/* A path of exactly len characters, ending in tail, under the test's
 * directory, through directories that do not exist. */
static void long_path(char *p, size_t len, const char *tail) {
  size_t k = (size_t)snprintf(p, len + 1, "%s/darray_errors_long",
                              tu_tmpdir());
  size_t stop = len - strlen(tail) - 1; /* where "/tail" starts */
  for (; k < stop; k++)
    p[k] = k % 61 == 0 && p[k - 1] != '/' ? '/' : 'd';
  snprintf(p + k, len + 1 - k, "/%s", tail);
}

/* A 493-character path that does not exist: the message keeps the cause
 * and both ends of the path. */
static void test_cause_long_path(const char *hints) {
  char path[494], cause[MPI_MAX_ERROR_STRING + 1];
  if (needs_romio(hints, "(f) long path"))
    return;
  long_path(path, 493, "missing.dat");
  TU_EQ_I64((int64_t)strlen(path), 493);
  int len = 0;
  if (is_mpiio(hints)) /* the text of the class begins the error's */
    MPI_Error_string(MPI_ERR_NO_SUCH_FILE, cause, &len);
  else
    snprintf(cause, sizeof cause, "%s", strerror(ENOENT));
  MPI_Info info = tu_info(hints);
  darray_file_t f = NULL;
  int rc = darray_file_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY, info,
                            &f);
  const char *msg = darray_file_errmsg(NULL);
  expect_cause(rc, DARRAY_ENOENT, msg, cause, NULL, hints);
  if (strstr(msg, cause) != NULL) {
    TU_CONTAINS(msg, "/missing.dat");
    TU_CONTAINS(msg, ".../");
    /* what stands before "..." is a start of the path, cut after a '/' */
    const char *q = strstr(msg, "('"), *dots = strstr(msg, "...");
    if (TU_CHECK(q != NULL && dots != NULL && dots > q + 2)) {
      size_t head = (size_t)(dots - (q + 2));
      TU_CHECK(strncmp(q + 2, path, head) == 0);
      TU_CHECK(q[2 + head - 1] == '/');
    }
  }
  TU_CHECK(f == NULL);
  darray_file_close(&f);
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  test_error_table();
  test_create_errors();
  test_setter_errors();
  test_commit_errors();
  test_open_errors();
  for (int i = 0; i < N_IO_HINTS; i++) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, io_hints[i][0], io_hints[i][1]);
    MPI_Info_set(info, "cb_buffer_size", "16"); /* many two-phase cycles */
    long before = tu_failures();
    test_null_buffer(info);
    test_write_disagreement(info);
    test_io_errors(info);
    if (tu_failures() != before)
      fprintf(stderr, "  ^ with hint %s=%s\n", io_hints[i][0], io_hints[i][1]);
    MPI_Info_free(&info);
  }
  test_inconsistent();
  test_hint_errors();
  for (int i = 0; i < N_CAUSE_HINTS; i++) {
    long before = tu_failures();
    test_cause_full(cause_hints[i]);
    test_cause_fifo_sync(cause_hints[i]);
    test_cause_long_path(cause_hints[i]);
    if (tu_failures() != before)
      fprintf(stderr, "  ^ (f) with hints %s\n", cause_hints[i]);
  }
  return tu_finish();
}
