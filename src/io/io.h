/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * io.h - byte-transfer back ends (posix, mpiio), byte-range locks and the
 * fault-injection layer.
 */
#ifndef DARRAYIO_IO_H
#define DARRAYIO_IO_H

#include "util.h"
#include <sys/types.h>
#include <sys/uio.h>

typedef struct io_file io_file_t;
struct darray_hints;

typedef struct io_ops {
  const char *name;
  /* open on every process of comm (collective for mpiio; posix opens per
   * process, the caller orders creation) */
  int (*open)(io_file_t *f, MPI_Comm comm, const char *path, int mode,
              MPI_Info info, char *msg, size_t msglen);
  /* transfer exactly len bytes, retrying partial transfers; a read that
   * meets end of file returns DARRAY_EEOF */
  int (*pread)(io_file_t *f, void *buf, int64_t len, int64_t off);
  int (*pwrite)(io_file_t *f, const void *buf, int64_t len, int64_t off);
  int (*sync)(io_file_t *f);
  int (*close)(io_file_t *f);
  /* vector transfer of the contiguous file range starting at off from/to
   * n (<= DARRAY_IOV_MAX) memory pieces, retrying partial transfers; NULL
   * when the back end has none (the io layer then gathers/scatters
   * through a caller's scratch buffer) */
  int (*preadv)(io_file_t *f, const struct iovec *iov, int n, int64_t off);
  int (*pwritev)(io_file_t *f, const struct iovec *iov, int n, int64_t off);
  /* list transfer: the nr file ranges [off[k], off[k] + len[k]), in
   * increasing order and apart, from/to the n (<= DARRAY_IOV_MAX) memory
   * pieces of iov, one after another (as many bytes as the ranges);
   * NULL when the back end has none (the io layer then moves range by
   * range). The subfile back end moves each subfile's share of all the
   * ranges with one call: a layout-aware chunk's stripes of one server,
   * round after round, are one extent of its subfile. */
  int (*plist)(io_file_t *f, const struct iovec *iov, int n, int nr,
               const int64_t *off, const int64_t *len, bool write);
  /* transfers and sync make no MPI call and touch only the handle: below
   * MPI_THREAD_MULTIPLE they may run in a file's I/O thread while the
   * program's thread calls MPI (src/async, darray_async=files) */
  bool local;
  /* The properties the file core asks instead of naming a back end.
   * own_fd: this process moves the bytes through its own descriptors
   * (f->sys's calls, io_posix.c), so darray_direct_write may open an
   * O_DIRECT descriptor beside them (darray__io_posix_direct).
   * close_local: close makes no MPI call, so that darray_file_close after
   * MPI_Finalize still closes the descriptors (darray_file.c). maps: the
   * mapped strategy may map the file's own pages (io_map.c). */
  bool own_fd, close_local, maps;
  /* Why a dataset (.npy, .npz: src/format reads and sizes its file
   * through the descriptor or MPI handle) cannot be kept through this
   * back end, the words after "a dataset (.npy, .npz) "; NULL: it can. */
  const char *no_dataset;
  /* Before any back end opens: whether path is a file this back end
   * recorded (its layout at the file's start), and then h names it and
   * its recorded layout; a record that contradicts an explicit hint is
   * DARRAY_EHINT. Local, no MPI call. NULL: nothing is recorded. */
  int (*detect)(const char *path, int mode, struct darray_hints *h,
                char *msg, size_t msglen);
  /* darray_file_sync, after every process's sync has been agreed on:
   * what the back end records once all writes have ended (its own
   * agreement follows). NULL: nothing. */
  int (*settle)(io_file_t *f);
  /* darray_explain's words for the open file after "back end: " into buf
   * (len bytes). NULL: the name. */
  void (*describe)(const io_file_t *f, char *buf, size_t len);
} io_ops_t;

/* The granule of direct writes: their file offsets and lengths are
 * multiples of it, so that a page a direct write covers holds only bytes
 * that write was asked to write; no other process's buffered write of the
 * same call shares the page, which the kernel could otherwise write back
 * over the direct write (io_posix.c). */
#define DARRAY_DIO_PAGE 4096

/* Most pieces in one vector call (POSIX guarantees at least 16; Linux
 * allows 1024). */
