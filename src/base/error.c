/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * error.c - status codes, messages, and the collective agreement on a result.
 */
#include "agree.h"

#include <stdio.h>
#include <string.h>

const char *darray_strerror(int code) {
#define DARRAY__TEXT_CASE(name, value, text)                                   \
  case value:                                                                  \
    return text;
  switch (code) { DARRAY_ERROR_TABLE(DARRAY__TEXT_CASE) }
#undef DARRAY__TEXT_CASE
  return "unknown error code";
}

const char *darray_err_name(int code) {
#define DARRAY__NAME_CASE(name, value, text)                                   \
  case value:                                                                  \
    return #name;
  switch (code) { DARRAY_ERROR_TABLE(DARRAY__NAME_CASE) }
#undef DARRAY__NAME_CASE
  return "DARRAY_EUNKNOWN";
}

int darray__mpi_ready(char *msg) {
  int init = 0, fin = 0;
  MPI_Initialized(&init); /* both may be called before MPI_Init */
  MPI_Finalized(&fin);
  if (!init)
    return darray__err(msg, DARRAY_EMPI, "MPI is not initialized: call "
                                         "MPI_Init first");
  if (fin)
    return darray__err(msg, DARRAY_EMPI, "MPI has been finalized");
  return DARRAY_SUCCESS;
}

/* The thread's index style (darray_set_index_style): thread-local, so
 * that a Fortran call in one thread never changes another thread's C
 * messages. */
static _Thread_local int index_style = DARRAY_INDEX_C;

int darray_set_index_style(int style) {
  if (style != DARRAY_INDEX_C && style != DARRAY_INDEX_FORTRAN)
    return DARRAY_EINVAL;
  int old = index_style;
  index_style = style;
  return old;
}

bool darray__fortran(void) { return index_style == DARRAY_INDEX_FORTRAN; }

long long darray__ix(bool fortran, int64_t i) {
  return (long long)i + (fortran ? 1 : 0);
}

const char *darray__ix_arg(bool fortran, const char *name, int64_t i,
                           char *buf) {
  snprintf(buf, DARRAY_IX_LEN, fortran ? "%s(%lld)" : "%s[%lld]", name,
           darray__ix(fortran, i));
  return buf;
}

const char *darray__ix_range(bool fortran, int64_t n, char *buf) {
  snprintf(buf, DARRAY_IX_LEN, fortran ? "[1, %lld]" : "[0, %lld)",
           (long long)n);
  return buf;
}

char *darray__errbuf_nohandle(void) {
  static _Thread_local char buf[DARRAY_ERRMSG_LEN];
  return buf;
}

int darray__err(char *buf, int code, const char *fmt, ...) {
  if (buf == NULL)
    return code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, DARRAY_ERRMSG_LEN, fmt, ap);
  va_end(ap);
  return code;
}

/* Where to cut s (of length len) at most `room` characters from its end:
 * at the first `sep` of that stretch, when there is one. */
static size_t tail_start(const char *s, size_t len, size_t room, char sep) {
  size_t t = len - room;
  const char *p = memchr(s + t, sep, room);
  return p != NULL && p < s + len - 1 ? (size_t)(p - s) : t;
}

/* s shortened to at most max characters (max >= 8) by replacing its
 * middle with "...": a third of the room for its start, cut after a `sep`
 * when one lies there, the rest for its end, cut before one. */
static const char *elide(const char *s, size_t max, char sep, char *buf,
                         size_t n) {
  size_t len = strlen(s);
  if (max > n - 1)
    max = n - 1;
  if (len <= max || max < 8) {
    snprintf(buf, n, "%s", s);
    return buf;
  }
  size_t head = max / 3, h = head;
  while (h > 1 && s[h - 1] != sep)
    h--;
  if (h > 1)
    head = h;
  size_t t = tail_start(s, len, max - head - 3, sep);
  snprintf(buf, n, "%.*s...%s", (int)head, s, s + t);
  return buf;
}

const char *darray__short_path(const char *path, char *buf, size_t n) {
  return elide(path, DARRAY_PATH_SHOWN, '/', buf, n);
}

const char *darray__short_text(const char *text, size_t max, char *buf,
                               size_t n) {
  return elide(text, max, ' ', buf, n);
}

static _Thread_local int64_t *coll_counter;

int64_t *darray__coll_into(int64_t *counter) {
  int64_t *prev = coll_counter;
  coll_counter = counter;
  return prev;
}

void darray__coll(void) {
  if (coll_counter != NULL)
    (*coll_counter)++;
}

/* Longest failure message passed between processes: the failing
 * process's own message, less room for the words put before it. */
#define DARRAY_REMOTE_MSG (DARRAY_ERRMSG_LEN - 64)

