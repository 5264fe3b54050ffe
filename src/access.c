/*
 * access.c - what one call accesses: the array's own cells for whole-array
 * calls, one dense box per process for section calls.
 *
 * Strategies see only cells (section_t), whoever they belong to, so the
 * same code serves whole arrays and sections.
 */
#include "strategy.h"

#include <stdlib.h>
#include <string.h>

void darray__section_box(const struct darray_s *a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         section_t *s) {
  memset(s, 0, sizeof *s);
  int64_t stride = a->d.esize;
  for (int i = 0; i < a->d.ndims; i++) {
    int d = order == DARRAY_ORDER_FORTRAN ? i : a->d.ndims - 1 - i;
    darray__dist_set_range(&s->set[d], start[d], count[d]);
    s->mem_stride[d] = stride;
    stride *= count[d];
  }
  s->alloc_bytes = stride;
}

bool darray__boxes_meet(const int64_t *p, const int64_t *q, int nd) {
  for (int d = 0; d < nd; d++) {
    if (p[nd + d] == 0 || q[nd + d] == 0)
      return false;
    if (p[d] + p[nd + d] <= q[d] || q[d] + q[nd + d] <= p[d])
      return false;
  }
  return true;
}

/* A point inside box i lies only in boxes that meet box i, so the most
 * boxes meeting any one box bounds how many cover a point. */
int darray__boxes_depth(const xfer_t *x) {
  if (x->boxes == NULL)
    return 1;
  int nd = x->a->d.ndims, P = x->a->d.nprocs, most = 1;
  for (int i = 0; i < P; i++) {
    int n = 0;
    for (int j = 0; j < P; j++)
      n += darray__boxes_meet(x->boxes + 2 * nd * i, x->boxes + 2 * nd * j,
                              nd);
    most = n > most ? n : most;
  }
  return most;
}

int darray__xfer_sections(const xfer_t *x, int r, section_t **sec,
                          int *nsec) {
  if (r == x->a->rank) { /* mine, with my buffer's true layout */
    size_t n = (size_t)(x->nsec > 0 ? x->nsec : 1);
    *sec = malloc(sizeof **sec * n);
    if (*sec == NULL)
      return DARRAY_ENOMEM;
    memcpy(*sec, x->sec, sizeof **sec * (size_t)x->nsec);
    *nsec = x->nsec;
    return DARRAY_SUCCESS;
  }
  if (x->boxes == NULL)
    return darray__dist_sections(&x->a->d, r, sec, nsec);
  section_t *s = malloc(sizeof *s);
  if (s == NULL)
    return DARRAY_ENOMEM;
  const int64_t *b = x->boxes + (size_t)r * 2 * (size_t)x->a->d.ndims;
  /* the memory order of another process's buffer does not matter here:
   * only file offsets of its runs are used */
  darray__section_box(x->a, b, b + x->a->d.ndims, DARRAY_ORDER_C, s);
  *sec = s;
  *nsec = 1;
  return DARRAY_SUCCESS;
}
