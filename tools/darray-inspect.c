/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * darray-inspect - what a darrayio file holds (doc/formats.md).
 *
 *   darray-inspect out.npz                      the arrays of a dataset
 *   mpiexec -n 4 darray-inspect --verify out.npz  every CRC-32, in parallel
 *   darray-inspect --explain out.npz            where each array's bytes lie
 *   darray-inspect --raw --type double --shape 64x64x64 [--order C|F]
 *       [--offset BYTES] out.dat                a raw file, described here
 *
 * The listing has one line per array: name, element type, shape, storage
 * order (slowest dimension first), data offset, bytes and the recorded
 * CRC-32. --verify recomputes every member's CRC-32 with darray_verify()
 * (each process reads an equal slice; one process without mpiexec); a
 * .npy file and a raw file record none, so only their length is checked.
 * --explain prints the byte map of the file and darray_explain() of a
 * read of each array split in BLOCKs of its slowest storage dimension over
 * the processes.
 *
 * Exit status: 0 on success, 1 when the file is refused or a check fails
 * (the library's message on stderr), 2 on a usage error.
 */
#include "darrayio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *prog = "darray-inspect";

static void usage(FILE *out) {
  fprintf(out,
      "usage: %s [--verify] [--explain] FILE\n"
      "       %s --raw --type TYPE --shape N0xN1x... [--order C|F]\n"
      "              [--offset BYTES] [--verify] [--explain] FILE\n"
      "\n"
      "List the arrays of a .npy or .npz file (name, type, shape, storage\n"
      "order, data offset, bytes, CRC-32), or of a raw file described on the\n"
      "command line.\n"
      "\n"
      "  --verify         check every recorded CRC-32 (in parallel under\n"
      "                   mpiexec); files without CRCs: their length only\n"
      "  --explain        the byte map of the file and how a read split in\n"
      "                   BLOCKs over the processes would move each array\n"
      "  --raw            FILE is raw: one array, described by\n"
      "  --type TYPE      char int8 uint8 int16 uint16 int32 uint32 int64\n"
      "                   uint64 float double\n"
      "  --shape N0xN1x.. global size of each dimension (1 to %d)\n"
      "  --order C|F      storage order (default C)\n"
      "  --offset BYTES   where the array starts (default 0)\n"
      "  --help           this text\n"
      "  --version        the version of darrayio this tool runs with\n"
      "\n"
      "exit status: 0 ok, 1 refused file or failed check, 2 usage error\n",
      prog, prog, DARRAY_MAX_DIMS);
}

static const struct {
  const char *name;
  darray_type_t type;
} types[] = {{"char", DARRAY_CHAR},     {"int8", DARRAY_INT8},
             {"uint8", DARRAY_UINT8},   {"int16", DARRAY_INT16},
             {"uint16", DARRAY_UINT16}, {"int32", DARRAY_INT32},
             {"uint32", DARRAY_UINT32}, {"int64", DARRAY_INT64},
             {"uint64", DARRAY_UINT64}, {"float", DARRAY_FLOAT},
             {"double", DARRAY_DOUBLE}, {"long-double", DARRAY_LONG_DOUBLE}};
#define NTYPES (int)(sizeof types / sizeof types[0])

static const char *type_name(const darray_member_info_t *m, char *buf,
                             size_t n) {
  if (m->status != DARRAY_SUCCESS) /* listed, not read: NumPy's name */
    return m->descr[0] ? m->descr : "?";
  for (int i = 0; i < NTYPES; i++)
    if (types[i].type == m->type)
      return types[i].name;
  snprintf(buf, n, "opaque%" PRId64, m->elem_size);
  return buf;
}

typedef struct opts {
  int verify, explain, raw, rank, nprocs;
  const char *path, *type, *shape, *order;
  int64_t offset;
} opts_t;

static int bad(const opts_t *o, const char *fmt, const char *what) {
  if (o->rank == 0) {
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(%s --help for usage)\n", prog);
  }
  return 2;
}

static int parse_i64(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0')
    return -1;
  *v = x;
  return 0;
}

/* The raw file's array from --type, --shape, --order, --offset. */
static int raw_member(const opts_t *o, darray_member_info_t *m) {
  memset(m, 0, sizeof *m);
  int t = -1;
  for (int i = 0; o->type && i < NTYPES; i++)
    if (!strcmp(o->type, types[i].name))
      t = i;
  if (t < 0)
    return bad(o, "--raw needs --type, one of char int8 uint8 int16 uint16 "
               "int32 uint32 int64 uint64 float double (got '%s')",
               o->type ? o->type : "nothing");
  m->type = types[t].type;
  static const int64_t esize[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8,
                                  (int64_t)sizeof(long double)};
  m->elem_size = esize[t];
  char buf[256], *save = NULL;
  if (o->shape == NULL || strlen(o->shape) >= sizeof buf)
    return bad(o, "--raw needs --shape N0xN1x... (got '%s')",
               o->shape ? o->shape : "nothing");
  strcpy(buf, o->shape);
  m->bytes = m->elem_size;
  for (char *s = strtok_r(buf, "x", &save); s; s = strtok_r(NULL, "x", &save)) {
    int64_t v;
    if (m->ndims == DARRAY_MAX_DIMS || parse_i64(s, &v) != 0 || v < 1 ||
        m->bytes > INT64_MAX / v)
      return bad(o, "--shape '%s': expected 1 to 8 positive sizes whose "
                 "bytes fit 64 bits", o->shape);
    m->gsizes[m->ndims++] = v;
    m->bytes *= v;
  }
  if (m->ndims == 0)
    return bad(o, "--shape '%s': no size", o->shape);
  int f = o->order && (!strcmp(o->order, "F") || !strcmp(o->order, "f"));
  if (o->order && !f && strcmp(o->order, "C") && strcmp(o->order, "c"))
    return bad(o, "--order '%s': expected C or F", o->order);
  m->order = f ? DARRAY_ORDER_FORTRAN : DARRAY_ORDER_C;
  for (int d = 0; d < m->ndims; d++)
    m->perm[d] = f ? m->ndims - 1 - d : d;
  m->offset = o->offset;
  strcpy(m->name, "-");
  return 0;
}

static void print_member(const darray_member_info_t *m) {
  char t[32], shape[256] = "", order[64] = "";
  size_t k = 0;
  for (int d = 0; d < m->ndims; d++)
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%" PRId64,
                          d ? "x" : "", m->gsizes[d]);
  if (m->order == DARRAY_ORDER_C)
    strcpy(order, "C");
  else if (m->order == DARRAY_ORDER_FORTRAN)
    strcpy(order, "F");
  else
    for (int d = 0, j = 0; d < m->ndims; d++)
      j += snprintf(order + j, sizeof order - (size_t)j, "%s%d", d ? "," : "",
                    m->perm[d]);
  if (m->scalar)
    strcpy(shape, "() 0-d");
  char crc[16] = "-";
  if (m->has_crc)
    snprintf(crc, sizeof crc, "%08" PRIx32, m->crc32);
  printf("  %-16s %-8s %-20s %-8s %12" PRId64 " %14" PRId64 " %s%s%s\n",
         m->name[0] ? m->name : "(array)", type_name(m, t, sizeof t), shape,
         order, m->offset, m->bytes, crc,
         m->status ? "  not read: " : "",
         m->status ? darray_err_name(m->status) : "");
}

