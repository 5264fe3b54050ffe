/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * hints.c - the typed hint table: defaults, MPI_Info, DARRAYIO_HINTS.
 *
 * One table drives parsing, printing and validation: the known keys are
 * its keys, wherever hints are taken (darray_file_open, the datasets'
 * open through it, darray_plan_virtual). Names follow ROMIO's where the
 * meaning is the same, so users bring their habits with them; a key of
 * darrayio's own prefix, darray_, that the table does not know is an
 * error naming the nearest known key (a misspelling never goes unseen),
 * any other unknown key in an MPI_Info is left to MPI, as MPI requires.
 */
#include "hints.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* H_STRATEGY: auto, then the names of the strategy table; H_BACKEND: the
 * names of the back-end table */
typedef enum { H_SIZE, H_ENUM, H_STRATEGY, H_BACKEND } hint_kind_t;

static const char *const tri_names[] = {"automatic", "enable", "disable",
                                        NULL};
static const char *const verify_names[] = {"disable", "enable", NULL};
static const char *const start_names[] = {"post", "wait", NULL};
static const char *const direct_names[] = {"disable", "enable", NULL};
static const char *const async_names[] = {"automatic", "thread", "files",
                                          "none", NULL};
static const char *const concurrency_names[] = {"locked", "none", "unlocked",
                                                NULL};
static const char *const domains_names[] = {"automatic", "logical", "layout",
                                            NULL};

typedef struct hint_def {
  const char *key;
  hint_kind_t kind;
  size_t offset;
  int64_t min, max;          /* H_SIZE */
  const char *const *names; /* H_ENUM: value i is names[i] */
} hint_def_t;

#define SZ(k, field, lo, hi)                                                   \
  { k, H_SIZE, offsetof(darray_hints_t, field), lo, hi, NULL }
#define EN(k, field, names)                                                    \
  { k, H_ENUM, offsetof(darray_hints_t, field), 0, 0, names }

static const hint_def_t hint_table[] = {
    {"darray_backend", H_BACKEND, offsetof(darray_hints_t, backend), 0, 0,
     NULL},
    {"darray_strategy", H_STRATEGY, offsetof(darray_hints_t, strategy), 0, 0,
     NULL},
    SZ("ind_rd_buffer_size", ind_rd_buffer_size, 1, INT64_C(1) << 40),
    SZ("ind_wr_buffer_size", ind_wr_buffer_size, 1, INT64_C(1) << 40),
    SZ("cb_buffer_size", cb_buffer_size, 1, INT64_C(1) << 30),
    SZ("cb_nodes", cb_nodes, 0, INT32_MAX),
    SZ("cb_group_size", cb_group_size, 0, INT32_MAX),
    SZ("striping_unit", striping_unit, 0, INT64_C(1) << 40),
    SZ("striping_factor", striping_factor, 0, INT32_MAX),
    EN("romio_ds_read", ds_read, tri_names),
    EN("romio_ds_write", ds_write, tri_names),
    EN("romio_cb_read", cb_read, tri_names),
    EN("romio_cb_write", cb_write, tri_names),
    SZ("darray_ds_rd_latency_ns", ds_rd_latency_ns, 0, INT64_C(1000000000)),
    SZ("darray_ds_wr_latency_ns", ds_wr_latency_ns, 0, INT64_C(1000000000)),
    SZ("darray_ds_bandwidth_mbs", ds_bandwidth_mbs, 1, INT64_C(1000000000)),
    SZ("darray_temp_limit", temp_limit, 0, INT64_C(1) << 40),
    SZ("darray_cb_image_piece", cb_image_piece, 0, INT64_C(1) << 40),
    EN("darray_cb_pipeline", cb_pipeline, tri_names),
    EN("darray_cb_domains", cb_domains, domains_names),
    SZ("darray_server_contention", server_contention, 0, 1000),
    SZ("darray_cb_exchange_mbs", cb_exchange_mbs, 1, INT64_C(1000000000)),
    SZ("darray_cb_cycle_ns", cb_cycle_ns, 0, INT64_C(1000000000)),
    SZ("darray_cb_message_ns", cb_message_ns, 0, INT64_C(1000000000)),
    SZ("darray_rows_extent", rows_extent, 1, INT64_C(1) << 50),
    EN("darray_concurrent_writers", concurrency, concurrency_names),
    EN("darray_verify_crc", verify_crc, verify_names),
    EN("darray_crc_thread", crc_thread, tri_names),
    EN("darray_async", async_mode, async_names),
    EN("darray_async_start", async_start, start_names),
    EN("darray_direct_write", direct_write, direct_names),
    SZ("darray_nb_buffer_size", nb_buffer_size, 0, INT64_C(1) << 40),
    EN("darray_map", map, tri_names),
    SZ("darray_map_window", map_window, 4096, INT64_C(1) << 40),
    SZ("darray_map_rd_mbs", map_rd_mbs, 1, INT64_C(1000000000)),
    SZ("darray_map_wr_mbs", map_wr_mbs, 1, INT64_C(1000000000)),
    SZ("darray_map_rd_window_ns", map_rd_window_ns, 0, INT64_C(1000000000)),
    SZ("darray_map_wr_window_ns", map_wr_window_ns, 0, INT64_C(1000000000)),
};
#define NHINTS (sizeof hint_table / sizeof hint_table[0])

