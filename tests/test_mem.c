/* The memory subsystem (src/mem): budget detection, admission order,
 * reservations as the only allocator, the pool's recycling and trimming,
 * the tracker's books, the RSS sampler, and a load test that holds the
 * process's resident memory to its budget.
 *
 * Worker threads never ASSERT (a failed assertion ends the case by
 * longjmp, which must happen on the case's own thread): they record what
 * they saw, and the case checks after joining them. */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mem/mem.h"
#include "test.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* ThreadSanitizer keeps shadow memory for every byte the program touches,
 * so under it RSS measures the sanitizer as much as the pool; the RSS
 * bounds are checked in the other builds only (the bookkeeping checks run
 * everywhere). */
#if defined(__SANITIZE_THREAD__)
#define RSS_IS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSS_IS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_IS_MEANINGFUL
#define RSS_IS_MEANINGFUL 1
#endif

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Makes every page of a buffer resident: one write per page costs what a
 * memset would in page faults, without a sanitizer checking every byte. */
static void touch_pages(void *p, size_t bytes, unsigned char value) {
    volatile unsigned char *c = p;
    for (size_t i = 0; i < bytes; i += 4096) c[i] = value;
    if (bytes) c[bytes - 1] = value;
}

static size_t charge_of(size_t bytes) {
    size_t c;
    ASSERT_OK(zkp_mem_charge_size(bytes, &c));
    return c;
}

/* ------------------------------------------------------------------------
 * A tracker, a pool and a budget wired together. */

typedef struct {
    zkp_mem_tracker *tracker;
    zkp_mem_pool *pool;
    zkp_mem_budget *budget;
} mem_rig;

static zkp_mem_pool_config pool_config(uint64_t idle_max, unsigned decay_ms) {
    zkp_mem_pool_config cfg;
    ASSERT_OK(zkp_mem_pool_config_default(&cfg));
    cfg.idle_max_bytes = idle_max;
    cfg.idle_decay_ms = decay_ms;
    cfg.big_from_malloc = 0; /* the pool under test, whatever the build's default */
    return cfg;
}

static void rig_open_with(mem_rig *rig, uint64_t budget_bytes, const zkp_mem_pool_config *pcfg) {
    memset(rig, 0, sizeof *rig);
    ASSERT_OK(zkp_mem_tracker_create(&rig->tracker));
    ASSERT_OK(zkp_mem_pool_create(&rig->pool, rig->tracker, pcfg));
    zkp_mem_budget_config bcfg;
    ASSERT_OK(zkp_mem_budget_config_default(&bcfg));
    bcfg.total_bytes = budget_bytes;
    bcfg.pool = rig->pool;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_mem_budget_create(&rig->budget, &bcfg, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    zkp_mem_budget_stats bs;
    ASSERT_OK(zkp_mem_budget_stats_get(rig->budget, &bs));
    ASSERT_EQ_U64(bs.total_bytes, budget_bytes);
}

static void rig_open(mem_rig *rig, uint64_t budget_bytes) {
    zkp_mem_pool_config pcfg = pool_config(GIB, 0);
    rig_open_with(rig, budget_bytes, &pcfg);
}

/* Every book must balance when a rig is closed. */
static void rig_close(mem_rig *rig) {
    zkp_mem_budget_stats bs;
    ASSERT_OK(zkp_mem_budget_stats_get(rig->budget, &bs));
    ASSERT_EQ_U64(bs.reserved_bytes, 0);
    ASSERT_EQ_U64(bs.reservations, 0);
    ASSERT_EQ_U64(bs.waiting, 0);
    ASSERT(bs.peak_reserved_bytes <= bs.total_bytes);
    ASSERT_OK(zkp_mem_budget_destroy(&rig->budget));
    ASSERT_OK(zkp_mem_pool_destroy(&rig->pool));
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++) {
        ASSERT_MSG(snap.cat[c].live_bytes == 0 && snap.cat[c].live_count == 0,
                   "category %s still holds %" PRIu64 " bytes in %" PRIu64 " buffers",
                   zkp_mem_category_name((zkp_mem_category)c), snap.cat[c].live_bytes,
                   snap.cat[c].live_count);
    }
    ASSERT_EQ_U64(snap.total_live_bytes, 0);
    ASSERT_OK(zkp_mem_tracker_destroy(&rig->tracker));
}

static zkp_mem_pool_stats pool_stats(zkp_mem_pool *pool) {
    zkp_mem_pool_stats s;
    ASSERT_OK(zkp_mem_pool_stats_get(pool, &s));
    return s;
}

static zkp_mem_budget_stats budget_stats(const zkp_mem_budget *b) {
    zkp_mem_budget_stats s;
    ASSERT_OK(zkp_mem_budget_stats_get(b, &s));
    return s;
}

static zkp_mem_category_stats category(const zkp_mem_tracker *t, zkp_mem_category cat) {
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(t, &snap));
    return snap.cat[cat];
}

/* Polls until the budget has `n` queued requests (a waiter thread has
 * really entered the queue), for at most 5 s. */
static void wait_for_waiting(const zkp_mem_budget *b, uint64_t n) {
    uint64_t give_up = now_ms() + 5000;
    while (budget_stats(b).waiting != n) {
        ASSERT_MSG(now_ms() < give_up, "waited 5 s for %" PRIu64 " queued requests", n);
        sleep_ms(1);
    }
}

/* ------------------------------------------------------------------------
 * Budget detection */

TEST_CASE(mem_parse_cgroup_limit_text) {
    uint64_t v;
    ASSERT_OK(zkp_mem_parse_cgroup_limit("max\n", &v));
    ASSERT_EQ_U64(v, UINT64_MAX);
    ASSERT_OK(zkp_mem_parse_cgroup_limit("max", &v));
    ASSERT_EQ_U64(v, UINT64_MAX);
    ASSERT_OK(zkp_mem_parse_cgroup_limit("8589934592\n", &v));
    ASSERT_EQ_U64(v, 8589934592u);
    ASSERT_OK(zkp_mem_parse_cgroup_limit("0\n", &v));
    ASSERT_EQ_U64(v, 0);
    /* cgroup v1's "no limit": PAGE_COUNTER_MAX pages, a number, not "max". */
    ASSERT_OK(zkp_mem_parse_cgroup_limit("9223372036854771712\n", &v));
    ASSERT_EQ_U64(v, 9223372036854771712u);
    static const char *const bad[] = {
        "", "\n", "maxx\n", "12k\n", "-1\n", "1 2\n", " 12\n", "18446744073709551616\n", "max 1"};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(bad); i++)
        ASSERT_MSG(zkp_mem_parse_cgroup_limit(bad[i], &v) == ZKPIPE_ERR_PARSE, "accepted \"%s\"",
                   bad[i]);
}

TEST_CASE(mem_parse_meminfo_total_text) {
    static const char meminfo[] =
        "MemFree:         1000 kB\n"
        "MemTotal:       24684084 kB\n"
        "MemAvailable:   22000000 kB\n";
    uint64_t v;
    ASSERT_OK(zkp_mem_parse_meminfo_total(meminfo, &v));
    ASSERT_EQ_U64(v, 24684084ull * 1024);
    ASSERT_OK(zkp_mem_parse_meminfo_total("MemTotal: 16 kB", &v));
    ASSERT_EQ_U64(v, 16 * 1024);
    static const char *const bad[] = {"",
                                      "MemFree: 10 kB\n",
                                      "MemTotal: kB\n",
                                      "MemTotal: 10 MB\n",
                                      "MemTotal: 10\n",
                                      "MemTotals: 10 kB\n",
                                      " MemTotal: 10 kB\n",
                                      "MemTotal: 99999999999999999999 kB\n"};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(bad); i++)
        ASSERT_MSG(zkp_mem_parse_meminfo_total(bad[i], &v) == ZKPIPE_ERR_PARSE, "accepted \"%s\"",
                   bad[i]);
}

