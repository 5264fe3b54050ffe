/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * hints.h - the hints a file is opened with (hints.c).
 */
#ifndef DARRAYIO_HINTS_H
#define DARRAYIO_HINTS_H

#include "util.h"

/* darray_strategy: auto, or entry strategy - 1 of the strategy table */
enum { DARRAY_STRATEGY_AUTO = 0 };
/* darray_async (src/async): automatic = the most the thread level allows */
enum {
  DARRAY_ASYNC_AUTO = 0,
  DARRAY_ASYNC_THREAD = 1, /* everything in a thread (MPI_THREAD_MULTIPLE) */
  DARRAY_ASYNC_FILES = 2,  /* file calls in a thread, MPI in the caller's */
  DARRAY_ASYNC_NONE = 3    /* requests run when posted */
};
enum { DARRAY_TRI_AUTO = 0, DARRAY_TRI_ENABLE = 1, DARRAY_TRI_DISABLE = 2 };
/* darray_cb_domains (src/twophase/tp_layout.c) */
enum {
  DARRAY_DOMAINS_AUTO = 0,    /* layout where the striping is known */
  DARRAY_DOMAINS_LOGICAL = 1, /* even split of the extent by offset */
  DARRAY_DOMAINS_LAYOUT = 2   /* each aggregator the stripes of few servers */
};
/* darray_concurrent_writers (src/io/io_lock.c) */
enum {
  DARRAY_CONC_LOCKED = 0,  /* others may write: locks, locked RMW */
  DARRAY_CONC_NONE = 1,    /* nobody else writes: no locks, RMW */
  DARRAY_CONC_UNLOCKED = 2 /* others write without locks: no RMW */
};

typedef struct darray_hints {
  int backend; /* darray_backend: a line of the back-end table (src/io/io.c),
                  0 (posix) by default */
  int strategy;
  int64_t ind_rd_buffer_size;
  int64_t ind_wr_buffer_size;
  int64_t cb_buffer_size;
  int64_t cb_nodes;
  /* the groups strategy (src/groups): ranks per writer group, 0 = the
   * processes of one node (MPI_Comm_split_type) */
  int64_t cb_group_size;
  int64_t striping_unit;
  int64_t striping_factor;
  int ds_read, ds_write, cb_read, cb_write;
  /* data sieving's cost model (src/sieve, doc/sieving.md): time of one
   * read and one write call, and the transfer rate */
  int64_t ds_rd_latency_ns;
  int64_t ds_wr_latency_ns;
  int64_t ds_bandwidth_mbs; /* 10^6 bytes per second */
  /* darray_temp_limit: the most temporary memory one call may use on a
   * process, 0 = no limit beyond the buffer sizes above (which it lowers) */
  int64_t temp_limit;
  /* two-phase: pieces shorter than this on average are copied into an
   * image of the chunk (src/twophase/twophase.c) */
  int64_t cb_image_piece;
  /* two-phase writes: overlap the next chunk's exchange with this chunk's
   * file call (tri-state) */
  int cb_pipeline;
  /* two-phase: file domains split by offset (logical) or by the servers
   * of a striped file (layout; LACIO), DARRAY_DOMAINS_* */
  int cb_domains;
  /* the planner: how much longer each further aggregator on one server in
   * a cycle makes that server's work, in percent of it (100: a server
   * serves them one after another) */
  int64_t server_contention;
  /* the planner's two-phase costs: exchange rate (10^6 bytes per second,
   * each byte counted when sent and when received) and the cost of one
   * cycle's synchronization */
  int64_t cb_exchange_mbs;
  int64_t cb_cycle_ns;
  /* what one more message costs a process beyond its bytes (ns: the
   * handshake of a rendezvous) */
  int64_t cb_message_ns;
  /* the rows strategy: the shortest mean extent a group's region may
   * have (src/rows/rows_group.c) */
  int64_t rows_extent;
  /* darray_concurrent_writers: DARRAY_CONC_* */
  int concurrency;
  /* darray_verify_crc: whole-array reads of .npz members check their
   * CRC-32 (src/format); 1 (enable) unless the hint says disable */
  int verify_crc;
  /* darray_crc_thread: a thread beside a whole-array write of a .npz
   * member computes its CRC share (tri-state; automatic: when the node
   * runs fewer of the file's processes than a process has cores) */
  int crc_thread;
  /* nonblocking requests (src/async): how far they may run in the
   * background (DARRAY_ASYNC_*, lowered to what the thread level allows),
   * and the bytes the copies of buffered writes may hold per process */
  int async_mode;
  /* darray_async = thread: when the I/O thread may start a request (0
   * post: at once; 1 wait: once the program waits for, tests or syncs
   * the file's requests, so that a dump's requests are queued together
   * and merge) */
  int async_start;
  int64_t nb_buffer_size;
  /* darray_direct_write (0 disable, 1 enable): the posix and subfiles
   * back ends write
   * whole pages from aligned memory through a descriptor opened with
   * O_DIRECT (io_posix.c), so that the device, not a processor, moves
   * them; two-phase aligns its domains and chunks to pages for it */
  int direct_write;
  /* the mapped strategy (src/mapped): whether it may map the file
   * (DARRAY_TRI_*; automatic: a file system of one node, io_map.c), the
   * most of the file one window maps, and the rates at which a window's
   * pages are made ready for reading and for writing (10^6 bytes of
   * window per second) */
  int map;
  int64_t map_window;
  int64_t map_rd_mbs, map_wr_mbs;
  /* ... and what one window costs besides (mapping, unmapping, the first
   * and last pages), ns */
  int64_t map_rd_window_ns, map_wr_window_ns;
  /* not a hint: whether darray_backend was given (MPI_Info or
   * DARRAYIO_HINTS), so that an explicit posix can be told from the
   * default at a subfile descriptor (io_subfiles_meta.c); the open clears
   * it once used, so that it takes no part in the hints' agreement */
  bool backend_given;
} darray_hints_t;

