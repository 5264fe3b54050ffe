/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_subfiles.h - the striped subfile back end's state, its layout
 * arithmetic and its descriptor record, shared by io_subfiles.c (the
 * back end) and io_subfiles_meta.c (the record). doc/subfiles.md.
 */
#ifndef DARRAYIO_IO_SUBFILES_H
#define DARRAYIO_IO_SUBFILES_H

#include "io/io.h"

/* The record starts with this; then the format version. */
#define SUB_MAGIC "darrayio-subfiles "
#define SUB_VERSION 1
/* The record's length: it is always written whole, numbers padded, so
 * that rewriting it never leaves a longer record's tail behind. */
#define SUB_RECORD_LEN 96
/* The most subfiles of one file (each is a descriptor per process). */
#define SUB_FACTOR_MAX 1024
/* The largest stripe unit (the striping_unit hint's and darray-subfile's
 * bound): 2^40 bytes. */
#define SUB_UNIT_MAX (INT64_C(1) << 40)
/* A subfile's name: the descriptor's, then ".sub<j>of<S>". */
#define SUB_NAME_EXTRA 32

typedef struct sub_layout {
  int64_t unit;   /* stripe bytes, > 0 */
  int64_t factor; /* subfiles, 1 .. SUB_FACTOR_MAX */
  int64_t size;   /* logical size recorded */
} sub_layout_t;

struct io_subfiles {
  sub_layout_t lay;
  int rank;
  bool rdwr;
  bool written; /* this process has written through the handle */
  io_file_t *part; /* one handle per subfile: its descriptor, and the
                      parent's system calls and fault state */
  char *path;      /* the descriptor's path (for messages and names) */
};

/* The subfile back end's line of the table (io_subfiles.c). */
DARRAY_HIDDEN extern const io_ops_t darray__io_subfiles_ops;

/* Subfile j's name for descriptor path, into buf (n bytes). */
DARRAY_HIDDEN void darray__sub_name(const char *path, int64_t j,
                                    int64_t factor, char *buf, size_t n);
/* The logical end of subfile j's z bytes (0 for an empty one; INT64_MAX
 * if it does not fit). */
DARRAY_HIDDEN int64_t darray__sub_end(const sub_layout_t *l, int64_t j,
                                      int64_t z);
/* The bytes subfile j holds of a logical file of size bytes. */
DARRAY_HIDDEN int64_t darray__sub_expect(const sub_layout_t *l, int64_t j,
                                         int64_t size);
/* The record's text (SUB_RECORD_LEN bytes, not terminated) into buf. */
DARRAY_HIDDEN void darray__sub_format(const sub_layout_t *l, char *buf);
/* Parse n bytes that start with SUB_MAGIC: DARRAY_EFORMAT (message naming
 * path in msg) when malformed: another version, fewer than SUB_RECORD_LEN
 * bytes (a record is written whole), a line missing or out of range
 * (unit 1 .. SUB_UNIT_MAX, factor 1 .. SUB_FACTOR_MAX, size >= 0: the
 * message names the field and its range). */
DARRAY_HIDDEN int darray__sub_parse(const char *buf, size_t n,
                                    const char *path, sub_layout_t *l,
                                    char *msg, size_t msglen);
/* Whether n bytes start with SUB_MAGIC. */
DARRAY_HIDDEN bool darray__sub_is_record(const char *buf, size_t n);
/* Whether path is a subfile descriptor: *found when it is a regular file
 * whose first bytes are SUB_MAGIC, *l its record then. DARRAY_EFORMAT
 * (message in msg) when such a record is malformed. A path that cannot be
 * opened or is not a regular file is no descriptor (*found false, no
 * error): the caller's own call on it reports what is wrong. Local, no
 * MPI (open's detection, darray_file_delete). */
DARRAY_HIDDEN int darray__sub_look(const char *path, sub_layout_t *l,
                                   bool *found, char *msg, size_t msglen);
/* The logical end of f's subfiles as they are now (fstat of each). */
DARRAY_HIDDEN int darray__sub_logical_end(io_file_t *f, int64_t *end);
/* Rank 0, writable: pad every subfile to the length the logical end
 * implies, and write the record of that size; under an exclusive lock of
 * the record (other handles' closes of the same set, from other
 * communicators, wait), from the record as it is then on disk, so that
 * the size recorded only grows. */
DARRAY_HIDDEN int darray__sub_record(io_file_t *f);
/* The back end's open, sync and close (io_subfiles_open.c; the table of
 * operations is in io_subfiles.c). */
DARRAY_HIDDEN int darray__sub_open(io_file_t *f, MPI_Comm comm,
                                   const char *path, int mode, MPI_Info info,
                                   char *msg, size_t msglen);
DARRAY_HIDDEN int darray__sub_sync(io_file_t *f);
DARRAY_HIDDEN int darray__sub_close(io_file_t *f);

#endif /* DARRAYIO_IO_SUBFILES_H */
