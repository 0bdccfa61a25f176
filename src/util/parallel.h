/* The one fork-join driver the math layers share.
 *
 * zkp_parallel_for runs fn(ctx, tid, unit) for every unit in [0, nunits) on
 * up to nthreads threads: the caller's (tid 0) and nthreads - 1 pthreads it
 * creates, hands units out one at a time through an atomic counter, and
 * joins every thread before it returns, so all writes of the call are
 * visible to the caller afterwards and nothing it creates outlives it. tid
 * is below nthreads and no two threads share one, so a unit may use
 * per-thread scratch indexed by tid. If a thread cannot be created the
 * others run its share, so results never depend on it.
 *
 * Starting threads costs tens of microseconds per call, against
 * milliseconds of work per call where the layers use it. The engine runs
 * the same units on its resident workers instead, through the layers'
 * range functions. */
#ifndef ZKP_UTIL_PARALLEL_H
#define ZKP_UTIL_PARALLEL_H

#include <stddef.h>

typedef void (*zkp_unit_fn)(void *ctx, unsigned tid, size_t unit);

/* The threads are capped so the table of them lives on the stack. */
#define ZKP_PARALLEL_MAX_THREADS 256

void zkp_parallel_for(unsigned nthreads, size_t nunits, zkp_unit_fn fn, void *ctx);

#endif
