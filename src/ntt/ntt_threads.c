/* The NTT layer's thread driver: each pass of a plan is one fork-join call
 * of util/parallel.h, whose join is the barrier that makes every write of
 * pass k visible to pass k+1. Within a pass, chunks touch disjoint elements
 * and the plan itself is only read, so the result never depends on which
 * thread ran which chunk. */
#include "ntt/ntt_common.h"
#include "util/parallel.h"

typedef struct {
    const void *plan;
    unsigned pass;
    zkp_ntt_chunk_fn fn;
} zkp_ntt_pass_job;

static void zkp_ntt_chunk_unit(void *ctx, unsigned tid, size_t chunk) {
    const zkp_ntt_pass_job *job = ctx;
    (void)tid;
    job->fn(job->plan, job->pass, chunk);
}

void zkp_ntt_run_passes_mt(const void *plan, unsigned npasses, const size_t *nchunks,
                           zkp_ntt_chunk_fn fn, unsigned nthreads) {
    for (unsigned pass = 0; pass < npasses; pass++) {
        zkp_ntt_pass_job job = {plan, pass, fn};
        zkp_parallel_for(nthreads, nchunks[pass], zkp_ntt_chunk_unit, &job);
    }
}
