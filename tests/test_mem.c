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
#include <fcntl.h>
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
#include "util/splitmix.h"

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

/* Under AddressSanitizer, RSS also holds the sanitizer's shadow memory,
 * and that grows with every address range the pool maps. Each
 * instrumented access to a buffer first reads the shadow byte of its 8
 * bytes, at (address >> 3) + a fixed offset, so once a case has touched a
 * buffer, the buffer's shadow (an eighth of its size) is resident as well
 * wherever the kernel backs a read of untouched anonymous memory with a
 * page of its own rather than the shared zero page (Linux 6.18 as Debian
 * 12 runs it does: a read-only pass over a fresh 64 MiB mapping makes all
 * 64 MiB resident). Unmapping the region does not give those pages back:
 * GCC 12's runtime does not intercept munmap, so it leaves the shadow of
 * an unmapped range as it was. Measured from /proc/self/smaps, a touched
 * 64 MiB region leaves 8.0 MiB of shadow, and the load test's regions,
 * mapped at changing addresses, 13 to 15 MiB, while RSS outside the
 * shadow comes back to within half a MiB of the baseline. So in this
 * build the RSS bounds compare RSS less the shadow's resident pages, both
 * read from /proc/self/smaps in one pass; the bounds themselves are the
 * same as in the other builds. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_LESS_SHADOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_LESS_SHADOW 1
#endif
#endif
#ifndef RSS_LESS_SHADOW
#define RSS_LESS_SHADOW 0
#endif
#if RSS_LESS_SHADOW
#include <sanitizer/asan_interface.h>
#define RSS_MEASURED "RSS less ASan's shadow"
#else
#define RSS_MEASURED "RSS"
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
 * A tracker, a pool and a budget wired together, and a sampler over them
 * for the cases that want one. A rig lives on the heap and a test_defer
 * hook frees it, so a case that fails half-way (an ASSERT leaves the case
 * by longjmp, past its rig_close) still releases it. */

typedef struct {
    zkp_mem_tracker *tracker;
    zkp_mem_pool *pool;
    zkp_mem_budget *budget;
    zkp_mem_sampler *sampler;
} mem_rig;

/* Ends whatever rig_close did not, once the case is over. The sampler goes
 * first (its thread reads the tracker and the budget), and each object
 * goes only once nothing left refers to it: the budget refers to the pool,
 * and the pool (with its trimmer thread) to the tracker. An object a
 * failed case left in use, such as a budget with a reservation never
 * released, is left alone: that leak is part of the failure. */
static void rig_free(void *arg) {
    mem_rig *rig = arg;
    (void)zkp_mem_sampler_stop(&rig->sampler, NULL);
    (void)zkp_mem_budget_destroy(&rig->budget);
    if (!rig->budget) (void)zkp_mem_pool_destroy(&rig->pool);
    if (!rig->pool) (void)zkp_mem_tracker_destroy(&rig->tracker);
    free(rig);
}

static zkp_mem_pool_config pool_config(uint64_t idle_max, unsigned decay_ms) {
    zkp_mem_pool_config cfg;
    ASSERT_OK(zkp_mem_pool_config_default(&cfg));
    cfg.idle_max_bytes = idle_max;
    cfg.idle_decay_ms = decay_ms;
    cfg.big_from_malloc = 0; /* the pool under test, whatever the build's default */
    return cfg;
}

static mem_rig *rig_open_with(uint64_t budget_bytes, const zkp_mem_pool_config *pcfg) {
    mem_rig *rig = calloc(1, sizeof *rig);
    ASSERT(rig != NULL);
    test_defer(rig_free, rig);
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
    return rig;
}

static mem_rig *rig_open(uint64_t budget_bytes) {
    zkp_mem_pool_config pcfg = pool_config(GIB, 0);
    return rig_open_with(budget_bytes, &pcfg);
}

/* Every book must balance when a rig is closed. The rig's memory itself
 * goes when the case ends (rig_free). */
