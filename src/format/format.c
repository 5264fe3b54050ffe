/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * format.c - datasets: open by suffix, parse on rank 0 and broadcast, bind
 * array handles to members (darray_define), and the hook that places a
 * read or write call at its member's data (doc/formats.md).
 */
#include "format/format.h"
#include "async/async.h"
#include "agree.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The most members darrayio reads from one archive. */
#define MEMBERS_MAX (1 << 20)

/* The local checks of darray_dataset_open. */
static int open_args(const char *path, int mode, char *msg) {
  if (path == NULL)
    return darray__err(msg, DARRAY_ENULL, "path is NULL");
#ifndef HAVE_ZLIB
  return darray__err(msg, DARRAY_ENOTSUP, "darrayio was built without "
                     "zlib, which datasets need for CRC-32");
#endif
  if (darray__format_of_path(path) == NULL) {
    char ends[64];
    darray__format_suffixes(ends, sizeof ends);
    return darray__err(msg, DARRAY_EINVAL, "path: a dataset's name ends in "
                       "%s (raw files: darray_file_open)", ends);
  }
  int create = DARRAY_MODE_RDWR | DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC;
  if (mode != DARRAY_MODE_RDONLY && mode != create)
    return darray__err(msg, DARRAY_EMODE, "mode = %d: a dataset is read "
                       "(DARRAY_MODE_RDONLY) or created whole (RDWR | "
                       "CREATE | TRUNC), not updated", mode);
  return DARRAY_SUCCESS;
}

/* Reading the file being parsed through its back end. */
typedef struct file_reader {
  io_call_t call;
  darray_stats_t stats;
} file_reader_t;

static int file_read(void *ctx, void *buf, int64_t len, int64_t off) {
  file_reader_t *fr = ctx;
  return darray__io_pread(&fr->call, buf, len, off);
}

static int file_size(darray_file_t f, int64_t *size, char *msg) {
  struct stat st;
  MPI_Offset s = 0;
  if (f->io.fd >= 0 && fstat(f->io.fd, &st) == 0)
    *size = (int64_t)st.st_size;
  else if (f->io.fh != MPI_FILE_NULL &&
           MPI_File_get_size(f->io.fh, &s) == MPI_SUCCESS)
    *size = (int64_t)s;
  else
    return darray__err(msg, DARRAY_EIO, "cannot find the file's size");
  return DARRAY_SUCCESS;
}

/* Rank 0's parse of the file into z. */
static int parse(darray_file_t f, fmt_file_t *z, char *msg) {
  file_reader_t fr;
  memset(&fr, 0, sizeof fr);
  darray__io_call_init(&fr.call, &f->io, &fr.stats);
  fmt_reader_t r = {&fr, 0, file_read};
  int rc = file_size(f, &r.size, msg);
  return rc == DARRAY_SUCCESS ? z->ops->verify(&r, z, msg) : rc;
}

static int bcast(void *buf, int64_t n, MPI_Comm comm) {
  MPI_Request req;
  if (MPI_Ibcast(buf, (int)n, MPI_BYTE, 0, comm, &req) != MPI_SUCCESS)
    return DARRAY_EMPI;
  return darray__wait(&req);
}

/* Rank 0 parses; every process gets the result or the same error. */
static int load(darray_file_t f, fmt_file_t *z, const char *path,
                char *msg) {
  int rc = f->rank == 0 ? parse(f, z, msg) : DARRAY_SUCCESS;
  if (rc != DARRAY_SUCCESS) { /* the path, then what is wrong */
    char inner[DARRAY_ERRMSG_LEN], p[DARRAY_PATH_SHOWN + 8];
    memcpy(inner, msg, sizeof inner);
    darray__err(msg, rc, "%s: %.300s", darray__short_path(path, p, sizeof p),
                inner);
  }
  if (rc == DARRAY_SUCCESS && z->n > MEMBERS_MAX)
    rc = darray__err(msg, DARRAY_ENOTSUP, "%s: more than %d members",
                     z->ops->suffix, MEMBERS_MAX);
  int hdr[2] = {rc, z->n};
  if (bcast(hdr, sizeof hdr, f->comm) != DARRAY_SUCCESS ||
      bcast(msg, DARRAY_ERRMSG_LEN, f->comm) != DARRAY_SUCCESS)
    return darray__err(msg, DARRAY_EMPI, "MPI_Bcast failed");
  if (hdr[0] != DARRAY_SUCCESS)
    return hdr[0];
  if (f->rank != 0) {
    z->n = hdr[1];
    z->m = calloc((size_t)(z->n > 0 ? z->n : 1), sizeof *z->m);
  }
  rc = z->m == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                    : DARRAY_SUCCESS;
  rc = darray__agree(f->comm, rc, msg);
  if (rc == DARRAY_SUCCESS && z->n > 0 &&
      bcast(z->m, (int64_t)sizeof *z->m * z->n, f->comm) != DARRAY_SUCCESS)
    rc = darray__err(msg, DARRAY_EMPI, "MPI_Bcast failed");
  return rc;
}