TEST_CASE(mem_default_margin_rule) {
    uint64_t m;
    /* 5% ... */
    ASSERT_OK(zkp_mem_default_margin(100 * GIB, &m));
    ASSERT_EQ_U64(m, 5 * GIB);
    /* ... at least 1 GiB ... */
    ASSERT_OK(zkp_mem_default_margin(8 * GIB, &m));
    ASSERT_EQ_U64(m, GIB);
    /* ... at most 32 GiB ... */
    ASSERT_OK(zkp_mem_default_margin(2048 * GIB, &m));
    ASSERT_EQ_U64(m, 32 * GIB);
    /* ... and never more than half a small limit. */
    ASSERT_OK(zkp_mem_default_margin(GIB, &m));
    ASSERT_EQ_U64(m, GIB / 2);
}

/* A scratch directory for fake /proc and /sys files. */
typedef struct {
    char root[64];
} temp_tree;

static void tree_make(temp_tree *t) {
    snprintf(t->root, sizeof t->root, "/tmp/zkp_mem_test_XXXXXX");
    ASSERT(mkdtemp(t->root) != NULL);
}

/* Writes root/rel, creating the directories on the way. */
static void tree_write(const temp_tree *t, const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", t->root, rel);
    for (char *s = strchr(path + strlen(t->root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        ASSERT_MSG(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s", path);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    ASSERT_MSG(f != NULL, "cannot create %s", path);
    ASSERT(fputs(text, f) >= 0);
    ASSERT(fclose(f) == 0);
}

static const char *tree_path(const temp_tree *t, const char *rel, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", t->root, rel);
    return buf;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void tree_remove(const temp_tree *t) {
    ASSERT(nftw(t->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

typedef struct {
    char cgroup_root[512], self_cgroup[512], meminfo[512];
    zkp_mem_sources src;
} fake_sources;

static void fake_sources_init(fake_sources *f, const temp_tree *t) {
    f->src.cgroup_root = tree_path(t, "sys", f->cgroup_root, sizeof f->cgroup_root);
    f->src.self_cgroup = tree_path(t, "self_cgroup", f->self_cgroup, sizeof f->self_cgroup);
    f->src.meminfo = tree_path(t, "meminfo", f->meminfo, sizeof f->meminfo);
}

static zkp_mem_limits detect(const fake_sources *f, uint64_t configured, uint64_t margin) {
    zkp_mem_limits lim;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_mem_detect_limits(&f->src, configured, margin, &lim, &d) == ZKPIPE_OK, "%s",
               d.msg);
    return lim;
}

TEST_CASE(mem_detect_limits_from_cgroups_and_meminfo) {
    temp_tree t;
    tree_make(&t);
    fake_sources f;
    fake_sources_init(&f, &t);
    tree_write(&t, "meminfo", "MemTotal:       67108864 kB\nMemFree: 1 kB\n"); /* 64 GiB */

    /* No cgroup files at all: MemTotal less the default margin (5%). */
    zkp_mem_limits lim = detect(&f, 0, ZKP_MEM_MARGIN_AUTO);
    ASSERT_EQ_INT(lim.source, ZKP_MEM_LIMIT_MEMTOTAL);
    ASSERT_EQ_U64(lim.mem_total, 64 * GIB);
    ASSERT_EQ_U64(lim.cgroup_limit, UINT64_MAX);
    ASSERT_EQ_U64(lim.limit, 64 * GIB);
    ASSERT_EQ_U64(lim.margin, 64 * GIB / 20);
    ASSERT_EQ_U64(lim.budget, 64 * GIB - 64 * GIB / 20);

    /* cgroup v2: the tightest memory.max from the process's cgroup up to
     * the root; "max" means none. */
    tree_write(&t, "self_cgroup", "0::/jobs/prover\n");
    tree_write(&t, "sys/memory.max", "max\n");
    tree_write(&t, "sys/jobs/memory.max", "34359738368\n"); /* 32 GiB */
    tree_write(&t, "sys/jobs/prover/memory.max", "max\n");
    lim = detect(&f, 0, GIB);
    ASSERT_EQ_INT(lim.source, ZKP_MEM_LIMIT_CGROUP_V2);
    ASSERT_EQ_U64(lim.cgroup_limit, 32 * GIB);
    ASSERT_EQ_U64(lim.limit, 32 * GIB);
    ASSERT_EQ_U64(lim.margin, GIB);
    ASSERT_EQ_U64(lim.budget, 31 * GIB);

    /* A limit above MemTotal: never plan with more than the machine has. */
    tree_write(&t, "sys/jobs/memory.max", "137438953472\n"); /* 128 GiB */
    lim = detect(&f, 0, GIB);
    ASSERT_EQ_INT(lim.source, ZKP_MEM_LIMIT_MEMTOTAL);
    ASSERT_EQ_U64(lim.limit, 64 * GIB);

    /* cgroup v1 (the memory controller's own hierarchy), tighter than v2;
     * its "unlimited" is a huge number. */
    tree_write(&t, "self_cgroup", "0::/jobs/prover\n5:cpu,memory:/box\n");
    tree_write(&t, "sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
    tree_write(&t, "sys/memory/box/memory.limit_in_bytes", "17179869184\n"); /* 16 GiB */
    lim = detect(&f, 0, ZKP_MEM_MARGIN_AUTO);
    ASSERT_EQ_INT(lim.source, ZKP_MEM_LIMIT_CGROUP_V1);
    ASSERT_EQ_U64(lim.limit, 16 * GIB);
    ASSERT_EQ_U64(lim.margin, GIB);
    ASSERT_EQ_U64(lim.budget, 15 * GIB);

    /* A configured total is taken as is (no margin), but capped by the
     * cgroup and MemTotal. */
    lim = detect(&f, 4 * GIB, ZKP_MEM_MARGIN_AUTO);
    ASSERT_EQ_INT(lim.source, ZKP_MEM_LIMIT_CONFIGURED);
    ASSERT_EQ_U64(lim.margin, 0);
    ASSERT_EQ_U64(lim.budget, 4 * GIB);
    lim = detect(&f, 100 * GIB, ZKP_MEM_MARGIN_AUTO);
    ASSERT_EQ_U64(lim.budget, 16 * GIB);

    /* A margin that leaves nothing, and a MemTotal that cannot be read. */
    zkp_mem_limits bad;
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_detect_limits(&f.src, 0, 16 * GIB, &bad, &d), ZKPIPE_ERR_NO_MEMORY);
    ASSERT(strstr(d.msg, "margin") != NULL);
    tree_write(&t, "meminfo", "MemFree: 1 kB\n");
    ASSERT_EQ_STATUS(zkp_mem_detect_limits(&f.src, 0, GIB, &bad, &d), ZKPIPE_ERR_PARSE);
    ASSERT(remove(f.meminfo) == 0);
    ASSERT_EQ_STATUS(zkp_mem_detect_limits(&f.src, 0, GIB, &bad, &d), ZKPIPE_ERR_IO);
    tree_remove(&t);
}

TEST_CASE(mem_detect_limits_on_this_machine) {
    zkp_mem_limits lim;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_mem_detect_limits(NULL, 0, ZKP_MEM_MARGIN_AUTO, &lim, &d) == ZKPIPE_OK, "%s",
               d.msg);
    ASSERT(lim.mem_total > 0);
    ASSERT(lim.limit <= lim.mem_total);
    ASSERT(lim.budget > 0 && lim.budget + lim.margin == lim.limit);
    printf("  MemTotal %" PRIu64 " MiB, cgroup limit %s, budget %" PRIu64 " MiB\n",
           lim.mem_total / MIB, lim.cgroup_limit == UINT64_MAX ? "none" : "set", lim.budget / MIB);
}

/* ------------------------------------------------------------------------
 * Size classes and the tracker */

TEST_CASE(mem_size_classes_bound_the_waste) {
    size_t c;
    ASSERT_EQ_STATUS(zkp_mem_charge_size(0, &c), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_EQ_STATUS(zkp_mem_charge_size(SIZE_MAX, &c), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_EQ_U64(charge_of(1), 64);
    ASSERT_EQ_U64(charge_of(ZKP_MEM_BIG_MIN - 1), ZKP_MEM_BIG_MIN);
    ASSERT_EQ_U64(charge_of(ZKP_MEM_BIG_MIN), 2 * MIB);
    ASSERT_EQ_U64(charge_of(16 * MIB + 1), 18 * MIB);
    ASSERT_EQ_U64(charge_of(32 * MIB + 1), 36 * MIB);
    ASSERT_EQ_U64(charge_of(GIB + 1), GIB + GIB / 8);

    /* Random big sizes: at least the request, a multiple of 2 MiB, less
     * than 2 MiB or 1/8 over it, and monotone in the request. */
    for (unsigned i = 0; i < test_iters(20000); i++) {
        unsigned log2 = 20 + (unsigned)(test_rng_u64() % 22); /* 1 MiB .. 4 TiB */
        size_t bytes = ((size_t)1 << log2) + (size_t)(test_rng_u64() % ((uint64_t)1 << log2));
        size_t cs = charge_of(bytes);
        ASSERT(cs >= bytes);
        ASSERT_EQ_U64(cs % ZKP_MEM_CLASS_GRANULE, 0);
        ASSERT_MSG(cs - bytes < ZKP_MEM_CLASS_GRANULE || (cs - bytes) * 8 < bytes,
                   "%zu bytes cost %zu", bytes, cs);
        ASSERT(charge_of(bytes + 1) >= cs);
        ASSERT_EQ_U64(charge_of(cs), cs); /* a class size is its own class */
    }
}

typedef struct {
    zkp_mem_tracker *tracker;
    unsigned rounds;
    atomic_int failures;
} tracker_race;

static void *tracker_worker(void *arg) {
    tracker_race *tr = arg;
    for (unsigned i = 0; i < tr->rounds; i++) {
        zkp_mem_category cat = (zkp_mem_category)(i % ZKP_MEM_CATEGORY_COUNT);
        uint64_t bytes = 64 * (1 + i % 7);
        if (zkp_mem_tracker_charge(tr->tracker, cat, bytes) != ZKPIPE_OK ||
            zkp_mem_tracker_discharge(tr->tracker, cat, bytes) != ZKPIPE_OK)
            atomic_fetch_add(&tr->failures, 1);
    }
    return NULL;
}

TEST_CASE(mem_tracker_counts_balance_to_zero) {
    zkp_mem_tracker *t;
    ASSERT_OK(zkp_mem_tracker_create(&t));
    ASSERT_OK(zkp_mem_tracker_charge(t, ZKP_MEM_KEY, 1000));
    ASSERT_OK(zkp_mem_tracker_charge(t, ZKP_MEM_KEY, 500));
    ASSERT_OK(zkp_mem_tracker_charge(t, ZKP_MEM_GPU_STAGING, 7));
    zkp_mem_category_stats key = category(t, ZKP_MEM_KEY);
    ASSERT_EQ_U64(key.live_bytes, 1500);
    ASSERT_EQ_U64(key.live_count, 2);
    /* Unbalanced discharges are refused and change nothing. */
    ASSERT_EQ_STATUS(zkp_mem_tracker_discharge(t, ZKP_MEM_KEY, 2000), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_tracker_discharge(t, ZKP_MEM_ABC, 1), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_tracker_charge(t, ZKP_MEM_CATEGORY_COUNT, 1),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_U64(category(t, ZKP_MEM_KEY).live_bytes, 1500);
    ASSERT_OK(zkp_mem_tracker_discharge(t, ZKP_MEM_KEY, 1000));
    ASSERT_OK(zkp_mem_tracker_discharge(t, ZKP_MEM_KEY, 500));
    ASSERT_OK(zkp_mem_tracker_discharge(t, ZKP_MEM_GPU_STAGING, 7));

    /* Concurrent charges and discharges lose nothing. */
    tracker_race tr = {t, test_iters(20000), 0};
    pthread_t th[4];
    for (int i = 0; i < 4; i++) ASSERT(pthread_create(&th[i], NULL, tracker_worker, &tr) == 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    ASSERT_EQ_INT(atomic_load(&tr.failures), 0);

    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(t, &snap));
    for (int c = 0; c < ZKP_MEM_CATEGORY_COUNT; c++) {
        ASSERT_EQ_U64(snap.cat[c].live_bytes, 0);
        ASSERT_EQ_U64(snap.cat[c].live_count, 0);
    }
    ASSERT_EQ_U64(snap.total_live_bytes, 0);
    ASSERT_EQ_U64(snap.cat[ZKP_MEM_KEY].peak_bytes >= 1500, 1);
    ASSERT(snap.total_peak_bytes >= 1507);
    ASSERT_OK(zkp_mem_tracker_destroy(&t));
    ASSERT(t == NULL);
}

/* ------------------------------------------------------------------------
 * The pool */

TEST_CASE(mem_pool_recycles_regions_of_a_class) {
    mem_rig rig;
    rig_open(&rig, 256 * MIB);
    void *a, *b, *c, *small;
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 3 * MIB, ZKP_MEM_SCRATCH, &a));
    ASSERT_EQ_U64((uintptr_t)a % 4096, 0);
    touch_pages(a, 3 * MIB, 1);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_SCRATCH).live_bytes, 4 * MIB);
    ASSERT_OK(zkp_mem_pool_free(rig.pool, a, 3 * MIB, ZKP_MEM_SCRATCH));
    zkp_mem_pool_stats s = pool_stats(rig.pool);
    ASSERT_EQ_U64(s.maps, 1);
    ASSERT_EQ_U64(s.idle_bytes, 4 * MIB);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_POOL_IDLE).live_bytes, 4 * MIB);

    /* 3.5 MiB is the same 4 MiB class: the same region comes back. */
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 3 * MIB + MIB / 2, ZKP_MEM_ABC, &b));
    ASSERT(b == a);
    s = pool_stats(rig.pool);
    ASSERT_EQ_U64(s.maps, 1);
    ASSERT_EQ_U64(s.reuses, 1);
    ASSERT_EQ_U64(s.idle_bytes, 0);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_ABC).live_bytes, 4 * MIB);

    /* Another class is a new mapping; small buffers are malloc'd but
     * tracked. */
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 5 * MIB, ZKP_MEM_ABC, &c));
    ASSERT(c != a);
    ASSERT_EQ_U64(pool_stats(rig.pool).maps, 2);
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 1000, ZKP_MEM_WITNESS, &small));
    ASSERT_EQ_U64((uintptr_t)small % ZKP_ALLOC_ALIGN, 0);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_WITNESS).live_bytes, 1024);
    ASSERT_EQ_U64(pool_stats(rig.pool).maps, 2);
    void *refused;
    ASSERT_EQ_STATUS(zkp_mem_pool_alloc(rig.pool, 10, ZKP_MEM_POOL_IDLE, &refused),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(refused == NULL);
    /* A pool with live buffers refuses to go. */
    ASSERT_EQ_STATUS(zkp_mem_pool_destroy(&rig.pool), ZKPIPE_ERR_INVALID_ARGUMENT);

    ASSERT_OK(zkp_mem_pool_free(rig.pool, b, 3 * MIB + MIB / 2, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_pool_free(rig.pool, c, 5 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_pool_free(rig.pool, small, 1000, ZKP_MEM_WITNESS));
    rig_close(&rig);
}

TEST_CASE(mem_pool_new_mappings_retire_idle_bytes) {
    mem_rig rig;
    rig_open(&rig, 256 * MIB);
    void *a, *b, *c;
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 8 * MIB, ZKP_MEM_AUX, &a));
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 2 * MIB, ZKP_MEM_AUX, &b));
    ASSERT_OK(zkp_mem_pool_free(rig.pool, a, 8 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_pool_free(rig.pool, b, 2 * MIB, ZKP_MEM_AUX));
    ASSERT_EQ_U64(pool_stats(rig.pool).idle_bytes, 10 * MIB);

    /* A 6 MiB class has no idle region: before mapping one, the oldest
     * idle region (8 MiB, enough to cover it) is unmapped; the 2 MiB one
     * stays. */
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 6 * MIB, ZKP_MEM_AUX, &c));
    zkp_mem_pool_stats s = pool_stats(rig.pool);
    ASSERT_EQ_U64(s.idle_bytes, 2 * MIB);
    ASSERT_EQ_U64(s.retiring_bytes, 0);
    ASSERT_EQ_U64(s.unmaps, 1);
    ASSERT_EQ_U64(s.mapped_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.peak_mapped_bytes, 10 * MIB); /* never 16: the exchange came first */
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_POOL_IDLE).live_bytes, 2 * MIB);
    ASSERT_OK(zkp_mem_pool_free(rig.pool, c, 6 * MIB, ZKP_MEM_AUX));
    rig_close(&rig);
}

