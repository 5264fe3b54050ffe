/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fuzz_plan.c - fuzz target: the planner, darray_explain and the storage
 * advisor, on one process.
 *
 * The first input byte picks one of two cases.
 *
 * Explain: a description of any size (up to 8 dimensions, sizes up to
 * INT64_MAX, every type, distribution, grid, storage order, displacement
 * and memory layout) with any hints, on the one process the public API
 * plans for. What commit refuses must say why (and explain then answers
 * DARRAY_ESTATE); what it accepts is explained for a write and a read, and
 * the text must be whole (NUL-terminated, one newline-ended line after
 * another) and right by the definitions: the shape, element size,
 * distribution (BLOCK(k) and CYCLIC(k) as given or as the equivalent
 * block clipped to n), grid 1 x .. x 1, storage order, displacement; one
 * process row whose file extent is [disp, disp + bytes) with no holes and
 * whose mean run is bytes / runs; "conforms: yes"; every strategy's
 * estimate (direct runs a time, two-phase and sieving not candidates on
 * one process with no holes); a strategy that exists
 * and that the hints allow (darray_open's rules: on one process only a
 * hint yields two-phase or sieving); the back end asked for, with the
 * no-locks note exactly for sieved mpiio writes; an ownership map of rank
 * 0 only; written into a fixed buffer of any size (fmemopen), the text
 * is a prefix of the whole, within the buffer. Arrays of at most 4 KiB
 * are then written and read through the same file: the strategy the
 * counters report must be the one explained.
 *
 * Advise: 1-4 consumers (weights, process counts up to 256, every
 * distribution, given or chosen grids) of an array of 1-8 dimensions
 * through darray_advise_storage, darray_advise_order and
 * darray_advise_report. Refusals say why, with the same code from all
 * three; inputs that are valid by the header's rules are accepted. An
 * answer is a permutation whose weights add up from the verdicts and
 * that darray_advise_order confirms; every grid fits its consumer;
 * FRAGMENTED never appears for whole arrays; and no other order beats it
 * (every order for up to 4 dimensions, with the documented tie-breaks;
 * random orders otherwise, which the candidate restriction of 7 and 8
 * dimensions must not lose to). For arrays of at most 4096 elements every
 * verdict is recomputed by brute force from the distribution formulas of
 * darrayio.h: each element's owner and cell, each process's runs in file
 * order; the verdict, the count of nonconforming processes and bounds on
 * the run numbers must agree. The report must name the same order.
 *
 * Any difference aborts with the case printed: a finding.
 *
 * Build and run: fuzz/run.sh (libFuzzer), or see fuzz/README.md.
 */
#include "darrayio.h"
#include "fuzz_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXD DARRAY_MAX_DIMS
#define PUT(...)                                                               \
  (void)(cp +=                                                                 \
         snprintf(cp, (size_t)(fz_case + sizeof fz_case - cp), __VA_ARGS__),   \
         cp = cp < fz_case + sizeof fz_case ? cp                               \
                                            : fz_case + sizeof fz_case - 1)
static char *cp = fz_case; /* where the case description goes on */

static const char *const dist_names[] = {"*", "BLOCK", "CYCLIC", "MP"};

/* A size: mostly small, sometimes near a power of two or INT64_MAX. */
static int64_t size_of(fz_in_t *in) {
  uint8_t k = fz_u8(in);
  switch (k % 8) {
  case 4:
    return 1 + fz_u16(in);
  case 5:
    return ((int64_t)1 << fz_u8(in) % 63) + fz_u8(in) % 3;
  case 6:
    return INT64_MAX - fz_u8(in) % 4;
  case 7:
    return INT64_MAX / (2 + fz_u8(in) % 16);
  default:
    return 1 + fz_u8(in) % 16;
  }
}

static bool mul_ok(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}

static int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

#include "plan_advise.h"
#include "plan_explain.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const char *const names[] = {"plan.dat"};
  fz_scratch("plan", names, 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in_t in = {data, size, 0};
  cp = fz_case;
  fz_case[0] = '\0';
  if (fz_u8(&in) % 2)
    run_advise(&in);
  else
    run_explain(&in);
  return 0;
}
