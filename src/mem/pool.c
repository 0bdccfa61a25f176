/* The buffer pool: mmap'd regions recycled by size class, and the one
 * thread that gives them back to the OS.
 *
 * Why not malloc: glibc keeps freed memory in per-thread arenas, so after a
 * few partitions of different shapes the process holds far more than its
 * live data and never returns it. Here a region is either live (handed
 * out), idle (kept for the next request of its class) or retiring (queued
 * for the trimmer to unmap), and every byte in each state is charged to the
 * tracker (idle and retiring ones as POOL_IDLE), so tracked bytes follow
 * RSS.
 *
 * Two rules bound what stays mapped (docs/MEMORY.md):
 *   - The idle cap: beyond idle_max_bytes, and past idle_decay_ms of
 *     disuse, idle regions are unmapped, oldest first, in the background.
 *   - The exchange rule: before a new region of S bytes is mapped, idle
 *     regions of other classes worth at least S bytes (oldest first; all of
 *     them if there are fewer) are retired, and the request waits until the
 *     trimmer has unmapped them. So mapped bytes never exceed the peak of
 *     live bytes, which reservations keep within the budget.
 * Unmapping is the trimmer's job alone: a worker never runs munmap (which,
 * for a region of resident pages, frees them one by one and flushes TLBs
 * under the address-space lock). Reuse, the steady state, never waits; only
 * a change of shapes (a new size class while others sit idle) waits for
 * the trimmer, because that memory must go before new memory may come.
 *
 * Bookkeeping for an idle region lives in a small malloc'd record, not in
 * the region, so an idle region's pages are never touched again. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef MADV_POPULATE_WRITE
#define ZKP_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define ZKP_MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
/* How much of a new region is made resident, and charged, at a time. */
#define POPULATE_STEP ((size_t)4 << 20)
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "mem/mem.h"
#include "mem/mem_internal.h"

/* Classes 0..7 are 2, 4, ..., 16 MiB. Above that every doubling
 * (2^k, 2^(k+1)] holds CLASS_STEPS classes spaced 2^k / CLASS_STEPS apart,
 * up to 2^CLASS_TOP_LOG2 bytes. */
#define CLASS_STEPS 8u
#define CLASS_LINEAR_LIMIT (CLASS_STEPS * ZKP_MEM_CLASS_GRANULE)
#define CLASS_LINEAR_LOG2 24u /* log2(CLASS_LINEAR_LIMIT) */
#define CLASS_TOP_LOG2 62u
#define CLASS_COUNT (CLASS_STEPS + (CLASS_TOP_LOG2 - CLASS_LINEAR_LOG2) * CLASS_STEPS)

_Static_assert(CLASS_LINEAR_LIMIT == (size_t)1 << CLASS_LINEAR_LOG2, "linear classes end at 2^24");

typedef struct zkp_mem_region {
    void *base;
    size_t size;
    unsigned class_index;
    uint64_t idle_since_ns;
    /* The idle regions of one class, most recently freed first: reuse
     * takes the warmest. */
    struct zkp_mem_region *class_prev, *class_next;
    /* All idle regions, oldest first (trimming takes the coldest); the
     * retiring queue reuses age_next. */
    struct zkp_mem_region *age_prev, *age_next;
} zkp_mem_region;

struct zkp_mem_pool {
    zkp_mem_tracker *tracker;
    zkp_mem_pool_config cfg;
    atomic_uint_fast64_t live_buffers; /* big and small, for destroy's check */

    pthread_mutex_t mu; /* guards everything below */
    pthread_cond_t trimmer_wake;
    pthread_cond_t unmapped; /* broadcast after each batch the trimmer unmaps */
    zkp_mem_region *idle_by_class[CLASS_COUNT];
    zkp_mem_region *oldest_idle, *newest_idle;
    /* Unmapped in the order retired. Retirements are numbered: everything
     * retired up to ticket t is gone once unmapped_ticket >= t. */
    zkp_mem_region *retiring_head, *retiring_tail;
    uint64_t retired_ticket, unmapped_ticket;
    uint64_t idle_bytes, retiring_bytes, live_bytes, mapped_bytes, peak_mapped_bytes;
    uint64_t maps, reuses, unmaps;
    uint64_t trim_keep; /* lowest idle target asked by zkp_mem_pool_trim; UINT64_MAX: none */
    uint64_t trim_requested, trim_completed;
    int stopping;
    pthread_t trimmer;
};

static size_t round_up(size_t v, size_t multiple) {
    return (v + multiple - 1) / multiple * multiple;
}

