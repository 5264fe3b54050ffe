/*
 * internal.h - shared internal declarations of darrayio.
 *
 * Naming: public symbols are darray_*, internal ones shared between files are
 * darray__<room>_*, everything else is static. Internal symbols have hidden
 * visibility in the shared library.
 */
#ifndef DARRAYIO_INTERNAL_H
#define DARRAYIO_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* configure's results (HAVE_ZLIB, ...) */
#endif

#include "darrayio.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#if defined(__GNUC__) && !defined(DARRAY_STATIC_TESTING)
#define DARRAY_HIDDEN __attribute__((visibility("hidden")))
#else
#define DARRAY_HIDDEN
#endif

#define DARRAY_MAGIC_ARRAY 0x44415252u /* "DARR" */
#define DARRAY_MAGIC_FILE 0x4446494cu  /* "DFIL" */
#define DARRAY_MAGIC_DEAD 0xdeadbeefu

#define DARRAY_ERRMSG_LEN 512
/* Most characters of a path in a message (darray__short_path), and of an
 * I/O back end's own text about a failure (io_file_t.err_text): together
 * with the words around them they fit a message whole. */
#define DARRAY_PATH_SHOWN 160
#define DARRAY_IO_TEXT_LEN 300

/* ------------------------------------------------------------------------ */
/* dist: which indices of a dimension a process owns                        */

/*
 * A block-cyclic index set of one dimension: the indices
 *   first + j*stride + t,  0 <= j < count, 0 <= t < block,
 * where the last block (j = count-1) holds only `last` indices (it is
 * clipped at the end of the dimension). count == 0 means empty. A set with a
 * single block has count == 1 and stride == block.
 * The local index of first + j*stride + t is j*block + t.
 */
typedef struct dist_set {
  int64_t first;
  int64_t block;
  int64_t stride;
  int64_t count;
  int64_t last;
} dist_set_t;

/* Number of indices in a set. */
DARRAY_HIDDEN int64_t darray__dist_set_size(const dist_set_t *s);

/* The set of indices of a dimension of size n owned by grid coordinate c of p
 * under BLOCK(b) (cyclic = false) or CYCLIC(b) (cyclic = true); b >= 1. */
DARRAY_HIDDEN void darray__dist_set_blockcyclic(dist_set_t *s, int64_t n,
                                                int p, int c, int64_t b,
                                                bool cyclic);

/* A single block [start, start+len). */
DARRAY_HIDDEN void darray__dist_set_range(dist_set_t *s, int64_t start,
                                          int64_t len);

/* Global index of local index l of a set (l < size). */
DARRAY_HIDDEN int64_t darray__dist_set_global(const dist_set_t *s, int64_t l);

/* Owner coordinate and local index of global index g under BLOCK/CYCLIC(b). */
DARRAY_HIDDEN void darray__dist_owner_blockcyclic(int64_t g, int p, int64_t b,
                                                  bool cyclic, int *coord,
                                                  int64_t *local);

/* Multipartition slab s of q slabs over n points. */
DARRAY_HIDDEN void darray__dist_mp_slab(int64_t n, int q, int s,
                                        int64_t *start, int64_t *len);

/* Slab holding global index g (0 <= g < n). */
DARRAY_HIDDEN int darray__dist_mp_slab_of(int64_t n, int q, int64_t g);

/* Cell k of rank r: its (x, y, z) slab numbers. */
DARRAY_HIDDEN void darray__dist_mp_cell(int q, int r, int k, int xyz[3]);

/* Owner rank and cell number of the cell with slab numbers (x, y, z). */
DARRAY_HIDDEN void darray__dist_mp_owner(int q, const int xyz[3], int *rank,
                                         int *cell);

/* Integer square root if p is a perfect square, else -1. */
DARRAY_HIDDEN int darray__dist_isqrt(int p);

/* ------------------------------------------------------------------------ */
/* the array descriptor                                                     */

/* One local cell: a box of per-dimension index sets, placed in the local
 * buffer at byte offset mem_base (offset of the interior's first element),
 * with byte strides mem_stride per local index step. */
typedef struct section {
  dist_set_t set[DARRAY_MAX_DIMS];
  int64_t mem_base;
  int64_t mem_stride[DARRAY_MAX_DIMS];
  int64_t alloc_bytes; /* bytes of this cell's allocated box */
} section_t;

