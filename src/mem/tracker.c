/* Per-category byte accounting in atomics.
 *
 * Relaxed atomics suffice: the counters order nothing, they only count, and
 * each update is one read-modify-write, so no count is ever lost. A
 * discharge is a compare-and-swap loop rather than a subtraction so that an
 * unbalanced call is refused instead of wrapping the counter around. */
#include <stdatomic.h>
#include <stdlib.h>

#include "mem/mem.h"

typedef struct {
    atomic_uint_fast64_t live_bytes;
    atomic_uint_fast64_t peak_bytes;
    atomic_uint_fast64_t live_count;
} zkp_mem_counter;

struct zkp_mem_tracker {
    zkp_mem_counter cat[ZKP_MEM_CATEGORY_COUNT];
    atomic_uint_fast64_t total_live_bytes;
    atomic_uint_fast64_t total_peak_bytes;
};

static int category_valid(zkp_mem_category cat) {
    return (unsigned)cat < (unsigned)ZKP_MEM_CATEGORY_COUNT;
}

static void raise_peak(atomic_uint_fast64_t *peak, uint64_t value) {
    uint_fast64_t seen = atomic_load_explicit(peak, memory_order_relaxed);
    while (seen < value && !atomic_compare_exchange_weak_explicit(
                               peak, &seen, value, memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* Subtracts bytes from *v unless that would go below zero. */
static int subtract_if_enough(atomic_uint_fast64_t *v, uint64_t bytes) {
    uint_fast64_t seen = atomic_load_explicit(v, memory_order_relaxed);
    do {
        if (seen < bytes) return 0;
    } while (!atomic_compare_exchange_weak_explicit(v, &seen, seen - bytes, memory_order_relaxed,
                                                    memory_order_relaxed));
    return 1;
}

zkpipe_status zkp_mem_tracker_create(zkp_mem_tracker **out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_tracker *t = malloc(sizeof *t);
    *out = t;
    if (!t) return ZKPIPE_ERR_NO_MEMORY;
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++) {
        atomic_init(&t->cat[c].live_bytes, 0);
        atomic_init(&t->cat[c].peak_bytes, 0);
        atomic_init(&t->cat[c].live_count, 0);
    }
    atomic_init(&t->total_live_bytes, 0);
    atomic_init(&t->total_peak_bytes, 0);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_tracker_destroy(zkp_mem_tracker **t) {
    if (!t) return ZKPIPE_ERR_INVALID_ARGUMENT;
    free(*t);
    *t = NULL;
    return ZKPIPE_OK;
}

/* Adds bytes, and buffers to the count, to one category alone. */
static void counter_add_(zkp_mem_counter *c, uint64_t bytes, uint64_t buffers) {
    uint64_t live = atomic_fetch_add_explicit(&c->live_bytes, bytes, memory_order_relaxed) + bytes;
    if (buffers) atomic_fetch_add_explicit(&c->live_count, buffers, memory_order_relaxed);
    raise_peak(&c->peak_bytes, live);
}

/* Takes bytes and buffers from one category alone; 0, nothing changed,
 * when it holds fewer. */
static int counter_take_(zkp_mem_counter *c, uint64_t bytes, uint64_t buffers) {
    if (!subtract_if_enough(&c->live_count, buffers)) return 0;
    if (subtract_if_enough(&c->live_bytes, bytes)) return 1;
    atomic_fetch_add_explicit(&c->live_count, buffers, memory_order_relaxed);
    return 0;
}

/* Adds bytes to cat, and one buffer when buffers is 1. */
static zkpipe_status charge_(zkp_mem_tracker *t, zkp_mem_category cat, uint64_t bytes,
                             uint64_t buffers) {
    if (!t || !category_valid(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    counter_add_(&t->cat[cat], bytes, buffers);
    uint64_t total =
        atomic_fetch_add_explicit(&t->total_live_bytes, bytes, memory_order_relaxed) + bytes;
    raise_peak(&t->total_peak_bytes, total);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_tracker_charge(zkp_mem_tracker *t, zkp_mem_category cat, uint64_t bytes) {
    return charge_(t, cat, bytes, 1);
}

zkpipe_status zkp_mem_tracker_charge_more(zkp_mem_tracker *t, zkp_mem_category cat,
                                          uint64_t bytes) {
    return charge_(t, cat, bytes, 0);
}

/* Removes bytes from cat, and one buffer when buffers is 1. */
static zkpipe_status discharge_(zkp_mem_tracker *t, zkp_mem_category cat, uint64_t bytes,
                                uint64_t buffers) {
    if (!t || !category_valid(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (!counter_take_(&t->cat[cat], bytes, buffers)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    /* The category's bytes are part of the total, so the total has them. */
    atomic_fetch_sub_explicit(&t->total_live_bytes, bytes, memory_order_relaxed);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_tracker_discharge(zkp_mem_tracker *t, zkp_mem_category cat, uint64_t bytes) {
    return discharge_(t, cat, bytes, 1);
}

zkpipe_status zkp_mem_tracker_discharge_less(zkp_mem_tracker *t, zkp_mem_category cat,
                                             uint64_t bytes) {
    return discharge_(t, cat, bytes, 0);
}

zkpipe_status zkp_mem_tracker_move(zkp_mem_tracker *t, zkp_mem_category from,
                                   zkp_mem_category to, uint64_t bytes) {
    if (!t || !category_valid(from) || !category_valid(to)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    /* The destination first: a snapshot between the two steps sees the
     * buffer in both categories, never in neither, and the total, which
     * the RSS is compared with, not at all. */
    counter_add_(&t->cat[to], bytes, 1);
    if (counter_take_(&t->cat[from], bytes, 1)) return ZKPIPE_OK;
    /* Taken back: just added, so it holds them. */
    (void)counter_take_(&t->cat[to], bytes, 1);
    return ZKPIPE_ERR_INVALID_ARGUMENT;
}

zkpipe_status zkp_mem_tracker_snapshot(const zkp_mem_tracker *t, zkp_mem_snapshot *out) {
    if (!t || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++) {
        out->cat[c].live_bytes = atomic_load_explicit(&t->cat[c].live_bytes, memory_order_relaxed);
        out->cat[c].peak_bytes = atomic_load_explicit(&t->cat[c].peak_bytes, memory_order_relaxed);
        out->cat[c].live_count = atomic_load_explicit(&t->cat[c].live_count, memory_order_relaxed);
    }
    out->total_live_bytes = atomic_load_explicit(&t->total_live_bytes, memory_order_relaxed);
    out->total_peak_bytes = atomic_load_explicit(&t->total_peak_bytes, memory_order_relaxed);
    return ZKPIPE_OK;
}
