/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_hints.c - the hints in effect on an open file (run at 1-4
 * processes):
 *  (a) darray_file_get_hint answers with the value the file uses: cb_nodes
 *      = 0 (default) or more than P reads back as P, a smaller one as
 *      itself; buffer sizes lowered by darray_temp_limit read back lowered;
 *      unset hints read back as their documented defaults;
 *  (b) darray_file_get_info returns one key per hint, each with the value
 *      darray_file_get_hint gives, and the documented defaults for a few;
 *  (c) DARRAYIO_PRINT_HINTS=1 makes rank 0 (only) print every hint in
 *      effect on stderr when the file opens, one a line (a heading, then
 *      as many lines as darray_file_get_info has keys, each one key=value
 *      and under 100 characters).
 * The expected values come from the header's documentation, not from the
 * library.
 */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int P, me;

static darray_file_t open_with(const char *path, const char *hints) {
  MPI_Info info = hints ? tu_info(hints) : MPI_INFO_NULL;
  darray_file_t f = NULL;
  TU_OK(darray_file_open(MPI_COMM_WORLD, path,
                         DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, info, &f));
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  return f;
}

static void hint_is(darray_file_t f, const char *key, const char *want) {
  char v[64] = "";
  if (TU_OK(darray_file_get_hint(f, key, v, sizeof v)))
    TU_EQ_STR(v, want);
}

static void test_in_effect(const char *path) {
  char pstr[16], half[16];
  snprintf(pstr, sizeof pstr, "%d", P);
  snprintf(half, sizeof half, "%d", P > 1 ? P / 2 : 1);
  darray_file_t f = open_with(path, NULL);
  if (f != NULL) { /* defaults, as the header documents them */
    hint_is(f, "cb_nodes", pstr);
    hint_is(f, "cb_buffer_size", "4194304");
    hint_is(f, "ind_rd_buffer_size", "4194304");
    hint_is(f, "ind_wr_buffer_size", "524288");
    hint_is(f, "darray_strategy", "auto");
    hint_is(f, "darray_backend", "posix");
    TU_OK(darray_file_close(&f));
  }
  f = open_with(path, "cb_nodes=99");
  if (f != NULL) {
    hint_is(f, "cb_nodes", pstr); /* 99 aggregators do not exist */
    TU_OK(darray_file_close(&f));
  }
  char h[64];
  snprintf(h, sizeof h, "cb_nodes=%s", half);
  f = open_with(path, h);
  if (f != NULL) {
    hint_is(f, "cb_nodes", half);
    TU_OK(darray_file_close(&f));
  }
  f = open_with(path, "darray_temp_limit=1000;ind_wr_buffer_size=4096");
  if (f != NULL) { /* every buffer at most the limit */
    hint_is(f, "ind_rd_buffer_size", "1000");
    hint_is(f, "ind_wr_buffer_size", "1000");
    hint_is(f, "cb_buffer_size", "1000");
    hint_is(f, "darray_temp_limit", "1000");
    TU_OK(darray_file_close(&f));
  }
}

static void test_info(const char *path) {
  darray_file_t f = open_with(path, "cb_buffer_size=65536;romio_cb_write="
                                    "disable");
  if (f == NULL)
    return;
  MPI_Info info = MPI_INFO_NULL;
  TU_EQ_CODE(darray_file_get_info(f, NULL), DARRAY_ENULL);
  if (TU_OK(darray_file_get_info(f, &info))) {
    int nkeys = 0, seen = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    TU_CHECK(nkeys >= 20); /* the hints table of the header */
    for (int i = 0; i < nkeys; i++) {
      char key[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1], w[64] = "";
      int flag = 0;
      MPI_Info_get_nthkey(info, i, key);
      MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
      TU_CHECK(flag);
      if (TU_OK(darray_file_get_hint(f, key, w, sizeof w)))
        seen += TU_EQ_STR(v, w);
    }
    TU_EQ_INT(seen, nkeys);
    const char *want[][2] = {{"cb_buffer_size", "65536"},
                             {"romio_cb_write", "disable"},
                             {"romio_cb_read", "automatic"},
                             {"darray_concurrent_writers", "locked"}};
    for (int k = 0; k < 4; k++) {
      char v[MPI_MAX_INFO_VAL + 1] = "";
      int flag = 0;
      MPI_Info_get(info, want[k][0], MPI_MAX_INFO_VAL, v, &flag);
      TU_CHECK(flag);
      TU_EQ_STR(v, want[k][1]);
    }
    MPI_Info_free(&info);
  }
  TU_OK(darray_file_close(&f));
}

/* Rank 0's stderr during one open, with DARRAYIO_PRINT_HINTS=1. */
static void test_print(const char *path) {
  char cap[600];
  snprintf(cap, sizeof cap, "%s.stderr.%d", path, me);
  fflush(stderr);
  int saved = dup(2), fd = open(cap, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  dup2(fd, 2);
  setenv("DARRAYIO_PRINT_HINTS", "1", 1);
  darray_file_t f = open_with(path, "cb_nodes=1");
  unsetenv("DARRAYIO_PRINT_HINTS");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  int nhints = 0;
  MPI_Info all = MPI_INFO_NULL;
  if (f != NULL && TU_OK(darray_file_get_info(f, &all))) {
    MPI_Info_get_nkeys(all, &nhints);
    MPI_Info_free(&all);
  }
  if (f != NULL)
    TU_OK(darray_file_close(&f));
  int64_t n = 0;
  unsigned char *text = tu_read_file(cap, &n);
  char *s = calloc((size_t)n + 1, 1);
  if (text != NULL)
    memcpy(s, text, (size_t)n);
  if (me == 0) {
    TU_CONTAINS(s, "darrayio: hints of '");
    TU_CONTAINS(s, "one a line:\n");
    TU_CONTAINS(s, "\ndarrayio:   cb_nodes=1\n");
    TU_CONTAINS(s, "\ndarrayio:   darray_strategy=auto\n");
    TU_CONTAINS(s, "\ndarrayio:   cb_buffer_size=4194304\n");
    /* one hint a line: a line per key of darray_file_get_info, and the
     * heading; each hint line short and of one key=value */
    int lines = 0, longest = 0, len = 0, eqs = 0;
    for (const char *c = s; *c != '\0'; c++) {
      if (*c == '=')
        eqs++;
      if (*c != '\n') {
        len++;
        continue;
      }
      /* the heading names the path, as long as the build's folder: only
       * the hint lines are held to a length */
      if (lines > 0) {
        longest = len > longest ? len : longest;
        TU_EQ_INT(eqs, 1);
      }
      lines++;
      len = eqs = 0;
    }
    TU_EQ_INT(lines, 1 + nhints);
    TU_CHECK(longest < 100);
  } else {
    TU_EQ_I64(n, 0); /* one line per open, from rank 0 */
  }
  free(s);
  free(text);
  remove(cap);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  P = tu_nprocs();
  me = tu_rank();
  char path[512];
  if (tu_tmpname(path, sizeof path, "darray_hints") != NULL) {
    test_in_effect(path);
    test_info(path);
    test_print(path);
    tu_remove(path);
  }
  return tu_finish();
}