TEST_CASE(mem_pool_idle_cap_and_decay) {
    mem_rig rig;
    zkp_mem_pool_config cfg = pool_config(8 * MIB, 0);
    rig_open_with(&rig, 256 * MIB, &cfg);
    void *p[4];
    for (int i = 0; i < 4; i++)
        ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 4 * MIB, ZKP_MEM_CSR, &p[i]));
    for (int i = 0; i < 4; i++) ASSERT_OK(zkp_mem_pool_free(rig.pool, p[i], 4 * MIB, ZKP_MEM_CSR));
    /* The cap keeps 8 MiB; the two regions freed first were unmapped. */
    ASSERT_OK(zkp_mem_pool_trim(rig.pool, UINT64_MAX));
    zkp_mem_pool_stats s = pool_stats(rig.pool);
    ASSERT_EQ_U64(s.idle_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.mapped_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.unmaps, 2);
    void *again;
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 4 * MIB, ZKP_MEM_CSR, &again));
    ASSERT(again == p[3]); /* the warmest region first */
    ASSERT_OK(zkp_mem_pool_free(rig.pool, again, 4 * MIB, ZKP_MEM_CSR));
    rig_close(&rig);

    /* Decay: idle regions go back after idle_decay_ms even under the cap. */
    cfg = pool_config(GIB, 50);
    rig_open_with(&rig, 256 * MIB, &cfg);
    uint64_t t0 = now_ms();
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, 4 * MIB, ZKP_MEM_CSR, &p[0]));
    ASSERT_OK(zkp_mem_pool_free(rig.pool, p[0], 4 * MIB, ZKP_MEM_CSR));
    while (pool_stats(rig.pool).mapped_bytes != 0) {
        ASSERT_MSG(now_ms() - t0 < 5000, "the idle region was not unmapped within 5 s");
        sleep_ms(5);
    }
    ASSERT(now_ms() - t0 >= 50);
    rig_close(&rig);
}

