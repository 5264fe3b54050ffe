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

int64_t darray__layout_copy(const darray_desc_t *a, const section_t *sec,
                            const layout_run_t *run, int64_t b0, int64_t b1,
                            char *user, char *packed, bool to_packed) {
  const int64_t es = a->esize;
  if (run->mem_contig) {
    char *u = user + run->moff + b0;
    if (to_packed)
      memcpy(packed, u, (size_t)(b1 - b0));
    else
      memcpy(u, packed, (size_t)(b1 - b0));
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
  for (int64_t e = b0 / es, end = b1 / es; e < end;) {
    int64_t n = row - e % row; /* elements left in this row */
    if (n > end - e)
      n = end - e;
    char *u = user + run->moff + elem_moff(a, sec, run->depth, e);
    char *p = packed + (e * es - b0);
    if (mstep == es) {
      if (to_packed)
        memcpy(p, u, (size_t)(n * es));
      else
        memcpy(u, p, (size_t)(n * es));
    } else {
      for (int64_t k = 0; k < n; k++, u += mstep, p += es) {
        if (to_packed)
          memcpy(p, u, (size_t)es);
        else
          memcpy(u, p, (size_t)es);
      }
    }
    e += n;
  }
  return b1 - b0;
}
