/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_section_args.c - a bad start or count on one process only (issue
 * 39, item 1): the section calls refuse it and every process learns it in
 * the call's agreement, never a hang.
 *
 * The array: 6 x 8 int32, BLOCK rows, in a file first written with the
 * reference bytes (element e holds tu_value(SEED, e)). Each process's good
 * box is one row of its own, r % 6. The last process passes, in turn, a
 * start of -1, a count of -1, a count past the array's end, a start of
 * INT64_MAX, INT64_MIN and INT64_MAX - 3 (whose start + count passes
 * 2^63), a count of INT64_MAX, and a NULL start, to each section call:
 * darray_write_section, darray_read_section, and the requests
 * darray_iwrite_section, darray_iread_section and darray_bwrite_section
 * (completed by darray_wait), under darray_async = thread, files and none
 * (the thread level is MPI_THREAD_MULTIPLE). Every process must return
 * the same code (DARRAY_EINDEX; DARRAY_ENULL for NULL), the last one a
 * message naming the argument ("start[0]", "count[1]", ...), the others
 * "failed on rank R: " and that message; the file's bytes stay the
 * reference's (rank 0 reads them with stdio); and the next call on the
 * file, every process's good box written with new values and read back,
 * works. A hang fails the test (tu_hang_limit), well before the
 * launcher's limit.
 * Run: mpiexec -n 2..3 ./test_section_args
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R 6
#define C 8
#define SEED 0x39a
#define HANG_S 60

static int P, me;

typedef struct bad {
  const char *what;
  int64_t start[2], count[2];
  bool null_start;
  int code;
  const char *names; /* in the failing process's message */
} bad_t;

static const bad_t cases[] = {
    {"start -1", {-1, 0}, {1, C}, false, DARRAY_EINDEX, "start[0] = -1"},
    {"count -1", {5, 0}, {1, -1}, false, DARRAY_EINDEX, "count[1] = -1"},
    {"count past the end", {5, 0}, {2, C}, false, DARRAY_EINDEX,
     "count[0] = 2"},
    {"start INT64_MAX", {INT64_MAX, 0}, {1, C}, false, DARRAY_EINDEX,
     "start[0] = 9223372036854775807"},
    {"start INT64_MIN", {0, INT64_MIN}, {1, 1}, false, DARRAY_EINDEX,
     "start[1] = -9223372036854775808"},
    {"start + count past 2^63", {0, INT64_MAX - 3}, {1, 8}, false,
     DARRAY_EINDEX, "start[1] = 9223372036854775804"},
    {"count INT64_MAX", {1, 0}, {INT64_MAX, C}, false, DARRAY_EINDEX,
     "count[0] = 9223372036854775807"},
    {"start NULL", {0, 0}, {1, C}, true, DARRAY_ENULL, "start is NULL"},
};

enum { W_SECTION, R_SECTION, IW_SECTION, IR_SECTION, BW_SECTION, NCALLS };
static const char *const call_names[NCALLS] = {
    "darray_write_section", "darray_read_section", "darray_iwrite_section",
    "darray_iread_section", "darray_bwrite_section"};

static darray_t make(void) {
  int64_t g[2] = {R, C};
  darray_dist_t d[2] = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE};
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
  TU_OK(darray_set_distribution(a, d, NULL));
  TU_OK(darray_commit(a));
  return a;
}

/* One section call (a request waited for at once). */
static int call(darray_file_t f, darray_t a, int which, const int64_t *s,
                const int64_t *c, int32_t *buf) {
  darray_request_t req = DARRAY_REQUEST_NULL;
  int rc;
  switch (which) {
  case W_SECTION:
    return darray_write_section(f, a, s, c, DARRAY_ORDER_C, buf);
  case R_SECTION:
    return darray_read_section(f, a, s, c, DARRAY_ORDER_C, buf);
  case IW_SECTION:
    rc = darray_iwrite_section(f, a, s, c, DARRAY_ORDER_C, buf, &req);
    break;
  case IR_SECTION:
    rc = darray_iread_section(f, a, s, c, DARRAY_ORDER_C, buf, &req);
    break;
  default:
    rc = darray_bwrite_section(f, a, s, c, DARRAY_ORDER_C, buf, &req);
    break;
  }
  /* a post refuses nothing of a section's: its checks are agreed on when
   * the request begins, and the wait returns the result */
  TU_OK(rc);
  return rc == DARRAY_SUCCESS ? darray_wait(f, &req) : rc;
}

/* Rank 0: the file is the reference, but for rows written since (the
 * values row * 1000 + column + salt of rows row_salt[row] >= 0). */
