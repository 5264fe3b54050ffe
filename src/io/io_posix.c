/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io_posix.c - the default back end: open/pread/pwrite/fsync/close.
 *
 * Creation and truncation happen once, on rank 0, before the other ranks
 * open, so no rank can truncate data another has already written.
 *
 * Every system call that can fail in a way the caller must handle goes
 * through f->sys: libc's calls, or the fault layer's (io_fault.c) when
 * DARRAYIO_FAULT is set. The retry loops are above that table, so injected
 * EINTR and short transfers exercise them.
 */
#define _GNU_SOURCE /* preadv, pwritev (BSD), O_DIRECT (Linux) */
#include "agree.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the system calls ---------------------------------------------------- */

static int sys_open(io_file_t *f, const char *path, int flags, int mode) {
  (void)f;
  return open(path, flags, (mode_t)mode);
}

static ssize_t sys_pread(io_file_t *f, void *buf, size_t n, int64_t off) {
  return pread(f->fd, buf, n, (off_t)off);
}

/* Direct writes (darray_direct_write): a write goes through the O_DIRECT
 * descriptor when it covers whole pages of the file (DARRAY_DIO_PAGE, io.h,
 * says why pages) from memory aligned to a page, which every device's
 * block size divides; any other write, and a direct write the file system
 * refuses (EINVAL, before it writes a byte), goes through the page cache.
 * The choice is made here, at each system call, so that short transfers
 * (retried from where they stopped) and injected faults keep it right. */
/* A subfile set's descriptor has direct_on (its subfiles have) but no
 * O_DIRECT descriptor of its own (dfd < 0): its record goes through the
 * page cache. */
static bool direct(const io_file_t *f) { return f->direct_on && f->dfd >= 0; }

static bool page_aligned(const void *p, int64_t n, int64_t off) {
  return n > 0 && n % DARRAY_DIO_PAGE == 0 && off % DARRAY_DIO_PAGE == 0 &&
         (uintptr_t)p % DARRAY_DIO_PAGE == 0;
}

static bool direct_iov(const io_file_t *f, const struct iovec *iov, int n,
                       int64_t off) {
  if (!direct(f) || n < 1)
    return false;
  for (int i = 0; i < n; i++)
    if (!page_aligned(iov[i].iov_base, (int64_t)iov[i].iov_len, off))
      return false; /* each piece whole pages: off moves by pages */
  return true;
}

static ssize_t sys_pwrite(io_file_t *f, const void *buf, size_t n,
                          int64_t off) {
  if (direct(f) && page_aligned(buf, (int64_t)n, off)) {
    ssize_t put = pwrite(f->dfd, buf, n, (off_t)off);
    if (put > 0)
      f->direct_calls++;
    if (put >= 0 || errno != EINVAL)
      return put;
  }
  f->direct_missed += direct(f);
  return pwrite(f->fd, buf, n, (off_t)off);
}

static ssize_t sys_preadv(io_file_t *f, const struct iovec *iov, int n,
                          int64_t off) {
  return preadv(f->fd, iov, n, (off_t)off);
}

static ssize_t sys_pwritev(io_file_t *f, const struct iovec *iov, int n,
                           int64_t off) {
  if (direct_iov(f, iov, n, off)) {
    ssize_t put = pwritev(f->dfd, iov, n, (off_t)off);
    if (put > 0)
      f->direct_calls++;
    if (put >= 0 || errno != EINVAL)
      return put;
  }
  f->direct_missed += direct(f);
  return pwritev(f->fd, iov, n, (off_t)off);
}

static int sys_fsync(io_file_t *f) { return fsync(f->fd); }

static int sys_fcntl_lock(io_file_t *f, int cmd, struct flock *fl) {
  return fcntl(f->lock_fd, cmd, fl);
}

static int sys_close(io_file_t *f) { return close(f->fd); }

static int sys_unlink(io_file_t *f, const char *path) {
  (void)f;
  return unlink(path);
}

const io_sys_t darray__io_sys_libc = {
    sys_open,       sys_pread, sys_pwrite,          sys_preadv,
    sys_pwritev,    sys_fsync, sys_fcntl_lock,      sys_close,
    darray__io_sys_map, darray__io_sys_reserve, sys_unlink};

/* The table in use (libc's until open has set one). */
static const io_sys_t *sys(const io_file_t *f) {
  return f->sys != NULL ? f->sys : &darray__io_sys_libc;
}

/* ---- the back end -------------------------------------------------------- */

int darray__io_posix_flags(int mode, bool first) {
  int fl = (mode & DARRAY_MODE_RDWR) ? O_RDWR : O_RDONLY;
  if (mode & DARRAY_MODE_CREATE)
    fl |= O_CREAT;
  if ((mode & DARRAY_MODE_TRUNC) && first)
    fl |= O_TRUNC;
  return fl;
}

/* What a file of this kind is called in a refusal, or NULL when darrayio
 * opens it: a regular file, a block device, a character device that seeks
 * (fd >= 0: asked of fd; else of path, opened for the question alone,
 * without blocking). A FIFO or a socket has no positions: a read-only open
 * of a FIFO waits for a writer, its reads take another process's bytes. */