/* RSS through a sampler, fresh. */
static uint64_t sampled_rss(zkp_mem_sampler *s) {
    zkp_mem_sampler_stats st;
    ASSERT_OK(zkp_mem_sampler_stats_get(s, &st));
    return st.rss_bytes;
}

TEST_CASE(mem_pool_trimmer_returns_idle_memory_to_the_os) {
    mem_rig rig;
    rig_open(&rig, 256 * MIB);
    zkp_mem_sampler *sampler;
    zkp_mem_sampler_config scfg = {.period_ms = 5, .tracker = rig.tracker};
    ASSERT_OK(zkp_mem_sampler_start(&sampler, &scfg, NULL));
    const size_t size = 64 * MIB;
    uint64_t baseline = sampled_rss(sampler);

    void *p;
    ASSERT_OK(zkp_mem_pool_alloc(rig.pool, size, ZKP_MEM_ABC, &p));
    touch_pages(p, size, 7);
    uint64_t live = sampled_rss(sampler);
    ASSERT_OK(zkp_mem_pool_free(rig.pool, p, size, ZKP_MEM_ABC));
    /* Idle under the cap: still resident, and accounted as pool_idle. */
    uint64_t idle = sampled_rss(sampler);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_POOL_IDLE).live_bytes, size);
    ASSERT_OK(zkp_mem_pool_trim(rig.pool, 0));
    uint64_t trimmed = sampled_rss(sampler);
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_EQ_U64(pool_stats(rig.pool).mapped_bytes, 0);
    zkp_mem_sampler_stats last;
    ASSERT_OK(zkp_mem_sampler_stop(&sampler, &last));
    printf("  RSS MiB: baseline %.1f, live %.1f, idle %.1f, trimmed %.1f, peak %.1f\n",
           (double)baseline / MIB, (double)live / MIB, (double)idle / MIB, (double)trimmed / MIB,
           (double)last.peak_rss_bytes / MIB);
    ASSERT(live >= baseline + size - 2 * MIB);
    ASSERT(idle >= baseline + size - 2 * MIB);
    ASSERT(last.peak_rss_bytes >= live);
    if (RSS_IS_MEANINGFUL) {
        /* Back to the baseline, give or take a few pages of bookkeeping. */
        ASSERT_MSG(trimmed <= baseline + 2 * MIB, "trimmed %" PRIu64 " vs baseline %" PRIu64,
                   trimmed, baseline);
    }
    rig_close(&rig);
}

