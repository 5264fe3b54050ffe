/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * crc_share.h - what a strategy's run feeds the CRC room: the bytes it
 * moved, for this process's share of a dataset member's CRC-32 (xfer_t.crc,
 * crc_share.c), which src/format combines. The strategies that feed a
 * share (crc_share in their table entry) include this header, not the
 * whole of crc.h, and call no room above the strategies (doc/rooms.md).
 */
#ifndef DARRAYIO_CRC_SHARE_H
#define DARRAYIO_CRC_SHARE_H

#include "strategy.h"

/* Bytes [foff, foff + n) of the file, which this call writes from p (or
 * has read into p), into its CRC share (x->crc; nothing when NULL). Calls
 * come in increasing file order. A strategy that writes bytes which are not
 * the call's (the holes of a chunk written back) calls
 * darray__xfer_crc_lost instead: the member is then read back for its CRC
 * at close. */
DARRAY_HIDDEN void darray__xfer_crc(xfer_t *x, int64_t foff, const void *p,
                                    int64_t n);
DARRAY_HIDDEN void darray__xfer_crc_lost(xfer_t *x);
/* The same for the n pieces of iov, one after another from foff. */
/* Whether the call feeds a CRC share from what it moves (x->crc, the CRC
 * room's own: a strategy asks this, and does not look at it). */
DARRAY_HIDDEN bool darray__xfer_crc_fed(const xfer_t *x);
DARRAY_HIDDEN void darray__xfer_crc_vec(xfer_t *x, int64_t foff,
                                        const struct iovec *iov, int n);
/* A checked whole read by a strategy without crc_share: this process's
 * runs up to file offset hi are in the call's buffer; their share of the
 * CRC is fed now, while they are in the cache (runs before hi not fed yet,
 * clipped at hi; nothing when the call has no such share). Calls come
 * with increasing hi; what no call fed is fed after the run. */
DARRAY_HIDDEN void darray__xfer_crc_through(xfer_t *x, int64_t hi);
/* The file range a strategy copies out of a large window before it calls
 * darray__xfer_crc_through, so that the runs copied are still in the
 * cache (a core's 1 MiB L2 here holds half of it twice over). */
#define DARRAY_CRC_SLICE (INT64_C(512) << 10)

#endif /* DARRAYIO_CRC_SHARE_H */
