/* The test harness.
 *
 * A test case is written as
 *
 *     TEST_CASE(field_mul_commutes) { ... ASSERT_EQ_U64(a, b); ... }
 *
 * anywhere in tests/ (any .c file). CMake scans those files for TEST_CASE(...) at
 * configure time and generates the one registry (tests_list.inc) that both
 * the runner and CTest use, so every case runs alone by name:
 * `zkp_tests field_mul_commutes`.
 *
 * Randomized tests draw from test_rng_*(), a xoshiro256** generator seeded
 * per case from ZKPIPE_TEST_SEED (or the clock); the runner prints the seed of
 * every case so a failure can be replayed. ZKPIPE_TEST_ITERS scales the
 * iteration counts that cases take through test_iters(). A failing assertion
 * prints both operands and ends the case. */
#ifndef ZKP_TESTS_TEST_H
#define ZKP_TESTS_TEST_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "zkpipe/zkpipe.h"

#define TEST_CASE(name)            \
    void zkp_test_##name(void); \
    void zkp_test_##name(void)

/* Ends the current case as failed. Never returns. */
__attribute__((noreturn)) void test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Ends the current case as skipped (for example: no GPU). Never returns. */
__attribute__((noreturn)) void test_skip(const char *why);

/* Runs fn(arg) once the current case has ended, however it ended: by
 * returning, by a failed assertion or by test_skip. A failed assertion
 * leaves the case by longjmp, past the frees at the end of the case, so
 * what a case must release on every path (and LeakSanitizer would report
 * otherwise, on top of the failure) is released by a hook. Hooks run in the
 * reverse order of their registration, on the case's thread; one whose own
 * assertion fails fails the case, and the hooks after it still run. Call
 * it on the case's own thread only. */
void test_defer(void (*fn)(void *arg), void *arg);

/* Per-case deterministic randomness (seeded, replayable). */
uint64_t test_rng_u64(void);
void test_rng_bytes(void *buf, size_t len);
uint64_t test_seed(void);
/* base × ZKPIPE_TEST_ITERS (default 1), at least 1. */
unsigned test_iters(unsigned base);
/* Absolute path of a file under tests/ (the source tree); static buffer per call slot. */
const char *test_data_path(const char *relative);

/* Runs this test program again on one case, in a process of its own with
 * env ("NAME=value") added to the environment, and returns its exit
 * status (-1 where it did not exit). For a case whose effects outlive it in
 * its process, such as a fault that leaves a GPU failing every later call. */
int test_run_self(const char *case_name, const char *env);

/* hex of a byte string into a caller buffer of 2*len+1 bytes. */
void test_hex(char *out, const void *data, size_t len);

#define ASSERT(cond)                                                \
    do {                                                            \
        if (!(cond)) test_fail(__FILE__, __LINE__, "ASSERT(%s)", #cond); \
    } while (0)

#define ASSERT_MSG(cond, ...)                                   \
    do {                                                        \
        if (!(cond)) test_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

#define ASSERT_EQ_U64(a, b)                                                                   \
    do {                                                                                      \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                      \
        if (a_ != b_)                                                                         \
            test_fail(__FILE__, __LINE__, "ASSERT_EQ_U64(%s, %s): %" PRIu64 " != %" PRIu64, #a, \
                      #b, a_, b_);                                                            \
    } while (0)

#define ASSERT_EQ_INT(a, b)                                                                      \
    do {                                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                                      \
        if (a_ != b_)                                                                            \
            test_fail(__FILE__, __LINE__, "ASSERT_EQ_INT(%s, %s): %lld != %lld", #a, #b, a_, b_); \
    } while (0)

#define ASSERT_EQ_STATUS(a, b)                                                              \
    do {                                                                                    \
        zkpipe_status a_ = (a), b_ = (b);                                                   \
        if (a_ != b_)                                                                       \
            test_fail(__FILE__, __LINE__, "ASSERT_EQ_STATUS(%s, %s): %s != %s", #a, #b,     \
                      zkpipe_status_name(a_), zkpipe_status_name(b_));                      \
    } while (0)

#define ASSERT_OK(expr) ASSERT_EQ_STATUS((expr), ZKPIPE_OK)

#define ASSERT_STR_EQ(a, b)                                                                   \
    do {                                                                                      \
        const char *a_ = (a), *b_ = (b);                                                      \
        if (strcmp(a_, b_) != 0)                                                              \
            test_fail(__FILE__, __LINE__, "ASSERT_STR_EQ(%s, %s): \"%s\" != \"%s\"", #a, #b, a_, \
                      b_);                                                                    \
    } while (0)

/* Compares len bytes; on mismatch prints both as hex. */
#define ASSERT_MEM_EQ(a, b, len) test_assert_mem_eq(__FILE__, __LINE__, #a, #b, (a), (b), (len))
void test_assert_mem_eq(const char *file, int line, const char *an, const char *bn, const void *a,
                        const void *b, size_t len);

#endif