static unsigned floor_log2(size_t v) {
    return 63u - (unsigned)__builtin_clzll((unsigned long long)v);
}

/* The class of a big request: its size and index. 0 (and both 0) when too
 * large. */
static int size_class(size_t bytes, size_t *class_size, unsigned *class_index) {
    *class_size = 0;
    *class_index = 0;
    if (bytes > ((size_t)1 << CLASS_TOP_LOG2)) return 0;
    size_t s = round_up(bytes, ZKP_MEM_CLASS_GRANULE);
    if (s <= CLASS_LINEAR_LIMIT) {
        *class_size = s;
        *class_index = (unsigned)(s / ZKP_MEM_CLASS_GRANULE) - 1;
        return 1;
    }
    unsigned k = floor_log2(s - 1); /* s in (2^k, 2^(k+1)] */
    size_t step = (size_t)1 << (k - 3);
    size_t c = round_up(s, step);
    *class_size = c;
    *class_index = CLASS_STEPS + (k - CLASS_LINEAR_LOG2) * CLASS_STEPS +
                   (unsigned)((c - ((size_t)1 << k)) / step) - 1;
    return 1;
}

zkpipe_status zkp_mem_charge_size(size_t bytes, size_t *out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = 0;
    if (bytes == 0) return ZKPIPE_ERR_OUT_OF_RANGE;
    if (bytes < ZKP_MEM_BIG_MIN) {
        *out = round_up(bytes, ZKP_ALLOC_ALIGN);
        return ZKPIPE_OK;
    }
    unsigned index;
    return size_class(bytes, out, &index) ? ZKPIPE_OK : ZKPIPE_ERR_OUT_OF_RANGE;
}

zkpipe_status zkp_mem_pool_config_default(zkp_mem_pool_config *cfg) {
    if (!cfg) return ZKPIPE_ERR_INVALID_ARGUMENT;
    memset(cfg, 0, sizeof *cfg); /* no region hooks */
    cfg->idle_max_bytes = (uint64_t)1 << 30;
    cfg->idle_decay_ms = 30000;
#ifdef ZKPIPE_MEM_MALLOC_CONTROL
    cfg->big_from_malloc = 1;
#endif
    return ZKPIPE_OK;
}

/* ---- idle lists (pool->mu held) ---- */

static void idle_push(zkp_mem_pool *pool, zkp_mem_region *r) {
    zkp_mem_region **head = &pool->idle_by_class[r->class_index];
    r->class_prev = NULL;
    r->class_next = *head;
    if (*head) (*head)->class_prev = r;
    *head = r;
    r->age_next = NULL;
    r->age_prev = pool->newest_idle;
    if (pool->newest_idle)
        pool->newest_idle->age_next = r;
    else
        pool->oldest_idle = r;
    pool->newest_idle = r;
    pool->idle_bytes += r->size;
}

static void idle_unlink(zkp_mem_pool *pool, zkp_mem_region *r) {
    if (r->class_prev)
        r->class_prev->class_next = r->class_next;
    else
        pool->idle_by_class[r->class_index] = r->class_next;
    if (r->class_next) r->class_next->class_prev = r->class_prev;
    if (r->age_prev)
        r->age_prev->age_next = r->age_next;
    else
        pool->oldest_idle = r->age_next;
    if (r->age_next)
        r->age_next->age_prev = r->age_prev;
    else
        pool->newest_idle = r->age_prev;
    pool->idle_bytes -= r->size;
}

/* Moves an idle region to the end of the retiring queue, for the trimmer;
 * returns its size. */
static size_t retire(zkp_mem_pool *pool, zkp_mem_region *r) {
    idle_unlink(pool, r);
    r->age_next = NULL;
    if (pool->retiring_tail)
        pool->retiring_tail->age_next = r;
    else
        pool->retiring_head = r;
    pool->retiring_tail = r;
    pool->retiring_bytes += r->size;
    pool->retired_ticket++;
    return r->size;
}

/* ---- the trimmer ---- */

/* Retires whatever the policy says must go now. Returns whether the
 * retiring queue is non-empty. */
static int select_for_unmap(zkp_mem_pool *pool) {
    uint64_t target = pool->cfg.idle_max_bytes;
    if (pool->trim_keep < target) target = pool->trim_keep;
    if (pool->stopping) target = 0;
    while (pool->idle_bytes > target) retire(pool, pool->oldest_idle);
    if (pool->cfg.idle_decay_ms > 0) {
        uint64_t now = zkp_mem_now_ns();
        uint64_t decay = (uint64_t)pool->cfg.idle_decay_ms * ZKP_NS_PER_MS;
        while (pool->oldest_idle && pool->oldest_idle->idle_since_ns + decay <= now)
            retire(pool, pool->oldest_idle);
    }
    return pool->retiring_head != NULL;
}