static void rig_close(mem_rig *rig) {
    ASSERT_OK(zkp_mem_sampler_stop(&rig->sampler, NULL));
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

/* A buffer moving between categories: the total never changes, not even
 * for a reader between the move's two steps. */
typedef struct {
    zkp_mem_tracker *t;
    unsigned iters;
    atomic_int stop, failures;
} move_race;

static void *move_worker(void *arg) {
    move_race *mr = arg;
    for (unsigned i = 0; i < mr->iters; i++)
        if (zkp_mem_tracker_move(mr->t, ZKP_MEM_WITNESS, ZKP_MEM_POOL_IDLE, 4096) != ZKPIPE_OK ||
            zkp_mem_tracker_move(mr->t, ZKP_MEM_POOL_IDLE, ZKP_MEM_WITNESS, 4096) != ZKPIPE_OK)
            atomic_fetch_add(&mr->failures, 1);
    atomic_store(&mr->stop, 1);
    return NULL;
}

TEST_CASE(mem_tracker_move_keeps_the_total) {
    zkp_mem_tracker *t;
    ASSERT_OK(zkp_mem_tracker_create(&t));
    ASSERT_OK(zkp_mem_tracker_charge(t, ZKP_MEM_WITNESS, 4096));
    ASSERT_OK(zkp_mem_tracker_charge(t, ZKP_MEM_KEY, 100));
    ASSERT_OK(zkp_mem_tracker_move(t, ZKP_MEM_WITNESS, ZKP_MEM_POOL_IDLE, 4096));
    ASSERT_EQ_U64(category(t, ZKP_MEM_WITNESS).live_bytes, 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_WITNESS).live_count, 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_POOL_IDLE).live_bytes, 4096);
    ASSERT_EQ_U64(category(t, ZKP_MEM_POOL_IDLE).live_count, 1);
    /* Refused, nothing changed: more bytes than the source holds, a source
     * with no buffer, a category out of range. */
    ASSERT_EQ_STATUS(zkp_mem_tracker_move(t, ZKP_MEM_KEY, ZKP_MEM_ABC, 101),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_tracker_move(t, ZKP_MEM_WITNESS, ZKP_MEM_ABC, 0),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_tracker_move(t, ZKP_MEM_KEY, ZKP_MEM_CATEGORY_COUNT, 1),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_U64(category(t, ZKP_MEM_KEY).live_bytes, 100);
    ASSERT_EQ_U64(category(t, ZKP_MEM_ABC).live_bytes, 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_ABC).live_count, 0);
    ASSERT_OK(zkp_mem_tracker_move(t, ZKP_MEM_POOL_IDLE, ZKP_MEM_WITNESS, 4096));

    move_race mr = {.t = t, .iters = test_iters(200000)};
    pthread_t th;
    ASSERT(pthread_create(&th, NULL, move_worker, &mr) == 0);
    do {
        zkp_mem_snapshot snap;
        ASSERT_OK(zkp_mem_tracker_snapshot(t, &snap));
        ASSERT_EQ_U64(snap.total_live_bytes, 4196);
    } while (!atomic_load(&mr.stop));
    pthread_join(th, NULL);
    ASSERT_EQ_INT(atomic_load(&mr.failures), 0);
    ASSERT_EQ_U64(category(t, ZKP_MEM_WITNESS).live_bytes, 4096);
    ASSERT_EQ_U64(category(t, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_OK(zkp_mem_tracker_destroy(&t));
}

/* ------------------------------------------------------------------------
 * The pool */

TEST_CASE(mem_pool_recycles_regions_of_a_class) {
    mem_rig *rig = rig_open(256 * MIB);
    void *a, *b, *c, *small;
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 3 * MIB, ZKP_MEM_SCRATCH, &a));
    ASSERT_EQ_U64((uintptr_t)a % 4096, 0);
    touch_pages(a, 3 * MIB, 1);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_SCRATCH).live_bytes, 4 * MIB);
    ASSERT_OK(zkp_mem_pool_free(rig->pool, a, 3 * MIB, ZKP_MEM_SCRATCH));
    zkp_mem_pool_stats s = pool_stats(rig->pool);
    ASSERT_EQ_U64(s.maps, 1);
    ASSERT_EQ_U64(s.idle_bytes, 4 * MIB);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_bytes, 4 * MIB);

    /* 3.5 MiB is the same 4 MiB class: the same region comes back. */
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 3 * MIB + MIB / 2, ZKP_MEM_ABC, &b));
    ASSERT(b == a);
    s = pool_stats(rig->pool);
    ASSERT_EQ_U64(s.maps, 1);
    ASSERT_EQ_U64(s.reuses, 1);
    ASSERT_EQ_U64(s.idle_bytes, 0);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_ABC).live_bytes, 4 * MIB);

    /* Another class is a new mapping; small buffers are malloc'd but
     * tracked. */
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 5 * MIB, ZKP_MEM_ABC, &c));
    ASSERT(c != a);
    ASSERT_EQ_U64(pool_stats(rig->pool).maps, 2);
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 1000, ZKP_MEM_WITNESS, &small));
    ASSERT_EQ_U64((uintptr_t)small % ZKP_ALLOC_ALIGN, 0);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_WITNESS).live_bytes, 1024);
    ASSERT_EQ_U64(pool_stats(rig->pool).maps, 2);
    void *refused;
    ASSERT_EQ_STATUS(zkp_mem_pool_alloc(rig->pool, 10, ZKP_MEM_POOL_IDLE, &refused),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(refused == NULL);
    /* A pool with live buffers refuses to go. */
    ASSERT_EQ_STATUS(zkp_mem_pool_destroy(&rig->pool), ZKPIPE_ERR_INVALID_ARGUMENT);

    ASSERT_OK(zkp_mem_pool_free(rig->pool, b, 3 * MIB + MIB / 2, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, c, 5 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, small, 1000, ZKP_MEM_WITNESS));
    rig_close(rig);
}

TEST_CASE(mem_pool_new_mappings_retire_idle_bytes) {
    mem_rig *rig = rig_open(256 * MIB);
    void *a, *b, *c;
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 8 * MIB, ZKP_MEM_AUX, &a));
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 2 * MIB, ZKP_MEM_AUX, &b));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, a, 8 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, b, 2 * MIB, ZKP_MEM_AUX));
    ASSERT_EQ_U64(pool_stats(rig->pool).idle_bytes, 10 * MIB);

    /* A 6 MiB class has no idle region: before mapping one, the oldest
     * idle region (8 MiB, enough to cover it) is unmapped; the 2 MiB one
     * stays. */
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 6 * MIB, ZKP_MEM_AUX, &c));
    zkp_mem_pool_stats s = pool_stats(rig->pool);
    ASSERT_EQ_U64(s.idle_bytes, 2 * MIB);
    ASSERT_EQ_U64(s.retiring_bytes, 0);
    ASSERT_EQ_U64(s.unmaps, 1);
    ASSERT_EQ_U64(s.mapped_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.peak_mapped_bytes, 10 * MIB); /* never 16: the exchange came first */
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_bytes, 2 * MIB);
    ASSERT_OK(zkp_mem_pool_free(rig->pool, c, 6 * MIB, ZKP_MEM_AUX));
    rig_close(rig);
}

/* Memory the pool does not hold (a mapped file's pages) charged to a
 * reservation: it takes the reservation's remainder as a buffer would, so
 * the two together never pass it; it is tracked under its category; idle
 * regions make room for it first, as for a new mapping, so tracked bytes
 * stay within the budget; and the reservation cannot be released while it
 * is charged. */
