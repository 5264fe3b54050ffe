/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 */
/**
 * \file darrayio.h
 * \brief darrayio: read and write distributed arrays with MPI, fast.
 *
 * A program describes a global array once: its shape and element type, how it
 * is distributed over the processes of a communicator, how each process keeps
 * its local piece in memory, and in which order the array is stored in a file.
 * darrayio derives every process's file access pattern from that description
 * and moves the bytes with positioned I/O.
 *
 * The life of an array description:
 *
 * \code
 * darray_t a;
 * int64_t gsizes[3] = {256, 256, 256};
 * darray_dist_t dist[3] = {DARRAY_DIST_BLOCK, DARRAY_DIST_BLOCK,
 *                          DARRAY_DIST_BLOCK};
 * darray_create(MPI_COMM_WORLD, 3, gsizes, DARRAY_INT32, &a);   // collective
 * darray_set_distribution(a, dist, NULL);                        // local
 * darray_commit(a);                                              // collective
 *
 * darray_file_t f;
 * darray_file_open(MPI_COMM_WORLD, "out.dat",
 *                  DARRAY_MODE_RDWR | DARRAY_MODE_CREATE, MPI_INFO_NULL, &f);
 * darray_write(f, a, buf);                                       // collective
 * darray_file_close(&f);
 * darray_free(&a);
 * \endcode
 *
 * Conventions used throughout:
 *  - Dimensions are numbered 0 .. ndims-1 in the order the caller lists them.
 *    "C order" means the last dimension varies fastest, "Fortran order" that
 *    dimension 0 varies fastest.
 *  - Every function returns DARRAY_SUCCESS (0) or a negative error code from
 *    #darray_error_t. darray_strerror() gives the code's text,
 *    darray_err_name() its name, and darray_errmsg() / darray_file_errmsg()
 *    the detailed message of the last failure on a handle.
 *  - A function documented as *collective* must be called by every process of
 *    the handle's communicator; it returns the same code on every process,
 *    even when only one of them failed: the failing process's code (the
 *    most negative one, when several failed). A process that did not fail
 *    itself gets the message "failed on rank R: " followed by rank R's own
 *    message (the argument, path or system error it named). Processes that
 *    pass different values where they must agree get
 *    DARRAY_EINCONSISTENT, and a message naming the argument and two
 *    processes' values of it. (DARRAY_EREMOTE is reserved and never
 *    returned.)
 *  - Called before MPI_Init or after MPI_Finalize, a function that needs
 *    MPI returns DARRAY_EMPI instead of calling into MPI.
 *  - At MPI_Finalize, files still open are closed by the library. The
 *    library defines MPI_Finalize (MPI's profiling interface; configure
 *    --disable-finalize-wrapper leaves it out): it closes them while MPI
 *    is whole, then calls the next MPI_Finalize in link order (a tool's,
 *    or MPI's). Where a program's MPI_Finalize does not reach it (a tool
 *    earlier in link order that calls PMPI_Finalize; Open MPI's Fortran
 *    binding), an attribute the first darray_file_open() or
 *    darray_dataset_open() of a process puts on `MPI_COMM_SELF` closes
 *    them, from the delete callback MPI runs at the start of its
 *    MPI_Finalize. (MPICH turns its thread safety off before that
 *    callback: under MPI_THREAD_MULTIPLE a request still running then
 *    can make MPICH's MPI_Finalize abort. The MPI standard asks that no
 *    thread, the library's included, be inside MPI at MPI_Finalize: wait
 *    for requests before it to be safe everywhere.) Either way every
 *    file and dataset the process still has open is closed, oldest
 *    first, as darray_file_close() does: pending nonblocking requests are completed
 *    (not cancelled: what they write reaches the file), a dataset's
 *    headers and central directory are written, so that it is readable,
 *    and every process of a file's communicator agrees. Since opens are
 *    collective, every process opened the files it shares with others in
 *    the same order, and closes them in that order. Then the library's
 *    I/O threads end. The handles stay valid for one more
 *    darray_file_close(), which releases them and returns what the close
 *    at MPI_Finalize returned; any other call on them returns
 *    DARRAY_EMPI. The results of these closes are kept in the handles,
 *    never printed: a program that must know them closes its files
 *    itself, or calls darray_file_close() after MPI_Finalize. Arrays
 *    (darray_t) are not freed.
 *  - A function documented as *local* involves no communication.
 *  - Offsets, sizes and counts are 64-bit.
 *  - The library never aborts and never prints, except darray_explain-style
 *    functions that print on request.
 *  - Threads: handles are not shared between threads without the caller's
 *    own synchronization. Calls on one file handle (and on the arrays used
 *    with it) are made from one thread at a time; different file and array
 *    handles may be used from different threads at once when MPI was
 *    initialized with MPI_THREAD_MULTIPLE (a collective call on a handle
 *    calls MPI on that handle's own duplicated communicator only). The
 *    query functions on a committed array, darray_strerror(),
 *    darray_err_name() and the version calls may be called from any thread
 *    at any time. The library's own threads (nonblocking requests, see
 *    "Nonblocking reads and writes") call MPI only under
 *    MPI_THREAD_MULTIPLE, and never call back into the program.
 */
#ifndef DARRAYIO_H
#define DARRAYIO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Marks the functions the library exports: it is built with
 * -fvisibility=hidden, so everything else stays inside it.
 */
#if defined(__GNUC__)
#define DARRAY_API __attribute__((visibility("default")))
#else
#define DARRAY_API
#endif

/** Major version number of this header (the one home of the release
 * number: configure reads it from here). */
#define DARRAYIO_VERSION_MAJOR 0
/** Minor version number of this header. */
#define DARRAYIO_VERSION_MINOR 1
/** Patch version number of this header. */
#define DARRAYIO_VERSION_PATCH 0

/** \cond DARRAY_INTERNAL */
#define DARRAY__STR2(x) #x
#define DARRAY__STR(x) DARRAY__STR2(x)
/** \endcond */

/** Version of this header as a string, "MAJOR.MINOR.PATCH" (made from the
 * three numbers above, so it cannot disagree with them). */
#define DARRAYIO_VERSION_STRING                                                \
  DARRAY__STR(DARRAYIO_VERSION_MAJOR)                                          \
  "." DARRAY__STR(DARRAYIO_VERSION_MINOR) "." DARRAY__STR(DARRAYIO_VERSION_PATCH)

/**
 * Version of the library a program runs with (local; needs no MPI: it may
 * be called before MPI_Init and after MPI_Finalize).
 *
 * The DARRAYIO_VERSION_* macros are the version of the header a program
 * was compiled with; this call answers with the version of the library it
 * was linked or loaded with. Compare the two to check that they agree:
 *
 * \code
 * int major, minor, patch;
 * darray_get_version(&major, &minor, &patch);
 * if (major != DARRAYIO_VERSION_MAJOR || minor != DARRAYIO_VERSION_MINOR ||
 *     patch != DARRAYIO_VERSION_PATCH)
 *   fprintf(stderr, "darrayio.h is %s but the library is %s\n",
 *           DARRAYIO_VERSION_STRING, darray_version_string());
 * \endcode
 *
 * \param[out] major the library's major version number (NULL: not wanted)
 * \param[out] minor its minor version number (NULL: not wanted)
 * \param[out] patch its patch version number (NULL: not wanted)
 * \retval DARRAY_SUCCESS always
 */
DARRAY_API int darray_get_version(int *major, int *minor, int *patch);

/**
 * Version of the library a program runs with, as "MAJOR.MINOR.PATCH"
 * (local; needs no MPI). Compare with #DARRAYIO_VERSION_STRING, the
 * header's, as darray_get_version() explains.
 * \return a static string, such as "0.1.0"
 */
DARRAY_API const char *darray_version_string(void);

/** Largest number of dimensions of an array. */
#define DARRAY_MAX_DIMS 8

/** Pass as a distribution argument to get the default block size. */
#define DARRAY_DEFAULT_ARG (-1)

/**
 * The error table: `X(name, value, text)`.
 *
 * Codes from -1 to -99 are usage and input errors, -100 to -199 are
 * disagreements between processes, -200 to -299 are I/O and system errors.
 */
#define DARRAY_ERROR_TABLE(X)                                                  \
  X(DARRAY_SUCCESS, 0, "success")                                              \
  X(DARRAY_EINVAL, -1, "invalid argument")                                     \
  X(DARRAY_ENULL, -2, "required pointer argument is NULL")                     \
  X(DARRAY_ENDIMS, -3, "number of dimensions out of range")                    \
  X(DARRAY_ESIZE, -4, "array size is zero, negative or overflows 64 bits")     \
  X(DARRAY_ETYPE, -5, "invalid element type or element size")                  \
  X(DARRAY_EDIST, -6, "invalid distribution")                                  \
  X(DARRAY_EGRID, -7, "process grid does not match the communicator")          \
  X(DARRAY_EORDER, -8, "invalid storage or memory order")                      \
  X(DARRAY_EGHOST, -9, "invalid ghost width or padded extent")                 \
  X(DARRAY_EDISP, -10, "invalid file displacement")                            \
  X(DARRAY_ESTATE, -11, "handle is in the wrong state for this call")          \
  X(DARRAY_EHINT, -12, "unknown hint or malformed hint value")                 \
  X(DARRAY_EMODE, -13, "invalid file access mode")                             \
  X(DARRAY_ECOMM, -14, "communicator is invalid or does not match")            \
  X(DARRAY_EINDEX, -15, "index out of range")                                  \
  X(DARRAY_EBADHANDLE, -16, "handle is not valid (freed or corrupt)")          \
  X(DARRAY_EOVERLAP, -17, "sections written by different processes overlap")   \
  X(DARRAY_ELIMIT, -18,                                                        \
    "the call needs more than a limit allows (darray_temp_limit, MPI counts)") \
  X(DARRAY_EFORMAT, -19,                                                       \
    "the file is not a well-formed .npy, .npz or subfile set")                 \
  X(DARRAY_ENOTSUP, -20,                                                       \
    "the file uses a feature darrayio does not support (compression, ...)")    \
  X(DARRAY_EREQUEST, -21,                                                      \
    "not a pending request of this file (completed, or another file's)")       \
  X(DARRAY_EBUFSIZE, -22,                                                      \
    "the buffer is smaller than the data the call moves")                      \
  X(DARRAY_EINCONSISTENT, -100,                                                \
    "processes passed different values to a collective call")                  \
  X(DARRAY_EREMOTE, -101, "reserved: never returned")                          \
  X(DARRAY_EIO, -200, "input/output error")                                    \
  X(DARRAY_ENOSPC, -201, "no space left on device")                            \
  X(DARRAY_EACCESS, -202, "permission denied")                                 \
  X(DARRAY_ENOENT, -203, "no such file or directory")                          \
  X(DARRAY_EEOF, -204, "read beyond the end of the file")                      \
  X(DARRAY_ENOMEM, -205, "out of memory")                                      \
  X(DARRAY_EMPI, -206, "an MPI call failed")                                   \
  X(DARRAY_EISDIR, -207, "path is a directory")                                \
  X(DARRAY_ELOCK, -208, "file locking failed")                                 \
  X(DARRAY_ECRC, -209, "CRC-32 mismatch: the data in the file is damaged")

/** \cond DARRAY_INTERNAL */
#define DARRAY__ENUM_ENTRY(name, value, text) name = (value),
/** \endcond */

/**
 * Status codes returned by every darrayio function.
 * See #DARRAY_ERROR_TABLE for the list and the texts, and \ref errors for
 * them as a table.
 */
typedef enum darray_error {
  DARRAY_ERROR_TABLE(DARRAY__ENUM_ENTRY)
} darray_error_t;

/** Element types. #DARRAY_OPAQUE needs darray_set_elem_size(). */
typedef enum darray_type {
  DARRAY_CHAR = 1,   /**< char, 1 byte */
  DARRAY_INT8,       /**< int8_t */
  DARRAY_UINT8,      /**< uint8_t */
  DARRAY_INT16,      /**< int16_t */
  DARRAY_UINT16,     /**< uint16_t */
  DARRAY_INT32,      /**< int32_t */
  DARRAY_UINT32,     /**< uint32_t */
  DARRAY_INT64,      /**< int64_t */
  DARRAY_UINT64,     /**< uint64_t */
  DARRAY_FLOAT,      /**< float */
  DARRAY_DOUBLE,     /**< double */
  DARRAY_LONG_DOUBLE,/**< long double */
  DARRAY_OPAQUE      /**< bytes of a size set with darray_set_elem_size() */
} darray_type_t;

/** How one dimension is distributed over its row of the process grid. */
typedef enum darray_dist {
  /** Not distributed (`*`): every process holds the whole dimension. */
  DARRAY_DIST_NONE = 0,
  /** BLOCK(k): contiguous blocks of k indices, default k = ceil(n/p). */
  DARRAY_DIST_BLOCK,
  /** CYCLIC(k): blocks of k indices dealt round-robin, default k = 1. */
  DARRAY_DIST_CYCLIC,
  /**
   * MULTIPARTITION as in NAS BT/SP. Exactly three dimensions carry it (in
   * increasing dimension order they are x, y and z); every other dimension
   * must be #DARRAY_DIST_NONE. P must be a perfect square q*q. Each
   * dimension is cut into q slabs (the first n mod q slabs one point
   * larger), and process r owns the q cells
   * ((r mod q + k) mod q, (r div q - k) mod q, k) for k = 0..q-1.
   */
  DARRAY_DIST_MULTIPARTITION
} darray_dist_t;

/** Orders of dimensions, in the file and in memory. */
typedef enum darray_order {
  DARRAY_ORDER_C = 1,       /**< row-major: last dimension fastest */
  DARRAY_ORDER_FORTRAN = 2, /**< column-major: first dimension fastest */
  DARRAY_ORDER_PERM = 3     /**< file only: an explicit permutation */
} darray_order_t;

/** File access modes for darray_file_open(); OR them together. */
enum darray_mode {
  DARRAY_MODE_RDONLY = 1, /**< read only */
  DARRAY_MODE_RDWR = 2,   /**< read and write */
  DARRAY_MODE_CREATE = 4, /**< create the file if it does not exist */
  DARRAY_MODE_TRUNC = 8   /**< truncate the file to zero length on open */
};

/** An array description (opaque). */
typedef struct darray_s *darray_t;

/** An open file (opaque). */
typedef struct darray_file_s *darray_file_t;

/**
 * Counters of one process's I/O through one file handle, accumulated since
 * the file was opened or darray_file_reset_stats() was last called.
 */
