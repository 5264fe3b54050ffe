/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench.h - darrayio-bench: shared types of the benchmark's files.
 *
 *   darrayio-bench.c  main: options, the loop over methods, runs and phases
 *   bench_options.c   command-line parsing
 *   bench_pattern.c   the access patterns: boxes, darrayio descriptions,
 *                     MPI-IO views, the steps of the slab sweep
 *   bench_gen.c       the values of --data (shared with zlib-speed)
 *   bench_data.c      closed-form values, fill/check, contiguous runs,
 *                     checking a file on disk
 *   bench_methods.c   the methods: their table, MPI-IO levels, POSIX
 *                     level 0, the physical references
 *   bench_darrayio.c  the darrayio methods: strategies, .npz, requests
 *   bench_sys.c       file helpers, pre-touch, dropping the page cache
 *   bench_report.c    RESULT lines, the human table, the gnuplot chart
 *
 * Only the public header of darrayio is used.
 */
#ifndef DARRAYIO_BENCH_H
#define DARRAYIO_BENCH_H

#include "darrayio.h"

#include <stdint.h>

#define BENCH_MAXD 4        /* dimensions of a box */
#define BENCH_MAX_METHODS 24 /* the table has 17: room for variants */
#define BENCH_UNAVAILABLE 1 /* a method that cannot run here (not an error) */

/* Status of a measurement, from best to worst. */
enum {
  ST_OK = 0,          /* measured and verified */
  ST_NOTRUN = 1,      /* not measured: an earlier phase of the method failed */
  ST_UNAVAILABLE = 2, /* the method does not exist in this build */
  ST_FAILED = 3,      /* an I/O call failed */
  ST_VERIFY = 4       /* wrong bytes: VERIFY FAILED */
};

typedef struct options {
  const char *pattern;
  int64_t n, k;
  int grid[3], ngrid;
  char cls;
  int dumps;
  int do_write, do_read;
  int runs;
  int cold, explain;
  int same_file; /* --same-file: reads see files written one way */
  int rotate;    /* --rotate: run k of every method before run k + 1 */
  int64_t slab; /* slabs: planes per call (0: the default) */
  int slab_group; /* slabs: slabs per step (0: 1) */
  int arrays;   /* multi: arrays per step (0: the default) */
  double compute; /* --compute S: a compute phase of S seconds per dump */
  int fsync;      /* --fsync: each dump synced inside the timed region */
  int thread;     /* --thread: the MPI thread level asked for */
  int help;       /* -h, --help: the usage was printed */
  int data;       /* --data: BENCH_DATA_* (bench_gen.h) */
  int esize;      /* --type: 4 (int32, default) or 8 (double) */
  const char *dir, *methods, *hints, *plot;
} options_t;

/*
 * A box: a piece of the global array that one rank owns, as an
 * nd-dimensional index space listed from the slowest-varying dimension in
 * the file to the fastest. Element (i0, .., i{nd-1}) of the box is file
 * element foff + sum(i_d * fstride_d) and buffer element moff +
 * sum(i_d * mstride_d). Offsets and strides count elements.
 */
typedef struct box {
  int64_t count[BENCH_MAXD], fstride[BENCH_MAXD], mstride[BENCH_MAXD];
  int64_t foff, moff;
} box_t;

/*
 * An access pattern as this rank sees it, for every method.
 *
 * Each dump is moved in nsteps calls: one for every pattern but slabs,
 * which sweeps each rank's block in slabs of `slab` planes of the slowest
 * dimension, one call per slab (nsteps: the most slabs any rank has; a
 * rank out of slabs takes part with an empty section). bench_pattern_step()
 * points box, the section and the stretches at one step.
 *
 * A dump holds narrays arrays of one description, stored one after
 * another (multi: K dist3d arrays; 1 for the other patterns): array k of
 * dump d starts at element (d * narrays + k) * array_elems of the file, and
 * in the buffer at element k * buf_elems / narrays (multi: one box each).
 * A method moves them with one call per array, all in the same step.
 */