TEST_CASE(mem_external_charge_is_held_by_its_reservation) {
    mem_rig *rig = rig_open(16 * MIB);
    zkp_mem_reservation *r = NULL;
    void *a;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 16 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    ASSERT_OK(zkp_mem_alloc(r, 8 * MIB, ZKP_MEM_KEY, &a));
    ASSERT_OK(zkp_mem_free(r, a, 8 * MIB, ZKP_MEM_KEY));
    ASSERT_EQ_U64(pool_stats(rig->pool).idle_bytes, 8 * MIB);

    ASSERT_OK(zkp_mem_charge_external(r, 10 * MIB, ZKP_MEM_KEY_FILE));
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_KEY_FILE).live_bytes, 10 * MIB);
    zkp_mem_pool_stats ps = pool_stats(rig->pool);
    ASSERT_EQ_U64(ps.idle_bytes, 0); /* made room: 8 MiB idle + 10 MiB would pass 16 */
    ASSERT_EQ_U64(ps.mapped_bytes, 0);
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    ASSERT_EQ_U64(snap.total_live_bytes, 10 * MIB);

    zkp_mem_reservation_info ri;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &ri));
    ASSERT_EQ_U64(ri.allocated_bytes, 10 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 8 * MIB, ZKP_MEM_KEY, &a), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    ASSERT_EQ_STATUS(zkp_mem_charge_external(r, 7 * MIB, ZKP_MEM_KEY_FILE),
                     ZKPIPE_ERR_RESERVATION_EXCEEDED);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_KEY_FILE).live_bytes, 10 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_release(&r), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_charge_external(r, MIB, ZKP_MEM_POOL_IDLE),
                     ZKPIPE_ERR_INVALID_ARGUMENT);

    /* Given back in pieces other than those charged. */
    ASSERT_OK(zkp_mem_discharge_external(r, 4 * MIB, ZKP_MEM_KEY_FILE));
    ASSERT_OK(zkp_mem_discharge_external(r, 4 * MIB, ZKP_MEM_KEY_FILE));
    ASSERT_OK(zkp_mem_charge_external(r, 3 * MIB, ZKP_MEM_KEY_FILE));
    ASSERT_OK(zkp_mem_discharge_external(r, 5 * MIB, ZKP_MEM_KEY_FILE));
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_KEY_FILE).live_bytes, 0);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_KEY_FILE).live_count, 0);
    /* More than was charged: refused, the books unchanged. */
    ASSERT(zkp_mem_discharge_external(r, MIB, ZKP_MEM_KEY_FILE) != ZKPIPE_OK);
    ASSERT_OK(zkp_mem_reservation_info_get(r, &ri));
    ASSERT_EQ_U64(ri.allocated_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r));
    rig_close(rig);
}

TEST_CASE(mem_pool_idle_cap_and_decay) {
    zkp_mem_pool_config cfg = pool_config(8 * MIB, 0);
    mem_rig *rig = rig_open_with(256 * MIB, &cfg);
    void *p[4];
    for (int i = 0; i < 4; i++)
        ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 4 * MIB, ZKP_MEM_CSR, &p[i]));
    for (int i = 0; i < 4; i++) ASSERT_OK(zkp_mem_pool_free(rig->pool, p[i], 4 * MIB, ZKP_MEM_CSR));
    /* The cap keeps 8 MiB; the two regions freed first were unmapped. */
    ASSERT_OK(zkp_mem_pool_trim(rig->pool, UINT64_MAX));
    zkp_mem_pool_stats s = pool_stats(rig->pool);
    ASSERT_EQ_U64(s.idle_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.mapped_bytes, 8 * MIB);
    ASSERT_EQ_U64(s.unmaps, 2);
    void *again;
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 4 * MIB, ZKP_MEM_CSR, &again));
    ASSERT(again == p[3]); /* the warmest region first */
    ASSERT_OK(zkp_mem_pool_free(rig->pool, again, 4 * MIB, ZKP_MEM_CSR));
    rig_close(rig);

    /* Decay: idle regions go back after idle_decay_ms even under the cap. */
    cfg = pool_config(GIB, 50);
    rig = rig_open_with(256 * MIB, &cfg);
    uint64_t t0 = now_ms();
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 4 * MIB, ZKP_MEM_CSR, &p[0]));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, p[0], 4 * MIB, ZKP_MEM_CSR));
    while (pool_stats(rig->pool).mapped_bytes != 0) {
        ASSERT_MSG(now_ms() - t0 < 5000, "the idle region was not unmapped within 5 s");
        sleep_ms(5);
    }
    ASSERT(now_ms() - t0 >= 50);
    rig_close(rig);
}

#if RSS_LESS_SHADOW
/* Calls fn on each line of a /proc file (the newline replaced by a NUL),
 * read a chunk at a time into a buffer on the stack: no heap, whose freed
 * blocks AddressSanitizer would hold in quarantine, resident, while the
 * peak is sampled. A line longer than the buffer is skipped. Returns 0
 * when the file cannot be read. Safe on any thread (it never ASSERTs). */
static int for_each_line(const char *path, void (*fn)(void *ctx, char *line), void *ctx) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[16384];
    size_t have = 0;
    int skipping = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
            *nl = '\0';
            if (!skipping) fn(ctx, line);
            skipping = 0;
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1) {
            have = 0;
            skipping = 1;
        }
    }
    close(fd);
    return 1;
}

/* A mapping's first line in /proc/self/maps and smaps is "start-end perms
 * ..."; smaps's other lines start with a field name and a colon. */
static int mapping_line(const char *line, uint64_t *start, uint64_t *end) {
    char *p;
    *start = strtoull(line, &p, 16);
    if (p == line || *p != '-') return 0;
    *end = strtoull(p + 1, &p, 16);
    return *p == ' ';
}

/* The end of the highest mapping in the lower half of the address space
 * (the upper half is the kernel's; x86-64 shows its [vsyscall] page
 * there). */
static void note_top(void *ctx, char *line) {
    uint64_t *top = ctx, start, end;
    if (mapping_line(line, &start, &end) && start < (1ull << 63) && end > *top) *top = end;
}

typedef struct {
    uint64_t shadow_lo, shadow_hi, total_kib, shadow_kib;
    int in_shadow, mappings;
} smaps_sum;

static void note_rss(void *ctx, char *line) {
    smaps_sum *sum = ctx;
    uint64_t start, end;
    if (mapping_line(line, &start, &end)) {
        sum->in_shadow = start >= sum->shadow_lo && start < sum->shadow_hi;
        sum->mappings++;
    } else if (strncmp(line, "Rss:", 4) == 0) {
        uint64_t kib = strtoull(line + 4, NULL, 10);
        sum->total_kib += kib;
        if (sum->in_shadow) sum->shadow_kib += kib;
    }
}

/* RSS less the shadow's resident pages, both from one pass over
 * /proc/self/smaps, so both are of the same moment. The runtime reserves
 * the shadow of the whole address space at startup, from the shadow of
 * address 0 (the offset) up to the shadow of the top, and nothing else can
 * be mapped in between: a mapping that starts there is the shadow (or the
 * inaccessible gap in its middle, which has no pages). Returns 0 when /proc
 * cannot be read. Safe on any thread (it never ASSERTs). */
