/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc.h - the CRC-32 room (doc/rooms.md), below the strategies and the
 * format: CRC-32 of pieces placed in a message (crc.c), the register fed
 * by carry-less multiplication or zlib (crc_clmul.c), and each process's
 * share of a dataset member's CRC (crc_share.c), which the strategies feed
 * (crc/crc_share.h) and src/format combines at close.
 */
#ifndef DARRAYIO_CRC_H
#define DARRAYIO_CRC_H

#include "array.h"
#include "file.h"
#include "crc/crc_share.h"

#include <sys/uio.h>

/* ---- crc.c: CRC-32 (zlib's) of pieces placed in a message. With
 * F = 0xffffffff, crc(X) = R(X) ^ crc(0^n) for X of n bytes, R linear:
 * the R of a message is the XOR of the R of its pieces, each in place in
 * zeros (doc/formats.md). */

/* T_n(c): c times x^(8n) modulo the CRC polynomial. */
DARRAY_HIDDEN uint32_t darray__crc_shift(uint32_t c, int64_t n);
/* crc(0^n). */
DARRAY_HIDDEN uint32_t darray__crc_zeros(int64_t n);
/* CRC-32 of n bytes. */
DARRAY_HIDDEN uint32_t darray__crc_bytes(const void *p, int64_t n);
/* A piece of a message: n bytes at p, at message offset off. */
typedef struct crc_piece {
  int64_t off;
  const void *p;
  int64_t n;
} crc_piece_t;
/* R of a message whose pieces are added in increasing offset order. */
typedef struct crc_acc {
  uint32_t r;  /* R of bytes [0, pos) with what was added in place */
  int64_t pos;
  int64_t gap;   /* the last gap shifted over (-1: none yet) and */
  uint32_t xgap; /* x^(8 gap) mod P: equal gaps cost one product each */
} crc_acc_t;
#define DARRAY_CRC_ACC_INIT {0, 0, -1, 0}
/* Add n bytes at message offset off >= acc->pos. */
DARRAY_HIDDEN void darray__crc_acc_add(crc_acc_t *acc, int64_t off,
                                       const void *p, int64_t n);
/* Add the n pieces of iov (total bytes), one after another from message
 * offset off >= acc->pos. */
DARRAY_HIDDEN void darray__crc_acc_addv(crc_acc_t *acc, int64_t off,
                                        const struct iovec *iov, int n,
                                        int64_t total);
/* R of the whole message of length len >= acc->pos. */
/* Add the n pieces pc (format above: offsets increasing, zeros between
 * them), pc[0].off >= acc->pos. */
DARRAY_HIDDEN void darray__crc_acc_add_pieces(crc_acc_t *acc,
                                              const crc_piece_t *pc, int n);
DARRAY_HIDDEN uint32_t darray__crc_acc_end(const crc_acc_t *acc,
                                           int64_t len);
/* CRC-32 of a member: its header's CRC, the XOR of its data's R and the
 * data's length. */
DARRAY_HIDDEN uint32_t darray__crc_member(uint32_t hdr_crc, uint32_t r,
                                          int64_t len);

/* ---- crc_clmul.c: the CRC register (no inversion) after feeding n
 * bytes from register r; by carry-less multiplication where the processor
 * has it (darray__crc_feed picks), or by zlib. */
DARRAY_HIDDEN uint32_t darray__crc_feed(uint32_t r, const void *p,
                                        int64_t n);
DARRAY_HIDDEN uint32_t darray__crc_feed_zlib(uint32_t r, const void *p,
                                             int64_t n);
/* The register after feeding the n pieces of iov, one after another in the
 * message, from register r: with one folding state across pieces on the
 * wide path, else piece by piece. */
DARRAY_HIDDEN uint32_t darray__crc_feed_vec(uint32_t r,
                                            const struct iovec *iov, int n);
/* The register after feeding the n pieces pc (offsets increasing, none
 * overlapping, zeros between them) from register r at pc[0].off: with one
 * folding state across pieces and gaps on the wide path (a gap of whole
 * blocks costs one fold), else piece by piece (_narrow). */
DARRAY_HIDDEN uint32_t darray__crc_feed_pieces(uint32_t r,
                                               const crc_piece_t *pc, int n);
DARRAY_HIDDEN uint32_t darray__crc_feed_pieces_narrow(uint32_t r,
                                                      const crc_piece_t *pc,
                                                      int n);
