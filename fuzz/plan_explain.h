/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * plan_explain.h - part of fuzz_plan.c (header only, included once):
 * darray_explain's cases and their checks.
 */
#ifndef DARRAYIO_FUZZ_PLAN_EXPLAIN_H
#define DARRAYIO_FUZZ_PLAN_EXPLAIN_H

#define TRI                                                                    \
  { "automatic", "enable", "disable" }
static const struct {
  const char *key;
  const char *vals[6];
} hint_defs[] = {
    {"darray_backend", {"posix", "mpiio"}},
    {"darray_strategy", {"auto", "direct", "twophase", "sieve"}},
    {"romio_cb_read", TRI},
    {"romio_cb_write", TRI},
    {"romio_ds_read", TRI},
    {"romio_ds_write", TRI},
    {"cb_buffer_size", {"1", "7", "4k", "1m", "1g"}},
    {"ind_rd_buffer_size", {"1", "3", "512k", "1024g"}},
    {"ind_wr_buffer_size", {"1", "5", "4m", "1024g"}},
    {"cb_nodes", {"0", "1", "5", "2147483647"}},
    {"striping_unit", {"0", "1", "1m", "1024g"}},
    {"striping_factor", {"0", "1", "4"}},
    {"darray_ds_rd_latency_ns", {"0", "1", "1000000000"}},
    {"darray_ds_wr_latency_ns", {"0", "7", "1000000000"}},
    {"darray_ds_bandwidth_mbs", {"1", "5000", "1000000000"}},
    {"darray_temp_limit", {"0", "1", "100", "1024g"}},
    {"darray_cb_image_piece", {"0", "1", "1024g"}},
    {"darray_cb_pipeline", TRI},
    {"darray_cb_exchange_mbs", {"1", "10000", "1000000000"}},
    {"darray_cb_cycle_ns", {"0", "1", "1000000000"}},
};
enum {
  H_BACKEND,
  H_STRATEGY,
  H_CB_READ,
  H_CB_WRITE,
  H_DS_READ,
  H_DS_WRITE,
  NHINTS = sizeof hint_defs / sizeof hint_defs[0]
};

typedef struct ecase {
  int nd;
  int64_t g[MAXD], esize, dargs[MAXD], ghost[MAXD], pad[MAXD], disp;
  darray_type_t type;
  darray_dist_t dist[MAXD];
  int psizes[MAXD], perm[MAXD];
  bool set_grid, set_mem;
  darray_order_t sorder, morder;
  int hint[NHINTS];
  int fixed; /* size of a fixed buffer the text also goes to */
} ecase_t;

static int64_t type_size(darray_type_t t) {
  static const int64_t s[] = {0,
                              1,
                              1,
                              1,
                              2,
                              2,
                              4,
                              4,
                              8,
                              8,
                              (int64_t)sizeof(float),
                              (int64_t)sizeof(double),
                              (int64_t)sizeof(long double)};
  return (int)t < 13 ? s[t] : 0;
}

