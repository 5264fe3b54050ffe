/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * badinput_dataset.h - test_badinput's hostile datasets (included by
 * test_badinput.c, whose table has a row per damage).
 *
 * Every process writes, through the library, a good archive of three
 * stored members, "a" and "b" (int32[8], the same size, so that one can
 * be pointed at the other) and "cc" (double[4][2]), and a good .npy file.
 * For a row, rank 0 damages a copy of those bytes at a field it finds
 * itself from the ZIP and NumPy definitions (signatures, fixed offsets),
 * not through the library's parser; every process then opens the copy
 * for reading and must get the row's code, with a message naming what is
 * wrong. The run under AddressSanitizer (make sanitize) checks that no
 * read leaves the buffers.
 */
#ifndef DARRAYIO_BADINPUT_DATASET_H
#define DARRAYIO_BADINPUT_DATASET_H

/* The good images, made once by ds_make(). */
typedef struct ds_env {
  char good_npz[600], good_npy[600], bad[2][600];
  unsigned char *npz, *npy;
  int64_t npz_len, npy_len;
} ds_env_t;

static ds_env_t ds;

typedef enum ds_damage {
  DS_TRUNC_END,     /* cut inside the end record */
  DS_TRUNC_HALF,    /* cut in the middle of the members */
  DS_EMPTY,         /* zero bytes */
  DS_CD_OUTSIDE,    /* the central directory's offset past the end */
  DS_CD_SIZE,       /* its size larger than the file */
  DS_COUNT,         /* 65534 entries in a directory of three */
  DS_LH_OUTSIDE,    /* a local header offset past the directory */
  DS_NAME_SLASH,    /* member "a" renamed "/" */
  DS_NAME_DOTDOT,   /* member "cc" renamed ".." */
  DS_OVERLAP,       /* "b" points at "a"'s local header */
  DS_COMPRESSED,    /* "a" says deflated */
  DS_SHAPE_HUGE,    /* "a"'s shape (2^62, 4) */
  DS_SHAPE_NEG,     /* "a"'s shape (-8,) */
  DS_SHAPE_9D,      /* "a"'s shape of 9 dimensions */
  DS_HDR_LEN,       /* "a"'s .npy header length 65535 */
  DS_NPY_V2_HUGE,   /* .npy version 2 with a 2^31-byte header */
  DS_NPY_TRUNC,     /* .npy cut inside its data */
  DS_NPY_NOT,       /* .npy without the magic */
} ds_damage_t;

static int64_t ds_get32(const unsigned char *p) {
  return p[0] | p[1] << 8 | p[2] << 16 | (int64_t)p[3] << 24;
}
static void ds_put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void ds_put32(unsigned char *p, uint32_t v) {
  ds_put16(p, v & 0xffff);
  ds_put16(p + 2, v >> 16);
}

/* The offset of the k-th (0-based) signature sig, or -1. */
static int64_t ds_find(const unsigned char *b, int64_t n, uint32_t sig,
                       int k) {
  for (int64_t i = 0; i + 4 <= n; i++)
    if (ds_get32(b + i) == sig && k-- == 0)
      return i;
  return -1;
}
#define DS_LOCAL UINT32_C(0x04034b50)
#define DS_CENTRAL UINT32_C(0x02014b50)
#define DS_END UINT32_C(0x06054b50)

/* Replace the dictionary of the .npy header at h (its length unchanged:
 * the new one padded with spaces, the newline kept). */
static void ds_dict(unsigned char *h, const char *dict) {
  int64_t hl = h[8] | h[9] << 8, n = (int64_t)strlen(dict);
  memset(h + 10, ' ', (size_t)hl - 1);
  memcpy(h + 10, dict, (size_t)(n < hl - 1 ? n : hl - 1));
}

/* Damage a copy of the good image; *len its new length. */
static unsigned char *ds_damage(ds_damage_t d, int64_t *len) {
  bool npy = d >= DS_NPY_V2_HUGE;
  int64_t n = npy ? ds.npy_len : ds.npz_len;
  unsigned char *b = malloc((size_t)n);
  memcpy(b, npy ? ds.npy : ds.npz, (size_t)n);
  *len = n;
  int64_t end = ds_find(b, n, DS_END, 0);
  int64_t c0 = ds_find(b, n, DS_CENTRAL, 0), c1 = ds_find(b, n, DS_CENTRAL, 1);
  int64_t c2 = ds_find(b, n, DS_CENTRAL, 2), l0 = ds_find(b, n, DS_LOCAL, 0);
  /* member a's .npy: after its local header, name and extra field */
  unsigned char *ha = npy ? b : b + l0 + 30 + (b[l0 + 26] | b[l0 + 27] << 8) +
                                    (b[l0 + 28] | b[l0 + 29] << 8);
  switch (d) {
  case DS_TRUNC_END: *len = end + 10; break;
  case DS_TRUNC_HALF: *len = c0 / 2; break;
  case DS_EMPTY: *len = 0; break;
  case DS_CD_OUTSIDE: ds_put32(b + end + 16, UINT32_C(0x7fff0000)); break;
  case DS_CD_SIZE: ds_put32(b + end + 12, (uint32_t)n); break;
  case DS_COUNT: ds_put16(b + end + 8, 0xfffe), ds_put16(b + end + 10, 0xfffe);
    break;
  case DS_LH_OUTSIDE: ds_put32(b + c1 + 42, (uint32_t)c0 + 100); break;
  case DS_NAME_SLASH: b[c0 + 46] = '/'; break;
  case DS_NAME_DOTDOT: b[c2 + 46] = b[c2 + 47] = '.'; break;
  case DS_OVERLAP: ds_put32(b + c1 + 42, (uint32_t)ds_get32(b + c0 + 42));
    break;
  case DS_COMPRESSED: ds_put16(b + c0 + 10, 8); break;
  case DS_SHAPE_HUGE:
    ds_dict(ha, "{'descr': '<i4', 'fortran_order': False, "
                "'shape': (4611686018427387904, 4), }");
    break;
  case DS_SHAPE_NEG:
    ds_dict(ha, "{'descr': '<i4', 'fortran_order': False, 'shape': (-8,), }");
    break;
  case DS_SHAPE_9D:
    ds_dict(ha, "{'descr': '<i4', 'fortran_order': False, "
                "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 8), }");
    break;
  case DS_HDR_LEN: ds_put16(ha + 8, 0xffff); break;
  case DS_NPY_V2_HUGE: ha[6] = 2, ds_put32(ha + 8, UINT32_C(0x80000000));
    break;
  case DS_NPY_TRUNC: *len = n - 3; break;
  case DS_NPY_NOT: ha[1] = 'X'; break;
  }
  return b;
}

