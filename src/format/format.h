/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * format.h - self-describing files (doc/formats.md): the .npy header
 * (npy.c), the ZIP structures of .npz archives (zip.c) and the glue to
 * files and calls (format.c). The CRC-32 of members is computed by the
 * room below, src/crc (crc/crc.h).
 *
 * A format maps names to (description, data offset) and writes its
 * headers at close; the bytes of an array still flow dist -> layout ->
 * strategy -> io unchanged, at the member's offset.
 */
#ifndef DARRAYIO_FORMAT_H
#define DARRAYIO_FORMAT_H

#include "array.h"
#include "file.h"
#include "crc/crc.h"
#include "strategy.h"

struct fmt_ops;

/* How a member's CRC is found at close: from the contributions of the
 * last whole-array write (RUNS), or by reading the member back. */
enum { DARRAY_FMT_CRC_READBACK = 0, DARRAY_FMT_CRC_RUNS = 1 };

/* The longest .npy header darrayio reads (NumPy itself refuses more than
 * 10000 bytes). */
#define DARRAY_NPY_HEADER_MAX 65536

typedef struct fmt_member {
  darray_member_info_t info; /* info.offset: the data */
  int64_t lh_off;            /* .npz: the local header; .npy: 0 */
  int64_t lh_len;            /* .npz: local header, name and extras */
  int64_t npy_len;           /* the .npy header */
  bool zip64;                /* .npz: the local header has a ZIP64 field */
  uint64_t array;            /* the bound array handle's id; 0: none */
  int crc_state;             /* DARRAY_FMT_CRC_* (writing) */
  uint32_t part;             /* this process's share of R(data) */
  uint32_t hdr_crc;          /* CRC-32 of the .npy header */
  char why[96];              /* info.status not SUCCESS: why (no name) */
} fmt_member_t;

typedef struct fmt_file {
  const struct fmt_ops *ops; /* its line of the format table */
  bool writing; /* created by this handle, else read */
  int64_t align;
  int n, cap;
  fmt_member_t *m;
  int64_t end; /* writing: end of the last member's data */
  char path[DARRAY_PATH_SHOWN + 8]; /* as messages show it */
} fmt_file_t;

/* Beneath the public dataset calls of src/api (api_dataset.c), which only
 * forward: darray_dataset_open, darray_define, darray_num_members,
 * darray_inquire (format.c) and darray_verify (format_close.c). */
DARRAY_HIDDEN int darray__dataset_open(MPI_Comm comm, const char *path,
                                       int mode, MPI_Info info,
                                       struct darray_file_s **out);
DARRAY_HIDDEN int darray__dataset_define(struct darray_file_s *f,
                                         const char *name, struct darray_s *a);
DARRAY_HIDDEN int darray__dataset_num_members(struct darray_file_s *f, int *n);
DARRAY_HIDDEN int darray__dataset_inquire(struct darray_file_s *f, int index,
                                          darray_member_info_t *info);
DARRAY_HIDDEN int darray__dataset_verify(struct darray_file_s *f);

/* Random access to the bytes of a file being parsed: the file through
 * its back end, or memory (unit tests, fuzzing). read returns
 * DARRAY_SUCCESS after exactly len bytes. */
typedef struct fmt_reader {
  void *ctx;
  int64_t size;
  int (*read)(void *ctx, void *buf, int64_t len, int64_t off);
} fmt_reader_t;

/* ---- npy.c */

/* NumPy's name of an element type ("<f8") into out (n >= 16 bytes);
 * DARRAY_ETYPE for long double. */
DARRAY_HIDDEN int darray__npy_descr(darray_type_t t, int64_t esize,
                                    char *out, size_t n, char *msg);
/* The .npy header of member m for data that starts at a multiple of align
 * when the header starts at pos (at most 8 KiB of padding; else 64).
 * out has room for DARRAY_NPY_HEADER_MAX bytes; *len gets the length. */
DARRAY_HIDDEN int darray__npy_header(const darray_member_info_t *m,
                                     int64_t pos, int64_t align, char *out,
                                     int64_t *len, char *msg);