/* The constants that fold a 128-bit lane over d more bits (d a multiple
 * of 8, at least 8): refl_32(x^(d+63) mod P) << 32, refl_32(x^(d-1) mod P)
 * << 32 (the wide path's zeros; crc_clmul_k[8..9] for d = 2048). */
DARRAY_HIDDEN void darray__crc_fold_consts(int64_t d, uint64_t c[2]);
/* Only where darray__crc_wide_available() (AVX-512 and VPCLMULQDQ): the
 * same on 512-bit registers. */
DARRAY_HIDDEN uint32_t darray__crc_feed_wide(uint32_t r, const void *p,
                                             int64_t n);
DARRAY_HIDDEN bool darray__crc_wide_available(void);
/* Only where darray__crc_clmul_available(). */
DARRAY_HIDDEN uint32_t darray__crc_feed_clmul(uint32_t r, const void *p,
                                              int64_t n);
DARRAY_HIDDEN bool darray__crc_clmul_available(void);
/* a times b modulo the CRC polynomial, both reflected (bit 31: x^0). */
DARRAY_HIDDEN uint32_t darray__crc_mulmod(uint32_t a, uint32_t b);
/* The folding constants (crc_clmul.c), for the unit test. */
DARRAY_HIDDEN extern const uint64_t darray__crc_clmul_k[10];

/* ---- crc_share.c: a call's share of a member's CRC */

/* How one whole-array write of a member gets this process's share of the
 * member's CRC (darray__format_begin decides, the same way on every
 * process for STRATEGY; a checked read: STRATEGY, from the bytes as read,
 * or AFTER):
 *  - STRATEGY: the strategy feeds it from the bytes it writes, as it
 *    writes them (two-phase's aggregators: their contiguous chunks, one
 *    CRC run per chunk instead of one per owner's run);
 *  - THREAD: a thread beside the write feeds it from the owners' runs in
 *    the caller's buffer, which the write only reads (blocking calls, when
 *    the node has a core to spare or darray_crc_thread says so);
 *  - AFTER: the owners' runs, after the write, in the calling thread;
 *  - RUNS (a checked read by a strategy without crc_share): the owners'
 *    runs, fed as the strategy says they have arrived
 *    (darray__xfer_crc_through: sieve's and mapped's windows), the rest
 *    after the run. */
enum { CRC_SHARE_NONE = 0, CRC_SHARE_STRATEGY, CRC_SHARE_THREAD,
       CRC_SHARE_AFTER, CRC_SHARE_RUNS };
typedef struct crc_share {
  int how;          /* CRC_SHARE_* */
  int64_t lo, len;  /* the member's data: file offset, bytes */
  crc_acc_t acc;    /* STRATEGY, RUNS: what was fed, at member offsets */
  int64_t fed;      /* RUNS: the runs before this file offset were fed */
  bool lost;        /* STRATEGY: bytes not the call's were written */
  /* THREAD: the job and its result */
  const struct darray_s *view;
  const char *buf;
  uint32_t r;
  int rc;
} crc_share_t;
/* THREAD: start the job in a pool thread (src/pool.c);
 * false when none could be had (then the caller feeds it AFTER). */
DARRAY_HIDDEN bool darray__crc_share_start(crc_share_t *sh);
/* THREAD: wait for the job's end. */
DARRAY_HIDDEN void darray__crc_share_join(crc_share_t *sh);


/* This process's share of R(data) of the member at whose offset view (an
 * array description at the member's place) lies: its cells' runs, read
 * from buf (strided runs through a bounded copy). */
DARRAY_HIDDEN int darray__crc_runs(const struct darray_s *view,
                                          const char *buf, int64_t data_off,
                                          int64_t data_len, uint32_t *r);
/* RUNS: the runs not fed yet, then this process's share of R(data) into
 * *r; an error of any feed (out of memory). */
DARRAY_HIDDEN int darray__crc_runs_end(crc_share_t *sh, uint32_t *r);
/* This process's share of R(data) of the bytes bytes at file offset
 * offset (a member's data), read from the file: an equal slice per
 * process, through a buffer of bufsize bytes. */
DARRAY_HIDDEN int darray__crc_readback(struct darray_file_s *f, int64_t offset,
                                       int64_t bytes, int64_t bufsize,
                                       uint32_t *r);

#endif /* DARRAYIO_CRC_H */
