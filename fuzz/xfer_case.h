/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * xfer_case.h - part of fuzz_xfer.c (header only, included once): a case
 * decoded from the input bytes (the array, its layouts, the hints, the
 * file's first length, the calls and requests and how the case ends), the
 * strides that follow from it by the definitions, and its description for
 * reports.
 */
#ifndef DARRAYIO_FUZZ_XFER_CASE_H
#define DARRAYIO_FUZZ_XFER_CASE_H

#define TRI                                                                    \
  { "automatic", "enable", "disable" }
static const struct {
  const char *key;
  const char *vals[9];
} hint_defs[] = {
    {"darray_backend", {"posix", "mpiio"}},
    {"darray_strategy", {"auto", "direct", "twophase", "sieve"}},
    {"cb_buffer_size", {"1", "2", "3", "8", "13", "64", "100", "4k"}},
    {"ind_rd_buffer_size", {"1", "2", "5", "8", "16", "31", "256", "4k"}},
    {"ind_wr_buffer_size", {"1", "3", "4", "8", "24", "64", "512", "4k"}},
    {"darray_cb_image_piece", {"0", "1", "8", "64", "256", "1m"}},
    {"darray_cb_pipeline", TRI},
    {"romio_cb_read", TRI},
    {"romio_cb_write", TRI},
    {"romio_ds_read", TRI},
    {"romio_ds_write", TRI},
    {"darray_temp_limit", {"1", "7", "64", "512", "4k"}},
    {"striping_unit", {"1", "16", "100", "4k"}},
    {"cb_nodes", {"0", "1", "2", "8"}},
    {"darray_ds_rd_latency_ns", {"0", "500", "1000000"}},
    {"darray_ds_wr_latency_ns", {"0", "5000", "1000000"}},
    {"darray_ds_bandwidth_mbs", {"1", "5000", "1000000000"}},
    {"darray_async", {"automatic", "thread", "files", "none"}},
    {"darray_nb_buffer_size", {"0", "1", "16", "100", "1k", "64m"}},
};
enum {
  H_BACKEND,
  H_STRATEGY,
  H_CB_READ = 7,
  H_CB_WRITE,
  H_DS_READ,
  H_DS_WRITE,
  H_TEMP_LIMIT,
  H_ASYNC = 17,
  H_NB_BUFFER,
  NHINTS = sizeof hint_defs / sizeof hint_defs[0]
};

enum {
  OP_WRITE,
  OP_WRITE_SEC,
  OP_READ,
  OP_READ_SEC,
  OP_DISP,
  OP_SYNC,
  OP_WAIT,     /* complete one pending request */
  OP_WAIT_ALL, /* complete all of them with darray_wait_all */
  NOPKINDS
};
static const char *const op_names[] = {
    "write", "write_section", "read",    "read_section", "set_displacement",
    "sync",  "complete",      "wait_all"};

/* How a transfer is made: blocking, posted (darray_i*), or posted with
 * its data copied (darray_bwrite*; reads are posted). A sync: blocking
 * or darray_file_isync. */
enum { HOW_BLOCK, HOW_NB, HOW_BUF };

typedef struct op {
  int kind;
  int64_t start[MAXD], count[MAXD];
  darray_order_t order;
  bool null_buf; /* an empty section passes NULL */
  int64_t disp;  /* OP_DISP */
  int how;       /* HOW_* */
  int pick;      /* OP_WAIT: which pending request (modulo their number) */
  bool test;     /* OP_WAIT: darray_test until done, not darray_wait */
  bool rev;      /* OP_WAIT_ALL: the requests last posted first */
  bool nulls;    /* OP_WAIT_ALL: a DARRAY_REQUEST_NULL after each */
  bool nocodes;  /* OP_WAIT_ALL: codes is NULL */
} op_t;

typedef struct xcase {
  int nd;
  int64_t g[MAXD];
  darray_type_t type;
  int64_t esize;
  darray_dist_t dist[MAXD];
  int64_t dargs[MAXD];
  bool dargs_null;
  int grid; /* 0: not set, 1: all ones, 2: all zeros (chosen at commit) */
  darray_order_t sorder;
  int perm[MAXD]; /* storage order, slowest first */
  int64_t disp;
  bool mem_set, ghost_null, pad_null;
  darray_order_t morder;
  int64_t ghost[MAXD], pad[MAXD]; /* pad 0: tight */
  int hint[NHINTS];               /* value index, -1: not set */
  int64_t flen;                   /* the file's length before the calls */
  int nops;
  op_t op[MAXOPS];
  bool end_close; /* requests still pending at the end: darray_file_close
                     completes them (else darray_wait_all) */
  bool end_free;  /* ... after the array is freed */
  uint64_t seed;
  /* derived from the definitions */
  int64_t n, abytes, lbytes;
  int64_t fstride[MAXD], ext[MAXD], mstride[MAXD];
} xcase_t;

static int64_t type_size(darray_type_t t, int64_t opaque) {
  switch (t) {
  case DARRAY_CHAR:
    return (int64_t)sizeof(char);
  case DARRAY_INT8:
  case DARRAY_UINT8:
    return 1;
  case DARRAY_INT16:
  case DARRAY_UINT16:
    return 2;
  case DARRAY_INT32:
  case DARRAY_UINT32:
    return 4;
  case DARRAY_INT64:
  case DARRAY_UINT64:
    return 8;
  case DARRAY_FLOAT:
    return (int64_t)sizeof(float);
  case DARRAY_DOUBLE:
    return (int64_t)sizeof(double);
  case DARRAY_LONG_DOUBLE:
    return (int64_t)sizeof(long double);
  default:
    return opaque;
  }
}

static void decode_shape(fz_in_t *in, xcase_t *c) {
  static const int64_t maxg[MAXD] = {128, 16, 8, 5};
  c->nd = 1 + fz_u8(in) % MAXD;
  c->n = 1;
  for (int d = 0; d < c->nd; d++)
    c->g[d] = 1 + fz_u8(in) % maxg[c->nd - 1];
  c->type = (darray_type_t)(1 + fz_u8(in) % 13);
  c->esize = type_size(c->type, 1 + fz_u8(in) % 24);
  for (;;) { /* within the budget: halve the largest dimension */
    int big = 0;
    c->n = 1;
    for (int d = 0; d < c->nd; d++) {
      c->n *= c->g[d];
      big = c->g[d] > c->g[big] ? d : big;
    }
    if (c->n * c->esize <= BUDGET)
      break;
    c->g[big] = (c->g[big] + 1) / 2;
  }
  c->abytes = c->n * c->esize;
}

static void decode_dist(fz_in_t *in, xcase_t *c) {
  bool mp = c->nd >= 3 && fz_u8(in) % 4 == 0;
  int none = c->nd == 4 ? fz_u8(in) % 4 : -1; /* MULTIPARTITION: 3 dims */
  for (int d = 0; d < c->nd; d++) {
    uint8_t b = fz_u8(in);
    c->dargs[d] = DARRAY_DEFAULT_ARG;
    if (mp) {
      c->dist[d] = d == none ? DARRAY_DIST_NONE : DARRAY_DIST_MULTIPARTITION;
      continue;
    }
    c->dist[d] = (darray_dist_t)(b % 3); /* NONE, BLOCK, CYCLIC */
    b /= 3;
    if (b % 2 == 0 && c->dist[d] == DARRAY_DIST_BLOCK)
      c->dargs[d] = c->g[d] + b / 2 % 3; /* k*p >= n on one process */
    else if (b % 2 == 0 && c->dist[d] == DARRAY_DIST_CYCLIC)
      c->dargs[d] = 1 + b / 2 % (c->g[d] + 1);
  }
  c->dargs_null = fz_u8(in) % 4 == 0;
  c->grid = fz_u8(in) % 3;
}

static void decode_orders(fz_in_t *in, xcase_t *c) {
  int s = fz_u8(in) % 3;
  c->sorder = s == 0   ? DARRAY_ORDER_C
              : s == 1 ? DARRAY_ORDER_FORTRAN
                       : DARRAY_ORDER_PERM;
  for (int i = 0; i < c->nd; i++)
    c->perm[i] = s == 1 ? c->nd - 1 - i : i;
  for (int i = c->nd - 1; s == 2 && i > 0; i--) {
    int j = fz_u8(in) % (i + 1), t = c->perm[i];
    c->perm[i] = c->perm[j];
    c->perm[j] = t;
  }
  switch (fz_u8(in) % 4) {
  case 0:
    c->disp = 0;
    break;
  case 1:
    c->disp = fz_u8(in) % 8;
    break;
  case 2:
    c->disp = fz_u8(in);
    break;
  default:
    c->disp = 4096 + fz_u8(in);
    break;
  }
  uint8_t m = fz_u8(in);
  c->mem_set = m & 1;
  c->morder = m & 2 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  c->ghost_null = m & 4;
  c->pad_null = m & 8;
  for (int d = 0; d < c->nd; d++) {
    c->ghost[d] = c->ghost_null ? 0 : fz_u8(in) % 3;
    uint8_t p = fz_u8(in);
    c->pad[d] =
        c->pad_null || p % 2 ? 0 : c->g[d] + 2 * c->ghost[d] + p / 2 % 3;
  }
}

static void decode_ops(fz_in_t *in, xcase_t *c) {
  for (int k = 0; k < NHINTS; k++) {
    uint8_t b = fz_u8(in);
    int nv = 0;
    while (nv < 9 && hint_defs[k].vals[nv] != NULL)
      nv++;
    c->hint[k] = b & 1 ? (b >> 1) % nv : -1;
  }
  switch (fz_u8(in) % 4) {
  case 0:
    c->flen = 0;
    break;
  case 1:
    c->flen = fz_u16(in) % (c->disp + c->abytes + 1);
    break;
  default:
    c->flen = c->disp + c->abytes + fz_u8(in) % 32;
    break;
  }
  c->nops = 1 + fz_u8(in) % MAXOPS;
  for (int k = 0; k < c->nops; k++) {
    op_t *o = &c->op[k];
    o->kind = fz_u8(in) % NOPKINDS;
    uint8_t f = fz_u8(in);
    o->order = f & 1 ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
    o->null_buf = f & 2;
    o->how = f >> 3 & 3; /* 3, and a buffered read or sync: posted */
    if (o->how == 3 ||
        (o->how == HOW_BUF && o->kind != OP_WRITE && o->kind != OP_WRITE_SEC))
      o->how = HOW_NB;
    o->test = o->rev = f & 32;
    o->nulls = f & 64;
    o->nocodes = f & 128;
    if (o->kind == OP_WAIT)
      o->pick = fz_u8(in);
    o->disp = f & 4 ? 0 : fz_u16(in) % 8192;
    for (int d = 0; d < c->nd; d++) {
      o->start[d] = fz_u8(in) % c->g[d];
      o->count[d] = fz_u8(in) % (c->g[d] - o->start[d] + 1);
    }
  }
  uint8_t e = fz_u8(in);
  c->end_close = e & 1;
  c->end_free = e & 2;
}

/* The strides of the file and of the buffer, from the definitions. */
static void derive(xcase_t *c) {
  int64_t s = c->esize;
  for (int i = c->nd - 1; i >= 0; i--) {
    c->fstride[c->perm[i]] = s;
    s *= c->g[c->perm[i]];
  }
  if (!c->mem_set)
    for (int d = 0; d < c->nd; d++)
      c->ghost[d] = c->pad[d] = 0;
  int64_t m = c->esize;
  for (int d = 0; d < c->nd; d++) {
    c->ext[d] = c->pad[d] > 0 ? c->pad[d] : c->g[d] + 2 * c->ghost[d];
    m *= c->ext[d];
  }
  if (m > MEMCAP) { /* keep the buffer small: no ghosts, no padding */
    c->ghost_null = c->pad_null = true;
    for (int d = 0; d < c->nd; d++) {
      c->ghost[d] = c->pad[d] = 0;
      c->ext[d] = c->g[d];
    }
  }
  bool f = c->mem_set && c->morder == DARRAY_ORDER_FORTRAN;
  s = c->esize;
  for (int i = 0; i < c->nd; i++) {
    int d = f ? i : c->nd - 1 - i;
    c->mstride[d] = s;
    s *= c->ext[d];
  }
  c->lbytes = s;
}

static void describe(const xcase_t *c) {
  static const char *const dn[] = {"*", "BLOCK", "CYCLIC", "MP"};
  char *p = fz_case, *end = fz_case + sizeof fz_case;
#define PUT(...) p += snprintf(p, (size_t)(end - p), __VA_ARGS__)
  PUT("g=");
  for (int d = 0; d < c->nd; d++)
    PUT("%s%" PRId64, d ? "x" : "", c->g[d]);
  PUT(" type=%d esize=%" PRId64 " dist=", (int)c->type, c->esize);
  for (int d = 0; d < c->nd; d++)
    PUT("%s%s(%" PRId64 ")", d ? "," : "", dn[c->dist[d]],
        c->dargs_null ? -1 : c->dargs[d]);
  PUT(" grid=%s perm=", (const char *[]){"unset", "ones", "zeros"}[c->grid]);
  for (int d = 0; d < c->nd; d++)
    PUT("%s%d", d ? "," : "", c->perm[d]);
  PUT("(order %d) disp=%" PRId64 " mem=%s ghost=", (int)c->sorder, c->disp,
      !c->mem_set                   ? "default"
      : c->morder == DARRAY_ORDER_C ? "C"
                                    : "F");
  for (int d = 0; d < c->nd; d++)
    PUT("%s%" PRId64, d ? "," : "", c->ghost[d]);
  PUT("%s pad=", c->ghost_null ? "(NULL)" : "");
  for (int d = 0; d < c->nd; d++)
    PUT("%s%" PRId64, d ? "," : "", c->pad[d]);
  PUT("%s hints=\"", c->pad_null ? "(NULL)" : "");
  for (int k = 0; k < NHINTS; k++)
    if (c->hint[k] >= 0)
      PUT("%s=%s;", hint_defs[k].key, hint_defs[k].vals[c->hint[k]]);
  PUT("\" file=%" PRId64 "B ops:", c->flen);
  for (int k = 0; k < c->nops && p < end - 120; k++) {
    const op_t *o = &c->op[k];
    bool xfer = o->kind <= OP_READ_SEC || o->kind == OP_SYNC;
    PUT(" %s%s", !xfer ? "" : (const char *[]){"", "i", "b"}[o->how],
        op_names[o->kind]);
    if (o->kind == OP_WAIT)
      PUT("(%s pending #%d)", o->test ? "test" : "wait", o->pick);
    if (o->kind == OP_WAIT_ALL)
      PUT("(%s%s%s)", o->rev ? "last first" : "in order",
          o->nulls ? ", nulls" : "", o->nocodes ? ", codes NULL" : "");
    if (o->kind == OP_DISP)
      PUT("(%" PRId64 ")", o->disp);
    if (o->kind == OP_WRITE_SEC || o->kind == OP_READ_SEC) {
      PUT("(");
      for (int d = 0; d < c->nd; d++)
        PUT("%s%" PRId64 "+%" PRId64, d ? "," : "", o->start[d], o->count[d]);
      PUT(" %s%s)", o->order == DARRAY_ORDER_C ? "C" : "F",
          o->null_buf ? " NULL if empty" : "");
    }
  }
  PUT(" end: %s%s", c->end_close ? "close" : "wait_all",
      c->end_free ? " after darray_free" : "");
#undef PUT
}

#endif /* DARRAYIO_FUZZ_XFER_CASE_H */
