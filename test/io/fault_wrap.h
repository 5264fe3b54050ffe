/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * fault_wrap.h - injected failures of allocations and MPI calls, for the
 * fault tests only (test/io/fault_wrap.c; doc/reliability.md, section 7).
 *
 * The test programs that use it are linked with GNU ld's --wrap for each
 * function below (test/Makefile.inc, DARRAY_FAULT_WRAP_LDFLAGS), so the
 * library's references to malloc or MPI_Isend, in the static convenience
 * library they link, go through the wrappers. Nothing of this is in the
 * library itself: production builds are unchanged.
 *
 * While disarmed every wrapper only passes the call on. While armed each
 * counts its calls per kind, and the one rule (kind, index, error) makes
 * the index-th call of that kind on this process fail. A test arms the
 * wrappers around library calls only, so its own allocations and MPI calls
 * are neither counted nor failed.
 */
#ifndef DARRAYIO_FAULT_WRAP_H
#define DARRAYIO_FAULT_WRAP_H

#include <stdbool.h>
#include <stdint.h>

/* What a failure does, by kind (a real MPI can fail each of them this way
 * without stranding another process):
 *   alloc        malloc, calloc, realloc, strdup: NULL and ENOMEM, nothing
 *                allocated;
 *   isend .. iallgather   posted for real; the MPI_Testall that completes
 *                the request returns the error (a failed receive leaves
 *                its buffer scribbled over: its contents are undefined);
 *   comm_dup, comm_free, file_sync, file_set_size, file_close   collective:
 *                performed, then the error is returned on this process
 *                (comm_dup frees the new communicator and returns
 *                MPI_COMM_NULL; file_close releases the handle);
 *   file_open    performed; then, as ROMIO does, every process learns that
 *                one failed (one MPI_Allreduce in the wrapper), closes
 *                the file and returns an error (this one the rule's,
 *                the others MPI_ERR_IO);
 *   dims_create, attr (MPI_Comm_create_keyval, _get_attr, _set_attr),
 *   info_get, file_read_at, file_write_at   local: fail before doing
 *                anything.
 */
enum {
  FW_ALLOC,
  FW_ISEND,
  FW_IRECV,
  FW_IBCAST,
  FW_IALLREDUCE,
  FW_IALLGATHER,
  FW_COMM_DUP,
  FW_COMM_FREE,
  FW_DIMS_CREATE,
  FW_ATTR,
  FW_INFO_GET,
  FW_FILE_OPEN,
  FW_FILE_SET_SIZE,
  FW_FILE_READ_AT,
  FW_FILE_WRITE_AT,
  FW_FILE_SYNC,
  FW_FILE_CLOSE,
  FW_NKINDS
};

/* The kind's name ("alloc", "isend", ...). */
const char *fw_name(int kind);
/* Zero the counters, drop the rule and any pending failed request. */
void fw_reset(void);
/* From now on, the index-th call (1-based, counted since fw_reset) of kind
 * on this process fails with err (an MPI error class; ignored for alloc).
 * index 0: no rule. */
void fw_rule(int kind, int64_t index, int err);
/* Count (and inject) from now on, or stop. */
void fw_arm(bool on);
/* Calls of a kind counted since fw_reset, and failures injected. */
int64_t fw_calls(int kind);
int64_t fw_injected(void);

#endif /* DARRAYIO_FAULT_WRAP_H */