#define DARRAY_IOV_MAX 1024

/* Most bytes one call of a back end moves (its pread and pwrite loop over
 * larger transfers): far from 32-bit limits, so it fits an MPI count (an
 * int), and below Linux's 0x7ffff000 per system call. */
#define DARRAY_IO_MAX_CALL (INT64_C(1) << 30)

struct io_file {
  const io_ops_t *ops;
  int fd;            /* posix */
  MPI_File fh;       /* mpiio */
  int err_errno;     /* errno of the last failure (read into the call
                        that made it, io.c) */
  /* byte-range locks (io_lock.c) */
  bool locks;        /* writes take locks: shared, or exclusive for a
                        read-modify-write */
  bool rmw;          /* a strategy may read-modify-write (under an
                        exclusive lock when locks is set) */
  bool can_lock;     /* the file takes fcntl locks (probed at open) */
  int lock_fd;       /* the descriptor locked: fd, or mpiio's own */
  bool own_lock_fd;
  int lock_cmd;      /* F_OFD_SETLKW or F_SETLKW */
  char err_text[DARRAY_IO_TEXT_LEN]; /* mpiio: the call and MPI's text */
  const struct io_sys *sys; /* posix, subfiles: the system calls (libc, or
                               faults) */
  /* whether the mapped strategy may map this file (io_map.c, at open),
   * and if not, why, in words */
  bool map_ok;
  const char *map_why;
  /* posix, subfiles: direct writes (darray_direct_write; io_posix.c).
   * direct_want is set before open; direct_on: dfd is the O_DIRECT
   * descriptor (else direct_why says why there is none); direct_calls
   * counts the writes that went through it, direct_missed those that went
   * through the page cache while it was on. A subfile set's descriptor:
   * direct_on when every subfile has it, dfd -1, the calls its subfiles'
   * (darray__io_direct_calls) */
  bool direct_want, direct_on;
  int dfd;
  const char *direct_why;
  int64_t direct_calls, direct_missed;
  struct io_fault *fault;   /* posix, subfiles: fault-injection state, or
                               NULL (shared with the subfiles' handles) */
  /* subfiles (io_subfiles.c): the layout asked for (set before open from
   * the hints), the communicator the close synchronizes, and the state */
  int64_t stripe_unit;
  int64_t stripe_factor;
  MPI_Comm comm;
  struct io_subfiles *sub;
};

/*
 * The system calls of the posix back end, below its retry loops: libc's,
 * or io_fault.c's, which count them and inject failures and short
 * transfers when DARRAYIO_FAULT is set at open (doc/reliability.md). Each
 * behaves as the libc call of the same name on f->fd (open returns the new
 * descriptor; fcntl_lock is fcntl(fd, cmd, fl) with a struct flock).
 */
struct flock;
typedef struct io_sys {
  int (*open)(io_file_t *f, const char *path, int flags, int mode);
  ssize_t (*pread)(io_file_t *f, void *buf, size_t n, int64_t off);
  ssize_t (*pwrite)(io_file_t *f, const void *buf, size_t n, int64_t off);
  ssize_t (*preadv)(io_file_t *f, const struct iovec *iov, int n,
                    int64_t off);
  ssize_t (*pwritev)(io_file_t *f, const struct iovec *iov, int n,
                     int64_t off);
  int (*fsync)(io_file_t *f);
  int (*fcntl_lock)(io_file_t *f, int cmd, struct flock *fl);
  int (*close)(io_file_t *f); /* of f->fd */
  /* the mapped strategy's (io_map.c): map [off, off + n) of f->fd shared,
   * readable (and writable when write), and populate its pages from byte
   * skip on (a multiple of the page size), which reports an I/O error or a
   * lack of space as a failure instead of a signal at the first touch; on
   * failure nothing stays mapped */
  int (*map)(io_file_t *f, size_t n, int64_t off, size_t skip, bool write,
             void **p);
  /* fallocate(fd, 0, off, len): blocks for [off, off + len), the file
   * grown to off + len if shorter; no byte changes */
  int (*reserve)(io_file_t *f, int64_t off, int64_t len);
  /* unlink(path) (darray_file_delete, io_delete.c: f is a handle of no
   * file, for the fault state alone) */
  int (*unlink)(io_file_t *f, const char *path);
} io_sys_t;

