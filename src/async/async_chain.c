/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_chain.c - which requests queued one behind another form a chain
 * that moves as one access (darray__merge_follows, asked by batch_of in
 * async_thread.c): the rules async_merge.c's header states, for whole
 * arrays and for sections, decided locally from the descriptions, the
 * extents and this process's boxes.
 */
#include "async/async_impl.h"

/* Whether two committed descriptions are alike but for the displacement,
 * the memory layout and the element type (resolved fields: the grid and
 * blocks commit chose, the same on every process): sections of one array
 * are boxes in one index space. Elements of one size lie alike in the
 * file and in memory whatever they hold: the library moves their bytes
 * and never looks inside. */
static bool alike(const darray_desc_t *a, const darray_desc_t *b) {
  if (a->nprocs != b->nprocs || a->ndims != b->ndims ||
      a->esize != b->esize || a->q != b->q)
    return false;
  for (int d = 0; d < a->ndims; d++)
    if (a->gsizes[d] != b->gsizes[d] || a->dist[d] != b->dist[d] ||
        a->block[d] != b->block[d] || a->psizes[d] != b->psizes[d] ||
        a->perm[d] != b->perm[d])
      return false;
  return true;
}

void darray__async_box_of(const async_req_t *r, int nd, int64_t *box) {
  for (int d = 0; d < nd; d++) {
    box[d] = r->c.g.start[d];
    box[nd + d] = r->c.g.count[d];
  }
}

/* Sections: p's box meets none of the chain's boxes before it on this
 * process (its own cells stay apart, one buffer each). */
static bool apart_from_chain(const async_req_t *first, const async_req_t *p) {
  int nd = first->c.view.d.ndims;
  int64_t a[2 * DARRAY_MAX_DIMS], b[2 * DARRAY_MAX_DIMS];
  darray__async_box_of(p, nd, a);
  for (const async_req_t *r = first; r != NULL && r != p; r = r->next) {
    darray__async_box_of(r, nd, b);
    if (darray__boxes_meet(a, b, nd))
      return false;
  }
  return true;
}

bool darray__merge_follows(const async_req_t *first, const async_req_t *prev,
                           const async_req_t *p) {
  const xcall_t *c0 = &first->c, *c = &p->c;
  if (first->sync || p->sync || c0->section != c->section ||
      c0->member >= 0 || c->member >= 0 || c0->x.write != c->x.write ||
      !c0->view.committed || !c->view.committed)
    return false;
  if (c0->section) /* sections of one array, each a box of its own */
    return alike(&c0->view.d, &c->view.d) &&
           c0->view.d.disp == c->view.d.disp && apart_from_chain(first, p);
  /* whole arrays, each one where the one before it ends: any shapes,
   * distributions and element sizes (each cell is read through its own
   * array's description, layout.h) */
  return c0->view.d.nprocs == c->view.d.nprocs && prev->hi < INT64_MAX &&
         p->lo == prev->hi;
}
