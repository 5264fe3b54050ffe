/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * layout.h - the file runs of a rank's cells in file order (a seekable
 * iterator), their numbers in closed form, and copies between a user's
 * buffer and packed or windowed images.
 */
#ifndef DARRAYIO_LAYOUT_H
#define DARRAYIO_LAYOUT_H

#include "dist/dist.h"

/* The description cell s belongs to: a's own, or in a merged access of
 * several arrays (a->parts) its array's. Every function below that takes
 * a description and cells reads each cell through it, so the cells of
 * one access may come from arrays of different shapes, distributions and
 * element sizes, each in its own part of the file. */
static inline const darray_desc_t *darray__cell_desc(const darray_desc_t *a,
                                                     const section_t *s) {
  return a->parts != NULL ? a->parts[s->part] : a;
}

/* One contiguous stretch of file bytes belonging to one section. The
 * elements of the run, in file order, are a box: dimension perm[depth] from
 * local index l0 for `nblk` indices, then every later (faster) file dimension
 * in full. */
typedef struct layout_run {
  int64_t foff;   /* absolute byte offset in the file */
  int64_t len;    /* bytes */
  int64_t moff;   /* byte offset of the run's first element in the buffer */
  int sec;        /* section number */
  int depth;      /* file-order position of the run's outermost dimension */
  bool mem_contig; /* the run is one contiguous stretch of the buffer too */
} layout_run_t;

/* Iterator state over one section's runs. */
typedef struct layout_secit {
  int depth;                    /* file-order position of the run dim */
  int64_t pos[DARRAY_MAX_DIMS]; /* local index per file-order dim < depth;
                                   block number j at depth */
  bool done;
  bool mem_contig;
  bool base_ok;               /* base_* hold the dims before depth */
  int64_t base_foff, base_moff;
  /* with base_ok, per file-order dim i < depth: its global index g, the
   * position within its block t, and the file and memory offsets of dims
   * 0..i (pf, pm); dims from `dirty` on have moved since base_* */
  int64_t g[DARRAY_MAX_DIMS], t[DARRAY_MAX_DIMS];
  int64_t pf[DARRAY_MAX_DIMS], pm[DARRAY_MAX_DIMS];
  int dirty;
} layout_secit_t;

/* Iterator over all runs of a rank, merged across sections in file order. */
typedef struct layout_iter {
  const darray_desc_t *a;
  const section_t *sec;
  int nsec;
  layout_secit_t *it; /* nsec entries */
  layout_run_t *head; /* nsec entries: next run of each section */
  bool ordered;       /* the cells follow one another in the file
                         (darray__layout_cells_ordered) */
  bool packed;        /* ... and each is one dense stretch of its buffer
                         in file order (darray__layout_file_packed) */
} layout_iter_t;

DARRAY_HIDDEN int darray__layout_iter_init(layout_iter_t *it,
                                           const darray_desc_t *a,
                                           const section_t *sec, int nsec);
/* Next run in file order; returns false when there is none. */
DARRAY_HIDDEN bool darray__layout_next(layout_iter_t *it, layout_run_t *run);
DARRAY_HIDDEN void darray__layout_iter_free(layout_iter_t *it);
/* Closed-form numbers of a set of cells' runs (no run is enumerated). */
typedef struct layout_summary {
  int64_t nruns, bytes; /* runs (touching ones counted apart) and bytes */
  int64_t lo, hi;       /* file extent */
  int64_t min_run, max_run; /* shortest and longest run, bytes */
} layout_summary_t;
DARRAY_HIDDEN void darray__layout_summary(const darray_desc_t *a,
                                          const section_t *sec, int nsec,
                                          layout_summary_t *sum);

/* Whether every run of a cell is one contiguous stretch of the buffer too
 * (true for an empty cell). */
DARRAY_HIDDEN bool darray__layout_mem_contig(const darray_desc_t *a,
                                             const section_t *sec);
/* Reposition on the first run that ends after file offset off (runs that
 * start before off and end after it are included, unclipped). */
DARRAY_HIDDEN void darray__layout_seek(layout_iter_t *it, int64_t off);

/* Copy every run byte of cells sec[0..nsec) that lies in file range
 * [lo, hi) between the user buffer and win, the image of that range
 * (to_win: user -> win); bytes of win in holes are not touched. Returns
 * the bytes copied (darray_stats_t.bytes_copied). */
DARRAY_HIDDEN int64_t darray__layout_copy_window(const darray_desc_t *a,
                                              const section_t *sec, int nsec,
                                              int64_t lo, int64_t hi,
                                              char *user, char *win,
                                              bool to_win);
/* Bytes of the runs of cells sec[0..nsec) that lie before file offset x,
 * in closed form (O(nsec * ndims), no run is walked); the bytes inside
 * [lo, hi) are before(hi) - before(lo). */
