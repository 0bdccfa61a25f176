/* The test runner: `zkp_tests` runs every case, `zkp_tests NAME...` runs the
 * named ones, `zkp_tests --list` prints the registry. Exit status 0 when all
 * ran cases passed or skipped. CTest calls it once per case. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "util/cpu.h"
#include "util/splitmix.h"

#define TEST_ENTRY(name) void zkp_test_##name(void);
#include "tests_list.inc"
#undef TEST_ENTRY

typedef struct {
    const char *name;
    void (*fn)(void);
} test_entry;

static const test_entry registry[] = {
#define TEST_ENTRY(name) {#name, zkp_test_##name},
#include "tests_list.inc"
#undef TEST_ENTRY
};

enum { CASE_PASS, CASE_FAIL, CASE_SKIP };
static jmp_buf case_jmp;
static uint64_t rng_state[4];
static uint64_t case_seed;

/* The current case's hooks (test_defer), run when it ends. */
enum { MAX_DEFERRED = 32 };
static struct {
    void (*fn)(void *);
    void *arg;
} deferred[MAX_DEFERRED];
static unsigned n_deferred;

void test_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    longjmp(case_jmp, CASE_FAIL);
}

void test_skip(const char *why) {
    fprintf(stderr, "skipped: %s\n", why);
    longjmp(case_jmp, CASE_SKIP);
}

void test_defer(void (*fn)(void *arg), void *arg) {
    if (n_deferred == MAX_DEFERRED)
        test_fail(__FILE__, __LINE__, "more than %d test_defer hooks in one case", MAX_DEFERRED);
    deferred[n_deferred].fn = fn;
    deferred[n_deferred].arg = arg;
    n_deferred++;
}

/* Runs the hooks of the case that just ended, last registered first.
 * Each is taken off the list before it runs, so a hook that fails (and
 * comes back here by longjmp) is not run again. Returns whether one
 * failed. */
static int run_deferred(void) {
    volatile int failed = 0;
    while (n_deferred > 0) {
        n_deferred--;
        switch (setjmp(case_jmp)) {
            case 0: deferred[n_deferred].fn(deferred[n_deferred].arg); break;
            case CASE_FAIL: failed = 1; break;
            default: break; /* a hook's test_skip leaves the outcome as it was */
        }
    }
    return failed;
}

static void rng_seed(uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < 4; i++) rng_state[i] = zkp_splitmix64(&s);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t test_rng_u64(void) {
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void test_rng_bytes(void *buf, size_t len) {
    unsigned char *p = buf;
    while (len > 0) {
        uint64_t v = test_rng_u64();
        size_t n = len < 8 ? len : 8;
        memcpy(p, &v, n);
        p += n;
        len -= n;
    }
}

uint64_t test_seed(void) { return case_seed; }

unsigned test_iters(unsigned base) {
    const char *s = getenv("ZKPIPE_TEST_ITERS");
    double scale = s ? strtod(s, NULL) : 1.0;
    if (!(scale > 0)) scale = 1.0;
    double n = base * scale;
    return n < 1 ? 1 : (unsigned)n;
}

const char *test_data_path(const char *relative) {
    static char bufs[4][4096];
    static unsigned slot;
    char *b = bufs[slot++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", ZKP_TEST_DATA_DIR, relative);
    return b;
}

int test_run_self(const char *case_name, const char *env) {
    size_t n = 0;
    while (environ[n]) n++;
    char **envp = calloc(n + 2, sizeof *envp);
    ASSERT(envp != NULL);
    memcpy(envp, environ, n * sizeof *envp);
    envp[n] = (char *)env;
    char *argv[] = {(char *)"zkp_tests", (char *)case_name, NULL};
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, envp);
    free(envp);
    ASSERT_MSG(e == 0, "cannot run the test program again: %s", strerror(e));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) ASSERT(errno == EINTR);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_hex(char *out, const void *data, size_t len) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
}

void test_assert_mem_eq(const char *file, int line, const char *an, const char *bn, const void *a,
                        const void *b, size_t len) {
    if (memcmp(a, b, len) == 0) return;
    char *ha = malloc(2 * len + 1), *hb = malloc(2 * len + 1);
    if (ha && hb) {
        test_hex(ha, a, len);
        test_hex(hb, b, len);
        fprintf(stderr, "%s:%d: ASSERT_MEM_EQ(%s, %s) over %zu bytes:\n  %s\n  %s\n", file, line,
                an, bn, len, ha, hb);
    }
    free(ha);
    free(hb);
    longjmp(case_jmp, CASE_FAIL);
}

static uint64_t base_seed(void) {
    const char *s = getenv("ZKPIPE_TEST_SEED");
    if (s && *s) return strtoull(s, NULL, 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
}

static int run_case(const test_entry *t, uint64_t seed) {
    case_seed = seed;
    rng_seed(seed);
    printf("[ RUN  ] %s (seed=0x%016" PRIx64 ", arith=%s)\n", t->name, seed, zkp_cpu_path_name());
    fflush(stdout);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile int outcome = setjmp(case_jmp);
    if (outcome == 0) {
        t->fn();
        outcome = CASE_PASS;
    }
    if (run_deferred()) outcome = CASE_FAIL;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    static const char *tags[] = {"[  OK  ]", "[ FAIL ]", "[ SKIP ]"};
    printf("%s %s (%.1f ms)\n", tags[outcome], t->name, ms);
    if (outcome == CASE_FAIL)
        printf("         replay: ZKPIPE_TEST_SEED=0x%016" PRIx64 " zkp_tests %s\n", seed, t->name);
    fflush(stdout);
    return outcome;
}

int main(int argc, char **argv) {
    size_t n = sizeof registry / sizeof registry[0];
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < n; i++) printf("%s\n", registry[i].name);
        return 0;
    }
    uint64_t seed = base_seed();
    int failed = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        int selected = argc == 1;
        for (int a = 1; a < argc && !selected; a++) selected = strcmp(argv[a], registry[i].name) == 0;
        if (!selected) continue;
        ran++;
        if (run_case(&registry[i], seed) == CASE_FAIL) failed++;
    }
    if (argc > 1 && ran != argc - 1) {
        fprintf(stderr, "unknown test name among the arguments (see --list)\n");
        return 2;
    }
    printf("%d case(s), %d failed\n", ran, failed);
    return failed ? 1 : 0;
}