typedef struct darray_s {
  uint32_t magic;
  bool committed;
  MPI_Comm comm;
  int rank, nprocs;
  int ndims;
  int64_t gsizes[DARRAY_MAX_DIMS];
  darray_type_t type;
  int64_t esize; /* 0 until known (opaque without set_elem_size) */
  darray_dist_t dist[DARRAY_MAX_DIMS];
  int64_t dargs[DARRAY_MAX_DIMS];
  int psizes[DARRAY_MAX_DIMS];
  darray_order_t file_order;
  int perm[DARRAY_MAX_DIMS]; /* file dims, slowest to fastest */
  int64_t disp;
  darray_order_t mem_order;
  int64_t ghost[DARRAY_MAX_DIMS];
  int64_t padded[DARRAY_MAX_DIMS]; /* 0 = tight */
  /* derived at commit */
  int q;                    /* multipartition: sqrt(P), else 0 */
  int coords[DARRAY_MAX_DIMS];
  int64_t block[DARRAY_MAX_DIMS]; /* effective block size per dim */
  int64_t fstride[DARRAY_MAX_DIMS]; /* file byte stride per dim */
  int nsec;
  section_t *sec;
  int64_t local_count;
  int64_t local_bytes;
  int64_t desc_hash; /* of the parts every process must share */
  uint64_t id; /* unique in the process (darray__next_id) */
  char errmsg[DARRAY_ERRMSG_LEN];
} darray_s_t;

/* Check that a is a live array handle and clear its message; on failure
 * the message goes to the no-handle buffer. */
DARRAY_HIDDEN int darray__array_check(struct darray_s *a);

/* Build the sections of rank `rank` of array a (committed description
 * fields must be set): allocates *sec; returns a darray code. Usable for any
 * rank, so that a process can compute another's pattern. */
DARRAY_HIDDEN int darray__dist_sections(const struct darray_s *a, int rank,
                                        section_t **sec, int *nsec);

/* Grid coordinates of a rank in a row-major grid. */
DARRAY_HIDDEN void darray__dist_coords(int ndims, const int psizes[], int rank,
                                       int coords[]);

/* ------------------------------------------------------------------------ */
/* layout: file runs of a rank, in file order                                */

/* One contiguous stretch of file bytes belonging to one section. The
 * elements of the run, in file order, are a box: dimension perm[depth] from
 * local index l0 for `nblk` indices, then every later (faster) file dimension
 * in full. */
typedef struct layout_run {
  int64_t foff;   /* absolute byte offset in the file */
  int64_t len;    /* bytes */
  int64_t moff;   /* byte offset of the run's first element in the buffer */
  int sec;        /* section number */
  int depth;      /* file-order position of the run's outermost dimension */
  bool mem_contig; /* the run is one contiguous stretch of the buffer too */
} layout_run_t;

/* Iterator state over one section's runs. */
typedef struct layout_secit {
  int depth;                    /* file-order position of the run dim */
  int64_t pos[DARRAY_MAX_DIMS]; /* local index per file-order dim < depth;
                                   block number j at depth */
  bool done;
  bool mem_contig;
  bool base_ok;               /* base_* hold the dims before depth */
  int64_t base_foff, base_moff;
} layout_secit_t;

/* Iterator over all runs of a rank, merged across sections in file order. */
typedef struct layout_iter {
  const struct darray_s *a;
  const section_t *sec;
  int nsec;
  layout_secit_t *it; /* nsec entries */
  layout_run_t *head; /* nsec entries: next run of each section */
} layout_iter_t;

DARRAY_HIDDEN int darray__layout_iter_init(layout_iter_t *it,
                                           const struct darray_s *a,
                                           const section_t *sec, int nsec);
/* Next run in file order; returns false when there is none. */
DARRAY_HIDDEN bool darray__layout_next(layout_iter_t *it, layout_run_t *run);
DARRAY_HIDDEN void darray__layout_iter_free(layout_iter_t *it);
/* Closed-form numbers of a set of cells' runs (no run is enumerated). */
typedef struct layout_summary {
  int64_t nruns, bytes; /* runs (touching ones counted apart) and bytes */
  int64_t lo, hi;       /* file extent */
  int64_t min_run, max_run; /* shortest and longest run, bytes */
} layout_summary_t;
DARRAY_HIDDEN void darray__layout_summary(const struct darray_s *a,
                                          const section_t *sec, int nsec,
                                          layout_summary_t *sum);

/* Whether every run of a cell is one contiguous stretch of the buffer too
 * (true for an empty cell). */
