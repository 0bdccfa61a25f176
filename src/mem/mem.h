/* The memory subsystem of the proving engine: the contract.
 *
 * Two failure modes are impossible by construction here:
 *
 *   1. Admission by anything but bytes. Work is admitted by reserving its
 *      working-set bytes from one budget. Buffers are allocated FROM the
 *      reservation, which refuses (ZKPIPE_ERR_RESERVATION_EXCEEDED) anything
 *      beyond what it holds, and a reservation cannot be released while a
 *      buffer allocated from it is still live. So the budget can only get
 *      bytes back once the data they paid for is gone: no permit can outlive
 *      or undershoot its data.
 *   2. Resident memory that does not come back. Buffers of 1 MiB and more
 *      never touch malloc arenas: they are mmap'd regions, recycled by size
 *      class and unmapped by one background thread, so resident memory is a
 *      known function of live data (docs/MEMORY.md works through the bound).
 *
 * The pieces, each an opaque object created and destroyed explicitly:
 *
 *   zkp_mem_tracker      live bytes, peak bytes and live buffer count per
 *                        category (util/alloc.h), in atomics.
 *   zkp_mem_pool         where every buffer comes from: mmap'd size-class
 *                        regions for big ones, malloc for small ones, both
 *                        charged to a tracker; owns the trimmer thread.
 *   zkp_mem_budget       the total; admits reservations in priority order.
 *   zkp_mem_reservation  bytes granted to one job. It travels with the job
 *                        (by pointer, inside the job) and is the allocator
 *                        of the job's buffers.
 *   zkp_mem_sampler      a thread that samples RSS, keeps its peak and
 *                        optionally writes a CSV timeline.
 *
 * Wiring: tracker <- pool <- budget <- reservations; the sampler reads a
 * tracker and a budget. Each object must outlive the ones built on it.
 *
 * Threads. Every function may be called from any thread. The exceptions are
 * the ones that end an object's life (the *_destroy functions,
 * zkp_mem_release, zkp_mem_sampler_stop): no other call may be in flight on
 * that object. zkp_mem_alloc/zkp_mem_free on one reservation may run
 * concurrently with each other and with zkp_mem_release_part.
 *
 * Status codes. Every function returns a zkpipe_status; NULL where a
 * pointer is required is ZKPIPE_ERR_INVALID_ARGUMENT. Functions taking a
 * zkp_diag * fill it on failure when it is not NULL. */
#ifndef ZKP_MEM_MEM_H
#define ZKP_MEM_MEM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/diag.h"
#include "util/util.h"

/* ------------------------------------------------------------------------
 * Tracker */

typedef struct zkp_mem_tracker zkp_mem_tracker;

typedef struct {
    uint64_t live_bytes;
    uint64_t peak_bytes; /* highest live_bytes seen */
    uint64_t live_count; /* buffers currently charged */
} zkp_mem_category_stats;

/* A snapshot: each counter is read atomically, but the set is not one
 * instant (a buffer moving between categories may be seen in both or
 * neither). total_peak_bytes is the peak of the sum, kept on its own. */
typedef struct {
    zkp_mem_category_stats cat[ZKP_MEM_CATEGORY_COUNT];
    uint64_t total_live_bytes;
    uint64_t total_peak_bytes;
} zkp_mem_snapshot;

ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_create(zkp_mem_tracker **out);
/* Frees *t and sets it to NULL; accepts *t == NULL. */
zkpipe_status zkp_mem_tracker_destroy(zkp_mem_tracker **t);

/* Adds a buffer of bytes to cat (live_count + 1). The pool does this; the
 * engine calls it directly only for memory that does not come from a pool
 * (a key mapped from its file, pinned host memory for a GPU). */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_charge(zkp_mem_tracker *t, zkp_mem_category cat,
                                                     uint64_t bytes);
