/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * bench_options.c - darrayio-bench's command line.
 */
#include "bench.h"
#include "bench_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: darrayio-bench [options]\n"
    "  --pattern P     dist3d (default), slabs, multi, btio, rowblock,\n"
    "                  colblock, blockblock, cyclic\n"
    "  -n N            size per dimension: N^3 elements for dist3d and slabs\n"
    "                  (default 256) and for each array of multi (default\n"
    "                  64), N x N for the 2-D patterns (default 4096)\n"
    "  -g PxQxR        process grid (dist3d, slabs, multi: PxQxR,\n"
    "                  blockblock: PxQ); 0 entries are chosen by\n"
    "                  MPI_Dims_create\n"
    "  --slab S        slabs: planes of the slowest dimension per call\n"
    "                  (default 16)\n"
    "  --slab-group G  slabs: G slabs per step (default 1): darrayio makes\n"
    "                  G section calls of S planes (the async method posts\n"
    "                  G requests and waits once), the other methods one\n"
    "                  call of G*S planes\n"
    "  --arrays K      multi: dist3d arrays stored one after another in the\n"
    "                  file and moved in one step, one call each (default 8)\n"
    "  -k K            block size of cyclic: CYCLIC(K) columns (default 1)\n"
    "  --class C       btio class S, W, A (default), B or C\n"
    "  --dumps K       btio dumps (default: 12 for S, 40 otherwise); multi:\n"
    "                  steps of K arrays appended, one open (default 1)\n"
    "  --ops LIST      write, read or write,read (default write,read)\n"
    "  --data D        the values written: index (default: a closed form of\n"
    "                  the element's index), smooth (a field like\n"
    "                  simulation data: sines of the coordinates plus\n"
    "                  small noise), random (incompressible bits)\n"
    "  --type T        int32 (default) or double: the element type of every\n"
    "                  pattern but btio (always double)\n"
    "  --runs K        measurements per method and operation (default 3)\n"
    "  --cold          drop the page cache before every timed phase (root)\n"
    "  --same-file     before each read phase, rewrite the method's file the\n"
    "                  way 'conforming' writes it (untimed), so that every\n"
    "                  method reads the same page-cache state\n"
    "  --rotate        take run k of every method before run k + 1 of any\n"
    "                  (default: all runs of a method, then the next), so\n"
    "                  that drifts of a shared machine touch all alike\n"
    "  --dir D         directory of the files (default .)\n"
    "  --methods LIST  comma-separated methods (default: all), among\n"
    "                  darrayio-auto darrayio-direct darrayio-sieve\n"
    "                  darrayio-twophase darrayio-rows darrayio-static\n"
    "                  darrayio-groups darrayio-mapped\n"
    "                  mpiio-l0 mpiio-l2 mpiio-l3\n"
    "                  mpiio-l3-nocb posix-l0 reference conforming\n"
    "                  darrayio-npz (a .npz dataset, CRC-32 on),\n"
    "                  darrayio-async mpiio-l3-async (nonblocking);\n"
    "                  darrayio-X[K=V;..] (or darrayio-X@K=V;..) is\n"
    "                  darrayio-X with hints of its own\n"
    "  --hints K=V;..  hints for the darrayio methods\n"
    "  --plot F.png    draw the results with gnuplot\n"
    "  --explain       print darray_explain() for darrayio-auto's first write\n"
    "                  and read\n"
    "  --compute S     a compute phase of S seconds (a loop over the rank's\n"
    "                  own array) with every dump; the timed region is then\n"
    "                  the whole loop: compute and I/O, blocking methods one\n"
    "                  after the other, nonblocking ones (darrayio-async,\n"
    "                  mpiio-l3-async) post, compute, wait; RESULT lines add\n"
    "                  compute= (the phases alone) and, for nonblocking\n"
    "                  methods, overlap= against their blocking twin\n"
    "  --fsync         sync every dump's writes inside the timed region\n"
    "                  (darray_file_sync / darray_file_isync, MPI_File_sync,\n"
    "                  fsync)\n"
    "  --thread L      MPI thread level asked for: multiple (default),\n"
    "                  serialized, funneled, single\n";

static int bad(const char *what, int rank) {
  if (rank == 0)
    fprintf(stderr, "darrayio-bench: bad option or value: %s\n%s", what,
            usage_text);
  return -1;
}

static int parse_grid(const char *v, options_t *o) {
  o->grid[0] = o->grid[1] = o->grid[2] = 0;
  o->ngrid = sscanf(v, "%dx%dx%d", &o->grid[0], &o->grid[1], &o->grid[2]);
  for (int d = 0; d < o->ngrid; d++)
    if (o->grid[d] < 0)
      return -1;
  return o->ngrid >= 2 ? 0 : -1;
}

