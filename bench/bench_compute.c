/*
 * bench_compute.c - the compute phase of --compute: a real loop over the
 * rank's own array (a three-point smoothing sweep, as a stencil code's
 * step), not a sleep, so that an I/O thread competes with it for the
 * cores and the memory bus as it would with a real program's.
 *
 * Calibrated once: the number of sweeps that takes --compute seconds on
 * the slowest rank, the same on every rank.
 */
#include "bench.h"

#include <stdlib.h>

static void sweep(double *w, int64_t n) {
  double left = w[0];
  for (int64_t i = 1; i + 1 < n; i++) {
    double c = w[i];
    w[i] = 0.25 * left + 0.5 * c + 0.25 * w[i + 1];
    left = c;
  }
}

void bench_compute(bench_t *b) {
  for (int64_t k = 0; k < b->sweeps; k++)
    sweep(b->work, b->work_n);
}

int bench_compute_setup(bench_t *b) {
  b->work_n = b->p.local_elems > 4096 ? b->p.local_elems : 4096;
  b->work = malloc(sizeof *b->work * (size_t)b->work_n);
  if (b->work == NULL)
    return -1;
  for (int64_t i = 0; i < b->work_n; i++)
    b->work[i] = (double)(i % 97);
  /* time enough sweeps for 50 ms, the slowest rank's rate */
  int64_t k = 0;
  double t0 = MPI_Wtime(), t = 0;
  while ((t = MPI_Wtime() - t0) < 0.05 || k < 1) {
    sweep(b->work, b->work_n);
    k++;
  }
  double per = t / (double)k;
  bench_max_doubles(&per, 1);
  b->sweeps = (int64_t)(b->o.compute / per + 0.5);
  if (b->sweeps < 1)
    b->sweeps = 1;
  return 0;
}