void darray__hints_default(darray_hints_t *h) {
  memset(h, 0, sizeof *h);
  h->backend = 0; /* the back-end table's first line, posix */
  h->strategy = DARRAY_STRATEGY_AUTO;
  h->ind_rd_buffer_size = INT64_C(4) << 20;
  h->ind_wr_buffer_size = INT64_C(512) << 10;
  /* measured at 2 ranks (bench/RESULTS.md): 2-4 MiB is as fast as 16 MiB
   * for long pieces and up to 30 % faster for short ones (image mode) */
  h->cb_buffer_size = INT64_C(4) << 20;
  h->cb_nodes = 0; /* 0: chosen by the collective strategy */
  h->ds_read = h->ds_write = DARRAY_TRI_AUTO;
  h->verify_crc = 1; /* "enable": a whole read of a .npz member checks its
                        CRC-32 (issue #38) */
  h->cb_read = h->cb_write = DARRAY_TRI_AUTO;
  /* measured on a page-cached local ext4 file (doc/sieving.md) */
  h->ds_rd_latency_ns = 500;
  h->ds_wr_latency_ns = 5000;
  h->ds_bandwidth_mbs = 5000;
  /* measured at 2 ranks: 16 MiB each way between two processes in 3.2 ms
   * (MPI_Isend/Irecv, 4 MiB messages) */
  h->cb_exchange_mbs = 10000;
  h->cb_cycle_ns = -1; /* measured when the file opens (wait.c) */
  /* a striped file system's server serves the aggregators that meet on
   * it one after another (LACIO's premise); darray-calibrate measures what
   * a directory's servers really do (doc/planner.md) */
  h->server_contention = 100;
  /* measured at 2 processes (darray-calibrate): 64 messages of 64 KiB each
   * way against one of 4 MiB, some 1.7-2.2 us more per message */
  h->cb_message_ns = 2000;
  h->nb_buffer_size = INT64_C(64) << 20;
  h->rows_extent = INT64_C(4) << 20; /* long enough that a file call costs
                                        far less than its bytes */
  /* measured on ext4 (bench/RESULTS.md, the mapped strategy): windows of
   * 2 MiB or more, aligned, map the page cache's large folios whole
   * (1 MiB windows were 100x slower to populate for writing). In DIST3D
   * N=256 at 2 processes (64 MiB mapped by each, 16 MiB windows) making
   * the pages ready took about 3.4 ms for reading and 11.6 ms for
   * writing (a new file) beyond the copies: 0.05 and 0.17 ns a byte with
   * two processes on the same pages, more with more */
  h->map_window = INT64_C(16) << 20;
  h->map_rd_mbs = 25000;
  h->map_wr_mbs = 2000;
  /* a window of one 553 KB BTIO class W dump, new for writing, mapped,
   * made ready and unmapped: 550 us at 1 and 2 processes (0.97 ms a dump
   * in darrayio-mapped at 4 processes on 2 cores, where the estimate
   * doubles it); pages of a new file that several processes make ready at
   * once cost about 0.5 ns a byte (BTIO class A, 4 processes: 8.5 ms a
   * 10.5 MB dump). Reads: a mapping's own calls, some 20 us */
  h->map_rd_window_ns = 20000;
  h->map_wr_window_ns = 500000;
  h->cb_image_piece = 256; /* measured: 128-byte pieces copy faster, 256 go
                              faster as vectors (bench/RESULTS.md) */
}

/* One cap over every temporary buffer: each strategy bounds its memory by
 * one of the buffer sizes (sieving and direct batches by ind_*, two-phase
 * by cb_buffer_size, which already counts its message buffer), so lowering
 * them to the limit bounds every call, except where buffers of whole
 * elements do not fit in it: such calls are refused before any byte moves
 * (xfer_begin.c, and two-phase's darray__tp_size). */
void darray__hints_apply_limit(darray_hints_t *h) {
  int64_t lim = h->temp_limit;
  if (lim <= 0)
    return;
  if (h->ind_rd_buffer_size > lim)
    h->ind_rd_buffer_size = lim;
  if (h->ind_wr_buffer_size > lim)
    h->ind_wr_buffer_size = lim;
  if (h->cb_buffer_size > lim)
    h->cb_buffer_size = lim;
}