/* Adds bytes to an allocation already charged (its count unchanged): for a
 * buffer whose pages become resident in steps. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_charge_more(zkp_mem_tracker *t,
                                                          zkp_mem_category cat, uint64_t bytes);
/* Removes one buffer of bytes from cat. ZKPIPE_ERR_INVALID_ARGUMENT, with
 * nothing changed, when cat holds fewer bytes or no buffer: the books would
 * no longer balance, which is a bug in the caller. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_discharge(zkp_mem_tracker *t, zkp_mem_category cat,
                                                        uint64_t bytes);
/* Removes bytes from cat, its count unchanged: the inverse of
 * charge_more, for memory that comes and goes in pieces of any size.
 * ZKPIPE_ERR_INVALID_ARGUMENT, nothing changed, when cat holds fewer. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_discharge_less(zkp_mem_tracker *t,
                                                             zkp_mem_category cat,
                                                             uint64_t bytes);
/* Moves one buffer of bytes from one category to another, the total
 * untouched at every instant: a pool region going idle, or taken again.
 * ZKPIPE_ERR_INVALID_ARGUMENT, nothing changed, when from holds fewer bytes
 * or no buffer. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_tracker_move(zkp_mem_tracker *t, zkp_mem_category from,
                                                   zkp_mem_category to, uint64_t bytes);
/* Lock-free: only atomic loads, so a status request or the sampler never
 * waits behind allocation work. */
zkpipe_status zkp_mem_tracker_snapshot(const zkp_mem_tracker *t, zkp_mem_snapshot *out);

/* ------------------------------------------------------------------------
 * Pool
 *
 * Size classes (docs/MEMORY.md): a big request (>= ZKP_MEM_BIG_MIN) is
 * rounded up to a multiple of 2 MiB (the huge-page size), and above 16 MiB
 * further up to one of 8 evenly spaced sizes per power of two, so the
 * rounding wastes less than 2 MiB, or less than 1/8 of the request. A freed
 * region is kept idle for the next request of the same class. */

#define ZKP_MEM_BIG_MIN ((size_t)1 << 20)
#define ZKP_MEM_CLASS_GRANULE ((size_t)2 << 20)

typedef struct zkp_mem_pool zkp_mem_pool;

typedef struct {
    /* Idle regions kept for reuse; the trimmer unmaps the oldest beyond
     * this. */
    uint64_t idle_max_bytes;
    /* Idle regions unused for this long are unmapped even under the cap,
     * so a quiet engine gives its memory back. 0: never. */
    unsigned idle_decay_ms;
    /* Control experiment: big buffers from glibc malloc (aligned_alloc)
     * instead of mmap'd regions; accounting is unchanged. */
    int big_from_malloc;
    /* Told of each mapped region of at least region_hook_min_bytes: once
     * after it is mapped and made resident, and once before it is
     * unmapped, with the same base and size. The engine uses it to register
     * the regions with a GPU's driver, so copies from them to the device
     * run at the bus's speed; a region stays registered while it idles, so
     * the cost is paid once per mapping, not per buffer. Both hooks run
     * without the pool's lock. NULL: none. */
    void (*region_mapped)(void *ctx, void *base, size_t bytes);
    void (*region_unmapping)(void *ctx, void *base, size_t bytes);
    void *region_hook_ctx;
    size_t region_hook_min_bytes;
} zkp_mem_pool_config;

/* idle_max_bytes 1 GiB, idle_decay_ms 30000, no region hooks,
 * big_from_malloc 0 (1 when the library is compiled with
 * ZKPIPE_MEM_MALLOC_CONTROL defined). */
zkpipe_status zkp_mem_pool_config_default(zkp_mem_pool_config *cfg);

/* Starts the trimmer thread. cfg NULL: the defaults. tracker is required. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_pool_create(zkp_mem_pool **out, zkp_mem_tracker *tracker,
                                                  const zkp_mem_pool_config *cfg);
/* Stops the trimmer, unmaps every idle region, frees the pool, sets *p to
 * NULL (accepts *p == NULL). ZKPIPE_ERR_INVALID_ARGUMENT, and nothing done,
 * while buffers from the pool are live. */
zkpipe_status zkp_mem_pool_destroy(zkp_mem_pool **p);

/* The bytes a request of `bytes` costs: its size class when big, else
 * bytes rounded up to ZKP_ALLOC_ALIGN. Reservations and the tracker are
 * charged this, so an estimator that sums zkp_mem_charge_size over its
 * buffers reserves exactly enough. ZKPIPE_ERR_OUT_OF_RANGE on overflow or
 * bytes == 0. */
zkpipe_status zkp_mem_charge_size(size_t bytes, size_t *out);