typedef struct darray_stats {
  int64_t bytes_read;        /**< bytes read from the file */
  int64_t bytes_written;     /**< bytes written to the file */
  int64_t read_calls;        /**< read system/MPI calls made */
  int64_t write_calls;       /**< write system/MPI calls made */
  int64_t bytes_exchanged;   /**< data bytes sent to other processes */
  int64_t cycles;            /**< collective buffering cycles */
  int64_t peak_temp_bytes;   /**< largest temporary buffer held at once */
  int64_t calls;             /**< darray_read/darray_write calls */
  int64_t io_ns;             /**< time in the back end's file calls (ns) */
  int64_t exchange_ns;       /**< time waiting for two-phase's data
                                  exchange between processes (ns) */
  int64_t call_ns;           /**< time of the read and write calls, from
                                  each call (or post) to its end (ns) */
  char strategy[16];         /**< strategy of the last call: "direct",
                                  "sieve" or "twophase" ("" before any) */
  int64_t collectives;       /**< collective MPI operations the read and
                                  write calls made (agreements, gathers,
                                  broadcasts, communicator splits; not
                                  the point-to-point messages of a data
                                  exchange) */
  int64_t bytes_copied;      /**< bytes the library copied between
                                  buffers of this process (packing,
                                  staging, chunk images, sieve windows,
                                  buffered writes); bytes moved straight
                                  between the user's buffer and the file
                                  count 0 */
  int64_t messages;          /**< point-to-point data messages this
                                  process sent in the data exchanges of
                                  collective strategies (two-phase, rows,
                                  static): what darray_plan_virtual()
                                  counts as messages */
} darray_stats_t;

/**
 * The counters of darray_stats_t over all processes of a file, from
 * darray_file_stats_summary(): for each counter its sum and its largest
 * value on one process (a sum beyond INT64_MAX reads INT64_MAX).
 */
typedef struct darray_stats_summary {
  int64_t nprocs;              /**< processes of the file */
  int64_t bytes_read_sum;      /**< bytes read, all processes */
  int64_t bytes_read_max;      /**< bytes read, most on one process */
  int64_t bytes_written_sum;   /**< bytes written, all processes */
  int64_t bytes_written_max;   /**< bytes written, most on one process */
  int64_t read_calls_sum;      /**< read system/MPI calls, all */
  int64_t read_calls_max;      /**< read system/MPI calls, most on one */
  int64_t write_calls_sum;     /**< write system/MPI calls, all */
  int64_t write_calls_max;     /**< write system/MPI calls, most on one */
  int64_t bytes_exchanged_sum; /**< data bytes sent to others, all */
  int64_t bytes_exchanged_max; /**< data bytes sent to others, most on one */
  int64_t cycles_sum;          /**< collective buffering cycles, all */
  int64_t cycles_max;          /**< collective buffering cycles, most */
  int64_t calls_sum;           /**< darray_read/darray_write calls, all */
  int64_t calls_max;           /**< darray_read/darray_write calls, most */
  int64_t io_ns_sum;           /**< time in file calls (ns), all */
  int64_t io_ns_max;           /**< time in file calls (ns), most */
  int64_t exchange_ns_sum;     /**< time exchanging data (ns), all */
  int64_t exchange_ns_max;     /**< time exchanging data (ns), most */
  int64_t call_ns_sum;         /**< time of read/write calls (ns), all */
  int64_t call_ns_max;         /**< time of read/write calls (ns), most */
  int64_t peak_temp_bytes_max; /**< largest temporary buffer held at once
                                    by one process */
  int64_t collectives_sum;     /**< collective MPI operations, all */
  int64_t collectives_max;     /**< collective MPI operations, most */
  int64_t bytes_copied_sum;    /**< bytes copied between buffers, all */
  int64_t bytes_copied_max;    /**< bytes copied between buffers, most */
  int64_t messages_sum;        /**< data messages sent, all */
  int64_t messages_max;        /**< data messages sent, most on one */
} darray_stats_summary_t;

/* ------------------------------------------------------------------------ */
/** \defgroup api_errors Errors
 * Codes, their names and texts, and the detailed message of a handle's
 * last failure (the codes: \ref errors). */
/** @{ */

/**
 * Text of a status code (local).
 * \param code a value returned by a darrayio function
 * \return a static string; "unknown error code" for values not in the table
 */
DARRAY_API const char *darray_strerror(int code);

/**
 * Name of a status code, such as "DARRAY_EINVAL" (local).
 * \param code a value returned by a darrayio function
 * \return a static string; "DARRAY_EUNKNOWN" for values not in the table
 */
DARRAY_API const char *darray_err_name(int code);

/**
 * Detailed message of the last failure on an array handle (local).
 *
 * \param a an array handle, or NULL for the last failure of this thread that
 *          had no handle to keep it (a failed darray_create(),
 *          darray_file_open() or darray_file_delete(), a NULL handle
 *          argument)
 * \return the message, or "" when the last call on the handle succeeded
 */
DARRAY_API const char *darray_errmsg(darray_t a);

/**
 * Detailed message of the last failure on a file handle (local).
 * \param f a file handle, or NULL (same as darray_errmsg(NULL))
 * \return the message, or "" when the last call on the handle succeeded
 */
DARRAY_API const char *darray_file_errmsg(darray_file_t f);

/** How messages quote indices (darray_set_index_style()). */
typedef enum darray_index_style {
  /** C's terms: 0-based entries `gsizes[0]`, ranges `[0, n)` */
  DARRAY_INDEX_C = 0,
  /** the Fortran module's: 1-based entries `gsizes(1)`, ranges `[1, n]` */
  DARRAY_INDEX_FORTRAN = 1
} darray_index_style_t;

/**
 * For language bindings: in which terms the messages of this thread's
 * calls quote indices (local, per thread, needs no MPI).
 *
 * The indices a message quotes are those of the caller's arguments: an
 * entry of an argument array (`gsizes`, `dist`, `dargs`, `psizes`, `perm`,
 * `ghost`, `padded`, `gidx`, `lidx`, `start`, `count`), a cell, a
 * dimension, a member number (darray_inquire()). In C's terms (the
 * default) they are 0-based, `start[1] = -1 ... not inside [0, 8)`; in
 * Fortran's 1-based, as the Fortran module counts them, `start(2) = 0 ...
 * not inside [1, 8]`. Ranks are 0-based in both (MPI's); byte offsets are
 * offsets. The Fortran module sets #DARRAY_INDEX_FORTRAN before each call
 * it makes and #DARRAY_INDEX_C after it, so a C program never needs this.
 * A request keeps the style of the thread that posted it.
 *
 * \param style #DARRAY_INDEX_C or #DARRAY_INDEX_FORTRAN
 * \return the style before the call, or DARRAY_EINVAL (nothing changed)
 *         when \p style is neither
 */
DARRAY_API int darray_set_index_style(int style);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_describe Describing an array
 * Create, distribute, lay out and commit an array description; free it. */
/** @{ */

/**
 * Start the description of a global array (collective).
 *
 * The new handle holds a duplicate of \p comm. Its distribution defaults to
 * BLOCK on every dimension over a grid chosen by MPI_Dims_create(), its
 * storage order and memory order to C order, its displacement to 0 and its
 * ghost widths to 0. Change them with the darray_set_* functions, then call
 * darray_commit().
 *
 * \code
 * int64_t g[2] = {1000, 1000};
 * darray_t a;
 * int rc = darray_create(MPI_COMM_WORLD, 2, g, DARRAY_DOUBLE, &a);
 * if (rc != DARRAY_SUCCESS) fprintf(stderr, "%s\n", darray_errmsg(NULL));
 * \endcode
 *
 * \param comm   the processes that share the array
 * \param ndims  number of dimensions, 1 .. #DARRAY_MAX_DIMS
 * \param gsizes global size of each dimension, each >= 1
 * \param type   element type
 * \param[out] a the new handle; NULL on failure
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p gsizes or \p a is NULL
 * \retval DARRAY_ECOMM \p comm is MPI_COMM_NULL or an intercommunicator
 * \retval DARRAY_ENDIMS \p ndims out of range
 * \retval DARRAY_ESIZE a size is < 1 or the element count overflows
 * \retval DARRAY_ETYPE \p type is not a #darray_type_t value
 * \retval DARRAY_EINCONSISTENT processes passed different arguments
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EMPI duplicating the communicator failed
 */
DARRAY_API int darray_create(MPI_Comm comm, int ndims, const int64_t gsizes[],
                  darray_type_t type, darray_t *a);

/**
 * Release an array handle and its communicator (local; MPI_Comm_free is
 * collective in the MPI sense but does not synchronize).
 * \param a the handle to free; `*a` is set to NULL. Passing NULL or a
 *          pointer to NULL does nothing.
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EBADHANDLE \p *a is not a live handle
 * \retval DARRAY_EMPI called after MPI_Finalize: the handle's memory is
 *         released all the same (`*a` is set to NULL), its communicator
 *         cannot be freed any more
 */
DARRAY_API int darray_free(darray_t *a);

/**
 * Set the byte size of a #DARRAY_OPAQUE element (local, before commit).
 * \param a    the array
 * \param size bytes per element, >= 1
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ETYPE the array's type is not #DARRAY_OPAQUE, or size < 1
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_elem_size(darray_t a, int64_t size);

/**
 * Set the distribution of every dimension (local, before commit).
 *
 * \code
 * darray_dist_t d[2] = {DARRAY_DIST_NONE, DARRAY_DIST_CYCLIC};
 * int64_t k[2] = {DARRAY_DEFAULT_ARG, 4};           // CYCLIC(4) columns
 * darray_set_distribution(a, d, k);
 * \endcode
 *
 * \param a     the array
 * \param dist  one #darray_dist_t per dimension
 * \param dargs block size per dimension for BLOCK and CYCLIC, or
 *              #DARRAY_DEFAULT_ARG; NULL means default everywhere; ignored
 *              for NONE and MULTIPARTITION
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p dist is NULL
 * \retval DARRAY_EDIST an unknown kind, a block size < 1, or
 *         MULTIPARTITION on a number of dimensions other than three
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_distribution(darray_t a, const darray_dist_t dist[],
                            const int64_t dargs[]);

/**
 * Set the process grid (local, before commit).
 *
 * The grid is in row-major order: the process with grid coordinates
 * (c0, c1, ...) is rank c0*p1*p2*... + c1*p2*... + ..., as in
 * MPI_Type_create_darray. Zero entries are filled in by MPI_Dims_create() at
 * commit. NONE dimensions must have size 1 (or 0). Not used by
 * MULTIPARTITION, whose grid is implied by the communicator size.
 *
 * \param a      the array
 * \param psizes processes along each dimension, or 0 to let darrayio choose
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p psizes is NULL
 * \retval DARRAY_EGRID a negative entry
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_grid(darray_t a, const int psizes[]);

/**
 * Set the order in which the global array is stored in the file (local,
 * before commit).
 *
 * \param a     the array
 * \param order #DARRAY_ORDER_C, #DARRAY_ORDER_FORTRAN, or
 *              #DARRAY_ORDER_PERM with \p perm
 * \param perm  for #DARRAY_ORDER_PERM: the dimensions from the slowest
 *              varying in the file to the fastest (C order is 0,1,..,n-1);
 *              otherwise ignored and may be NULL
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EORDER unknown order, or \p perm is not a permutation
 * \retval DARRAY_ENULL #DARRAY_ORDER_PERM with \p perm NULL
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_storage_order(darray_t a, darray_order_t order,
                             const int perm[]);

/**
 * Set the byte offset in the file where the array starts (local; allowed
 * before and after commit, so a program can write a sequence of arrays into
 * one file). All processes must use the same value in a collective call.
 *
 * \param a    the array
 * \param disp byte offset, >= 0
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EDISP \p disp is negative
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_displacement(darray_t a, int64_t disp);

/**
 * Describe how the local piece sits in memory (local, before commit).
 *
 * The local piece of a BLOCK/CYCLIC/NONE array is one array whose interior
 * has the local shape (darray_local_shape()); a MULTIPARTITION array has one
 * such array per cell, placed one after another. Each array is stored in
 * \p order with \p ghost[d] extra layers on both sides of dimension d, and is
 * \p padded[d] elements long in dimension d (default: interior + 2*ghost).
 * The interior of dimension d starts at index ghost[d].
 *
 * NAS BT's `u(5,-2:IMAX+1,-2:JMAX+1,-2:KMAX+1,ncells)` is
 * order = #DARRAY_ORDER_FORTRAN, ghost = {0,2,2,2},
 * padded = {5, IMAX+4, JMAX+4, KMAX+4}.
 *
 * \param a      the array
 * \param order  #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN
 * \param ghost  ghost width per dimension (>= 0), or NULL for none
 * \param padded allocated extent per dimension, or NULL for tight; 0 in an
 *               entry means tight in that dimension
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EORDER \p order is not C or Fortran
 * \retval DARRAY_EGHOST a negative ghost width or padded extent
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_set_memory_layout(darray_t a, darray_order_t order,
                             const int64_t ghost[], const int64_t padded[]);

/**
 * Finish the description (collective).
 *
 * Fills in the process grid, checks the whole description, checks that every
 * process passed the same description, and derives this process's local
 * piece. After commit only the displacement may change.
 *
 * \param a the array
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EDIST BLOCK(k) with k*p < n, MULTIPARTITION with P not a
 *         perfect square or a dimension smaller than q
 * \retval DARRAY_EGRID the grid's product differs from the communicator
 *         size, or a NONE dimension has more than one process
 * \retval DARRAY_ETYPE #DARRAY_OPAQUE without an element size
 * \retval DARRAY_EGHOST a padded extent smaller than interior + 2*ghost
 * \retval DARRAY_ESIZE the local buffer size overflows 64 bits
 * \retval DARRAY_EINCONSISTENT processes described different arrays
 * \retval DARRAY_ESTATE the array is already committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 * \retval DARRAY_ENOMEM out of memory
 */
DARRAY_API int darray_commit(darray_t a);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_queries Queries (local, after commit)
 * What a committed description says: shapes, owners, offsets. */
/** @{ */