static int read_rss_less_shadow(uint64_t *out) {
    size_t scale = 0, offset = 0;
    __asan_get_shadow_mapping(&scale, &offset);
    uint64_t top = 0;
    if (!for_each_line("/proc/self/maps", note_top, &top) || top == 0) return 0;
    smaps_sum sum = {.shadow_lo = offset, .shadow_hi = offset + (top >> scale)};
    if (!for_each_line("/proc/self/smaps", note_rss, &sum)) return 0;
    if (sum.mappings == 0 || sum.total_kib == 0) return 0;
    *out = (sum.total_kib - sum.shadow_kib) * KIB;
    return 1;
}
#endif

/* The RSS the bounds compare, now: a fresh sample of the sampler, or, under
 * AddressSanitizer, RSS less the shadow. */
static uint64_t rss_now(zkp_mem_sampler *s) {
#if RSS_LESS_SHADOW
    (void)s;
    uint64_t rss = 0;
    ASSERT_MSG(read_rss_less_shadow(&rss), "cannot read /proc/self/smaps");
    return rss;
#else
    zkp_mem_sampler_stats st; /* a fresh sample */
    ASSERT_OK(zkp_mem_sampler_stats_get(s, &st));
    return st.rss_bytes;
#endif
}

/* The peak of that RSS from rss_peak_begin to rss_peak_end: the highest
 * of the sampler's samples and, where the kernel lets it be reset, the
 * kernel's exact high-water mark. Under AddressSanitizer neither can be
 * split into shadow and the rest after the fact, so a thread of its own
 * samples RSS less the shadow instead, back to back (a pass over smaps
 * takes a few milliseconds under load). A spike between two samples goes
 * unseen, so that bound is looser than the other builds', never stricter.
 * Nothing between begin and end may ASSERT: the thread must be joined on
 * every path. */
typedef struct {
    zkp_mem_sampler *sampler;
    int kernel_reset;     /* the kernel's high-water mark was reset */
    uint64_t kernel_peak; /* 0 where not read */
    uint64_t peak;
#if RSS_LESS_SHADOW
    pthread_t thread;
    int started, failed;
    atomic_int stop;
    uint64_t samples;
#endif
} rss_peak;

#if RSS_LESS_SHADOW
static void *shadowless_peak_main(void *arg) {
    rss_peak *p = arg;
    while (!atomic_load(&p->stop)) {
        uint64_t rss;
        if (!read_rss_less_shadow(&rss)) {
            p->failed = 1;
            break;
        }
        if (rss > p->peak) p->peak = rss;
        p->samples++;
        sleep_ms(1);
    }
    return NULL;
}
#endif

static void rss_peak_begin(rss_peak *p, zkp_mem_sampler *s) {
    memset(p, 0, sizeof *p);
    p->sampler = s;
#if RSS_LESS_SHADOW
    atomic_init(&p->stop, 0);
    p->peak = rss_now(s);
    p->started = pthread_create(&p->thread, NULL, shadowless_peak_main, p) == 0;
#else
    ASSERT_OK(zkp_mem_sampler_reset_peak(s));
    p->kernel_reset = zkp_mem_reset_peak_rss() == ZKPIPE_OK;
#endif
}

static uint64_t rss_peak_end(rss_peak *p) {
#if RSS_LESS_SHADOW
    if (p->started) {
        atomic_store(&p->stop, 1);
        pthread_join(p->thread, NULL);
    }
    ASSERT_MSG(p->started && !p->failed, "sampling /proc/self/smaps failed");
    uint64_t now = rss_now(p->sampler);
    if (now > p->peak) p->peak = now;
#else
    zkp_mem_sampler_stats st;
    ASSERT_OK(zkp_mem_sampler_stats_get(p->sampler, &st));
    p->peak = st.peak_rss_bytes;
    if (p->kernel_reset && zkp_mem_read_peak_rss(&p->kernel_peak) == ZKPIPE_OK &&
        p->kernel_peak > p->peak)
        p->peak = p->kernel_peak;
#endif
    return p->peak;
}

TEST_CASE(mem_pool_trimmer_returns_idle_memory_to_the_os) {
    mem_rig *rig = rig_open(256 * MIB);
    zkp_mem_sampler_config scfg = {.period_ms = 5, .tracker = rig->tracker};
    ASSERT_OK(zkp_mem_sampler_start(&rig->sampler, &scfg, NULL));
    /* A size class of several of the trimmer's 64 MiB unmapping steps. */
    const size_t size = 160 * MIB;
    uint64_t baseline = rss_now(rig->sampler);

    void *p;
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, size, ZKP_MEM_ABC, &p));
    touch_pages(p, size, 7);
    uint64_t live = rss_now(rig->sampler);
    ASSERT_OK(zkp_mem_pool_free(rig->pool, p, size, ZKP_MEM_ABC));
    /* Idle under the cap: still resident, and accounted as pool_idle. */
    uint64_t idle = rss_now(rig->sampler);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_bytes, size);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_count, 1);
    ASSERT_OK(zkp_mem_pool_trim(rig->pool, 0));
    uint64_t trimmed = rss_now(rig->sampler);
    /* Unmapped a step at a time, it leaves the books as one buffer would. */
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_bytes, 0);
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_POOL_IDLE).live_count, 0);
    ASSERT_EQ_U64(pool_stats(rig->pool).mapped_bytes, 0);
    zkp_mem_sampler_stats last;
    ASSERT_OK(zkp_mem_sampler_stop(&rig->sampler, &last));
    printf("  %s MiB: baseline %.1f, live %.1f, idle %.1f, trimmed %.1f; sampler's peak %.1f\n",
           RSS_MEASURED, (double)baseline / MIB, (double)live / MIB, (double)idle / MIB,
           (double)trimmed / MIB, (double)last.peak_rss_bytes / MIB);
    ASSERT(live >= baseline + size - 2 * MIB);
    ASSERT(idle >= baseline + size - 2 * MIB);
    ASSERT(last.peak_rss_bytes >= live);
    if (RSS_IS_MEANINGFUL) {
        /* Back to the baseline, give or take a few pages of bookkeeping. */
        ASSERT_MSG(trimmed <= baseline + 2 * MIB,
                   "%s trimmed %" PRIu64 " vs baseline %" PRIu64, RSS_MEASURED, trimmed, baseline);
    }
    rig_close(rig);
}

