/* The budget and its reservations: admission by bytes.
 *
 * Admission. Requests wait in one queue per priority. Only the first
 * request in (priority, arrival) order may be granted, and only when its
 * bytes fit; so a big request at the head holds back smaller ones behind
 * it instead of being overtaken forever. Whoever returns bytes to the
 * budget grants waiters, under the lock and in order, before it lets go:
 * the grant is decided there and then, not left to whichever waiter wakes
 * first. Each waiter has its own condition variable, so a release wakes
 * only the requests it granted.
 *
 * Reservations. A reservation is the only way to allocate, and it charges
 * every buffer to itself. Bytes go back to the budget only through
 * zkp_mem_release_part (from the unallocated remainder) or zkp_mem_release
 * (when nothing is allocated): there is no way to give back bytes whose
 * data still exists. Allocation and free touch only the reservation's
 * atomics and the pool, never the budget's lock. (A build with the control
 * run's fault, ZKPIPE_FAULT_EARLY_RELEASE, adds the one exception on
 * purpose: zkp_mem_fault_release_early.) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

/* How often a waiter with a cancel flag looks at it. */
#define CANCEL_POLL_MS 10

typedef struct zkp_mem_waiter {
    uint64_t bytes;
    uint64_t grant_sequence; /* 0 until granted */
    pthread_cond_t granted;
    struct zkp_mem_waiter *prev, *next;
} zkp_mem_waiter;

typedef struct {
    zkp_mem_waiter *head, *tail;
} zkp_mem_wait_queue;

struct zkp_mem_budget {
    zkp_mem_pool *pool;
    uint64_t ceiling; /* the most the total may be set to: min(MemTotal, cgroup limit) */

    pthread_mutex_t mu; /* guards the queues, grant_sequence and the writes below */
    zkp_mem_wait_queue queue[ZKP_MEM_PRIO_COUNT];
    uint64_t grant_sequence;

    /* Written under mu, read without it by zkp_mem_budget_stats_get. */
    atomic_uint_fast64_t total, reserved, peak_reserved;
    atomic_uint_fast64_t reservations, waiting, grants, grants_after_wait;
};

struct zkp_mem_reservation {
    zkp_mem_budget *budget;
    atomic_uint_fast64_t reserved;  /* held from the budget */
    atomic_uint_fast64_t available; /* reserved less what live buffers are charged */
    atomic_uint_fast64_t refused;
    uint64_t grant_sequence;
    zkp_allocator view;
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
    /* What the budget still counts for r: reserved, until
     * zkp_mem_fault_release_early gives it all back early. Only r's owner
     * changes it (release_part, release and the fault itself). */
    uint64_t held_from_budget;
#endif
};

static uint64_t load(const atomic_uint_fast64_t *v) {
    return atomic_load_explicit(v, memory_order_relaxed);
}

static void store(atomic_uint_fast64_t *v, uint64_t x) {
    atomic_store_explicit(v, x, memory_order_relaxed);
}

/* ---- the queue (mu held) ---- */

static void enqueue(zkp_mem_wait_queue *q, zkp_mem_waiter *w) {
    w->next = NULL;
    w->prev = q->tail;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
}

static void dequeue(zkp_mem_wait_queue *q, zkp_mem_waiter *w) {
    if (w->prev)
        w->prev->next = w->next;
    else
        q->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        q->tail = w->prev;
}

/* The queue of the first waiter in (priority, arrival) order at or above
 * min_priority, or NULL. */
static zkp_mem_wait_queue *first_queue(zkp_mem_budget *b, int min_priority) {
    for (int p = ZKP_MEM_PRIO_COUNT - 1; p >= min_priority; p--)
        if (b->queue[p].head) return &b->queue[p];
    return NULL;
}

