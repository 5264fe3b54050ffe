/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_lock.c - the byte-range locks every darrayio writer honours.
 *
 * A strategy may write bytes it was not asked to write only in a
 * read-modify-write: it reads a window with holes, puts its pieces in and
 * writes the whole window back, holes included. Another writer that puts
 * bytes in those holes between the read and the write loses them. So,
 * under darray_concurrent_writers=locked (the default):
 *
 *   - a read-modify-write holds an exclusive lock over its window from
 *     before the read until after the write;
 *   - every other write holds a shared lock over its bytes: the io layer
 *     takes one per write call, unless the strategy holds one over a
 *     larger range already (the direct strategy locks its whole extent
 *     once per call: its many small writes would otherwise pay two fcntl
 *     calls each).
 *
 * Shared locks do not exclude each other, so plain writers never wait for
 * one another; they wait only for a read-modify-write that covers their
 * bytes, and it for them. A process holds at most one lock at a time and
 * never waits for another process (no MPI call) while it holds one, so
 * locks cannot deadlock.
 *
 * The locks are fcntl byte-range locks, as open file description locks
 * (F_OFD_SETLKW, Linux 3.15) where the system has them: two handles open
 * on one file in one process then exclude each other too, and closing
 * another descriptor of the file does not drop them. Elsewhere they are
 * classic per-process POSIX locks. Both kinds conflict with each other
 * and with any other program's fcntl locks, so a program that takes
 * fcntl locks for its own writes is a writer darrayio honours.
 *
 * The posix back end locks its own descriptor. The mpiio back end opens
 * the file a second time (its path, less a ROMIO "prefix:") for the locks
 * alone. When a file cannot be locked (the file system refuses fcntl
 * locks, or the mpiio back end cannot open the path), the handle takes
 * no locks and no strategy reads-modifies-writes on it: it writes exactly
 * the bytes it was asked to, as under darray_concurrent_writers=unlocked.
 * Under darray_concurrent_writers=none the caller promises that nothing
 * else writes the file during a darrayio write: no locks are taken, and
 * read-modify-write needs none, except where the processes of one call
 * may write into each other's windows (sieving, when their extents
 * overlap): that call takes the locks as under `locked` (src/sieve), or,
 * on a file that cannot be locked, writes no window back.
 */
#define _GNU_SOURCE /* F_OFD_SETLKW */
#include "hints.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#ifdef F_OFD_SETLKW
#define LOCK_CMD_OFD F_OFD_SETLKW
#define LOCK_GET_OFD F_OFD_GETLK
#endif

static const io_sys_t *sys(const io_file_t *f) {
  return f->sys != NULL ? f->sys : &darray__io_sys_libc;
}

/* Whether fd takes locks, and with which command: a query of [0, 1),
 * made directly (it changes nothing, and it is no fault target). */
static bool query(int fd, int get) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_len = 1;
  return fcntl(fd, get, &fl) == 0;
}

static bool probe(int fd, int *cmd) {
#ifdef LOCK_CMD_OFD
  if (query(fd, LOCK_GET_OFD)) {
    *cmd = LOCK_CMD_OFD;
    return true;
  }
#endif
  if (query(fd, F_GETLK)) {
    *cmd = F_SETLKW;
    return true;
  }
  return false;
}

const char *darray__io_system_path(const char *path) {
  const char *c = path;
  while ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')
    c++;
  return *c == ':' && c - path >= 2 ? c + 1 : path;
}

void darray__io_lock_setup(io_file_t *f, const char *path, int mode,
                           int concurrency) {
  f->locks = f->can_lock = false;
  f->rmw = concurrency == DARRAY_CONC_NONE;
  if (!(mode & DARRAY_MODE_RDWR) || concurrency == DARRAY_CONC_UNLOCKED)
    return;
  int fd = f->fd;
  if (fd < 0) { /* mpiio: a descriptor of our own, for the locks alone */
    do
      fd = open(darray__io_system_path(path), O_RDWR);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
      return;
  }
  if (!probe(fd, &f->lock_cmd)) {
    if (fd != f->fd)
      close(fd);
    return;
  }
  f->lock_fd = fd;
  f->own_lock_fd = fd != f->fd;
  f->can_lock = true;
  if (concurrency == DARRAY_CONC_LOCKED)
    f->locks = f->rmw = true;
}

void darray__io_lock_free(io_file_t *f) {
  if (f->own_lock_fd && f->lock_fd >= 0)
    close(f->lock_fd);
  f->lock_fd = -1;
  f->own_lock_fd = false;
  f->locks = f->can_lock = false;
}

static int lockop(io_file_t *f, int64_t off, int64_t len, short type) {
  struct flock fl;
  memset(&fl, 0, sizeof fl); /* l_pid = 0, as open file description locks
                                require */
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = (off_t)off;
  fl.l_len = (off_t)len;
  while (sys(f)->fcntl_lock(f, f->lock_cmd, &fl) != 0) {
    if (errno == EINTR)
      continue;
    f->err_errno = errno;
    return DARRAY_ELOCK;
  }
  return DARRAY_SUCCESS;
}

/* A failed lock operation's cause, for the call's message. */
static int lock_failed(io_call_t *c, int rc) {
  if (c->err_errno == 0 && c->err_text[0] == '\0')
    c->err_errno = c->file->err_errno;
  return rc;
}

int darray__io_lock(io_call_t *c, int64_t off, int64_t len, bool excl) {
  if (!c->locks || len <= 0)
    return DARRAY_SUCCESS;
  int rc = lockop(c->file, off, len, excl ? F_WRLCK : F_RDLCK);
  if (rc != DARRAY_SUCCESS)
    return lock_failed(c, rc);
  c->held_lo = off;
  c->held_hi = off + len;
  return DARRAY_SUCCESS;
}

/*
 * A lock left in place would block another writer's overlapping lock for
 * ever. So when an unlock fails, every lock of this handle on the file is
 * released with one unlock of the whole file (a call holds one at most,
 * and unlocking everything never splits a lock, the only way an unlock can
 * run short of resources). The failure is still reported.
 */
int darray__io_unlock(io_call_t *c, int64_t off, int64_t len) {
  if (!c->locks || len <= 0)
    return DARRAY_SUCCESS;
  io_file_t *f = c->file;
  c->held_lo = c->held_hi = 0;
  int rc = lockop(f, off, len, F_UNLCK);
  if (rc != DARRAY_SUCCESS) { /* directly: the safety net is no fault
                                  target */
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    while (fcntl(f->lock_fd, f->lock_cmd, &fl) != 0 && errno == EINTR)
      ;
    return lock_failed(c, rc);
  }
  return DARRAY_SUCCESS;
}

int darray__io_fd_lock(int fd, bool on) {
  int cmd = F_SETLKW;
  if (on && !probe(fd, &cmd))
    return DARRAY_ENOTSUP;
#ifdef LOCK_CMD_OFD
  if (!on && query(fd, LOCK_GET_OFD))
    cmd = LOCK_CMD_OFD;
#endif
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = on ? F_WRLCK : F_UNLCK;
  fl.l_whence = SEEK_SET;
  fl.l_len = 1;
  while (fcntl(fd, cmd, &fl) != 0)
    if (errno != EINTR)
      return DARRAY_ELOCK;
  return DARRAY_SUCCESS;
}

bool darray__io_write_needs_lock(const io_call_t *c, int64_t off,
                                 int64_t len) {
  return c->locks && len > 0 &&
         !(c->held_lo <= off && off + len <= c->held_hi &&
           c->held_lo < c->held_hi);
}