DARRAY_HIDDEN int64_t darray__layout_bytes_before(const darray_desc_t *a,
                                                  const section_t *sec,
                                                  int nsec, int64_t x);
/* Whether the cells sec[0..nsec) follow one another in the file: every
 * cell's runs lie after the last byte of the cells before it (empty cells
 * aside). Then a rank's runs in file order are cell 0's, then cell 1's,
 * and so on, so what holds for one cell in closed form holds cell by cell
 * (a merged access's arrays: async_merge.c). O(nsec *
 * ndims). */
DARRAY_HIDDEN bool darray__layout_cells_ordered(const darray_desc_t *a,
                                               const section_t *sec,
                                               int nsec);
/* Whether a cell's elements, taken in file order, are one dense stretch of
 * its buffer (every byte range of its runs is then contiguous there). */
DARRAY_HIDDEN bool darray__layout_file_packed(const darray_desc_t *a,
                                              const section_t *sec);
/* The cell `in` with its memory described as packed in file order from
 * byte offset base (which may be negative: offsets are relative to the
 * pointer a copy is given). */
DARRAY_HIDDEN void darray__layout_pack_section(const darray_desc_t *a,
                                               const section_t *in,
                                               int64_t base, section_t *out);
/* Copy bytes [b0, b1) of a run between the user buffer and a packed buffer
 * (to_packed: user -> packed, else packed -> user). b0 and b1 may fall
 * inside elements (those are copied in part). Returns the bytes copied,
 * b1 - b0. */
DARRAY_HIDDEN int64_t darray__layout_copy(const darray_desc_t *a,
                                       const section_t *sec,
                                       const layout_run_t *run, int64_t b0,
                                       int64_t b1, char *user, char *packed,
                                       bool to_packed);

/* File extent [*lo, *hi) of rank r's runs of array a; *lo == *hi when the
 * rank owns nothing. */
DARRAY_HIDDEN int darray__layout_extent(const darray_desc_t *a,
                                        const section_t *sec, int nsec,
                                        int64_t *lo, int64_t *hi);

/* Number of runs the iterator yields for sections sec[0..nsec) (before
 * touching runs are merged) and the bytes they hold, in O(nsec * ndims). */
DARRAY_HIDDEN void darray__layout_count(const darray_desc_t *a,
                                        const section_t *sec, int nsec,
                                        int64_t *nruns, int64_t *bytes);

/* ---- one cell's odometer (layout_runs.c), which the closed forms
 * (layout_forms.c) position and read */

/* The odometer of cell sec at its first run (it->done: the cell is
 * empty). */
DARRAY_HIDDEN void darray__layout_secit_init(layout_secit_t *it,
                                             const darray_desc_t *a,
                                             const section_t *sec);
/* The run at the odometer's position, as section number secno's. */
DARRAY_HIDDEN void darray__layout_secit_run(layout_secit_t *it,
                                            const darray_desc_t *a,
                                            const section_t *sec, int secno,
                                            layout_run_t *r);
/* The odometer of cell sec at its first run that ends after file offset
 * off (it->done: none does); c holds off's coordinates in a
 * (darray__layout_file_coords), which a cell of a merged access's array
 * (a->parts) computes again in its own array. */
DARRAY_HIDDEN void darray__layout_secit_at(layout_secit_t *it,
                                           const darray_desc_t *a,
                                           const section_t *sec, int64_t off,
                                           const int64_t c[]);
/* The coordinates c[0..ndims), in file order, of the element holding file
 * offset off (all 0 up to the displacement). */
DARRAY_HIDDEN void darray__layout_file_coords(const darray_desc_t *a,
                                              int64_t off, int64_t c[]);

/* ---- access analysis (layout_analysis.c): the verdicts the planner,
 * darray_explain and the storage advisor share */

/* One rank's access in numbers: its file extent [lo, hi) (lo == hi when it
 * accesses nothing), its runs (touching ones counted apart) and bytes. */
typedef struct layout_rank {
  int64_t lo, hi;
  int64_t nruns;
  int64_t bytes;
} layout_rank_t;

/* Whether the file extents of the ranks rr[0..n) overlap: some rank's data
 * lies between another rank's first and last byte. Sorts rr by lo. */
DARRAY_HIDDEN bool darray__layout_interleave(layout_rank_t *rr, int n);

/* Whether one rank's access of nsec cells conforms to the storage order:
 * its data is one stretch per cell (nruns <= nsec, counting an empty
 * access as one cell) or there is no hole between its runs. */
DARRAY_HIDDEN bool darray__layout_conforms(const layout_rank_t *r, int nsec);

#endif /* DARRAYIO_LAYOUT_H */
