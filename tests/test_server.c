/* Unit tests of the daemon's small helpers (server/svc_common.h,
 * server/daemon_internal.h); tests/daemon.sh drives the daemon itself. */
#include <string.h>

#include "server/daemon_internal.h"
#include "server/svc_common.h"
#include "test.h"

TEST_CASE(server_utf8_check) {
    static const char *const good[] = {"", "abc", "sector-17", "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf"};
    static const char *const bad[] = {
        "\xff",             /* never a UTF-8 byte */
        "\x80",             /* continuation without a lead */
        "\xc3",             /* truncated */
        "\xe2\x82",         /* truncated */
        "\xc0\xaf",         /* overlong '/' */
        "\xe0\x80\xaf",     /* overlong */
        "\xed\xa0\x80",     /* surrogate U+D800 */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "ok\xfe",           /* bad byte after good ones */
        "\xc3\x28",         /* lead followed by a non-continuation */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ASSERT_MSG(svc_utf8_ok(good[i]), "good case %zu rejected", i);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_MSG(!svc_utf8_ok(bad[i]), "bad case %zu accepted", i);
}

TEST_CASE(server_wire_enums_and_units) {
    zkpipe_priority p;
    ASSERT(svc_priority(0, &p) && p == ZKPIPE_PRIORITY_NORMAL);
    ASSERT(svc_priority(1, &p) && p == ZKPIPE_PRIORITY_LOW);
    ASSERT(svc_priority(2, &p) && p == ZKPIPE_PRIORITY_NORMAL);
    ASSERT(svc_priority(3, &p) && p == ZKPIPE_PRIORITY_HIGH);
    ASSERT(svc_priority(4, &p) && p == ZKPIPE_PRIORITY_CRITICAL);
    ASSERT(!svc_priority(5, &p) && !svc_priority(-1, &p));
    ASSERT_EQ_U64(svc_ms(-1.0), 0);
    ASSERT_EQ_U64(svc_ms(0.0004), 0);
    ASSERT_EQ_U64(svc_ms(0.0006), 1);
    ASSERT_EQ_U64(svc_ms(12.3456), 12346);
    ASSERT_EQ_U64(srv_parse_id("17"), 17);
    ASSERT_EQ_U64(srv_parse_id("18446744073709551615"), 0); /* 20 digits: refused */
    ASSERT_EQ_U64(srv_parse_id("9999999999999999999"), UINT64_C(9999999999999999999));
    ASSERT_EQ_U64(srv_parse_id(""), 0);
    ASSERT_EQ_U64(srv_parse_id("1x"), 0);
    ASSERT_EQ_U64(srv_parse_id("-1"), 0);
    ASSERT_EQ_U64(srv_parse_id(NULL), 0);
    ASSERT(strcmp(srv_kind_name(SRV_KIND_CIRCOM), "circom") == 0);
    ASSERT(strcmp(srv_kind_name(SRV_KIND_WINNING_POST), "winning_post") == 0);
    ASSERT(strcmp(srv_kind_name((srv_kind)99), "?") == 0);
}