TEST_CASE(mem_pool_malloc_control_keeps_the_books) {
    zkp_mem_tracker *t;
    zkp_mem_pool *pool;
    ASSERT_OK(zkp_mem_tracker_create(&t));
    zkp_mem_pool_config cfg = pool_config(GIB, 0);
    cfg.big_from_malloc = 1;
    ASSERT_OK(zkp_mem_pool_create(&pool, t, &cfg));
    void *p;
    ASSERT_OK(zkp_mem_pool_alloc(pool, 3 * MIB, ZKP_MEM_SCRATCH, &p));
    ASSERT_EQ_U64((uintptr_t)p % ZKP_ALLOC_ALIGN, 0);
    touch_pages(p, 3 * MIB, 1);
    ASSERT_EQ_U64(category(t, ZKP_MEM_SCRATCH).live_bytes, 4 * MIB); /* same charge as pooled */
    ASSERT_OK(zkp_mem_pool_free(pool, p, 3 * MIB, ZKP_MEM_SCRATCH));
    zkp_mem_pool_stats s = pool_stats(pool);
    ASSERT_EQ_U64(s.maps, 0);
    ASSERT_EQ_U64(s.idle_bytes, 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_SCRATCH).live_bytes, 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_OK(zkp_mem_pool_trim(pool, 0));
    ASSERT_OK(zkp_mem_pool_destroy(&pool));
    ASSERT_OK(zkp_mem_tracker_destroy(&t));
}

/* ------------------------------------------------------------------------
 * Reservations */

TEST_CASE(mem_alloc_beyond_reservation_fails) {
    mem_rig rig;
    rig_open(&rig, 64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    void *a, *b, *c;
    ASSERT_OK(zkp_mem_alloc(r, 4 * MIB, ZKP_MEM_ABC, &a));
    ASSERT_OK(zkp_mem_alloc(r, 5 * MIB, ZKP_MEM_AUX, &b)); /* charged 6 MiB */
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 1, ZKP_MEM_SCRATCH, &c), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    ASSERT(c == NULL);
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.reserved_bytes, 10 * MIB);
    ASSERT_EQ_U64(info.allocated_bytes, 10 * MIB);
    ASSERT_EQ_U64(info.refused, 1);

    /* A free returns its bytes to the reservation, not to the budget. */
    ASSERT_OK(zkp_mem_free(r, b, 5 * MIB, ZKP_MEM_AUX));
    ASSERT_EQ_U64(budget_stats(rig.budget).reserved_bytes, 10 * MIB);
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.allocated_bytes, 4 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 7 * MIB, ZKP_MEM_AUX, &c), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    ASSERT_OK(zkp_mem_alloc(r, 6 * MIB, ZKP_MEM_AUX, &c));
    ASSERT_OK(zkp_mem_free(r, c, 6 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_free(r, a, 4 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT(r == NULL);
    rig_close(&rig);
}

TEST_CASE(mem_partial_release_returns_bytes_at_once) {
    mem_rig rig;
    rig_open(&rig, 64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 20 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    void *abc, *aux;
    ASSERT_OK(zkp_mem_alloc(r, 12 * MIB, ZKP_MEM_ABC, &abc));
    ASSERT_OK(zkp_mem_alloc(r, 8 * MIB, ZKP_MEM_AUX, &aux));
    /* Nothing unallocated yet: a partial release is refused. */
    ASSERT_EQ_STATUS(zkp_mem_release_part(r, 1), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    /* The two-phase release: a, b, c go, and their bytes with them. */
    ASSERT_OK(zkp_mem_free(r, abc, 12 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_release_part(r, 12 * MIB));
    ASSERT_EQ_U64(budget_stats(rig.budget).reserved_bytes, 8 * MIB);
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.reserved_bytes, 8 * MIB);
    ASSERT_EQ_U64(info.allocated_bytes, 8 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 1, ZKP_MEM_SCRATCH, &abc), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    /* The released bytes are someone else's now. */
    zkp_mem_reservation *other;
    ASSERT_OK(zkp_mem_try_reserve(rig.budget, 56 * MIB, ZKP_MEM_PRIO_NORMAL, &other));
    ASSERT_OK(zkp_mem_release(&other));

    ASSERT_OK(zkp_mem_free(r, aux, 8 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_release_part(r, 8 * MIB));
    ASSERT_OK(zkp_mem_release_part(r, 0));
    ASSERT_EQ_U64(budget_stats(rig.budget).reserved_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r)); /* an emptied reservation still needs its release */
    ASSERT_EQ_U64(budget_stats(rig.budget).reservations, 0);
    rig_close(&rig);
}

TEST_CASE(mem_release_refused_while_buffers_live) {
    mem_rig rig;
    rig_open(&rig, 64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 8 * MIB, ZKP_MEM_PRIO_HIGH, &r));
    void *p;
    ASSERT_OK(zkp_mem_alloc(r, 100, ZKP_MEM_WITNESS, &p));
    ASSERT_EQ_STATUS(zkp_mem_release(&r), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(r != NULL);
    ASSERT_EQ_U64(budget_stats(rig.budget).reserved_bytes, 8 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_budget_destroy(&rig.budget), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(zkp_mem_free(r, p, 100, ZKP_MEM_WITNESS));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_release(&r)); /* NULL: nothing to do */
    rig_close(&rig);
}

TEST_CASE(mem_reservation_allocator_feeds_the_tracker) {
    mem_rig rig;
    rig_open(&rig, 64 * MIB);
    /* The prover's pattern: a, b, c and scratch in prove_start, then the
     * a, b, c part of the reservation goes back while aux lives on. */
    const size_t abc_bytes = 3 * 3 * MIB, scratch_bytes = 200 * KIB, aux_bytes = 5 * MIB;
    uint64_t need = charge_of(abc_bytes) + charge_of(scratch_bytes) + charge_of(aux_bytes);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, need, ZKP_MEM_PRIO_NORMAL, &r));
    const zkp_allocator *al;
    ASSERT_OK(zkp_mem_reservation_allocator(r, &al));
    void *abc = zkp_alloc(al, abc_bytes, ZKP_MEM_ABC);
    void *scratch = zkp_alloc(al, scratch_bytes, ZKP_MEM_SCRATCH);
    void *aux = zkp_alloc(al, aux_bytes, ZKP_MEM_AUX);
    ASSERT(abc && scratch && aux);
    ASSERT_EQ_U64((uintptr_t)scratch % ZKP_ALLOC_ALIGN, 0);
    ASSERT(zkp_alloc(al, 1, ZKP_MEM_SCRATCH) == NULL); /* the reservation is spent */
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_ABC).live_bytes, charge_of(abc_bytes));
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_SCRATCH).live_bytes, charge_of(scratch_bytes));
    ASSERT_EQ_U64(category(rig.tracker, ZKP_MEM_AUX).live_count, 1);

    zkp_free(al, scratch, scratch_bytes, ZKP_MEM_SCRATCH);
    zkp_free(al, abc, abc_bytes, ZKP_MEM_ABC);
    ASSERT_OK(zkp_mem_release_part(r, charge_of(abc_bytes) + charge_of(scratch_bytes)));
    ASSERT_EQ_U64(budget_stats(rig.budget).reserved_bytes, charge_of(aux_bytes));
    zkp_free(al, aux, aux_bytes, ZKP_MEM_AUX);
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.refused, 1);
    ASSERT_EQ_U64(info.allocated_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r));
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig.tracker, &snap));
    ASSERT_EQ_U64(snap.cat[ZKP_MEM_ABC].peak_bytes, charge_of(abc_bytes));
    ASSERT_EQ_U64(snap.cat[ZKP_MEM_ABC].live_count, 0);
    rig_close(&rig);
}