/* Parse the .npy header at offset off of r (at most avail bytes of it
 * belong to the member): fills m's descr, type, shape, order and
 * offset/bytes (the data: the rest of the member, or of the file when
 * avail < 0), and the header's CRC. DARRAY_EFORMAT with a message (the
 * header is damaged); DARRAY_ENOTSUP with a message (no member name) and
 * m->info.status set when the header is well formed but no darrayio array
 * (m's descr, shape, offset and bytes, the rest of the member, still
 * filled in where the header gives them). */
DARRAY_HIDDEN int darray__npy_read(fmt_reader_t *r, int64_t off,
                                   int64_t avail, fmt_member_t *m,
                                   char *msg);

/* ---- zip.c */

/* Place member m (info and npy_len set) after the members before it:
 * lh_off, lh_len, zip64, info.offset; advances z->end. DARRAY_ESIZE when
 * the file would pass 2^63 bytes. */
DARRAY_HIDDEN int darray__zip_place(fmt_file_t *z, fmt_member_t *m,
                                    char *msg);
/* The local header of m (m->lh_len bytes) with crc into buf. */
DARRAY_HIDDEN void darray__zip_local(const fmt_member_t *m, uint32_t crc,
                                     unsigned char *buf);
/* The central directory and end records of z (members' info.crc32 set),
 * allocated into *buf (*len bytes), to be written at z->end. */
DARRAY_HIDDEN int darray__zip_central(const fmt_file_t *z,
                                      unsigned char **buf, int64_t *len,
                                      char *msg);
/* Parse an archive into z (members allocated). */
DARRAY_HIDDEN int darray__zip_parse(fmt_reader_t *r, fmt_file_t *z,
                                    char *msg);
/* DARRAY_EFORMAT naming one name that two of the n members share (by
 * sorting: O(n log n)). */
DARRAY_HIDDEN int darray__zip_unique(const fmt_member_t *m, int n,
                                     char *msg);
/* Whether a member name is acceptable (no '/', '\\', "..", control
 * characters; 1 .. DARRAY_NAME_MAX bytes). */
DARRAY_HIDDEN bool darray__zip_name_ok(const char *name, size_t len);

/* ---- format_lines.c: the format table (doc/formats.md, "Adding a
 * format"). Every format is one line, in designated initializers; a slot
 * left out is one the format has none of. raw (darray_file_open) is the
 * first line and has none: its files have no fmt_file_t. */
typedef struct fmt_ops {
  const char *name;   /* "raw", "npy", "npz" */
  const char *suffix; /* the path's ending darray_dataset_open knows it by;
                         NULL: not a dataset */
  bool members;       /* named members, any number (darray_define's name);
                         else one array, which has no name */
  int64_t npy_align;  /* where a member's .npy header ends (data start):
                         a multiple of this; 0: of the file's alignment */
  /* reading, on rank 0 at open: check the file's headers and list its
   * members into z (z->m allocated, z->n) */
  int (*verify)(fmt_reader_t *r, fmt_file_t *z, char *msg);
  /* writing: what darray_inquire reports of a member that darray_define
   * named name, beyond the array's description (its name, has_crc) */
  void (*inquire)(const char *name, darray_member_info_t *info);
  /* writing: where member m's data goes (m->info and m->npy_len set),
   * after the members before it: info.offset; advances z->end */
  int (*place)(fmt_file_t *z, fmt_member_t *m, char *msg);
  /* before a call on member m moves bytes (darray__format_begin, which has
   * zeroed sh): how this process's share of the CRC is had */
  void (*begin)(struct darray_file_s *f, int m, xfer_t *x, bool whole,
                bool blocking, crc_share_t *sh);
  /* after a call on member m, and whether that is collective
   * (darray__format_after, _after_collective) */
  int (*after)(struct darray_file_s *f, int m, const struct darray_s *view,
               const char *buf, bool write, bool whole, crc_share_t *sh,
               int rc, const char *what, char *msg);
  bool (*after_collective)(struct darray_file_s *f, int m, bool write,
                           bool whole);
  /* at close, on rank 0 (members' info.crc32 set): the headers, through
   * c */
  int (*close)(struct darray_file_s *f, io_call_t *c, char *msg);
} fmt_ops_t;