typedef struct pattern {
  char name[16], label[128]; /* label: sizes and grid, for the table */
  int esize;                 /* 4 (int32) or 8 (double) */
  int data;                  /* the values: BENCH_DATA_* (bench_gen.h) */
  int64_t gen_n;             /* their row length (bench_gen.h's n) */
  int ndumps;                /* arrays appended to the file (BTIO dumps) */
  int64_t dump_elems;        /* elements of one dump, all ranks */
  int narrays;               /* arrays per dump (multi: K; otherwise 1) */
  int64_t array_elems;       /* elements of one array, all ranks */
  int nd, nbox;
  box_t *box;          /* this rank's elements (of the current step) */
  int64_t buf_elems;   /* local buffer, ghosts and padding included */
  int64_t local_elems; /* elements this rank owns per array */
  darray_t darr;       /* the darrayio description */
  MPI_Datatype etype, ftype, mtype; /* MPI-IO view, as the programs do */
  /* steps (slabs) */
  int nsteps;
  int64_t slab;           /* planes per step; 0 for the other patterns */
  int64_t subslab;        /* slabs: planes per darrayio call (slab, or
                             slab / --slab-group) */
  int64_t gsize[3];       /* slabs: the global array */
  int64_t gstart[3];      /* block arrays: this rank's block's first index */
  int grid0;              /* slabs: processes along the slowest dimension */
  box_t block;            /* slabs: this rank's whole block */
  int64_t start[3], count[3]; /* slabs: this rank's section of the step */
  /* The elements of the current step, all ranks together, as file-order
   * stretches [str_lo[i], str_hi[i]) of a dump (for the reference and the
   * conforming split): one stretch, the whole dump, but for slabs. */
  int nstr;
  int64_t *str_lo, *str_hi;
  int64_t step_elems, step_max; /* their sum; the largest over steps */
} pattern_t;

/* Counters of one phase, summed (or maxed) over ranks. */
typedef struct counters {
  int64_t calls, exchanged, cycles, peak_temp;
  char strategy[16]; /* darrayio methods: the strategy of the last call */
  /* darrayio methods (da_calls > 0): the library's calls, the collectives
   * of one process (most), the bytes copied and the data messages sent
   * (all processes) */
  int64_t da_calls, colls, copied, msgs;
} counters_t;

struct method;

/* One method's state while it runs. */
typedef struct mstate {
  const struct method *m;
  char path[4096];
  void *buf;          /* pattern buffer, or this rank's file-order stretch */
  int64_t lo, hi;     /* stretch methods: this rank's share [lo, hi) of
                         the step's stretches laid end to end */
  int fd;             /* POSIX methods */
  MPI_File fh;        /* MPI-IO methods */
  darray_file_t df;   /* darrayio methods */
  darray_request_t *req; /* darrayio-async: the step's narrays requests
                             posted (and the sync): narrays + 1 */
  int nreq;
  MPI_Request *mreq;  /* mpiio-l3-async: narrays requests */
  int64_t calls;      /* I/O calls made in the current phase (this rank) */
  char why[256];      /* why the method is unavailable or failed */
  int explain;        /* --explain: this phase of darrayio-auto is shown */
  int xfrom;          /* slabs --explain: first step of the strategy xs */
  char xs[16];
} mstate_t;

typedef struct bench {
  options_t o;
  pattern_t p;
  int rank, nprocs, cold;
  int explained[2]; /* --explain: shown for writes [1] and reads [0] */
  void *pbuf; /* the pattern buffer, shared by the pattern-layout methods */
  int thread_level; /* provided by MPI_Init_thread */
  double *work;      /* --compute: the rank's own array the loop sweeps */
  int64_t work_n;
  int64_t sweeps;    /* --compute: elements swept per compute phase
                        (calibrated) */
} bench_t;

/* A method. Stretch methods move a file-order stretch of each step instead
 * of the pattern's buffer: the reference (rank 0 alone) and the conforming
 * split (one contiguous stretch per rank). xfer moves one step of a dump
 * (bench_pattern_step() has set it up). */
typedef struct method {
  const char *name;
  int stretch; /* 0: pattern buffer, 1: rank 0 alone, 2: one per rank */
  int (*open)(bench_t *b, mstate_t *s, int write);
  int (*xfer)(bench_t *b, mstate_t *s, int write, int dump, int step);
  int (*close)(bench_t *b, mstate_t *s);
  void (*stats)(bench_t *b, mstate_t *s, int write, counters_t *c);
  const char *hints; /* variants "darrayio-X@k=v;...": their own hints,
                        after --hints */
  int dataset; /* 1: the file is a .npz dataset, the array member "u" */
  /* nonblocking methods: post a step (with its sync under --fsync), and
   * complete what was posted; the compute phase runs between them */
  int (*post)(bench_t *b, mstate_t *s, int write, int dump, int step);
  int (*complete)(bench_t *b, mstate_t *s, int write);
  /* --fsync: the method's sync of the file after a dump (blocking) */
  int (*sync)(bench_t *b, mstate_t *s);
  const char *twin; /* nonblocking: the blocking method whose I/O time
                       the overlap is measured against */
} method_t;

/* One measurement: a method and an operation, over all runs. */
typedef struct result {
  const char *method;
  int write;
  int status; /* ST_* */
  int nruns;
  double *t;  /* seconds per run */
  double *tc; /* --compute: seconds of the compute phases alone, per run */
  double median, min, max, compute;
  counters_t c;
  char why[256];
} result_t;