/**
 * Number of dimensions and global sizes.
 * \param a the array
 * \param[out] ndims number of dimensions (may be NULL)
 * \param[out] gsizes global sizes, ndims entries (may be NULL)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_global_shape(darray_t a, int *ndims, int64_t gsizes[]);

/**
 * Size of one element in bytes.
 * \param a the array
 * \param[out] size bytes per element
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p size is NULL
 * \retval DARRAY_ETYPE opaque type whose size was never set
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_elem_size(darray_t a, int64_t *size);

/**
 * The process grid (after commit). For MULTIPARTITION: 1 on NONE dimensions
 * and q on the three partitioned ones.
 * \param a the array
 * \param[out] psizes ndims entries
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p psizes is NULL
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_grid(darray_t a, int psizes[]);

/**
 * Number of local cells: 1 for BLOCK/CYCLIC/NONE (0 when the process owns
 * nothing), q for MULTIPARTITION.
 * \param a the array
 * \param[out] ncells number of cells
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p ncells is NULL
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_num_cells(darray_t a, int *ncells);

/**
 * Interior shape of one local cell (no ghosts).
 * \param a the array
 * \param cell cell number, 0 .. ncells-1 (0 for non-multipartition arrays;
 *        a process that owns nothing gets all zeros for cell 0)
 * \param[out] lshape ndims entries
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p lshape is NULL
 * \retval DARRAY_EINDEX \p cell out of range
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_local_shape(darray_t a, int cell, int64_t lshape[]);

/**
 * Global index of the first interior element of a local cell, and the
 * global extent it spans (for BLOCK and MULTIPARTITION cells the cell is
 * the box [start, start+lshape)).
 * \param a the array
 * \param cell cell number
 * \param[out] start ndims entries
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p start is NULL
 * \retval DARRAY_EINDEX \p cell out of range
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_local_start(darray_t a, int cell, int64_t start[]);

/**
 * Number of elements this process owns (interiors only).
 * \param a the array
 * \param[out] count element count
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p count is NULL
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_local_count(darray_t a, int64_t *count);

/**
 * Bytes of the local buffer, ghosts and padding included: what the caller
 * must allocate for darray_write() / darray_read(). A process that owns no
 * element gets 0, whatever its ghost widths.
 * \param a the array
 * \param[out] bytes buffer size
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p bytes is NULL
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_local_bytes(darray_t a, int64_t *bytes);

/**
 * Who owns a global element and where it sits there.
 *
 * \param a the array
 * \param gidx global index, ndims entries
 * \param[out] rank owning rank in the array's communicator (may be NULL)
 * \param[out] cell cell number on that rank (may be NULL)
 * \param[out] lidx index inside that cell's interior, ndims entries (may be
 *             NULL); add the ghost widths to address the buffer
 * \param[out] offset byte offset of the element in the owner's local buffer
 *             (may be NULL)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p gidx is NULL
 * \retval DARRAY_EINDEX an index is outside the global array
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_locate(darray_t a, const int64_t gidx[], int *rank, int *cell,
                  int64_t lidx[], int64_t *offset);

/**
 * Global index of an element given by its owner, cell and interior index.
 * \param a the array
 * \param rank a rank of the array's communicator
 * \param cell cell number on that rank
 * \param lidx index inside the cell's interior, ndims entries
 * \param[out] gidx global index, ndims entries
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p lidx or \p gidx is NULL
 * \retval DARRAY_EINDEX rank, cell or index out of range
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_global_index(darray_t a, int rank, int cell, const int64_t lidx[],
                        int64_t gidx[]);

/**
 * Byte offset in the file of a global element (displacement included).
 * \param a the array
 * \param gidx global index, ndims entries
 * \param[out] offset byte offset
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL an argument is NULL
 * \retval DARRAY_EINDEX an index is outside the global array
 * \retval DARRAY_ESIZE displacement + offset overflows 64 bits
 * \retval DARRAY_ESTATE the array is not committed
 * \retval DARRAY_EBADHANDLE \p a is not a live handle
 */
DARRAY_API int darray_file_offset(darray_t a, const int64_t gidx[], int64_t *offset);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_files Files and I/O
 * Open, read, write, sync, close and delete files; hints, statistics,
 * darray_explain(). */
/** @{ */

/**
 * Open a file (collective).
 *
 * Hints come from \p info and from the environment variable
 * `DARRAYIO_HINTS="key=value;key=value"`, which wins. Hints:
 *  - `darray_backend` = `posix` (default: pread/pwrite), `mpiio`
 *    (MPI_File_read_at / write_at, for file systems only MPI-IO reaches)
 *    or `subfiles`: the file is a descriptor at \p path and
 *    `striping_factor` subfiles `path.sub<j>of<S>`, logical stripe k of
 *    `striping_unit` bytes in subfile k mod S at offset (k div S) *
 *    unit (both hints required, unit > 0, 1 <= S <= 1024). An existing
 *    descriptor is opened so without hints (unless #DARRAY_MODE_TRUNC); a
 *    hint contradicting its record, `darray_backend=posix` given
 *    explicitly included, is `DARRAY_EHINT`. darray_dataset_open()
 *    refuses it (`DARRAY_ENOTSUP`). The page \ref subfiles has the
 *    layout;
 *  - `darray_strategy` = `auto` (default), `direct` (each process moves its
 *    own runs), `twophase` (collective buffering), `sieve` (data
 *    sieving) or `rows` (collective I/O in groups derived from the
 *    process grid: the processes that share the slower grid coordinates
 *    in file order, whose data together is a few long extents of the
 *    file, exchange within their group only, and each moves one
 *    contiguous piece of its group's extents; refused with
 *    `DARRAY_EHINT` for section calls and where no grouping exists:
 *    MULTIPARTITION, or every group one process) or `static` (static
 *    segmentation: `cb_nodes` groups of consecutive ranks, every process
 *    alone when unset; in each cycle every process sends the first rank
 *    of its group the next share of its data in file order, a share of
 *    `cb_buffer_size` / (group size + 1) bytes in whole elements, and that
 *    rank writes or reads the group's pieces with one vector call per
 *    stretch of touching pieces; refused with `DARRAY_ELIMIT` where
 *    `cb_buffer_size` holds no element per member) or `groups` (writer
 *    groups over POSIX shared memory: the processes of a node, or
 *    `cb_group_size` consecutive ranks, form a group whose first rank
 *    writes; in each cycle every member copies its own pieces of the next
 *    chunk of the group's extent into the writer's shared segment, and the
 *    writer writes the stretches they cover, never the holes; nothing is
 *    sent between processes; the segment, `cb_buffer_size` bytes in two
 *    halves so that the members fill one chunk while the writer writes
 *    the other, and the group communicator are made by the file's first
 *    `groups` call and kept until it closes; refused with
 *    `DARRAY_ELIMIT` where `cb_buffer_size` holds no two elements) or
 *    `mapped` (the file's own pages as the shared image: where every
 *    process of the file runs on one node and the file lives on a file
 *    system of that node, each process maps windows of the file and
 *    copies its own runs straight between its buffer and the pages, one
 *    copy per byte, nothing sent, no temporary buffer; see
 *    `darray_map`). `auto` uses two-phase
 *    (or rows, static, groups or mapped, when its estimate is lower;
 *    groups only when `cb_group_size` is given) when the processes' file
 *    extents interleave, unless the cost model below estimates direct
 *    runs faster (few long runs against the exchange), and independent
 *    I/O otherwise: data sieving when the model says reading the holes
 *    between a process's runs is cheaper than the calls it saves, the
 *    file's pages mapped where that is cheaper still, direct runs when
 *    not;
 *  - `darray_map` = `automatic` (default), `enable` or `disable`: whether
 *    the `mapped` strategy may map the file. Automatic: a file of the
 *    posix back end on ext2/3/4, xfs, btrfs or tmpfs (whose pages every
 *    process of a node shares), a kernel that populates mappings
 *    (`MADV_POPULATE_READ`/`WRITE`, Linux 5.14), and every process of the
 *    file on one node (as the open found). Enable maps other file systems
 *    too (the program vouches that the node's processes share its pages)
 *    and, like `romio_ds_*` = `enable`, lets mapping win where the extents
 *    interleave and collective buffering is disabled; disable never maps.
 *    Each window's pages are populated before they are touched, so an I/O
 *    error is a failure code and not a signal; a write first reserves its
 *    extent's blocks (`fallocate`), so that a full disk is
 *    `DARRAY_ENOSPC`, never a signal; a file system without `fallocate`,
 *    a read past the end of the file and a forced call on a file that
 *    cannot be mapped move the runs as `direct` does. No mapping may
 *    reach the last page below 2^63 (the system maps no page past the
 *    largest file offset): a call whose bytes reach it is not mapped
 *    (`mapped` is no candidate; forced, its runs move as `direct` does).
 *    Under
 *    `darray_concurrent_writers` = `locked` a window's writes hold a shared
 *    lock over its bytes. `darray_map_window` (bytes, default 16 MiB): the
 *    most of the file one window maps (rounded up to 2 MiB, the page
 *    cache's large folios, from 2 MiB on; to a page below);
 *    `darray_map_rd_mbs`, `darray_map_wr_mbs` (10^6 bytes per second,
 *    defaults 25000 and 2000): the cost model's rates of making a window's
 *    pages ready for reading and for writing (pages of a new file cost the
 *    most), and `darray_map_rd_window_ns`, `darray_map_wr_window_ns` (ns,
 *    defaults 20000 and 500000) what one window costs besides;
 *  - `ind_rd_buffer_size`, `ind_wr_buffer_size` (bytes; bound the temporary
 *    buffer of independent reads and writes, and so a sieving window;
 *    defaults 4 MiB and 512 KiB);
 *  - `cb_buffer_size` (bytes, default 4 MiB, at most 1 GiB): bounds all
 *    temporary data buffers of a two-phase, rows, static or groups call on
 *    each process (metadata and MPI's memory aside: see
 *    `darray_temp_limit`); `cb_nodes`
 *    (number of aggregators, default: every process); these two share
 *    ROMIO's names but not its defaults (16 MiB, one aggregator per
 *    node): darrayio's buffer bounds *all* of a process's temporary
 *    memory, not one buffer of it, and every process aggregates because
 *    its file domains need no list exchange, so more aggregators cost no
 *    metadata; `striping_unit`
 *    (bytes; file domain boundaries are aligned to it when set);
 *    `darray_cb_domains` = `automatic` (default), `logical` or `layout`:
 *    file domains split evenly by offset, or by the servers of a file
 *    striped over `striping_factor` servers in `striping_unit` stripes
 *    (each aggregator the stripes of its own servers, or a share of one
 *    server's when there are more aggregators than servers); automatic
 *    weighs both with the cost model when both hints are given and logical
 *    domains would put more aggregators on one server in a cycle: each
 *    further aggregator on a server in a cycle adds
 *    `darray_server_contention` percent of that server's work (default
 *    100: a server serves them one after another; 0 to 1000), and a layout
 *    chunk's parts cost a message each (`darray_cb_message_ns`, default
 *    2000, beyond its bytes) or a pack of their bytes; darray_explain()
 *    prints both estimates. darray-calibrate measures both constants;
 *    `darray_cb_image_piece` (bytes, default 256): when the pieces of the
 *    access are shorter than this on average, an aggregator copies them
 *    into an image of its chunk and moves the chunk with one call (reading
 *    it first when the chunk has holes); longer pieces go to the kernel as
 *    one vector call per chunk, with no copy; `darray_cb_pipeline` =
 *    `automatic` (default: two-phase writes with two aggregators or more
 *    and two cycles or more), `enable` or `disable`: the exchange of the
 *    next chunk is posted before a chunk is written, into a second staging
 *    buffer (so chunks are smaller), and aggregators take turns writing,
 *    which hides the exchange behind file systems that serialize the
 *    writes of one file;
 *  - `cb_group_size` (ranks, default 0): the groups strategy's groups are
 *    this many consecutive ranks (the last one may be smaller), so that
 *    one node can stand in for many; 0 groups the processes of each node
 *    (MPI_Comm_split_type), which the planner cannot weigh without asking
 *    MPI: `groups` is then used only when forced;
 *  - `darray_rows_extent` (bytes, default 4 MiB): the rows strategy keeps
 *    the groups as small as it can while their extents stay this long on
 *    average (one group of every process when none is);
 *  - `romio_cb_read`, `romio_cb_write` = `automatic` (default), `enable`
 *    (always two-phase) or `disable` (never two-phase, rows, static nor
 *    groups);
 *    `romio_ds_read`,
 *    `romio_ds_write` = `automatic` (default: by the cost model), `enable`
 *    (sieve unless two-phase is chosen) or `disable` (never sieve, unless
 *    `darray_strategy` = `sieve`);
 *  - `darray_concurrent_writers`: what other writers of the file may do
 *    while a darrayio write runs (\ref reliability "doc/reliability.md",
 *    section 4).
 *    `locked` (default): other darrayio writers (other communicators,
 *    handles, programs) and programs that take fcntl byte-range locks may
 *    write other bytes of the file at the same time; every write holds a
 *    shared fcntl lock over its bytes, and a read-modify-write (sieving
 *    windows, two-phase chunks with holes) an exclusive one over its
 *    window, so no update is lost; a file that cannot be locked gets no
 *    read-modify-write at all. `unlocked`: writers that take no locks may
 *    write other bytes at the same time; no locks, and no strategy writes
 *    a byte it was not asked to write. `none`: nothing else writes the
 *    file during a darrayio write call; no locks, read-modify-write
 *    allowed;
 *  - `darray_async` = `automatic` (default: as much as MPI's thread level
 *    allows), `thread`, `files` or `none`: how nonblocking requests run
 *    (see "Nonblocking reads and writes"); a value beyond the thread
 *    level is lowered to it; `darray_nb_buffer_size` (bytes, default 64
 *    MiB): the copies darray_bwrite() may hold per process;
 *    `darray_async_start` = `post` (default) or `wait`: under `thread`,
 *    whether the I/O thread starts a request when it is posted (its
 *    transfer overlaps what the program does next) or only once the
 *    program waits for, tests or syncs the file's requests (then the
 *    requests posted before move together, as one access where they form
 *    a chain: see darray_wait_all(); a wait runs them in the program's
 *    thread, a test leaves them to the I/O thread);
 *  - `darray_direct_write` = `disable` (default) or `enable`: on the posix
 *    and subfiles back ends, every write of whole pages of a file (offset
 *    and length multiples of 4096) from page-aligned memory goes around
 *    the page cache (a second descriptor opened with O_DIRECT), so that
 *    the device,
 *    not a processor, moves the bytes: worth it where writes are synced
 *    or overlap computation; other writes, and any the file system
 *    refuses, go through the page cache. A page written directly holds
 *    only bytes of that write, so no other process's buffered write of
 *    the call shares it. Two-phase then puts its file domains and chunks
 *    on whole pages (where `striping_unit` is not set; a domain's first
 *    chunk is cut short at a page, whatever the displacement) and writes
 *    each chunk from a page-aligned image. The planner's estimates do not
 *    change (their rates are the page cache's). darray_explain() says
 *    whether it is on, and why not (read-only file, a file system without
 *    O_DIRECT, the mpiio back end). On subfiles each subfile has its
 *    O_DIRECT descriptor and a `striping_unit` of whole pages keeps the
 *    chunks' pages whole in the subfiles (what two writers of one
 *    subfile cost each other there: doc/subfiles.md);
 *  - data sieving's cost model: a file call costs `darray_ds_rd_latency_ns`
 *    (reads, default 500) or `darray_ds_wr_latency_ns` (writes, default
 *    5000) nanoseconds plus its bytes at `darray_ds_bandwidth_mbs` (10^6
 *    bytes per second, default 5000), the figures of a page-cached local
 *    file; raise the latencies for file systems with costlier calls. A
 *    window of runs is sieved only where the holes read cost less than the
 *    calls saved; larger holes are skipped (their runs are moved alone);
 *  - two-phase's side of the cost model: `darray_cb_exchange_mbs` (10^6
 *    bytes per second between two processes, each byte counted when sent
 *    and when received; default 10000) and `darray_cb_cycle_ns` (the
 *    synchronization of one cycle; by default set when the file opens:
 *    10000, or 1000000 when some node runs more of the communicator's
 *    processes than it has cores, found once per communicator), measured
 *    on this project's machine; `darray_cb_message_ns` and
 *    `darray_server_contention` (above) weigh file domains. When extents
 *    interleave, the planner
 *    estimates two-phase, direct runs and, for reads, sieving, and takes
 *    the cheapest; darray_explain() prints the estimates and
 *    darray_file_get_hint() the cycle cost in use;
 *  - `darray_temp_limit` (bytes, default 0 = none): the most temporary
 *    memory one call may take on a process for its data buffers (what
 *    darray_stats_t.peak_temp_bytes reports), whatever the strategy; it
 *    lowers the three buffer sizes above to itself (darray_file_get_hint()
 *    reports the lowered values). Out-of-core programs give it their budget.
 *    What the buffer hints and the limit bound, exactly: the data buffers
 *    the library allocates for a call (direct runs' and sieving's buffer:
 *    `ind_rd_buffer_size`, `ind_wr_buffer_size`; every buffer of two-phase,
 *    rows and static, and groups' shared window: `cb_buffer_size`).
 *    Besides them a call allocates metadata that grows with the processes
 *    and dimensions, never with the array: at most 4 KiB per process of
 *    the file and 64 KiB for the vectors of pieces a strategy hands the
 *    back end (test_bufbound counts every allocation of every strategy
 *    with these hints at 1 KiB). Not bounded by them: `mapped`'s windows,
 *    which are the file's own pages (`darray_map_window`), MPI's own
 *    memory (communicators, collectives, MPI-IO's own buffers on the
 *    mpiio back end) and a nonblocking request's thread
 *    and buffered copies (`darray_nb_buffer_size`).
 *    Direct and sieving calls move pieces of elements that are contiguous
 *    in the buffer straight from it, so any limit holds for them; elements
 *    strided in memory are copied whole, and two-phase buffers hold whole
 *    elements (a chunk and a message, at least). A call that cannot stay
 *    within the limit is refused with `DARRAY_ELIMIT` before any byte moves,
 *    and the message names the size it needs; when the planner chose the
 *    strategy (`darray_strategy` = `auto`, no `romio_cb_*` = `enable`),
 *    direct runs take over instead;
 *  - `striping_factor`: the file's servers (stripe targets), which
 *    layout-aware domains and the planner's server terms use with
 *    `striping_unit`; the number of subfiles of `darray_backend` =
 *    `subfiles`.
 *
 * Sizes accept a k, m or g suffix (powers of 1024).
 *
 * A key of \p info that starts with `darray_` and is none of the hints
 * above is an error (`DARRAY_EHINT`, the message naming the key and the
 * nearest known hint: `darray_stratgy` is not taken for nothing). Other
 * unknown keys in \p info are ignored (MPI's rule: the same info may carry
 * hints for MPI-IO, which is passed it with the mpiio backend, such as
 * ROMIO's `romio_no_indep_rw`, or MPI's `access_style`). Unknown keys
 * (any prefix) or malformed values in `DARRAYIO_HINTS`, and malformed
 * values of known keys in \p info, are errors. All processes must pass the
 * same hints; a bad key on one process fails the open on every process.
 *
 * \p path must be a file darrayio can read or write at an offset: a
 * regular file, a block device or a character device that seeks
 * (`/dev/null`). A FIFO, a socket or a character device that cannot seek
 * is refused (`DARRAY_ENOTSUP`), at once, read-only too (the open does
 * not wait for a FIFO's writer).
 *
 * The first open on a communicator finds how many of its processes share a
 * node (one allreduce on a single node) for the planner's cycle cost and
 * keeps the answer as an attribute of \p comm, freed with it.
 *
 * \param comm the processes that will access the file; array handles used
 *        with it must have a congruent communicator
 * \param path file name (the same on every process)
 * \param mode OR of #darray_mode values: exactly one of RDONLY and RDWR,
 *        plus optionally CREATE and TRUNC (both need RDWR)
 * \param info hints, or MPI_INFO_NULL
 * \param[out] f the new handle; NULL on failure
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p path or \p f is NULL
 * \retval DARRAY_ECOMM \p comm is MPI_COMM_NULL or an intercommunicator
 * \retval DARRAY_EMODE invalid \p mode
 * \retval DARRAY_EHINT an unknown `darray_` key or a malformed hint (the
 *         message names the nearest known key); `darray_backend` =
 *         `subfiles` without a `striping_unit` > 0 or a
 *         `striping_factor` in 1..1024; a hint contradicting an existing
 *         subfile descriptor's record
 * \retval DARRAY_ENOENT the file (or one of its subfiles) does not exist
 *         and CREATE was not given
 * \retval DARRAY_EFORMAT `darray_backend` = `subfiles`: the file exists
 *         and is not a subfile descriptor, or a subfile is shorter than
 *         the descriptor's logical size implies (truncated); whatever the
 *         hints (without #DARRAY_MODE_TRUNC): the file starts as a subfile
 *         descriptor but its record is malformed (another version, cut
 *         short, a unit outside 1..2^40, a factor outside 1..1024)
 * \retval DARRAY_ENOTSUP \p path (or one of its subfiles) is a FIFO, a
 *         socket or a character device that cannot seek
 * \retval DARRAY_EACCESS permission denied
 * \retval DARRAY_EISDIR \p path (or one of its subfiles) is a directory
 * \retval DARRAY_EIO another open error
 * \retval DARRAY_EINCONSISTENT processes passed different paths, modes or hints
 * \retval DARRAY_ENOMEM out of memory
 *
 * A file still open at MPI_Finalize is closed then (see "At
 * MPI_Finalize" in the conventions above, and darray_file_close()).
 */