static void decode_explain(fz_in_t *in, ecase_t *c) {
  uint8_t b = fz_u8(in);
  c->nd = b < 200 ? 1 + b % 4 : 1 + b % MAXD;
  for (int d = 0; d < c->nd; d++)
    c->g[d] = size_of(in);
  c->type = (darray_type_t)(1 + fz_u8(in) % 13);
  b = fz_u8(in);
  c->esize = c->type != DARRAY_OPAQUE ? type_size(c->type)
             : b % 4                  ? 1 + b % 24
                                      : (int64_t)1 << fz_u8(in) % 48;
  bool mp = c->nd >= 3 && fz_u8(in) % 4 == 0;
  int nmp = 0;
  for (int d = 0; d < c->nd; d++) {
    b = fz_u8(in);
    if (mp) { /* the first three dimensions not skipped are MP */
      c->dist[d] = nmp < 3 && (b % 2 || c->nd - d <= 3 - nmp)
                       ? DARRAY_DIST_MULTIPARTITION
                       : DARRAY_DIST_NONE;
      nmp += c->dist[d] == DARRAY_DIST_MULTIPARTITION;
    } else {
      c->dist[d] = (darray_dist_t)(b % 3);
    }
    switch (b / 4 % 4) {
    case 0:
      c->dargs[d] = DARRAY_DEFAULT_ARG;
      break;
    case 1:
      c->dargs[d] = 1 + fz_u8(in) % 8;
      break;
    case 2:
      c->dargs[d] = sat_add(c->g[d], fz_u8(in) % 2);
      break;
    default:
      c->dargs[d] = INT64_MAX - fz_u8(in) % 2;
      break;
    }
    c->psizes[d] = b / 16 % 4 == 0 ? 0 : 1;
  }
  c->set_grid = fz_u8(in) % 2;
  b = fz_u8(in);
  c->sorder = b % 3 == 0   ? DARRAY_ORDER_C
              : b % 3 == 1 ? DARRAY_ORDER_FORTRAN
                           : DARRAY_ORDER_PERM;
  for (int i = 0; i < c->nd; i++)
    c->perm[i] = c->sorder == DARRAY_ORDER_FORTRAN ? c->nd - 1 - i : i;
  for (int i = c->nd - 1; c->sorder == DARRAY_ORDER_PERM && i > 0; i--) {
    int j = fz_u8(in) % (i + 1), t = c->perm[i];
    c->perm[i] = c->perm[j];
    c->perm[j] = t;
  }
  b = fz_u8(in);
  c->disp = b % 4 == 0   ? 0
            : b % 4 == 1 ? fz_u8(in)
            : b % 4 == 2 ? INT64_MAX - fz_u16(in)
                         : (int64_t)1 << fz_u8(in) % 63;
  b = fz_u8(in);
  c->set_mem = b % 2;
  c->morder = b & 2 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int d = 0; d < c->nd; d++) {
    uint8_t m = c->set_mem ? fz_u8(in) : 0;
    c->ghost[d] = m % 4 == 3 ? INT64_MAX / 4 : m % 4;
    c->pad[d] =
        m / 4 % 4 == 0 ? sat_add(c->g[d], 2 * (c->ghost[d] % 4) + 1) : 0;
  }
  for (int k = 0; k < NHINTS; k++) {
    b = fz_u8(in);
    int nv = 0;
    while (nv < 6 && hint_defs[k].vals[nv] != NULL)
      nv++;
    c->hint[k] = b & 1 ? (b >> 1) % nv : -1;
  }
  c->fixed = 2 + fz_u16(in) % 2048; /* glibc leaves 1 byte untouched */
}

static void describe_explain(const ecase_t *c) {
  PUT("explain: g=");
  for (int d = 0; d < c->nd; d++)
    PUT("%s%" PRId64, d ? "x" : "", c->g[d]);
  PUT(" type=%d esize=%" PRId64 " dist=", (int)c->type, c->esize);
  for (int d = 0; d < c->nd; d++)
    PUT("%s%s(%" PRId64 ")", d ? "," : "", dist_names[c->dist[d]], c->dargs[d]);
  PUT(" grid=%s", c->set_grid ? "" : "unset");
  for (int d = 0; c->set_grid && d < c->nd; d++)
    PUT("%s%d", d ? "," : "", c->psizes[d]);
  PUT(" perm=");
  for (int d = 0; d < c->nd; d++)
    PUT("%s%d", d ? "," : "", c->perm[d]);
  PUT("(order %d) disp=%" PRId64 " mem=", (int)c->sorder, c->disp);
  if (!c->set_mem)
    PUT("default");
  for (int d = 0; c->set_mem && d < c->nd; d++)
    PUT("%s%" PRId64 "/%" PRId64,
        d                             ? ","
        : c->morder == DARRAY_ORDER_C ? "C ghost/pad "
                                      : "F ghost/pad ",
        c->ghost[d], c->pad[d]);
  PUT(" hints=\"");
  for (int k = 0; k < NHINTS; k++)
    if (c->hint[k] >= 0)
      PUT("%s=%s;", hint_defs[k].key, hint_defs[k].vals[c->hint[k]]);
  PUT("\"");
}

enum { ST_DIRECT = 1, ST_TWOPHASE = 2, ST_SIEVE = 4, ST_MAPPED = 8 };