DARRAY_HIDDEN bool darray__layout_mem_contig(const struct darray_s *a,
                                             const section_t *sec);
/* Reposition on the first run that ends after file offset off (runs that
 * start before off and end after it are included, unclipped). */
DARRAY_HIDDEN void darray__layout_seek(layout_iter_t *it, int64_t off);

/* Copy every run byte of cells sec[0..nsec) that lies in file range
 * [lo, hi) between the user buffer and win, the image of that range
 * (to_win: user -> win); bytes of win in holes are not touched. */
DARRAY_HIDDEN void darray__layout_copy_window(const struct darray_s *a,
                                              const section_t *sec, int nsec,
                                              int64_t lo, int64_t hi,
                                              char *user, char *win,
                                              bool to_win);
/* Bytes of the runs of cells sec[0..nsec) that lie before file offset x,
 * in closed form (O(nsec * ndims), no run is walked); the bytes inside
 * [lo, hi) are before(hi) - before(lo). */
DARRAY_HIDDEN int64_t darray__layout_bytes_before(const struct darray_s *a,
                                                  const section_t *sec,
                                                  int nsec, int64_t x);
/* Whether a cell's elements, taken in file order, are one dense stretch of
 * its buffer (every byte range of its runs is then contiguous there). */
DARRAY_HIDDEN bool darray__layout_file_packed(const struct darray_s *a,
                                              const section_t *sec);
/* The cell `in` with its memory described as packed in file order from
 * byte offset base (which may be negative: offsets are relative to the
 * pointer a copy is given). */
DARRAY_HIDDEN void darray__layout_pack_section(const struct darray_s *a,
                                               const section_t *in,
                                               int64_t base, section_t *out);
/* Copy bytes [b0, b1) of a run between the user buffer and a packed buffer
 * (to_packed: user -> packed, else packed -> user). b0 and b1 are multiples
 * of the element size. */
DARRAY_HIDDEN void darray__layout_copy(const struct darray_s *a,
                                       const section_t *sec,
                                       const layout_run_t *run, int64_t b0,
                                       int64_t b1, char *user, char *packed,
                                       bool to_packed);

/* ------------------------------------------------------------------------ */
/* hints                                                                    */

enum { DARRAY_BACKEND_POSIX = 0, DARRAY_BACKEND_MPIIO = 1 };
enum {
  DARRAY_STRATEGY_AUTO = 0,
  DARRAY_STRATEGY_DIRECT = 1,
  DARRAY_STRATEGY_TWOPHASE = 2,
  DARRAY_STRATEGY_SIEVE = 3
};
enum { DARRAY_TRI_AUTO = 0, DARRAY_TRI_ENABLE = 1, DARRAY_TRI_DISABLE = 2 };
/* darray_concurrent_writers (src/io/io_lock.c) */
enum {
  DARRAY_CONC_LOCKED = 0,  /* others may write: locks, locked RMW */
  DARRAY_CONC_NONE = 1,    /* nobody else writes: no locks, RMW */
  DARRAY_CONC_UNLOCKED = 2 /* others write without locks: no RMW */
};

typedef struct darray_hints {
  int backend;
  int strategy;
  int64_t ind_rd_buffer_size;
  int64_t ind_wr_buffer_size;
  int64_t cb_buffer_size;
  int64_t cb_nodes;
  int64_t striping_unit;
  int64_t striping_factor;
  int ds_read, ds_write, cb_read, cb_write;
  /* data sieving's cost model (src/sieve, doc/sieving.md): time of one
   * read and one write call, and the transfer rate */
  int64_t ds_rd_latency_ns;
  int64_t ds_wr_latency_ns;
  int64_t ds_bandwidth_mbs; /* 10^6 bytes per second */
  /* darray_temp_limit: the most temporary memory one call may use on a
   * process, 0 = no limit beyond the buffer sizes above (which it lowers) */
  int64_t temp_limit;
  /* two-phase: pieces shorter than this on average are copied into an
   * image of the chunk (src/twophase/twophase.c) */
  int64_t cb_image_piece;
  /* two-phase writes: overlap the next chunk's exchange with this chunk's
   * file call (tri-state) */
  int cb_pipeline;
  /* the planner's two-phase costs: exchange rate (10^6 bytes per second,
   * each byte counted when sent and when received) and the cost of one
   * cycle's synchronization */
  int64_t cb_exchange_mbs;
  int64_t cb_cycle_ns;
  /* darray_concurrent_writers: DARRAY_CONC_* */
  int concurrency;
} darray_hints_t;

