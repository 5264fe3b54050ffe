/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_map.c - the file's own pages, mapped: what the mapped strategy
 * (src/mapped) asks of the posix back end.
 *
 * Where every process of a file runs on one node and the file lives on a
 * file system of that node, the kernel keeps one copy of each of the
 * file's pages, shared by every process that maps or reads it. Each
 * process can then copy its own bytes straight between its buffer and
 * those pages: one copy per byte, no message, no file call per run, and
 * no byte it was not asked for changes (a page holds the other
 * processes' bytes too, but there is only one copy of it, so nothing
 * written beside ours is lost).
 *
 * What could turn a failure into a signal is taken out first: the pages
 * of a window are populated before they are touched (MADV_POPULATE_READ /
 * MADV_POPULATE_WRITE, Linux 5.14), which reports an I/O error as a
 * failure where a touch would raise SIGBUS; a write reserves its blocks
 * (fallocate) before mapping, so that running out of space is a failure
 * too, and the file is long enough for every byte mapped.
 */
#define _GNU_SOURCE /* fallocate */
#include "hints.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ /* Linux's values, for older C libraries */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

/* ---- libc's calls (io_sys_t.map, .reserve) ------------------------------- */

int darray__io_sys_map(io_file_t *f, size_t n, int64_t off, size_t skip,
                       bool write, void **p) {
  int prot = PROT_READ | (write ? PROT_WRITE : 0);
  void *m = mmap(NULL, n, prot, MAP_SHARED, f->fd, (off_t)off);
  if (m == MAP_FAILED)
    return -1;
  int r;
  do
    r = madvise((char *)m + skip, n - skip,
                write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
  while (r != 0 && errno == EINTR);
  if (r != 0) {
    int e = errno == EFAULT ? EIO : errno; /* EFAULT: SIGBUS, had we touched */
    munmap(m, n);
    errno = e;
    return -1;
  }
  *p = m;
  return 0;
}

int darray__io_sys_reserve(io_file_t *f, int64_t off, int64_t len) {
  return fallocate(f->fd, 0, (off_t)off, (off_t)len);
}

/* ---- the probe at open --------------------------------------------------- */

/* Whether the kernel populates mappings: on one anonymous page, which
 * costs nothing to fault in. */
static bool kernel_populates(void) {
  long pg = sysconf(_SC_PAGESIZE);
  size_t n = pg > 0 ? (size_t)pg : 4096;
  void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (m == MAP_FAILED)
    return false;
  bool ok = madvise(m, n, MADV_POPULATE_WRITE) == 0;
  munmap(m, n);
  return ok;
}

/* File systems of one node, whose page cache is the file's only copy
 * there (statfs(2)'s magic numbers). */
static bool local_fs(int fd) {
  struct statfs s;
  if (fstatfs(fd, &s) != 0)
    return false;
  switch ((unsigned long)s.f_type) {
  case 0xEF53UL:     /* ext2, ext3, ext4 */
  case 0x58465342UL: /* xfs */
  case 0x9123683EUL: /* btrfs */
  case 0x01021994UL: /* tmpfs */
    return true;
  default:
    return false;
  }
}

void darray__io_map_probe(io_file_t *f, int hint) {
  f->map_ok = false;
  if (hint == DARRAY_TRI_DISABLE)
    f->map_why = "darray_map=disable";
  else if (!f->ops->maps || f->fd < 0)
    f->map_why = "only a file of the posix back end is mapped";
  else if (!kernel_populates())
    f->map_why = "the kernel cannot populate mappings (MADV_POPULATE_WRITE, "
                 "Linux 5.14)";
  else if (hint != DARRAY_TRI_ENABLE && !local_fs(f->fd))
    f->map_why = "not a file system of one node whose pages every process "
                 "shares (ext4, xfs, btrfs, tmpfs; darray_map=enable maps "
                 "it anyway)";
  else
    f->map_ok = true, f->map_why = "";
}

/* ---- a call's windows ---------------------------------------------------- */

static int failed(io_call_t *c) {
  if (c->err_errno == 0 && c->err_text[0] == '\0')
    c->err_errno = errno;
  return darray__io_errno_code(errno);
}

int darray__io_map(io_call_t *c, int64_t off, int64_t len, int64_t skip,
                   bool write, char **p) {
  io_file_t *f = c->file;
  if (write)
    c->stats->write_calls++;
  else
    c->stats->read_calls++;
  void *m = NULL;
  int64_t t = darray__now_ns();
  int r;
  do
    r = f->sys->map(f, (size_t)len, off, (size_t)skip, write, &m);
  while (r != 0 && errno == EINTR);
  c->stats->io_ns += darray__now_ns() - t;
  if (r != 0)
    return failed(c);
  *p = m;
  return DARRAY_SUCCESS;
}

void darray__io_unmap(char *p, int64_t len) {
  if (p != NULL)
    munmap(p, (size_t)len);
}

int darray__io_map_reserve(io_call_t *c, int64_t off, int64_t len) {
  io_file_t *f = c->file;
  int r;
  do
    r = f->sys->reserve(f, off, len);
  while (r != 0 && errno == EINTR);
  if (r != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
    return DARRAY_ENOTSUP;
  return r != 0 ? failed(c) : DARRAY_SUCCESS;
}

int darray__io_map_size(io_call_t *c, int64_t *size) {
  struct stat st;
  if (fstat(c->file->fd, &st) != 0)
    return failed(c);
  *size = (int64_t)st.st_size;
  return DARRAY_SUCCESS;
}