/* bytes > 0; *out aligned to ZKP_ALLOC_ALIGN (big buffers: page-aligned).
 * Contents are undefined (a recycled region keeps old data). Charges cat.
 * A big request reuses an idle region of its class without waiting; when
 * there is none and other classes sit idle, it waits until the trimmer has
 * unmapped as many idle bytes as it maps (the exchange rule).
 * ZKPIPE_ERR_NO_MEMORY when the OS refuses. cat must not be
 * ZKP_MEM_POOL_IDLE (the pool's own category). */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_pool_alloc(zkp_mem_pool *pool, size_t bytes,
                                                 zkp_mem_category cat, void **out);
/* p from zkp_mem_pool_alloc with the same bytes and cat; p NULL is a no-op.
 * Never unmaps on the caller's thread (except as a last resort when a few
 * bytes of bookkeeping cannot be allocated). */
zkpipe_status zkp_mem_pool_free(zkp_mem_pool *pool, void *p, size_t bytes, zkp_mem_category cat);

/* Asks the trimmer to bring the idle bytes down to keep_idle_bytes (and
 * unmap every retired region), and waits until it has. For idle periods,
 * shutdown and tests, not for workers. */
zkpipe_status zkp_mem_pool_trim(zkp_mem_pool *pool, uint64_t keep_idle_bytes);

typedef struct {
    uint64_t mapped_bytes;   /* every region now mapped: live + idle + retiring */
    uint64_t live_bytes;     /* big buffers handed out (class sizes) */
    uint64_t idle_bytes;     /* regions waiting for reuse */
    uint64_t retiring_bytes; /* regions waiting for the trimmer to unmap them */
    uint64_t peak_mapped_bytes;
    uint64_t maps;   /* regions ever mapped */
    uint64_t reuses; /* requests served by an idle region */
    uint64_t unmaps; /* regions ever unmapped */
} zkp_mem_pool_stats;

zkpipe_status zkp_mem_pool_stats_get(zkp_mem_pool *pool, zkp_mem_pool_stats *out);

/* ------------------------------------------------------------------------
 * Budget detection */

/* Where detection reads; tests point these at files of their own. NULL
 * fields take the system paths below. */
typedef struct {
    const char *cgroup_root; /* "/sys/fs/cgroup" */
    const char *self_cgroup; /* "/proc/self/cgroup" */
    const char *meminfo;     /* "/proc/meminfo" */
} zkp_mem_sources;

typedef enum {
    ZKP_MEM_LIMIT_MEMTOTAL,
    ZKP_MEM_LIMIT_CGROUP_V2,
    ZKP_MEM_LIMIT_CGROUP_V1,
    ZKP_MEM_LIMIT_CONFIGURED,
} zkp_mem_limit_source;

typedef struct {
    uint64_t mem_total;          /* MemTotal */
    uint64_t cgroup_limit;       /* tightest cgroup limit found; UINT64_MAX: none */
    zkp_mem_limit_source source; /* what decided `limit` */
    uint64_t limit;              /* min(cgroup_limit, mem_total), or the configured total */
    uint64_t margin;             /* taken off a detected limit; 0 for a configured one */
    uint64_t budget;             /* limit - margin */
} zkp_mem_limits;

/* The text of a cgroup v2 memory.max or v1 memory.limit_in_bytes: a
 * decimal byte count, or "max" (no limit: *out = UINT64_MAX); trailing
 * whitespace allowed. ZKPIPE_ERR_PARSE otherwise. */
zkpipe_status zkp_mem_parse_cgroup_limit(const char *text, uint64_t *out);

/* The MemTotal line of /proc/meminfo ("MemTotal:  16314276 kB"), in bytes.
 * ZKPIPE_ERR_PARSE when absent or malformed. */
zkpipe_status zkp_mem_parse_meminfo_total(const char *text, uint64_t *out);

/* The default safety margin for a detected limit: 5% of it, at least 1 GiB
 * and at most 32 GiB, and never more than half of it (docs/MEMORY.md). */
zkpipe_status zkp_mem_default_margin(uint64_t limit, uint64_t *out);

#define ZKP_MEM_MARGIN_AUTO UINT64_MAX