static void fmt_free(fmt_file_t *z) {
  if (z != NULL)
    free(z->m);
  free(z);
}

int darray__dataset_open(MPI_Comm comm, const char *path, int mode,
                         MPI_Info info, darray_file_t *out) {
  char *msg = darray__errbuf_nohandle();
  msg[0] = '\0';
  if (out == NULL)
    return darray__err(msg, DARRAY_ENULL, "f (the output handle) is NULL");
  *out = NULL;
  int inter = 0;
  int rc0 = darray__mpi_ready(msg); /* before any MPI call */
  if (rc0 != DARRAY_SUCCESS)
    return rc0;
  if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != 0 ||
      inter)
    return darray__err(msg, DARRAY_ECOMM, "comm is MPI_COMM_NULL, invalid or "
                                          "an intercommunicator");
  int rc = darray__agree(comm, open_args(path, mode, msg), msg);
  darray_file_t f = NULL;
  if (rc == DARRAY_SUCCESS)
    rc = darray__file_open(comm, path, mode, info, true, &f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  fmt_file_t *z = calloc(1, sizeof *z);
  if (z != NULL) {
    z->ops = darray__format_of_path(path);
    z->writing = mode != DARRAY_MODE_RDONLY;
    z->align = f->hints.striping_unit > 0 ? f->hints.striping_unit : 4096;
    darray__short_path(path, z->path, sizeof z->path);
  }
  rc = z == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                 : DARRAY_SUCCESS;
  rc = darray__agree(f->comm, rc, msg);
  if (rc == DARRAY_SUCCESS && !z->writing)
    rc = load(f, z, path, msg);
  if (rc != DARRAY_SUCCESS) {
    char keep[DARRAY_ERRMSG_LEN];
    memcpy(keep, msg, sizeof keep);
    fmt_free(z);
    darray__file_close(&f);
    memcpy(msg, keep, sizeof keep);
    return rc;
  }
  f->fmt = z;
  f->hooks[DARRAY_HOOKS_FORMAT] = (file_hooks_t){
      .close = darray__format_close, .drop = darray__format_drop};
  *out = f;
  return DARRAY_SUCCESS;
}

/* ---- darray_define */

/* The member an array handle is bound to, or -1. */
static int bound(const fmt_file_t *z, uint64_t id) {
  for (int i = 0; i < z->n; i++)
    if (z->m[i].array == id)
      return i;
  return -1;
}

static int named(const fmt_file_t *z, const char *name) {
  for (int i = 0; i < z->n; i++)
    if (strcmp(z->m[i].info.name, name) == 0)
      return i;
  return -1;
}

/* The member darray_define binds by name: the only one where members have
 * no name. */
static int member_of(const fmt_file_t *z, const char *name) {
  return z->ops->members ? named(z, name) : 0;
}

/* What a description says of a member. */
static void describe(const struct darray_s *a, const char *name,
                     darray_member_info_t *m) {
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", name);
  m->type = a->d.type;
  m->elem_size = a->d.esize;
  m->ndims = a->d.ndims;
  memcpy(m->gsizes, a->d.gsizes, sizeof m->gsizes);
  memcpy(m->perm, a->d.perm, sizeof m->perm);
  m->order = a->d.file_order;
}

