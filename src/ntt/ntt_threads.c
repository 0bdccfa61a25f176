/* The NTT layer's thread driver.
 *
 * DESIGN (threads). zkp_ntt_run_passes_mt is the only place this layer
 * creates threads, and nothing it creates outlives the call. For each pass
 * of a plan it starts up to nthreads - 1 pthreads, works on the calling
 * thread too, and joins them all before the next pass begins: the join is
 * the barrier that makes every write of pass k visible to pass k+1. Within
 * a pass the chunks are handed out one at a time through an atomic
 * counter, so which thread runs a chunk varies from run to run, but every
 * chunk runs exactly once and chunks of one pass touch disjoint elements;
 * the plan itself is only read. Starting threads per pass costs tens of
 * microseconds, against milliseconds of work per pass at the sizes where
 * threads help; an engine with a resident pool drives the same chunks
 * through F_ntt_run_range instead. */
#include <pthread.h>
#include <stdatomic.h>

#include "ntt/ntt_common.h"

/* A pass has no use for more threads than it has chunks, and the table of
 * threads lives on the stack. */
#define ZKP_NTT_MAX_THREADS 256

typedef struct {
    const void *plan;
    unsigned pass;
    size_t nchunks;
    zkp_ntt_chunk_fn fn;
    atomic_size_t next;
} zkp_ntt_job;

static void zkp_ntt_work(zkp_ntt_job *job) {
    for (;;) {
        size_t ch = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (ch >= job->nchunks) return;
        job->fn(job->plan, job->pass, ch);
    }
}

static void *zkp_ntt_thread_main(void *arg) {
    zkp_ntt_work(arg);
    return NULL;
}

void zkp_ntt_run_passes_mt(const void *plan, unsigned npasses, const size_t *nchunks,
                           zkp_ntt_chunk_fn fn, unsigned nthreads) {
    if (nthreads > ZKP_NTT_MAX_THREADS) nthreads = ZKP_NTT_MAX_THREADS;
    for (unsigned pass = 0; pass < npasses; pass++) {
        zkp_ntt_job job;
        job.plan = plan;
        job.pass = pass;
        job.nchunks = nchunks[pass];
        job.fn = fn;
        atomic_init(&job.next, 0);
        unsigned want = nthreads;
        if (job.nchunks < want) want = (unsigned)job.nchunks;
        pthread_t th[ZKP_NTT_MAX_THREADS];
        unsigned started = 0;
        for (unsigned t = 1; t < want; t++) {
            if (pthread_create(&th[started], NULL, zkp_ntt_thread_main, &job) != 0) break;
            started++;
        }
        zkp_ntt_work(&job);
        for (unsigned t = 0; t < started; t++) pthread_join(th[t], NULL);
    }
}