DARRAY_HIDDEN extern const io_sys_t darray__io_sys_libc;
/* open(2)'s flags for a darrayio mode (DARRAY_MODE_*); O_TRUNC only for
 * the process that creates the file (first) */
DARRAY_HIDDEN int darray__io_posix_flags(int mode, bool first);
/* Open path (flags: open(2)'s) through f's system calls into *fd, without
 * blocking: a directory is DARRAY_EISDIR, a FIFO, a socket or a character
 * device that cannot seek DARRAY_ENOTSUP (nothing stays open), the message
 * naming path; a failed open the system error's code (f->err_errno). */
DARRAY_HIDDEN int darray__io_posix_open_path(io_file_t *f, const char *path,
                                             int flags, int *fd, char *msg,
                                             size_t msglen);
/* The same refusal from path's stat(2), for a back end that opens the file
 * by other means (mpiio); DARRAY_SUCCESS when path cannot be looked at
 * (the open that follows reports why). Local. */
DARRAY_HIDDEN int darray__io_check_kind(const char *path, char *msg,
                                        size_t msglen);
/* path less a ROMIO file-system prefix ("ufs:", "nfs:", "lustre:" ...):
 * the name the system knows (io_lock.c). */
DARRAY_HIDDEN const char *darray__io_system_path(const char *path);
/* darray_direct_write: open f's O_DIRECT descriptor beside f->fd (posix,
 * and each subfile of a set), or say in f->direct_why why not */
DARRAY_HIDDEN void darray__io_posix_direct(io_file_t *f, const char *path,
                                           int mode);
/* The write calls that went around the page cache on f (its subfiles' on
 * a subfile set; io_subfiles.c); *missed those through it while direct
 * writes were on */
DARRAY_HIDDEN int64_t darray__io_direct_calls(const io_file_t *f,
                                              int64_t *missed);
/* libc's map and reserve (io_map.c) */
DARRAY_HIDDEN int darray__io_sys_map(io_file_t *f, size_t n, int64_t off,
                                     size_t skip, bool write, void **p);
DARRAY_HIDDEN int darray__io_sys_reserve(io_file_t *f, int64_t off,
                                         int64_t len);

/* Kinds of system calls the fault layer counts: one per call, then the
 * classes read (pread, preadv), write (pwrite, pwritev) and any. */
enum {
  DARRAY_IO_FOP_OPEN,
  DARRAY_IO_FOP_PREAD,
  DARRAY_IO_FOP_PREADV,
  DARRAY_IO_FOP_PWRITE,
  DARRAY_IO_FOP_PWRITEV,
  DARRAY_IO_FOP_LOCK,
  DARRAY_IO_FOP_UNLOCK,
  DARRAY_IO_FOP_SYNC,
  DARRAY_IO_FOP_CLOSE,
  DARRAY_IO_FOP_MAP,     /* a window mapped (also a read or a write) */
  DARRAY_IO_FOP_RESERVE, /* fallocate */
  DARRAY_IO_FOP_UNLINK,  /* darray_file_delete's unlink of a name */
  DARRAY_IO_FOP_READ,
  DARRAY_IO_FOP_WRITE,
  DARRAY_IO_FOP_ANY,
  DARRAY_IO_FOP_N
};

/* Read DARRAYIO_FAULT and point f->sys at libc or at the fault layer;
 * `rank` is this process's rank in the file's communicator. Returns
 * DARRAY_EHINT (message in msg) for a malformed specification. */
DARRAY_HIDDEN int darray__io_fault_setup(io_file_t *f, int rank, char *msg,
                                         size_t msglen);
/* Whether this build honours DARRAYIO_FAULT (configure
 * --enable-fault-injection); without it setup ignores the variable. */
DARRAY_HIDDEN bool darray__io_fault_built(void);
/* Release the fault state (f->sys goes back to libc). */
DARRAY_HIDDEN void darray__io_fault_free(io_file_t *f);
/* Calls of one DARRAY_IO_FOP_* kind since open, and faults injected;
 * -1 when DARRAYIO_FAULT was not set at open. */