DARRAY_API int darray_file_open(MPI_Comm comm, const char *path, int mode, MPI_Info info,
                     darray_file_t *f);

/**
 * Close a file (collective). Data written by darray_write() is in the file
 * system when every process has returned from its darray_write(); close
 * releases the handle. Passing NULL or a pointer to NULL does nothing.
 * A dataset being written (darray_dataset_open()) gets its headers here:
 * the CRC-32 of each member is combined from what every process wrote
 * (members written with sections, or never, are read back in parallel),
 * and rank 0 writes the headers and the archive's central directory.
 * On failure darray_file_errmsg(NULL) holds the message (the handle is
 * gone).
 * \param f the handle; `*f` is set to NULL
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EIO closing failed on this or another process, or
 *         writing a dataset's headers failed
 * \retval DARRAY_ESTATE a `.npy` dataset had no array defined (the file
 *         is left without a header)
 * \retval DARRAY_ENOMEM out of memory for a dataset's headers
 * \retval DARRAY_EBADHANDLE \p *f is not a live handle
 * \retval DARRAY_EMPI called after MPI_Finalize on a file the library
 *         could not close at MPI_Finalize (its hook could not be set up):
 *         no collective can run, so the handle is released locally (a
 *         posix descriptor closed, a dataset's headers not written) and
 *         `*f` set to NULL
 *
 * **At MPI_Finalize** the library closes, as this call does, every file
 * the program left open (pending requests completed, a dataset's headers
 * written; the conventions at the top of this page say how). Called after
 * MPI_Finalize on such a handle, darray_file_close() only releases its
 * memory, sets `*f` to NULL and returns the code the close at
 * MPI_Finalize returned (its message, prefixed "closed at MPI_Finalize:",
 * in darray_file_errmsg(NULL)); nothing is closed or written twice.
 */
DARRAY_API int darray_file_close(darray_file_t *f);

/**
 * Flush written data to stable storage (collective).
 * \param f the file
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EIO fsync failed on this or another process
 * \retval DARRAY_EACCESS the mpiio back end: the file was opened read-only
 *         (MPI_File_sync refuses such files)
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_sync(darray_file_t f);

/**
 * Delete a file, whatever its back end (local, like MPI_File_delete:
 * call it on one process, with no file handle open on \p path).
 *
 * A striped subfile set (`darray_backend=subfiles`, \ref subfiles) goes
 * whole: when \p path is a regular file that starts with a subfile
 * descriptor's record (found as darray_file_open() finds one: whatever
 * the hints), each subfile `path.sub<j>of<S>` (j = 0 .. S-1, S the
 * record's `striping_factor`) is unlinked, then the descriptor. Anything
 * else (a plain file, a `.npy`/`.npz` dataset, a file this process cannot
 * read) is unlinked alone. Names are removed, never what a symbolic link
 * points to (a link to a descriptor is a set under the link's name, as
 * darray_file_open() takes it). Subfiles of another S (left by a
 * #DARRAY_MODE_TRUNC that changed `striping_factor`) are not the set's
 * and stay.
 *
 * A set with subfiles missing: the others and the descriptor are deleted
 * all the same, and the call returns `DARRAY_ENOENT` naming the
 * lowest-numbered missing subfile (and how many more are missing). A
 * subfile that cannot be deleted for another reason keeps the descriptor
 * (the other subfiles are deleted), so that calling darray_file_delete()
 * again once the cause is gone finishes the set (returning
 * `DARRAY_ENOENT` for the subfiles already gone). A file that starts with
 * the record's first word but whose record is malformed (cut short,
 * another version) is left as it is, with its subfiles: `DARRAY_EFORMAT`,
 * as darray_file_open() refuses it, since which subfiles are its own
 * cannot be known. Several processes deleting one path at once each get
 * `DARRAY_SUCCESS` or `DARRAY_ENOENT`, and nothing of it is left.
 *
 * Makes no MPI call, so it works before MPI_Init and after MPI_Finalize.
 * On failure darray_errmsg(NULL) names the path (or the subfile) and the
 * system's error.
 *
 * \code
 * if (rank == 0) {
 *   int rc = darray_file_delete("out.dat", MPI_INFO_NULL);
 *   if (rc != DARRAY_SUCCESS && rc != DARRAY_ENOENT)
 *     fprintf(stderr, "%s\n", darray_errmsg(NULL));
 * }
 * MPI_Barrier(MPI_COMM_WORLD); // before another process opens "out.dat"
 * \endcode
 *
 * \param path the file (a subfile set: its descriptor's path)
 * \param info hints, or MPI_INFO_NULL; ignored (the file itself says
 *        whether it is a subfile set; `DARRAYIO_HINTS` is not read)
 * \retval DARRAY_SUCCESS the file (every file of the set) is deleted
 * \retval DARRAY_ENULL \p path is NULL
 * \retval DARRAY_ENOENT \p path does not exist (or a component of it is
 *         not a directory); or it was a subfile set with subfiles missing
 *         (the rest is deleted)
 * \retval DARRAY_EISDIR \p path (or a subfile's name) is a directory
 * \retval DARRAY_EACCESS permission denied (the directory is not
 *         writable, or is sticky and the file another user's), or a
 *         read-only file system; nothing of a set is deleted when its
 *         subfiles' directory refuses
 * \retval DARRAY_EFORMAT \p path starts as a subfile descriptor but its
 *         record is malformed; nothing is deleted
 * \retval DARRAY_ENOMEM out of memory (in the process or the kernel)
 * \retval DARRAY_EIO another system error
 * \retval DARRAY_EHINT (builds with fault injection only) the environment
 *         variable DARRAYIO_FAULT is malformed; nothing is deleted
 */
DARRAY_API int darray_file_delete(const char *path, MPI_Info info);

