/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_concurrent.c - no lost updates between concurrent writers.
 *
 * MPI_COMM_WORLD is split into G groups (G = 3 at 3 processes, else 2),
 * each with its own communicator, its own darray and two handles open on
 * one shared file. The file holds an R x (G*W) int32 array in C order:
 * group g owns the column block [g*W, (g+1)*W), and inside it process j of
 * the group owns a narrower column block, so every write interleaves with
 * the other processes of its group and leaves holes that belong to the
 * other groups. In each round every group, at the same time:
 *   - writes its columns (darray_write_section) with this round's values,
 *     through one of its two handles (they alternate);
 *   - reads its columns back through the other handle and checks them
 *     (reads under the other groups' writes);
 * then, after a barrier, rank 0 reads the whole file with stdio and checks
 * every element against the round's values: a byte another group wrote
 * back stale (a read-modify-write that covered a hole without a lock) is a
 * lost update. Every strategy (direct, sieve, twophase in image mode with
 * small chunks, auto) on both back ends, and every setting of
 * darray_concurrent_writers that promises safety against others
 * (locked, unlocked). At 2 processes, two forced interleavings first
 * (forced_case): they fail at once on a strategy that reads, modifies and
 * writes back without a lock every writer honours. Then the same on a
 * striped subfile set (doc/subfiles.md: 100-byte stripes over 3 subfiles,
 * made here and checked by the layout's closed form, subfiles_util.c),
 * which the groups open without hints: its locks are on the descriptor,
 * over logical offsets.
 *
 * Rounds: 6 per case in `make check`, DARRAY_TEST_LONG=1 for 40.
 * Run: mpiexec -n 2..4 ./test_concurrent
 */
#include "subfiles_util.h"
#include "testutil.h"

#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#define R 2048 /* rows */
#define W 24   /* columns per group */

typedef struct group {
  MPI_Comm comm;
  int g, G, j, n; /* group, groups, rank in group, its size */
  darray_t a;
} group_t;

static int32_t value(int round, int64_t row, int64_t col) {
  return (int32_t)(((uint32_t)round << 24) ^ (uint32_t)(row * 1000 + col));
}

/* My column box inside my group's block: [c0, c0 + w). */
static void my_box(const group_t *gr, int64_t start[2], int64_t count[2]) {
  int64_t lo = (int64_t)gr->g * W + (int64_t)W * gr->j / gr->n;
  int64_t hi = (int64_t)gr->g * W + (int64_t)W * (gr->j + 1) / gr->n;
  start[0] = 0;
  count[0] = R;
  start[1] = lo;
  count[1] = hi - lo;
}

static void fill(int round, const int64_t start[2], const int64_t count[2],
                 int32_t *buf) {
  for (int64_t r = 0; r < count[0]; r++)
    for (int64_t c = 0; c < count[1]; c++)
      buf[r * count[1] + c] = value(round, start[0] + r, start[1] + c);
}

/* The subfile set's layout (sub_cases below). */
#define SUB_UNIT 100
#define SUB_FACTOR 3

/* Whether a case runs on a subfile set: its hints' first key says so. */
static bool on_subfiles(const char *hints) {
  return strncmp(hints, "subfiles;", 9) == 0;
}

/* Rank 0: every element of the file holds the round's value. */
static void check_file(const char *path, int round, int G, const char *what) {
  int64_t size;
  unsigned char *bytes = on_subfiles(what) ? tu_read_subfiles(path, &size)
                                           : tu_read_file(path, &size);
  if (!TU_EQ_I64(size, (int64_t)R * G * W * 4)) {
    free(bytes);
    return;
  }
  const int32_t *v = (const int32_t *)bytes;
  int64_t lost = 0, first = -1;
  for (int64_t r = 0; r < R; r++)
    for (int64_t c = 0; c < (int64_t)G * W; c++)
      if (v[r * G * W + c] != value(round, r, c)) {
        lost++;
        first = first < 0 ? r * G * W + c : first;
      }
  if (lost > 0)
    TU_FAIL("%s, round %d: %lld elements lost (first at element %lld)",
            what, round, (long long)lost, (long long)first);
  else
    TU_CHECK(lost == 0);
  free(bytes);
}

/* Rank 0 makes the file: the right size, all zeros (a plain file, or a
 * subfile set for the hints that start with "subfiles;"). */
static void zero_file(const char *path, int G, const char *hints) {
  if (tu_rank() == 0) {
    void *zero = calloc((size_t)R * G * W, 4);
    int64_t n = (int64_t)R * G * W * 4;
    TU_EQ_INT(on_subfiles(hints) ? tu_write_subfiles(path, zero, n, SUB_UNIT,
                                                     SUB_FACTOR)
                                 : tu_write_file(path, zero, n),
              0);
    free(zero);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void run_case(group_t *gr, const char *path, const char *hints,
                     int rounds) {
  int64_t start[2], count[2];
  my_box(gr, start, count);
  int64_t n = count[0] * count[1];
  int32_t *out = malloc(sizeof *out * (size_t)(n > 0 ? n : 1));
  int32_t *in = malloc(sizeof *in * (size_t)(n > 0 ? n : 1));
  MPI_Info info = tu_info(hints); /* "subfiles": no '=', ignored */
  darray_file_t h[2] = {NULL, NULL};
  int ok = TU_OK(darray_file_open(gr->comm, path, DARRAY_MODE_RDWR, info,
                                  &h[0])) &&
           TU_OK(darray_file_open(gr->comm, path, DARRAY_MODE_RDWR, info,
                                  &h[1]));
  MPI_Info_free(&info);
  for (int round = 1; ok && round <= rounds; round++) {
    fill(round, start, count, out);
    MPI_Barrier(MPI_COMM_WORLD); /* every group starts together */
    darray_file_t wf = h[round % 2], rf = h[(round + 1) % 2];
    if (!TU_OK(darray_write_section(wf, gr->a, start, count, DARRAY_ORDER_C,
                                    out)))
      fprintf(stderr, "  %s: %s\n", hints, darray_file_errmsg(wf));
    memset(in, 0, sizeof *in * (size_t)n);
    TU_OK(darray_read_section(rf, gr->a, start, count, DARRAY_ORDER_C, in));
    tu_compare_bytes(in, out, (int64_t)sizeof *in * n, hints);
    MPI_Barrier(MPI_COMM_WORLD); /* every group is done */
    if (tu_rank() == 0)
      check_file(path, round, gr->G, hints);
    ok = !tu_any_failed();
  }
  for (int k = 0; k < 2; k++)
    if (h[k] != NULL)
      TU_OK(darray_file_close(&h[k]));
  free(out);
  free(in);
}

/*
 * A forced interleaving (2 processes, one per group): group 0's
 * read-modify-write sleeps 400 ms between its read and its write (a
 * DARRAYIO_FAULT delay before its first pwrite), and group 1 writes its
 * columns with plain writes 150 ms into that sleep. A read-modify-write
 * without a lock every writer honours writes group 1's columns back
 * stale; with it, group 1's write waits for the write-back.
 */
static void forced_case(group_t *gr, const char *path, const char *hints) {
  int64_t start[2], count[2];
  my_box(gr, start, count);
  int32_t *out = malloc(sizeof *out * (size_t)(count[0] * count[1]));
  fill(1, start, count, out);
  if (gr->g == 0) /* a subfile's share of a window is a vector call */
    setenv("DARRAYIO_FAULT", on_subfiles(hints) ? "op=write,index=1,delay=400"
                                                : "op=pwrite,index=1,delay=400",
           1);
  MPI_Info info = tu_info(gr->g == 0 ? hints : "darray_strategy=direct");
  darray_file_t f = NULL;
  int ok = TU_OK(darray_file_open(gr->comm, path, DARRAY_MODE_RDWR, info,
                                  &f));
  unsetenv("DARRAYIO_FAULT");
  MPI_Info_free(&info);
  MPI_Barrier(MPI_COMM_WORLD);
  if (gr->g == 1)
    nanosleep(&(struct timespec){0, 150000000}, NULL);
  if (ok)
    TU_OK(darray_write_section(f, gr->a, start, count, DARRAY_ORDER_C, out));
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0)
    check_file(path, 1, gr->G, hints);
  if (f != NULL)
    TU_OK(darray_file_close(&f));
  free(out);
}

static const char *const forced[] = {
    "darray_strategy=twophase;cb_buffer_size=1m;darray_cb_image_piece=1g",
    "darray_strategy=sieve;ind_wr_buffer_size=1m",
    "subfiles;darray_strategy=sieve;ind_wr_buffer_size=1m",
};

static const char *const cases[] = {
    "darray_strategy=twophase;cb_buffer_size=4096;darray_cb_image_piece=1g",
    "darray_strategy=twophase;cb_buffer_size=4096;darray_cb_image_piece=1g;"
    "darray_backend=mpiio",
    "darray_strategy=twophase;cb_buffer_size=4096;darray_cb_image_piece=1g;"
    "darray_concurrent_writers=unlocked",
    "darray_strategy=twophase;cb_buffer_size=4096;darray_cb_image_piece=0",
    "darray_strategy=sieve;ind_wr_buffer_size=4096",
    "darray_strategy=sieve;ind_wr_buffer_size=4096;darray_backend=mpiio",
    "darray_strategy=direct",
    "darray_strategy=auto",
    "darray_strategy=auto;darray_backend=mpiio",
    "subfiles;darray_strategy=twophase;cb_buffer_size=4096;"
    "darray_cb_image_piece=1g",
    "subfiles;darray_strategy=sieve;ind_wr_buffer_size=4096",
    "subfiles;darray_strategy=auto",
};

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  int P = tu_nprocs();
  if (P < 2)
    return tu_skip("needs 2 processes or more (two groups)");
  group_t gr;
  gr.G = P == 3 ? 3 : 2;
  gr.g = tu_rank() % gr.G;
  MPI_Comm_split(MPI_COMM_WORLD, gr.g, tu_rank(), &gr.comm);
  MPI_Comm_rank(gr.comm, &gr.j);
  MPI_Comm_size(gr.comm, &gr.n);
  const char *long_env = getenv("DARRAY_TEST_LONG");
  int rounds = long_env != NULL && strcmp(long_env, "1") == 0 ? 40 : 6;

  char path[512];
  if (tu_tmpname(path, sizeof path, "concurrent") == NULL)
    return tu_finish();
  int64_t gs[2] = {R, (int64_t)gr.G * W};
  TU_OK(darray_create(gr.comm, 2, gs, DARRAY_INT32, &gr.a));
  TU_OK(darray_commit(gr.a));
  size_t nforced = P == 2 && tu_fault_injection()
                       ? sizeof forced / sizeof forced[0]
                       : 0; /* the forced order needs DARRAYIO_FAULT */
  if (P == 2 && !tu_fault_injection())
    tu_skip_part("forced interleavings", "built without "
                                         "--enable-fault-injection");
  size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t k = 0; k < nforced + ncases; k++) {
    const char *hints = k < nforced ? forced[k] : cases[k - nforced];
    zero_file(path, gr.G, hints);
    if (k < nforced)
      forced_case(&gr, path, hints);
    else
      run_case(&gr, path, hints, rounds);
    if (tu_any_failed())
      break;
  }
  darray_free(&gr.a);
  tu_remove_subfiles(path, SUB_FACTOR);
  MPI_Comm_free(&gr.comm);
  return tu_finish();
}