/* The budget total. configured_total > 0: that, but never more than
 * MemTotal or a cgroup limit (no margin: whoever configures it chose).
 * configured_total == 0: min(cgroup limit, MemTotal) less margin
 * (ZKP_MEM_MARGIN_AUTO: zkp_mem_default_margin). The cgroup limit is the
 * tightest memory.max (v2) or memory.limit_in_bytes (v1) on the path from
 * the process's cgroup (per self_cgroup) up to cgroup_root; missing files
 * are skipped. ZKPIPE_ERR_IO/ERR_PARSE when MemTotal cannot be read,
 * ZKPIPE_ERR_NO_MEMORY when the margin leaves nothing. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_detect_limits(const zkp_mem_sources *src,
                                                    uint64_t configured_total, uint64_t margin,
                                                    zkp_mem_limits *out, zkp_diag *diag);

/* ------------------------------------------------------------------------
 * Budget and reservations */

typedef struct zkp_mem_budget zkp_mem_budget;
typedef struct zkp_mem_reservation zkp_mem_reservation;

typedef struct {
    uint64_t total_bytes;           /* 0: detect (zkp_mem_detect_limits) */
    uint64_t margin_bytes;          /* for a detected total; ZKP_MEM_MARGIN_AUTO */
    const zkp_mem_sources *sources; /* NULL: the system's */
    zkp_mem_pool *pool;             /* where reservations allocate; required */
} zkp_mem_budget_config;

/* total_bytes 0, margin_bytes ZKP_MEM_MARGIN_AUTO, sources NULL, pool NULL. */
zkpipe_status zkp_mem_budget_config_default(zkp_mem_budget_config *cfg);

/* limits_out (may be NULL) receives how the total was decided. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_budget_create(zkp_mem_budget **out,
                                                    const zkp_mem_budget_config *cfg,
                                                    zkp_mem_limits *limits_out, zkp_diag *diag);
/* Frees *b and sets it to NULL (accepts *b == NULL).
 * ZKPIPE_ERR_INVALID_ARGUMENT, and nothing done, while reservations are
 * outstanding or waiting. */
zkpipe_status zkp_mem_budget_destroy(zkp_mem_budget **b);

/* Sets the total (an operator's new budget, or one phase of a benchmark's
 * sweep). A larger total grants the waiters that now fit. A smaller one
 * takes nothing back: reservations keep what they hold, and new ones are
 * granted once releases bring reserved + bytes under it, so what is
 * reserved can stay above the new total until the work holding it ends.
 * A waiter larger than the new total waits until the total is raised.
 * ZKPIPE_ERR_INVALID_ARGUMENT for 0 or more than min(MemTotal, cgroup
 * limit) as detected at creation. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_budget_set_total(zkp_mem_budget *b, uint64_t total,
                                                       zkp_diag *diag);

typedef struct {
    uint64_t total_bytes;
    uint64_t reserved_bytes;      /* held by reservations now */
    uint64_t peak_reserved_bytes; /* never above the largest total_bytes set */
    uint64_t reservations;        /* outstanding */
    uint64_t waiting;             /* requests queued now */
    uint64_t grants;              /* reservations ever granted */
    uint64_t grants_after_wait;   /* of those, how many had to queue */
} zkp_mem_budget_stats;

/* Lock-free (atomic loads), like zkp_mem_tracker_snapshot. */
zkpipe_status zkp_mem_budget_stats_get(const zkp_mem_budget *b, zkp_mem_budget_stats *out);

/* Served in this order, then first come first served. A waiting request
 * blocks every later request of its priority and below, even ones that
 * would fit: that is what keeps a big request from being starved by a
 * stream of small ones. */
typedef enum {
    ZKP_MEM_PRIO_LOW,
    ZKP_MEM_PRIO_NORMAL,
    ZKP_MEM_PRIO_HIGH,
    ZKP_MEM_PRIO_CRITICAL,
    ZKP_MEM_PRIO_COUNT
} zkp_mem_priority;

typedef struct {
    zkp_mem_priority priority;
    /* < 0: wait as long as it takes; 0: do not wait; > 0: give up after
     * this many milliseconds (ZKPIPE_ERR_TIMEOUT). */
    int64_t timeout_ms;
    /* If set, polled while waiting (every 10 ms): nonzero gives up with
     * ZKPIPE_ERR_CANCELLED. A grant that races with cancellation wins. */
    const atomic_int *cancel;
} zkp_mem_wait_opts;