/* Reading: a must describe member m (any distribution). */
static int matches(const darray_member_info_t *m, const struct darray_s *a,
                   char *msg) {
  darray_member_info_t d;
  describe(a, m->name, &d);
  if (d.type != m->type || d.elem_size != m->elem_size)
    return darray__err(msg, DARRAY_EINVAL, "a: member '%s' has element type "
                       "%d of %lld bytes, the array %d of %lld", m->name,
                       (int)m->type, (long long)m->elem_size, (int)d.type,
                       (long long)d.elem_size);
  if (d.ndims != m->ndims)
    return darray__err(msg, DARRAY_EINVAL, "a: member '%s' has %d "
                       "dimensions, the array %d", m->name, m->ndims,
                       d.ndims);
  bool F = darray__fortran(); /* dimensions, positions: 1-based there */
  for (int i = 0; i < m->ndims; i++)
    if (d.gsizes[i] != m->gsizes[i] || d.perm[i] != m->perm[i])
      return darray__err(msg, DARRAY_EINVAL, "a: member '%s' differs in "
                         "dimension %lld: size %lld, storage position %lld; "
                         "the array: %lld, %lld", m->name, darray__ix(F, i),
                         (long long)m->gsizes[i], darray__ix(F, m->perm[i]),
                         (long long)d.gsizes[i], darray__ix(F, d.perm[i]));
  return DARRAY_SUCCESS;
}

static int define_args(darray_file_t f, const char *name, darray_t a,
                       char *msg) {
  const fmt_file_t *z = f->fmt;
  int cmp = MPI_UNEQUAL;
  char descr[32];
  if (z == NULL)
    return darray__err(msg, DARRAY_ESTATE, "f is a raw file, not a dataset "
                       "(darray_dataset_open)");
  if (!a->committed)
    return darray__err(msg, DARRAY_ESTATE, "a: the array is not committed");
  if (darray__array_real(a, msg) != DARRAY_SUCCESS)
    return DARRAY_ECOMM;
  MPI_Comm_compare(f->comm, a->comm, &cmp);
  if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
    return darray__err(msg, DARRAY_ECOMM, "the file's and the array's "
                       "communicators differ");
  bool many = z->ops->members;
  if (many && name == NULL)
    return darray__err(msg, DARRAY_ENULL, "name is NULL");
  if (many && !darray__zip_name_ok(name, strlen(name)))
    return darray__err(msg, DARRAY_EINVAL, "name '%.60s': 1 to %d bytes, no "
                       "'/', '\\', '..' or control characters", name,
                       DARRAY_NAME_MAX);
  if (bound(z, a->id) >= 0)
    return darray__err(msg, DARRAY_EINVAL, "a is already bound to member "
                       "'%s' of this file", z->m[bound(z, a->id)].info.name);
  if (!z->writing) {
    int i = member_of(z, name);
    if (i < 0)
      return darray__err(msg, DARRAY_EINVAL, "name '%s': the archive has "
                         "no such member", name);
    const fmt_member_t *m = &z->m[i];
    if (m->info.status != DARRAY_SUCCESS)
      return darray__err(msg, m->info.status, "member '%s'%s%s%s cannot be "
                         "read: %s", m->info.name,
                         m->info.descr[0] ? " (NumPy type " : "",
                         m->info.descr, m->info.descr[0] ? ")" : "",
                         m->why);
    return matches(&m->info, a, msg);
  }
  if (!many && z->n > 0)
    return darray__err(msg, DARRAY_EINVAL, "a %s file holds one array "
                       "(use .npz for several)", z->ops->suffix);
  if (many && named(z, name) >= 0)
    return darray__err(msg, DARRAY_EINVAL, "name '%s' is already defined",
                       name);
  return darray__npy_descr(a->d.type, a->d.esize, descr, sizeof descr, msg);
}

/* A new member for a at the end of the file (the same on every process). */
static int add_member(darray_file_t f, const char *name, darray_t a,
                      char *msg) {
  fmt_file_t *z = f->fmt;
  if (z->n == z->cap) {
    int cap = z->cap ? 2 * z->cap : 8;
    fmt_member_t *m = realloc(z->m, sizeof *m * (size_t)cap);
    if (m == NULL)
      return darray__err(msg, DARRAY_ENOMEM, "out of memory");
    z->m = m;
    z->cap = cap;
  }
  fmt_member_t *m = &z->m[z->n];
  memset(m, 0, sizeof *m);
  describe(a, "", &m->info);
  z->ops->inquire(name, &m->info);
  m->info.bytes = a->d.fstride[a->d.perm[0]] * a->d.gsizes[a->d.perm[0]];
  m->array = a->id;
  char *h = malloc(DARRAY_NPY_HEADER_MAX);
  int64_t align = darray__format_npy_align(z);
  int rc = h == NULL ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
                     : darray__npy_header(&m->info, 0, align, h, &m->npy_len,
                                          msg);
  if (rc == DARRAY_SUCCESS)
    m->hdr_crc = darray__crc_bytes(h, m->npy_len);
  free(h);
  if (rc == DARRAY_SUCCESS)
    rc = z->ops->place(z, m, msg);
  if (rc == DARRAY_SUCCESS)
    z->n++;
  return rc;
}