/* What the region hooks saw: each call's base and size, in order. The
 * unmapping hook runs on the trimmer's thread, so the case reads a copy
 * taken under the lock (an ASSERT must not leave the lock held). */
typedef struct {
    int n_mapped, n_unmapping;
    void *mapped_base, *unmapping_base;
    size_t mapped_size, unmapping_size;
    unsigned char first_byte_at_unmap;
} hook_seen;

typedef struct {
    pthread_mutex_t mu;
    hook_seen seen;
} hook_log;

static void hook_mapped(void *ctx, void *base, size_t bytes) {
    hook_log *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (!h->seen.n_mapped++) h->seen.mapped_base = base, h->seen.mapped_size = bytes;
    pthread_mutex_unlock(&h->mu);
}

static void hook_unmapping(void *ctx, void *base, size_t bytes) {
    hook_log *h = ctx;
    pthread_mutex_lock(&h->mu);
    if (!h->seen.n_unmapping++) {
        h->seen.unmapping_base = base, h->seen.unmapping_size = bytes;
        /* Still mapped: reading it must not fault. */
        h->seen.first_byte_at_unmap = *(volatile unsigned char *)base;
    }
    pthread_mutex_unlock(&h->mu);
}

static hook_seen hooks_seen(hook_log *h) {
    pthread_mutex_lock(&h->mu);
    hook_seen s = h->seen;
    pthread_mutex_unlock(&h->mu);
    return s;
}

TEST_CASE(mem_pool_region_hooks_see_each_mapping_once) {
    static hook_log log = {PTHREAD_MUTEX_INITIALIZER, {0}};
    memset(&log.seen, 0, sizeof log.seen);
    zkp_mem_pool_config cfg = pool_config(GIB, 0);
    cfg.region_mapped = hook_mapped;
    cfg.region_unmapping = hook_unmapping;
    cfg.region_hook_ctx = &log;
    cfg.region_hook_min_bytes = 4 * MIB;
    mem_rig *rig = rig_open_with(256 * MIB, &cfg);
    void *a, *b, *again;
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 6 * MIB, ZKP_MEM_ABC, &a));
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 2 * MIB, ZKP_MEM_WITNESS, &b)); /* below the minimum */
    ((unsigned char *)a)[0] = 0x5a;
    hook_seen s = hooks_seen(&log);
    ASSERT_EQ_U64(s.n_mapped, 1);
    ASSERT(s.mapped_base == a);
    ASSERT_EQ_U64(s.mapped_size, 6 * MIB);
    /* A recycled region is not announced again. */
    ASSERT_OK(zkp_mem_pool_free(rig->pool, a, 6 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_pool_alloc(rig->pool, 6 * MIB, ZKP_MEM_WITNESS, &again));
    ASSERT(again == a);
    ASSERT_OK(zkp_mem_pool_free(rig->pool, again, 6 * MIB, ZKP_MEM_WITNESS));
    ASSERT_OK(zkp_mem_pool_free(rig->pool, b, 2 * MIB, ZKP_MEM_WITNESS));
    s = hooks_seen(&log);
    ASSERT_EQ_U64(s.n_mapped, 1);
    ASSERT_EQ_U64(s.n_unmapping, 0); /* idle regions stay mapped, and announced */
    /* The trim unmaps both; the hook hears of the big one, before it goes. */
    ASSERT_OK(zkp_mem_pool_trim(rig->pool, 0));
    ASSERT_EQ_U64(pool_stats(rig->pool).mapped_bytes, 0);
    s = hooks_seen(&log);
    ASSERT_EQ_U64(s.n_unmapping, 1);
    ASSERT(s.unmapping_base == a);
    ASSERT_EQ_U64(s.unmapping_size, 6 * MIB);
    ASSERT_EQ_U64(s.first_byte_at_unmap, 0x5a);
    rig_close(rig);
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
    mem_rig *rig = rig_open(64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
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
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, 10 * MIB);
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.allocated_bytes, 4 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 7 * MIB, ZKP_MEM_AUX, &c), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    ASSERT_OK(zkp_mem_alloc(r, 6 * MIB, ZKP_MEM_AUX, &c));
    ASSERT_OK(zkp_mem_free(r, c, 6 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_free(r, a, 4 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT(r == NULL);
    rig_close(rig);
}

TEST_CASE(mem_partial_release_returns_bytes_at_once) {
    mem_rig *rig = rig_open(64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 20 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    void *abc, *aux;
    ASSERT_OK(zkp_mem_alloc(r, 12 * MIB, ZKP_MEM_ABC, &abc));
    ASSERT_OK(zkp_mem_alloc(r, 8 * MIB, ZKP_MEM_AUX, &aux));
    /* Nothing unallocated yet: a partial release is refused. */
    ASSERT_EQ_STATUS(zkp_mem_release_part(r, 1), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    /* The two-phase release: a, b, c go, and their bytes with them. */
    ASSERT_OK(zkp_mem_free(r, abc, 12 * MIB, ZKP_MEM_ABC));
    ASSERT_OK(zkp_mem_release_part(r, 12 * MIB));
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, 8 * MIB);
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.reserved_bytes, 8 * MIB);
    ASSERT_EQ_U64(info.allocated_bytes, 8 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_alloc(r, 1, ZKP_MEM_SCRATCH, &abc), ZKPIPE_ERR_RESERVATION_EXCEEDED);
    /* The released bytes are someone else's now. */
    zkp_mem_reservation *other;
    ASSERT_OK(zkp_mem_try_reserve(rig->budget, 56 * MIB, ZKP_MEM_PRIO_NORMAL, &other));
    ASSERT_OK(zkp_mem_release(&other));

    ASSERT_OK(zkp_mem_free(r, aux, 8 * MIB, ZKP_MEM_AUX));
    ASSERT_OK(zkp_mem_release_part(r, 8 * MIB));
    ASSERT_OK(zkp_mem_release_part(r, 0));
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r)); /* an emptied reservation still needs its release */
    ASSERT_EQ_U64(budget_stats(rig->budget).reservations, 0);
    rig_close(rig);
}