/* The arrays of a dataset (or the raw array) into *m (n of them). */
static int members(const opts_t *o, darray_file_t f, darray_member_info_t **m,
                   int *n) {
  *m = NULL;
  *n = 1;
  if (o->raw) {
    *m = calloc(1, sizeof **m);
    return *m == NULL ? 1 : raw_member(o, *m);
  }
  darray_num_members(f, n);
  *m = calloc((size_t)*n + 1, sizeof **m);
  for (int i = 0; *m && i < *n; i++)
    darray_inquire(f, i, &(*m)[i]);
  return *m == NULL;
}

/* The file's length (rank 0's stat, for everyone); -1 when it fails. */
static int64_t file_size(const char *path) {
  struct stat st;
  int64_t n = stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return n;
}

static void region(int64_t lo, int64_t hi, const char *what,
                   const char *name) {
  if (hi > lo)
    printf("  [%14" PRId64 ", %14" PRId64 ")  %14" PRId64 " bytes  %s%s\n", lo,
           hi, hi - lo, what, name);
}

/* The byte map: what lies before, in and after each array. */
static void byte_map(const opts_t *o, const darray_member_info_t *m, int n,
                     int64_t size) {
  int npz = !o->raw && strstr(o->path, ".npz") != NULL;
  const char *head = o->raw   ? "not described (before the array) "
                     : npz    ? "ZIP local header, padding, .npy header of "
                              : ".npy header of ";
  int64_t at = 0;
  printf("byte map:\n");
  for (int i = 0; i < n; i++) {
    region(at, m[i].offset, head, m[i].name);
    region(m[i].offset, m[i].offset + m[i].bytes, "data of ", m[i].name);
    at = m[i].offset + m[i].bytes;
  }
  region(at, size, npz ? "ZIP central directory and end records"
                       : "not described (after the array)", "");
}