DARRAY_HIDDEN void darray__hints_default(darray_hints_t *h);
/* After parsing: lower the buffer sizes to darray_temp_limit, if set. */
DARRAY_HIDDEN void darray__hints_apply_limit(darray_hints_t *h);
/* Strip leading and trailing white space in place; returns the start. */
DARRAY_HIDDEN char *darray__trim(char *s);
/* Apply one "key=value;key=value" string; strict: unknown keys are errors.
 * On error writes a message naming the key into msg. */
DARRAY_HIDDEN int darray__hints_parse_string(darray_hints_t *h, const char *s,
                                             char *msg, size_t msglen);
/* Apply the known keys of an MPI_Info (unknown ones are ignored). */
DARRAY_HIDDEN int darray__hints_from_info(darray_hints_t *h, MPI_Info info,
                                          char *msg, size_t msglen);
/* Text value of a hint; returns DARRAY_EHINT for unknown keys. */
DARRAY_HIDDEN int darray__hints_get(const darray_hints_t *h, const char *key,
                                    char *value, size_t len);

/* ------------------------------------------------------------------------ */
/* io: byte-transfer back ends                                              */

typedef struct io_file io_file_t;

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
} io_ops_t;

/* Most pieces in one vector call (POSIX guarantees at least 16; Linux
 * allows 1024). */
#define DARRAY_IOV_MAX 1024

struct io_file {
  const io_ops_t *ops;
  int fd;            /* posix */
  MPI_File fh;       /* mpiio */
  int err_errno;     /* errno of the last failure */
  /* byte-range locks (io_lock.c) */
  bool locks;        /* writes take locks: shared, or exclusive for a
                        read-modify-write */
  bool rmw;          /* a strategy may read-modify-write (under an
                        exclusive lock when locks is set) */
  bool can_lock;     /* the file takes fcntl locks (probed at open) */
  int lock_fd;       /* the descriptor locked: fd, or mpiio's own */
  bool own_lock_fd;
  int lock_cmd;      /* F_OFD_SETLKW or F_SETLKW */
  int64_t held_lo, held_hi; /* the range this handle holds locked now */
  char err_text[DARRAY_IO_TEXT_LEN]; /* mpiio: the call and MPI's text */
  darray_stats_t *stats;
  const struct io_sys *sys; /* posix: the system calls (libc, or faults) */
  struct io_fault *fault;   /* posix: fault-injection state, or NULL */
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
} io_sys_t;

DARRAY_HIDDEN extern const io_sys_t darray__io_sys_libc;

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
/* Release the fault state (f->sys goes back to libc). */
DARRAY_HIDDEN void darray__io_fault_free(io_file_t *f);
/* Calls of one DARRAY_IO_FOP_* kind since open, and faults injected;
 * -1 when DARRAYIO_FAULT was not set at open. */
DARRAY_HIDDEN int64_t darray__io_fault_calls(const io_file_t *f, int op);
DARRAY_HIDDEN int64_t darray__io_fault_injected(const io_file_t *f);
/* Validate a specification without a file (for the fuzz target). */
DARRAY_HIDDEN int darray__io_fault_check_spec(const char *spec, int rank,
                                              char *msg, size_t msglen);

DARRAY_HIDDEN const io_ops_t *darray__io_backend(int which);

/* Byte-range locks (io_lock.c). Setup decides, once the back end has
 * opened the file, whether writes take locks and whether strategies may
 * read-modify-write, from the mode and darray_concurrent_writers; it
 * cannot fail (a file that cannot be locked gets neither). */
DARRAY_HIDDEN void darray__io_lock_setup(io_file_t *f, const char *path,
                                         int mode, int concurrency);
DARRAY_HIDDEN void darray__io_lock_free(io_file_t *f);
/* Lock [off, off+len), shared or exclusive, blocking; nothing when the
 * file takes no locks. A process holds one lock at a time. */
DARRAY_HIDDEN int darray__io_lock(io_file_t *f, int64_t off, int64_t len,
                                  bool excl);
DARRAY_HIDDEN int darray__io_unlock(io_file_t *f, int64_t off, int64_t len);
/* Whether a plain write of [off, off+len) must take a shared lock: the
 * file takes locks and no lock this handle holds covers it. */