TEST_CASE(mem_release_refused_while_buffers_live) {
    mem_rig *rig = rig_open(64 * MIB);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 8 * MIB, ZKP_MEM_PRIO_HIGH, &r));
    void *p;
    ASSERT_OK(zkp_mem_alloc(r, 100, ZKP_MEM_WITNESS, &p));
    ASSERT_EQ_STATUS(zkp_mem_release(&r), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(r != NULL);
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, 8 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_budget_destroy(&rig->budget), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_OK(zkp_mem_free(r, p, 100, ZKP_MEM_WITNESS));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_release(&r)); /* NULL: nothing to do */
    rig_close(rig);
}

TEST_CASE(mem_reservation_allocator_feeds_the_tracker) {
    mem_rig *rig = rig_open(64 * MIB);
    /* The prover's pattern: a, b, c and scratch in prove_start, then the
     * a, b, c part of the reservation goes back while aux lives on. */
    const size_t abc_bytes = 3 * 3 * MIB, scratch_bytes = 200 * KIB, aux_bytes = 5 * MIB;
    uint64_t need = charge_of(abc_bytes) + charge_of(scratch_bytes) + charge_of(aux_bytes);
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, need, ZKP_MEM_PRIO_NORMAL, &r));
    const zkp_allocator *al;
    ASSERT_OK(zkp_mem_reservation_allocator(r, &al));
    void *abc = zkp_alloc(al, abc_bytes, ZKP_MEM_ABC);
    void *scratch = zkp_alloc(al, scratch_bytes, ZKP_MEM_SCRATCH);
    void *aux = zkp_alloc(al, aux_bytes, ZKP_MEM_AUX);
    ASSERT(abc && scratch && aux);
    ASSERT_EQ_U64((uintptr_t)scratch % ZKP_ALLOC_ALIGN, 0);
    ASSERT(zkp_alloc(al, 1, ZKP_MEM_SCRATCH) == NULL); /* the reservation is spent */
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_ABC).live_bytes, charge_of(abc_bytes));
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_SCRATCH).live_bytes, charge_of(scratch_bytes));
    ASSERT_EQ_U64(category(rig->tracker, ZKP_MEM_AUX).live_count, 1);

    zkp_free(al, scratch, scratch_bytes, ZKP_MEM_SCRATCH);
    zkp_free(al, abc, abc_bytes, ZKP_MEM_ABC);
    ASSERT_OK(zkp_mem_release_part(r, charge_of(abc_bytes) + charge_of(scratch_bytes)));
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, charge_of(aux_bytes));
    zkp_free(al, aux, aux_bytes, ZKP_MEM_AUX);
    zkp_mem_reservation_info info;
    ASSERT_OK(zkp_mem_reservation_info_get(r, &info));
    ASSERT_EQ_U64(info.refused, 1);
    ASSERT_EQ_U64(info.allocated_bytes, 0);
    ASSERT_OK(zkp_mem_release(&r));
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    ASSERT_EQ_U64(snap.cat[ZKP_MEM_ABC].peak_bytes, charge_of(abc_bytes));
    ASSERT_EQ_U64(snap.cat[ZKP_MEM_ABC].live_count, 0);
    rig_close(rig);
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
    mem_rig *rig = rig_open(100 * MIB);
    zkp_mem_reservation *holder;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 100 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));
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
        waiter_start(&w[i], rig->budget, plan[i].mib * MIB, plan[i].prio, -1, NULL,
                     (uint64_t)i + 1);
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
    zkp_mem_budget_stats bs = budget_stats(rig->budget);
    ASSERT_EQ_U64(bs.grants, N + 1);
    ASSERT_EQ_U64(bs.grants_after_wait, N);
    ASSERT_EQ_U64(bs.peak_reserved_bytes, 100 * MIB);
    rig_close(rig);
}

TEST_CASE(mem_try_reserve_does_not_jump_the_queue) {
    mem_rig *rig = rig_open(100 * MIB);
    zkp_mem_reservation *holder, *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 100 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig->budget, 1, ZKP_MEM_PRIO_CRITICAL, &r),
                     ZKPIPE_ERR_TIMEOUT);
    ASSERT(r == NULL);
    waiter big;
    waiter_start(&big, rig->budget, 60 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 1);
    ASSERT_OK(zkp_mem_release_part(holder, 30 * MIB)); /* 30 MiB free; big needs 60 */
    /* It would fit, but a NORMAL request is queued ahead of it. */
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig->budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, &r),
                     ZKPIPE_ERR_TIMEOUT);
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig->budget, 10 * MIB, ZKP_MEM_PRIO_LOW, &r),
                     ZKPIPE_ERR_TIMEOUT);
    /* A higher priority goes first. */
    ASSERT_OK(zkp_mem_try_reserve(rig->budget, 10 * MIB, ZKP_MEM_PRIO_HIGH, &r));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_EQ_U64(budget_stats(rig->budget).waiting, 1);
    ASSERT_OK(zkp_mem_release(&holder));
    pthread_join(big.thread, NULL);
    ASSERT_OK(big.status);
    rig_close(rig);
}

/* The total changes under live reservations: a smaller one takes nothing
 * back and admits nothing until releases make room under it; a larger one
 * grants the waiters that now fit at once. */
TEST_CASE(mem_budget_total_changes_under_reservations) {
    mem_rig *rig = rig_open(100 * MIB);
    zkp_mem_reservation *a, *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 60 * MIB, ZKP_MEM_PRIO_NORMAL, &a));
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_budget_set_total(rig->budget, 0, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT_EQ_STATUS(zkp_mem_budget_set_total(rig->budget, UINT64_MAX, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "more than") != NULL);
    ASSERT_OK(zkp_mem_budget_set_total(rig->budget, 50 * MIB, &d));
    ASSERT_EQ_U64(budget_stats(rig->budget).total_bytes, 50 * MIB);
    ASSERT_EQ_U64(budget_stats(rig->budget).reserved_bytes, 60 * MIB);
    ASSERT_EQ_STATUS(zkp_mem_try_reserve(rig->budget, 1, ZKP_MEM_PRIO_CRITICAL, &r),
                     ZKPIPE_ERR_TIMEOUT);
    /* 20 MiB held after this; a 30 MiB request fits under 50 then. */
    waiter w;
    waiter_start(&w, rig->budget, 30 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 1);
    ASSERT_OK(zkp_mem_release_part(a, 20 * MIB));
    ASSERT_EQ_U64(budget_stats(rig->budget).waiting, 1); /* 40 + 30 > 50 */
    ASSERT_OK(zkp_mem_release_part(a, 20 * MIB));
    pthread_join(w.thread, NULL);
    ASSERT_OK(w.status);
    /* Raised: a waiter that did not fit is granted by the change itself. */
    waiter big;
    waiter_start(&big, rig->budget, 40 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 1); /* 20 + 40 > 50 */
    ASSERT_OK(zkp_mem_budget_set_total(rig->budget, 100 * MIB, &d));
    pthread_join(big.thread, NULL);
    ASSERT_OK(big.status);
    ASSERT_OK(zkp_mem_release(&a));
    rig_close(rig);
}