/* ------------------------------------------------------------------------
 * Admission */

typedef struct {
    zkp_mem_budget *budget;
    uint64_t bytes;
    zkp_mem_wait_opts opts;
    zkpipe_status status;
    uint64_t grant_sequence;
    int release_when_granted;
    zkp_mem_reservation *held;
    pthread_t thread;
} waiter;

static void *waiter_main(void *arg) {
    waiter *w = arg;
    zkp_mem_reservation *r = NULL;
    w->status = zkp_mem_reserve_wait(w->budget, w->bytes, &w->opts, &r, NULL);
    if (w->status != ZKPIPE_OK) return NULL;
    zkp_mem_reservation_info info;
    if (zkp_mem_reservation_info_get(r, &info) == ZKPIPE_OK)
        w->grant_sequence = info.grant_sequence;
    if (w->release_when_granted) {
        if (zkp_mem_release(&r) != ZKPIPE_OK) w->status = ZKPIPE_ERR_INVALID_ARGUMENT;
    } else {
        w->held = r;
    }
    return NULL;
}

/* Starts w and returns once it is queued (the budget counts `queued`
 * waiters then). */
static void waiter_start(waiter *w, zkp_mem_budget *b, uint64_t bytes, zkp_mem_priority prio,
                         int64_t timeout_ms, const atomic_int *cancel, uint64_t queued) {
    memset(w, 0, sizeof *w);
    w->budget = b;
    w->bytes = bytes;
    w->opts.priority = prio;
    w->opts.timeout_ms = timeout_ms;
    w->opts.cancel = cancel;
    w->release_when_granted = 1;
    ASSERT(pthread_create(&w->thread, NULL, waiter_main, w) == 0);
    wait_for_waiting(b, queued);
}

TEST_CASE(mem_waiters_served_by_priority_then_arrival) {
    mem_rig rig;
    rig_open(&rig, 100 * MIB);
    zkp_mem_reservation *holder;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 100 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));
    /* Arrival order A..F. D and B would fit long before A does: they
     * still wait for A (same or lower priority), so A is not starved. */
    static const struct {
        char name;
        uint64_t mib;
        zkp_mem_priority prio;
    } plan[] = {
        {'A', 60, ZKP_MEM_PRIO_NORMAL},   {'B', 10, ZKP_MEM_PRIO_LOW},
        {'C', 30, ZKP_MEM_PRIO_HIGH},     {'D', 10, ZKP_MEM_PRIO_NORMAL},
        {'E', 50, ZKP_MEM_PRIO_CRITICAL}, {'F', 40, ZKP_MEM_PRIO_NORMAL},
    };
    enum { N = sizeof plan / sizeof plan[0] };
    waiter w[N];
    for (int i = 0; i < N; i++)
        waiter_start(&w[i], rig.budget, plan[i].mib * MIB, plan[i].prio, -1, NULL, (uint64_t)i + 1);
    ASSERT_OK(zkp_mem_release(&holder));
    for (int i = 0; i < N; i++) pthread_join(w[i].thread, NULL);

    char order[N + 1];
    for (int i = 0; i < N; i++) {
        ASSERT_OK(w[i].status);
        ASSERT(w[i].grant_sequence >= 2 && w[i].grant_sequence < 2 + N);
        order[w[i].grant_sequence - 2] = plan[i].name;
    }
    order[N] = '\0';
    ASSERT_STR_EQ(order, "ECADFB");
    zkp_mem_budget_stats bs = budget_stats(rig.budget);
    ASSERT_EQ_U64(bs.grants, N + 1);
    ASSERT_EQ_U64(bs.grants_after_wait, N);
    ASSERT_EQ_U64(bs.peak_reserved_bytes, 100 * MIB);
    rig_close(&rig);
}

TEST_CASE(mem_try_reserve_does_not_jump_the_queue) {
    mem_rig rig;
    rig_open(&rig, 100 * MIB);
    zkp_mem_reservation *holder, *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 100 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig.budget, 1, ZKP_MEM_PRIO_CRITICAL, &r),
                     ZKPIPE_ERR_TIMEOUT);
    ASSERT(r == NULL);
    waiter big;
    waiter_start(&big, rig.budget, 60 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 1);
    ASSERT_OK(zkp_mem_release_part(holder, 30 * MIB)); /* 30 MiB free; big needs 60 */
    /* It would fit, but a NORMAL request is queued ahead of it. */
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig.budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, &r),
                     ZKPIPE_ERR_TIMEOUT);
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig.budget, 10 * MIB, ZKP_MEM_PRIO_LOW, &r),
                     ZKPIPE_ERR_TIMEOUT);
    /* A higher priority goes first. */
    ASSERT_OK(zkp_mem_try_reserve(rig.budget, 10 * MIB, ZKP_MEM_PRIO_HIGH, &r));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_EQ_U64(budget_stats(rig.budget).waiting, 1);
    ASSERT_OK(zkp_mem_release(&holder));
    pthread_join(big.thread, NULL);
    ASSERT_OK(big.status);
    rig_close(&rig);
}

TEST_CASE(mem_reserve_times_out_and_cancels) {
    mem_rig rig;
    rig_open(&rig, 100 * MIB);
    zkp_mem_reservation *holder, *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 60 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));

    /* Timeout, on the caller's thread. */
    zkp_mem_wait_opts opts = {ZKP_MEM_PRIO_NORMAL, 50, NULL};
    uint64_t t0 = now_ms();
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig.budget, 80 * MIB, &opts, &r, &d), ZKPIPE_ERR_TIMEOUT);
    ASSERT(now_ms() - t0 >= 50);
    ASSERT(r == NULL);
    ASSERT(strstr(d.msg, "not granted") != NULL);
    ASSERT_EQ_U64(budget_stats(rig.budget).waiting, 0);

    /* A head that times out lets through the requests it held back. */
    waiter head, behind;
    waiter_start(&head, rig.budget, 80 * MIB, ZKP_MEM_PRIO_NORMAL, 100, NULL, 1);
    waiter_start(&behind, rig.budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 2);
    pthread_join(head.thread, NULL);
    pthread_join(behind.thread, NULL);
    ASSERT_EQ_STATUS(head.status, ZKPIPE_ERR_TIMEOUT);
    ASSERT_OK(behind.status);

    /* Cancellation, raised from another thread while queued. */
    atomic_int cancel = 0;
    waiter cancelled;
    waiter_start(&cancelled, rig.budget, 80 * MIB, ZKP_MEM_PRIO_NORMAL, -1, &cancel, 1);
    atomic_store(&cancel, 1);
    pthread_join(cancelled.thread, NULL);
    ASSERT_EQ_STATUS(cancelled.status, ZKPIPE_ERR_CANCELLED);
    /* Raised before the call: no wait at all. */
    opts.timeout_ms = -1;
    opts.cancel = &cancel;
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig.budget, 80 * MIB, &opts, &r, NULL),
                     ZKPIPE_ERR_CANCELLED);
    /* A request that fits is granted even with the flag up: cancellation
     * is for waits. */
    ASSERT_OK(zkp_mem_reserve_wait(rig.budget, 10 * MIB, &opts, &r, NULL));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_release(&holder));
    rig_close(&rig);
}