static const char *unseekable(const struct stat *st, int fd,
                              const char *path) {
  if (S_ISFIFO(st->st_mode))
    return "a FIFO (named pipe)";
  if (S_ISSOCK(st->st_mode))
    return "a socket";
  if (!S_ISCHR(st->st_mode))
    return NULL;
  int own = fd < 0 ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : fd;
  bool seeks = own >= 0 && lseek(own, 0, SEEK_CUR) >= 0;
  if (own >= 0 && fd < 0)
    close(own);
  return seeks || (own < 0 && fd < 0) ? NULL
                                       : "a character device that cannot "
                                         "seek";
}

/* The refusal of what st (of path, open as fd or -1) describes, or
 * DARRAY_SUCCESS: a directory is DARRAY_EISDIR, a file without positions
 * DARRAY_ENOTSUP, the message naming path and its kind. */
static int refuse_kind(const struct stat *st, int fd, const char *path,
                       char *msg, size_t msglen) {
  char sp[DARRAY_PATH_SHOWN + 1];
  const char *shown = darray__short_path(path, sp, sizeof sp);
  if (S_ISDIR(st->st_mode)) {
    snprintf(msg, msglen, "open('%s'): is a directory", shown);
    return DARRAY_EISDIR;
  }
  const char *what = unseekable(st, fd, path);
  if (what == NULL)
    return DARRAY_SUCCESS;
  snprintf(msg, msglen, "'%s' is %s, not a file darrayio can read or write "
           "at an offset (a regular file, a block device or a character "
           "device that seeks)", shown, what);
  return DARRAY_ENOTSUP;
}

int darray__io_check_kind(const char *path, char *msg, size_t msglen) {
  struct stat st;
  if (stat(path, &st) != 0) /* the open that follows says what is wrong */
    return DARRAY_SUCCESS;
  return refuse_kind(&st, -1, path, msg, msglen);
}

int darray__io_posix_open_path(io_file_t *f, const char *path, int flags,
                               int *out, char *msg, size_t msglen) {
  int fd;
  do /* O_NONBLOCK: a FIFO's open for reading would wait for a writer */
    fd = sys(f)->open(f, path, flags | O_NONBLOCK, 0666);
  while (fd < 0 && errno == EINTR);
  char sp[DARRAY_PATH_SHOWN + 1];
  struct stat st;
  int rc = DARRAY_SUCCESS;
  if (fd < 0) {
    f->err_errno = errno;
    if (errno == ENXIO && stat(path, &st) == 0 && /* a socket */
        (rc = refuse_kind(&st, -1, path, msg, msglen)) != DARRAY_SUCCESS)
      return rc;
    snprintf(msg, msglen, "open('%s'): %s",
             darray__short_path(path, sp, sizeof sp), strerror(f->err_errno));
    return darray__io_errno_code(f->err_errno);
  }
  int fl = fcntl(fd, F_GETFL);
  if (fstat(fd, &st) != 0 || fl < 0 ||
      fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    f->err_errno = errno;
    snprintf(msg, msglen, "open('%s'): %s",
             darray__short_path(path, sp, sizeof sp), strerror(f->err_errno));
    rc = darray__io_errno_code(f->err_errno);
  } else {
    rc = refuse_kind(&st, fd, path, msg, msglen);
  }
  if (rc != DARRAY_SUCCESS) {
    close(fd);
    return rc;
  }
  *out = fd;
  return DARRAY_SUCCESS;
}

/* darray_direct_write: a second descriptor, O_DIRECT, for the writes that
 * may use it (f->fd is open; the subfile back end calls it for each of its
 * subfiles). Local: a process without one writes through the page cache,
 * which stays right (page_aligned). */
void darray__io_posix_direct(io_file_t *f, const char *path, int mode) {
  f->direct_on = false;
  f->dfd = -1;
  if (!f->direct_want) {
    f->direct_why = "darray_direct_write = disable";
    return;
  }
  if (!(mode & DARRAY_MODE_RDWR)) {
    f->direct_why = "the file is open for reading only";
    return;
  }
  int fd;
  do
    fd = open(path, O_WRONLY | O_DIRECT);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    f->direct_why = errno == EINVAL ? "the file system refuses O_DIRECT"
                                    : "the file could not be opened again "
                                      "with O_DIRECT";
    return;
  }
  f->dfd = fd;
  f->direct_on = true;
  f->direct_why = NULL;
}

static int posix_open(io_file_t *f, MPI_Comm comm, const char *path, int mode,
                      MPI_Info info, char *msg, size_t msglen) {
  (void)info;
  int rank, rc = DARRAY_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  f->fd = -1;
  rc = darray__io_fault_setup(f, rank, msg, msglen);
  if (rank == 0 && rc == DARRAY_SUCCESS)
    rc = darray__io_posix_open_path(f, path, darray__io_posix_flags(mode,
                                    true), &f->fd, msg, msglen);
  int rc0 = rc;
  MPI_Request req;
  if ((MPI_Ibcast(&rc0, 1, MPI_INT, 0, comm, &req) != MPI_SUCCESS ||
       darray__wait(&req) != DARRAY_SUCCESS) &&
      rc == DARRAY_SUCCESS) /* rank 0's word is lost, or its own failed */
    rc = darray__err(msg, DARRAY_EMPI, "MPI_Bcast failed after rank 0 "
                                       "opened '%s'", path);
  else if (rank != 0 && rc0 == DARRAY_SUCCESS && rc == DARRAY_SUCCESS)
    rc = darray__io_posix_open_path(f, path, darray__io_posix_flags(mode,
                                    false), &f->fd, msg, msglen);
  if (rc == DARRAY_SUCCESS)
    darray__io_posix_direct(f, path, mode);
  return rc;
}