static const hint_def_t *find_hint(const char *key) {
  for (size_t i = 0; i < NHINTS; i++)
    if (strcmp(hint_table[i].key, key) == 0)
      return &hint_table[i];
  return NULL;
}

/* The edit distance (insertions, deletions, substitutions) between a and
 * b; the first HINT_KEY_MAX characters of each count. */
#define HINT_KEY_MAX 256
static size_t distance(const char *a, const char *b) {
  size_t m = strnlen(a, HINT_KEY_MAX), n = strnlen(b, HINT_KEY_MAX);
  size_t row[HINT_KEY_MAX + 1];
  for (size_t j = 0; j <= n; j++)
    row[j] = j;
  for (size_t i = 1; i <= m; i++) {
    size_t diag = row[0]; /* row i-1, column j-1 */
    row[0] = i;
    for (size_t j = 1; j <= n; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[n];
}

/* The known key nearest to key (the first of the table at the least
 * distance). */
static const char *nearest(const char *key) {
  size_t best = SIZE_MAX;
  const char *near = hint_table[0].key;
  for (size_t i = 0; i < NHINTS; i++) {
    size_t d = distance(key, hint_table[i].key);
    if (d < best) {
      best = d;
      near = hint_table[i].key;
    }
  }
  return near;
}

/* An unknown key: DARRAY_EHINT, the message (from where: "DARRAYIO_HINTS",
 * "info") naming it and the nearest known key. */
static int unknown(const char *where, const char *key, char *msg,
                   size_t msglen) {
  snprintf(msg, msglen, "%s: '%.*s' is not a darrayio hint (the nearest "
           "known hint is '%s')", where, HINT_KEY_MAX, key, nearest(key));
  return DARRAY_EHINT;
}

bool darray__hints_ours(const char *key) {
  return strncmp(key, "darray_", 7) == 0;
}

/* A non-negative integer with an optional k, m or g suffix (powers of 2). */
static bool parse_size(const char *v, int64_t *out) {
  if (!isdigit((unsigned char)*v))
    return false;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno != 0 || x > INT64_MAX)
    return false;
  int shift = 0;
  switch (tolower((unsigned char)*end)) {
  case 'k': shift = 10; end++; break;
  case 'm': shift = 20; end++; break;
  case 'g': shift = 30; end++; break;
  default: break;
  }
  if (*end != '\0' || x > (unsigned long long)(INT64_MAX >> shift))
    return false;
  *out = (int64_t)(x << shift);
  return true;
}

#define STRATEGY_NAME(name) #name,
static const char *const strategy_names[] = {
    DARRAY_STRATEGY_LIST(STRATEGY_NAME) NULL};

const char *darray__strategy_name(int i) {
  int n = (int)(sizeof strategy_names / sizeof strategy_names[0]) - 1;
  return i >= 0 && i < n ? strategy_names[i] : NULL;
}

/* Value i of an enumerated hint, NULL past the last. */
static const char *enum_name(const hint_def_t *def, int i) {
  if (def->kind == H_STRATEGY)
    return i == 0 ? "auto" : darray__strategy_name(i - 1);
  if (def->kind == H_BACKEND)
    return darray__io_backend_name(i);
  return def->names[i];
}

static int set_hint(darray_hints_t *h, const hint_def_t *def, const char *v,
                    char *msg, size_t msglen) {
  char *field = (char *)h + def->offset;
  if (def->kind != H_SIZE) {
    for (int i = 0; enum_name(def, i) != NULL; i++)
      if (strcmp(enum_name(def, i), v) == 0) {
        *(int *)field = i;
        if (def->offset == offsetof(darray_hints_t, backend))
          h->backend_given = true;
        return DARRAY_SUCCESS;
      }
    snprintf(msg, msglen, "hint %s: value '%s' is not one of", def->key, v);
    for (int i = 0; enum_name(def, i) != NULL; i++) {
      size_t l = strlen(msg);
      snprintf(msg + l, msglen - l, "%s %s", i ? "," : "", enum_name(def, i));
    }
    return DARRAY_EHINT;
  }
  int64_t x;
  if (!parse_size(v, &x) || x < def->min || x > def->max) {
    snprintf(msg, msglen,
             "hint %s: value '%s' is not an integer in [%" PRId64 ", %" PRId64
             "] (suffixes k, m, g allowed)",
             def->key, v, def->min, def->max);
    return DARRAY_EHINT;
  }
  *(int64_t *)field = x;
  return DARRAY_SUCCESS;
}

int darray__hints_parse_string(darray_hints_t *h, const char *s, char *msg,
                               size_t msglen) {
  char *copy = strdup(s);
  if (copy == NULL)
    return DARRAY_ENOMEM;
  int rc = DARRAY_SUCCESS;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ";", &save); tok && rc == DARRAY_SUCCESS;
       tok = strtok_r(NULL, ";", &save)) {
    char *item = darray__trim(tok);
    if (*item == '\0')
      continue;
    char *eq = strchr(item, '=');
    if (eq == NULL) {
      snprintf(msg, msglen, "DARRAYIO_HINTS: '%s' is not key=value", item);
      rc = DARRAY_EHINT;
      break;
    }
    *eq = '\0';
    char *key = darray__trim(item), *val = darray__trim(eq + 1);
    const hint_def_t *def = find_hint(key);
    if (def == NULL) {
      rc = unknown("DARRAYIO_HINTS", key, msg, msglen);
    } else {
      rc = set_hint(h, def, val, msg, msglen);
    }
  }
  free(copy);
  return rc;
}