/* bench_options.c */
int bench_parse(int argc, char **argv, options_t *o, int rank);

/* bench_pattern.c */
int bench_pattern_build(bench_t *b);
void bench_pattern_step(pattern_t *p, int step);
/* Slabs: the calls darrayio moves a step in (--slab-group: the step's
 * section cut into pieces of subslab planes, the same number on every
 * rank), and piece g's start and count; returns the byte offset of its
 * elements in the step's buffer. */
int bench_slab_pieces(const pattern_t *p);
int64_t bench_slab_piece(const pattern_t *p, int g, int64_t *start,
                         int64_t *count);
void bench_pattern_free(pattern_t *p);
MPI_Info bench_info(const char *hints);
/* Add "k=v;k=v" hints to info (NULL: none). */
void bench_info_add(MPI_Info info, const char *hints);

/* bench_data.c */
typedef int (*run_fn)(void *ctx, int64_t foff, int64_t moff, int64_t len);
void bench_fill(const pattern_t *p, void *buf, int dump, int salt);
int64_t bench_check(const pattern_t *p, const void *buf, int dump, int salt,
                    int rank);
int bench_pieces(const pattern_t *p, int64_t lo, int64_t hi, run_fn fn,
                 void *ctx);
void bench_fill_share(const pattern_t *p, void *buf, int64_t lo, int64_t hi,
                      int dump, int salt);
int64_t bench_check_share(const pattern_t *p, const void *buf, int64_t lo,
                          int64_t hi, int dump, int salt, int rank);
int bench_runs(const pattern_t *p, run_fn fn, void *ctx);
/* The file's elements from byte base on (a dataset member's data; 0 for
 * raw files, whose length is checked too) against the closed form. */
int64_t bench_check_file(const bench_t *b, const char *path, int64_t base,
                         int salt);

/* bench_methods.c */
extern const method_t bench_methods[];
extern const int bench_nmethods;
const method_t *bench_method(const char *name);
/* The next name of a --methods list at *cur (commas inside brackets stay
 * in the name), or NULL. */
char *bench_next_method(char **cur);
/* The bytes of one dump; array k of dump d: its byte displacement in the
 * file, its place in the method's buffer. */
int64_t bench_dump_bytes(const bench_t *b);
int64_t bench_array_disp(const bench_t *b, int dump, int k);
void *bench_array_buf(const bench_t *b, const mstate_t *s, int k);

/* bench_darrayio.c: the darrayio methods' entries of bench_methods[] */
int bench_da_auto(bench_t *b, mstate_t *s, int w);
int bench_da_direct(bench_t *b, mstate_t *s, int w);
int bench_da_sieve(bench_t *b, mstate_t *s, int w);
int bench_da_twophase(bench_t *b, mstate_t *s, int w);
int bench_da_rows(bench_t *b, mstate_t *s, int w);
int bench_da_static(bench_t *b, mstate_t *s, int w);
int bench_da_groups(bench_t *b, mstate_t *s, int w);
int bench_da_mapped(bench_t *b, mstate_t *s, int w);
int bench_da_npz(bench_t *b, mstate_t *s, int write);
int bench_da_xfer(bench_t *b, mstate_t *s, int write, int dump, int step);
int bench_da_post(bench_t *b, mstate_t *s, int write, int dump, int step);
int bench_da_complete(bench_t *b, mstate_t *s, int write);
int bench_da_sync(bench_t *b, mstate_t *s);
int bench_da_close(bench_t *b, mstate_t *s);
void bench_da_stats(bench_t *b, mstate_t *s, int write, counters_t *c);

/* bench_compute.c (--compute) */
int bench_compute_setup(bench_t *b);
void bench_compute(bench_t *b);

/* bench_sys.c */
int bench_pwrite_all(int fd, const void *buf, int64_t len, int64_t off);
int bench_pread_all(int fd, void *buf, int64_t len, int64_t off);
/* A barrier and a maximum over ranks whose waits yield the processor. */
void bench_barrier(void);
void bench_max_doubles(double *v, int n);
int bench_pretouch(const bench_t *b, int64_t bytes);
int bench_drop_caches(const bench_t *b);
void bench_remove(const bench_t *b, const char *path);
int bench_setup_cold(bench_t *b);

/* bench_report.c */
void bench_result_line(const bench_t *b, const result_t *r);
void bench_table(const bench_t *b, const result_t *r, int n);
void bench_plot(const bench_t *b, const result_t *r, int n);
void bench_summarize(result_t *r);
/* Every result's line, with the overlap of nonblocking methods. */
void bench_result_lines(const bench_t *b, const result_t *r, int n);

#endif /* DARRAYIO_BENCH_H */