static int posix_pread(io_file_t *f, void *buf, int64_t len, int64_t off) {
  char *p = buf;
  while (len > 0) {
    size_t n =
        (size_t)(len < DARRAY_IO_MAX_CALL ? len : DARRAY_IO_MAX_CALL);
    ssize_t got = sys(f)->pread(f, p, n, off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      f->err_errno = errno;
      return darray__io_errno_code(errno);
    }
    if (got == 0)
      return DARRAY_EEOF;
    p += got;
    off += got;
    len -= got;
  }
  return DARRAY_SUCCESS;
}

static int posix_pwrite(io_file_t *f, const void *buf, int64_t len,
                        int64_t off) {
  const char *p = buf;
  while (len > 0) {
    size_t n =
        (size_t)(len < DARRAY_IO_MAX_CALL ? len : DARRAY_IO_MAX_CALL);
    ssize_t put = sys(f)->pwrite(f, p, n, off);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      f->err_errno = put < 0 ? errno : ENOSPC;
      return darray__io_errno_code(f->err_errno);
    }
    p += put;
    off += put;
    len -= put;
  }
  return DARRAY_SUCCESS;
}

/* fsync may fail with EINTR (POSIX); it is then simply called again. */
static int posix_sync(io_file_t *f) {
  if (f->fd < 0)
    return DARRAY_SUCCESS;
  int r;
  do
    r = sys(f)->fsync(f);
  while (r != 0 && errno == EINTR);
  if (r != 0) {
    f->err_errno = errno;
    return darray__io_errno_code(errno);
  }
  return DARRAY_SUCCESS;
}

/* close is never retried: Linux releases the descriptor even when close
 * reports a failure (EINTR included), and a retry could close a descriptor
 * another thread has opened since. The failure is reported. */
static int posix_close(io_file_t *f) {
  darray__io_lock_free(f);
  int rc = DARRAY_SUCCESS;
  if (f->fd >= 0 && sys(f)->close(f) != 0) {
    f->err_errno = errno;
    rc = darray__io_errno_code(errno);
  }
  f->fd = -1;
  if (direct(f) && close(f->dfd) != 0 && rc == DARRAY_SUCCESS) {
    f->err_errno = errno; /* a direct write's failure may show here */
    rc = darray__io_errno_code(errno);
  }
  f->direct_on = false;
  f->dfd = -1;
  darray__io_fault_free(f);
  return rc;
}

/* Vector transfer; a partial transfer resumes inside the piece it stopped
 * in. The caller's iovec array is not modified. */
static int posix_vector(io_file_t *f, const struct iovec *iov, int n,
                        int64_t off, bool write) {
  struct iovec cur[DARRAY_IOV_MAX];
  if (n > DARRAY_IOV_MAX)
    return DARRAY_EINVAL;
  memcpy(cur, iov, sizeof *iov * (size_t)n);
  struct iovec *v = cur;
  while (n > 0) {
    ssize_t got =
        write ? sys(f)->pwritev(f, v, n, off) : sys(f)->preadv(f, v, n, off);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      f->err_errno = errno;
      return darray__io_errno_code(errno);
    }
    if (got == 0) {
      if (write)
        f->err_errno = ENOSPC;
      return write ? DARRAY_ENOSPC : DARRAY_EEOF;
    }
    off += got;
    while (n > 0 && (size_t)got >= v->iov_len) {
      got -= (ssize_t)v->iov_len;
      v++;
      n--;
    }
    if (n > 0) {
      v->iov_base = (char *)v->iov_base + got;
      v->iov_len -= (size_t)got;
    }
  }
  return DARRAY_SUCCESS;
}

static int posix_preadv(io_file_t *f, const struct iovec *iov, int n,
                        int64_t off) {
  return posix_vector(f, iov, n, off, false);
}

static int posix_pwritev(io_file_t *f, const struct iovec *iov, int n,
                         int64_t off) {
  return posix_vector(f, iov, n, off, true);
}

/* Byte-range locks are io_lock.c's, on f->fd. */
const io_ops_t darray__io_posix_ops = {
    .name = "posix",
    .open = posix_open,
    .pread = posix_pread,
    .pwrite = posix_pwrite,
    .sync = posix_sync,
    .close = posix_close,
    .preadv = posix_preadv,
    .pwritev = posix_pwritev,
    /* no list call: a range is one call, whatever the order */
    .local = true,
    .own_fd = true,
    .close_local = true,
    .maps = true,
};