TEST_CASE(mem_reserve_more_than_the_budget_fails_at_once) {
    mem_rig rig;
    rig_open(&rig, 100 * MIB);
    zkp_mem_reservation *r;
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig.budget, 100 * MIB + 1, NULL, &r, &d),
                     ZKPIPE_ERR_NO_MEMORY);
    ASSERT(strstr(d.msg, "never fit") != NULL);
    ASSERT_OK(zkp_mem_reserve(rig.budget, 0, ZKP_MEM_PRIO_LOW, &r)); /* empty is fine */
    ASSERT_OK(zkp_mem_release(&r));
    zkp_mem_wait_opts bad = {ZKP_MEM_PRIO_COUNT, -1, NULL};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig.budget, 1, &bad, &r, NULL),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    rig_close(&rig);
}

typedef struct {
    zkp_mem_budget *budget;
    uint64_t total;
    unsigned rounds;
    atomic_uint_fast64_t held; /* what the workers hold, by their own count */
    atomic_int over_budget, errors;
} admission_race;

typedef struct {
    admission_race *race;
    uint64_t seed;
} admission_worker_arg;

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void *admission_worker(void *arg) {
    admission_worker_arg *wa = arg;
    admission_race *ar = wa->race;
    uint64_t rng = wa->seed;
    for (unsigned i = 0; i < ar->rounds; i++) {
        uint64_t bytes = 1 + splitmix(&rng) % (ar->total / 3);
        zkp_mem_wait_opts opts = {(zkp_mem_priority)(splitmix(&rng) % ZKP_MEM_PRIO_COUNT), -1,
                                  NULL};
        switch (splitmix(&rng) % 3) {
            case 0: opts.timeout_ms = 0; break;
            case 1: opts.timeout_ms = 2; break;
            default: break;
        }
        zkp_mem_reservation *r;
        zkpipe_status st = zkp_mem_reserve_wait(ar->budget, bytes, &opts, &r, NULL);
        if (st == ZKPIPE_ERR_TIMEOUT) continue;
        if (st != ZKPIPE_OK) {
            atomic_fetch_add(&ar->errors, 1);
            continue;
        }
        /* Counted after the grant and uncounted before the release, so
         * this sum never exceeds what the budget really holds. */
        if (atomic_fetch_add(&ar->held, bytes) + bytes > ar->total)
            atomic_fetch_add(&ar->over_budget, 1);
        void *p;
        if (bytes >= 64 && zkp_mem_alloc(r, 64, ZKP_MEM_SCRATCH, &p) == ZKPIPE_OK) {
            memset(p, 1, 64);
            if (zkp_mem_free(r, p, 64, ZKP_MEM_SCRATCH) != ZKPIPE_OK)
                atomic_fetch_add(&ar->errors, 1);
        }
        sched_yield();
        uint64_t part = bytes / 2;
        atomic_fetch_sub(&ar->held, part);
        if (zkp_mem_release_part(r, part) != ZKPIPE_OK) atomic_fetch_add(&ar->errors, 1);
        atomic_fetch_sub(&ar->held, bytes - part);
        if (zkp_mem_release(&r) != ZKPIPE_OK) atomic_fetch_add(&ar->errors, 1);
    }
    return NULL;
}