TEST_CASE(mem_reserve_times_out_and_cancels) {
    mem_rig *rig = rig_open(100 * MIB);
    zkp_mem_reservation *holder, *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 60 * MIB, ZKP_MEM_PRIO_NORMAL, &holder));

    /* Timeout, on the caller's thread. */
    zkp_mem_wait_opts opts = {ZKP_MEM_PRIO_NORMAL, 50, NULL};
    uint64_t t0 = now_ms();
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig->budget, 80 * MIB, &opts, &r, &d),
                     ZKPIPE_ERR_TIMEOUT);
    ASSERT(now_ms() - t0 >= 50);
    ASSERT(r == NULL);
    ASSERT(strstr(d.msg, "not granted") != NULL);
    ASSERT_EQ_U64(budget_stats(rig->budget).waiting, 0);

    /* A head that times out lets through the requests it held back. */
    waiter head, behind;
    waiter_start(&head, rig->budget, 80 * MIB, ZKP_MEM_PRIO_NORMAL, 100, NULL, 1);
    waiter_start(&behind, rig->budget, 10 * MIB, ZKP_MEM_PRIO_NORMAL, -1, NULL, 2);
    pthread_join(head.thread, NULL);
    pthread_join(behind.thread, NULL);
    ASSERT_EQ_STATUS(head.status, ZKPIPE_ERR_TIMEOUT);
    ASSERT_OK(behind.status);

    /* Cancellation, raised from another thread while queued. */
    atomic_int cancel = 0;
    waiter cancelled;
    waiter_start(&cancelled, rig->budget, 80 * MIB, ZKP_MEM_PRIO_NORMAL, -1, &cancel, 1);
    atomic_store(&cancel, 1);
    pthread_join(cancelled.thread, NULL);
    ASSERT_EQ_STATUS(cancelled.status, ZKPIPE_ERR_CANCELLED);
    /* Raised before the call: no wait at all. */
    opts.timeout_ms = -1;
    opts.cancel = &cancel;
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig->budget, 80 * MIB, &opts, &r, NULL),
                     ZKPIPE_ERR_CANCELLED);
    /* A request that fits is granted even with the flag up: cancellation
     * is for waits. */
    ASSERT_OK(zkp_mem_reserve_wait(rig->budget, 10 * MIB, &opts, &r, NULL));
    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_release(&holder));
    rig_close(rig);
}

