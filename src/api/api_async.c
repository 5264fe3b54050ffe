/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * api_async.c - the public nonblocking calls: darray_iwrite, darray_iread,
 * darray_bwrite and their _section forms post a request
 * (darray__async_post, async/async.c); darray_file_isync posts a sync;
 * darray_wait, darray_test and darray_wait_all complete requests
 * (async/async_complete.c). Each forwards to src/async (doc/rooms.md);
 * the blocking calls are in darray_xfer.c.
 */
#include "async/async.h"

int darray_iwrite(darray_file_t f, darray_t a, const void *buf,
                  darray_request_t *req) {
  return darray__async_post(f, a, (void *)buf, true, NULL, false, req, NULL);
}

int darray_iread(darray_file_t f, darray_t a, void *buf,
                 darray_request_t *req) {
  return darray__async_post(f, a, buf, false, NULL, false, req, NULL);
}

int darray_bwrite(darray_file_t f, darray_t a, const void *buf,
                  darray_request_t *req) {
  return darray__async_post(f, a, (void *)buf, true, NULL, true, req, NULL);
}

int darray_iwrite_section(darray_file_t f, darray_t a, const int64_t start[],
                          const int64_t count[], darray_order_t order,
                          const void *buf, darray_request_t *req) {
  region_t g = {start, count, order};
  return darray__async_post(f, a, (void *)buf, true, &g, false, req, NULL);
}

int darray_iread_section(darray_file_t f, darray_t a, const int64_t start[],
                         const int64_t count[], darray_order_t order,
                         void *buf, darray_request_t *req) {
  region_t g = {start, count, order};
  return darray__async_post(f, a, buf, false, &g, false, req, NULL);
}

int darray_bwrite_section(darray_file_t f, darray_t a, const int64_t start[],
                          const int64_t count[], darray_order_t order,
                          const void *buf, darray_request_t *req) {
  region_t g = {start, count, order};
  return darray__async_post(f, a, (void *)buf, true, &g, true, req, NULL);
}

int darray_file_isync(darray_file_t f, darray_request_t *req) {
  return darray__async_isync(f, req);
}

int darray_wait(darray_file_t f, darray_request_t *req) {
  return darray__async_wait(f, req);
}

int darray_test(darray_file_t f, darray_request_t *req, int *flag) {
  return darray__async_test(f, req, flag);
}

int darray_wait_all(darray_file_t f, int n, darray_request_t reqs[],
                    int codes[]) {
  return darray__async_wait_all(f, n, reqs, codes);
}