/*
 * Every process learns why the call failed, not only where: the process
 * whose failure won the agreement (the most negative code, the lowest rank
 * among equals) sends its message to all, and a process that did not fail
 * itself says "failed on rank R: <R's message>". A process that failed too
 * keeps its own message. On the failure path only, so a call that succeeds
 * pays nothing for it; every process reaches it, since the agreed code is
 * the same everywhere.
 */
static int tell_failure(MPI_Comm comm, int code, int agreed, int who,
                        int rank, char *msg) {
  char text[DARRAY_REMOTE_MSG];
  text[0] = '\0';
  if (rank == who && msg != NULL)
    snprintf(text, sizeof text, "%s", msg);
  MPI_Request req;
  darray__coll();
  bool sent = MPI_Ibcast(text, (int)sizeof text, MPI_CHAR, who, comm,
                         &req) == MPI_SUCCESS &&
              darray__wait(&req) == DARRAY_SUCCESS;
  text[sizeof text - 1] = '\0';
  if (code == DARRAY_SUCCESS)
    darray__err(msg, agreed, "failed on rank %d: %s", who,
                sent && text[0] != '\0' ? text : darray_strerror(agreed));
  return agreed;
}

/*
 * One MPI_Allreduce(MAX) carries both the result and a consistency check:
 * element 0 encodes (-code, rank) so that the most negative code wins and,
 * among equal codes, the lowest rank; then come the values and their
 * bitwise complements, whose maxima give each value's maximum and minimum;
 * last, with least, its negation, whose maximum gives its minimum.
 */
static int agree(MPI_Comm comm, int code, char *msg, const int64_t *vals,
                 int n, int *bad, int *late, int64_t *least) {
  enum { MAXV = 32 };
  int64_t in[2 + 2 * MAXV], out[2 + 2 * MAXV];
  int rank;
  if (n > MAXV)
    n = MAXV;
  MPI_Comm_rank(comm, &rank);
  in[0] = ((int64_t)(-code) << 32) | (int64_t)(INT32_MAX - rank);
  for (int i = 0; i < n; i++) {
    in[1 + i] = vals[i];
    in[1 + n + i] = ~vals[i];
  }
  in[1 + 2 * n] = least != NULL ? -*least : 0;
  int len = 1 + 2 * n + (least != NULL);
  MPI_Request req;
  darray__coll();
  if (MPI_Iallreduce(in, out, len, MPI_INT64_T, MPI_MAX, comm, &req) !=
          MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS) {
    if (least != NULL)
      *least = 0;
    if (late == NULL)
      return darray__err(msg, DARRAY_EMPI, "MPI_Allreduce failed while "
                                           "agreeing on the result");
    if (code == DARRAY_SUCCESS)
      *late = darray__err(msg, DARRAY_EMPI, "MPI_Allreduce failed while "
                                            "agreeing on the arguments");
    return code; /* as if every process had agreed on this one's code */
  }
  int agreed = (int)-(out[0] >> 32);
  int who = INT32_MAX - (int)(out[0] & 0xffffffff);
  if (least != NULL)
    *least = -out[1 + 2 * n];
  if (agreed != DARRAY_SUCCESS)
    return tell_failure(comm, code, agreed, who, rank, msg);
  for (int i = 0; i < n; i++)
    if (out[1 + i] != ~out[1 + n + i]) {
      if (bad != NULL)
        *bad = i;
      return DARRAY_EINCONSISTENT;
    }
  return DARRAY_SUCCESS;
}

int darray__agree_check(MPI_Comm comm, int code, char *msg,
                        const int64_t *vals, int n, int *bad) {
  return agree(comm, code, msg, vals, n, bad, NULL, NULL);
}

/*
 * An agreement that the call's own collectives follow. When its allreduce
 * fails on this process only, the others may have agreed on success and
 * gone on to the next collective, which this process must then join:
 * stopping here would leave them waiting, or pair their next collective
 * with this process's next call. So it goes on as if every process had
 * agreed on its own code, and gives DARRAY_EMPI to the call's next
 * agreement, where every process learns it. (A second failure at once, an
 * argument refused elsewhere, cannot be told apart; doc/reliability.md.)
 */
int darray__agree_first(MPI_Comm comm, int code, char *msg,
                        const int64_t *vals, int n, int *bad, int *late) {
  return agree(comm, code, msg, vals, n, bad, late, NULL);
}

int darray__agree_batch(MPI_Comm comm, int code, char *msg,
                        const int64_t *vals, int n, int *bad, int *late,
                        int64_t *least) {
  return agree(comm, code, msg, vals, n, bad, late, least);
}

