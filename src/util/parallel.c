#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
    zkp_unit_fn fn;
    void *ctx;
    size_t nunits;
    atomic_size_t next;
} zkp_parallel_job;

typedef struct {
    zkp_parallel_job *job;
    unsigned tid;
} zkp_parallel_worker;

static void zkp_parallel_work(zkp_parallel_job *job, unsigned tid) {
    for (;;) {
        size_t u = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (u >= job->nunits) return;
        job->fn(job->ctx, tid, u);
    }
}

static void *zkp_parallel_thread_main(void *arg) {
    zkp_parallel_worker *w = arg;
    zkp_parallel_work(w->job, w->tid);
    return NULL;
}

void zkp_parallel_for(unsigned nthreads, size_t nunits, zkp_unit_fn fn, void *ctx) {
    zkp_parallel_job job;
    job.fn = fn;
    job.ctx = ctx;
    job.nunits = nunits;
    atomic_init(&job.next, 0);
    if (nthreads > ZKP_PARALLEL_MAX_THREADS) nthreads = ZKP_PARALLEL_MAX_THREADS;
    if (nunits < nthreads) nthreads = (unsigned)nunits;
    pthread_t th[ZKP_PARALLEL_MAX_THREADS];
    zkp_parallel_worker workers[ZKP_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 1; t < nthreads; t++) {
        workers[started].job = &job;
        workers[started].tid = t;
        if (pthread_create(&th[started], NULL, zkp_parallel_thread_main, &workers[started]) != 0)
            break;
        started++;
    }
    zkp_parallel_work(&job, 0);
    for (unsigned t = 0; t < started; t++) pthread_join(th[t], NULL);
}
