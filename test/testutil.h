/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * testutil.h - small helpers shared by every darrayio test.
 *
 * Tests are MPI programs (1-4 ranks). Typical shape:
 *
 *   int main(int argc, char **argv) {
 *     tu_init(&argc, &argv);
 *     TU_OK(darray_create(MPI_COMM_WORLD, 2, g, DARRAY_INT32, &a));
 *     TU_EQ_I64(count, 42);
 *     return tu_finish();
 *   }
 *
 * Every check macro is an expression: it evaluates its arguments once,
 * counts one check, and on failure prints file:line, the expressions and
 * both values to stderr and counts one failure. It yields 1 when the check
 * passed and 0 when it failed, so loops can stop early:
 *
 *   if (!TU_EQ_I64(got, want)) break;
 *
 * tu_finish() sums checks and failures over MPI_COMM_WORLD, prints one line
 * from rank 0 ("test NAME: N checks, N failures"), finalizes MPI and returns
 * the exit code (0 pass, 1 fail).
 */
#ifndef DARRAYIO_TESTUTIL_H
#define DARRAYIO_TESTUTIL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "darrayio.h"

/* ---- checks ----------------------------------------------------------- */

/* cond must be true. */
#define TU_CHECK(cond) tu__check(__FILE__, __LINE__, #cond, (cond) ? 1 : 0)
/* a == b as int64_t. */
#define TU_EQ_I64(a, b)                                                        \
  tu__eq_i64(__FILE__, __LINE__, #a, #b, (int64_t)(a), (int64_t)(b))
/* a == b as int. */
#define TU_EQ_INT(a, b)                                                        \
  tu__eq_int(__FILE__, __LINE__, #a, #b, (int)(a), (int)(b))
/* a == b as uint64_t (printed in hex). */
#define TU_EQ_U64(a, b)                                                        \
  tu__eq_u64(__FILE__, __LINE__, #a, #b, (uint64_t)(a), (uint64_t)(b))
/* rc == DARRAY_SUCCESS; prints darray_err_name(rc) otherwise. */
#define TU_OK(rc) tu__eq_code(__FILE__, __LINE__, #rc, (int)(rc), 0)
/* rc == expected darrayio status code; prints both names. */
#define TU_EQ_CODE(rc, expected)                                               \
  tu__eq_code(__FILE__, __LINE__, #rc, (int)(rc), (int)(expected))
/* Two C strings are equal (NULL is never equal). */
#define TU_EQ_STR(a, b) tu__eq_str(__FILE__, __LINE__, #a, #b, (a), (b))
/* hay (a C string, not NULL) contains needle. */
#define TU_CONTAINS(hay, needle)                                               \
  tu__contains(__FILE__, __LINE__, #hay, (hay), (needle))

int tu__check(const char *file, int line, const char *expr, int ok);
int tu__eq_i64(const char *file, int line, const char *ea, const char *eb,
               int64_t a, int64_t b);
int tu__eq_int(const char *file, int line, const char *ea, const char *eb,
               int a, int b);
int tu__eq_u64(const char *file, int line, const char *ea, const char *eb,
               uint64_t a, uint64_t b);
int tu__eq_code(const char *file, int line, const char *expr, int rc,
                int expected);
int tu__eq_str(const char *file, int line, const char *ea, const char *eb,
               const char *a, const char *b);
int tu__contains(const char *file, int line, const char *ehay, const char *hay,
                 const char *needle);

/* Count a failure with a free-form message (printf style); returns 0. */
int tu_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define TU_FAIL(...) tu_fail(__FILE__, __LINE__, __VA_ARGS__)

/* ---- life cycle ------------------------------------------------------- */

/* MPI_Init, remember rank/size and the test name (basename of argv[0]). */
void tu_init(int *argc, char ***argv);
/* tu_init with MPI_Init_thread(required); returns the level provided. */
int tu_init_thread(int *argc, char ***argv, int required);
/* Collective over MPI_COMM_WORLD: sum checks and failures, print the summary
 * line on rank 0, MPI_Finalize; returns 0 if no rank failed, else 1. */
int tu_finish(void);
/* Collective: print "test NAME: SKIP (why)" on rank 0, MPI_Finalize, return
 * 77 (Automake's skip code). */
int tu_skip(const char *why);
/* A part of a test that cannot run at this process count (the rest
 * runs): print "test NAME: SKIP part WHAT at P=N (why)" on rank 0 and
 * count it in tu_finish's summary, so that a part never passes silently
 * by not running. Call it on every rank alike. */
void tu_skip_part(const char *what, const char *why);

/* A hang fails the test: after `seconds` (from now) the process says on
 * stderr which check it passed last and exits with status 1, so that a
 * test of a hang fails by itself, well before test/mpirun.sh's limit
 * (DARRAY_TEST_TIMEOUT). Replaces DARRAY_TEST_WATCHDOG's reminder. */
void tu_hang_limit(int seconds);

/* Whether the library was built to honour DARRAYIO_FAULT (configure
 * --enable-fault-injection); tests that inject faults skip without it. */
bool tu_fault_injection(void);
int tu_rank(void);   /* rank in MPI_COMM_WORLD */
int tu_nprocs(void); /* size of MPI_COMM_WORLD */
/* Failures counted on this rank so far. */
long tu_failures(void);
/* Collective: 1 if any rank has failed so far (e.g. to stop a loop). */
int tu_any_failed(void);

/* Collective over MPI_COMM_WORLD, after a collective call failed with the
 * same code everywhere and left msg: checks the error contract. A rank that
 * failed itself keeps its own message, which names cause (in any letter
 * case: ROMIO passes the system's text on, Open MPI's OMPIO may report
 * only a code, whose text the library gives) and call when not NULL; a rank
 * that did not fail says "failed on rank R: <R's message>", R being a rank
 * with a message of its own; some rank has one. Which ranks fail on their
 * own is the MPI's business (ROMIO agrees on some errors, OMPIO does not),
 * so this does not ask. what names the case in failures. */
void tu_expect_failure_messages(const char *msg, const char *cause,
                                const char *call, const char *what);

/* ---- files ------------------------------------------------------------ */

/* Directory for temporary files: $DARRAY_TEST_TMPDIR, default "/tmp". */
const char *tu_tmpdir(void);
/* Collective over MPI_COMM_WORLD: write "<tmpdir>/<stem>.<pid of rank 0>"
 * into buf (the same on every rank) and create its directory (mkdir -p).
 * Returns buf, or NULL if the name does not fit or the directory cannot be
 * made (the failure is counted). */
char *tu_tmpname(char *buf, size_t n, const char *stem);
/* Collective over MPI_COMM_WORLD: rank 0 removes path; then a barrier. */
void tu_remove(const char *path);

/* Read a whole file with stdio on this rank. Returns malloc'ed bytes (never
 * NULL on success, even for an empty file) and the size in *size; returns
 * NULL and *size = -1 on failure. */
unsigned char *tu_read_file(const char *path, int64_t *size);
/* An info with the hints "key=value;key=value..." set (NULL or "": none);
 * the caller frees it. Pieces without '=' are ignored. */
MPI_Info tu_info(const char *hints);
/* darray_file_open on MPI_COMM_WORLD under those hints, a counted check
 * of its code; the handle (NULL on failure). */
darray_file_t tu_open(const char *path, const char *hints, int mode);
/* What darray_explain() prints for (f, a), as a string to free. */
char *tu_explain(darray_file_t f, darray_t a, int write);
/* Strategy name's estimate on the "estimates:" line of an explanation, in
 * microseconds: 1 when found (*us set), 0 when it is not a candidate
 * there, -1 when the line or the name is missing or malformed. */
int tu_estimate(const char *text, const char *name, double *us);
/* Write n bytes to path (create/truncate) with stdio on this rank; returns 0
 * on success, -1 on failure. */
int tu_write_file(const char *path, const void *buf, int64_t n);

/* Compare n bytes; counts one check. On mismatch prints what, the first
 * mismatching offset with both byte values and the number of mismatches.
 * Returns the number of mismatching bytes (0 = equal). */
#define tu_compare_bytes(a, b, n, what)                                        \
  tu__compare_bytes(__FILE__, __LINE__, (a), (b), (n), (what))
int64_t tu__compare_bytes(const char *file, int line, const void *a,
                          const void *b, int64_t n, const char *what);

/* Files of whole arrays, for the tests of requests (test_async,
 * test_async_batch): n arrays of elems int64 elements one after another,
 * array k at byte k * stride holding element e = tu_value(seed0 + k, e)
 * in storage order, the byte bg everywhere else, n * stride bytes in all. */
typedef struct tu_arrays {
  int n;
  int64_t elems, stride;
  uint64_t seed0;
  unsigned char bg;
} tu_arrays_t;
/* The bytes of such a file with the arrays k where want[k] (malloc'ed, *n
 * bytes). */
unsigned char *tu_arrays_bytes(const tu_arrays_t *l, const bool *want,
                               int64_t *n);
/* Collective: rank 0 writes them to path with stdio; a barrier. */
void tu_arrays_write(const tu_arrays_t *l, const char *path,
                     const bool *want);
/* Collective: rank 0 compares path with them (counted checks); barriers. */
void tu_arrays_check(const tu_arrays_t *l, const char *path,
                     const bool *want, const char *what);
/* Collective: the local buffers of array a for the request tests: *bytes
 * its local bytes, *buf read from f by a blocking darray_read (the
 * reference the requests must reproduce), *back zeroed (for reads to
 * compare); both calloc'ed with 8 spare bytes. */
void tu_arrays_local(darray_file_t f, darray_t a, int64_t *bytes, char **buf,
                     char **back);

/* ---- data ------------------------------------------------------------- */

/* Deterministic pseudo-random value of element i in stream seed
 * (splitmix64 of seed and i). */
uint64_t tu_value(uint64_t seed, int64_t i);
/* Fill n bytes with tu_value(seed, i) bytes: byte b of the buffer gets the
 * low byte of tu_value(seed, start + b). */
void tu_fill_bytes(void *buf, int64_t n, uint64_t seed, int64_t start);

#endif /* DARRAYIO_TESTUTIL_H */