static void check_file(const char *path, const int *row_salt,
                       const char *what) {
  if (me != 0)
    return;
  int64_t size = 0;
  unsigned char *got = tu_read_file(path, &size);
  if (!TU_EQ_I64(size, (int64_t)R * C * 4)) {
    TU_FAIL("  (%s: file size)", what);
    free(got);
    return;
  }
  int64_t bad = 0;
  for (int e = 0; e < R * C; e++) {
    int32_t want, v;
    if (row_salt[e / C] >= 0)
      want = (e / C) * 1000 + e % C + row_salt[e / C];
    else
      tu_fill_bytes(&want, 4, SEED, (int64_t)e * 4);
    memcpy(&v, got + (int64_t)e * 4, 4);
    bad += v != want;
  }
  if (!TU_EQ_I64(bad, 0))
    TU_FAIL("  (%s: elements that differ)", what);
  free(got);
}

/* The next call on the file works: every process's own row written with
 * new values (salt) and read back. */
static void next_call_works(darray_file_t f, darray_t a, int salt,
                            int *row_salt, const char *what) {
  int64_t s[2] = {me % R, 0}, c[2] = {1, C};
  int32_t row[C], back[C];
  for (int j = 0; j < C; j++)
    row[j] = (int32_t)((me % R) * 1000 + j + salt);
  if (!TU_OK(darray_write_section(f, a, s, c, DARRAY_ORDER_C, row)))
    TU_FAIL("  (%s: the next write)", what);
  memset(back, 0xEE, sizeof back);
  if (!TU_OK(darray_read_section(f, a, s, c, DARRAY_ORDER_C, back)) ||
      !TU_EQ_INT(memcmp(back, row, sizeof row), 0))
    TU_FAIL("  (%s: the next read)", what);
  for (int r = 0; r < P; r++)
    row_salt[r % R] = salt;
}

static void one_case(darray_file_t f, darray_t a, const char *path,
                     const bad_t *k, int which, int *row_salt,
                     const char *mode) {
  char what[200];
  snprintf(what, sizeof what, "darray_async=%s, %s, %s on rank %d", mode,
           call_names[which], k->what, P - 1);
  int64_t good_s[2] = {me % R, 0}, good_c[2] = {1, C};
  int32_t buf[C];
  for (int j = 0; j < C; j++)
    buf[j] = -1 - j; /* never written */
  bool bad = me == P - 1;
  const int64_t *s = bad ? (k->null_start ? NULL : k->start) : good_s;
  const int64_t *c = bad ? k->count : good_c;
  int rc = call(f, a, which, s, c, buf);
  if (!TU_EQ_CODE(rc, k->code))
    TU_FAIL("  (%s)", what);
  const char *msg = darray_file_errmsg(f);
  if (bad) {
    if (!TU_CONTAINS(msg, k->names))
      TU_FAIL("  (%s: the message names the argument)", what);
  } else {
    char want[64];
    snprintf(want, sizeof want, "failed on rank %d: ", P - 1);
    if (!TU_CONTAINS(msg, want) || !TU_CONTAINS(msg, k->names))
      TU_FAIL("  (%s: the others' message)", what);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, row_salt, what);
  MPI_Barrier(MPI_COMM_WORLD);
  next_call_works(f, a, (int)(k - cases) * 10 + which + 1, row_salt, what);
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, row_salt, what);
}

int main(int argc, char **argv) {
  tu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
  tu_hang_limit(HANG_S);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (P < 2)
    return tu_skip("a bad argument on one process of several");
  char path[512];
  if (tu_tmpname(path, sizeof path, "test_section_args") == NULL)
    return tu_finish();
  darray_t a = make();
  static const char *const modes[] = {"thread", "files", "none"};
  for (int m = 0; m < 3; m++) {
    int row_salt[R];
    for (int r = 0; r < R; r++)
      row_salt[r] = -1;
    if (me == 0) {
      unsigned char ref[R * C * 4];
      tu_fill_bytes(ref, sizeof ref, SEED, 0);
      FILE *fp = fopen(path, "wb");
      TU_CHECK(fp != NULL && fwrite(ref, 1, sizeof ref, fp) == sizeof ref);
      if (fp != NULL)
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char hints[64];
    snprintf(hints, sizeof hints, "darray_async=%s", modes[m]);
    darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDWR);
    if (f == NULL)
      break;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      for (int which = 0; which < NCALLS; which++)
        one_case(f, a, path, &cases[k], which, row_salt, modes[m]);
    TU_OK(darray_file_close(&f));
  }
  darray_free(&a);
  tu_remove(path);
  return tu_finish();
}
