/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout_runs.c - the file runs of a rank, in file order.
 *
 * A cell is a box of per-dimension index sets. Walking the file dimensions
 * from the fastest, every dimension the cell covers completely merges into
 * the run; the first one it does not cover (the run dimension, at file-order
 * position `depth`) contributes one block per run. So a run is one block of
 * the run dimension times the full extent of every faster dimension, and the
 * runs of a cell are enumerated by an odometer over the slower dimensions'
 * indices and the run dimension's blocks: O(ndims) state, no lists.
 * Their numbers in closed form, from the odometer: layout_forms.c.
 */
#include "layout/layout.h"

#include <stdlib.h>
#include <string.h>

static bool set_is_full(const dist_set_t *s, int64_t n) {
  return s->count == 1 && s->first == 0 && s->block == n;
}

static int run_depth(const darray_desc_t *a, const section_t *sec) {
  int depth = a->ndims - 1;
  while (depth > 0 && set_is_full(&sec->set[a->perm[depth]],
                                  a->gsizes[a->perm[depth]]))
    depth--;
  return depth;
}

/* Whether walking a run in file order walks the buffer contiguously. */
static bool runs_mem_contig(const darray_desc_t *a, const section_t *sec,
                            int depth) {
  int64_t expect = a->esize;
  for (int i = a->ndims - 1; i >= depth; i--) {
    int d = a->perm[i];
    if (sec->mem_stride[d] != expect)
      return false;
    expect *= a->gsizes[d];
  }
  return true;
}

bool darray__layout_mem_contig(const darray_desc_t *a, const section_t *sec) {
  a = darray__cell_desc(a, sec);
  for (int d = 0; d < a->ndims; d++)
    if (sec->set[d].count == 0)
      return true; /* no runs at all */
  return runs_mem_contig(a, sec, run_depth(a, sec));
}

void darray__layout_secit_init(layout_secit_t *it, const darray_desc_t *a,
                               const section_t *sec) {
  a = darray__cell_desc(a, sec);
  it->depth = run_depth(a, sec);
  it->mem_contig = runs_mem_contig(a, sec, it->depth);
  it->done = false;
  it->base_ok = false;
  it->dirty = it->depth;
  for (int d = 0; d < a->ndims; d++) {
    if (sec->set[d].count == 0)
      it->done = true;
    it->pos[d] = 0;
  }
}

/* The offsets of the slower dimensions from dimension `from` on, from
 * their global indices (g) and positions. */
static void secit_base(layout_secit_t *it, const darray_desc_t *a,
                       const section_t *sec, int from) {
  int64_t foff = from > 0 ? it->pf[from - 1] : a->disp;
  int64_t moff = from > 0 ? it->pm[from - 1] : sec->mem_base;
  for (int i = from; i < it->depth; i++) {
    int d = a->perm[i];
    foff += it->g[i] * a->fstride[d];
    moff += it->pos[i] * sec->mem_stride[d];
    it->pf[i] = foff;
    it->pm[i] = moff;
  }
  it->base_foff = foff;
  it->base_moff = moff;
  it->dirty = it->depth;
}

/* The run at the iterator's current position. The offsets of the slower
 * dimensions are kept per dimension, and the odometer moves their global
 * indices by addition (secit_advance), so a run whose row moved by one
 * costs one dimension's offsets; after a jump (base_ok false: the
 * positions were set from outside) every global index is computed. */
void darray__layout_secit_run(layout_secit_t *it, const darray_desc_t *a,
                              const section_t *sec, int secno,
                              layout_run_t *r) {
  a = darray__cell_desc(a, sec);
  if (!it->base_ok) {
    for (int i = 0; i < it->depth; i++) {
      const dist_set_t *s = &sec->set[a->perm[i]];
      it->g[i] = darray__dist_set_global(s, it->pos[i]);
      it->t[i] = it->pos[i] % s->block;
    }
    secit_base(it, a, sec, 0);
    it->base_ok = true;
  } else if (it->dirty < it->depth) {
    secit_base(it, a, sec, it->dirty);
  }
  int64_t foff = it->base_foff, moff = it->base_moff;
  int d = a->perm[it->depth];
  const dist_set_t *s = &sec->set[d];
  int64_t j = it->pos[it->depth];
  int64_t blen = j == s->count - 1 ? s->last : s->block;
  r->foff = foff + (s->first + j * s->stride) * a->fstride[d];
  r->moff = moff + j * s->block * sec->mem_stride[d];
  r->len = blen * a->fstride[d];
  r->sec = secno;
  r->depth = it->depth;
  r->mem_contig = it->mem_contig;
}

/* Slower dimension i (< depth) moved to its next position (next), or
 * back to its first: its global index follows by addition (the next
 * block starts stride - block + 1 after a block's last index). */
