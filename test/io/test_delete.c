/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * test_delete.c - darray_file_delete (include/darrayio.h): a file deleted
 * whatever its back end, a striped subfile set with all its subfiles.
 *
 * The files are written by the library on every process (posix, and
 * subfile sets of S = 1, 2, 3); the call is local, so one process, the
 * last rank, deletes and checks while the others wait. Oracle: stat(2) of
 * the descriptor and of every subfile, named from doc/subfiles.md's rule
 * (PATH.sub<j>of<S>) here, not by the library, before the call (all there)
 * and after it (none there), and the test directory empty after each case
 * (nothing else left). Cases: a plain file; sets of S = 1, 2, 3 (one with
 * hints that say posix: ignored); a missing path (DARRAY_ENOENT naming it)
 * and a path through a plain file; a directory (DARRAY_EISDIR, still
 * there); NULL (DARRAY_ENULL); a set with one and with two subfiles
 * removed beforehand (DARRAY_ENOENT naming the first missing one, the rest
 * and the descriptor deleted); a subfile that cannot be deleted (a
 * directory in its place: DARRAY_EISDIR naming it, the descriptor kept,
 * and a second call finishes the set); a corrupt descriptor (its record
 * cut short, another version: DARRAY_EFORMAT, nothing deleted) and a file
 * shorter than the record's first word (a plain file); a directory that
 * is not writable (DARRAY_EACCESS, nothing deleted; as root the call runs
 * with the effective user nobody); every process deleting one set at once
 * (each DARRAY_SUCCESS or DARRAY_ENOENT, nothing left); with fault
 * injection (DARRAYIO_FAULT, op=unlink: runs in CI, where the read-only
 * directory case cannot), a set's second subfile failing with EACCES
 * (DARRAY_EACCESS naming it, the other two subfiles deleted, the
 * descriptor kept, a second call finishes the set), a plain file failing
 * with EIO (DARRAY_EIO, still there), an interrupted unlink (EINTR:
 * retried, deleted), and a malformed rule (DARRAY_EHINT, nothing
 * deleted). Run at 1 and 2 processes.
 */
#define _DEFAULT_SOURCE /* seteuid, truncate */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEL 1000 /* int64 elements: 8000 bytes, 125 stripes of 64 */
#define NOBODY 65534

static char dir[512];
static int me, deleter;

static bool exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* Subfile j of the set at path, by the documented name. */
static void sub_name(char *buf, size_t n, const char *path, int j, int s) {
  snprintf(buf, n, "%s.sub%dof%d", path, j, s);
}

/* Collective: an array written to path under hints (s > 0: a set of s
 * subfiles of 64-byte stripes). */
static void write_file(const char *path, int s) {
  char hints[128] = "";
  if (s > 0)
    snprintf(hints, sizeof hints, "darray_backend=subfiles;striping_unit=64;"
             "striping_factor=%d", s);
  int64_t n = NEL, bytes = 0;
  darray_t a = NULL;
  TU_OK(darray_create(MPI_COMM_WORLD, 1, &n, DARRAY_INT64, &a));
  TU_OK(darray_commit(a));
  TU_OK(darray_local_bytes(a, &bytes));
  char *buf = malloc((size_t)bytes + 1);
  tu_fill_bytes(buf, bytes, 7, me * bytes);
  darray_file_t f = tu_open(path, hints, DARRAY_MODE_RDWR |
                            DARRAY_MODE_CREATE | DARRAY_MODE_TRUNC);
  if (f != NULL)
    TU_OK(darray_write(f, a, buf));
  TU_OK(darray_file_close(&f));
  free(buf);
  darray_free(&a);
}

/* On the deleter: how many of path and its s subfiles exist. */
static int count_set(const char *path, int s) {
  char name[700];
  int k = exists(path);
  for (int j = 0; j < s; j++) {
    sub_name(name, sizeof name, path, j, s);
    k += exists(name);
  }
  return k;
}

/* On the deleter: nothing is left in the test's directory (what: the
 * case, in a failure). */
static void dir_empty(const char *what) {
  DIR *d = opendir(dir);
  if (!TU_CHECK(d != NULL))
    return;
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
      TU_FAIL("%s: '%s' left in %s", what, e->d_name, dir);
  closedir(d);
}