/* The pool's own moves between categories balance by construction (a
 * region is charged to exactly one category at a time), so a refusal from
 * the tracker would mean corrupted books: ZKP_VERIFY builds stop there. */
static void books_charge(zkp_mem_pool *pool, zkp_mem_category cat, uint64_t bytes) {
    zkpipe_status st = zkp_mem_tracker_charge(pool->tracker, cat, bytes);
    ZKP_VERIFY_CHECK(st == ZKPIPE_OK);
    (void)st;
}

static void books_move(zkp_mem_pool *pool, zkp_mem_category from, zkp_mem_category to,
                       uint64_t bytes) {
    zkpipe_status st = zkp_mem_tracker_move(pool->tracker, from, to, bytes);
    ZKP_VERIFY_CHECK(st == ZKPIPE_OK);
    (void)st;
}

/* The hooks of zkp_mem_pool_config, for the regions they ask about. */
static void hook_mapped(const zkp_mem_pool *pool, void *base, size_t size) {
    if (pool->cfg.region_mapped && size >= pool->cfg.region_hook_min_bytes)
        pool->cfg.region_mapped(pool->cfg.region_hook_ctx, base, size);
}

static void unmap_with_hook(const zkp_mem_pool *pool, void *base, size_t size) {
    if (pool->cfg.region_unmapping && size >= pool->cfg.region_hook_min_bytes)
        pool->cfg.region_unmapping(pool->cfg.region_hook_ctx, base, size);
    (void)munmap(base, size);
}

/* An idle region goes a step at a time, each step discharged as soon as it
 * is unmapped, so the books follow RSS down during the unmap instead of
 * dropping at its end: a sample taken in between saw 12 GB of a 32 GiB
 * PoRep partition's a, b, c gone from RSS and still tracked. */
#define UNMAP_STEP ((size_t)64 << 20)

static void unmap_region(zkp_mem_pool *pool, zkp_mem_region *r) {
    if (pool->cfg.region_unmapping && r->size >= pool->cfg.region_hook_min_bytes)
        pool->cfg.region_unmapping(pool->cfg.region_hook_ctx, r->base, r->size);
    for (size_t off = 0; off < r->size; off += UNMAP_STEP) {
        size_t n = r->size - off < UNMAP_STEP ? r->size - off : UNMAP_STEP;
        (void)munmap((char *)r->base + off, n);
        /* The region is one buffer of the books: the last step ends it. */
        zkpipe_status st = off + n == r->size
                               ? zkp_mem_tracker_discharge(pool->tracker, ZKP_MEM_POOL_IDLE, n)
                               : zkp_mem_tracker_discharge_less(pool->tracker, ZKP_MEM_POOL_IDLE, n);
        ZKP_VERIFY_CHECK(st == ZKPIPE_OK);
        (void)st;
    }
    free(r);
}