static void secit_moved(layout_secit_t *it, const dist_set_t *s, int i,
                        bool next) {
  if (!next) {
    it->g[i] = s->first;
    it->t[i] = 0;
  } else if (++it->t[i] == s->block) {
    it->t[i] = 0;
    it->g[i] += s->stride - s->block + 1;
  } else {
    it->g[i]++;
  }
  if (i < it->dirty)
    it->dirty = i;
}

static void secit_advance(layout_secit_t *it, const darray_desc_t *a,
                          const section_t *sec) {
  a = darray__cell_desc(a, sec);
  for (int i = it->depth; i >= 0; i--) {
    const dist_set_t *s = &sec->set[a->perm[i]];
    int64_t lim = i == it->depth ? s->count : darray__dist_set_size(s);
    bool next = ++it->pos[i] < lim;
    if (!next)
      it->pos[i] = 0;
    if (i < it->depth && it->base_ok) /* a slower dimension moves */
      secit_moved(it, s, i, next);
    if (next)
      return;
  }
  it->done = true;
}

static void refill(layout_iter_t *it, int s) {
  layout_secit_t *si = &it->it[s];
  if (si->done) {
    it->head[s].len = -1;
    return;
  }
  darray__layout_secit_run(si, it->a, &it->sec[s], s, &it->head[s]);
  secit_advance(si, it->a, &it->sec[s]);
}

int darray__layout_iter_init(layout_iter_t *it, const darray_desc_t *a,
                             const section_t *sec, int nsec) {
  it->a = a;
  it->sec = sec;
  it->nsec = nsec;
  it->it = malloc((size_t)(nsec > 0 ? nsec : 1) * sizeof *it->it);
  it->head = malloc((size_t)(nsec > 0 ? nsec : 1) * sizeof *it->head);
  if (it->it == NULL || it->head == NULL) {
    darray__layout_iter_free(it);
    return DARRAY_ENOMEM;
  }
  for (int s = 0; s < nsec; s++) {
    darray__layout_secit_init(&it->it[s], a, &sec[s]);
    refill(it, s);
  }
  it->ordered = darray__layout_cells_ordered(a, sec, nsec);
  it->packed = it->ordered;
  for (int s = 0; s < nsec && it->packed; s++)
    it->packed = darray__layout_file_packed(a, &sec[s]);
  return DARRAY_SUCCESS;
}

bool darray__layout_next(layout_iter_t *it, layout_run_t *run) {
  int best = -1;
  for (int s = 0; s < it->nsec; s++)
    if (it->head[s].len >= 0 &&
        (best < 0 || it->head[s].foff < it->head[best].foff))
      best = s;
  if (best < 0)
    return false;
  *run = it->head[best];
  refill(it, best);
  return true;
}

void darray__layout_iter_free(layout_iter_t *it) {
  free(it->it);
  free(it->head);
  it->it = NULL;
  it->head = NULL;
}

/* ------------------------------------------------------------------------ */
/* Seeking: position an iterator on the first run that ends after a file
 * offset, from the distribution alone (no scan from the start). */

/* Smallest local index whose global index is >= g, or the set size. */
static int64_t set_lower_bound(const dist_set_t *s, int64_t g) {
  if (s->count == 0 || g <= s->first)
    return 0;
  int64_t j = (g - s->first) / s->stride;
  if (j >= s->count)
    return darray__dist_set_size(s);
  int64_t t = g - s->first - j * s->stride;
  int64_t blen = j == s->count - 1 ? s->last : s->block;
  if (t < blen)
    return j * s->block + t;
  return j + 1 >= s->count ? darray__dist_set_size(s) : (j + 1) * s->block;
}

/* Smallest block number whose block ends after global index g, or count. */
static int64_t block_lower_bound(const dist_set_t *s, int64_t g) {
  if (s->count == 0 || g < s->first)
    return 0;
  int64_t j = (g - s->first) / s->stride;
  if (j >= s->count)
    return s->count;
  int64_t blen = j == s->count - 1 ? s->last : s->block;
  return g < s->first + j * s->stride + blen ? j : j + 1;
}

/* Lexicographic search over the odometer for the first position at or
 * after the coordinates c (in file order). */
static void secit_seek(layout_secit_t *it, const darray_desc_t *a,
                       const section_t *sec, const int64_t c[]) {
  int i = 0;
  it->base_ok = false;
  bool exact = true; /* positions 0..i-1 equal c so far */
  while (i >= 0 && i <= it->depth) {
    const dist_set_t *s = &sec->set[a->perm[i]];
    int64_t lim = i == it->depth ? s->count : darray__dist_set_size(s);
    int64_t p;
    if (!exact)
      p = it->pos[i] + 1; /* backtracking: the next position here */
    else if (i == it->depth)
      p = block_lower_bound(s, c[i]);
    else
      p = set_lower_bound(s, c[i]);
    if (p >= lim) { /* nothing here: advance the previous dimension */
      exact = false;
      i--;
      continue;
    }
    it->pos[i] = p;
    if (i < it->depth && exact &&
        darray__dist_set_global(s, p) == c[i]) {
      i++;
      continue;
    }
    for (int k = i + 1; k <= it->depth; k++) /* strictly after: minimal */
      it->pos[k] = 0;
    return;
  }
  it->done = i < 0;
}

