/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_compute.c - the compute phase of --compute: a real loop over the
 * rank's own array, not a sleep, so that an I/O thread competes with it
 * for the cores as it would with a real program's. Each sweep is a
 * three-point smoothing of the array with a short polynomial per element
 * (16 multiply-adds): arithmetic-bound, as BT's block solves are. A
 * loop that only streams memory (one multiply-add per element) would
 * compete with the I/O thread's copies into the page cache for the
 * memory bus as well; doc: bench/README.md, "Overlap".
 *
 * Calibrated once: the number of sweeps that takes --compute seconds on
 * the slowest rank, the same on every rank.
 */
#include "bench.h"

#include <stdlib.h>

/* count elements of the sweep, from element `from` on (1 <= from < n-1) */
static void sweep(double *w, int64_t n, int64_t from, int64_t count) {
  double left = w[from - 1];
  for (int64_t i = from; i < from + count && i + 1 < n; i++) {
    double c = w[i], v = 0.25 * left + 0.5 * c + 0.25 * w[i + 1], p = v;
    for (int k = 0; k < 16; k++) /* v's polynomial, Horner's rule */
      p = p * 0.999 + 1e-3 * v;
    w[i] = p;
    left = c;
  }
}

/* b->sweeps elements, sweep after sweep over the array. */
void bench_compute(bench_t *b) {
  int64_t left = b->sweeps, inner = b->work_n - 2;
  while (left > 0) {
    int64_t k = left < inner ? left : inner;
    sweep(b->work, b->work_n, 1, k);
    left -= k;
  }
}

int bench_compute_setup(bench_t *b) {
  int64_t mine = b->p.local_elems * b->p.narrays; /* the rank's dump */
  b->work_n = mine > 4096 ? mine : 4096;
  b->work = malloc(sizeof *b->work * (size_t)b->work_n);
  if (b->work == NULL)
    return -1;
  for (int64_t i = 0; i < b->work_n; i++)
    b->work[i] = (double)(i % 97);
  /* a first guess from 50 ms of sweeping, then whole phases timed and
   * rescaled (the array does not fit in the caches the short sweeps
   * ran in), the slowest rank's time each time */
  int64_t k = 0, chunk = 65536 < b->work_n - 2 ? 65536 : b->work_n - 2;
  double t0 = MPI_Wtime(), t = 0;
  while ((t = MPI_Wtime() - t0) < 0.05) {
    sweep(b->work, b->work_n, 1, chunk);
    k += chunk;
  }
  double per = t / (double)k;
  bench_max_doubles(&per, 1);
  b->sweeps = (int64_t)(b->o.compute / per + 0.5); /* elements */
  /* rescale on whole phases until one lands within 3 % of the target
   * (at most 8 rounds; each time the median of three phases) */
  for (int round = 0; round < 8 && b->sweeps > 0; round++) {
    double ts[3];
    for (int i = 0; i < 3; i++) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
      bench_compute(b);
      ts[i] = MPI_Wtime() - t0;
      bench_max_doubles(&ts[i], 1);
    }
    double lo = ts[0] < ts[1] ? ts[0] : ts[1];
    double hi = ts[0] < ts[1] ? ts[1] : ts[0];
    t = ts[2] < lo ? lo : ts[2] > hi ? hi : ts[2]; /* the median */
    if (t <= 0)
      break;
    if (t > 0.97 * b->o.compute && t < 1.03 * b->o.compute)
      break;
    b->sweeps = (int64_t)((double)b->sweeps * b->o.compute / t + 0.5);
  }
  if (b->sweeps < 1)
    b->sweeps = 1;
  return 0;
}