DARRAY_HIDDEN int64_t darray__io_fault_calls(const io_file_t *f, int op);
DARRAY_HIDDEN int64_t darray__io_fault_injected(const io_file_t *f);
/* Validate a specification without a file (for the fuzz target). */
DARRAY_HIDDEN int darray__io_fault_check_spec(const char *spec, int rank,
                                              char *msg, size_t msglen);

/* Line `which` of the back-end table (io.c; the value of darray_backend),
 * the first line past its end. */
DARRAY_HIDDEN const io_ops_t *darray__io_backend(int which);
/* The line of ops in the back-end table (the darray_backend value that
 * names it), -1 when none. */
DARRAY_HIDDEN int darray__io_backend_index(const io_ops_t *ops);

/* The posix back end's table: the subfile back end moves each subfile's
 * bytes through it. */
DARRAY_HIDDEN extern const io_ops_t darray__io_posix_ops;

/*
 * Striped subfiles (io_subfiles.c, doc/subfiles.md). Detect, local (each
 * process reads the file's first bytes; the open's agreement on the hints
 * follows): when path exists, is not being truncated, and starts with the
 * subfile descriptor's magic, the hints become the recorded layout
 * (darray_backend=subfiles, striping_unit, striping_factor); an explicit
 * hint that contradicts the record is DARRAY_EHINT naming both, a
 * malformed record DARRAY_EFORMAT.
 */
struct darray_hints;
DARRAY_HIDDEN int darray__io_subfiles_detect(const char *path, int mode,
                                             struct darray_hints *h,
                                             char *msg, size_t msglen);
/* darray_file_delete (io_delete.c): delete path, a subfile set (found
 * as darray__io_subfiles_detect finds one) with its subfiles, anything
 * else with one unlink. msg (DARRAY_ERRMSG_LEN bytes) gets the message
 * of a failure. Local, no MPI call. */
DARRAY_HIDDEN int darray__io_delete(const char *path, char *msg);
/* After an agreement that every process's writes have ended (sync): rank
 * 0 records the logical size in the descriptor. Nothing for other back
 * ends. */
DARRAY_HIDDEN int darray__io_subfiles_settle(io_file_t *f);

/* Byte-range locks (io_lock.c). Setup decides, once the back end has
 * opened the file, whether writes take locks and whether strategies may
 * read-modify-write, from the mode and darray_concurrent_writers; it
 * cannot fail (a file that cannot be locked gets neither). */
DARRAY_HIDDEN void darray__io_lock_setup(io_file_t *f, const char *path,
                                         int mode, int concurrency);
DARRAY_HIDDEN void darray__io_lock_free(io_file_t *f);
/*
 * One call's use of a file (a darray_read/darray_write, or later a
 * nonblocking request): what it counts, the locks it holds and the cause
 * of its first failure belong to the call, not to the file, so that calls
 * in flight on one file do not write over each other's; the entry point
 * folds them into the file handle when the call ends. The back end's own
 * slot for a failure's cause (io_file_t.err_errno / err_text) is cleared
 * before each operation and read into the call right after it fails, by
 * the thread that made it.
 */
typedef struct io_call {
  io_file_t *file;
  darray_stats_t *stats; /* the call's counters (read/write calls, bytes) */
  bool locks;            /* this call's writes take locks: the file's
                            setting, unless its strategy decides otherwise
                            (sieving under darray_concurrent_writers=none) */
  int64_t held_lo, held_hi; /* the range this call holds locked now */
  int err_errno;            /* the cause of the call's first failure */
  char err_text[DARRAY_IO_TEXT_LEN];
} io_call_t;

/* A call on file f counting into stats. */
DARRAY_HIDDEN void darray__io_call_init(io_call_t *c, io_file_t *f,
                                        darray_stats_t *stats);
/* The cause of the call's first failure, for a message: the MPI call and
 * MPI's text (mpiio), the system error (posix), or "". */
DARRAY_HIDDEN const char *darray__io_call_cause(const io_call_t *c);

/* Lock [off, off+len), shared or exclusive, blocking; nothing when the
 * call takes no locks. A call holds one lock at a time and makes no MPI
 * call while it holds one. */
DARRAY_HIDDEN int darray__io_lock(io_call_t *c, int64_t off, int64_t len,
                                  bool excl);