DARRAY_HIDDEN bool darray__io_write_needs_lock(const io_file_t *f,
                                               int64_t off, int64_t len);

struct darray_file_s;
/* Transfer through a file's back end, counting calls and bytes. */
DARRAY_HIDDEN int darray__io_pread(struct darray_file_s *f, void *buf,
                                   int64_t len, int64_t off);
DARRAY_HIDDEN int darray__io_pwrite(struct darray_file_s *f, const void *buf,
                                    int64_t len, int64_t off);
/* Vector transfers: through the back end's own, or gathered/scattered
 * through scratch (scratch_len >= the largest single piece is not needed:
 * pieces are split as they go). */
DARRAY_HIDDEN int darray__io_pwritev(struct darray_file_s *f,
                                     const struct iovec *iov, int n,
                                     int64_t off, char *scratch,
                                     int64_t scratch_len);
DARRAY_HIDDEN int darray__io_preadv(struct darray_file_s *f,
                                    const struct iovec *iov, int n,
                                    int64_t off, char *scratch,
                                    int64_t scratch_len);
/* Map an errno value to a darray code. */
DARRAY_HIDDEN int darray__io_errno_code(int e);

/* ------------------------------------------------------------------------ */
/* file handle                                                              */

typedef struct darray_file_s {
  uint32_t magic;
  MPI_Comm comm;
  int rank, nprocs;
  int mode;
  darray_hints_t hints;
  bool cycle_at_open; /* darray_cb_cycle_ns was set by the open (wait.c) */
  uint64_t id;        /* unique in the process (darray__next_id) */
  /* the planner's whole-array decisions on this file, per operation
   * (read, write) for the last DARRAY_PLAN_MEMO arrays used with it
   * (darray_xfer.c): a committed array and the file's hints never change,
   * so a decision holds for the file's life */
  struct {
    uint64_t array; /* the array's id; 0: none */
    const struct strategy *s;
  } plan_memo[2][4];
  int memo_next[2];
  io_file_t io;
  darray_stats_t stats;
  char errmsg[DARRAY_ERRMSG_LEN];
} darray_file_s_t;

/* Check that f is a live file handle and clear its message. */
DARRAY_HIDDEN int darray__file_check(struct darray_file_s *f);
/* The cause of the back end's last failure, for a message: the MPI call
 * and MPI's text (mpiio), the system error (posix), or "". */
DARRAY_HIDDEN const char *darray__file_cause(const struct darray_file_s *f);
/* Forget the back end's last failure (before an operation). */
DARRAY_HIDDEN void darray__file_clear_cause(struct darray_file_s *f);

/* ------------------------------------------------------------------------ */
/* strategies                                                               */

/* Context of one read or write call on this process. */
typedef struct xfer {
  struct darray_file_s *f;
  const struct darray_s *a;
  char *buf;
  bool write;
  char *msg; /* where to put a detailed message */
  size_t msglen;
  void *state; /* the strategy's own, from prepare to finish */
  /* the access: this process's cells (the array's own, or the one box of a
   * section call, laid out densely in buf) */
  const section_t *sec;
  int nsec;
  section_t box_sec;    /* storage for a section call's own cell */
  const int64_t *boxes; /* section calls: every process's (start, count)
                           per dimension, 2*ndims values each; else NULL */
  /* the request's own: what lives from the call's start to its end */
  const struct strategy *strategy; /* chosen by the plan */
  int64_t *boxes_owned;            /* storage behind boxes */
  bool failed_early; /* setup failed and every process knows it */
  int late; /* an agreement's allreduce failed here alone: DARRAY_EMPI,
               for the next agreement (darray__agree_first) */
} xfer_t;

/* The cells rank r accesses in this call (allocated; the caller frees).
 * Whole-array calls derive them from the distribution, section calls from
 * the gathered boxes; for the calling rank itself they are x->sec, with
 * its buffer's true layout (other ranks' memory offsets are not known and
 * must not be used). */
DARRAY_HIDDEN int darray__xfer_sections(const xfer_t *x, int r,
                                        section_t **sec, int *nsec);
/* Whether two (start, count) boxes of nd dimensions share an element. */
DARRAY_HIDDEN bool darray__boxes_meet(const int64_t *p, const int64_t *q,
                                      int nd);
/* An upper bound on how many processes' boxes cover any one element of a
 * section call (1 for whole-array calls). */