/* Takes bytes from the budget for a new reservation; its sequence number. */
static uint64_t take(zkp_mem_budget *b, uint64_t bytes) {
    uint64_t reserved = load(&b->reserved) + bytes;
    store(&b->reserved, reserved);
    if (reserved > load(&b->peak_reserved)) store(&b->peak_reserved, reserved);
    store(&b->reservations, load(&b->reservations) + 1);
    store(&b->grants, load(&b->grants) + 1);
    return ++b->grant_sequence;
}

/* Grants queued requests in order while the first one fits. */
static void grant_waiters(zkp_mem_budget *b) {
    for (;;) {
        zkp_mem_wait_queue *q = first_queue(b, ZKP_MEM_PRIO_LOW);
        if (!q || load(&b->reserved) + q->head->bytes > load(&b->total)) return;
        zkp_mem_waiter *w = q->head;
        dequeue(q, w);
        store(&b->waiting, load(&b->waiting) - 1);
        store(&b->grants_after_wait, load(&b->grants_after_wait) + 1);
        w->grant_sequence = take(b, w->bytes);
        pthread_cond_signal(&w->granted);
    }
}

/* Returns bytes to the budget and lets waiters have them. */
static void give_back(zkp_mem_budget *b, uint64_t bytes, int ends_reservation) {
    pthread_mutex_lock(&b->mu);
    store(&b->reserved, load(&b->reserved) - bytes);
    if (ends_reservation) store(&b->reservations, load(&b->reservations) - 1);
    grant_waiters(b);
    pthread_mutex_unlock(&b->mu);
}

/* ---- budget life cycle ---- */

