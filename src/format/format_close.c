/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * format_close.c - CRC-32 of datasets: keeping each process's share after
 * a write, checking a read or a whole file (darray_verify), and at close
 * combining the shares and writing the headers (rank 0).
 */
#include "format/format.h"
#include "async/async.h"
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XOR the shares of every process (collective; after an agreement). */
static int combine(MPI_Comm comm, uint32_t *parts, int n, char *msg) {
  MPI_Request req;
  if (n == 0)
    return DARRAY_SUCCESS;
  darray__coll();
  if (MPI_Iallreduce(MPI_IN_PLACE, parts, n, MPI_UINT32_T, MPI_BXOR, comm,
                     &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return darray__err(msg, DARRAY_EMPI, "MPI_Allreduce (CRC-32) failed");
  return DARRAY_SUCCESS;
}

/* DARRAY_ECRC for member m of f, whose data and header give got. */
static int mismatch(const fmt_file_t *z, const fmt_member_t *m, uint32_t got,
                    const char *what, char *msg) {
  return darray__err(msg, DARRAY_ECRC, "%s: %s: member '%s' is damaged: "
                     "CRC-32 expected 0x%08x (the archive's), computed "
                     "0x%08x from the file", what, z->path, m->info.name,
                     (unsigned)m->info.crc32, (unsigned)got);
}

/* Whether a whole read of member i checks its CRC: the hint, and a
 * recorded CRC (a dataset being written has none before its close). */
static bool read_checked(const darray_file_t f, int i) {
  return f->hints.verify_crc && !f->fmt->writing &&
         f->fmt->m[i].info.has_crc;
}

bool darray__format_crc_collective(darray_file_t f, int m, bool write,
                                   bool whole) {
  return m >= 0 && !write && whole && read_checked(f, m);
}

/* Whether a thread may compute a write's CRC share beside it: the hint,
 * or (automatic) whether this node runs fewer of the file's processes
 * than this process has cores (wait.c measured it at open; 0: unknown). */
static bool share_thread(const darray_file_t f) {
  if (f->hints.crc_thread != DARRAY_TRI_AUTO)
    return f->hints.crc_thread == DARRAY_TRI_ENABLE;
  return f->node_procs > 0 && f->node_procs < darray__cores();
}

void darray__format_crc_begin(darray_file_t f, int i, xfer_t *x, bool whole,
                              bool blocking, crc_share_t *sh) {
  if (i < 0 || !whole || !f->fmt->m[i].info.has_crc ||
      (!x->write && !read_checked(f, i)))
    return;
  const fmt_member_t *m = &f->fmt->m[i];
  sh->lo = m->info.offset;
  sh->len = m->info.bytes;
  sh->acc = (crc_acc_t)DARRAY_CRC_ACC_INIT;
  sh->view = x->a;
  sh->buf = x->buf;
  if (x->strategy->crc_share) { /* the same on every process */
    sh->how = CRC_SHARE_STRATEGY;
    x->crc = sh;
  } else if (!x->write) { /* a checked read: the owners' runs as they come */
    sh->how = CRC_SHARE_RUNS;
    sh->fed = INT64_MIN;
    x->crc = sh;
  } else if (blocking && share_thread(f) && darray__crc_share_start(sh)) {
    sh->how = CRC_SHARE_THREAD;
  } else {
    sh->how = CRC_SHARE_AFTER;
  }
}

/* This process's share of a whole-array write's CRC into m->part; false
 * when it cannot be had (out of memory, or the strategy wrote bytes not
 * the call's): the member is then read back at close. */
static bool keep_share(fmt_member_t *m, crc_share_t *sh,
                       const struct darray_s *v, const char *buf) {
  if (!m->info.has_crc) /* a .npy file records no CRC */
    return true;
  switch (sh->how) {
  case CRC_SHARE_STRATEGY:
    m->part = darray__crc_acc_end(&sh->acc, sh->len);
    return !sh->lost;
  case CRC_SHARE_THREAD:
    m->part = sh->r;
    return sh->rc == DARRAY_SUCCESS;
  default: /* AFTER, and NONE (a failure before the plan) */
    return darray__crc_runs(v, buf, m->info.offset, m->info.bytes,
                                   &m->part) == DARRAY_SUCCESS;
  }
}

int darray__format_crc_after(darray_file_t f, int i, const struct darray_s *v,
                             const char *buf, bool write, bool whole,
                             crc_share_t *sh, int rc, const char *what,
                             char *msg) {
  fmt_member_t *m = &f->fmt->m[i];
  if (write) { /* a failure here costs a read back at close, no more */
    bool ok = rc == DARRAY_SUCCESS && whole && keep_share(m, sh, v, buf);
    m->crc_state = ok ? DARRAY_FMT_CRC_RUNS : DARRAY_FMT_CRC_READBACK;
    return rc;
  }
  if (rc != DARRAY_SUCCESS || !whole || !read_checked(f, i))
    return rc;
  uint32_t part = 0;
  if (sh->how == CRC_SHARE_STRATEGY) /* the chunks this process read */
    part = darray__crc_acc_end(&sh->acc, sh->len);
  else if (sh->how == CRC_SHARE_RUNS) /* what came, and the rest */
    rc = darray__crc_runs_end(sh, &part);
  else
    rc = darray__crc_runs(v, buf, m->info.offset, m->info.bytes,
                                 &part);
  if (rc != DARRAY_SUCCESS)
    darray__err(msg, rc, "%s: checking the CRC-32 of '%s': out of memory",
                what, m->info.name);
  rc = darray__agree(f->comm, rc, msg);
  if (rc == DARRAY_SUCCESS)
    rc = combine(f->comm, &part, 1, msg);
  uint32_t crc = darray__crc_member(m->hdr_crc, part, m->info.bytes);
  if (rc == DARRAY_SUCCESS && crc != m->info.crc32)
    rc = mismatch(f->fmt, m, crc, what, msg);
  return rc;
}

/* Every member's R(data) from the file: each process reads a slice of
 * every member with want[i] set. Collective. */
static int read_back(darray_file_t f, const bool *want, uint32_t *parts,
                     char *msg) {
  fmt_file_t *z = f->fmt;
  int rc = DARRAY_SUCCESS;
  for (int i = 0; i < z->n && rc == DARRAY_SUCCESS; i++)
    if (want[i]) {
      rc = darray__crc_readback(f, z->m[i].info.offset, z->m[i].info.bytes,
                                f->hints.ind_rd_buffer_size, &parts[i]);
      if (rc != DARRAY_SUCCESS)
        darray__err(msg, rc, "reading member '%s' back for its CRC-32: %s",
                    z->m[i].info.name, darray_strerror(rc));
    }
  rc = darray__agree(f->comm, rc, msg);
  return rc == DARRAY_SUCCESS ? combine(f->comm, parts, z->n, msg) : rc;
}

int darray__dataset_verify(darray_file_t f) {
  int rc = darray__file_check(f);
  if (rc != DARRAY_SUCCESS)
    return rc;
  darray__file_drain(f); /* its collectives after the requests' */
  fmt_file_t *z = f->fmt;
  char *msg = f->errmsg;
  if (z == NULL || z->writing) /* the same on every process */
    return darray__err(msg, DARRAY_ESTATE, "f is not a dataset opened for "
                       "reading");
  uint32_t *parts = calloc((size_t)z->n + 1, sizeof *parts);
  bool *want = calloc((size_t)z->n + 1, sizeof *want);
  rc = parts == NULL || want == NULL
           ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
           : DARRAY_SUCCESS;
  rc = darray__agree(f->comm, rc, msg);
  for (int i = 0; rc == DARRAY_SUCCESS && i < z->n; i++)
    want[i] = z->m[i].info.has_crc;
  if (rc == DARRAY_SUCCESS)
    rc = read_back(f, want, parts, msg);
  for (int i = 0; rc == DARRAY_SUCCESS && i < z->n; i++) {
    const fmt_member_t *m = &z->m[i];
    uint32_t crc = darray__crc_member(m->hdr_crc, parts[i], m->info.bytes);
    if (want[i] && crc != m->info.crc32)
      rc = mismatch(z, m, crc, "darray_verify", msg);
  }
  free(parts);
  free(want);
  return rc;
}

/* Rank 0, before members are read back: a member whose last byte was
 * never written would make the file end early; that byte is zero. */
static int fill_ends(darray_file_t f, io_call_t *c, const bool *want) {
  fmt_file_t *z = f->fmt;
  int rc = DARRAY_SUCCESS;
  for (int i = 0; i < z->n && rc == DARRAY_SUCCESS; i++) {
    const fmt_member_t *m = &z->m[i];
    char b = 0;
    if (!want[i] || m->info.bytes == 0)
      continue;
    rc = darray__io_pread(c, &b, 1, m->info.offset + m->info.bytes - 1);
    if (rc == DARRAY_EEOF)
      rc = darray__io_pwrite(c, &b, 1, m->info.offset + m->info.bytes - 1);
  }
  return rc;
}

/* Rank 0's part of the close: fill ends (already done) and headers. */
static int rank0_write(darray_file_t f, const uint32_t *parts, char *msg) {
  fmt_file_t *z = f->fmt;
  for (int i = 0; i < z->n; i++) {
    fmt_member_t *m = &z->m[i];
    m->info.crc32 = darray__crc_member(m->hdr_crc, parts[i], m->info.bytes);
  }
  if (f->rank != 0)
    return DARRAY_SUCCESS;
  darray_stats_t st = {0};
  io_call_t c;
  darray__io_call_init(&c, &f->io, &st);
  int rc = z->ops->close(f, &c, msg);
  if (rc != DARRAY_SUCCESS && msg[0] == '\0')
    darray__err(msg, rc, "writing the headers of the dataset: %s%s%s",
                darray_strerror(rc), darray__io_call_cause(&c)[0] ? ": " : "",
                darray__io_call_cause(&c));
  f->stats.bytes_written += st.bytes_written;
  f->stats.write_calls += st.write_calls;
  return rc;
}

/* OR of want[0..n) over every process (collective). */
static int agree_wanted(MPI_Comm comm, bool *want, int n, char *msg) {
  MPI_Request req;
  if (n == 0)
    return DARRAY_SUCCESS;
  darray__coll();
  if (MPI_Iallreduce(MPI_IN_PLACE, want, n, MPI_C_BOOL, MPI_LOR, comm,
                     &req) != MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return darray__err(msg, DARRAY_EMPI, "MPI_Allreduce (which members "
                       "to read back for their CRC-32) failed");
  return DARRAY_SUCCESS;
}

static int close_writing(darray_file_t f, char *msg) {
  fmt_file_t *z = f->fmt;
  if (!z->ops->members && z->n == 0)
    return darray__err(msg, DARRAY_ESTATE, "darray_file_close: no array "
                       "was defined in the %s file; it has no header",
                       z->ops->suffix);
  uint32_t *parts = calloc((size_t)z->n + 1, sizeof *parts);
  bool *want = calloc((size_t)z->n + 1, sizeof *want), any = false;
  int rc = parts == NULL || want == NULL
               ? darray__err(msg, DARRAY_ENOMEM, "out of memory")
               : DARRAY_SUCCESS;
  for (int i = 0; rc == DARRAY_SUCCESS && i < z->n; i++)
    want[i] = z->m[i].crc_state == DARRAY_FMT_CRC_READBACK;
  /* a share that one process could not keep (out of memory, a chunk
   * written back with its holes) has every process read the member back:
   * the processes agree on which members, then all of them read (after
   * agreeing that every process has its arrays: all or none take part) */
  rc = darray__agree(f->comm, rc, msg);
  if (rc == DARRAY_SUCCESS)
    rc = agree_wanted(f->comm, want, z->n, msg);
  for (int i = 0; rc == DARRAY_SUCCESS && i < z->n; i++)
    any = any || want[i];
  if (rc == DARRAY_SUCCESS && any && f->rank == 0) {
    darray_stats_t st = {0};
    io_call_t c;
    darray__io_call_init(&c, &f->io, &st);
    if ((rc = fill_ends(f, &c, want)) != DARRAY_SUCCESS)
      darray__err(msg, rc, "extending the file to its last member: %s",
                  darray_strerror(rc));
  }
  rc = darray__agree(f->comm, rc, msg);
  bool back = false; /* a .npy member records no CRC: never read back */
  for (int i = 0; rc == DARRAY_SUCCESS && i < z->n; i++) {
    want[i] = want[i] && z->m[i].info.has_crc;
    back = back || want[i];
    parts[i] = want[i] ? 0 : z->m[i].part;
  }
  if (rc == DARRAY_SUCCESS && back)
    rc = read_back(f, want, parts, msg);
  else if (rc == DARRAY_SUCCESS)
    rc = combine(f->comm, parts, z->n, msg);
  if (rc == DARRAY_SUCCESS)
    rc = rank0_write(f, parts, msg);
  free(parts);
  free(want);
  return darray__agree(f->comm, rc, msg);
}

void darray__format_drop(darray_file_t f) {
  fmt_file_t *z = f->fmt;
  if (z != NULL) {
    free(z->m);
    free(z);
  }
  f->fmt = NULL;
}

int darray__format_close(darray_file_t f, char *msg) {
  fmt_file_t *z = f->fmt;
  if (z == NULL)
    return DARRAY_SUCCESS;
  int rc = z->writing && z->ops->close != NULL ? close_writing(f, msg)
                                               : DARRAY_SUCCESS;
  free(z->m);
  free(z);
  f->fmt = NULL;
  return rc;
}