DARRAY_HIDDEN int darray__boxes_depth(const xfer_t *x);
/* The temporary buffer of an independent strategy (direct batches, sieve
 * windows) for a buffer-size hint: the hint in whole elements, at least
 * one, since runs strided in memory are copied element by element; under a
 * darray_temp_limit below one element, the hint itself: such a call has no
 * cell strided in memory (it is refused before the strategy prepares), and
 * pieces of contiguous runs are copied as bytes. */
DARRAY_HIDDEN int64_t darray__xfer_buffer_cap(const xfer_t *x, int64_t hint);
/* A dense box [start, start+count) of the global array, held in a buffer
 * of shape count in the given memory order. */
DARRAY_HIDDEN void darray__section_box(const struct darray_s *a,
                                       const int64_t start[],
                                       const int64_t count[],
                                       darray_order_t order, section_t *s);

/*
 * A way of moving the bytes. prepare is local and runs before the call's
 * argument agreement, so its failures (out of memory) are agreed on with
 * the arguments; run may be collective and then must take part in every
 * exchange even after a local failure; finish frees what prepare made.
 * prepare and finish may be NULL.
 */
typedef struct strategy {
  const char *name;
  int (*prepare)(xfer_t *x);
  int (*run)(xfer_t *x); /* the caller agrees on the result */
  void (*finish)(xfer_t *x);
} strategy_t;

DARRAY_HIDDEN extern const strategy_t darray__strategy_direct;
DARRAY_HIDDEN extern const strategy_t darray__strategy_twophase;
DARRAY_HIDDEN extern const strategy_t darray__strategy_sieve;
/* The planner's estimate (ns) of a sieved read of sections sec holding
 * bytes bytes, from its first `sample` runs (src/sieve/sieve.c). */
DARRAY_HIDDEN int darray__sieve_read_cost(const xfer_t *x,
                                          const section_t *sec, int nsec,
                                          int64_t bytes, int64_t sample,
                                          double *ns);

/* Choose the strategy for a call: the same on every process, computed
 * without communication. Fails only when out of memory. */
DARRAY_HIDDEN int darray__plan_choose(const xfer_t *x, const strategy_t **s);
/* The same decision, with its reason in words in why (n bytes). */
DARRAY_HIDDEN int darray__plan_explain(const xfer_t *x, const strategy_t **s,
                                       char *why, size_t n);

/* File extent [*lo, *hi) of rank r's runs of array a; *lo == *hi when the
 * rank owns nothing. */
DARRAY_HIDDEN int darray__layout_extent(const struct darray_s *a,
                                        const section_t *sec, int nsec,
                                        int64_t *lo, int64_t *hi);

/* Number of runs the iterator yields for sections sec[0..nsec) (before
 * touching runs are merged) and the bytes they hold, in O(nsec * ndims). */
DARRAY_HIDDEN void darray__layout_count(const struct darray_s *a,
                                        const section_t *sec, int nsec,
                                        int64_t *nruns, int64_t *bytes);

/* ------------------------------------------------------------------------ */
/* errors                                                                   */

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

/* Buffer for failures with no handle (thread-local). */
DARRAY_HIDDEN char *darray__errbuf_nohandle(void);

/*
 * Agree on a result across comm: every process returns the smallest
 * (most negative) code of any process. A process whose own code is
 * success but that sees another's failure gets that code and a message
 * "rank R failed: ..." in msg (if msg is not NULL). If the agreement
 * itself fails, returns DARRAY_EMPI.
 */
DARRAY_HIDDEN int darray__agree(MPI_Comm comm, int code, char *msg);

/* Agree on a result and check that vals[0..n) (n <= 32) are equal on every
 * process, in one collective. Returns the agreed code; when every process
 * succeeded but some value differs, returns DARRAY_EINCONSISTENT and sets
 * *bad (if not NULL) to the index of the first differing value. */
DARRAY_HIDDEN int darray__agree_check(MPI_Comm comm, int code, char *msg,
                                      const int64_t *vals, int n, int *bad);

/* darray__agree_check for an agreement that more collectives of the same
 * call follow: if its allreduce fails on this process alone, returns this
 * process's own code (so that it joins what the others do next) and sets
 * *late to DARRAY_EMPI (message in msg), which the caller must give to its
 * next agreement. *late is left alone otherwise. */
DARRAY_HIDDEN int darray__agree_first(MPI_Comm comm, int code, char *msg,
                                      const int64_t *vals, int n, int *bad,
                                      int *late);