/* Position one cell's odometer on its first run that ends after file
 * offset off; c holds off's coordinates in file order
 * (darray__layout_file_coords). */
void darray__layout_secit_at(layout_secit_t *it, const darray_desc_t *a,
                             const section_t *sec, int64_t off,
                             const int64_t c[]) {
  int64_t cc[DARRAY_MAX_DIMS];
  if (a->parts != NULL) { /* c is for the merged call: the cell's array
                             has coordinates of its own */
    a = darray__cell_desc(a, sec);
    darray__layout_file_coords(a, off, cc);
    c = cc;
  }
  int64_t rel = off - a->disp;
  int64_t total = a->fstride[a->perm[0]] * a->gsizes[a->perm[0]];
  darray__layout_secit_init(it, a, sec);
  if (rel >= total)
    it->done = true;
  else if (rel > 0 && !it->done)
    secit_seek(it, a, sec, c);
}

void darray__layout_file_coords(const darray_desc_t *a, int64_t off,
                                int64_t c[]) {
  int64_t rel = off - a->disp;
  for (int i = 0; i < a->ndims; i++) {
    int d = a->perm[i];
    c[i] = rel <= 0 ? 0 : (rel / a->fstride[d]) % a->gsizes[d];
  }
}

void darray__layout_seek(layout_iter_t *it, int64_t off) {
  int64_t c[DARRAY_MAX_DIMS];
  darray__layout_file_coords(it->a, off, c);
  for (int s = 0; s < it->nsec; s++) {
    darray__layout_secit_at(&it->it[s], it->a, &it->sec[s], off, c);
    refill(it, s);
  }
}

/* The part of run r inside [lo, hi), between the user buffer and win. */
static int64_t copy_run_window(const darray_desc_t *a, const section_t *sec,
                               const layout_run_t *r, int64_t lo, int64_t hi,
                               char *user, char *win, bool to_win) {
  int64_t b0 = lo > r->foff ? lo - r->foff : 0;
  int64_t b1 = hi - r->foff < r->len ? hi - r->foff : r->len;
  if (b1 <= b0)
    return 0;
  char *w = win + (r->foff + b0 - lo);
  if (!r->mem_contig)
    darray__layout_copy(a, sec, r, b0, b1, user, w, to_win);
  else if (to_win)
    memcpy(w, user + (r->moff + b0), (size_t)(b1 - b0));
  else
    memcpy(user + (r->moff + b0), w, (size_t)(b1 - b0));
  return b1 - b0;
}

/* The runs of one cell inside [lo, hi), row by row of the odometer: the
 * blocks of the run dimension in one row are equally spaced in the file
 * and in the buffer, so a row is walked with two additions per run instead
 * of an iterator step (the sieve's windows hold thousands of short runs).
 * The step is taken only to a block that exists: one stride past a row's
 * last block may lie beyond INT64_MAX when the array ends near it. */
static int64_t copy_cell_window(const darray_desc_t *a,
                                const section_t *sec, int secno, int64_t lo,
                                int64_t hi, const int64_t c[], char *user,
                                char *win, bool to_win) {
  layout_secit_t it;
  int64_t n = 0;
  darray__layout_secit_at(&it, a, sec, lo, c);
  if (it.done)
    return 0;
  a = darray__cell_desc(a, sec);
  int dim = a->perm[it.depth];
  const dist_set_t *rs = &sec->set[dim];
  int64_t fstep = rs->stride * a->fstride[dim];
  int64_t mstep = rs->block * sec->mem_stride[dim];
  while (!it.done) {
    layout_run_t r;
    darray__layout_secit_run(&it, a, sec, secno, &r);
    for (int64_t j = it.pos[it.depth];; j++) {
      if (r.foff >= hi)
        return n; /* the cell's later runs lie further on */
      r.len = (j == rs->count - 1 ? rs->last : rs->block) * a->fstride[dim];
      n += copy_run_window(a, sec, &r, lo, hi, user, win, to_win);
      if (j + 1 >= rs->count)
        break;
      r.foff += fstep;
      r.moff += mstep;
    }
    it.pos[it.depth] = rs->count - 1; /* on to the next row */
    secit_advance(&it, a, sec);
  }
  return n;
}

int64_t darray__layout_copy_window(const darray_desc_t *a,
                                   const section_t *sec, int nsec, int64_t lo,
                                   int64_t hi, char *user, char *win,
                                   bool to_win) {
  int64_t c[DARRAY_MAX_DIMS], n = 0;
  darray__layout_file_coords(a, lo, c);
  for (int s = 0; s < nsec; s++) /* cells never share a byte */
    n += copy_cell_window(a, &sec[s], s, lo, hi, c, user, win, to_win);
  return n;
}