static void *trimmer_main(void *arg) {
    zkp_mem_pool *pool = arg;
    pthread_mutex_lock(&pool->mu);
    for (;;) {
        if (select_for_unmap(pool)) {
            zkp_mem_region *batch = pool->retiring_head;
            uint64_t last_ticket = pool->retired_ticket; /* the batch is all of them */
            pool->retiring_head = pool->retiring_tail = NULL;
            uint64_t batch_bytes = 0, batch_count = 0;
            pthread_mutex_unlock(&pool->mu);
            while (batch) {
                zkp_mem_region *next = batch->age_next;
                batch_bytes += batch->size;
                batch_count++;
                unmap_region(pool, batch);
                batch = next;
            }
            pthread_mutex_lock(&pool->mu);
            pool->retiring_bytes -= batch_bytes;
            pool->mapped_bytes -= batch_bytes;
            pool->unmaps += batch_count;
            pool->unmapped_ticket = last_ticket;
            pthread_cond_broadcast(&pool->unmapped);
            continue; /* more may have gone idle meanwhile */
        }
        if (pool->trim_completed != pool->trim_requested) {
            pool->trim_completed = pool->trim_requested;
            pool->trim_keep = UINT64_MAX;
            pthread_cond_broadcast(&pool->unmapped);
        }
        if (pool->stopping) break;
        if (pool->cfg.idle_decay_ms > 0 && pool->oldest_idle)
            zkp_mem_cond_wait_until(&pool->trimmer_wake, &pool->mu,
                                    pool->oldest_idle->idle_since_ns +
                                        (uint64_t)pool->cfg.idle_decay_ms * ZKP_NS_PER_MS);
        else
            pthread_cond_wait(&pool->trimmer_wake, &pool->mu);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

/* ---- life cycle ---- */

/* Buffers under ZKP_MEM_BIG_MIN still come from malloc. glibc serves those
 * of 128 KiB or more with mmap at first, but raises that threshold each time
 * such a chunk is freed, after which they are carved from its arenas and
 * kept there: with witnesses of a few hundred KiB, RSS then crept 31 MiB past
 * baseline + budget in the control experiment (docs/MEMORY.md). Pinning the
 * threshold at its initial value keeps every chunk of 128 KiB or more in
 * its own mapping, returned on free. It is a process-wide setting, made
 * once by whoever creates a pool (the engine); the malloc control keeps
 * glibc's default on purpose. */
static void pin_malloc_mmap_threshold(void) {
#ifdef __GLIBC__
    (void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

zkpipe_status zkp_mem_pool_create(zkp_mem_pool **out, zkp_mem_tracker *tracker,
                                  const zkp_mem_pool_config *cfg) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!tracker) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return ZKPIPE_ERR_NO_MEMORY;
    pool->tracker = tracker;
    if (cfg)
        pool->cfg = *cfg;
    else
        (void)zkp_mem_pool_config_default(&pool->cfg);
    atomic_init(&pool->live_buffers, 0);
    pool->trim_keep = UINT64_MAX;
    if (!pool->cfg.big_from_malloc) pin_malloc_mmap_threshold();
    int stage = 0; /* how much to undo on failure */
    if (pthread_mutex_init(&pool->mu, NULL) != 0) goto fail;
    stage = 1;
    if (zkp_mem_cond_init_monotonic(&pool->trimmer_wake) != 0) goto fail;
    stage = 2;
    if (pthread_cond_init(&pool->unmapped, NULL) != 0) goto fail;
    stage = 3;
    if (pthread_create(&pool->trimmer, NULL, trimmer_main, pool) != 0) goto fail;
    *out = pool;
    return ZKPIPE_OK;
fail:
    if (stage >= 3) pthread_cond_destroy(&pool->unmapped);
    if (stage >= 2) pthread_cond_destroy(&pool->trimmer_wake);
    if (stage >= 1) pthread_mutex_destroy(&pool->mu);
    free(pool);
    return ZKPIPE_ERR_NO_MEMORY;
}

zkpipe_status zkp_mem_pool_destroy(zkp_mem_pool **p) {
    if (!p) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_mem_pool *pool = *p;
    if (!pool) return ZKPIPE_OK;
    if (atomic_load(&pool->live_buffers) != 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    /* The trimmer drains every idle region before it exits. */
    pthread_mutex_lock(&pool->mu);
    pool->stopping = 1;
    pthread_cond_signal(&pool->trimmer_wake);
    pthread_mutex_unlock(&pool->mu);
    pthread_join(pool->trimmer, NULL);
    pthread_cond_destroy(&pool->unmapped);
    pthread_cond_destroy(&pool->trimmer_wake);
    pthread_mutex_destroy(&pool->mu);
    free(pool);
    *p = NULL;
    return ZKPIPE_OK;
}

/* ---- buffers ---- */

static zkpipe_status alloc_from_malloc(zkp_mem_pool *pool, size_t bytes, size_t charge,
                                       zkp_mem_category cat, void **out) {
    void *p = aligned_alloc(ZKP_ALLOC_ALIGN, round_up(bytes, ZKP_ALLOC_ALIGN));
    if (!p) return ZKPIPE_ERR_NO_MEMORY;
    atomic_fetch_add(&pool->live_buffers, 1);
    *out = p;
    books_charge(pool, cat, charge);
    return ZKPIPE_OK;
}

/* Charges part of a new region: the first step counts the buffer, the
 * rest add bytes to it. */
static void charge_step(zkp_mem_pool *pool, zkp_mem_category cat, uint64_t bytes, int first) {
    zkpipe_status st = first ? zkp_mem_tracker_charge(pool->tracker, cat, bytes)
                             : zkp_mem_tracker_charge_more(pool->tracker, cat, bytes);
    ZKP_VERIFY_CHECK(st == ZKPIPE_OK);
    (void)st;
}

/* The exchange rule (mu held): retires idle regions worth bytes (all of
 * them if there are fewer) and waits until everything retired so far is
 * unmapped, not just those: regions the idle cap retired a moment ago are
 * still resident too. */
static void make_room_locked(zkp_mem_pool *pool, uint64_t bytes) {
    for (uint64_t retired = 0; retired < bytes && pool->oldest_idle;)
        retired += retire(pool, pool->oldest_idle);
    uint64_t ticket = pool->retired_ticket;
    if (pool->unmapped_ticket < ticket) {
        pthread_cond_signal(&pool->trimmer_wake);
        while (pool->unmapped_ticket < ticket) pthread_cond_wait(&pool->unmapped, &pool->mu);
    }
}

void zkp_mem_pool_make_room(zkp_mem_pool *pool, uint64_t bytes) {
    pthread_mutex_lock(&pool->mu);
    make_room_locked(pool, bytes);
    pthread_mutex_unlock(&pool->mu);
}

zkp_mem_tracker *zkp_mem_pool_tracker(const zkp_mem_pool *pool) { return pool->tracker; }

/* A region of class_size bytes for a buffer of category cat, charged to
 * it: an idle one of the class if there is one, else a fresh mapping,
 * after the exchange rule has made room. NULL when the OS refuses. */
static void *take_region(zkp_mem_pool *pool, size_t class_size, unsigned class_index,
                         zkp_mem_category cat) {
    pthread_mutex_lock(&pool->mu);
    zkp_mem_region *r = pool->idle_by_class[class_index];
    if (r) {
        idle_unlink(pool, r);
        pool->live_bytes += class_size;
        pool->reuses++;
        pthread_mutex_unlock(&pool->mu);
        void *base = r->base;
        free(r);
        books_move(pool, ZKP_MEM_POOL_IDLE, cat, class_size);
        return base;
    }
    make_room_locked(pool, class_size);
    /* Counted as mapped before the call, so the peak is an upper bound even
     * while mmap runs without the lock. */
    pool->mapped_bytes += class_size;
    pool->live_bytes += class_size;
    if (pool->mapped_bytes > pool->peak_mapped_bytes) pool->peak_mapped_bytes = pool->mapped_bytes;
    pthread_mutex_unlock(&pool->mu);

    void *base = mmap(NULL, class_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_mutex_lock(&pool->mu);
    if (base == MAP_FAILED) {
        pool->mapped_bytes -= class_size;
        pool->live_bytes -= class_size;
    } else {
        pool->maps++;
    }
    pthread_mutex_unlock(&pool->mu);
    if (base == MAP_FAILED) return NULL;
    /* Huge pages: fewer TLB misses in the MSM and NTT passes, and far
     * fewer page faults while the buffer is first filled. A hint only. */
    (void)madvise(base, class_size, MADV_HUGEPAGE);
    /* The region is charged whole, so it is made resident whole, now, and
     * charged step by step as it becomes resident: RSS and the tracked
     * bytes then rise together (a step apart at most) instead of the
     * tracked bytes jumping while RSS follows page by page as the buffer is
     * first written, or never for a tail it does not use. The zeroing is
     * work the first writes would do anyway. Kernels before 5.14 refuse the
     * advice; the region is then charged at once and fills lazily. */
    size_t charged = 0;
    for (size_t off = 0; off < class_size; off += POPULATE_STEP) {
        size_t n = class_size - off < POPULATE_STEP ? class_size - off : POPULATE_STEP;
        if (madvise((char *)base + off, n, ZKP_MADV_POPULATE_WRITE) != 0) break;
        charge_step(pool, cat, n, charged == 0);
        charged += n;
    }
    if (charged < class_size) charge_step(pool, cat, class_size - charged, charged == 0);
    hook_mapped(pool, base, class_size);
    return base;
}

zkpipe_status zkp_mem_pool_alloc(zkp_mem_pool *pool, size_t bytes, zkp_mem_category cat,
                                 void **out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!pool || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t charge;
    zkpipe_status st = zkp_mem_charge_size(bytes, &charge);
    if (st != ZKPIPE_OK) return st;
    if (bytes < ZKP_MEM_BIG_MIN || pool->cfg.big_from_malloc)
        return alloc_from_malloc(pool, bytes, charge, cat, out);

    unsigned class_index;
    size_t class_size;
    if (!size_class(bytes, &class_size, &class_index)) return ZKPIPE_ERR_OUT_OF_RANGE;
    void *base = take_region(pool, class_size, class_index, cat);
    if (!base) return ZKPIPE_ERR_NO_MEMORY;
    atomic_fetch_add(&pool->live_buffers, 1);
    *out = base;
    return ZKPIPE_OK;
}

/* Makes a freed region of category cat idle, its bytes moved to
 * POOL_IDLE. The record is allocated before the lock; if even that fails
 * the region is unmapped here, the one time a caller's thread does it.
 * The books' verdict: ZKPIPE_ERR_INVALID_ARGUMENT when cat did not hold the
 * region (a caller passing the wrong category), which goes back all the
 * same. */
static zkpipe_status give_back_region(zkp_mem_pool *pool, void *base, size_t class_size,
                                      unsigned class_index, zkp_mem_category cat) {
    zkp_mem_region *r = malloc(sizeof *r);
    if (!r) {
        zkpipe_status st = zkp_mem_tracker_discharge(pool->tracker, cat, class_size);
        unmap_with_hook(pool, base, class_size);
        pthread_mutex_lock(&pool->mu);
        pool->live_bytes -= class_size;
        pool->mapped_bytes -= class_size;
        pool->unmaps++;
        pthread_mutex_unlock(&pool->mu);
        return st;
    }
    r->base = base;
    r->size = class_size;
    r->class_index = class_index;
    r->idle_since_ns = zkp_mem_now_ns();
    /* Moved before the region is visible on a list: an allocator may take
     * it (and move it on) the moment the lock is dropped. One move, not a
     * discharge and a charge, so that the total never misses the region
     * while it stays resident. */
    zkpipe_status st = zkp_mem_tracker_move(pool->tracker, cat, ZKP_MEM_POOL_IDLE, class_size);
    if (st != ZKPIPE_OK) books_charge(pool, ZKP_MEM_POOL_IDLE, class_size);
    pthread_mutex_lock(&pool->mu);
    pool->live_bytes -= class_size;
    idle_push(pool, r);
    int over_cap = pool->idle_bytes > pool->cfg.idle_max_bytes;
    /* A trimmer with no timer set learns of a new oldest region only here. */
    int first_idle = pool->oldest_idle == r;
    if (over_cap || (first_idle && pool->cfg.idle_decay_ms > 0))
        pthread_cond_signal(&pool->trimmer_wake);
    pthread_mutex_unlock(&pool->mu);
    return st;
}

zkpipe_status zkp_mem_pool_free(zkp_mem_pool *pool, void *p, size_t bytes, zkp_mem_category cat) {
    if (!p) return ZKPIPE_OK;
    if (!pool || !zkp_mem_category_is_buffer(cat)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    size_t charge;
    zkpipe_status st = zkp_mem_charge_size(bytes, &charge);
    if (st != ZKPIPE_OK) return st;
    atomic_fetch_sub(&pool->live_buffers, 1);
    /* The memory goes back even when the books disagree (a caller passing
     * the wrong category); the status reports the disagreement. */
    if (bytes < ZKP_MEM_BIG_MIN || pool->cfg.big_from_malloc) {
        st = zkp_mem_tracker_discharge(pool->tracker, cat, charge);
        free(p);
        return st;
    }
    unsigned class_index;
    size_t class_size;
    (void)size_class(bytes, &class_size, &class_index); /* charge_size checked it */
    return give_back_region(pool, p, charge, class_index, cat);
}

zkpipe_status zkp_mem_pool_trim(zkp_mem_pool *pool, uint64_t keep_idle_bytes) {
    if (!pool) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&pool->mu);
    if (keep_idle_bytes < pool->trim_keep) pool->trim_keep = keep_idle_bytes;
    uint64_t ticket = ++pool->trim_requested;
    pthread_cond_signal(&pool->trimmer_wake);
    while (pool->trim_completed < ticket) pthread_cond_wait(&pool->unmapped, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_pool_stats_get(zkp_mem_pool *pool, zkp_mem_pool_stats *out) {
    if (!pool || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&pool->mu);
    out->mapped_bytes = pool->mapped_bytes;
    out->live_bytes = pool->live_bytes;
    out->idle_bytes = pool->idle_bytes;
    out->retiring_bytes = pool->retiring_bytes;
    out->peak_mapped_bytes = pool->peak_mapped_bytes;
    out->maps = pool->maps;
    out->reuses = pool->reuses;
    out->unmaps = pool->unmaps;
    pthread_mutex_unlock(&pool->mu);
    return ZKPIPE_OK;
}