/* The line of a format's state (NULL: raw). */
DARRAY_HIDDEN const fmt_ops_t *darray__format_line(const fmt_file_t *z);
/* The line whose suffix ends path; NULL: none. */
DARRAY_HIDDEN const fmt_ops_t *darray__format_of_path(const char *path);
/* Where z's members' .npy headers end: a multiple of this. */
DARRAY_HIDDEN int64_t darray__format_npy_align(const fmt_file_t *z);
/* The suffixes of the table's datasets for messages (".npy or .npz"). */
DARRAY_HIDDEN void darray__format_suffixes(char *out, size_t n);

/* The CRC-32 of members (format_close.c), the slots of formats whose
 * members record one: a whole-array write keeps this process's share, a
 * checked read checks it (format.h's darray__format_begin, _after and
 * _after_collective say how). crc_after also keeps, for any member,
 * whether it must be read back at close (a section write, a failure). */
DARRAY_HIDDEN void darray__format_crc_begin(struct darray_file_s *f, int m,
                                            xfer_t *x, bool whole,
                                            bool blocking, crc_share_t *sh);
DARRAY_HIDDEN int darray__format_crc_after(struct darray_file_s *f, int m,
                                           const struct darray_s *view,
                                           const char *buf, bool write,
                                           bool whole, crc_share_t *sh, int rc,
                                           const char *what, char *msg);
DARRAY_HIDDEN bool darray__format_crc_collective(struct darray_file_s *f,
                                                 int m, bool write,
                                                 bool whole);

/* ---- format.c: the hooks of darray_file.c and darray_xfer.c */

/* A read or write call's description: a copy of a with its member's data
 * offset for a displacement (a itself when f is a raw file). *member gets
 * the member's index (-1: none). A message into msg on failure (the array
 * is not bound to a member); view is a copy of a then too. */
DARRAY_HIDDEN int darray__format_place(struct darray_file_s *f,
                                       const struct darray_s *a,
                                       struct darray_s *view, int *member,
                                       char *msg);
/* After a call's plan, before its bytes move (its begin succeeded): how
 * a whole-array write of member m, or a read whose CRC is checked, gets
 * this process's CRC share (sh; x->crc is set for STRATEGY, a THREAD job
 * is started). blocking: the call is not a request (requests compute the
 * share in their own time). */
DARRAY_HIDDEN void darray__format_begin(struct darray_file_s *f, int m,
                                        xfer_t *x, bool whole, bool blocking,
                                        crc_share_t *sh);
/* After a call on member m (its result rc, agreed): a whole-array write
 * keeps this process's share of the CRC (sh: as format_begin decided; a
 * THREAD job is waited for), a section write or a failure marks the member
 * for reading back; a whole-array read with darray_verify_crc checks the
 * CRC (collective, on f->comm): the XOR of every process's share of the
 * data's R, with the .npy header's CRC taken at open. Returns rc, or
 * DARRAY_ECRC with a message in msg (the call's, named by what) that names
 * the member, the path and both CRCs. */
DARRAY_HIDDEN int darray__format_after(struct darray_file_s *f, int m,
                                       const struct darray_s *view,
                                       const char *buf, bool write,
                                       bool whole, crc_share_t *sh, int rc,
                                       const char *what, char *msg);
/* Whether darray__format_after is collective for such a call on member m
 * (-1: none): a whole-array read whose CRC is checked. */
DARRAY_HIDDEN bool darray__format_after_collective(struct darray_file_s *f,
                                                   int m, bool write,
                                                   bool whole);
/* At close (collective): the CRCs and headers of a dataset being written;
 * the format state is freed. Message into msg. */
DARRAY_HIDDEN int darray__format_close(struct darray_file_s *f, char *msg);
/* Release a dataset's state without writing anything (local: a close
 * after MPI_Finalize, when no collective can run). */
DARRAY_HIDDEN void darray__format_drop(struct darray_file_s *f);

#endif /* DARRAYIO_FORMAT_H */