TEST_CASE(mem_reserve_more_than_the_budget_fails_at_once) {
    mem_rig *rig = rig_open(100 * MIB);
    zkp_mem_reservation *r;
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig->budget, 100 * MIB + 1, NULL, &r, &d),
                     ZKPIPE_ERR_NO_MEMORY);
    ASSERT(strstr(d.msg, "never fit") != NULL);
    ASSERT_OK(zkp_mem_reserve(rig->budget, 0, ZKP_MEM_PRIO_LOW, &r)); /* empty is fine */
    ASSERT_OK(zkp_mem_release(&r));
    zkp_mem_wait_opts bad = {ZKP_MEM_PRIO_COUNT, -1, NULL};
    ASSERT_EQ_STATUS(zkp_mem_reserve_wait(rig->budget, 1, &bad, &r, NULL),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    rig_close(rig);
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

static void *admission_worker(void *arg) {
    admission_worker_arg *wa = arg;
    admission_race *ar = wa->race;
    uint64_t rng = wa->seed;
    for (unsigned i = 0; i < ar->rounds; i++) {
        uint64_t bytes = 1 + zkp_splitmix64(&rng) % (ar->total / 3);
        zkp_mem_wait_opts opts = {(zkp_mem_priority)(zkp_splitmix64(&rng) % ZKP_MEM_PRIO_COUNT), -1,
                                  NULL};
        switch (zkp_splitmix64(&rng) % 3) {
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
    mem_rig *rig = rig_open(90 * MIB);
    enum { THREADS = 8 };
    admission_race ar = {.budget = rig->budget, .total = 90 * MIB, .rounds = test_iters(400)};
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
    zkp_mem_budget_stats bs = budget_stats(rig->budget);
    ASSERT(bs.peak_reserved_bytes <= bs.total_bytes);
    ASSERT(bs.grants > 0);
    printf("  %" PRIu64 " grants, %" PRIu64 " after waiting, peak %.1f of %.1f MiB\n", bs.grants,
           bs.grants_after_wait, (double)bs.peak_reserved_bytes / MIB,
           (double)bs.total_bytes / MIB);
    rig_close(rig);
}

/* ------------------------------------------------------------------------
 * The sampler */

TEST_CASE(mem_sampler_writes_a_csv_timeline) {
    mem_rig *rig = rig_open(100 * MIB);
    ASSERT_OK(zkp_mem_tracker_charge(rig->tracker, ZKP_MEM_KEY, 12345));
    zkp_mem_reservation *r;
    ASSERT_OK(zkp_mem_reserve(rig->budget, 7 * MIB, ZKP_MEM_PRIO_NORMAL, &r));
    temp_tree t;
    tree_make(&t);
    char csv[512];
    tree_path(&t, "timeline.csv", csv, sizeof csv);
    zkp_mem_sampler_config cfg = {
        .period_ms = 5, .csv_path = csv, .tracker = rig->tracker, .budget = rig->budget};
    ASSERT_OK(zkp_mem_sampler_start(&rig->sampler, &cfg, NULL));
    sleep_ms(60);
    zkp_mem_sampler_stats last;
    ASSERT_OK(zkp_mem_sampler_stop(&rig->sampler, &last));
    ASSERT(rig->sampler == NULL);
    ASSERT(last.samples >= 3);
    ASSERT(last.peak_rss_bytes >= last.rss_bytes && last.rss_bytes > 0);

    FILE *f = fopen(csv, "r");
    ASSERT(f != NULL);
    char line[1024];
    ASSERT(fgets(line, sizeof line, f) != NULL);
    ASSERT_STR_EQ(line,
                  "time_s,rss_bytes,tracked_bytes,key,csr,witness,abc,aux,scratch,"
                  "pool_idle,gpu_staging,key_file,request,budget_reserved_bytes,budget_total_bytes\n");
    unsigned rows = 0;
    double last_t = -1;
    while (fgets(line, sizeof line, f)) {
        double ts;
        unsigned long long v[14];
        int n = sscanf(line, "%lf,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
                       &ts, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
                       &v[10], &v[11], &v[12], &v[13]);
        ASSERT_MSG(n == 15, "bad row: %s", line);
        ASSERT(ts >= last_t);
        last_t = ts;
        ASSERT(v[0] > 0);              /* rss */
        ASSERT_EQ_U64(v[1], 12345);    /* tracked */
        ASSERT_EQ_U64(v[2], 12345);    /* key */
        ASSERT_EQ_U64(v[10], 0);       /* key_file */
        ASSERT_EQ_U64(v[11], 0);       /* request */
        ASSERT_EQ_U64(v[12], 7 * MIB); /* budget reserved */
        ASSERT_EQ_U64(v[13], 100 * MIB);
        rows++;
    }
    fclose(f);
    ASSERT_EQ_U64(rows, last.samples); /* start's sample, the thread's, stop's */
    tree_remove(&t);

    /* Without a CSV or sources; a CSV that cannot be created. */
    ASSERT_OK(zkp_mem_sampler_start(&rig->sampler, NULL, NULL));
    ASSERT_OK(zkp_mem_sampler_reset_peak(rig->sampler));
    ASSERT_OK(zkp_mem_sampler_stop(&rig->sampler, NULL));
    zkp_diag d = {{0}};
    cfg.csv_path = "/nonexistent-dir/timeline.csv";
    ASSERT_EQ_STATUS(zkp_mem_sampler_start(&rig->sampler, &cfg, &d), ZKPIPE_ERR_IO);
    ASSERT(strstr(d.msg, "/nonexistent-dir/timeline.csv") != NULL);

    ASSERT_OK(zkp_mem_release(&r));
    ASSERT_OK(zkp_mem_tracker_discharge(rig->tracker, ZKP_MEM_KEY, 12345));
    rig_close(rig);
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
        size_t abc = load_sizes[zkp_splitmix64(&rng) % 3], aux = load_sizes[zkp_splitmix64(&rng) % 3];
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
    zkp_mem_pool_config pcfg = pool_config(idle_max, 0);
    mem_rig *rig = rig_open_with(budget, &pcfg);
    zkp_mem_sampler_config scfg = {.period_ms = 2, .tracker = rig->tracker, .budget = rig->budget};
    ASSERT_OK(zkp_mem_sampler_start(&rig->sampler, &scfg, NULL));

    load_job jobs[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].budget = rig->budget;
        jobs[i].cycles = test_iters(12);
        jobs[i].seed = test_rng_u64();
        atomic_init(&jobs[i].errors, 0);
    }
    /* Threads exist before the baseline, so their stacks are in it. */
    uint64_t baseline = rss_now(rig->sampler);
    /* No ASSERT until every thread started here is joined: the rig must
     * not go (rig_free) while they use it. */
    rss_peak rp;
    rss_peak_begin(&rp, rig->sampler);
    int started = 0;
    while (started < THREADS &&
           pthread_create(&th[started], NULL, load_worker, &jobs[started]) == 0)
        started++;
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    uint64_t peak = rss_peak_end(&rp);
    ASSERT_EQ_INT(started, THREADS);
    for (int i = 0; i < THREADS; i++) ASSERT_EQ_INT(atomic_load(&jobs[i].errors), 0);

    /* Once the trimmer has applied the idle cap, and once it has emptied
     * the pool. */
    ASSERT_OK(zkp_mem_pool_trim(rig->pool, UINT64_MAX));
    uint64_t after = rss_now(rig->sampler);
    ASSERT_OK(zkp_mem_pool_trim(rig->pool, 0));
    uint64_t trimmed = rss_now(rig->sampler);
    zkp_mem_budget_stats bs = budget_stats(rig->budget);
    zkp_mem_pool_stats ps = pool_stats(rig->pool);
    zkp_mem_snapshot snap;
    ASSERT_OK(zkp_mem_tracker_snapshot(rig->tracker, &snap));
    ASSERT_OK(zkp_mem_sampler_stop(&rig->sampler, NULL));
    char how[64];
#if RSS_LESS_SHADOW
    snprintf(how, sizeof how, "of %" PRIu64 " samples", rp.samples);
#else
    if (rp.kernel_peak)
        snprintf(how, sizeof how, "kernel %.1f", (double)rp.kernel_peak / MIB);
    else
        snprintf(how, sizeof how, "sampled");
#endif
    printf("  %s MiB: baseline %.1f, peak %.1f (%s), after %.1f, trimmed %.1f\n", RSS_MEASURED,
           (double)baseline / MIB, (double)peak / MIB, how, (double)after / MIB,
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
                   "peak %s %" PRIu64 " KiB > baseline %" PRIu64 " + budget %" PRIu64
                   " + %" PRIu64 " KiB",
                   RSS_MEASURED, peak / KIB, baseline / KIB, budget / KIB, tolerance / KIB);
        /* Idle regions stay up to the cap; a trim gives them all back. */
        ASSERT(after <= baseline + idle_max + tolerance);
        ASSERT_MSG(trimmed <= baseline + 4 * MIB,
                   "%s %" PRIu64 " KiB after the trim, baseline %" PRIu64 " KiB", RSS_MEASURED,
                   trimmed / KIB, baseline / KIB);
    }
    rig_close(rig);
}