/* ---- cases (each ends with a barrier) -------------------------------- */

static void plain_file(void) {
  char p[600];
  snprintf(p, sizeof p, "%s/plain", dir);
  write_file(p, 0);
  if (me == deleter) {
    TU_CHECK(exists(p));
    TU_EQ_CODE(darray_file_delete(NULL, MPI_INFO_NULL), DARRAY_ENULL);
    TU_OK(darray_file_delete(p, MPI_INFO_NULL));
    TU_EQ_STR(darray_errmsg(NULL), ""); /* the failure before forgotten */
    TU_CHECK(!exists(p));
    /* a file shorter than the record's first word is a plain file */
    TU_EQ_INT(tu_write_file(p, "darrayio-s", 10), 0);
    TU_OK(darray_file_delete(p, MPI_INFO_NULL));
    TU_CHECK(!exists(p));
    dir_empty("plain file");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A set of s subfiles; hints given to the call (ignored). */
static void whole_set(int s, const char *hints) {
  char p[600];
  snprintf(p, sizeof p, "%s/set%d", dir, s);
  write_file(p, s);
  if (me == deleter) {
    MPI_Info info = hints ? tu_info(hints) : MPI_INFO_NULL;
    TU_EQ_INT(count_set(p, s), s + 1);
    if (!TU_OK(darray_file_delete(p, info)))
      fprintf(stderr, "  (S = %d: %s)\n", s, darray_errmsg(NULL));
    TU_EQ_INT(count_set(p, s), 0);
    dir_empty("whole set");
    if (hints)
      MPI_Info_free(&info);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void bad_paths(void) {
  char p[600], q[640];
  snprintf(p, sizeof p, "%s/nothing", dir);
  if (me == deleter) {
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_ENOENT);
    TU_CONTAINS(darray_errmsg(NULL), p);
    TU_CONTAINS(darray_errmsg(NULL), strerror(ENOENT));
    TU_EQ_CODE(darray_file_delete(NULL, MPI_INFO_NULL), DARRAY_ENULL);
    TU_CONTAINS(darray_errmsg(NULL), "path is NULL");
    /* a path through a plain file (ENOTDIR) */
    TU_EQ_INT(tu_write_file(p, "x", 1), 0);
    snprintf(q, sizeof q, "%s/x", p);
    TU_EQ_CODE(darray_file_delete(q, MPI_INFO_NULL), DARRAY_ENOENT);
    TU_CONTAINS(darray_errmsg(NULL), q);
    TU_CHECK(exists(p));
    TU_OK(darray_file_delete(p, MPI_INFO_NULL));
    /* a directory stays */
    TU_EQ_INT(mkdir(p, 0777), 0);
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_EISDIR);
    TU_CONTAINS(darray_errmsg(NULL), p);
    TU_CONTAINS(darray_errmsg(NULL), strerror(EISDIR));
    TU_CHECK(exists(p));
    TU_EQ_INT(rmdir(p), 0);
    dir_empty("bad paths");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A set of 3 whose subfiles gone[] were removed beforehand: DARRAY_ENOENT
 * naming the lowest-numbered of them (more: how many more), nothing
 * left. */
static void missing_subfiles(int ngone, const int *gone, const char *more) {
  char p[600], name[700];
  snprintf(p, sizeof p, "%s/holey", dir);
  write_file(p, 3);
  if (me == deleter) {
    for (int k = 0; k < ngone; k++) {
      sub_name(name, sizeof name, p, gone[k], 3);
      TU_EQ_INT(unlink(name), 0);
    }
    TU_EQ_INT(count_set(p, 3), 4 - ngone);
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_ENOENT);
    int first = gone[0]; /* the message names the lowest j missing */
    for (int k = 1; k < ngone; k++)
      first = gone[k] < first ? gone[k] : first;
    sub_name(name, sizeof name, p, first, 3);
    TU_CONTAINS(darray_errmsg(NULL), name);
    TU_CONTAINS(darray_errmsg(NULL), "missing");
    if (more != NULL)
      TU_CONTAINS(darray_errmsg(NULL), more);
    TU_EQ_INT(count_set(p, 3), 0);
    dir_empty("missing subfiles");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Subfile 2 of 3 a non-empty directory: DARRAY_EISDIR naming it, the
 * descriptor kept; once it is gone, a second call finishes the set. */
static void undeletable_subfile(void) {
  char p[600], name[700], inner[720];
  snprintf(p, sizeof p, "%s/stuck", dir);
  write_file(p, 3);
  if (me == deleter) {
    sub_name(name, sizeof name, p, 2, 3);
    snprintf(inner, sizeof inner, "%s/f", name);
    TU_EQ_INT(unlink(name), 0);
    TU_EQ_INT(mkdir(name, 0777), 0);
    TU_EQ_INT(tu_write_file(inner, "x", 1), 0);
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_EISDIR);
    TU_CONTAINS(darray_errmsg(NULL), name);
    TU_CONTAINS(darray_errmsg(NULL), "descriptor is kept");
    TU_CHECK(exists(p));
    TU_EQ_INT(count_set(p, 3), 2); /* the descriptor and the directory */
    TU_EQ_INT(unlink(inner), 0);
    TU_EQ_INT(rmdir(name), 0);
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_ENOENT);
    sub_name(name, sizeof name, p, 0, 3);
    TU_CONTAINS(darray_errmsg(NULL), name);
    TU_CONTAINS(darray_errmsg(NULL), "and 2 more");
    dir_empty("undeletable subfile");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A descriptor whose record is cut to len bytes (90: inside its last
 * number, where what is left still parses), or (len < 0) says version 2:
 * DARRAY_EFORMAT, the set untouched. */
static void corrupt_descriptor(int len) {
  char p[600], name[700];
  snprintf(p, sizeof p, "%s/corrupt", dir);
  write_file(p, 2);
  if (me == deleter) {
    if (len >= 0)
      TU_EQ_INT(truncate(p, len), 0);
    else
      TU_EQ_INT(tu_write_file(p, "darrayio-subfiles 2\nunit 64\n", 28), 0);
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_EFORMAT);
    TU_CONTAINS(darray_errmsg(NULL), p);
    TU_CONTAINS(darray_errmsg(NULL), "nothing deleted");
    TU_EQ_INT(count_set(p, 2), 3);
    TU_EQ_INT(unlink(p), 0);
    for (int j = 0; j < 2; j++) {
      sub_name(name, sizeof name, p, j, 2);
      TU_EQ_INT(unlink(name), 0);
    }
    dir_empty("corrupt descriptor");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The call with the effective user nobody when run as root (who may
 * write any directory); its code, or 1 when the user cannot be changed,
 * 2 when that user cannot read the descriptor (a directory above the
 * test's is closed to others, as mktemp -d makes them). */
static int delete_unprivileged(const char *path) {
  bool root = geteuid() == 0;
  if (root && seteuid(NOBODY) != 0)
    return 1;
  int fd = open(path, O_RDONLY); /* as the effective user (not access) */
  if (fd >= 0)
    close(fd);
  else {
    if (root && seteuid(0) != 0)
      TU_FAIL("seteuid(0): %s", strerror(errno));
    return 2;
  }
  int rc = darray_file_delete(path, MPI_INFO_NULL);
  if (root && seteuid(0) != 0)
    TU_FAIL("seteuid(0): %s", strerror(errno));
  return rc;
}

/* A set in a directory that is not writable: DARRAY_EACCESS naming the
 * first subfile, nothing deleted. */
static void no_permission(void) {
  char d[600], p[620];
  snprintf(d, sizeof d, "%s/ro", dir);
  snprintf(p, sizeof p, "%s/set", d);
  if (me == 0)
    TU_EQ_INT(mkdir(d, 0777), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  write_file(p, 2);
  int rc = 1;
  if (me == deleter && TU_EQ_INT(chmod(d, 0555), 0)) {
    rc = delete_unprivileged(p);
    TU_EQ_INT(chmod(d, 0777), 0);
  }
  MPI_Bcast(&rc, 1, MPI_INT, deleter, MPI_COMM_WORLD);
  if (rc == 1)
    tu_skip_part("no permission", "cannot run as the user nobody");
  else if (rc == 2)
    tu_skip_part("no permission", "the user nobody cannot reach the test's "
                 "directory");
  else if (me == deleter) {
    TU_EQ_CODE(rc, DARRAY_EACCESS);
    TU_CONTAINS(darray_errmsg(NULL), ".sub0of2");
    TU_CONTAINS(darray_errmsg(NULL), strerror(EACCES));
    TU_EQ_INT(count_set(p, 2), 3);
  }
  if (me == deleter) {
    TU_OK(darray_file_delete(p, MPI_INFO_NULL));
    TU_EQ_INT(rmdir(d), 0);
    dir_empty("no permission");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* On the deleter: darray_file_delete(path) under the fault rule spec. */
static int delete_faulty(const char *path, const char *spec) {
  setenv("DARRAYIO_FAULT", spec, 1);
  int rc = darray_file_delete(path, MPI_INFO_NULL);
  unsetenv("DARRAYIO_FAULT");
  return rc;
}

/* Injected unlink failures (the deleter alone: the call is local). */
static void unlink_faults(void) {
  if (!tu_fault_injection()) {
    tu_skip_part("unlink faults", "no --enable-fault-injection");
    return;
  }
  char p[600], name[700];
  snprintf(p, sizeof p, "%s/faulty", dir);
  write_file(p, 3);
  if (me == deleter) {
    TU_EQ_CODE(delete_faulty(p, "op=unlink,index=2,error=EACCES"),
               DARRAY_EACCESS);
    sub_name(name, sizeof name, p, 1, 3);
    TU_CONTAINS(darray_errmsg(NULL), name);
    TU_CONTAINS(darray_errmsg(NULL), "descriptor is kept");
    TU_CHECK(exists(p) && exists(name));
    TU_EQ_INT(count_set(p, 3), 2); /* the descriptor and subfile 1 */
    TU_EQ_CODE(darray_file_delete(p, MPI_INFO_NULL), DARRAY_ENOENT);
    TU_EQ_INT(count_set(p, 3), 0);
    TU_EQ_INT(tu_write_file(p, "plain", 5), 0);
    TU_EQ_CODE(delete_faulty(p, "op=unlink,error=EIO"), DARRAY_EIO);
    TU_CONTAINS(darray_errmsg(NULL), p);
    TU_CHECK(exists(p));
    TU_EQ_CODE(delete_faulty(p, "op=unlink,error=bogus"), DARRAY_EHINT);
    TU_CONTAINS(darray_errmsg(NULL), "DARRAYIO_FAULT");
    TU_CHECK(exists(p));
    TU_OK(delete_faulty(p, "op=unlink,count=3,error=EINTR"));
    TU_CHECK(!exists(p));
    dir_empty("unlink faults");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Every process deletes the same set at once: each gets DARRAY_SUCCESS or
 * DARRAY_ENOENT, and nothing is left. */
static void all_at_once(void) {
  char p[600];
  snprintf(p, sizeof p, "%s/race", dir);
  write_file(p, 3);
  int rc = darray_file_delete(p, MPI_INFO_NULL);
  if (rc != DARRAY_ENOENT)
    TU_OK(rc);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == deleter)
    dir_empty("all at once");
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  tu_init(&argc, &argv);
  me = tu_rank();
  deleter = tu_nprocs() - 1;
  if (tu_tmpname(dir, sizeof dir, "test_delete") == NULL)
    return tu_finish();
  if (me == 0) /* a directory of the test's own */
    TU_CHECK(mkdir(dir, 0777) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  plain_file();
  whole_set(1, NULL);
  whole_set(2, "darray_backend=posix");
  whole_set(3, NULL);
  bad_paths();
  missing_subfiles(1, (const int[]){1}, NULL);
  missing_subfiles(2, (const int[]){2, 0}, "and 1 more");
  undeletable_subfile();
  corrupt_descriptor(40);
  corrupt_descriptor(90);
  corrupt_descriptor(-1);
  no_permission();
  unlink_faults();
  all_at_once();
  if (me == 0)
    TU_EQ_INT(rmdir(dir), 0);
  return tu_finish();
}
