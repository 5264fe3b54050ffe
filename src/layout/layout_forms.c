/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout_forms.c - the numbers of a rank's runs in closed form: their
 * extent, count, bytes and shortest and longest run, the bytes before a
 * file offset, whether cells follow one another in the file or lie packed
 * in their buffers. No run is walked: each cell's odometer (layout_runs.c)
 * is only positioned and read.
 */
#include "layout/layout.h"

/* Cell sec's description, its odometer at its first run; NULL for an
 * empty cell. */
static const darray_desc_t *cell_first(const darray_desc_t *a,
                                       const section_t *sec,
                                       layout_secit_t *it) {
  a = darray__cell_desc(a, sec);
  darray__layout_secit_init(it, a, sec);
  return it->done ? NULL : a;
}

int darray__layout_extent(const darray_desc_t *a, const section_t *sec,
                          int nsec, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  bool any = false;
  for (int s = 0; s < nsec; s++) {
    layout_secit_t it;
    const darray_desc_t *d = cell_first(a, &sec[s], &it);
    if (d == NULL)
      continue;
    layout_run_t first, last;
    darray__layout_secit_run(&it, d, &sec[s], s, &first);
    for (int i = 0; i <= it.depth; i++) { /* the odometer's last position */
      const dist_set_t *set = &sec[s].set[d->perm[i]];
      it.pos[i] = (i == it.depth ? set->count : darray__dist_set_size(set)) - 1;
    }
    it.base_ok = false;
    darray__layout_secit_run(&it, d, &sec[s], s, &last);
    if (!any || first.foff < *lo)
      *lo = first.foff;
    if (!any || last.foff + last.len > *hi)
      *hi = last.foff + last.len;
    any = true;
  }
  return DARRAY_SUCCESS;
}

bool darray__layout_cells_ordered(const darray_desc_t *a,
                                  const section_t *sec, int nsec) {
  int64_t end = INT64_MIN;
  for (int s = 0; s < nsec; s++) {
    int64_t lo, hi;
    darray__layout_extent(a, &sec[s], 1, &lo, &hi);
    if (lo == hi)
      continue; /* empty */
    if (lo < end)
      return false;
    end = hi;
  }
  return true;
}

void darray__layout_count(const darray_desc_t *a, const section_t *sec,
                          int nsec, int64_t *nruns, int64_t *bytes) {
  *nruns = *bytes = 0;
  for (int s = 0; s < nsec; s++) {
    layout_secit_t it;
    const darray_desc_t *c = cell_first(a, &sec[s], &it);
    if (c == NULL)
      continue;
    int64_t n = sec[s].set[c->perm[it.depth]].count, b = c->esize;
    for (int i = 0; i < it.depth; i++)
      n *= darray__dist_set_size(&sec[s].set[c->perm[i]]);
    for (int d = 0; d < c->ndims; d++)
      b *= darray__dist_set_size(&sec[s].set[d]);
    *nruns += n;
    *bytes += b;
  }
}

void darray__layout_summary(const darray_desc_t *a, const section_t *sec,
                            int nsec, layout_summary_t *sum) {
  *sum = (layout_summary_t){0, 0, 0, 0, 0, 0};
  darray__layout_count(a, sec, nsec, &sum->nruns, &sum->bytes);
  darray__layout_extent(a, sec, nsec, &sum->lo, &sum->hi);
  for (int s = 0; s < nsec; s++) {
    layout_secit_t it;
    const darray_desc_t *d = cell_first(a, &sec[s], &it);
    if (d == NULL)
      continue;
    const dist_set_t *set = &sec[s].set[d->perm[it.depth]];
    int64_t unit = d->fstride[d->perm[it.depth]];
    int64_t lmin = set->last < set->block ? set->last : set->block;
    if (sum->min_run == 0 || lmin * unit < sum->min_run)
      sum->min_run = lmin * unit;
    int64_t lmax = set->count > 1 ? set->block : set->last;
    if (lmax * unit > sum->max_run)
      sum->max_run = lmax * unit;
  }
}

/* ------------------------------------------------------------------------ */
/* Closed forms over file ranges (two-phase streams): no run is walked.     */

/* Bytes of one cell's runs before file offset x; c: x's coordinates. */
static int64_t cell_bytes_before(const darray_desc_t *a, const section_t *sec,
                                 int64_t x, const int64_t c[]) {
  layout_secit_t it;
  const darray_desc_t *m = a; /* the call's: secit_at takes c for it */
  if ((a = cell_first(m, sec, &it)) == NULL)
    return 0; /* an empty cell */
  int dim = a->perm[it.depth];
  const dist_set_t *rs = &sec->set[dim];
  int64_t rowbytes = darray__dist_set_size(rs) * a->fstride[dim];
  int64_t rows = 1;
  for (int i = 0; i < it.depth; i++)
    rows *= darray__dist_set_size(&sec->set[a->perm[i]]);
  darray__layout_secit_at(&it, m, sec, x, c);
  if (it.done)
    return rows * rowbytes; /* every run lies before x */
  int64_t before = 0; /* whole rows before the position, mixed radix */
  for (int i = 0; i < it.depth; i++)
    before = before * darray__dist_set_size(&sec->set[a->perm[i]]) +
             it.pos[i];
  int64_t bytes = before * rowbytes + it.pos[it.depth] * rs->block *
                                          a->fstride[dim];
  layout_run_t r;
  darray__layout_secit_run(&it, a, sec, 0, &r);
  return bytes + (x > r.foff ? x - r.foff : 0); /* a run across x */
}

int64_t darray__layout_bytes_before(const darray_desc_t *a,
                                    const section_t *sec, int nsec,
                                    int64_t x) {
  int64_t c[DARRAY_MAX_DIMS], sum = 0;
  darray__layout_file_coords(a, x, c);
  for (int s = 0; s < nsec; s++)
    sum += cell_bytes_before(a, &sec[s], x, c);
  return sum;
}

bool darray__layout_file_packed(const darray_desc_t *a,
                                const section_t *sec) {
  a = darray__cell_desc(a, sec);
  int64_t expect = a->esize;
  for (int i = a->ndims - 1; i >= 0; i--) {
    int d = a->perm[i];
    int64_t n = darray__dist_set_size(&sec->set[d]);
    if (n == 0)
      return true; /* no bytes at all */
    if (n > 1 && sec->mem_stride[d] != expect)
      return false;
    expect *= n;
  }
  return true;
}

void darray__layout_pack_section(const darray_desc_t *a, const section_t *in,
                                 int64_t base, section_t *out) {
  a = darray__cell_desc(a, in);
  *out = *in;
  int64_t stride = a->esize;
  for (int i = a->ndims - 1; i >= 0; i--) {
    int d = a->perm[i];
    out->mem_stride[d] = stride;
    stride *= darray__dist_set_size(&in->set[d]);
  }
  out->mem_base = base;
  out->alloc_bytes = stride;
}