int darray__agree(MPI_Comm comm, int code, char *msg) {
  return agree(comm, code, msg, NULL, 0, NULL, NULL, NULL);
}

/* One request's slots in darray__agree_each: its code as agree's element
 * 0, its values, their complements. */
static void each_in(int64_t *in, int code, int rank, const int64_t *vals,
                    int nv) {
  in[0] = ((int64_t)(-code) << 32) | (int64_t)(INT32_MAX - rank);
  for (int j = 0; j < nv; j++) {
    in[1 + j] = vals[j];
    in[1 + nv + j] = ~vals[j];
  }
}

/*
 * Many agreements in one MPI_Allreduce(MAX): agree's encoding, one slot
 * of 1 + 2 nv numbers per request. Then, in request order, each failed
 * request's message goes from its failing rank to the others (the agreed
 * codes are the same everywhere, so every process makes the same
 * broadcasts).
 */
int darray__agree_each(MPI_Comm comm, int n, int *codes, char *const *msgs,
                       const int64_t *vals, int nv, int *bads) {
  enum { W = 1 + 2 * DARRAY_AGREE_EACH_VALS };
  int64_t in[DARRAY_AGREE_EACH_MAX * W], out[DARRAY_AGREE_EACH_MAX * W];
  int rank, w = 1 + 2 * nv;
  if (n > DARRAY_AGREE_EACH_MAX || nv > DARRAY_AGREE_EACH_VALS)
    return DARRAY_EINVAL; /* the callers' bounds: never */
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < n; i++) /* vals may be NULL when nv = 0 */
    each_in(in + i * w, codes[i], rank, nv > 0 ? vals + i * nv : NULL, nv);
  MPI_Request req;
  darray__coll();
  if (MPI_Iallreduce(in, out, n * w, MPI_INT64_T, MPI_MAX, comm, &req) !=
          MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return DARRAY_EMPI;
  for (int i = 0; i < n; i++) {
    const int64_t *o = out + i * w;
    int agreed = (int)-(o[0] >> 32);
    int who = INT32_MAX - (int)(o[0] & 0xffffffff);
    if (agreed != DARRAY_SUCCESS) {
      codes[i] = tell_failure(comm, codes[i], agreed, who, rank, msgs[i]);
      continue;
    }
    codes[i] = DARRAY_SUCCESS;
    for (int j = 0; j < nv && codes[i] == DARRAY_SUCCESS; j++)
      if (o[1 + j] != ~o[1 + nv + j]) {
        bads[i] = j;
        codes[i] = DARRAY_EINCONSISTENT;
      }
  }
  return DARRAY_SUCCESS;
}

/* Room for one process's value in words (darray__agree_differ). */
#define DARRAY_VALUE_TEXT 160

/* Broadcast text (DARRAY_VALUE_TEXT bytes) and a value from root. */
static bool bcast_value(MPI_Comm comm, int root, char *text, int64_t *v) {
  MPI_Request req[2];
  darray__coll();
  darray__coll();
  bool ok = MPI_Ibcast(text, DARRAY_VALUE_TEXT, MPI_CHAR, root, comm,
                       &req[0]) == MPI_SUCCESS &&
            MPI_Ibcast(v, 1, MPI_INT64_T, root, comm, &req[1]) ==
                MPI_SUCCESS &&
            darray__wait_all(2, req) == DARRAY_SUCCESS;
  text[DARRAY_VALUE_TEXT - 1] = '\0';
  return ok;
}

int darray__agree_differ(MPI_Comm comm, int64_t mine, const char *text,
                         char *out, size_t n) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char t0[DARRAY_VALUE_TEXT], tr[DARRAY_VALUE_TEXT];
  int64_t v0 = mine, vr = mine;
  snprintf(t0, sizeof t0, "%s", text);
  snprintf(tr, sizeof tr, "%s", text);
  if (!bcast_value(comm, 0, t0, &v0))
    return DARRAY_EMPI;
  int cand = mine != v0 ? rank : INT32_MAX, r = INT32_MAX;
  MPI_Request req;
  darray__coll();
  if (MPI_Iallreduce(&cand, &r, 1, MPI_INT, MPI_MIN, comm, &req) !=
          MPI_SUCCESS ||
      darray__wait(&req) != DARRAY_SUCCESS)
    return DARRAY_EMPI;
  if (r == INT32_MAX) /* the difference lies elsewhere */
    return DARRAY_SUCCESS;
  if (!bcast_value(comm, r, tr, &vr))
    return DARRAY_EMPI;
  size_t len = strlen(out);
  if (len < n)
    snprintf(out + len, n - len, ": rank 0 has %s, rank %d has %s", t0, r,
             tr);
  return DARRAY_SUCCESS;
}