int darray__dataset_define(darray_file_t f, const char *name, darray_t a) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS)
    rc = darray__array_check(a);
  if (rc != DARRAY_SUCCESS)
    return rc; /* no usable handle: cannot agree (as darray_write) */
  darray__file_drain(f); /* the members change under no request */
  char *msg = f->errmsg;
  rc = define_args(f, name, a, msg);
  const char *key = name != NULL && f->fmt != NULL && f->fmt->ops->members
                        ? name
                        : "";
  int64_t vals[2] = {(int64_t)darray__hash(0, key, strlen(key)),
                     a->desc_hash};
  int bad = -1;
  rc = darray__agree_check(f->comm, rc, msg, vals, 2, &bad);
  if (rc == DARRAY_EINCONSISTENT)
    return darray__err(msg, rc, "darray_define: processes passed different "
                       "%s", bad == 0 ? "names" : "array descriptions");
  if (rc != DARRAY_SUCCESS)
    return rc;
  fmt_file_t *z = f->fmt;
  if (!z->writing) {
    z->m[member_of(z, name)].array = a->id;
    return DARRAY_SUCCESS;
  }
  return add_member(f, name, a, msg); /* fails alike everywhere */
}

int darray__dataset_num_members(darray_file_t f, int *n) {
  int rc = darray__file_check(f);
  if (rc == DARRAY_SUCCESS && n == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "n is NULL");
  if (rc == DARRAY_SUCCESS && f->fmt == NULL)
    rc = darray__err(f->errmsg, DARRAY_ESTATE, "f is not a dataset");
  if (rc == DARRAY_SUCCESS)
    *n = f->fmt->n;
  return rc;
}

int darray__dataset_inquire(darray_file_t f, int index,
                            darray_member_info_t *info) {
  int n = 0;
  int rc = darray__dataset_num_members(f, &n);
  if (rc == DARRAY_SUCCESS && info == NULL)
    rc = darray__err(f->errmsg, DARRAY_ENULL, "info is NULL");
  if (rc == DARRAY_SUCCESS && (index < 0 || index >= n))
    rc = darray__err(f->errmsg, DARRAY_EINDEX, "index = %lld is not in %s: "
                     "the file has %d members",
                     darray__ix(darray__fortran(), index),
                     darray__ix_range(darray__fortran(), n, DARRAY_IXBUF), n);
  if (rc == DARRAY_SUCCESS)
    *info = f->fmt->m[index].info;
  return rc;
}

/* ---- the hooks of a read or write call */

int darray__format_place(darray_file_t f, const struct darray_s *a,
                         struct darray_s *view, int *member, char *msg) {
  *view = *a;
  *member = -1;
  if (f->fmt == NULL)
    return DARRAY_SUCCESS;
  int i = bound(f->fmt, a->id);
  if (i < 0)
    return darray__err(msg, DARRAY_ESTATE, "a: the array is not bound to "
                       "a member of this dataset (darray_define)");
  *member = i;
  view->d.disp = f->fmt->m[i].info.offset;
  return DARRAY_SUCCESS;
}

void darray__format_begin(darray_file_t f, int m, xfer_t *x, bool whole,
                          bool blocking, crc_share_t *sh) {
  memset(sh, 0, sizeof *sh);
  const fmt_ops_t *o = darray__format_line(f->fmt);
  if (m >= 0 && o->begin != NULL)
    o->begin(f, m, x, whole, blocking, sh);
}

int darray__format_after(darray_file_t f, int m, const struct darray_s *view,
                         const char *buf, bool write, bool whole,
                         crc_share_t *sh, int rc, const char *what,
                         char *msg) {
  if (sh->how == CRC_SHARE_THREAD) /* whatever became of the write */
    darray__crc_share_join(sh);
  const fmt_ops_t *o = darray__format_line(f->fmt);
  if (m < 0 || o->after == NULL)
    return rc;
  return o->after(f, m, view, buf, write, whole, sh, rc, what, msg);
}

bool darray__format_after_collective(darray_file_t f, int m, bool write,
                                     bool whole) {
  const fmt_ops_t *o = darray__format_line(f->fmt);
  return m >= 0 && o->after_collective != NULL &&
         o->after_collective(f, m, write, whole);
}