static int strategy_bit(const char *name, size_t n) {
  static const char *const names[] = {"direct", "twophase", "sieve",
                                      "mapped"};
  for (int i = 0; i < 4; i++)
    if (strlen(names[i]) == n && strncmp(name, names[i], n) == 0)
      return 1 << i;
  return 0;
}

/* What the hints allow for a whole array on one process (darray_open's
 * rules; the process's data has no holes and interleaves with nobody):
 * the file's pages mapped compete with direct runs by the cost model
 * where the file system is one a node's processes share. */
static int allowed(const ecase_t *c, bool write) {
  static const int forced[] = {0, ST_DIRECT, ST_TWOPHASE, ST_SIEVE};
  int s = c->hint[H_STRATEGY] > 0 ? forced[c->hint[H_STRATEGY]] : 0;
  bool cb = c->hint[write ? H_CB_WRITE : H_CB_READ] == 1;
  int ds = c->hint[write ? H_DS_WRITE : H_DS_READ];
  if (s != 0 || cb)
    return s | (cb ? ST_TWOPHASE : 0);
  return ds == 1 ? ST_SIEVE : ST_DIRECT | ST_MAPPED;
}

/* The text's next line (without its newline) into line; false at the end.
 * Every line must end with a newline. */
static bool next_line(const char **at, char *line, size_t n) {
  const char *s = *at, *nl = strchr(s, '\n');
  if (*s == '\0')
    return false;
  if (nl == NULL)
    fz_fail("explain: the text does not end with a newline: '%s'", s);
  size_t len = (size_t)(nl - s);
  if (len >= n)
    fz_fail("explain: a line of %zu characters", len);
  memcpy(line, s, len);
  line[len] = '\0';
  *at = nl + 1;
  return true;
}

static void expect_prefix(const char *line, const char *want) {
  if (strncmp(line, want, strlen(want)) != 0)
    fz_fail("explain: line '%s' does not start with '%s'", line, want);
}

/* "  distribution: BLOCK(5) x * x ... over 1 processes (grid 1 x 1)". */
static void check_dist_line(const ecase_t *c, const char *line) {
  const char *s = line;
  expect_prefix(s, "  distribution:");
  s += strlen("  distribution:");
  for (int d = 0; d < c->nd; d++) {
    char want[32];
    snprintf(want, sizeof want, "%s %s", d ? " x" : "", dist_names[c->dist[d]]);
    if (c->dist[d] == DARRAY_DIST_MULTIPARTITION)
      snprintf(want, sizeof want, "%s MULTIPARTITION", d ? " x" : "");
    expect_prefix(s, want);
    s += strlen(want);
    if (c->dist[d] != DARRAY_DIST_BLOCK && c->dist[d] != DARRAY_DIST_CYCLIC)
      continue;
    long long k;
    int used = 0;
    if (sscanf(s, "(%lld)%n", &k, &used) != 1 || used == 0)
      fz_fail("explain: no block size for dimension %d in '%s'", d, line);
    s += used;
    /* as given, or the equivalent block clipped to n */
    int64_t given = c->dargs[d] > 0                   ? c->dargs[d]
                    : c->dist[d] == DARRAY_DIST_BLOCK ? c->g[d]
                                                      : 1;
    int64_t clip = given < c->g[d] ? given : c->g[d];
    if (k != given && k != clip)
      fz_fail("explain: dimension %d has block %lld, not %" PRId64, d, k,
              given);
  }
  expect_prefix(s, " over 1 processes (grid");
  s += strlen(" over 1 processes (grid");
  for (int d = 0; d < c->nd; d++) {
    expect_prefix(s, d ? " x 1" : " 1");
    s += d ? 4 : 2;
  }
  if (strcmp(s, ")") != 0)
    fz_fail("explain: distribution line ends with '%s'", s);
}

