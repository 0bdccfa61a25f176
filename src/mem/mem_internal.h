/* Helpers shared by the memory layer's files (not part of its contract).
 *
 * Time: every condition variable here is created on CLOCK_MONOTONIC, so a
 * wall-clock jump can neither cut a timed wait short nor stretch it. */
#ifndef ZKP_MEM_MEM_INTERNAL_H
#define ZKP_MEM_MEM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/alloc.h"
#include "zkpipe/zkpipe.h"

/* Reads a small file (procfs and sysfs report no size, so it reads until
 * EOF) into buf[0..cap), NUL-terminated. 0, or an errno value (EFBIG when it
 * does not fit). */
int zkp_mem_read_small_file(const char *path, char *buf, size_t cap);

/* The value of a "Key:   1234 kB" line (/proc/meminfo, /proc/self/status),
 * in bytes. ZKPIPE_ERR_PARSE when the line is absent or malformed. */
zkpipe_status zkp_mem_parse_kib_field(const char *text, const char *key, uint64_t *out);

/* A category a buffer may be allocated under: POOL_IDLE is the pool's own
 * bookkeeping of regions nobody holds. */
static inline int zkp_mem_category_is_buffer(zkp_mem_category cat) {
    return (unsigned)cat < (unsigned)ZKP_MEM_CATEGORY_COUNT && cat != ZKP_MEM_POOL_IDLE;
}

/* Memory that is not the pool's (a mapped file's pages) about to become
 * resident under a reservation obeys the pool's exchange rule too: idle
 * regions worth bytes are unmapped first (mem.h: zkp_mem_charge_external),
 * so mapped plus external bytes stay within the peak of what reservations
 * hold. Waits for the trimmer. */
struct zkp_mem_pool;
struct zkp_mem_tracker;
void zkp_mem_pool_make_room(struct zkp_mem_pool *pool, uint64_t bytes);
struct zkp_mem_tracker *zkp_mem_pool_tracker(const struct zkp_mem_pool *pool);

#define ZKP_NS_PER_MS 1000000ull
#define ZKP_NS_PER_S 1000000000ull

static inline uint64_t zkp_mem_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * ZKP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static inline struct timespec zkp_mem_timespec_at(uint64_t deadline_ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / ZKP_NS_PER_S);
    ts.tv_nsec = (long)(deadline_ns % ZKP_NS_PER_S);
    return ts;
}

/* A condition variable whose timed waits take CLOCK_MONOTONIC deadlines. */
static inline int zkp_mem_cond_init_monotonic(pthread_cond_t *cv) {
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc != 0) return rc;
    rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

/* Waits on cv until signalled or until deadline_ns (monotonic). */
static inline void zkp_mem_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
                                           uint64_t deadline_ns) {
    struct timespec ts = zkp_mem_timespec_at(deadline_ns);
    (void)pthread_cond_timedwait(cv, mu, &ts);
}

#endif
