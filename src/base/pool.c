/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * pool.c - the library's threads: they serve files' requests
 * (src/async/async_thread.c) and compute a write's CRC share beside it
 * (src/crc/crc_share.c).
 *
 * Each file with requests has a thread of its own, so that requests of
 * different files never wait for one another (collectives of two files may
 * be posted in different orders on different processes); but a thread
 * outlives the file: when the file closes, its thread waits in this pool
 * for the next file. Creating a thread per file cost its first request up
 * to 0.1-0.2 s here (measured: DIST3D N=256, one process, a new file per
 * write), while the new thread and the program's computing thread shared
 * one core until the scheduler moved one of them; a thread that has run
 * before keeps its core. At MPI_Finalize, once every file is closed
 * (darray_final.c), the pool's threads end (darray__pool_stop).
 */
#include "pool.h"
#include "agree.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct worker {
  pthread_t t;
  pthread_cond_t cv;
  void (*serve)(void *);
  void *q; /* what it serves now; NULL: idle */
  struct worker *next, *next_all;
} worker_t;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_back = PTHREAD_COND_INITIALIZER;
static worker_t *idle; /* the pool: idle workers */
static worker_t *all;  /* every worker */
static bool stopping;  /* MPI_Finalize: an idle worker ends */

/* w, idle, leaves the pool and the list of every worker (under
 * pool_mu). */
static void leave(worker_t *w) {
  worker_t **p = &idle;
  while (*p != w)
    p = &(*p)->next;
  *p = w->next;
  for (p = &all; *p != w; p = &(*p)->next_all)
    ;
  *p = w->next_all;
  pthread_cond_broadcast(&pool_back);
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  darray__wait_sleeps(true);
  pthread_mutex_lock(&pool_mu);
  for (;;) {
    while (w->q == NULL && !stopping)
      pthread_cond_wait(&w->cv, &pool_mu);
    if (w->q == NULL) /* stopping: the thread ends */
      break;
    void *q = w->q;
    void (*serve)(void *) = w->serve;
    pthread_mutex_unlock(&pool_mu);
    serve(q); /* until the file lets it go; its last touch of q */
    pthread_mutex_lock(&pool_mu);
    w->q = NULL;
    w->next = idle;
    idle = w;
    pthread_cond_broadcast(&pool_back);
  }
  leave(w);
  pthread_mutex_unlock(&pool_mu);
  pthread_cond_destroy(&w->cv);
  free(w);
  return NULL;
}

int darray__pool_start(void (*serve)(void *), void *q) {
  pthread_mutex_lock(&pool_mu);
  worker_t *w = idle;
  if (w != NULL) {
    idle = w->next;
    w->serve = serve;
    w->q = q;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&pool_mu);
    return 0;
  }
  pthread_mutex_unlock(&pool_mu);
  w = calloc(1, sizeof *w);
  if (w == NULL)
    return -1;
  pthread_cond_init(&w->cv, NULL);
  w->serve = serve;
  w->q = q;
  pthread_mutex_lock(&pool_mu); /* on `all` before it can leave it */
  int e = pthread_create(&w->t, NULL, worker_main, w);
  if (e == 0) {
    pthread_detach(w->t);
    w->next_all = all;
    all = w;
  }
  pthread_mutex_unlock(&pool_mu);
  if (e != 0) {
    pthread_cond_destroy(&w->cv);
    free(w);
    return -1;
  }
  return 0;
}

void darray__pool_stop(void) {
  pthread_mutex_lock(&pool_mu);
  stopping = true;
  for (worker_t *w = idle; w != NULL; w = w->next)
    pthread_cond_signal(&w->cv);
  while (idle != NULL)
    pthread_cond_wait(&pool_back, &pool_mu);
  pthread_mutex_unlock(&pool_mu);
}

void darray__pool_wait(const void *q) {
  pthread_mutex_lock(&pool_mu);
  for (;;) {
    const worker_t *w = all;
    while (w != NULL && w->q != q)
      w = w->next_all;
    if (w == NULL)
      break;
    pthread_cond_wait(&pool_back, &pool_mu);
  }
  pthread_mutex_unlock(&pool_mu);
}