/* Reserves bytes from b for one job and sets *out to the new reservation.
 * Grants immediately when bytes fit and no request of the same or a higher
 * priority is queued; otherwise queues and waits as opts says.
 *   ZKPIPE_ERR_NO_MEMORY   bytes exceed the budget's total: it could never
 *                          be granted (diag gives both), or the reservation
 *                          object could not be allocated
 *   ZKPIPE_ERR_TIMEOUT     not granted in time (at once, for timeout 0)
 *   ZKPIPE_ERR_CANCELLED   the cancel flag was raised first
 * On failure *out is NULL and nothing is held. bytes == 0 is a valid,
 * empty reservation. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_reserve_wait(zkp_mem_budget *b, uint64_t bytes,
                                                   const zkp_mem_wait_opts *opts,
                                                   zkp_mem_reservation **out, zkp_diag *diag);
/* Waits as long as it takes. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_reserve(zkp_mem_budget *b, uint64_t bytes,
                                              zkp_mem_priority priority, zkp_mem_reservation **out);
/* Does not wait: ZKPIPE_ERR_TIMEOUT unless granted at once. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_try_reserve(zkp_mem_budget *b, uint64_t bytes,
                                                  zkp_mem_priority priority,
                                                  zkp_mem_reservation **out);

/* Gives bytes of r's unallocated remainder back to the budget at once (the
 * two-phase release: a, b, c are gone after prove_start). r keeps the
 * rest. ZKPIPE_ERR_RESERVATION_EXCEEDED, nothing released, when fewer
 * unallocated bytes remain. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_release_part(zkp_mem_reservation *r, uint64_t bytes);

/* Gives everything r holds back to the budget, frees r and sets *r to NULL
 * (accepts *r == NULL). ZKPIPE_ERR_INVALID_ARGUMENT, nothing released, while
 * a buffer allocated from r is live: the bytes must not return to the
 * budget before the data they paid for is gone. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_release(zkp_mem_reservation **r);

#ifdef ZKPIPE_FAULT_EARLY_RELEASE
/* The control run's fault (CMake ZKPIPE_FAULT_EARLY_RELEASE, off by
 * default; docs/MEMORY.md, "The seed's fault, recreated"). Gives every byte
 * r still holds from the budget back to it at once, whatever is allocated
 * from r, so the budget admits other work while r's buffers are still
 * resident. r keeps its own books: its buffers are still charged to it and
 * refused beyond it, zkp_mem_release_part and zkp_mem_release still follow
 * its remainder, but they give the budget only what r holds from it (none
 * after this), so the budget's counters never go below zero. This is the
 * one way around "no bytes back while their data is live"; it exists to
 * show what that rule prevents. */
zkpipe_status zkp_mem_fault_release_early(zkp_mem_reservation *r);
#endif

/* Allocates from r: charges zkp_mem_charge_size(bytes) to r, then takes the
 * buffer from the budget's pool (which charges cat in the tracker).
 *   ZKPIPE_ERR_RESERVATION_EXCEEDED  the charge exceeds r's unallocated
 *                                    remainder; nothing allocated
 *   ZKPIPE_ERR_NO_MEMORY             the OS refused; r's remainder restored */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_alloc(zkp_mem_reservation *r, size_t bytes,
                                            zkp_mem_category cat, void **out);
/* Frees a buffer from zkp_mem_alloc(r, bytes, cat); its charge returns to
 * r, not to the budget. p NULL is a no-op. */
zkpipe_status zkp_mem_free(zkp_mem_reservation *r, void *p, size_t bytes, zkp_mem_category cat);

/* Memory that does not come from the pool but is resident on r's behalf:
 * the pages of a mapped file while they are read. zkp_mem_charge_external
 * takes bytes from r's unallocated remainder, as an allocation would, makes
 * room for them under the pool's exchange rule (idle regions worth bytes
 * are unmapped first, waiting for the trimmer), and charges them to the
 * tracker under cat; call it before the pages become resident.
 * ZKPIPE_ERR_RESERVATION_EXCEEDED (counted as refused; nothing charged)
 * when r's remainder is short. zkp_mem_discharge_external gives bytes back
 * to r and the tracker once the pages are gone, in pieces of any size (the
 * tracker counts no buffers for them). Until then r cannot be released. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_charge_external(zkp_mem_reservation *r, uint64_t bytes,
                                                      zkp_mem_category cat);
zkpipe_status zkp_mem_discharge_external(zkp_mem_reservation *r, uint64_t bytes,
                                         zkp_mem_category cat);

/* A zkp_allocator whose alloc and free are zkp_mem_alloc and zkp_mem_free
 * on r, for the prover's options and the parsers. Valid until r is
 * released. Its alloc returns NULL on any failure (the prover reports
 * ZKPIPE_ERR_NO_MEMORY); the refused count of zkp_mem_reservation_info_get
 * tells a reservation that was too small from an OS that said no. */