/* darray_explain() of a read of member m split in BLOCKs of its slowest
 * storage dimension (collective: the description is committed). */
static int explain_member(const opts_t *o, darray_file_t f,
                          const darray_member_info_t *m) {
  if (m->status != DARRAY_SUCCESS) { /* the same on every process */
    if (o->rank == 0)
      printf("\narray %s: not read by darrayio (%s), nothing to explain\n",
             m->name, darray_err_name(m->status));
    return 0;
  }
  darray_t a = NULL;
  darray_dist_t dist[DARRAY_MAX_DIMS];
  for (int d = 0; d < m->ndims; d++)
    dist[d] = d == m->perm[0] ? DARRAY_DIST_BLOCK : DARRAY_DIST_NONE;
  int rc = darray_create(MPI_COMM_WORLD, m->ndims, m->gsizes, m->type, &a);
  if (rc == 0 && m->type == DARRAY_OPAQUE)
    rc = darray_set_elem_size(a, m->elem_size);
  if (rc == 0)
    rc = darray_set_storage_order(a, DARRAY_ORDER_PERM, m->perm);
  if (rc == 0)
    rc = darray_set_distribution(a, dist, NULL);
  if (rc == 0)
    rc = darray_set_displacement(a, m->offset); /* where explain looks */
  if (rc == 0)
    rc = darray_commit(a);
  if (rc == 0 && o->rank == 0) {
    printf("\narray %s, read in BLOCKs of dimension %d by %d process%s:\n",
           m->name, m->perm[0], o->nprocs, o->nprocs > 1 ? "es" : "");
    fflush(stdout);
    rc = darray_explain(f, a, 0, stdout);
  }
  if (rc && o->rank == 0)
    fprintf(stderr, "%s: %s: explaining %s: %s\n", prog, o->path, m->name,
            darray_errmsg(NULL));
  darray_free(&a);
  return rc;
}

/* --verify: the recorded CRCs (collective), or the length. */
static int verify(const opts_t *o, darray_file_t f,
                  const darray_member_info_t *m, int n, int64_t size) {
  int crcs = 0;
  for (int i = 0; i < n; i++)
    crcs += m[i].has_crc;
  int64_t end = n ? m[n - 1].offset + m[n - 1].bytes : 0;
  int rc = crcs ? darray_verify(f) : size < end ? DARRAY_EEOF : 0;
  if (o->rank != 0)
    return rc;
  if (rc && crcs)
    fprintf(stderr, "%s: %s: verify failed (%s): %s\n", prog, o->path,
            darray_err_name(rc), darray_file_errmsg(f));
  else if (rc)
    fprintf(stderr, "%s: %s: verify failed: %" PRId64 " bytes, the array "
            "ends at %" PRId64 "\n", prog, o->path, size, end);
  else if (crcs)
    printf("verify: ok, %d CRC-32 checked by %d process%s\n", crcs,
           o->nprocs, o->nprocs > 1 ? "es" : "");
  else
    printf("verify: ok, the file holds the array (%s records no CRC-32: "
           "only its length is checked)\n", o->raw ? "a raw file" : ".npy");
  return rc;
}