zkpipe_status zkp_mem_budget_config_default(zkp_mem_budget_config *cfg) {
    if (!cfg) return ZKPIPE_ERR_INVALID_ARGUMENT;
    cfg->total_bytes = 0;
    cfg->margin_bytes = ZKP_MEM_MARGIN_AUTO;
    cfg->sources = NULL;
    cfg->pool = NULL;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_budget_create(zkp_mem_budget **out, const zkp_mem_budget_config *cfg,
                                    zkp_mem_limits *limits_out, zkp_diag *diag) {
    if (!out) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no output given");
    *out = NULL;
    if (!cfg || !cfg->pool)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "a budget needs a pool");
    zkp_mem_limits limits;
    zkpipe_status st =
        zkp_mem_detect_limits(cfg->sources, cfg->total_bytes, cfg->margin_bytes, &limits, diag);
    if (st != ZKPIPE_OK) return st;
    if (limits_out) *limits_out = limits;

    zkp_mem_budget *b = calloc(1, sizeof *b);
    if (!b) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate the budget");
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        free(b);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot create the budget's lock");
    }
    b->pool = cfg->pool;
    b->ceiling = limits.cgroup_limit < limits.mem_total ? limits.cgroup_limit : limits.mem_total;
    atomic_init(&b->total, limits.budget);
    atomic_init(&b->reserved, 0);
    atomic_init(&b->peak_reserved, 0);
    atomic_init(&b->reservations, 0);
    atomic_init(&b->waiting, 0);
    atomic_init(&b->grants, 0);
    atomic_init(&b->grants_after_wait, 0);
    *out = b;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_budget_destroy(zkp_mem_budget **bp) {
    if (!bp) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_budget *b = *bp;
    if (!b) return ZKPIPE_OK;
    pthread_mutex_lock(&b->mu);
    int busy = load(&b->reservations) != 0 || load(&b->waiting) != 0;
    pthread_mutex_unlock(&b->mu);
    if (busy) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_destroy(&b->mu);
    free(b);
    *bp = NULL;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_budget_set_total(zkp_mem_budget *b, uint64_t total, zkp_diag *diag) {
    if (!b || !total)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no budget, or a total of 0");
    if (total > b->ceiling)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "a budget of %llu bytes is more than the %llu this machine allows",
                             (unsigned long long)total, (unsigned long long)b->ceiling);
    pthread_mutex_lock(&b->mu);
    store(&b->total, total);
    grant_waiters(b);
    pthread_mutex_unlock(&b->mu);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_budget_stats_get(const zkp_mem_budget *b, zkp_mem_budget_stats *out) {
    if (!b || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    out->total_bytes = load(&b->total);
    out->reserved_bytes = load(&b->reserved);
    out->peak_reserved_bytes = load(&b->peak_reserved);
    out->reservations = load(&b->reservations);
    out->waiting = load(&b->waiting);
    out->grants = load(&b->grants);
    out->grants_after_wait = load(&b->grants_after_wait);
    return ZKPIPE_OK;
}

/* ---- reservations ---- */

static void *view_alloc(void *ctx, size_t bytes, zkp_mem_category cat) {
    void *p;
    return zkp_mem_alloc(ctx, bytes, cat, &p) == ZKPIPE_OK ? p : NULL;
}

static void view_free(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    (void)zkp_mem_free(ctx, p, bytes, cat);
}

static zkp_mem_reservation *reservation_new(zkp_mem_budget *b, uint64_t bytes) {
    zkp_mem_reservation *r = malloc(sizeof *r);
    if (!r) return NULL;
    r->budget = b;
    atomic_init(&r->reserved, bytes);
    atomic_init(&r->available, bytes);
    atomic_init(&r->refused, 0);
    r->grant_sequence = 0;
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
    r->held_from_budget = bytes;
#endif
    r->view.alloc = view_alloc;
    r->view.free = view_free;
    r->view.ctx = r;
    return r;
}

/* Waits (mu held) until w is granted or gives up; the status to return. */
static zkpipe_status wait_for_grant(zkp_mem_budget *b, zkp_mem_waiter *w,
                                    const zkp_mem_wait_opts *opts) {
    uint64_t deadline = UINT64_MAX;
    if (opts->timeout_ms > 0) {
        uint64_t ms = (uint64_t)opts->timeout_ms;
        uint64_t now = zkp_mem_now_ns();
        deadline = ms < (UINT64_MAX - now) / ZKP_NS_PER_MS ? now + ms * ZKP_NS_PER_MS : UINT64_MAX;
    }
    /* A grant is checked first, so one that races with cancellation or
     * the deadline wins. */
    while (!w->grant_sequence) {
        if (opts->cancel && atomic_load(opts->cancel)) return ZKPIPE_ERR_CANCELLED;
        uint64_t now = zkp_mem_now_ns();
        if (now >= deadline) return ZKPIPE_ERR_TIMEOUT;
        uint64_t wake = deadline;
        if (opts->cancel && now + CANCEL_POLL_MS * ZKP_NS_PER_MS < wake)
            wake = now + CANCEL_POLL_MS * ZKP_NS_PER_MS;
        if (wake == UINT64_MAX)
            pthread_cond_wait(&w->granted, &b->mu);
        else
            zkp_mem_cond_wait_until(&w->granted, &b->mu, wake);
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_reserve_wait(zkp_mem_budget *b, uint64_t bytes, const zkp_mem_wait_opts *opts,
                                   zkp_mem_reservation **out, zkp_diag *diag) {
    if (!out) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no output given");
    *out = NULL;
    static const zkp_mem_wait_opts wait_forever = {ZKP_MEM_PRIO_NORMAL, -1, NULL};
    if (!opts) opts = &wait_forever;
    if (!b || (unsigned)opts->priority >= ZKP_MEM_PRIO_COUNT)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no budget or a bad priority");
    if (bytes > load(&b->total))
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "a reservation of %llu bytes can never fit a budget of %llu bytes",
                             (unsigned long long)bytes, (unsigned long long)load(&b->total));
    /* Allocated before waiting, so that a grant cannot fail afterwards. */
    zkp_mem_reservation *r = reservation_new(b, bytes);
    if (!r) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "cannot allocate a reservation");

    zkpipe_status st = ZKPIPE_OK;
    pthread_mutex_lock(&b->mu);
    if (!first_queue(b, (int)opts->priority) && load(&b->reserved) + bytes <= load(&b->total)) {
        r->grant_sequence = take(b, bytes);
    } else if (opts->timeout_ms == 0) {
        st = ZKPIPE_ERR_TIMEOUT;
    } else {
        zkp_mem_waiter w = {.bytes = bytes};
        if (zkp_mem_cond_init_monotonic(&w.granted) != 0) {
            st = ZKPIPE_ERR_NO_MEMORY;
        } else {
            zkp_mem_wait_queue *q = &b->queue[opts->priority];
            enqueue(q, &w);
            store(&b->waiting, load(&b->waiting) + 1);
            st = wait_for_grant(b, &w, opts);
            if (st == ZKPIPE_OK) {
                r->grant_sequence = w.grant_sequence;
            } else {
                dequeue(q, &w);
                store(&b->waiting, load(&b->waiting) - 1);
                /* It may have been the head holding back requests that
                 * fit. */
                grant_waiters(b);
            }
            /* No one else can touch w now: a granter signals it holding mu
             * and takes it off the queue in the same step. */
            pthread_cond_destroy(&w.granted);
        }
    }
    pthread_mutex_unlock(&b->mu);
    if (st != ZKPIPE_OK) {
        free(r);
        if (st == ZKPIPE_ERR_NO_MEMORY)
            return zkp_diag_fail(diag, st, "cannot create a condition variable");
        return zkp_diag_fail(diag, st, "a reservation of %llu bytes was not granted: %s",
                             (unsigned long long)bytes, zkpipe_strerror(st));
    }
    *out = r;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_reserve(zkp_mem_budget *b, uint64_t bytes, zkp_mem_priority priority,
                              zkp_mem_reservation **out) {
    zkp_mem_wait_opts opts = {priority, -1, NULL};
    return zkp_mem_reserve_wait(b, bytes, &opts, out, NULL);
}

zkpipe_status zkp_mem_try_reserve(zkp_mem_budget *b, uint64_t bytes, zkp_mem_priority priority,
                                  zkp_mem_reservation **out) {
    zkp_mem_wait_opts opts = {priority, 0, NULL};
    return zkp_mem_reserve_wait(b, bytes, &opts, out, NULL);
}

/* Takes bytes from *v unless fewer are there. */
static int take_if_available(atomic_uint_fast64_t *v, uint64_t bytes) {
    uint_fast64_t seen = atomic_load_explicit(v, memory_order_relaxed);
    do {
        if (seen < bytes) return 0;
    } while (!atomic_compare_exchange_weak_explicit(v, &seen, seen - bytes, memory_order_relaxed,
                                                    memory_order_relaxed));
    return 1;
}

/* Of bytes leaving r, the part the budget still counts: all of them, but
 * in the control run's fault build only what was not given back early. */
static uint64_t budget_share(zkp_mem_reservation *r, uint64_t bytes) {
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
    if (bytes > r->held_from_budget) bytes = r->held_from_budget;
    r->held_from_budget -= bytes;
#else
    (void)r;
#endif
    return bytes;
}

zkpipe_status zkp_mem_release_part(zkp_mem_reservation *r, uint64_t bytes) {
    if (!r) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return ZKPIPE_OK;
    if (!take_if_available(&r->available, bytes)) return ZKPIPE_ERR_RESERVATION_EXCEEDED;
    atomic_fetch_sub_explicit(&r->reserved, bytes, memory_order_relaxed);
    give_back(r->budget, budget_share(r, bytes), 0);
    return ZKPIPE_OK;
}

#ifdef ZKPIPE_FAULT_EARLY_RELEASE
zkpipe_status zkp_mem_fault_release_early(zkp_mem_reservation *r) {
    if (!r) return ZKPIPE_ERR_INVALID_ARGUMENT;
    uint64_t bytes = budget_share(r, r->held_from_budget);
    if (bytes) give_back(r->budget, bytes, 0);
    return ZKPIPE_OK;
}
#endif

zkpipe_status zkp_mem_release(zkp_mem_reservation **rp) {
    if (!rp) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_reservation *r = *rp;
    if (!r) return ZKPIPE_OK;
    /* Everything must be unallocated: available == reserved, swapped to 0
     * in one step so a racing allocation cannot slip in between. */
    uint_fast64_t held = load(&r->reserved);
    uint_fast64_t expect = held;
    if (!atomic_compare_exchange_strong(&r->available, &expect, 0))
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    give_back(r->budget, budget_share(r, held), 1);
    free(r);
    *rp = NULL;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_alloc(zkp_mem_reservation *r, size_t bytes, zkp_mem_category cat,
                            void **out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!r || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t charge;
    zkpipe_status st = zkp_mem_charge_size(bytes, &charge);
    if (st != ZKPIPE_OK) return st;
    if (!take_if_available(&r->available, charge)) {
        atomic_fetch_add_explicit(&r->refused, 1, memory_order_relaxed);
        return ZKPIPE_ERR_RESERVATION_EXCEEDED;
    }
    st = zkp_mem_pool_alloc(r->budget->pool, bytes, cat, out);
    if (st != ZKPIPE_OK) atomic_fetch_add_explicit(&r->available, charge, memory_order_relaxed);
    return st;
}

zkpipe_status zkp_mem_free(zkp_mem_reservation *r, void *p, size_t bytes, zkp_mem_category cat) {
    if (!p) return ZKPIPE_OK;
    if (!r || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t charge;
    zkpipe_status st = zkp_mem_charge_size(bytes, &charge);
    if (st != ZKPIPE_OK) return st;
    /* The data goes first; only then may its bytes be used again. */
    st = zkp_mem_pool_free(r->budget->pool, p, bytes, cat);
    uint64_t available =
        atomic_fetch_add_explicit(&r->available, charge, memory_order_relaxed) + charge;
    ZKP_VERIFY_CHECK(available <= load(&r->reserved));
    (void)available;
    return st;
}

zkpipe_status zkp_mem_charge_external(zkp_mem_reservation *r, uint64_t bytes,
                                      zkp_mem_category cat) {
    if (!r || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return ZKPIPE_OK;
    if (!take_if_available(&r->available, bytes)) {
        atomic_fetch_add_explicit(&r->refused, 1, memory_order_relaxed);
        return ZKPIPE_ERR_RESERVATION_EXCEEDED;
    }
    zkp_mem_pool_make_room(r->budget->pool, bytes);
    zkp_mem_tracker *t = zkp_mem_pool_tracker(r->budget->pool);
    zkpipe_status st = zkp_mem_tracker_charge_more(t, cat, bytes);
    if (st != ZKPIPE_OK) atomic_fetch_add_explicit(&r->available, bytes, memory_order_relaxed);
    return st;
}

zkpipe_status zkp_mem_discharge_external(zkp_mem_reservation *r, uint64_t bytes,
                                         zkp_mem_category cat) {
    if (!r || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return ZKPIPE_OK;
    zkpipe_status st =
        zkp_mem_tracker_discharge_less(zkp_mem_pool_tracker(r->budget->pool), cat, bytes);
    if (st != ZKPIPE_OK) return st; /* never charged: the books stay as they are */
    uint64_t available =
        atomic_fetch_add_explicit(&r->available, bytes, memory_order_relaxed) + bytes;
    ZKP_VERIFY_CHECK(available <= load(&r->reserved));
    (void)available;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_reservation_allocator(zkp_mem_reservation *r, const zkp_allocator **out) {
    if (!r || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = &r->view;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_reservation_info_get(const zkp_mem_reservation *r,
                                           zkp_mem_reservation_info *out) {
    if (!r || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    uint64_t reserved = load(&r->reserved);
    uint64_t available = load(&r->available);
    out->reserved_bytes = reserved;
    out->allocated_bytes = available <= reserved ? reserved - available : 0;
    out->refused = load(&r->refused);
    out->grant_sequence = r->grant_sequence;
    return ZKPIPE_OK;
}