/* The one process's row: runs, bytes, [lo, hi), holes, min/mean/max. */
static void check_row(const ecase_t *c, const char *line, int64_t abytes) {
  long long runs, lo, hi, mn, mean, mx;
  const char *ext = strchr(line, '[');
  if (sscanf(line, " 0 %lld", &runs) != 1 || ext == NULL ||
      sscanf(ext, "[%lld, %lld)", &lo, &hi) != 2)
    fz_fail("explain: cannot read the process row '%s'", line);
  const char *holes = strchr(ext, ')') + 1;
  while (*holes == ' ')
    holes++;
  int64_t end = c->disp + abytes; /* check_explain saw it fits */
  if (lo != c->disp || hi != end)
    fz_fail("explain: file extent [%lld, %lld), expected [%" PRId64 ", %" PRId64
            ")",
            lo, hi, c->disp, end);
  if (strncmp(holes, "0 B ", 4) != 0)
    fz_fail("explain: one process has holes: '%s'", holes);
  size_t len = strlen(line);
  const char *p = line + len - 2; /* "min/mean/max B" ends the line */
  while (p > line && p[-1] != ' ')
    p--;
  if (len < 3 || strcmp(line + len - 2, " B") != 0 ||
      sscanf(p, "%lld/%lld/%lld", &mn, &mean, &mx) != 3)
    fz_fail("explain: cannot read the run lengths in '%s'", line);
  if (runs < 1 || mean != abytes / runs || mn < c->esize || mn % c->esize ||
      mx % c->esize || mn > mean || mean > mx || mx > abytes)
    fz_fail("explain: %lld runs of %lld/%lld/%lld bytes for %" PRId64
            " bytes of %" PRId64 "-byte elements",
            runs, mn, mean, mx, abytes, c->esize);
}

/* Every strategy's estimate, in the table's order: on one process direct
 * runs take some time (never negative, never NaN), and neither static
 * segmentation, rows nor two-phase (nobody to interleave with) nor
 * sieving (a whole array has no holes) nor writer groups (nobody to
 * interleave with) is a candidate, whatever the hints; the file's pages
 * mapped come last, with an estimate or why not. */
static void check_estimates(const char *line) {
  const char *want = "  estimates: direct ";
  double us;
  int used = 0;
  expect_prefix(line, want);
  const char *s = line + strlen(want);
  if (sscanf(s, "%lf%n", &us, &used) != 1 || !(us >= 0))
    fz_fail("explain: no estimate for direct runs in '%s'", line);
  s += used;
  expect_prefix(s, " us; static not a candidate: ");
  s = strstr(s, "; rows not a candidate: ");
  if (s == NULL)
    fz_fail("explain: no rows after static in '%s'", line);
  s = strstr(s, "; twophase not a candidate: ");
  if (s == NULL)
    fz_fail("explain: no two-phase after rows in '%s'", line);
  s = strstr(s, "; sieve not a candidate: ");
  if (s == NULL)
    fz_fail("explain: no sieving after two-phase in '%s'", line);
  s = strstr(s, "; groups not a candidate: ");
  if (s == NULL)
    fz_fail("explain: no writer groups after sieving in '%s'", line);
  s = strstr(s, "; mapped ");
  if (s == NULL || strchr(s + 2, ';') != NULL)
    fz_fail("explain: '%s' does not end with mapped", line);
  s += strlen("; mapped ");
  if (strncmp(s, "not a candidate: ", 17) != 0 &&
      (sscanf(s, "%lf%n", &us, &used) != 1 || !(us >= 0) ||
       strcmp(s + used, " us") != 0))
    fz_fail("explain: no estimate or reason for mapped in '%s'", line);
}

/* Lines after the strategy: back end, nonblocking requests, what writes
 * do about other writers, cost model, ownership map. */