static int parse_thread(const char *v, options_t *o) {
  static const char *const names[] = {"single", "funneled", "serialized",
                                      "multiple"};
  static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                               MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
  for (int i = 0; i < 4; i++)
    if (!strcmp(v, names[i])) {
      o->thread = levels[i];
      return 0;
    }
  return -1;
}

static int parse_ops(const char *v, options_t *o) {
  o->do_write = strstr(v, "write") != NULL;
  o->do_read = strstr(v, "read") != NULL;
  return o->do_write || o->do_read ? 0 : -1;
}

/* Options that take a value; returns 0, or -1 if unknown or malformed. */
static int option_value(const char *a, const char *v, options_t *o) {
  if (!strcmp(a, "--pattern"))
    o->pattern = v;
  else if (!strcmp(a, "-n"))
    o->n = strtoll(v, NULL, 10);
  else if (!strcmp(a, "-g"))
    return parse_grid(v, o);
  else if (!strcmp(a, "-k"))
    o->k = strtoll(v, NULL, 10);
  else if (!strcmp(a, "--slab"))
    o->slab = strtoll(v, NULL, 10);
  else if (!strcmp(a, "--slab-group"))
    o->slab_group = atoi(v);
  else if (!strcmp(a, "--arrays"))
    o->arrays = atoi(v);
  else if (!strcmp(a, "--class") && strlen(v) == 1)
    o->cls = v[0];
  else if (!strcmp(a, "--dumps"))
    o->dumps = atoi(v);
  else if (!strcmp(a, "--ops"))
    return parse_ops(v, o);
  else if (!strcmp(a, "--data"))
    return (o->data = bench_data_kind(v)) < 0 ? -1 : 0;
  else if (!strcmp(a, "--type") &&
           (!strcmp(v, "int32") || !strcmp(v, "double")))
    o->esize = !strcmp(v, "double") ? 8 : 4;
  else if (!strcmp(a, "--runs"))
    o->runs = atoi(v);
  else if (!strcmp(a, "--dir"))
    o->dir = v;
  else if (!strcmp(a, "--methods"))
    o->methods = v;
  else if (!strcmp(a, "--hints"))
    o->hints = v;
  else if (!strcmp(a, "--plot"))
    o->plot = v;
  else if (!strcmp(a, "--compute"))
    o->compute = strtod(v, NULL);
  else if (!strcmp(a, "--thread"))
    return parse_thread(v, o);
  else
    return -1;
  return 0;
}

static int known_pattern(const char *p) {
  static const char *const names[] = {"dist3d",   "slabs",    "multi",
                                      "btio",     "rowblock", "colblock",
                                      "blockblock", "cyclic"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(p, names[i]))
      return 1;
  return 0;
}

/* Every name in --methods must be a method. */
static int check_methods(const char *list, int rank) {
  char *copy = strdup(list), *cur = copy;
  int rc = 0;
  for (char *t = bench_next_method(&cur); t && rc == 0;
       t = bench_next_method(&cur))
    if (bench_method(t) == NULL)
      rc = bad(t, rank);
  free(copy);
  return rc;
}

int bench_parse(int argc, char **argv, options_t *o, int rank) {
  *o = (options_t){.pattern = "dist3d", .k = 1, .cls = 'A', .do_write = 1,
                   .do_read = 1, .runs = 3, .dir = ".",
                   .thread = MPI_THREAD_MULTIPLE, .esize = 4};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (rank == 0)
        fputs(usage_text, stdout);
      o->help = 1;
      return 1;
    }
    if (!strcmp(a, "--cold"))
      o->cold = 1;
    else if (!strcmp(a, "--same-file"))
      o->same_file = 1;
    else if (!strcmp(a, "--rotate"))
      o->rotate = 1;
    else if (!strcmp(a, "--explain"))
      o->explain = 1;
    else if (!strcmp(a, "--fsync"))
      o->fsync = 1;
    else if (i + 1 >= argc || option_value(a, argv[i + 1], o) != 0)
      return bad(a, rank);
    else
      i++;
  }
  if (!known_pattern(o->pattern))
    return bad(o->pattern, rank);
  if (o->n == 0)
    o->n = !strcmp(o->pattern, "dist3d") || !strcmp(o->pattern, "slabs")
               ? 256 : !strcmp(o->pattern, "multi") ? 64 : 4096;
  if (o->n < 1 || o->k < 1 || o->runs < 1 || o->dumps < 0 || o->slab < 0 ||
      o->slab_group < 0 || o->slab_group > 32 || o->arrays < 0 ||
      o->compute < 0 ||
      !strchr("SWABC", o->cls))
    return bad("(a value out of range)", rank);
  return o->methods ? check_methods(o->methods, rank) : 0;
}