DARRAY_HIDDEN void darray__hints_default(darray_hints_t *h);
/* After parsing: lower the buffer sizes to darray_temp_limit, if set. */
DARRAY_HIDDEN void darray__hints_apply_limit(darray_hints_t *h);
/* Apply one "key=value;key=value" string; strict: unknown keys are errors
 * (any prefix; the message names the nearest known key). On error writes a
 * message naming the key into msg. */
DARRAY_HIDDEN int darray__hints_parse_string(darray_hints_t *h, const char *s,
                                             char *msg, size_t msglen);
/* Apply the known keys of an MPI_Info: a key of darrayio's prefix
 * (darray__hints_ours) that no hint has is DARRAY_EHINT, the message naming
 * it and the nearest known key; other unknown keys are ignored (MPI's,
 * ROMIO's). */
DARRAY_HIDDEN int darray__hints_from_info(darray_hints_t *h, MPI_Info info,
                                          char *msg, size_t msglen);
/* A file's hints: the defaults, then info's keys, then DARRAYIO_HINTS's,
 * then darray_temp_limit applied (msg: DARRAY_ERRMSG_LEN bytes). */
DARRAY_HIDDEN int darray__hints_load(darray_hints_t *h, MPI_Info info,
                                     char *msg);
/* The value of an enumerated hint (its DARRAY_TRI_*, ...), or -1 when key
 * names none. */
DARRAY_HIDDEN int darray__hints_enum(const darray_hints_t *h, const char *key);
/* Name i of the strategy table (strategies.c), NULL past its end: the
 * values of darray_strategy after auto. */
DARRAY_HIDDEN const char *darray__strategy_name(int i);
/* The strategy table's entries in its order (call/strategies.c says why
 * this order), as X(name): the table takes each darray__strategy_NAME,
 * the core only their names (darray__strategy_name), so that it names no
 * strategy (doc/rooms.md). A strategy's name slot is its NAME here. */
#define DARRAY_STRATEGY_LIST(X)                                                \
  X(direct) X(static) X(rows) X(twophase) X(sieve) X(groups) X(mapped)
/* How many strategies the list names. */
#define DARRAY_STRATEGY_ONE(name) +1
enum { DARRAY_STRATEGY_COUNT = 0 DARRAY_STRATEGY_LIST(DARRAY_STRATEGY_ONE) };
/* Name i of the back-end table (src/io/io.c), NULL past its end: the
 * values of darray_backend. */
DARRAY_HIDDEN const char *darray__io_backend_name(int i);
/* Text value of a hint; returns DARRAY_EHINT for unknown keys. */
DARRAY_HIDDEN int darray__hints_get(const darray_hints_t *h, const char *key,
                                    char *value, size_t len);

/* Whether key has darrayio's own prefix, "darray_". */
DARRAY_HIDDEN bool darray__hints_ours(const char *key);
/* Every hint of h, one "key=value" a line, after the line head, each line
 * begun with "darrayio: ", written to out with one call
 * (DARRAYIO_PRINT_HINTS). */
DARRAY_HIDDEN void darray__hints_print(const darray_hints_t *h,
                                       const char *head, FILE *out);

/* The hint table, entry by entry: how many hints there are, the key of
 * hint i (NULL past the end) and hint i's value in h as a number (an
 * enumerated hint: the index of its value's name). */
DARRAY_HIDDEN int darray__hints_count(void);
DARRAY_HIDDEN const char *darray__hints_key(int i);
DARRAY_HIDDEN int64_t darray__hints_value(const darray_hints_t *h, int i);

#endif /* DARRAYIO_HINTS_H */
