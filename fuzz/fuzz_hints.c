/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_hints.c - fuzz target: the hint parsers (DARRAYIO_HINTS strings and
 * MPI_Info values) and the DARRAYIO_FAULT specification parser.
 *
 * The input is one string. It is parsed as DARRAYIO_HINTS and as
 * DARRAYIO_FAULT; split at its first '=' it is also one MPI_Info key and
 * value. Whatever the input, nothing may crash, leak or be undefined, and
 * the parsers must be consistent: a string DARRAYIO_HINTS accepts must
 * leave every hint readable with darray__hints_get, and writing those
 * values back as "key=value;..." must give the same hints again.
 *
 * Build and run: fuzz/run.sh (libFuzzer), or see fuzz/README.md.
 */
#include "hints.h"
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = {
    "darray_backend",          "darray_strategy",
    "ind_rd_buffer_size",      "ind_wr_buffer_size",
    "cb_buffer_size",          "cb_nodes",
    "striping_unit",           "striping_factor",
    "romio_ds_read",           "romio_ds_write",
    "romio_cb_read",           "romio_cb_write",
    "darray_ds_rd_latency_ns", "darray_ds_wr_latency_ns",
    "darray_ds_bandwidth_mbs",
};
#define NKEYS (sizeof keys / sizeof keys[0])

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  return 0;
}

/* Every hint as text, then parsed back: the same hints. */
static void round_trip(const darray_hints_t *h) {
  char all[4096] = "", val[256], msg[DARRAY_ERRMSG_LEN];
  size_t at = 0;
  for (size_t i = 0; i < NKEYS; i++) {
    int rc = darray__hints_get(h, keys[i], val, sizeof val);
    if (rc == DARRAY_EHINT)
      continue; /* a key this version does not have */
    if (rc != DARRAY_SUCCESS)
      abort();
    at += (size_t)snprintf(all + at, sizeof all - at, "%s=%s;", keys[i], val);
  }
  darray_hints_t back;
  darray__hints_default(&back);
  if (darray__hints_parse_string(&back, all, msg, sizeof msg) != DARRAY_SUCCESS)
    abort();
  for (size_t i = 0; i < NKEYS; i++) {
    char v1[256], v2[256];
    if (darray__hints_get(h, keys[i], v1, sizeof v1) == DARRAY_SUCCESS &&
        (darray__hints_get(&back, keys[i], v2, sizeof v2) != DARRAY_SUCCESS ||
         strcmp(v1, v2) != 0))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1), msg[DARRAY_ERRMSG_LEN];
  if (s == NULL)
    return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  darray_hints_t h;
  darray__hints_default(&h);
  msg[0] = '\0';
  int rc = darray__hints_parse_string(&h, s, msg, sizeof msg);
  if (rc == DARRAY_SUCCESS)
    round_trip(&h);
  else if (rc != DARRAY_EHINT || msg[0] == '\0')
    abort(); /* a refusal always says why */
  msg[0] = '\0';
  rc = darray__io_fault_check_spec(s, 0, msg, sizeof msg);
  if (rc != DARRAY_SUCCESS && (rc != DARRAY_EHINT || msg[0] == '\0'))
    abort();
  /* as an MPI_Info pair (MPI caps keys and values; skip what MPI refuses) */
  char *eq = strchr(s, '=');
  if (eq != NULL && eq > s && eq - s < MPI_MAX_INFO_KEY &&
      strlen(eq + 1) < MPI_MAX_INFO_VAL) {
    *eq = '\0';
    MPI_Info info;
    MPI_Info_create(&info);
    if (MPI_Info_set(info, s, eq + 1) == MPI_SUCCESS) {
      darray__hints_default(&h);
      rc = darray__hints_from_info(&h, info, msg, sizeof msg);
      if (rc == DARRAY_SUCCESS)
        round_trip(&h);
    }
    MPI_Info_free(&info);
  }
  free(s);
  return 0;
}