/* Complete MPI requests, polling and then yielding the processor between
 * polls (wait.c); DARRAY_EMPI if MPI reports an error. */
DARRAY_HIDDEN int darray__wait_all(int n, MPI_Request *req);
/* The cost (ns) of one synchronization of comm's processes: CORE with a
 * core per process, SHARED when a node runs more processes than it has
 * cores; measured once per user communicator and kept as its attribute
 * (wait.c). cached: the kept value, if this process has it (local);
 * measure: collective over comm (a duplicate of user_comm), the same
 * answer everywhere, DARRAY_EMPI when an allreduce fails. Every process
 * must measure when one has no kept value. */
#define DARRAY_CYCLE_CORE_NS INT64_C(10000)
#define DARRAY_CYCLE_SHARED_NS INT64_C(1000000)
DARRAY_HIDDEN bool darray__sync_cost_cached(MPI_Comm user_comm, int64_t *ns);
DARRAY_HIDDEN int darray__sync_cost_measure(MPI_Comm user_comm, MPI_Comm comm,
                                            int64_t *ns);
DARRAY_HIDDEN int darray__wait(MPI_Request *req);

/* 64-bit FNV-1a hash of bytes, continuing from h (start with 0; util.c). */
DARRAY_HIDDEN uint64_t darray__hash(uint64_t h, const void *p, size_t n);

/* A new handle id, unique in the process, from 1 (util.c). */
DARRAY_HIDDEN uint64_t darray__next_id(void);

/* Checked 64-bit arithmetic: return false on overflow. */
DARRAY_HIDDEN bool darray__mul_ok(int64_t a, int64_t b, int64_t *r);
DARRAY_HIDDEN bool darray__add_ok(int64_t a, int64_t b, int64_t *r);
/* Bytes for people ("1.5 MiB") into buf; returns buf (explain.c). */
DARRAY_HIDDEN const char *darray__human_bytes(int64_t b, char *buf, size_t n);

/* ------------------------------------------------------------------------ */
/* access analysis (layout/layout_analysis.c): the verdicts the planner,     */
/* darray_explain and the storage advisor share                              */

/* One rank's access in numbers: its file extent [lo, hi) (lo == hi when it
 * accesses nothing), its runs (touching ones counted apart) and bytes. */
typedef struct layout_rank {
  int64_t lo, hi;
  int64_t nruns;
  int64_t bytes;
} layout_rank_t;

/* Whether the file extents of the ranks rr[0..n) overlap: some rank's data
 * lies between another rank's first and last byte. Sorts rr by lo. */
DARRAY_HIDDEN bool darray__layout_interleave(layout_rank_t *rr, int n);

/* Whether one rank's access of nsec cells conforms to the storage order:
 * its data is one stretch per cell (nruns <= nsec, counting an empty
 * access as one cell) or there is no hole between its runs. */
DARRAY_HIDDEN bool darray__layout_conforms(const layout_rank_t *r, int nsec);

/* ------------------------------------------------------------------------ */
/* descriptions (darray.c, darray_commit.c), also checked and resolved for  */
/* arrays that exist only on paper (the storage advisor, advise.c)           */

/* ndims, gsizes and the element count (DARRAY_ENDIMS, DARRAY_ENULL,
 * DARRAY_ESIZE) and the type (DARRAY_ETYPE); message into msg. */
DARRAY_HIDDEN int darray__check_shape(int ndims, const int64_t gsizes[],
                                      darray_type_t type, char *msg);
/* A distribution as darray_set_distribution() takes it (dargs may be
 * NULL); DARRAY_EDIST with a message naming the entry. */
DARRAY_HIDDEN int darray__check_distribution(int ndims,
                                             const darray_dist_t dist[],
                                             const int64_t dargs[],
                                             char *msg);
/* What darray_commit derives from the description fields (ndims, gsizes,
 * esize, dist, dargs, psizes, perm, nprocs): the grid (MPI_Dims_create
 * fills zero entries, so MPI must be initialized then), q, the effective
 * block sizes and the file strides. Messages go to a->errmsg. Calling it
 * again on its own result changes nothing. */
DARRAY_HIDDEN int darray__desc_resolve(struct darray_s *a);
/* The file strides alone, from esize, gsizes and perm (DARRAY_ESIZE when
 * the array's bytes overflow). */
DARRAY_HIDDEN int darray__desc_strides(struct darray_s *a);

#endif /* DARRAYIO_INTERNAL_H */
