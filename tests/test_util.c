#include <stdlib.h>

#include "test.h"
#include "util/cpu.h"
#include "util/rand.h"
#include "util/util.h"

TEST_CASE(status_names_and_messages) {
    ASSERT_STR_EQ(zkpipe_status_name(ZKPIPE_OK), "ZKPIPE_OK");
    ASSERT_STR_EQ(zkpipe_status_name(ZKPIPE_ERR_NOT_IN_SUBGROUP), "ZKPIPE_ERR_NOT_IN_SUBGROUP");
    ASSERT_STR_EQ(zkpipe_status_name((zkpipe_status)9999), "ZKPIPE_UNKNOWN_STATUS");
    for (int s = 0; s < ZKPIPE_STATUS_COUNT_; s++) {
        const char *msg = zkpipe_strerror((zkpipe_status)s);
        ASSERT(msg != NULL && msg[0] != '\0');
    }
}

TEST_CASE(os_random_is_not_constant) {
    unsigned char a[32], b[32];
    ASSERT_OK(zkp_random_bytes(a, sizeof a));
    ASSERT_OK(zkp_random_bytes(b, sizeof b));
    ASSERT(memcmp(a, b, sizeof a) != 0);
}

TEST_CASE(size_overflow_checks) {
    size_t out;
    ASSERT_EQ_INT(zkp_mul_overflow(SIZE_MAX / 2 + 1, 2, &out), 1);
    ASSERT_EQ_INT(zkp_mul_overflow(1u << 20, 1u << 10, &out), 0);
    ASSERT_EQ_U64(out, 1u << 30);
    ASSERT_EQ_INT(zkp_add_overflow(SIZE_MAX, 1, &out), 1);
}

TEST_CASE(cpu_path_follows_environment) {
    const char *orig = getenv("ZKPIPE_FORCE_PORTABLE");
    char saved[64] = "";
    if (orig) snprintf(saved, sizeof saved, "%s", orig);
    int detected = zkp_cpu_detect();
    int detected_ifma = zkp_cpu_use_ifma;
    setenv("ZKPIPE_FORCE_PORTABLE", "1", 1);
    int forced = zkp_cpu_detect(), forced_ifma = zkp_cpu_use_ifma;
    const char *name = zkp_cpu_path_name();
    if (orig)
        setenv("ZKPIPE_FORCE_PORTABLE", saved, 1);
    else
        unsetenv("ZKPIPE_FORCE_PORTABLE");
    ASSERT_EQ_INT(zkp_cpu_detect(), detected);
    ASSERT_EQ_INT(zkp_cpu_use_ifma, detected_ifma);
    ASSERT_EQ_INT(forced, 0);
    ASSERT_EQ_INT(forced_ifma, 0);
    ASSERT_STR_EQ(name, "portable");
    /* IFMA needs the ADX path under it, and ZKPIPE_NO_IFMA turns off only it. */
    ASSERT(!detected_ifma || detected);
    const char *orig_no = getenv("ZKPIPE_NO_IFMA");
    char saved_no[64] = "";
    if (orig_no) snprintf(saved_no, sizeof saved_no, "%s", orig_no);
    setenv("ZKPIPE_NO_IFMA", "1", 1);
    int adx_no_ifma = zkp_cpu_detect(), no_ifma = zkp_cpu_use_ifma;
    if (orig_no)
        setenv("ZKPIPE_NO_IFMA", saved_no, 1);
    else
        unsetenv("ZKPIPE_NO_IFMA");
    (void)zkp_cpu_detect();
    ASSERT_EQ_INT(adx_no_ifma, detected);
    ASSERT_EQ_INT(no_ifma, 0);
    ASSERT_EQ_INT(zkp_cpu_use_ifma, detected_ifma);
}