/**
 * Write every process's local piece of an array (collective).
 *
 * Each process passes its local buffer laid out as described by
 * darray_set_memory_layout(); ghosts and padding are not written. A process
 * that owns nothing still calls and may pass NULL. If any process's arguments
 * are invalid, no process writes anything. The size of \p buf is not known
 * here: a buffer shorter than the local piece is read past its end;
 * darray_xfer() with its size checks it (DARRAY_EBUFSIZE).
 *
 * \code
 * int64_t nbytes;
 * darray_local_bytes(a, &nbytes);
 * double *u = malloc(nbytes);
 * fill(u);
 * int rc = darray_write(f, a, u);
 * if (rc) fprintf(stderr, "write: %s\n", darray_file_errmsg(f));
 * \endcode
 *
 * \param f   a file opened with #DARRAY_MODE_RDWR
 * \param a   a committed array whose communicator is congruent with f's
 * \param buf the local buffer (may be NULL when the process owns nothing)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p buf is NULL but the process owns elements
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_EMODE the file is read-only
 * \retval DARRAY_ECOMM the communicators do not match
 * \retval DARRAY_EINCONSISTENT processes passed different descriptions or
 *         displacements
 * \retval DARRAY_EIO, DARRAY_ENOSPC, DARRAY_EACCESS the write failed
 * \retval DARRAY_ELIMIT the call needs more temporary memory than
 *         `darray_temp_limit` allows, or two-phase elements larger than an
 *         MPI message can count (refused before any byte moves; the
 *         message names the size needed)
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_write(darray_file_t f, darray_t a, const void *buf);

/**
 * Read every process's local piece of an array (collective).
 *
 * Ghosts and padding in \p buf are left untouched. As for darray_write(),
 * the size of \p buf is not checked (darray_xfer() checks it).
 *
 * A member of a `.npz` dataset read whole is checked against the CRC-32
 * its archive records (hint `darray_verify_crc`, darray_dataset_open()):
 * every process's share of the member's CRC is computed from the bytes it
 * read and the shares are combined in parallel, the member's `.npy`
 * header included. A `.npy` file records no CRC and a raw file has none:
 * nothing is checked there; nor by darray_read_section().
 *
 * \param f   an open file
 * \param a   a committed array whose communicator is congruent with f's
 * \param buf the local buffer (may be NULL when the process owns nothing)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p buf is NULL but the process owns elements
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_ECOMM the communicators do not match
 * \retval DARRAY_EEOF the file ends before the array does
 * \retval DARRAY_ECRC a `.npz` member's bytes do not match the CRC-32 its
 *         archive records (on every process; \p buf holds the damaged
 *         values; the message names the path, the member and both CRCs)
 * \retval DARRAY_EINCONSISTENT processes passed different descriptions or
 *         displacements
 * \retval DARRAY_EIO the read failed
 * \retval DARRAY_ELIMIT the call needs more temporary memory than
 *         `darray_temp_limit` allows, or two-phase elements larger than an
 *         MPI message can count (refused before any byte moves; the
 *         message names the size needed)
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_read(darray_file_t f, darray_t a, void *buf);

/**
 * Write a rectangular section of the global array (collective).
 *
 * Every process passes its own section, the box [start, start+count) of
 * global indices (any box, not only inside its own piece; count may be all
 * zeros), held densely in \p buf in \p order. The sections of all
 * processes are analysed together, as darray_write() analyses whole
 * arrays: sections that interleave in the file go through two-phase
 * collective I/O, sections that conform are written directly. Sections of
 * different processes must not overlap.
 *
 * \code
 * // out-of-core sweep: each process writes slab s of its own rows
 * int64_t start[2] = {row0 + s * slab, 0}, count[2] = {slab, ncols};
 * darray_write_section(f, a, start, count, DARRAY_ORDER_C, slabbuf);
 * \endcode
 *
 * \param f     a file opened with #DARRAY_MODE_RDWR
 * \param a     a committed array (its displacement and storage order
 *              place the section in the file; its distribution is not used)
 * \param start first global index of the section, ndims entries
 * \param count extent of the section, ndims entries (>= 0)
 * \param order #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN: the layout of buf
 * \param buf   prod(count) elements (may be NULL when that is 0)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p start, \p count, or a needed \p buf is NULL
 * \retval DARRAY_EINDEX the section is not inside the array
 * \retval DARRAY_EORDER \p order is not C or Fortran
 * \retval DARRAY_EOVERLAP the sections of two processes overlap
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_EMODE the file is read-only
 * \retval DARRAY_ECOMM the communicators do not match
 * \retval DARRAY_EINCONSISTENT processes passed different descriptions or
 *         displacements
 * \retval DARRAY_EIO, DARRAY_ENOSPC, DARRAY_EACCESS the write failed
 * \retval DARRAY_ELIMIT the call needs more temporary memory than
 *         `darray_temp_limit` allows, or two-phase elements larger than an
 *         MPI message can count (refused before any byte moves; the
 *         message names the size needed)
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_write_section(darray_file_t f, darray_t a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         const void *buf);

/**
 * Read a rectangular section of the global array (collective).
 *
 * As darray_write_section(); sections of different processes may overlap.
 * A section read checks no CRC-32, even when it covers a `.npz` member
 * whole (only darray_read() and darray_iread() of the whole member do):
 * darray_verify() checks a dataset's members.
 *
 * \param f     an open file
 * \param a     a committed array
 * \param start first global index of the section, ndims entries
 * \param count extent of the section, ndims entries (>= 0)
 * \param order #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN: the layout of buf
 * \param buf   room for prod(count) elements (may be NULL when that is 0)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p start, \p count, or a needed \p buf is NULL
 * \retval DARRAY_EINDEX the section is not inside the array
 * \retval DARRAY_EORDER \p order is not C or Fortran
 * \retval DARRAY_EEOF the file ends before the section does
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_ECOMM the communicators do not match
 * \retval DARRAY_EINCONSISTENT processes passed different descriptions or
 *         displacements
 * \retval DARRAY_EIO the read failed
 * \retval DARRAY_ELIMIT the call needs more temporary memory than
 *         `darray_temp_limit` allows, or two-phase elements larger than an
 *         MPI message can count (refused before any byte moves; the
 *         message names the size needed)
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_read_section(darray_file_t f, darray_t a, const int64_t start[],
                        const int64_t count[], darray_order_t order,
                        void *buf);

/**
 * Explain how a whole-array read or write of \p a through \p f would move
 * its bytes (local; usually called on one process).
 *
 * Prints the array and its distribution, each process's file runs (count,
 * bytes, extent, holes, run lengths; computed from the description, no
 * communication), whether the extents of different processes interleave,
 * whether the access conforms to the storage order, every strategy's
 * estimated time (or why it is not a candidate), the strategy that
 * darray_write() / darray_read() would choose and why, and for 1-D and 2-D
 * arrays a character picture of which process owns which part of the
 * file. Setting `DARRAYIO_VERBOSE=1` in the environment prints a one-line
 * summary of the same decision (strategy, reason and estimates) from rank
 * 0 at every read and write, and when the call ends a line with its
 * number on the file, its result, the bytes it moved (every process's),
 * its time on rank 0 (from the call, or the post, to its end) and its
 * strategy:
 * `darrayio: call 3 on file 2: darray_write: done, 67108864 bytes,
 * 0.041 s, strategy twophase`.
 *
 * \code
 * if (rank == 0) darray_explain(f, a, 1, stdout);
 * \endcode
 *
 * \param f     an open file (its hints and back end take part in the
 *              decision)
 * \param a     a committed array
 * \param write nonzero for a write, 0 for a read
 * \param out   where to print
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p out is NULL
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_ESIZE displacement + array bytes overflow 64 bits (as
 *         darray_write() refuses)
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_explain(darray_file_t f, darray_t a, int write, FILE *out);

/**
 * This process's I/O counters for a file (local).
 * \param f the file
 * \param[out] stats the counters
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p stats is NULL
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_get_stats(darray_file_t f, darray_stats_t *stats);

/**
 * Zero this process's I/O counters for a file (local).
 * \param f the file
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_reset_stats(darray_file_t f);

/**
 * Sums and maxima of the file's I/O counters over all its processes
 * (collective): what darray_file_get_stats() gives on each process,
 * summarized into one record that every process receives, e.g. to print
 * from rank 0 at the end of a run. Nonblocking requests count once
 * completed by their wait or test (as in darray_file_get_stats()); the
 * counters are not reset.
 *
 * \code
 * darray_stats_summary_t s;
 * if (darray_file_stats_summary(f, &s) == DARRAY_SUCCESS && rank == 0)
 *   printf("%lld bytes written, at most %lld by one of %lld processes\n",
 *          (long long)s.bytes_written_sum, (long long)s.bytes_written_max,
 *          (long long)s.nprocs);
 * \endcode
 *
 * \param f the file
 * \param[out] s the summary (left unchanged on failure)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p s is NULL
 * \retval DARRAY_EMPI an MPI reduction failed, or MPI is not running
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_stats_summary(darray_file_t f,
                                         darray_stats_summary_t *s);

/**
 * The value a hint has on an open file after defaults, \p info and
 * `DARRAYIO_HINTS` were applied, as the file uses it (local): a value that
 * leaves the choice to the library reads back as the choice (`cb_nodes`
 * = 0, or more than the file's processes, reads back as the number of
 * processes, each of which aggregates), and buffer sizes as lowered by
 * `darray_temp_limit`. `DARRAYIO_PRINT_HINTS=1` in the environment makes
 * rank 0 print every hint in effect on stderr when a file opens, one
 * `key=value` a line after a line naming the file, each line begun with
 * `darrayio: `.
 * \param f the file
 * \param key a hint name, such as "cb_buffer_size"
 * \param[out] value buffer for the value as text
 * \param len size of \p value in bytes
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL an argument is NULL
 * \retval DARRAY_EHINT \p key is not a known hint
 * \retval DARRAY_EINVAL \p len is too small for the value
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_get_hint(darray_file_t f, const char *key, char *value,
                         int len);

/**
 * Every hint in effect on an open file, as a new MPI_Info (local, like
 * MPI_File_get_info): one key per hint, with the value
 * darray_file_get_hint() gives. The caller frees it with MPI_Info_free().
 * \param f the file
 * \param[out] info the new info object (MPI_INFO_NULL on failure)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p info is NULL
 * \retval DARRAY_EMPI an MPI_Info call failed, or MPI is not running
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_get_info(darray_file_t f, MPI_Info *info);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_nonblocking Nonblocking reads and writes
 *
 * A nonblocking call posts a request and returns at once; the bytes move in
 * the background while the program computes, and darray_wait(),
 * darray_test() or darray_wait_all() completes the request. Posting is
 * collective in the MPI sense of nonblocking collectives: every process of
 * the file posts the same requests in the same order (the checks a
 * blocking call makes are made too, and a failure of any of them, or of
 * the transfer, is reported when the request completes, with the same code
 * and the failing rank's message on every process). Completion of one
 * request may wait until every process has posted it.
 *
 * **The buffer belongs to the library until the request completes**: the
 * program must not change a buffer being written, nor read or change one
 * being read, until its wait or successful test returns (as with MPI's
 * nonblocking calls). darray_bwrite() and darray_bwrite_section() copy the
 * data when they post, so the buffer may be reused at once; the copies
 * held by a file's pending requests are bounded by the hint
 * `darray_nb_buffer_size` (a request that would pass it fails with
 * DARRAY_ELIMIT and writes nothing).
 *
 * The array's description is copied at post time: changing its
 * displacement, or freeing it, does not affect requests already posted.
 * Requests on one file complete their effects in the order they were
 * posted: a read posted after a write of the same bytes sees the written
 * bytes, and a blocking call on the file takes effect after the requests
 * posted before it. darray_file_sync() and darray_file_close() first
 * complete the file's pending requests and report their failures;
 * after darray_file_sync() the requests still need their wait (which
 * returns their results), after darray_file_close() their handles are
 * dead. A file's calls are made from one thread at a time. Requests still
 * pending at MPI_Finalize are completed there, with their file's close
 * (darray_file_close()); their handles are then dead.
 *
 * What overlaps with computation depends on the thread level MPI was
 * initialized with (and on the hint `darray_async`, which can lower it):
 *  - `MPI_THREAD_MULTIPLE`: a thread per file with pending requests runs
 *    every request, its collective agreement and exchange included, in
 *    the background; waiting is local.
 *  - `MPI_THREAD_SERIALIZED` or `MPI_THREAD_FUNNELED`: MPI is called only
 *    from the program's thread. A post waits for no other process: the
 *    agreement before the transfer is a nonblocking collective, started
 *    when the request is posted (a whole array) and progressed by every
 *    later post, test, wait or sync of the process, on any file. Once it
 *    completes, a transfer that calls no MPI (the direct and sieve
 *    strategies on the posix and subfiles back ends: for such requests the
 *    planner chooses among those strategies) runs in the background. What
 *    is collective beyond that agreement runs in the request's wait (or
 *    darray_wait_all(), darray_file_sync(), darray_file_close(), or a
 *    blocking call on the file), in the program's thread: a transfer that
 *    calls MPI (two-phase, the mpiio back end, a strategy a hint forces),
 *    a section request's begin, a member of a dataset, a failed agreement's
 *    aftermath. darray_test() never runs those: it reports such a request
 *    pending until its wait. The final agreement is a nonblocking
 *    collective that darray_test() and darray_wait() progress.
 *  - `MPI_THREAD_SINGLE`: requests run to completion when posted.
 *
 * **Posting order on several files.** Under `MPI_THREAD_MULTIPLE` a post
 * calls no MPI (the mode is agreed when the file is opened), so each
 * process may post its requests on different files in its own order (and
 * wait for them in any order, but with `darray_async_start` = `wait`,
 * where waits run the requests). Under `MPI_THREAD_SERIALIZED` and
 * `MPI_THREAD_FUNNELED` (`darray_async` = `files`) a post makes only
 * nonblocking collectives, so posts too may be made in any order on each
 * process; but the waits (darray_wait(), darray_wait_all(),
 * darray_file_sync(), darray_file_close()) on different files, where the
 * collective parts of a request run, must be made in the same order on
 * every process, as blocking collective calls are. Under
 * `MPI_THREAD_SINGLE` (`darray_async` = `none`) a post runs the whole call:
 * every process must post on different files in the same order. A crossed
 * order where one is required hangs (no process can see another's order
 * without communicating, so it is not detected).
 *
 * darray_explain() says which of these a file uses.
 */
/** @{ */

/** A nonblocking request: an identifier, valid on the file it was posted
 * on until it completes. */
typedef int64_t darray_request_t;
/** A request that is not pending: what completion leaves in a handle. */
#define DARRAY_REQUEST_NULL ((darray_request_t)0)

/**
 * Post a write of every process's local piece (collective, nonblocking).
 *
 * As darray_write(), but returns once the request is posted; \p buf must
 * stay untouched until the request completes. Errors of the arguments and
 * of the transfer are returned by the request's completion.
 *
 * \param f   a file opened with #DARRAY_MODE_RDWR
 * \param a   a committed array whose communicator is congruent with f's
 * \param buf the local buffer (may be NULL when the process owns nothing)
 * \param[out] req the request (#DARRAY_REQUEST_NULL when none is posted)
 * \retval DARRAY_SUCCESS the request is posted
 * \retval DARRAY_ENULL \p req is NULL
 * \retval DARRAY_ENOMEM no memory for the request
 * \retval DARRAY_EMPI MPI is not running
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_iwrite(darray_file_t f, darray_t a, const void *buf,
                             darray_request_t *req);

/**
 * Post a read of every process's local piece (collective, nonblocking).
 * As darray_read(); \p buf must not be used until the request completes.
 * A `.npz` member's CRC-32 is checked as by darray_read(): a mismatch is
 * the request's DARRAY_ECRC on every process. Such a request's check is
 * collective: under `darray_async=files` it is completed in the calling
 * thread, not in the background.
 * \param f   an open file
 * \param a   a committed array whose communicator is congruent with f's
 * \param buf the local buffer (may be NULL when the process owns nothing)
 * \param[out] req the request
 * \return as darray_iwrite()
 */
DARRAY_API int darray_iread(darray_file_t f, darray_t a, void *buf,
                            darray_request_t *req);