static void check_tail(const ecase_t *c, const char **at, bool write,
                       int strat) {
  char line[1024];
  bool mpiio = c->hint[H_BACKEND] == 1;
  (void)strat;
  if (!next_line(at, line, sizeof line))
    fz_fail("explain: the text ends after the strategy");
  expect_prefix(line, mpiio ? "  back end: mpiio" : "  back end: posix");
  /* the fuzzer's MPI runs at MPI_THREAD_SINGLE: requests run when posted */
  if (!next_line(at, line, sizeof line))
    fz_fail("explain: no line on nonblocking requests");
  expect_prefix(line, "  nonblocking requests: none (");
  if (!next_line(at, line, sizeof line))
    fz_fail("explain: no cost model");
  if (write) { /* the file is opened for writing: locked by default */
    expect_prefix(line, "  concurrent writers: ");
    if (!next_line(at, line, sizeof line))
      fz_fail("explain: no cost model");
  }
  expect_prefix(line, "  cost model: ");
  if (!next_line(at, line, sizeof line))
    fz_fail("explain: no ownership map");
  if (c->nd > 2) {
    expect_prefix(line, "  (ownership map drawn for 1-D and 2-D");
  } else {
    expect_prefix(line, "  ownership map of the file");
    int64_t nrow = c->nd == 2 ? c->g[c->perm[0]] : 1;
    int64_t ncol = c->g[c->perm[c->nd - 1]];
    int64_t rows = nrow < 16 ? nrow : 16, cols = ncol < 64 ? ncol : 64;
    for (int64_t r = 0; r < rows; r++) {
      if (!next_line(at, line, sizeof line))
        fz_fail("explain: the map has %" PRId64 " rows of %" PRId64, r, rows);
      if (strncmp(line, "    ", 4) != 0 || (int64_t)strlen(line) != 4 + cols ||
          strspn(line + 4, "0") != (size_t)cols)
        fz_fail("explain: map row '%s' is not %" PRId64 " zeros", line, cols);
    }
  }
  if (next_line(at, line, sizeof line))
    fz_fail("explain: unexpected line '%s'", line);
}

/* The text into a buffer of c->fixed bytes (fmemopen): the call still
 * succeeds, and the buffer holds a prefix of the text (NUL-terminated when
 * it is shorter) and nothing past its end. */
static void check_fixed(const ecase_t *c, darray_file_t f, darray_t a,
                        const char *full) {
  size_t n = (size_t)c->fixed;
  char *buf = malloc(n + 16);
  if (buf == NULL)
    fz_fail("out of memory");
  memset(buf, 0x5a, n + 16);
  FILE *out = fmemopen(buf, n, "w");
  if (out == NULL)
    fz_fail("fmemopen failed");
  int rc = darray_explain(f, a, 1, out);
  fclose(out);
  const char *nul = memchr(buf, '\0', n); /* none when the text filled it */
  size_t len = nul != NULL ? (size_t)(nul - buf) : n;
  if (rc != DARRAY_SUCCESS || len > strlen(full) || memcmp(buf, full, len) != 0)
    fz_fail("explain into %zu bytes: %s, %zu bytes that are not the text's "
            "prefix",
            n, darray_err_name(rc), len);
  for (size_t i = n; i < n + 16; i++)
    if (buf[i] != 0x5a)
      fz_fail("explain into %zu bytes wrote byte %zu", n, i);
  free(buf);
}