DARRAY_HIDDEN int darray__io_unlock(io_call_t *c, int64_t off, int64_t len);
/* Whether a plain write of [off, off+len) must take a shared lock: the
 * call takes locks and no lock it holds covers the range. */
DARRAY_HIDDEN bool darray__io_write_needs_lock(const io_call_t *c,
                                               int64_t off, int64_t len);

/* An exclusive lock of fd's first byte, waited for (on), or its release:
 * the subfile record's read-modify-write (io_subfiles_meta.c), whatever
 * the darray_concurrent_writers hint; directly, no fault target.
 * DARRAY_ENOTSUP (nothing done) when fd takes no locks, DARRAY_ELOCK
 * (errno set) when the lock fails. */
DARRAY_HIDDEN int darray__io_fd_lock(int fd, bool on);

/* Transfer through a file's back end, counting calls and bytes. */
DARRAY_HIDDEN int darray__io_pread(io_call_t *c, void *buf, int64_t len,
                                   int64_t off);
DARRAY_HIDDEN int darray__io_pwrite(io_call_t *c, const void *buf,
                                    int64_t len, int64_t off);
/* Vector transfers: through the back end's own, or gathered/scattered
 * through scratch (scratch_len >= the largest single piece is not needed:
 * pieces are split as they go). */
DARRAY_HIDDEN int darray__io_pwritev(io_call_t *c, const struct iovec *iov,
                                     int n, int64_t off, char *scratch,
                                     int64_t scratch_len);
DARRAY_HIDDEN int darray__io_preadv(io_call_t *c, const struct iovec *iov,
                                    int n, int64_t off, char *scratch,
                                    int64_t scratch_len);
/* List transfers (io_ops_t.plist): one back-end call where it has them
 * (one call counted), else one vector call per range; at most
 * DARRAY_IOV_MAX ranges. A write takes its shared lock over the ranges'
 * span. */
DARRAY_HIDDEN int darray__io_xfer_list(io_call_t *c, const struct iovec *iov,
                                       int n, int nr, const int64_t *off,
                                       const int64_t *len, bool write,
                                       char *scratch, int64_t scratch_len);
/* Whether a back end (a line of the table) moves a list with one call. */
DARRAY_HIDDEN bool darray__io_backend_lists(int which);
/* Every back end's detect (io_ops_t) on path, in the table's order, until
 * one fails. Local. */
DARRAY_HIDDEN int darray__io_detect(const char *path, int mode,
                                    struct darray_hints *h, char *msg,
                                    size_t msglen);
/*
 * The file's own pages, mapped (io_map.c; the mapped strategy).
 * darray__io_map_probe decides at open, locally, whether f may be mapped
 * under darray_map = hint (DARRAY_TRI_*): the posix back end, a kernel
 * that populates mappings (MADV_POPULATE_READ/WRITE) and, unless the hint
 * is enable, a file system whose pages every process of one node shares
 * (ext2/3/4, xfs, btrfs, tmpfs); sets f->map_ok and f->map_why. Whether
 * the file's processes share one node is the strategy's question.
 */
DARRAY_HIDDEN void darray__io_map_probe(io_file_t *f, int hint);
/* Map [off, off + len) (off a multiple of the page size) and populate it
 * from byte skip on (a multiple of the page size: the pages before hold
 * none of the call's bytes); one read or write call counted (no bytes:
 * the caller counts the bytes it copies). */
DARRAY_HIDDEN int darray__io_map(io_call_t *c, int64_t off, int64_t len,
                                 int64_t skip, bool write, char **p);
DARRAY_HIDDEN void darray__io_unmap(char *p, int64_t len);
/* Blocks for [off, off + len) and the file at least off + len long (a
 * write's space, reserved before its pages are touched). DARRAY_ENOTSUP
 * (nothing done) where the file system cannot. */
DARRAY_HIDDEN int darray__io_map_reserve(io_call_t *c, int64_t off,
                                         int64_t len);
/* The file's size (fstat). */
DARRAY_HIDDEN int darray__io_map_size(io_call_t *c, int64_t *size);

/* Map an errno value to a darray code. */
DARRAY_HIDDEN int darray__io_errno_code(int e);

#endif /* DARRAYIO_IO_H */
