/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fault_wrap.c - the wrappers behind fault_wrap.h (for tests only).
 *
 * Each __wrap_X is what the library's (and the test's) references to X
 * reach when the program is linked with -Wl,--wrap=X; __real_X is the
 * real function. MPI's own allocations are made inside libmpi.so, whose
 * references --wrap does not touch, so only the library's are counted.
 *
 * The state is one process-wide set of counters: the test programs are
 * single-threaded, and the wrappers are armed only around library calls.
 */
#include "fault_wrap.h"

#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define FW_MAX_DOOMED 64 /* requests that will report a failure */
#define FW_SCRIBBLE 0xEE /* what a failed receive leaves in its buffer */

static const char *const names[FW_NKINDS] = {
    "alloc",      "isend",     "irecv",         "ibcast",       "iallreduce",
    "iallgather", "comm_dup",  "comm_free",     "dims_create",  "attr",
    "info_get",   "file_open", "file_set_size", "file_read_at", "file_write_at",
    "file_sync",  "file_close"};

/* A posted request whose completion is to report err; its receive buffer
 * (buf, bytes) is scribbled over then. */
typedef struct doomed {
  MPI_Request req;
  void *buf;
  size_t bytes;
  int err;
} doomed_t;

static struct {
  bool armed;
  int64_t calls[FW_NKINDS];
  int64_t injected;
  int kind; /* the rule; index 0: none */
  int64_t index;
  int err;
  doomed_t doomed[FW_MAX_DOOMED];
  int ndoomed;
} fw;

const char *fw_name(int kind) {
  return kind >= 0 && kind < FW_NKINDS ? names[kind] : "?";
}

void fw_reset(void) {
  bool armed = fw.armed;
  memset(&fw, 0, sizeof fw);
  fw.armed = armed;
}

void fw_rule(int kind, int64_t index, int err) {
  fw.kind = kind;
  fw.index = index;
  fw.err = err;
}

void fw_arm(bool on) { fw.armed = on; }

int64_t fw_calls(int kind) {
  return kind >= 0 && kind < FW_NKINDS ? fw.calls[kind] : -1;
}

int64_t fw_injected(void) { return fw.injected; }

/* Count a call of kind; whether it is the one to fail. */
static bool hit(int kind) {
  if (!fw.armed)
    return false;
  int64_t k = ++fw.calls[kind];
  if (fw.index == 0 || kind != fw.kind || k != fw.index)
    return false;
  fw.injected++;
  return true;
}

/* ---- allocations ---------------------------------------------------------
 */

void *__real_malloc(size_t n);
void *__real_calloc(size_t m, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t m, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t n) {
  if (hit(FW_ALLOC)) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_malloc(n);
}

void *__wrap_calloc(size_t m, size_t n) {
  if (hit(FW_ALLOC)) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_calloc(m, n);
}

void *__wrap_realloc(void *p, size_t n) {
  if (hit(FW_ALLOC)) {
    errno = ENOMEM;
    return NULL; /* p stays allocated, as with a real failure */
  }
  return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s) {
  if (hit(FW_ALLOC)) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_strdup(s);
}

/* ---- requests: posted for real, failed at completion ---------------------
 */

int __real_MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]);
int __wrap_MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]);

static void doom(MPI_Request req, void *buf, size_t bytes) {
  if (fw.ndoomed < FW_MAX_DOOMED)
    fw.doomed[fw.ndoomed++] = (doomed_t){req, buf, bytes, fw.err};
}

static size_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return count > 0 && size > 0 ? (size_t)count * (size_t)size : 0;
}

/* Which doomed entry holds req, or -1. */
static int doomed_at(MPI_Request req) {
  for (int i = 0; i < fw.ndoomed; i++)
    if (fw.doomed[i].req == req)
      return i;
  return -1;
}

/*
 * The completion reports the failure of a doomed request it completes:
 * the operation did complete (no other process waits for it), but this
 * process is told it failed and its receive buffer holds garbage.
 */
