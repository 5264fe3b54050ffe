/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * tp_walk.c - the pieces of a process's runs inside a chunk, in file order.
 *
 * Both ends of a two-phase exchange walk the same pieces in the same order
 * (the owner its own runs, the aggregator the owner's runs computed from
 * the distribution), so the byte stream between them needs no description.
 */
#include "twophase.h"

static void clip(pwalk_t *w) {
  w->b0 = w->run.foff < w->lo ? w->lo - w->run.foff : 0;
  w->b1 = w->run.foff + w->run.len > w->hi ? w->hi - w->run.foff
                                           : w->run.len;
}

void darray__tp_walk_next(pwalk_t *w) {
  w->valid = darray__layout_next(w->it, &w->run) && w->run.foff < w->hi;
  if (w->valid)
    clip(w);
}

void darray__tp_walk_start(pwalk_t *w, layout_iter_t *it, int64_t lo,
                           int64_t hi) {
  w->it = it;
  w->lo = lo;
  w->hi = hi;
  w->valid = false;
  if (lo >= hi)
    return;
  darray__layout_seek(it, lo);
  darray__tp_walk_next(w);
}

int64_t darray__tp_stream_bytes(const layout_iter_t *it, int64_t lo,
                                int64_t hi) {
  if (lo >= hi)
    return 0;
  return darray__layout_bytes_before(it->a, it->sec, it->nsec, hi) -
         darray__layout_bytes_before(it->a, it->sec, it->nsec, lo);
}

int64_t darray__tp_stream(layout_iter_t *it, int64_t lo, int64_t hi,
                          bool *contig, int64_t *first) {
  int64_t bytes = 0, end = 0;
  *contig = true;
  *first = 0;
  if (it->packed) {
    /* each cell one dense stretch of the buffer in file order, the cells
     * one after another in the file: closed form, cell by cell */
    for (int s = 0; s < it->nsec && lo < hi; s++) {
      int64_t b0 = darray__layout_bytes_before(it->a, &it->sec[s], 1, lo);
      int64_t n =
          darray__layout_bytes_before(it->a, &it->sec[s], 1, hi) - b0;
      int64_t m = it->sec[s].mem_base + b0;
      if (n == 0)
        continue;
      if (bytes == 0)
        *first = m;
      else if (m != end)
        *contig = false;
      end = m + n;
      bytes += n;
    }
    return bytes;
  }
  pwalk_t w;
  for (darray__tp_walk_start(&w, it, lo, hi); w.valid;
       darray__tp_walk_next(&w)) {
    int64_t m = w.run.moff + w.b0;
    if (bytes == 0)
      *first = m;
    else if (m != end)
      *contig = false;
    *contig = *contig && w.run.mem_contig;
    end = m + (w.b1 - w.b0);
    bytes += w.b1 - w.b0;
  }
  return bytes;
}