/**
 * Post a write of a section (collective, nonblocking): darray_write_section()
 * as a request. \p start and \p count are copied.
 * \param f     a file opened with #DARRAY_MODE_RDWR
 * \param a     a committed array
 * \param start first global index of the section, ndims entries
 * \param count extent of the section, ndims entries (>= 0)
 * \param order #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN: the layout of buf
 * \param buf   prod(count) elements (may be NULL when that is 0)
 * \param[out] req the request
 * \return as darray_iwrite()
 */
DARRAY_API int darray_iwrite_section(darray_file_t f, darray_t a,
                                     const int64_t start[],
                                     const int64_t count[],
                                     darray_order_t order, const void *buf,
                                     darray_request_t *req);

/**
 * Post a read of a section (collective, nonblocking): darray_read_section()
 * as a request.
 * \param f     an open file
 * \param a     a committed array
 * \param start first global index of the section, ndims entries
 * \param count extent of the section, ndims entries (>= 0)
 * \param order #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN: the layout of buf
 * \param buf   room for prod(count) elements (may be NULL when that is 0)
 * \param[out] req the request
 * \return as darray_iwrite()
 */
DARRAY_API int darray_iread_section(darray_file_t f, darray_t a,
                                    const int64_t start[],
                                    const int64_t count[],
                                    darray_order_t order, void *buf,
                                    darray_request_t *req);

/**
 * Post a buffered write of every process's local piece (collective,
 * nonblocking): as darray_iwrite(), but the data is copied before the call
 * returns, so \p buf may be changed at once. The copies of a file's pending
 * requests may hold at most `darray_nb_buffer_size` bytes on a process; a
 * request past it completes with DARRAY_ELIMIT on every process, having
 * written nothing.
 * \param f   a file opened with #DARRAY_MODE_RDWR
 * \param a   a committed array whose communicator is congruent with f's
 * \param buf the local buffer (may be NULL when the process owns nothing)
 * \param[out] req the request
 * \return as darray_iwrite()
 */
DARRAY_API int darray_bwrite(darray_file_t f, darray_t a, const void *buf,
                             darray_request_t *req);

/**
 * Post a buffered write of a section (collective, nonblocking): as
 * darray_iwrite_section(), the data copied as darray_bwrite() copies it.
 * \param f     a file opened with #DARRAY_MODE_RDWR
 * \param a     a committed array
 * \param start first global index of the section, ndims entries
 * \param count extent of the section, ndims entries (>= 0)
 * \param order #DARRAY_ORDER_C or #DARRAY_ORDER_FORTRAN: the layout of buf
 * \param buf   prod(count) elements (may be NULL when that is 0)
 * \param[out] req the request
 * \return as darray_iwrite()
 */
DARRAY_API int darray_bwrite_section(darray_file_t f, darray_t a,
                                     const int64_t start[],
                                     const int64_t count[],
                                     darray_order_t order, const void *buf,
                                     darray_request_t *req);

/**
 * Post a flush of the file to stable storage (collective, nonblocking):
 * darray_file_sync() as a request. It takes effect after the requests this
 * process posted before it on \p f, so when it has completed on every
 * process, everything they wrote is on stable storage. It runs in the
 * background as the mode allows (the fsync of the posix and subfiles back
 * ends in the file's thread below MPI_THREAD_MULTIPLE too, once the
 * requests before it have started; MPI_File_sync of the mpiio back end in
 * the request's wait there).
 *
 * \param f the file
 * \param[out] req the request
 * \retval DARRAY_SUCCESS the request is posted (its result comes with its
 *         completion: DARRAY_EIO when fsync failed on any process)
 * \retval DARRAY_ENULL \p req is NULL
 * \retval DARRAY_ENOMEM no memory for the request
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_file_isync(darray_file_t f, darray_request_t *req);

/**
 * Complete a request: wait until it has finished, and return its result,
 * the same on every process (its message in darray_file_errmsg()). Sets
 * \p *req to #DARRAY_REQUEST_NULL; waiting on #DARRAY_REQUEST_NULL returns
 * DARRAY_SUCCESS at once.
 *
 * \param f   the file the request was posted on
 * \param[in,out] req the request
 * \retval DARRAY_SUCCESS the request succeeded
 * \retval DARRAY_EREQUEST \p *req is not a pending request of \p f: it
 *         was completed already (a second wait), belongs to another file, or
 *         was never posted (local: the other processes are not told)
 * \retval DARRAY_ENULL \p req is NULL
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 * \return otherwise the request's result, as the blocking call returns it
 */
DARRAY_API int darray_wait(darray_file_t f, darray_request_t *req);

/**
 * Test whether a request has completed, without blocking. When it has,
 * \p *flag is 1, the result is returned as darray_wait() returns it and
 * \p *req becomes #DARRAY_REQUEST_NULL; else \p *flag is 0 and the call
 * returns DARRAY_SUCCESS. A program that tests until \p *flag is 1 on
 * every process completes the request.
 *
 * \param f   the file the request was posted on
 * \param[in,out] req the request
 * \param[out] flag 1 when the request has completed
 * \retval DARRAY_EREQUEST, DARRAY_ENULL, DARRAY_EBADHANDLE as darray_wait()
 * \return otherwise 0 or the completed request's result
 */
DARRAY_API int darray_test(darray_file_t f, darray_request_t *req, int *flag);

/**
 * Complete several requests of one file. Each entry of \p reqs that is not
 * #DARRAY_REQUEST_NULL is completed and set to #DARRAY_REQUEST_NULL; its
 * result goes to \p codes (if not NULL). Returns the first failing
 * request's result (its message in darray_file_errmsg()), or
 * DARRAY_SUCCESS.
 *
 * What is merged, and when: with `MPI_THREAD_MULTIPLE` (darray_async =
 * thread) the file's I/O thread runs requests that are queued together
 * (posted, not yet started, on every process) as one batch, whatever call
 * completes them: the first request's agreement carries each process's
 * count of requests queued behind it, the least count (the same on every
 * process) sets the batch, the other requests' begins are agreed on in
 * one collective, their transfers follow in post order, and one
 * collective agrees on every result: 3 agreement rounds for the batch
 * instead of 2 per request. Only whole-array reads and writes outside a
 * dataset join a batch (a section request may lead one, and section
 * requests join a chain of sections, below), at most 32,
 * whose arrays' file extents together fit in the largest of the buffer
 * hints (`cb_buffer_size`, `ind_rd_buffer_size`, `ind_wr_buffer_size`:
 * every request of a batch is prepared before the first one moves bytes,
 * so this bounds the batch's memory); a request whose bytes meet an
 * earlier one's in the batch, one of them a write, starts the next batch
 * instead (so a read posted after a write of the same bytes still sees
 * them). Each request keeps its own result
 * and message: a failure in one request of a batch is reported by that
 * request's completion, on every process, and the others are unaffected.
 * The bytes move request by request, except for a *chain*: whole arrays
 * of one operation, of any shapes, distributions, storage orders, element
 * types and memory layouts, posted in file order, each starting in the
 * file where the one posted before it ends (a dump of several arrays,
 * several dumps of one array), or section
 * requests of one operation on one array (alike, at the same
 * displacement), each process's boxes apart from one another: a chain
 * moves as one access, planned and prepared once (doc/planner.md,
 * "Requests moved as one access"), every request getting its result;
 * sections written by two requests of a chain that meet move one after
 * the other instead, so the later request's bytes stay. A failure while
 * a merged access moves bytes is every merged request's, but for a
 * merged read that meets the file's end: its requests are then read
 * again one by one, so that each reports its own DARRAY_EEOF or success. The
 * thread starts a request as soon as it is posted, so a batch holds what is
 * queued behind the request it starts; with the hint `darray_async_start` =
 * `wait` it starts nothing until the program waits, tests or syncs, so that
 * the requests posted before merge; a wait (or a blocking call on the file)
 * then runs them in the program's thread, with no hand-off to the I/O thread
 * and back.
 *
 * Below `MPI_THREAD_MULTIPLE` (darray_async = files) nothing
 * is merged: each request's agreement before its transfer happens when it
 * is posted, before later posts are known, and its final agreement may be
 * started by darray_test() on some processes and not on others, so the
 * requests still unagreed at a darray_wait_all() are not the same set
 * everywhere.
 *
 * \param f    the file the requests were posted on
 * \param n    number of entries of \p reqs (>= 0)
 * \param[in,out] reqs the requests
 * \param[out] codes n results, or NULL
 * \retval DARRAY_SUCCESS every request succeeded
 * \retval DARRAY_EINVAL \p n is negative
 * \retval DARRAY_ENULL \p reqs is NULL while \p n > 0
 * \return otherwise the first failure, as darray_wait() returns it
 */
DARRAY_API int darray_wait_all(darray_file_t f, int n, darray_request_t reqs[],
                               int codes[]);

/** What darray_xfer() does (darray_xfer_args_t.how): an OR of these. */
typedef enum darray_xfer_how {
  DARRAY_XFER_READ = 0,     /**< read (the default) */
  DARRAY_XFER_WRITE = 1,    /**< write */
  DARRAY_XFER_SECTION = 2,  /**< a section: start, count, order are used */
  DARRAY_XFER_POST = 4,     /**< post a request (nonblocking) into req */
  DARRAY_XFER_BUFFERED = 8  /**< with POST and WRITE: copy buf at post */
} darray_xfer_how_t;

/** A buffer's size that is not known: not checked (see darray_xfer()). */
#define DARRAY_UNSIZED ((int64_t)-1)

/**
 * The arguments of darray_xfer(), every read and write call in one: set
 * the fields the call uses (a compound literal leaves the others zero).
 */
typedef struct darray_xfer_args {
  unsigned how;           /**< an OR of #darray_xfer_how_t */
  const int64_t *start;   /**< DARRAY_XFER_SECTION: first global index */
  const int64_t *count;   /**< DARRAY_XFER_SECTION: extent (>= 0) */
  darray_order_t order;   /**< DARRAY_XFER_SECTION: the layout of buf */
  const void *buf;        /**< the buffer (reads write into it) */
  int64_t nbytes;         /**< bytes \p buf holds (#DARRAY_UNSIZED: unknown) */
  darray_request_t *req;  /**< DARRAY_XFER_POST: the request */
  /** For language bindings: not DARRAY_SUCCESS when the binding found this
   *  process's own arguments bad before calling (a Fortran buffer that
   *  cannot be passed, say): the call fails with this code on this
   *  process and agrees on it with the others, as for the library's own
   *  checks; \p why is the message. */
  int refuse;
  const char *why;        /**< the message of \p refuse */
} darray_xfer_args_t;

/**
 * Any read or write call with the size of its buffer checked (collective):
 * darray_write(), darray_read(), their section forms, and, with
 * #DARRAY_XFER_POST, darray_iwrite(), darray_iread(), darray_bwrite() and
 * theirs, as \p args says.
 *
 * The size check: a process whose \p nbytes is smaller than what the call
 * moves between \p buf and the file (a whole-array call: its local piece
 * with ghosts and padding, darray_local_bytes(); a section: prod(count)
 * elements) fails the call with DARRAY_EBUFSIZE, the message naming both
 * sizes; as for every argument check, every process returns it and
 * nothing is read or written anywhere (a posted request: at its
 * completion; a buffered write copies nothing). A larger buffer is fine.
 *
 * Which calls check: only darray_xfer() with a size, and every read and
 * write call of the Fortran module, which passes the actual argument's
 * size (but for an assumed-size array, whose size Fortran does not know).
 * The calls that take a bare pointer (darray_write() and the others above
 * and below) cannot: they are darray_xfer() with #DARRAY_UNSIZED, and a
 * short buffer there is read or written past its end.
 *
 * \code
 * // a whole-array read into a buffer of n bytes
 * rc = darray_xfer(f, a, &(darray_xfer_args_t){.how = DARRAY_XFER_READ,
 *                                              .buf = u, .nbytes = n});
 * // a posted section write
 * rc = darray_xfer(f, a, &(darray_xfer_args_t){
 *     .how = DARRAY_XFER_WRITE | DARRAY_XFER_SECTION | DARRAY_XFER_POST,
 *     .start = s, .count = c, .order = DARRAY_ORDER_C, .buf = slab,
 *     .nbytes = sizeof slab, .req = &req});
 * \endcode
 *
 * \param f    the file
 * \param a    a committed array
 * \param args the call (its pointers are read during the call only, but
 *             for the buffer of a posted, unbuffered request)
 * \retval DARRAY_EBUFSIZE \p nbytes is smaller than the call needs on
 *         some process
 * \retval DARRAY_EINVAL \p how is not a combination above, or \p nbytes
 *         is negative but #DARRAY_UNSIZED (on some process)
 * \retval DARRAY_ENULL \p args is NULL (local: nothing can be agreed on)
 * \return otherwise as the call \p how names
 */
DARRAY_API int darray_xfer(darray_file_t f, darray_t a,
                           const darray_xfer_args_t *args);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_datasets Self-describing files (.npy, .npz)
 *
 * A *dataset* is a file in a format other programs read: `.npy` (one
 * array, the NumPy format) or `.npz` (named arrays in a ZIP archive of
 * stored `.npy` members, what numpy.savez writes). Its arrays are written
 * and read with the ordinary calls; the format only decides where each
 * array's data starts and writes the headers, with the CRC-32 of every
 * member, when the file is closed. \ref formats "doc/formats.md" has the
 * layout.
 *
 * \code
 * darray_file_t f;
 * darray_dataset_open(MPI_COMM_WORLD, "out.npz", DARRAY_MODE_RDWR |
 *                     DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC,
 *                     MPI_INFO_NULL, &f);
 * darray_define(f, "u", a);   // a: a committed description
 * darray_write(f, a, buf);
 * darray_file_close(&f);      // python3: numpy.load("out.npz")["u"]
 * \endcode
 */
/** @{ */

/** Longest name of a dataset member, in bytes. */
#define DARRAY_NAME_MAX 200

