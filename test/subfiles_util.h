/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * subfiles_util.h - striped subfile sets (darray_backend=subfiles,
 * doc/subfiles.md) read and made by the layout's closed form, on one
 * rank, for the tests that compare them with an oracle (test_subfiles,
 * test_concurrent): stripe k of the logical file is bytes
 * [(k div S)*unit, ...) of path.sub<k mod S>of<S>.
 */
#ifndef DARRAYIO_SUBFILES_UTIL_H
#define DARRAYIO_SUBFILES_UTIL_H

#include <stdint.h>

/* The logical file of the set at path (malloc'ed, *size from the
 * descriptor's record), or NULL and *size = -1 when the record or a
 * subfile is missing or a subfile holds bytes past the recorded size. */
unsigned char *tu_read_subfiles(const char *path, int64_t *size);
/* Make a set at path holding the n bytes of buf: 0, or -1 on failure. */
int tu_write_subfiles(const char *path, const void *buf, int64_t n,
                      int64_t unit, int64_t factor);
/* Collective: rank 0 removes the set of factor subfiles at path (those
 * that exist, and the descriptor); then a barrier. */
void tu_remove_subfiles(const char *path, int64_t factor);

#endif /* DARRAYIO_SUBFILES_UTIL_H */