zkpipe_status zkp_mem_reservation_allocator(zkp_mem_reservation *r, const zkp_allocator **out);

typedef struct {
    uint64_t reserved_bytes;  /* still held from the budget */
    uint64_t allocated_bytes; /* charged by live buffers */
    uint64_t refused;         /* allocations refused for exceeding r */
    uint64_t grant_sequence;  /* 1 for the budget's first grant, then 2, ... */
} zkp_mem_reservation_info;

zkpipe_status zkp_mem_reservation_info_get(const zkp_mem_reservation *r,
                                           zkp_mem_reservation_info *out);

/* ------------------------------------------------------------------------
 * Resident memory and the sampler */

/* Resident set size of this process now (/proc/self/statm). */
zkpipe_status zkp_mem_read_rss(uint64_t *out);
/* The kernel's high-water mark of the resident set (VmHWM in
 * /proc/self/status): exact, unlike any sampling. */
zkpipe_status zkp_mem_read_peak_rss(uint64_t *out);
/* Resets the high-water mark to the current RSS (writes "5" to
 * /proc/self/clear_refs). ZKPIPE_ERR_IO where the kernel does not allow it. */
zkpipe_status zkp_mem_reset_peak_rss(void);

/* Pages in the code a proof runs (the executable mappings of the object
 * the engine lives in, and of the C and math libraries), so that code first
 * run by a proof is resident before the baseline RSS is taken rather than
 * showing up later as memory no category accounts for. ZKPIPE_ERR_IO when
 * /proc/self/maps is unreadable. */
zkpipe_status zkp_mem_prefault_code(void);

/* Returns the C library's free heap pages to the operating system
 * (glibc's malloc_trim; a no-op elsewhere). Small allocations of many
 * threads otherwise leave freed pages resident in per-thread arenas. */
void zkp_mem_trim_heap(void);

typedef struct zkp_mem_sampler zkp_mem_sampler;

typedef struct {
    unsigned period_ms;             /* 0: 100 */
    const char *csv_path;           /* NULL: no timeline */
    const zkp_mem_tracker *tracker; /* NULL: no tracked columns */
    const zkp_mem_budget *budget;   /* NULL: no budget columns */
} zkp_mem_sampler_config;

typedef struct {
    uint64_t rss_bytes;      /* now */
    uint64_t peak_rss_bytes; /* highest sample since start or the last reset */
    uint64_t samples;
} zkp_mem_sampler_stats;

/* Starts the sampling thread; its first sample is taken before this
 * returns. With csv_path, writes a header line and then one line per sample:
 *   time_s,rss_bytes,tracked_bytes,<one column per category>,
 *   budget_reserved_bytes,budget_total_bytes
 * (time since start; category columns are live bytes; columns without a
 * source are 0). ZKPIPE_ERR_IO when statm or the CSV cannot be opened. */
ZKP_WARN_UNUSED zkpipe_status zkp_mem_sampler_start(zkp_mem_sampler **out,
                                                    const zkp_mem_sampler_config *cfg,
                                                    zkp_diag *diag);
/* Takes a sample now (on the caller's thread; not written to the CSV) and
 * reports. */
zkpipe_status zkp_mem_sampler_stats_get(zkp_mem_sampler *s, zkp_mem_sampler_stats *out);
/* Starts a new peak from the current RSS. */
zkpipe_status zkp_mem_sampler_reset_peak(zkp_mem_sampler *s);
/* Wakes and joins the thread at once (no waiting out a period), takes a
 * last sample, flushes and closes the CSV, frees *s and sets it to NULL
 * (accepts *s == NULL). last (may be NULL) receives the last stats.
 * ZKPIPE_ERR_IO when the CSV could not be written in full. */
zkpipe_status zkp_mem_sampler_stop(zkp_mem_sampler **s, zkp_mem_sampler_stats *last);

#endif