/** What a dataset says about one of its arrays (darray_inquire()). */
typedef struct darray_member_info {
  /** the name (for `.npz` the archive entry without `.npy`; "" in a
   *  `.npy` file) */
  char name[DARRAY_NAME_MAX + 1];
  /** element type */
  darray_type_t type;
  /** bytes per element (the size to give a #DARRAY_OPAQUE array) */
  int64_t elem_size;
  /** number of dimensions */
  int ndims;
  /** global size of each dimension (ndims entries), in the order darrayio
   *  wrote them: the dimensions of a permuted storage order are reported
   *  unpermuted */
  int64_t gsizes[DARRAY_MAX_DIMS];
  /** storage order: #DARRAY_ORDER_C, #DARRAY_ORDER_FORTRAN or
   *  #DARRAY_ORDER_PERM with \p perm */
  darray_order_t order;
  /** the storage order as darray_set_storage_order() takes it: slowest
   *  dimension first (ndims entries, filled in for every order) */
  int perm[DARRAY_MAX_DIMS];
  /** byte offset of the data in the file */
  int64_t offset;
  /** bytes of the data */
  int64_t bytes;
  /** 1 when the file records a CRC-32 of the member (`.npz`), else 0 */
  int has_crc;
  /** the recorded CRC-32 of the member (its `.npy` header and data), as
   *  in the archive's central directory; 0 when \p has_crc is 0 */
  uint32_t crc32;
  /** DARRAY_SUCCESS when darrayio reads the member; else the code
   *  darray_define() returns for it, DARRAY_ENOTSUP (with a message that
   *  names the member and its type): an element type with no darrayio
   *  type (Python objects `|O`, datetime64 `<M8[s]`, timedelta64,
   *  complex, bool, strings longer than 1, structured types), big-endian
   *  data (`>f8`), more than #DARRAY_MAX_DIMS dimensions, an empty array,
   *  a compressed or encrypted member, a `.npy` version past 3.0. Such a
   *  member is listed, not read: \p type and \p elem_size are 0, \p
   *  ndims, \p gsizes and \p order are its shape where the header gives
   *  one (else 0), \p offset and \p bytes are the rest of the member after
   *  its `.npy` header (compressed or encrypted: the stored bytes). Only
   *  `.npz` archives list such members: a `.npy` file of one is refused
   *  at open. */
  int status;
  /** 1 for a NumPy 0-d array (shape `()`, what numpy.savez writes for a
   *  Python number): it is described as one element, \p ndims 1 and
   *  \p gsizes[0] 1, and read as such an array; else 0 */
  int scalar;
  /** NumPy's name of the element type as the file writes it (`<f8`,
   *  `|O`, `<M8[ns]`; a structured type's list cut to 31 bytes with
   *  `...`); "" where the member's `.npy` header cannot be read
   *  (compressed, encrypted, an unknown version) */
  char descr[32];
} darray_member_info_t;

/**
 * Open a dataset (collective): a `.npy` or `.npz` file, by the suffix of
 * \p path.
 *
 * Writing creates the file whole: \p mode must be
 * #DARRAY_MODE_RDWR | #DARRAY_MODE_CREATE | #DARRAY_MODE_TRUNC; define
 * its arrays with darray_define(), write them, and close it, which writes
 * the headers. Reading (#DARRAY_MODE_RDONLY) parses the file on rank 0 and
 * gives every process its arrays (darray_inquire()). Hints as for
 * darray_file_open(), plus `darray_verify_crc` = `enable` (default) or
 * `disable`: a whole-array darray_read() or darray_iread() of a `.npz`
 * member compares the CRC-32 of the member's bytes (its `.npy` header and
 * the data read, each process's share combined in parallel) with the
 * recorded one and returns DARRAY_ECRC on a mismatch (section reads
 * cannot check; `.npy` files record no CRC, nor does a dataset being
 * written before its close); `darray_crc_thread` =
 * `automatic` (default), `enable` or `disable`: a thread beside a blocking
 * whole-array darray_write() of a `.npz` member computes the process's
 * share of the member's CRC-32 from the buffer while the write runs
 * (automatic: when the node runs fewer of the file's processes than a
 * process has cores; two-phase writes compute it on their aggregators'
 * chunks instead). The data of each member starts at a multiple of
 * `striping_unit` when set, else of 4 KiB.
 * Needs zlib (configure finds it).
 *
 * \param comm the processes that will access the file
 * \param path the file name, ending in `.npy` or `.npz`
 * \param mode #DARRAY_MODE_RDONLY, or RDWR | CREATE | TRUNC
 * \param info hints, or MPI_INFO_NULL
 * \param[out] f the new handle; NULL on failure
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p path or \p f is NULL
 * \retval DARRAY_EINVAL \p path ends neither in `.npy` nor in `.npz`
 * \retval DARRAY_EMODE RDWR without CREATE and TRUNC (datasets are not
 *         appended to)
 * \retval DARRAY_EFORMAT reading: the file is not a well-formed `.npy` or
 *         `.npz` file (the message says where it is wrong)
 * \retval DARRAY_ENOTSUP reading a `.npy` file whose array darrayio does
 *         not read (the kinds darray_member_info_t::status lists); or
 *         darrayio was built without zlib. A `.npz` archive is not refused
 *         for such members: they are listed with their \p status and
 *         refused by darray_define() alone; an archive of more than 2^20
 *         members is refused
 * \retval DARRAY_EIO, DARRAY_ENOENT, DARRAY_EACCESS, DARRAY_EHINT,
 *         DARRAY_ECOMM, DARRAY_EINCONSISTENT, DARRAY_ENOMEM,
 *         DARRAY_EISDIR as for darray_file_open(), and
 *         DARRAY_ENOTSUP for a FIFO or socket at \p path (at once, read-only
 *         too)
 */
DARRAY_API int darray_dataset_open(MPI_Comm comm, const char *path, int mode,
                                   MPI_Info info, darray_file_t *f);

/**
 * Bind an array description to a member of a dataset (collective).
 *
 * In a dataset being written, adds the member \p name with the shape,
 * element type and storage order of \p a; its data goes after the members
 * defined before it, at an offset every process computes alike. In a
 * dataset being read, binds \p a to the existing member \p name, whose
 * element type, shape and storage order \p a must have (its distribution,
 * grid and memory layout are free; a NumPy 0-d array is a 1-D array of one
 * element). Then darray_write(), darray_read() and
 * the section calls on \p a move the member's bytes; the displacement of
 * \p a is not used and not changed. A handle is bound to one member per
 * file.
 *
 * \param f    a file opened with darray_dataset_open()
 * \param name the member's name: 1 to #DARRAY_NAME_MAX bytes, no `/`,
 *             `\`, control characters or "..", unique in the file (for a
 *             `.npy` file: ignored, may be NULL; the file has one array)
 * \param a    a committed array whose communicator is congruent with f's
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p name is NULL (`.npz`)
 * \retval DARRAY_EINVAL a malformed name, a name already defined, \p a
 *         already bound in this file, a second array in a `.npy` file;
 *         reading: no member of that name, or \p a does not match it (the
 *         message names what differs)
 * \retval DARRAY_ETYPE the element type has no NumPy name
 *         (#DARRAY_LONG_DOUBLE)
 * \retval DARRAY_ENOTSUP reading: darrayio does not read the member
 *         (darray_member_info_t::status; the message names the member,
 *         its NumPy type and why)
 * \retval DARRAY_ESIZE the file would be larger than 2^63 bytes
 * \retval DARRAY_ESTATE \p f is not a dataset, or \p a is not committed
 * \retval DARRAY_ECOMM the communicators do not match
 * \retval DARRAY_EINCONSISTENT processes passed different names or arrays
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f or \p a is not a live handle
 */
DARRAY_API int darray_define(darray_file_t f, const char *name, darray_t a);

/**
 * Number of arrays in a dataset (local).
 * \param f a file opened with darray_dataset_open()
 * \param[out] n the number of members (defined so far, when writing)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p n is NULL
 * \retval DARRAY_ESTATE \p f is not a dataset
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_num_members(darray_file_t f, int *n);

/**
 * Describe one array of a dataset (local).
 *
 * \code
 * darray_member_info_t m;
 * darray_inquire(f, 0, &m);
 * darray_create(comm, m.ndims, m.gsizes, m.type, &b);
 * darray_set_storage_order(b, DARRAY_ORDER_PERM, m.perm);
 * // any distribution, then darray_commit(b), darray_define(f, m.name, b)
 * \endcode
 *
 * Every member of an archive is listed, those darrayio does not read too
 * (darray_member_info_t::status, darray_member_info_t::descr); a 0-d
 * member has darray_member_info_t::scalar set and the shape `{1}`.
 *
 * \param f     a file opened with darray_dataset_open()
 * \param index 0 .. darray_num_members()-1, in file order
 * \param[out] info the member
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p info is NULL
 * \retval DARRAY_EINDEX \p index out of range
 * \retval DARRAY_ESTATE \p f is not a dataset
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_inquire(darray_file_t f, int index,
                              darray_member_info_t *info);

/**
 * Check the CRC-32 of every member of a dataset opened for reading
 * (collective): every process reads an equal slice of each member and the
 * pieces' CRCs are combined, so no process reads more than its share. A
 * `.npy` file records no CRC: nothing is checked.
 * \param f a file opened with darray_dataset_open() and #DARRAY_MODE_RDONLY
 * \retval DARRAY_SUCCESS every recorded CRC matches
 * \retval DARRAY_ECRC a member's data does not match its CRC (the message
 *         names the first such member)
 * \retval DARRAY_ESTATE \p f is not a dataset opened for reading
 * \retval DARRAY_EIO, DARRAY_EEOF reading failed
 * \retval DARRAY_ENOMEM out of memory
 * \retval DARRAY_EBADHANDLE \p f is not a live handle
 */
DARRAY_API int darray_verify(darray_file_t f);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_advisor Storage advisor
 *
 * Which storage order should a dataset have, given the programs that will
 * read it? An access *conforms* to a storage order when every process's
 * data is one stretch of the file (per cell): it then needs no
 * communication and one call per cell. The advisor evaluates candidate
 * orders against the distributions of the dataset's consumers, weighted by
 * how often each runs, and recommends the order that the most weight
 * conforms to; the consumers whose processes' file extents interleave
 * under it are the ones that will use two-phase collective I/O
 * (\ref advisor "doc/advisor.md"). The verdicts are the ones
 * darray_explain() and the planner reach for a real array of the same
 * description.
 *
 * The advisor is local and needs no communicator: it describes each
 * consumer's array on paper, for that consumer's own number of processes.
 * Zero grid entries are filled in by MPI_Dims_create(), as darray_commit()
 * does, so MPI must be initialized. Its memory does not depend on the
 * array's size: O(nprocs) numbers per consumer.
 */
/** @{ */

/**
 * The most processes a consumer may run on: 2^24, more than any machine
 * has. The advisor's work grows with the count, and MPI_Dims_create(),
 * which completes the grid, fails on some counts near 2^31 (MPICH 4.0
 * divides by zero at 2^31 - 1 and kills the process).
 */
#define DARRAY_ADVISE_MAX_NPROCS (1 << 24)

/**
 * A program that will access a dataset: how it distributes the array over
 * its processes, and how much its access counts. The fields mean what the
 * arguments of darray_set_distribution() and darray_set_grid() mean for an
 * array on \p nprocs processes; only the first ndims entries of the arrays
 * are read, and zero entries of \p dargs and \p psizes mean the defaults,
 * so a zero-initialized struct needs only its weight, process count and
 * distribution.
 *
 * \code
 * darray_consumer_t rows = {.name = "rows", .weight = 3, .nprocs = 4,
 *                           .dist = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE}};
 * \endcode
 */
typedef struct darray_consumer {
  /** label in reports (may be NULL) */
  const char *name;
  /** how much the consumer counts (how often it runs), finite and >= 0 */
  double weight;
  /** number of processes it runs on, 1 .. #DARRAY_ADVISE_MAX_NPROCS */
  int nprocs;
  /** distribution of each dimension; MULTIPARTITION needs a perfect-square
   *  \p nprocs */
  darray_dist_t dist[DARRAY_MAX_DIMS];
  /** block size of each BLOCK or CYCLIC dimension; 0 or
   *  #DARRAY_DEFAULT_ARG for the default */
  int64_t dargs[DARRAY_MAX_DIMS];
  /** processes along each dimension; 0 entries are chosen as
   *  darray_commit() chooses them */
  int psizes[DARRAY_MAX_DIMS];
} darray_consumer_t;

/** How a consumer's access fares under a storage order. */
typedef enum darray_verdict {
  /** Every process's data is one stretch of the file per cell, or has no
   *  holes: independent direct I/O, one call per cell, no communication. */
  DARRAY_VERDICT_CONFORMING = 0,
  /** Some process's data is split into runs with holes between them, but
   *  no process's data lies inside another's file extent: independent I/O
   *  (data sieving or direct runs, by the cost model), no communication.
   *  Distributions never give it (every element has one owner, so a hole
   *  in one process's extent is another's data); it is kept for accesses
   *  that leave parts of the file alone. */
  DARRAY_VERDICT_FRAGMENTED = 1,
  /** The file extents of different processes interleave: two-phase
   *  collective I/O. */
  DARRAY_VERDICT_INTERLEAVED = 2
} darray_verdict_t;

/** One consumer's access under one storage order. */
typedef struct darray_consumer_verdict {
  /** the verdict */
  darray_verdict_t verdict;
  /** the process grid, zero entries filled in (first ndims entries) */
  int psizes[DARRAY_MAX_DIMS];
  /** most file runs of one process (touching runs counted apart) */
  int64_t max_runs;
  /** file runs of all processes together */
  int64_t total_runs;
  /** shortest run in bytes (0 when no process accesses anything) */
  int64_t min_run;
  /** longest run in bytes */
  int64_t max_run;
  /** processes whose data is not one stretch of the file per cell */
  int nonconforming;
} darray_consumer_verdict_t;

/** The advisor's answer: a storage order and how the consumers fare. */
typedef struct darray_advice {
  /** the storage order, slowest varying dimension first (first ndims
   *  entries): pass it to darray_set_storage_order() with
   *  #DARRAY_ORDER_PERM */
  int perm[DARRAY_MAX_DIMS];
  /** weight of the consumers whose verdict is #DARRAY_VERDICT_CONFORMING */
  double conforming_weight;
  /** weight of the consumers whose verdict is
   *  #DARRAY_VERDICT_INTERLEAVED: they need collective I/O */
  double collective_weight;
  /** weight of all consumers */
  double total_weight;
  /** sum over the consumers of weight times total_runs */
  double weighted_runs;
  /** storage orders evaluated (1 for darray_advise_order()) */
  int ncandidates;
  /** 1 when every permutation of the dimensions was evaluated, 0 when the
   *  candidates were restricted (7 or 8 dimensions) or one order was given */
  int all_orders;
} darray_advice_t;