int __wrap_MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]) {
  if (fw.ndoomed == 0)
    return __real_MPI_Testall(n, r, flag, st);
  int mine[FW_MAX_DOOMED], nmine = 0;
  for (int i = 0; i < n && nmine < FW_MAX_DOOMED; i++) {
    int d = r[i] == MPI_REQUEST_NULL ? -1 : doomed_at(r[i]);
    if (d >= 0)
      mine[nmine++] = d;
  }
  int err = __real_MPI_Testall(n, r, flag, st);
  if (err != MPI_SUCCESS || !*flag || nmine == 0)
    return err;
  err = fw.doomed[mine[0]].err;
  for (int j = 0; j < nmine; j++) {
    doomed_t *d = &fw.doomed[mine[j]];
    if (d->buf != NULL)
      memset(d->buf, FW_SCRIBBLE, d->bytes);
    d->req = MPI_REQUEST_NULL; /* the handle may be reused */
  }
  return err;
}

int __real_MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm, MPI_Request *req) {
  bool fail = hit(FW_ISEND);
  int err = __real_MPI_Isend(buf, count, type, dest, tag, comm, req);
  if (fail && err == MPI_SUCCESS)
    doom(*req, NULL, 0);
  return err;
}

int __real_MPI_Irecv(void *buf, int count, MPI_Datatype type, int source,
                     int tag, MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Irecv(void *buf, int count, MPI_Datatype type, int source,
                     int tag, MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Irecv(void *buf, int count, MPI_Datatype type, int source,
                     int tag, MPI_Comm comm, MPI_Request *req) {
  bool fail = hit(FW_IRECV);
  int err = __real_MPI_Irecv(buf, count, type, source, tag, comm, req);
  if (fail && err == MPI_SUCCESS)
    doom(*req, buf, bytes_of(count, type));
  return err;
}

int __real_MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
                      MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
                      MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root,
                      MPI_Comm comm, MPI_Request *req) {
  bool fail = hit(FW_IBCAST);
  int err = __real_MPI_Ibcast(buf, count, type, root, comm, req);
  int me = -1;
  MPI_Comm_rank(comm, &me);
  if (fail && err == MPI_SUCCESS)
    doom(*req, me == root ? NULL : buf, bytes_of(count, type));
  return err;
}

int __real_MPI_Iallreduce(const void *in, void *out, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req);
int __wrap_MPI_Iallreduce(const void *in, void *out, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req);
int __wrap_MPI_Iallreduce(const void *in, void *out, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req) {
  bool fail = hit(FW_IALLREDUCE);
  int err = __real_MPI_Iallreduce(in, out, count, type, op, comm, req);
  if (fail && err == MPI_SUCCESS)
    doom(*req, out, bytes_of(count, type));
  return err;
}

int __real_MPI_Iallgather(const void *in, int incount, MPI_Datatype intype,
                          void *out, int outcount, MPI_Datatype outtype,
                          MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Iallgather(const void *in, int incount, MPI_Datatype intype,
                          void *out, int outcount, MPI_Datatype outtype,
                          MPI_Comm comm, MPI_Request *req);
int __wrap_MPI_Iallgather(const void *in, int incount, MPI_Datatype intype,
                          void *out, int outcount, MPI_Datatype outtype,
                          MPI_Comm comm, MPI_Request *req) {
  bool fail = hit(FW_IALLGATHER);
  int err = __real_MPI_Iallgather(in, incount, intype, out, outcount, outtype,
                                  comm, req);
  int P = 0;
  MPI_Comm_size(comm, &P);
  if (fail && err == MPI_SUCCESS)
    doom(*req, out, bytes_of(outcount, outtype) * (size_t)P);
  return err;
}

/* ---- communicators and local calls ---------------------------------------
 */

int __real_MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out);
int __real_MPI_Comm_free(MPI_Comm *comm);
int __wrap_MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out);
int __wrap_MPI_Comm_free(MPI_Comm *comm);

/* Collective: done everywhere, then this process is told it failed (and
 * gets no communicator). */
int __wrap_MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) {
  bool fail = hit(FW_COMM_DUP);
  int err = __real_MPI_Comm_dup(comm, out);
  if (!fail || err != MPI_SUCCESS)
    return err;
  __real_MPI_Comm_free(out);
  *out = MPI_COMM_NULL;
  return fw.err;
}

int __wrap_MPI_Comm_free(MPI_Comm *comm) {
  bool fail = hit(FW_COMM_FREE);
  int err = __real_MPI_Comm_free(comm);
  return fail && err == MPI_SUCCESS ? fw.err : err;
}

int __real_MPI_Dims_create(int nnodes, int ndims, int dims[]);
int __wrap_MPI_Dims_create(int nnodes, int ndims, int dims[]);
int __wrap_MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  if (hit(FW_DIMS_CREATE))
    return fw.err;
  return __real_MPI_Dims_create(nnodes, ndims, dims);
}