TEST_CASE(mem_reservations_never_exceed_the_budget_under_threads) {
    mem_rig rig;
    rig_open(&rig, 90 * MIB);
    enum { THREADS = 8 };
    admission_race ar = {.budget = rig.budget, .total = 90 * MIB, .rounds = test_iters(400)};
    atomic_init(&ar.held, 0);
    atomic_init(&ar.over_budget, 0);
    atomic_init(&ar.errors, 0);
    pthread_t th[THREADS];
    admission_worker_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i].race = &ar;
        args[i].seed = test_rng_u64();
        ASSERT(pthread_create(&th[i], NULL, admission_worker, &args[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    ASSERT_EQ_INT(atomic_load(&ar.errors), 0);
    ASSERT_EQ_INT(atomic_load(&ar.over_budget), 0);
    ASSERT_EQ_U64(atomic_load(&ar.held), 0);
    zkp_mem_budget_stats bs = budget_stats(rig.budget);
    ASSERT(bs.peak_reserved_bytes <= bs.total_bytes);
    ASSERT(bs.grants > 0);
    printf("  %" PRIu64 " grants, %" PRIu64 " after waiting, peak %.1f of %.1f MiB\n", bs.grants,
           bs.grants_after_wait, (double)bs.peak_reserved_bytes / MIB,
           (double)bs.total_bytes / MIB);
    rig_close(&rig);
}

/* ------------------------------------------------------------------------
 * The sampler */

TEST_CASE(mem_sampler_writes_a_csv_timeline) {
    mem_rig rig;
    rig_open(&rig, 100 * MIB);
    ASSERT_OK(zkp_mem_tracker_charge(rig.tracker, ZKP_MEM_KEY, 12345));
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig.budget, 7 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    temp_tree t;
    tree_make(&t);
    char csv[512];
    tree_path(&t, "timeline.csv", csv, sizeof csv);
    zkp_mem_sampler_config cfg = {
        .period_ms = 5, .csv_path = csv, .tracker = rig.tracker, .budget = rig.budget};
    zkp_mem_sampler *s;
    ASSERT_OK(zkp_mem_sampler_start(&s, &cfg, NULL));
    sleep_ms(60);
    zkp_mem_sampler_stats last;
    ASSERT_OK(zkp_mem_sampler_stop(&s, &last));
    ASSERT(s == NULL);
    ASSERT(last.samples >= 3);
    ASSERT(last.peak_rss_bytes >= last.rss_bytes && last.rss_bytes > 0);

    FILE *f = fopen(csv, "r");
    ASSERT(f != NULL);
    char line[1024];
    ASSERT(fgets(line, sizeof line, f) != NULL);
    ASSERT_STR_EQ(line,
                  "time_s,rss_bytes,tracked_bytes,key,csr,witness,abc,aux,scratch,"
                  "pool_idle,gpu_staging,budget_reserved_bytes,budget_total_bytes\n");
    unsigned rows = 0;
    double last_t = -1;
    while (fgets(line, sizeof line, f)) {
        double ts;
        unsigned long long v[12];
        int n = sscanf(line, "%lf,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", &ts,
                       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
                       &v[11]);
        ASSERT_MSG(n == 13, "bad row: %s", line);
        ASSERT(ts >= last_t);
        last_t = ts;
        ASSERT(v[0] > 0);              /* rss */
        ASSERT_EQ_U64(v[1], 12345);    /* tracked */
        ASSERT_EQ_U64(v[2], 12345);    /* key */
        ASSERT_EQ_U64(v[10], 7 * MIB); /* budget reserved */
        ASSERT_EQ_U64(v[11], 100 * MIB);
        rows++;
    }
    fclose(f);
    ASSERT_EQ_U64(rows, last.samples); /* start's sample, the thread's, stop's */
    tree_remove(&t);

    /* Without a CSV or sources; a CSV that cannot be created. */
    ASSERT_OK(zkp_mem_sampler_start(&s, NULL, NULL));
    ASSERT_OK(zkp_mem_sampler_reset_peak(s));
    ASSERT_OK(zkp_mem_sampler_stop(&s, NULL));
    zkp_diag d = {{0}};
    cfg.csv_path = "/nonexistent-dir/timeline.csv";
    ASSERT_EQ_STATUS(zkp_mem_sampler_start(&s, &cfg, &d), ZKPIPE_ERR_IO);
    ASSERT(strstr(d.msg, "/nonexistent-dir/timeline.csv") != NULL);

    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_tracker_discharge(rig.tracker, ZKP_MEM_KEY, 12345));
    rig_close(&rig);
}

/* ------------------------------------------------------------------------
 * Load: many workers, a budget that forces them to queue, and the
 * process's resident memory held to the budget. */

typedef struct {
    zkp_mem_budget *budget;
    unsigned cycles;
    uint64_t seed;
    atomic_int errors;
} load_job;

/* Buffer sizes of the load test: whole size classes, so every charge is
 * the buffer size. */
static const size_t load_sizes[] = {24 * MIB, 32 * MIB, 40 * MIB};

static void *load_worker(void *arg) {
    load_job *job = arg;
    uint64_t rng = job->seed;
    for (unsigned i = 0; i < job->cycles; i++) {
        size_t abc = load_sizes[splitmix(&rng) % 3], aux = load_sizes[splitmix(&rng) % 3];
        zkp_mem_reservation *r;
        void *pa = NULL, *px = NULL;
        int ok = zkp_mem_reserve(job->budget, abc + aux, ZKP_MEM_PRIO_NORMAL, &r) == ZKPIPE_OK;
        ok = ok && zkp_mem_alloc(r, abc, ZKP_MEM_ABC, &pa) == ZKPIPE_OK;
        if (ok) touch_pages(pa, abc, (unsigned char)i);
        ok = ok && zkp_mem_alloc(r, aux, ZKP_MEM_AUX, &px) == ZKPIPE_OK;
        if (ok) touch_pages(px, aux, (unsigned char)i);
        /* Two-phase release, as the engine does it. */
        ok = ok && zkp_mem_free(r, pa, abc, ZKP_MEM_ABC) == ZKPIPE_OK;
        ok = ok && zkp_mem_release_part(r, abc) == ZKPIPE_OK;
        ok = ok && zkp_mem_free(r, px, aux, ZKP_MEM_AUX) == ZKPIPE_OK;
        ok = ok && zkp_mem_release(&r) == ZKPIPE_OK;
        if (!ok) {
            atomic_fetch_add(&job->errors, 1);
            return NULL;
        }
    }
    return NULL;
}

TEST_CASE(mem_load_test_rss_stays_within_budget) {
    /* At most two reservations (48..80 MiB each) fit at once, so four
     * workers queue. */
    const uint64_t budget = 128 * MIB, idle_max = 48 * MIB;
    enum { THREADS = 4 };
    mem_rig rig;
    zkp_mem_pool_config pcfg = pool_config(idle_max, 0);
    rig_open_with(&rig, budget, &pcfg);
    zkp_mem_sampler *sampler;
    zkp_mem_sampler_config scfg = {.period_ms = 2, .tracker = rig.tracker, .budget = rig.budget};
    ASSERT_OK(zkp_mem_sampler_start(&sampler, &scfg, NULL));

    load_job jobs[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].budget = rig.budget;
        jobs[i].cycles = test_iters(12);
        jobs[i].seed = test_rng_u64();
        atomic_init(&jobs[i].errors, 0);
    }
    /* Threads exist before the baseline, so their stacks are in it. */
    uint64_t baseline = sampled_rss(sampler);
    ASSERT_OK(zkp_mem_sampler_reset_peak(sampler));
    int kernel_peak = zkp_mem_reset_peak_rss() == ZKPIPE_OK;
    for (int i = 0; i < THREADS; i++)
        ASSERT(pthread_create(&th[i], NULL, load_worker, &jobs[i]) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++) ASSERT_EQ_INT(atomic_load(&jobs[i].errors), 0);

    zkp_mem_sampler_stats st;
    ASSERT_OK(zkp_mem_sampler_stats_get(sampler, &st));
    uint64_t peak = st.peak_rss_bytes, hwm = 0;
    if (kernel_peak && zkp_mem_read_peak_rss(&hwm) == ZKPIPE_OK && hwm > peak) peak = hwm;
    /* Once the trimmer has applied the idle cap, and once it has emptied
     * the pool. */
    ASSERT_OK(zkp_mem_pool_trim(rig.pool, UINT64_MAX));
    uint64_t after = sampled_rss(sampler);
    ASSERT_OK(zkp_mem_pool_trim(rig.pool, 0));
    uint64_t trimmed = sampled_rss(sampler);
    zkp_mem_budget_stats bs = budget_stats(rig.budget);
    zkp_mem_pool_stats ps = pool_stats(rig.pool);
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig.tracker, &snap));
    ASSERT_OK(zkp_mem_sampler_stop(&sampler, NULL));
    printf("  RSS MiB: baseline %.1f, peak %.1f (kernel %.1f), after %.1f, trimmed %.1f\n",
           (double)baseline / MIB, (double)peak / MIB, (double)hwm / MIB, (double)after / MIB,
           (double)trimmed / MIB);
    printf("  budget %.0f MiB, peak reserved %.0f, peak mapped %.0f, peak tracked %.0f; %" PRIu64
           " of %" PRIu64 " grants waited; %" PRIu64 " maps, %" PRIu64 " reuses\n",
           (double)budget / MIB, (double)bs.peak_reserved_bytes / MIB,
           (double)ps.peak_mapped_bytes / MIB, (double)snap.total_peak_bytes / MIB,
           bs.grants_after_wait, bs.grants, ps.maps, ps.reuses);

    ASSERT(bs.grants_after_wait > 0); /* the budget did force queuing */
    ASSERT(bs.peak_reserved_bytes <= budget);
    ASSERT(ps.reuses > 0);
    /* The exchange rule, exactly: never more mapped, or tracked, than the
     * budget lets live, even while idle regions of other classes wait to
     * be unmapped. */
    ASSERT(ps.peak_mapped_bytes <= budget);
    ASSERT(snap.total_peak_bytes <= budget);
    if (RSS_IS_MEANINGFUL) {
        /* So RSS stays within the budget too. The tolerance is for what the
         * pool does not map: records of idle regions and reservations,
         * pages of worker stacks and of the arenas glibc makes for new
         * threads, and the kernel's per-thread RSS counters, which lag by
         * up to 64 pages each. It is no allowance for pooled memory: the
         * idle cap alone would be 48 MiB. */
        const uint64_t tolerance = 8 * MIB;
        ASSERT_MSG(peak <= baseline + budget + tolerance,
                   "peak RSS %" PRIu64 " KiB > baseline %" PRIu64 " + budget %" PRIu64 " + %" PRIu64
                   " KiB",
                   peak / KIB, baseline / KIB, budget / KIB, tolerance / KIB);
        /* Idle regions stay up to the cap; a trim gives them all back. */
        ASSERT(after <= baseline + idle_max + tolerance);
        ASSERT_MSG(trimmed <= baseline + 4 * MIB,
                   "RSS %" PRIu64 " KiB after the trim, baseline %" PRIu64 " KiB", trimmed / KIB,
                   baseline / KIB);
    }
    rig_close(&rig);
}