/* One explanation, checked line by line; returns the strategy's bit. */
static int check_explain(const ecase_t *c, darray_file_t f, darray_t a,
                         bool write, int64_t abytes) {
  char *text = NULL, line[1024];
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (out == NULL)
    fz_fail("open_memstream failed");
  int rc = darray_explain(f, a, write, out);
  fclose(out);
  int64_t end;
  if (__builtin_add_overflow(c->disp, abytes, &end)) {
    /* as darray_write and darray_read refuse it */
    if (rc != DARRAY_ESIZE || darray_file_errmsg(f)[0] == '\0')
      fz_fail("darray_explain returned %s for an array that ends past 2^63 "
              "(disp %" PRId64 " + %" PRId64 " bytes), not DARRAY_ESIZE",
              darray_err_name(rc), c->disp, abytes);
    free(text);
    return 0;
  }
  if (rc != DARRAY_SUCCESS)
    fz_fail("darray_explain returned %s: %s", darray_err_name(rc),
            darray_file_errmsg(f));
  if (strlen(text) != len)
    fz_fail("explain: a NUL inside the text (%zu of %zu)", strlen(text), len);
  const char *at = text;
  char want[256];
  int n =
      snprintf(want, sizeof want,
               "darrayio: %s of a %d-D array of %" PRId64 "-byte elements, ",
               write ? "write" : "read", c->nd, c->esize);
  for (int d = 0; d < c->nd; d++)
    n += snprintf(want + n, sizeof want - (size_t)n, "%s%" PRId64,
                  d ? " x " : "", c->g[d]);
  snprintf(want + n, sizeof want - (size_t)n, " (");
  next_line(&at, line, sizeof line);
  expect_prefix(line, want);
  snprintf(want, sizeof want, ") at file offset %" PRId64, c->disp);
  const char *tail = strrchr(line, ')');
  if (tail == NULL || strcmp(tail, want) != 0)
    fz_fail("explain: '%s' does not end with '%s'", line, want);
  next_line(&at, line, sizeof line);
  check_dist_line(c, line);
  n = snprintf(want, sizeof want,
               "  file storage order, slowest dimension "
               "first:");
  for (int d = 0; d < c->nd; d++)
    n += snprintf(want + n, sizeof want - (size_t)n, " %d", c->perm[d]);
  next_line(&at, line, sizeof line);
  if (strcmp(line, want) != 0)
    fz_fail("explain: '%s' is not '%s'", line, want);
  next_line(&at, line, sizeof line);
  expect_prefix(line, "   rank       runs");
  next_line(&at, line, sizeof line);
  check_row(c, line, abytes);
  next_line(&at, line, sizeof line);
  expect_prefix(line, "  conforms to the storage order: yes");
  next_line(&at, line, sizeof line);
  check_estimates(line);
  next_line(&at, line, sizeof line);
  expect_prefix(line, "  strategy: ");
  const char *name = line + strlen("  strategy: "), *comma = strchr(name, ',');
  int bit = comma ? strategy_bit(name, (size_t)(comma - name)) : 0;
  if (bit == 0 || strncmp(comma, ", because ", 10) != 0 || comma[10] == '\0')
    fz_fail("explain: '%s' names no strategy and reason", line);
  if ((bit & allowed(c, write)) == 0)
    fz_fail("explain: %s strategy '%.*s', which the hints do not allow",
            write ? "write" : "read", (int)(comma - name), name);
  check_tail(c, &at, write, bit);
  if (write)
    check_fixed(c, f, a, text);
  free(text);
  return bit;
}

/* A small array moves for real: the counters must name the strategy
 * explain named. */
static void check_io(const ecase_t *c, darray_file_t f, darray_t a, int wbit,
                     int rbit, int64_t lbytes) {
  void *buf = calloc(1, (size_t)lbytes);
  darray_stats_t st;
  if (buf == NULL)
    fz_fail("out of memory");
  int limit = -1; /* darray_temp_limit: value index, 0 is "0" (none) */
  for (int k = 0; k < NHINTS; k++)
    if (strcmp(hint_defs[k].key, "darray_temp_limit") == 0)
      limit = c->hint[k];
  bool refused = false;
  for (int w = 1; w >= 0; w--) {
    darray_file_reset_stats(f);
    int rc = w ? darray_write(f, a, buf) : darray_read(f, a, buf);
    char msg[600]; /* every call clears the handle's message: keep it */
    snprintf(msg, sizeof msg, "%s", darray_file_errmsg(f));
    darray_file_get_stats(f, &st);
    if (rc == DARRAY_ELIMIT && limit > 0 && strstr(msg, "darray_temp_limit")) {
      refused = w; /* before any byte moved: the limit allows that */
      continue;
    }
    if (rc == DARRAY_EEOF && !w && refused)
      continue; /* the write was refused: the file may be short */
    if (rc != DARRAY_SUCCESS)
      fz_fail("darray_%s returned %s: %s", w ? "write" : "read",
              darray_err_name(rc), msg);
    if (strategy_bit(st.strategy, strlen(st.strategy)) != (w ? wbit : rbit))
      fz_fail("darray_%s used strategy '%s'; explain said otherwise",
              w ? "write" : "read", st.strategy);
  }
  free(buf);
}