static int parse(int argc, char **argv, opts_t *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    const char **val = !strcmp(a, "--type")    ? &o->type
                       : !strcmp(a, "--shape") ? &o->shape
                       : !strcmp(a, "--order") ? &o->order
                                               : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (o->rank == 0)
        usage(stdout);
      return -1;
    } else if (!strcmp(a, "--version")) {
      if (o->rank == 0)
        printf("%s (darrayio) %s\n", prog, darray_version_string());
      return -1;
    } else if (!strcmp(a, "--verify")) {
      o->verify = 1;
    } else if (!strcmp(a, "--explain")) {
      o->explain = 1;
    } else if (!strcmp(a, "--raw")) {
      o->raw = 1;
    } else if ((val || !strcmp(a, "--offset")) && v == NULL) {
      return bad(o, "option '%s' needs a value", a);
    } else if (val) {
      *val = argv[++i];
    } else if (!strcmp(a, "--offset")) {
      if (parse_i64(argv[++i], &o->offset) != 0 || o->offset < 0)
        return bad(o, "--offset '%s' is not a byte offset", argv[i]);
    } else if (a[0] == '-' && a[1] != '\0') {
      return bad(o, "unknown option '%s'", a);
    } else if (o->path) {
      return bad(o, "one file at a time (also got '%s')", a);
    } else {
      o->path = a;
    }
  }
  if (o->path == NULL)
    return bad(o, "%s", "no file given");
  if (!o->raw && (o->type || o->shape || o->order || o->offset))
    return bad(o, "%s", "--type, --shape, --order and --offset go with --raw");
  return 0;
}

static int open_file(const opts_t *o, darray_file_t *f) {
  int rc = o->raw ? darray_file_open(MPI_COMM_WORLD, o->path,
                                     DARRAY_MODE_RDONLY, MPI_INFO_NULL, f)
                  : darray_dataset_open(MPI_COMM_WORLD, o->path,
                                        DARRAY_MODE_RDONLY, MPI_INFO_NULL, f);
  if (rc && o->rank == 0)
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, o->path, darray_errmsg(NULL),
            darray_err_name(rc));
  return rc;
}

static int inspect(const opts_t *o) {
  darray_file_t f = NULL;
  darray_member_info_t *m = NULL;
  int n = 0, rc = o->raw ? 0 : open_file(o, &f);
  if (rc)
    return 1;
  if ((rc = members(o, f, &m, &n)) != 0 || (o->raw && open_file(o, &f))) {
    free(m);
    if (f)
      darray_file_close(&f);
    return rc == 2 ? 2 : 1;
  }
  int64_t size = file_size(o->path);
  if (o->rank == 0) {
    printf("%s: %s, %d array%s, %" PRId64 " bytes\n", o->path,
           o->raw ? "raw" : strstr(o->path, ".npz") ? "npz" : "npy", n,
           n == 1 ? "" : "s", size);
    printf("  %-16s %-8s %-20s %-8s %12s %14s %s\n", "name", "type", "shape",
           "order", "offset", "bytes", "crc32");
    for (int i = 0; i < n; i++)
      print_member(&m[i]);
    if (o->explain)
      byte_map(o, m, n, size);
    fflush(stdout);
  }
  for (int i = 0; rc == 0 && o->explain && i < n; i++)
    rc = explain_member(o, f, &m[i]) ? 1 : 0;
  if (rc == 0 && o->verify)
    rc = verify(o, f, m, n, size) ? 1 : 0;
  free(m);
  if (f)
    darray_file_close(&f);
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  opts_t o = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &o.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &o.nprocs);
  int rc = parse(argc, argv, &o);
  if (rc == 0)
    rc = inspect(&o);
  MPI_Finalize();
  return rc < 0 ? 0 : rc;
}