int darray__hints_from_info(darray_hints_t *h, MPI_Info info, char *msg,
                            size_t msglen) {
  if (info == MPI_INFO_NULL)
    return DARRAY_SUCCESS;
  /* a key of darrayio's prefix that names no hint is a misspelling; any
   * other key belongs to MPI, to its I/O layer or to another library */
  int nkeys = 0;
  char key[MPI_MAX_INFO_KEY + 1];
  if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) {
    snprintf(msg, msglen, "MPI_Info_get_nkeys(info) failed");
    return DARRAY_EMPI;
  }
  for (int k = 0; k < nkeys; k++) {
    if (MPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS) {
      snprintf(msg, msglen, "MPI_Info_get_nthkey(info, %d) failed", k);
      return DARRAY_EMPI;
    }
    key[MPI_MAX_INFO_KEY] = '\0';
    if (darray__hints_ours(key) && find_hint(key) == NULL)
      return unknown("info", key, msg, msglen);
  }
  char val[MPI_MAX_INFO_VAL + 1];
  for (size_t i = 0; i < NHINTS; i++) {
    int flag = 0;
    if (MPI_Info_get(info, hint_table[i].key, MPI_MAX_INFO_VAL, val, &flag) !=
        MPI_SUCCESS) {
      snprintf(msg, msglen, "MPI_Info_get(info, '%s') failed",
               hint_table[i].key);
      return DARRAY_EMPI;
    }
    if (!flag)
      continue;
    int rc = set_hint(h, &hint_table[i], darray__trim(val), msg, msglen);
    if (rc != DARRAY_SUCCESS)
      return rc;
  }
  return DARRAY_SUCCESS;
}

int darray__hints_get(const darray_hints_t *h, const char *key, char *value,
                      size_t len) {
  const hint_def_t *def = find_hint(key);
  if (def == NULL)
    return DARRAY_EHINT;
  const char *field = (const char *)h + def->offset;
  int n;
  if (def->kind != H_SIZE)
    n = snprintf(value, len, "%s", enum_name(def, *(const int *)field));
  else
    n = snprintf(value, len, "%" PRId64, *(const int64_t *)field);
  return n < 0 || (size_t)n >= len ? DARRAY_EINVAL : DARRAY_SUCCESS;
}

void darray__hints_print(const darray_hints_t *h, const char *head,
                         FILE *out) {
  char text[NHINTS * 96 + 256], v[64];
  size_t k = (size_t)snprintf(text, sizeof text, "darrayio: %s\n", head);
  for (size_t i = 0; i < NHINTS && k < sizeof text; i++) {
    darray__hints_get(h, hint_table[i].key, v, sizeof v);
    k += (size_t)snprintf(text + k, sizeof text - k, "darrayio:   %s=%s\n",
                          hint_table[i].key, v);
  }
  fputs(text, out); /* one call: the lines stay together */
}

int darray__hints_count(void) { return (int)NHINTS; }

const char *darray__hints_key(int i) {
  return i >= 0 && i < (int)NHINTS ? hint_table[i].key : NULL;
}

int64_t darray__hints_value(const darray_hints_t *h, int i) {
  const char *field = (const char *)h + hint_table[i].offset;
  return hint_table[i].kind != H_SIZE ? *(const int *)field
                                       : *(const int64_t *)field;
}

int darray__hints_enum(const darray_hints_t *h, const char *key) {
  const hint_def_t *def = find_hint(key);
  if (def == NULL || def->kind == H_SIZE)
    return -1;
  return *(const int *)((const char *)h + def->offset);
}

int darray__hints_load(darray_hints_t *h, MPI_Info info, char *msg) {
  darray__hints_default(h);
  int rc = darray__hints_from_info(h, info, msg, DARRAY_ERRMSG_LEN);
  const char *env = getenv("DARRAYIO_HINTS");
  if (rc == DARRAY_SUCCESS && env != NULL)
    rc = darray__hints_parse_string(h, env, msg, DARRAY_ERRMSG_LEN);
  darray__hints_apply_limit(h);
  return rc;
}