/* Collective: the good images, written by the library. */
static bool ds_make(const char *dir) {
  snprintf(ds.good_npz, sizeof ds.good_npz, "%s/good.npz", dir);
  snprintf(ds.good_npy, sizeof ds.good_npy, "%s/good.npy", dir);
  snprintf(ds.bad[0], sizeof ds.bad[0], "%s/bad.npz", dir);
  snprintf(ds.bad[1], sizeof ds.bad[1], "%s/bad.npy", dir);
  static const char *const names[3] = {"a", "b", "cc"};
  int64_t g[3][2] = {{8}, {8}, {4, 2}};
  darray_t a[3] = {NULL, NULL, NULL};
  darray_file_t f = NULL, f1 = NULL;
  int ok = 1, mode = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  ok &= darray_dataset_open(MPI_COMM_WORLD, ds.good_npz, mode, MPI_INFO_NULL,
                            &f) == 0;
  ok &= darray_dataset_open(MPI_COMM_WORLD, ds.good_npy, mode, MPI_INFO_NULL,
                            &f1) == 0;
  for (int i = 0; ok && i < 3; i++) {
    ok &= darray_create(MPI_COMM_WORLD, i < 2 ? 1 : 2, g[i],
                        i < 2 ? DARRAY_INT32 : DARRAY_DOUBLE, &a[i]) == 0;
    ok &= ok && darray_commit(a[i]) == 0 &&
          darray_define(f, names[i], a[i]) == 0;
    int64_t nb = 0;
    darray_local_bytes(a[i], &nb);
    char *buf = calloc((size_t)nb + 1, 1);
    ok &= ok && darray_write(f, a[i], buf) == 0;
    if (i == 0)
      ok &= ok && darray_define(f1, NULL, a[0]) == 0 &&
            darray_write(f1, a[0], buf) == 0;
    free(buf);
  }
  ok &= f != NULL && darray_file_close(&f) == 0;
  ok &= f1 != NULL && darray_file_close(&f1) == 0;
  for (int i = 0; i < 3; i++)
    darray_free(&a[i]);
  ds.npz = tu_read_file(ds.good_npz, &ds.npz_len);
  ds.npy = tu_read_file(ds.good_npy, &ds.npy_len);
  return TU_CHECK(ok && ds.npz != NULL && ds.npy != NULL);
}

static void ds_remove(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (tu_rank() == 0) {
    remove(ds.good_npz);
    remove(ds.good_npy);
    remove(ds.bad[0]);
    remove(ds.bad[1]);
  }
  free(ds.npz);
  free(ds.npy);
}

/* A row: rank 0 writes the damaged copy, every process opens it. */
static int run_dataset(env_t *e, const void *arg) {
  ds_damage_t d = *(const ds_damage_t *)arg;
  const char *path = ds.bad[d >= DS_NPY_V2_HUGE];
  int64_t len = 0;
  if (ds.npz == NULL || ds.npy == NULL)
    return DARRAY_EIO; /* ds_make failed and said so */
  if (e->me == 0) {
    unsigned char *b = ds_damage(d, &len);
    TU_OK(tu_write_file(path, b, len));
    free(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  darray_file_t f = NULL;
  int rc = darray_dataset_open(MPI_COMM_WORLD, path, DARRAY_MODE_RDONLY,
                               MPI_INFO_NULL, &f);
  keep(e, darray_file_errmsg(NULL));
  if (rc == DARRAY_SUCCESS && (d == DS_COMPRESSED || d == DS_SHAPE_9D)) {
    /* a member darrayio cannot read is listed, not fatal to the archive:
     * the open succeeds and defining it is refused (doc/formats.md) */
    darray_t a = NULL;
    int64_t g = 8;
    TU_OK(darray_create(MPI_COMM_WORLD, 1, &g, DARRAY_INT32, &a));
    TU_OK(darray_commit(a));
    rc = darray_define(f, "a", a);
    keep(e, darray_file_errmsg(f));
    darray_free(&a);
  }
  if (f != NULL)
    darray_file_close(&f);
  return rc;
}

#define DS(x) (&(const ds_damage_t){x})

#endif /* DARRAYIO_BADINPUT_DATASET_H */
