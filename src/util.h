/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * util.h - what every room of darrayio uses: configure's results, the public
 * header, hidden visibility, messages, hashing and checked arithmetic.
 *
 * Naming: public symbols are darray_*, internal ones shared between files
 * are darray__<room>_*, everything else is static. Internal symbols have
 * hidden visibility in the shared library. Each room has its own header
 * (dist/dist.h, layout/layout.h, array.h, hints.h, io/io.h, file.h,
 * agree.h, strategy.h); this one is the only header every room includes.
 */
#ifndef DARRAYIO_UTIL_H
#define DARRAYIO_UTIL_H


#ifdef HAVE_CONFIG_H
#include "config.h" /* configure's results (HAVE_ZLIB, ...) */
#endif

#include "darrayio.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#if defined(__GNUC__)
#define DARRAY_HIDDEN __attribute__((visibility("hidden")))
#else
#define DARRAY_HIDDEN
#endif

#define DARRAY_MAGIC_ARRAY 0x44415252u /* "DARR" */
#define DARRAY_MAGIC_FILE 0x4446494cu  /* "DFIL" */
#define DARRAY_MAGIC_DEAD 0xdeadbeefu
/* a file closed by the library at MPI_Finalize (darray_final.c): its
 * memory waits for the program's darray_file_close */
#define DARRAY_MAGIC_FINAL 0x4446494eu /* "DFIN" */

#define DARRAY_ERRMSG_LEN 512
/* Most characters of a path in a message (darray__short_path), and of an
 * I/O back end's own text about a failure (io_file_t.err_text): together
 * with the words around them they fit a message whole. */
#define DARRAY_PATH_SHOWN 160
#define DARRAY_IO_TEXT_LEN 300

/* A path for a message: itself, or at most DARRAY_PATH_SHOWN characters
 * of it with its middle replaced by "..." ("/very/long/.../tail"), so that
 * the cause after it still fits the message. Returns buf (n bytes). */
DARRAY_HIDDEN const char *darray__short_path(const char *path, char *buf,
                                             size_t n);
/* The same for any text, at most max characters, cut at spaces. */
DARRAY_HIDDEN const char *darray__short_text(const char *text, size_t max,
                                             char *buf, size_t n);

/* Format a message into buf (snprintf style) and return code. */
DARRAY_HIDDEN int darray__err(char *buf, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/*
 * Indices in messages, in the caller's terms (darray_set_index_style;
 * issue #38): C's, 0-based (`gsizes[0]`, `[0, n)`), or the Fortran
 * module's, 1-based (`gsizes(1)`, `[1, n]`). darray__fortran says which
 * this thread speaks; a call that runs elsewhere (a request in an I/O
 * thread) takes it when it is made (xfer_t.fortran). Each helper writes
 * into buf (DARRAY_IX_LEN bytes; DARRAY_IXBUF makes one for the message
 * being formatted) and returns it.
 */
#define DARRAY_IX_LEN 64
#define DARRAY_IXBUF ((char[DARRAY_IX_LEN]){0})
DARRAY_HIDDEN bool darray__fortran(void);
/* An index as the caller counts it: i, or i + 1. */
DARRAY_HIDDEN long long darray__ix(bool fortran, int64_t i);
/* Entry i of argument array name: "name[i]" or "name(i + 1)". */
DARRAY_HIDDEN const char *darray__ix_arg(bool fortran, const char *name,
                                         int64_t i, char *buf);
/* The indices of n things: "[0, n)" or "[1, n]". */
DARRAY_HIDDEN const char *darray__ix_range(bool fortran, int64_t n,
                                           char *buf);
/* Entry i of name in this thread's terms, for a message being formatted. */
#define DARRAY_ARG_AT(name, i)                                                 \
  darray__ix_arg(darray__fortran(), (name), (i), DARRAY_IXBUF)

/* Buffer for failures with no handle (thread-local). */
DARRAY_HIDDEN char *darray__errbuf_nohandle(void);

/* 64-bit FNV-1a hash of bytes, continuing from h (start with 0; util.c). */
DARRAY_HIDDEN uint64_t darray__hash(uint64_t h, const void *p, size_t n);

/* A new handle id, unique in the process, from 1 (util.c). */
DARRAY_HIDDEN uint64_t darray__next_id(void);
/* A monotonic clock, in nanoseconds (util.c): for the time counters. */
DARRAY_HIDDEN int64_t darray__now_ns(void);

/* Checked 64-bit arithmetic: return false on overflow. */
DARRAY_HIDDEN bool darray__mul_ok(int64_t a, int64_t b, int64_t *r);
DARRAY_HIDDEN bool darray__add_ok(int64_t a, int64_t b, int64_t *r);
/* Bytes for people ("1.5 MiB") into buf; returns buf (util.c). */
DARRAY_HIDDEN const char *darray__human_bytes(int64_t b, char *buf, size_t n);
/* The name of a darray_type_t value ("DOUBLE"), "?" for others. */
DARRAY_HIDDEN const char *darray__type_name(int type);
/* Strip leading and trailing white space in place; returns the start
 * (util.c). */
DARRAY_HIDDEN char *darray__trim(char *s);
/* The next permutation of p[0, n) in lexicographic order, in place; false
 * (p unchanged) after the last, where p is in decreasing order (util.c:
 * the storage advisor's candidate orders; tests and fuzzers walk orders
 * with it too). */
DARRAY_HIDDEN bool darray__next_perm(int *p, int n);

#endif /* DARRAYIO_UTIL_H */