int __real_MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
                                  MPI_Comm_delete_attr_function *del,
                                  int *keyval, void *extra);
int __wrap_MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
                                  MPI_Comm_delete_attr_function *del,
                                  int *keyval, void *extra);
int __wrap_MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
                                  MPI_Comm_delete_attr_function *del,
                                  int *keyval, void *extra) {
  if (hit(FW_ATTR))
    return fw.err;
  return __real_MPI_Comm_create_keyval(copy, del, keyval, extra);
}

int __real_MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag);
int __wrap_MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag);
int __wrap_MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag) {
  if (hit(FW_ATTR))
    return fw.err;
  return __real_MPI_Comm_get_attr(comm, keyval, val, flag);
}

int __real_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val);
int __wrap_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val);
int __wrap_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val) {
  if (hit(FW_ATTR))
    return fw.err;
  return __real_MPI_Comm_set_attr(comm, keyval, val);
}

int __real_MPI_Info_get(MPI_Info info, const char *key, int len, char *val,
                        int *flag);
int __wrap_MPI_Info_get(MPI_Info info, const char *key, int len, char *val,
                        int *flag);
int __wrap_MPI_Info_get(MPI_Info info, const char *key, int len, char *val,
                        int *flag) {
  if (hit(FW_INFO_GET))
    return fw.err;
  return __real_MPI_Info_get(info, key, len, val, flag);
}

/* ---- MPI-IO --------------------------------------------------------------
 */

int __real_MPI_File_open(MPI_Comm comm, const char *name, int amode,
                         MPI_Info info, MPI_File *fh);
int __real_MPI_File_close(MPI_File *fh);
int __wrap_MPI_File_open(MPI_Comm comm, const char *name, int amode,
                         MPI_Info info, MPI_File *fh);
int __wrap_MPI_File_close(MPI_File *fh);

/* ROMIO agrees on an open's result (every process fails if one does, and
 * those that had opened close again); the wrapper does the same. */
int __wrap_MPI_File_open(MPI_Comm comm, const char *name, int amode,
                         MPI_Info info, MPI_File *fh) {
  if (!fw.armed)
    return __real_MPI_File_open(comm, name, amode, info, fh);
  int fail = hit(FW_FILE_OPEN), any = 0;
  int err = __real_MPI_File_open(comm, name, amode, info, fh);
  MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any || err != MPI_SUCCESS)
    return err;
  __real_MPI_File_close(fh);
  *fh = MPI_FILE_NULL;
  return fail ? fw.err : MPI_ERR_IO;
}

int __wrap_MPI_File_close(MPI_File *fh) {
  bool fail = hit(FW_FILE_CLOSE);
  int err = __real_MPI_File_close(fh);
  return fail && err == MPI_SUCCESS ? fw.err : err;
}

int __real_MPI_File_set_size(MPI_File fh, MPI_Offset size);
int __wrap_MPI_File_set_size(MPI_File fh, MPI_Offset size);
int __wrap_MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  bool fail = hit(FW_FILE_SET_SIZE);
  int err = __real_MPI_File_set_size(fh, size);
  return fail && err == MPI_SUCCESS ? fw.err : err;
}

int __real_MPI_File_sync(MPI_File fh);
int __wrap_MPI_File_sync(MPI_File fh);
int __wrap_MPI_File_sync(MPI_File fh) {
  bool fail = hit(FW_FILE_SYNC);
  int err = __real_MPI_File_sync(fh);
  return fail && err == MPI_SUCCESS ? fw.err : err;
}

int __real_MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count,
                            MPI_Datatype type, MPI_Status *st);
int __wrap_MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count,
                            MPI_Datatype type, MPI_Status *st);
int __wrap_MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count,
                            MPI_Datatype type, MPI_Status *st) {
  if (hit(FW_FILE_READ_AT))
    return fw.err;
  return __real_MPI_File_read_at(fh, off, buf, count, type, st);
}

int __real_MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf,
                             int count, MPI_Datatype type, MPI_Status *st);
int __wrap_MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf,
                             int count, MPI_Datatype type, MPI_Status *st);
int __wrap_MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf,
                             int count, MPI_Datatype type, MPI_Status *st) {
  if (hit(FW_FILE_WRITE_AT))
    return fw.err;
  return __real_MPI_File_write_at(fh, off, buf, count, type, st);
}
