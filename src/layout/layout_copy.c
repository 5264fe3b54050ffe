/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout_copy.c - move the bytes of (part of) a run between the user's
 * buffer, where they may be strided, and a packed buffer in file order.
 *
 * The elements of a run, in file order, form a box over the file dimensions
 * perm[depth..ndims-1]. The copy walks that box row by row, a row being the
 * fastest file dimensions that are also contiguous in memory, so that each
 * row is one memcpy; when even the fastest dimension is strided in memory,
 * a row is that dimension and its elements are copied one by one.
 *
 * The bytes asked for may begin or end inside an element: a merged
 * access's arrays have elements of different sizes, and a boundary drawn
 * in the file for all of them (a two-phase domain, a buffer's end) need
 * not fall between elements of each. The elements at the ends are then
 * copied in part.
 */
#include "layout/layout.h"

#include <string.h>

/* Memory offset (relative to the run's first element) of element e of the
 * run, e counted in file order. */
static int64_t elem_moff(const darray_desc_t *a, const section_t *sec,
                         int depth, int64_t e) {
  int64_t off = 0;
  for (int i = a->ndims - 1; i > depth; i--) {
    int d = a->perm[i];
    off += (e % a->gsizes[d]) * sec->mem_stride[d];
    e /= a->gsizes[d];
  }
  return off + e * sec->mem_stride[a->perm[depth]];
}

static void move(char *u, char *p, int64_t n, bool to_packed) {
  if (to_packed)
    memcpy(p, u, (size_t)n);
  else
    memcpy(u, p, (size_t)n);
}

/* Bytes [x0, x1) of the run, elements e.. of which lie from u on in the
 * user's buffer, every element's bytes together (mstep = es: one stretch)
 * or each element on its own (mstep apart); packed holds byte b0. */
static void move_row(char *u, int64_t e, int64_t n, int64_t es,
                     int64_t mstep, int64_t x0, int64_t x1, char *packed,
                     int64_t b0, bool to_packed) {
  if (mstep == es) {
    int64_t s0 = e * es;
    move(u + (x0 - s0), packed + (x0 - b0), x1 - x0, to_packed);
    return;
  }
  for (int64_t k = 0; k < n; k++, u += mstep) {
    int64_t s0 = (e + k) * es, lo = s0 > x0 ? s0 : x0;
    int64_t hi = s0 + es < x1 ? s0 + es : x1;
    move(u + (lo - s0), packed + (lo - b0), hi - lo, to_packed);
  }
}

int64_t darray__layout_copy(const darray_desc_t *a, const section_t *sec,
                            const layout_run_t *run, int64_t b0, int64_t b1,
                            char *user, char *packed, bool to_packed) {
  a = darray__cell_desc(a, sec);
  const int64_t es = a->esize;
  if (run->mem_contig) {
    move(user + run->moff + b0, packed, b1 - b0, to_packed);
    return b1 - b0;
  }
  /* A row: the fastest file dimensions that are also contiguous in
   * memory (for BT's buffer, a whole x-row of 5-double points). */
  int fast = a->ndims - 1, i = fast;
  int64_t row = 1, expect = es;
  for (; i > run->depth && sec->mem_stride[a->perm[i]] == expect; i--) {
    row *= a->gsizes[a->perm[i]];
    expect *= a->gsizes[a->perm[i]];
  }
  int64_t mstep = es; /* memory step between a row's elements */
  if (row == 1) {      /* fastest dimension strided in memory */
    mstep = sec->mem_stride[a->perm[fast]];
    row = run->depth == fast ? run->len / es : a->gsizes[a->perm[fast]];
  }
  /* the elements b0 and b1 fall in, the last one if in part */
  for (int64_t e = b0 / es, end = b1 / es + (b1 % es != 0); e < end;) {
    int64_t n = row - e % row; /* elements left in this row */
    if (n > end - e)
      n = end - e;
    char *u = user + run->moff + elem_moff(a, sec, run->depth, e);
    int64_t x0 = e * es > b0 ? e * es : b0;
    int64_t x1 = (e + n) * es < b1 ? (e + n) * es : b1;
    move_row(u, e, n, es, mstep, x0, x1, packed, b0, to_packed);
    e += n;
  }
  return b1 - b0;
}