/**
 * Recommend the storage order of a dataset from its consumers (local).
 *
 * Candidates: every permutation of the dimensions when ndims <= 6. With 7
 * or 8 dimensions, the dimensions no consumer distributes over more than
 * one process stay fastest, in increasing order, and every order of the
 * others is a candidate, as are C and Fortran order; putting such a
 * dimension fastest never makes a verdict worse or adds runs, so the
 * restriction loses nothing but ties. The work is O(candidates x the sum
 * of the consumers' nprocs x ndims).
 *
 * The best candidate has the largest conforming weight; ties go to the
 * smaller collective weight, then the fewer weighted runs, then C order,
 * then Fortran order, then the lexicographically smallest permutation.
 * Weights are compared with a relative tolerance of 1e-9, so the answer
 * does not depend on the rounding of sums.
 *
 * \code
 * darray_consumer_t c[2] = {
 *   {.name = "rows", .weight = 3, .nprocs = 4,
 *    .dist = {DARRAY_DIST_BLOCK, DARRAY_DIST_NONE}},
 *   {.name = "cols", .weight = 1, .nprocs = 4,
 *    .dist = {DARRAY_DIST_NONE, DARRAY_DIST_BLOCK}}};
 * int64_t g[2] = {1024, 1024};
 * darray_advice_t adv;
 * darray_consumer_verdict_t v[2];
 * if (darray_advise_storage(2, g, 4, 2, c, &adv, v) == DARRAY_SUCCESS)
 *   darray_set_storage_order(a, DARRAY_ORDER_PERM, adv.perm); // {0, 1}
 * \endcode
 *
 * \param ndims      number of dimensions, 1 .. #DARRAY_MAX_DIMS
 * \param gsizes     global size of each dimension, each >= 1
 * \param esize      bytes per element, >= 1
 * \param nconsumers number of consumers, >= 1
 * \param consumers  the consumers
 * \param[out] advice the recommended order and its weights
 * \param[out] verdicts nconsumers entries: each consumer's verdict under the
 *             recommended order (may be NULL)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p gsizes, \p consumers or \p advice is NULL
 * \retval DARRAY_ENDIMS \p ndims out of range
 * \retval DARRAY_ESIZE a size is < 1, or the array's bytes overflow
 * \retval DARRAY_ETYPE \p esize < 1
 * \retval DARRAY_EINVAL \p nconsumers < 1, or a weight is negative or not
 *         finite
 * \retval DARRAY_EDIST a consumer's distribution is invalid (as for
 *         darray_set_distribution() and darray_commit())
 * \retval DARRAY_EGRID a consumer's \p nprocs is < 1 or more than
 *         #DARRAY_ADVISE_MAX_NPROCS, or its grid does not fit its processes
 *         (as for darray_set_grid() and darray_commit())
 * \retval DARRAY_EMPI MPI is not initialized
 * \retval DARRAY_ENOMEM out of memory
 *
 * On failure darray_errmsg(NULL) names the bad argument, such as
 * "consumers[1] (cols): dargs[0] = -5: ...".
 */
DARRAY_API int darray_advise_storage(int ndims, const int64_t gsizes[], int64_t esize,
                          int nconsumers, const darray_consumer_t consumers[],
                          darray_advice_t *advice,
                          darray_consumer_verdict_t verdicts[]);

/**
 * Evaluate one given storage order against the consumers (local): the same
 * verdicts and weights as darray_advise_storage(), for \p perm.
 *
 * \param ndims      number of dimensions, 1 .. #DARRAY_MAX_DIMS
 * \param gsizes     global size of each dimension, each >= 1
 * \param esize      bytes per element, >= 1
 * \param nconsumers number of consumers, >= 1
 * \param consumers  the consumers
 * \param perm       the storage order, slowest dimension first, as
 *                   darray_set_storage_order() takes it
 * \param[out] advice \p perm and its weights
 * \param[out] verdicts nconsumers entries (may be NULL)
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_EORDER \p perm is not a permutation of 0 .. ndims-1
 * \retval DARRAY_ENULL \p gsizes, \p consumers, \p perm or \p advice is
 *         NULL
 * \retval DARRAY_ENDIMS, DARRAY_ESIZE, DARRAY_ETYPE, DARRAY_EINVAL,
 *         DARRAY_EDIST, DARRAY_EGRID, DARRAY_EMPI, DARRAY_ENOMEM as for
 *         darray_advise_storage()
 */
DARRAY_API int darray_advise_order(int ndims, const int64_t gsizes[], int64_t esize,
                        int nconsumers, const darray_consumer_t consumers[],
                        const int perm[], darray_advice_t *advice,
                        darray_consumer_verdict_t verdicts[]);

/**
 * Print the advisor's reasoning (local): the consumers, the candidate
 * orders ranked with each consumer's verdict under each (the best 24 when
 * there are more), the recommended order, and a table of the consumers'
 * verdicts, runs and I/O method under it.
 *
 * \param ndims      number of dimensions, 1 .. #DARRAY_MAX_DIMS
 * \param gsizes     global size of each dimension, each >= 1
 * \param esize      bytes per element, >= 1
 * \param nconsumers number of consumers, >= 1
 * \param consumers  the consumers
 * \param out        where to print
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p out, \p gsizes or \p consumers is NULL
 * \retval DARRAY_ENDIMS, DARRAY_ESIZE, DARRAY_ETYPE, DARRAY_EINVAL,
 *         DARRAY_EDIST, DARRAY_EGRID, DARRAY_EMPI, DARRAY_ENOMEM as for
 *         darray_advise_storage()
 */
DARRAY_API int darray_advise_report(int ndims, const int64_t gsizes[], int64_t esize,
                         int nconsumers, const darray_consumer_t consumers[],
                         FILE *out);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_paper Planning on paper (any number of processes)
 * A *virtual* array describes a distributed array over any number of
 * processes without running them: the planner and every strategy's sizing
 * evaluate a whole-array call on it from the description alone, since no
 * process needs another's metadata. `darray-plan` (a tool) prints what
 * darray_plan_virtual() computes (doc/scaling.md). */
/** @{ */

/** Most processes of a virtual array. */
#define DARRAY_VIRTUAL_MAX_NPROCS (1 << 24)

/**
 * Start the description of a virtual array over \p nprocs processes
 * (local; MPI must be initialized). The setters (darray_set_distribution(),
 * darray_set_grid(), darray_set_storage_order(), ...) and darray_commit()
 * work on it without communicating, and the queries answer for the
 * virtual processes (darray_locate(), darray_file_offset(), ...); it has no
 * local cells (darray_local_count() is 0). Reads, writes, darray_explain()
 * and darray_define() refuse it with DARRAY_ECOMM. Free it with
 * darray_free().
 *
 * \param nprocs number of processes, 1 .. #DARRAY_VIRTUAL_MAX_NPROCS
 * \param ndims, gsizes, type as for darray_create()
 * \param[out] a the new handle
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p a or \p gsizes is NULL
 * \retval DARRAY_EGRID \p nprocs out of range
 * \retval DARRAY_ENDIMS, DARRAY_ESIZE, DARRAY_ETYPE as for darray_create()
 * \retval DARRAY_EMPI MPI is not initialized
 * \retval DARRAY_ENOMEM out of memory
 */
DARRAY_API int darray_create_virtual(int nprocs, int ndims, const int64_t gsizes[],
                                     darray_type_t type, darray_t *a);

/**
 * One strategy's plan of a whole-array call, counted on paper by
 * darray_plan_virtual(). The counters are those of darray_stats_t, per
 * process, as the strategy's run would count them (-1: the strategy does
 * not count that number on paper); "most" is the busiest process's.
 */
typedef struct darray_plan_row {
  char strategy[16];      /**< the strategy's name */
  int candidate;          /**< 1: a candidate; 0: not (why says why) */
  int chosen;             /**< 1: the planner's choice */
  char why[200];          /**< why it is not a candidate ("" if it is) */
  double estimate_ns;     /**< the cost model's time of the call (ns) */
  int64_t file_calls_max; /**< file calls (read or write), most */
  int64_t file_calls_sum; /**< file calls, all processes */
  int64_t file_bytes_max; /**< bytes moved to or from the file, most */
  int64_t sent_bytes_max; /**< data bytes sent to other processes, most */
  int64_t sent_bytes_sum; /**< data bytes sent to other processes, all */
  int64_t messages_max;   /**< data messages sent, most */
  int64_t messages_sum;   /**< data messages sent, all processes */
  int64_t cycles;         /**< collective buffering cycles */
  int64_t aggregators;    /**< processes that access the file */
  int64_t agg_pieces_max; /**< pieces of runs one aggregator moves, most */
  int64_t temp_bytes_max; /**< temporary buffers of one process, most */
  int64_t metadata_bytes_max; /**< bytes of offset/length lists one
                                   process sends: 0 (darrayio exchanges
                                   none) */
  int64_t romio_metadata_max; /**< what ROMIO's two-phase algorithm would
                                   send for the same access and domains
                                   (its per-process piece counts and
                                   offset/length lists), most; -1 for
                                   independent strategies */
  int64_t romio_metadata_sum; /**< the same, all processes */
  int servers_per_agg_max; /**< striped files (striping_unit and
                                striping_factor given): the most servers
                                (stripe targets) one aggregator's chunk
                                touches in one cycle; 0: not striped */
  int aggs_per_server_max; /**< the most aggregators whose chunks touch
                                one server in one cycle (contention) */
  double plan_ns;          /**< processor time of the planner for this
                                call on one process (ns; the same in every
                                row) */
} darray_plan_row_t;

/**
 * Plan a whole-array read or write of a committed virtual array (local):
 * the planner's decision with the hints in \p info (the keys of
 * darray_file_open(); the cost model's constants as given, or their
 * defaults), and for each strategy of the table its estimate and what its
 * run would count per process, computed from the description with the
 * same code and sizing the real call uses. At small process counts the
 * counts equal what darray_file_stats_summary() reports after the real
 * call with the strategy forced (tested); the work is O(processes +
 * runs of all processes).
 *
 * \param a      a committed virtual array (darray_create_virtual())
 * \param info   hints, or MPI_INFO_NULL
 * \param write  nonzero: a write; zero: a read
 * \param nrows  entries of \p rows (the table has at most 8)
 * \param[out] rows one row per strategy, in the table's order
 * \param[out] nfilled rows filled
 * \retval DARRAY_SUCCESS success
 * \retval DARRAY_ENULL \p rows or \p nfilled is NULL
 * \retval DARRAY_ECOMM \p a is not a virtual array
 * \retval DARRAY_ESTATE \p a is not committed
 * \retval DARRAY_EHINT a hint's value is invalid, or a `darray_` key is no
 *         hint (message names it, and the nearest known key)
 * \retval DARRAY_EINVAL \p nrows is smaller than the table
 * \retval DARRAY_ESIZE displacement + array bytes overflow 64 bits
 * \retval DARRAY_ENOMEM out of memory
 */
DARRAY_API int darray_plan_virtual(darray_t a, MPI_Info info, int write, int nrows,
                                   darray_plan_row_t rows[], int *nfilled);

/** @} */

/* ------------------------------------------------------------------------ */
/** \defgroup api_bindings For other languages' bindings
 *
 * The calls that take an MPI communicator or info object, with the object
 * as a Fortran handle (`MPI_Fint`): a binding that cannot name the C
 * handle types (they differ from one MPI to another) passes the Fortran
 * handle its MPI layer gives it, as the Python package passes mpi4py's
 * `comm.py2f()` and `info.py2f()` (`MPI_INFO_NULL`'s Fortran handle for no
 * hints). Each converts the handles with `MPI_Comm_f2c` and `MPI_Info_f2c`
 * and does what the call it names does, with the same codes. Before
 * MPI_Init or after MPI_Finalize it converts nothing (the conversions need
 * MPI) and returns DARRAY_EMPI, as the call it names does then
 * (darray_file_delete_fint() deletes without hints, as
 * darray_file_delete() does without MPI). darray_mpi_library() tells a binding which MPI the
 * library was compiled with, so that it refuses to run on another.
 */
/** @{ */

/**
 * darray_create() with the communicator as a Fortran handle (collective).
 * \param comm   communicator, from `MPI_Comm_c2f` (mpi4py: `comm.py2f()`)
 * \param ndims  as darray_create()
 * \param gsizes as darray_create()
 * \param type   as darray_create()
 * \param[out] a as darray_create()
 * \return what darray_create() returns; DARRAY_EMPI outside MPI
 */
DARRAY_API int darray_create_fint(MPI_Fint comm, int ndims,
                                  const int64_t gsizes[], darray_type_t type,
                                  darray_t *a);

/**
 * darray_file_open() with Fortran handles (collective).
 * \param comm   communicator, from `MPI_Comm_c2f`
 * \param path   as darray_file_open()
 * \param mode   as darray_file_open()
 * \param info   hints, from `MPI_Info_c2f` (`MPI_INFO_NULL`'s for none)
 * \param[out] f as darray_file_open()
 * \return what darray_file_open() returns; DARRAY_EMPI outside MPI
 */
DARRAY_API int darray_file_open_fint(MPI_Fint comm, const char *path,
                                     int mode, MPI_Fint info,
                                     darray_file_t *f);

/**
 * darray_dataset_open() with Fortran handles (collective).
 * \param comm   communicator, from `MPI_Comm_c2f`
 * \param path   as darray_dataset_open()
 * \param mode   as darray_dataset_open()
 * \param info   hints, from `MPI_Info_c2f` (`MPI_INFO_NULL`'s for none)
 * \param[out] f as darray_dataset_open()
 * \return what darray_dataset_open() returns; DARRAY_EMPI outside MPI
 */
DARRAY_API int darray_dataset_open_fint(MPI_Fint comm, const char *path,
                                        int mode, MPI_Fint info,
                                        darray_file_t *f);

/**
 * darray_file_delete() with the info object as a Fortran handle.
 * \param path as darray_file_delete()
 * \param info hints, from `MPI_Info_c2f` (`MPI_INFO_NULL`'s for none)
 * \return what darray_file_delete() returns (outside MPI: without hints)
 */
DARRAY_API int darray_file_delete_fint(const char *path, MPI_Fint info);

/**
 * The MPI library the library was compiled against, from its `mpi.h`
 * (local; needs no MPI): "MPICH 4.0.2", "Open MPI 4.1.4", or "MPI 3.1"
 * (the standard's version) for another MPI. A binding loaded beside an
 * MPI layer compares its vendor with this before it calls MPI.
 * \return a static string
 */
DARRAY_API const char *darray_mpi_library(void);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* DARRAYIO_H */