/* A commit refused says why, with a code of darray_commit's list. */
static void refused_commit(darray_t a, int rc) {
  static const int codes[] = {DARRAY_EDIST, DARRAY_EGRID, DARRAY_ETYPE,
                              DARRAY_EGHOST, DARRAY_ESIZE};
  bool listed = false;
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    listed |= rc == codes[i];
  if (!listed || darray_errmsg(a)[0] == '\0')
    fz_fail("darray_commit refused with %s and message '%s'",
            darray_err_name(rc), darray_errmsg(a));
}

static void setter(darray_t a, int rc, const char *what) {
  if (rc != DARRAY_SUCCESS)
    fz_fail("%s refused valid arguments: %s: %s", what, darray_err_name(rc),
            darray_errmsg(a));
}

static void run_explain(fz_in_t *in) {
  ecase_t c;
  memset(&c, 0, sizeof c);
  decode_explain(in, &c);
  describe_explain(&c);
  fz_show_case();
  darray_t a = NULL;
  int rc = darray_create(MPI_COMM_WORLD, c.nd, c.g, c.type, &a);
  if (rc != DARRAY_SUCCESS) {
    if (rc != DARRAY_ESIZE || a != NULL || darray_errmsg(NULL)[0] == '\0')
      fz_fail("darray_create returned %s: '%s'", darray_err_name(rc),
              darray_errmsg(NULL));
    return;
  }
  if (c.type == DARRAY_OPAQUE)
    setter(a, darray_set_elem_size(a, c.esize), "darray_set_elem_size");
  setter(a, darray_set_distribution(a, c.dist, c.dargs),
         "darray_set_distribution");
  if (c.set_grid)
    setter(a, darray_set_grid(a, c.psizes), "darray_set_grid");
  setter(a, darray_set_storage_order(a, c.sorder, c.perm),
         "darray_set_storage_order");
  setter(a, darray_set_displacement(a, c.disp), "darray_set_displacement");
  rc = c.set_mem ? darray_set_memory_layout(a, c.morder, c.ghost, c.pad)
                 : DARRAY_SUCCESS;
  if (rc != DARRAY_SUCCESS) { /* extents past 2^63 may be refused now */
    if ((rc != DARRAY_EGHOST && rc != DARRAY_ESIZE) ||
        darray_errmsg(a)[0] == '\0')
      fz_fail("darray_set_memory_layout returned %s: '%s'", darray_err_name(rc),
              darray_errmsg(a));
    darray_free(&a);
    return;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  for (int k = 0; k < NHINTS; k++)
    if (c.hint[k] >= 0)
      MPI_Info_set(info, hint_defs[k].key, hint_defs[k].vals[c.hint[k]]);
  darray_file_t f = NULL;
  rc = darray_file_open(
      MPI_COMM_WORLD, fz_files[0],
      DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC, info, &f);
  MPI_Info_free(&info);
  if (rc != DARRAY_SUCCESS)
    fz_fail("darray_file_open refused valid hints: %s: %s", darray_err_name(rc),
            darray_errmsg(NULL));
  rc = darray_commit(a);
  if (rc != DARRAY_SUCCESS) {
    refused_commit(a, rc);
    rc = darray_explain(f, a, 1, stderr);
    if (rc != DARRAY_ESTATE)
      fz_fail("darray_explain of an uncommitted array returned %s",
              darray_err_name(rc));
  } else {
    int64_t abytes = c.esize, lbytes = 0;
    for (int d = 0; d < c.nd; d++)
      if (!mul_ok(abytes, c.g[d], &abytes))
        fz_fail("commit accepted an array of more than 2^63 bytes");
    int wbit = check_explain(&c, f, a, true, abytes);
    int rbit = check_explain(&c, f, a, false, abytes);
    if (darray_explain(f, a, 1, NULL) != DARRAY_ENULL)
      fz_fail("darray_explain with out NULL did not return DARRAY_ENULL");
    darray_local_bytes(a, &lbytes);
    if (abytes <= 4096 && lbytes <= 65536 && c.disp <= 65536)
      check_io(&c, f, a, wbit, rbit, lbytes);
  }
  if (darray_file_close(&f) != DARRAY_SUCCESS || darray_free(&a) != 0)
    fz_fail("closing the file or freeing the array failed");
}

#endif /* DARRAYIO_FUZZ_PLAN_EXPLAIN_H */
