/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * async_api.c - the nonblocking read and write entry points (darray_iwrite,
 * darray_iread, darray_bwrite and their _section forms): each posts a
 * request (darray__async_post, async.c); darray_wait and darray_test
 * complete it (async_complete.c). The blocking calls are in darray_xfer.c.
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
