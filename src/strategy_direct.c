/*
 * strategy_direct.c - independent I/O of this process's own runs.
 *
 * Runs come in file order. A run that is contiguous in the buffer and does
 * not touch the next one moves with one call straight from/to the user's
 * buffer. Runs that touch are merged: their bytes are packed into (or
 * unpacked from) one temporary buffer of at most ind_wr_buffer_size /
 * ind_rd_buffer_size bytes and moved with one call per buffer load. A run
 * that is strided in memory goes through the same buffer; a contiguous one
 * at least as long as the buffer moves alone. So under a darray_temp_limit
 * below one element (darray__xfer_buffer_cap) contiguous runs use no
 * buffer at all.
 */
#include "strategy.h"

#include <stdlib.h>

#define MAX_PIECES 256 /* pieces per buffer load: bounded metadata */

typedef struct piece {
  layout_run_t run;
  int64_t b0, b1; /* byte range of the run */
  int64_t at;     /* offset in the temporary buffer */
} piece_t;

typedef struct batch {
  xfer_t *x;
  char *tmp;
  int64_t cap;
  int64_t start, len;
  int npieces;
  piece_t pieces[MAX_PIECES];
} batch_t;

static int flush(batch_t *b) {
  if (b->len == 0)
    return DARRAY_SUCCESS;
  const struct darray_s *a = b->x->a;
  int rc;
  if (b->x->write) {
    for (int i = 0; i < b->npieces; i++) {
      piece_t *p = &b->pieces[i];
      darray__layout_copy(&a->d, &b->x->sec[p->run.sec], &p->run, p->b0, p->b1,
                          b->x->buf, b->tmp + p->at, true);
    }
    rc = darray__io_pwrite(&b->x->io, b->tmp, b->len, b->start);
  } else {
    rc = darray__io_pread(&b->x->io, b->tmp, b->len, b->start);
    for (int i = 0; rc == DARRAY_SUCCESS && i < b->npieces; i++) {
      piece_t *p = &b->pieces[i];
      darray__layout_copy(&a->d, &b->x->sec[p->run.sec], &p->run, p->b0, p->b1,
                          b->x->buf, b->tmp + p->at, false);
    }
  }
  b->len = 0;
  b->npieces = 0;
  return rc;
}

/* Add a run to the batch, flushing whenever the buffer fills. */
static int add_run(batch_t *b, const layout_run_t *r) {
  if (b->tmp == NULL) {
    b->tmp = malloc((size_t)b->cap);
    if (b->tmp == NULL)
      return DARRAY_ENOMEM;
    if (b->x->stats.peak_temp_bytes < b->cap)
      b->x->stats.peak_temp_bytes = b->cap;
  }
  for (int64_t off = 0; off < r->len;) {
    if (b->len > 0 && (b->start + b->len != r->foff + off ||
                       b->len == b->cap || b->npieces == MAX_PIECES)) {
      int rc = flush(b);
      if (rc != DARRAY_SUCCESS)
        return rc;
    }
    if (b->len == 0)
      b->start = r->foff + off;
    int64_t take = r->len - off;
    if (take > b->cap - b->len)
      take = b->cap - b->len;
    b->pieces[b->npieces++] = (piece_t){*r, off, off + take, b->len};
    b->len += take;
    off += take;
  }
  return DARRAY_SUCCESS;
}

static int move_alone(xfer_t *x, const layout_run_t *r) {
  char *p = x->buf + r->moff;
  return x->write ? darray__io_pwrite(&x->io, p, r->len, r->foff)
                  : darray__io_pread(&x->io, p, r->len, r->foff);
}

static int direct_run(xfer_t *x) {
  const struct darray_s *a = x->a;
  layout_iter_t it;
  int rc = darray__layout_iter_init(&it, &a->d, x->sec, x->nsec);
  if (rc != DARRAY_SUCCESS)
    return rc;
  batch_t *b = calloc(1, sizeof *b);
  if (b == NULL) {
    darray__layout_iter_free(&it);
    return DARRAY_ENOMEM;
  }
  b->x = x;
  int64_t hint = x->write ? x->f->hints.ind_wr_buffer_size
                          : x->f->hints.ind_rd_buffer_size;
  b->cap = darray__xfer_buffer_cap(x, hint);
  int64_t nruns, bytes; /* no buffer larger than the data it may hold */
  darray__layout_count(&a->d, x->sec, x->nsec, &nruns, &bytes);
  if (bytes > 0 && b->cap > bytes)
    b->cap = bytes;
  /* writes: one shared lock over the whole extent instead of one per
   * write call (src/io/io_lock.c); no MPI call is made while it is held */
  int64_t lo = 0, hi = 0;
  if (x->write)
    darray__layout_extent(&a->d, x->sec, x->nsec, &lo, &hi);
  rc = darray__io_lock(&x->io, lo, hi - lo, false);
  bool locked = rc == DARRAY_SUCCESS;
  layout_run_t cur, next;
  bool have = locked && darray__layout_next(&it, &cur);
  while (have && rc == DARRAY_SUCCESS) {
    bool more = darray__layout_next(&it, &next);
    bool touches = more && next.foff == cur.foff + cur.len;
    /* a contiguous run as long as the buffer gains nothing from it */
    bool alone = cur.mem_contig &&
                 ((b->len == 0 && !touches) || cur.len >= b->cap);
    if (alone && (rc = flush(b)) == DARRAY_SUCCESS)
      rc = move_alone(x, &cur);
    else if (!alone)
      rc = add_run(b, &cur);
    if (rc == DARRAY_SUCCESS && !touches)
      rc = flush(b);
    cur = next;
    have = more;
  }
  int rc2 = locked ? darray__io_unlock(&x->io, lo, hi - lo)
                   : DARRAY_SUCCESS;
  rc = rc != DARRAY_SUCCESS ? rc : rc2;
  free(b->tmp);
  free(b);
  darray__layout_iter_free(&it);
  return rc;
}

const strategy_t darray__strategy_direct = {"direct", NULL, direct_run, NULL};
