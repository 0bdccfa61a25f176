/* Deadlines for pthread_cond_timedwait, which takes CLOCK_REALTIME. */
#ifndef ZKP_UTIL_CLOCK_H
#define ZKP_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* *ts = now (CLOCK_REALTIME) + ms milliseconds (ms >= 0). */
static inline void zkp_realtime_after_ms(struct timespec *ts, int64_t ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

#endif
