/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * stats.c - a file's I/O counters: a call's added into the file's
 * (darray__stats_fold), and darray_file_stats_summary: a file's counters
 * summed and maximized over its processes, in two reductions and one
 * agreement.
 */
#include "agree.h"
#include "file.h"

#include <stddef.h>

/* Each counter of darray_stats_t and where its sum and maximum go in the
 * summary. Peak memory is a maximum only: the peaks of different processes
 * need not be held at the same time, so their sum means nothing. */
#define NO_SUM SIZE_MAX
#define COUNTER(name)                                                          \
  {offsetof(darray_stats_t, name),                                             \
   offsetof(darray_stats_summary_t, name##_sum),                               \
   offsetof(darray_stats_summary_t, name##_max)}
static const struct {
  size_t in, sum, max;
} counters[] = {
    COUNTER(bytes_read),  COUNTER(bytes_written),   COUNTER(read_calls),
    COUNTER(write_calls), COUNTER(bytes_exchanged), COUNTER(cycles),
    COUNTER(calls),       COUNTER(io_ns),           COUNTER(exchange_ns),
    COUNTER(call_ns),     COUNTER(collectives), COUNTER(bytes_copied),
    COUNTER(messages),
    {offsetof(darray_stats_t, peak_temp_bytes), NO_SUM,
     offsetof(darray_stats_summary_t, peak_temp_bytes_max)}};
#undef COUNTER
enum { NCOUNTERS = sizeof counters / sizeof counters[0] };

#define HALF INT64_C(0x100000000) /* 2^32 */

static int64_t counter(const darray_stats_t *st, int i) {
  return *(const int64_t *)((const char *)st + counters[i].in);
}

static void set(darray_stats_summary_t *s, size_t off, int64_t v) {
  *(int64_t *)((char *)s + off) = v;
}

/* What the call counted, into the file's counters. */
void darray__stats_fold(darray_stats_t *into, const darray_stats_t *c) {
  into->bytes_read += c->bytes_read;
  into->bytes_written += c->bytes_written;
  into->read_calls += c->read_calls;
  into->write_calls += c->write_calls;
  into->bytes_exchanged += c->bytes_exchanged;
  into->cycles += c->cycles;
  into->io_ns += c->io_ns;
  into->exchange_ns += c->exchange_ns;
  into->collectives += c->collectives;
  into->bytes_copied += c->bytes_copied;
  into->messages += c->messages;
  if (c->peak_temp_bytes > into->peak_temp_bytes)
    into->peak_temp_bytes = c->peak_temp_bytes;
}

/* A sum of 64-bit counters could pass INT64_MAX, which MPI_SUM would not
 * say. So each value travels as two halves, v = hi * 2^32 + lo with
 * 0 <= lo < 2^32, whose sums stay below 2^63 for any communicator (fewer
 * than 2^31 processes), and the halves' sums are joined with checked
 * arithmetic: a total beyond 64 bits saturates. */
static void split(int64_t v, int64_t *hi, int64_t *lo) {
  *lo = v & (HALF - 1);
  *hi = (v - *lo) / HALF; /* exact, whatever the sign */
}

static int64_t join(int64_t hi, int64_t lo) {
  int64_t r;
  if (!darray__mul_ok(hi, HALF, &r) || !darray__add_ok(r, lo, &r))
    return hi > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* The two reductions: halves of every counter summed (sums[2i] the high,
 * sums[2i+1] the low half's sum), every counter maximized. Every process
 * joins them, whatever its rc; returns rc, or DARRAY_EMPI (message in
 * f->errmsg) when a reduction failed here. */
static int reduce(darray_file_t f, int rc, int64_t *sums, int64_t *maxs) {
  int64_t halves[2 * NCOUNTERS], own[NCOUNTERS];
  for (int i = 0; i < NCOUNTERS; i++) {
    own[i] = counter(&f->stats, i);
    split(own[i], &halves[2 * i], &halves[2 * i + 1]);
  }
  MPI_Request req[2];
  bool ok = MPI_Iallreduce(halves, sums, 2 * NCOUNTERS, MPI_INT64_T, MPI_SUM,
                           f->comm, &req[0]) == MPI_SUCCESS &&
            MPI_Iallreduce(own, maxs, NCOUNTERS, MPI_INT64_T, MPI_MAX,
                           f->comm, &req[1]) == MPI_SUCCESS &&
            darray__wait_all(2, req) == DARRAY_SUCCESS;
  if (!ok && rc == DARRAY_SUCCESS)
    rc = darray__err(f->errmsg, DARRAY_EMPI,
                     "darray_file_stats_summary: MPI_Allreduce failed while "
                     "summing the I/O counters");
  return rc;
}

int darray__file_stats_summary(darray_file_t f, darray_stats_summary_t *s) {
  int rc = darray__file_check_mpi(f);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable handle or no MPI: cannot agree (documented) */
  darray__file_drain(f); /* the file's communicator is ours alone now */
  if (s == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "s is NULL");
  int64_t sums[2 * NCOUNTERS], maxs[NCOUNTERS];
  rc = reduce(f, rc, sums, maxs);
  rc = darray__agree(f->comm, rc, f->errmsg);
  if (rc != DARRAY_SUCCESS)
    return rc;
  s->nprocs = f->nprocs;
  for (int i = 0; i < NCOUNTERS; i++) {
    if (counters[i].sum != NO_SUM)
      set(s, counters[i].sum, join(sums[2 * i], sums[2 * i + 1]));
    set(s, counters[i].max, maxs[i]);
  }
  return DARRAY_SUCCESS;
}
