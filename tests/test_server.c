/* Unit tests of the daemon's small helpers (server/svc_common.h,
 * server/daemon_internal.h); tests/daemon.sh drives the daemon itself. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/daemon_internal.h"
#include "server/keydirs.h"
#include "server/svc_common.h"
#include "test.h"
#include "zkpipe/v1/prover.pb-c.h"

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
    ASSERT(strcmp(srv_kind_name(SRV_KIND_CIRCOM), "circom") == 0);
    ASSERT(strcmp(srv_kind_name(SRV_KIND_WINNING_POST), "winning_post") == 0);
    ASSERT(strcmp(srv_kind_name((srv_kind)99), "?") == 0);
    /* gRPC's own names and numbers. */
    ASSERT(strcmp(zkp_rpc_code_name(ZKP_RPC_NOT_FOUND), "NOT_FOUND") == 0);
    ASSERT(strcmp(zkp_rpc_code_name(ZKP_RPC_PERMISSION_DENIED), "PERMISSION_DENIED") == 0);
    ASSERT(strcmp(zkp_rpc_code_name(ZKP_RPC_FAILED_PRECONDITION), "FAILED_PRECONDITION") == 0);
    ASSERT(strcmp(zkp_rpc_code_name(ZKP_RPC_UNAVAILABLE), "UNAVAILABLE") == 0);
    ASSERT(strcmp(zkp_rpc_code_name(16), "UNAUTHENTICATED") == 0);
    ASSERT(strcmp(zkp_rpc_code_name(17), "?") == 0 && strcmp(zkp_rpc_code_name(-1), "?") == 0);
}

/* Job ids carry the start's epoch: an id of another start (a daemon
 * restarted, its counter back at 1) names no job of this one. */
TEST_CASE(server_job_ids_name_their_start) {
    const uint64_t epoch = UINT64_C(0x3f09c2a7d41e8b55), other = UINT64_C(0x3f09c2a7d41e8b56);
    char id[SRV_ID_TEXT_MAX];
    srv_format_id(id, epoch, 17);
    ASSERT(strcmp(id, "3f09c2a7d41e8b55-17") == 0);
    ASSERT_EQ_U64(srv_parse_id(id, epoch), 17);
    ASSERT_EQ_U64(srv_parse_id(id, other), 0); /* the same number from another start */
    srv_format_id(id, 0, UINT64_MAX);
    ASSERT(strcmp(id, "0000000000000000-18446744073709551615") == 0);
    ASSERT(strlen(id) < SRV_ID_TEXT_MAX);
    ASSERT_EQ_U64(srv_parse_id("0000000000000000-9999999999999999999", 0), UINT64_C(9999999999999999999));
    ASSERT_EQ_U64(srv_parse_id("0000000000000000-18446744073709551615", 0), 0); /* 20 digits */
    static const char *const bad[] = {
        "17", "", "3f09c2a7d41e8b55", "3f09c2a7d41e8b55-", "3f09c2a7d41e8b55-1x",
        "3f09c2a7d41e8b55--1", "3F09C2A7D41E8B55-17", "3f09c2a7d41e8b55-017", "3f09c2a7d41e8b5-17",
        "3f09c2a7d41e8b55_17", "3f09c2a7d41e8b55-0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_MSG(srv_parse_id(bad[i], epoch) == 0, "'%s' accepted", bad[i]);
    ASSERT_EQ_U64(srv_parse_id(NULL, epoch), 0);
}

/* Stage times on the wire: the longest partition, never the sum, so no
 * stage exceeds the job's wall clock. */
TEST_CASE(server_stage_times_are_never_summed) {
    zkpipe_partition_result parts[4];
    memset(parts, 0, sizeof parts);
    for (int i = 0; i < 4; i++) {
        parts[i].times.synthesis = 1.0 + 0.25 * i; /* four in parallel: 1.75 s longest, 7 s summed */
        parts[i].times.device = 0.5;
        parts[i].times.finalize = 0.125 * (4 - i);
        parts[i].times.verify = 0.01;
        parts[i].times.queue_wait = 0.125 * i;
    }
    parts[2].times.key_load = 0.75;
    parts[1].times.steps[ZKPIPE_STEP_MSM_H] = 0.375;
    parts[3].times.steps[ZKPIPE_STEP_MSM_H] = 0.25;
    zkpipe_job_result r;
    memset(&r, 0, sizeof r);
    r.partitions = parts;
    r.n_partitions = 4;
    r.times.total = 2.5;
    r.times.queue_wait = 0.25;
    r.times.synthesis = 7.0; /* the engine's sums */
    r.times.device = 2.0;
    zkpipe_stage_times t;
    svc_stage_times(&r, &t);
    ASSERT(t.synthesis == 1.75 && t.device == 0.5 && t.finalize == 0.5 && t.verify == 0.01);
    ASSERT(t.key_load == 0.75 && t.queue_wait == 0.375 && t.total == 2.5);
    ASSERT(t.steps[ZKPIPE_STEP_MSM_H] == 0.375 && t.steps[ZKPIPE_STEP_MSM_A] == 0);
    ASSERT(t.synthesis <= t.total && t.device <= t.total);
}

static void mkdir_or_fail_(const char *p) { ASSERT_MSG(mkdir(p, 0700) == 0, "%s: %s", p, strerror(errno)); }
static void touch_(const char *p) {
    FILE *f = fopen(p, "w");
    ASSERT_MSG(f != NULL, "%s: %s", p, strerror(errno));
    fputs("zkey", f);
    ASSERT(fclose(f) == 0);
}

/* server.key_dirs: files inside are allowed by their resolved path;
 * "..", symbolic links out, prefixes of a directory's name and the
 * directory itself are not. */
TEST_CASE(server_key_dirs_confine_paths) {
    const char *base = getenv("TMPDIR");
    char root[400], keys[460], other[460], p[600], q[600];
    snprintf(root, sizeof root, "%s/zkp_keydirs_XXXXXX", base && *base ? base : "/tmp");
    ASSERT(mkdtemp(root) != NULL);
    snprintf(keys, sizeof keys, "%s/keys", root);
    snprintf(other, sizeof other, "%s/keys2", root); /* shares the prefix "keys" */
    mkdir_or_fail_(keys);
    mkdir_or_fail_(other);
    snprintf(p, sizeof p, "%s/a.zkey", keys);
    touch_(p);
    snprintf(p, sizeof p, "%s/secret", other);
    touch_(p);
    snprintf(p, sizeof p, "%s/sub", keys);
    mkdir_or_fail_(p);
    snprintf(p, sizeof p, "%s/sub/b.zkey", keys);
    touch_(p);
    snprintf(p, sizeof p, "%s/out.zkey", keys); /* a link from inside to outside */
    snprintf(q, sizeof q, "%s/secret", other);
    ASSERT(symlink(q, p) == 0);
    snprintf(p, sizeof p, "%s/in.zkey", other); /* a link from outside to inside */
    snprintf(q, sizeof q, "%s/a.zkey", keys);
    ASSERT(symlink(q, p) == 0);

    const char *cfg[] = {keys};
    char **dirs = NULL;
    zkp_diag d = {{0}};
    ASSERT_MSG(srv_key_dirs_resolve(cfg, 1, &dirs, &d) == ZKPIPE_OK, "%s", d.msg);
    const char *const *cd = (const char *const *)dirs;
    char resolved[PATH_MAX], msg[300];
    struct {
        const char *rel; /* under root */
        zkp_rpc_code want;
        const char *resolved_rel; /* when OK */
    } cases[] = {
        {"/keys/a.zkey", ZKP_RPC_OK, "/keys/a.zkey"},
        {"/keys/sub/b.zkey", ZKP_RPC_OK, "/keys/sub/b.zkey"},
        {"/keys/sub/../a.zkey", ZKP_RPC_OK, "/keys/a.zkey"},
        {"/keys2/in.zkey", ZKP_RPC_OK, "/keys/a.zkey"},
        {"/keys/../keys2/secret", ZKP_RPC_PERMISSION_DENIED, NULL},
        {"/keys/out.zkey", ZKP_RPC_PERMISSION_DENIED, NULL},
        {"/keys2/secret", ZKP_RPC_PERMISSION_DENIED, NULL},
        {"/keys", ZKP_RPC_PERMISSION_DENIED, NULL},
        {"/keys/sub", ZKP_RPC_INVALID_ARGUMENT, NULL},
        {"/keys/missing.zkey", ZKP_RPC_INVALID_ARGUMENT, NULL},
        {"/keys2/missing.zkey", ZKP_RPC_PERMISSION_DENIED, NULL}, /* existence is not told */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(p, sizeof p, "%s%s", root, cases[i].rel);
        zkp_rpc_code c = srv_key_path_check(cd, 1, p, resolved, msg, sizeof msg);
        ASSERT_MSG(c == cases[i].want, "%s: code %d, expected %d (%s)", cases[i].rel, (int)c,
                   (int)cases[i].want, msg);
        if (c == ZKP_RPC_OK) {
            char want[PATH_MAX], full[600];
            snprintf(full, sizeof full, "%s%s", root, cases[i].resolved_rel);
            ASSERT(realpath(full, want) != NULL);
            ASSERT_MSG(strcmp(resolved, want) == 0, "%s resolved to %s", cases[i].rel, resolved);
        } else {
            ASSERT(msg[0] != 0);
        }
    }
    ASSERT_EQ_INT(srv_key_path_check(cd, 1, "keys/a.zkey", resolved, msg, sizeof msg),
                  ZKP_RPC_INVALID_ARGUMENT);
    snprintf(p, sizeof p, "%s/keys/a.zkey", root);
    ASSERT_EQ_INT(srv_key_path_check(cd, 0, p, resolved, msg, sizeof msg), ZKP_RPC_PERMISSION_DENIED);
    ASSERT(strstr(msg, "server.key_dirs") != NULL);
    srv_key_dirs_free(dirs, 1);

    const char *missing[] = {p}; /* a file, not a directory */
    ASSERT_EQ_STATUS(srv_key_dirs_resolve(missing, 1, &dirs, &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    const char *relative[] = {"keys"};
    ASSERT_EQ_STATUS(srv_key_dirs_resolve(relative, 1, &dirs, &d), ZKPIPE_ERR_INVALID_ARGUMENT);

    static const char *const rm[] = {"/keys/a.zkey", "/keys/sub/b.zkey", "/keys/out.zkey",
                                     "/keys2/secret", "/keys2/in.zkey"};
    for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) {
        snprintf(p, sizeof p, "%s%s", root, rm[i]);
        ASSERT(unlink(p) == 0);
    }
    snprintf(p, sizeof p, "%s/keys/sub", root);
    ASSERT(rmdir(p) == 0 && rmdir(keys) == 0 && rmdir(other) == 0 && rmdir(root) == 0);
}

/* TCP addresses that reach only this machine, and those that do not. */
TEST_CASE(server_tcp_loopback_addresses) {
    static const char *const loop[] = {"127.0.0.1:9000", "127.1.2.3:0", "localhost:80",
                                       "[::1]:9000", "ipv4:127.0.0.1:1", "ipv6:[::1]:1"};
    static const char *const wide[] = {"0.0.0.0:9000", "[::]:9000", ":9000", "10.0.0.1:9000",
                                       "128.0.0.1:1", "127.0.0.1", "127.0.0.256:1", "1127.0.0.1:1",
                                       "127.0.0.1.5:1", "example.com:9000", "[::1]9000",
                                       "127.0.0.1x:1", "", "[::ffff:127.0.0.1]:1"};
    for (size_t i = 0; i < sizeof loop / sizeof loop[0]; i++)
        ASSERT_MSG(srv_tcp_is_loopback(loop[i]), "%s not taken for loopback", loop[i]);
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        ASSERT_MSG(!srv_tcp_is_loopback(wide[i]), "%s taken for loopback", wide[i]);
    ASSERT(!srv_tcp_is_loopback(NULL));
}

/* ------------------------------------------------------------------------
 * Large requests: decoded into engine buffers charged to the budget */

static void engine_destroy_(void *arg) {
    zkpipe_engine *e = arg;
    (void)zkpipe_engine_destroy(&e);
}

static zkpipe_engine *server_engine_(uint64_t budget) {
    zkpipe_engine_config cfg;
    ASSERT_OK(zkpipe_engine_config_default(&cfg));
    cfg.budget_bytes = budget;
    cfg.device = "cpu";
    cfg.device_threads = 1;
    zkpipe_engine *e = NULL;
    char err[256] = "";
    ASSERT_MSG(zkpipe_engine_create(&e, &cfg, err, sizeof err) == ZKPIPE_OK, "%s", err);
    test_defer(engine_destroy_, e);
    return e;
}

static unsigned request_category_(void) {
    for (unsigned c = 0; c < ZKPIPE_ENGINE_MEM_CATEGORIES; c++)
        if (!strcmp(zkpipe_engine_mem_category_name(c), "request")) return c;
    ASSERT_MSG(0, "no memory category 'request'");
    return 0;
}

/* A SubmitRequest of three 600 KB witnesses (1.8 MB on the wire, past
 * SVC_LARGE_MESSAGE) is decoded into an arena whose bytes the budget and
 * the "request" category count while it lives, and which gives them all
 * back when freed; a budget that cannot hold it refuses it as
 * RESOURCE_EXHAUSTED, never as a malformed message; a malformed large
 * message is still INVALID_ARGUMENT. */
TEST_CASE(server_large_request_charged_while_held) {
    zkpipe_engine *e = server_engine_((uint64_t)64 << 20);
    zkp_daemon d;
    memset(&d, 0, sizeof d);
    d.engine = e;
    enum { N = 3, W = 600 * 1000 };
    uint8_t *wit = malloc((size_t)N * W);
    ASSERT(wit != NULL);
    test_defer(free, wit);
    for (size_t i = 0; i < (size_t)N * W; i++) wit[i] = (uint8_t)(i * 131 + i / 977);
    ProtobufCBinaryData ws[N];
    for (int i = 0; i < N; i++) ws[i] = (ProtobufCBinaryData){W, wit + (size_t)i * W};
    Zkpipe__V1__SubmitRequest m = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    m.key = (char *)"k";
    m.n_witnesses = N;
    m.witnesses = ws;
    size_t len = zkpipe__v1__submit_request__get_packed_size(&m);
    ASSERT(len >= SVC_LARGE_MESSAGE && len > (size_t)N * W);
    uint8_t *wire = malloc(len);
    ASSERT(wire != NULL);
    test_defer(free, wire);
    ASSERT_EQ_U64(zkpipe__v1__submit_request__pack(&m, wire), len);

    zkpipe_engine_status *st = malloc(sizeof *st);
    ASSERT(st != NULL);
    test_defer(free, st);
    ASSERT_OK(zkpipe_engine_get_status(e, st));
    uint64_t reserved0 = st->budget_reserved_bytes;
    unsigned rc = request_category_();
    ASSERT_EQ_U64(st->mem_live[rc], 0);

    svc_arena *arena = NULL;
    zkp_rpc_code code;
    ProtobufCMessage *got =
        svc_unpack(&d, &zkpipe__v1__submit_request__descriptor, wire, len, &arena, &code);
    ASSERT(got != NULL && arena != NULL);
    const Zkpipe__V1__SubmitRequest *g = (const Zkpipe__V1__SubmitRequest *)got;
    ASSERT_EQ_U64(g->n_witnesses, N);
    for (int i = 0; i < N; i++) {
        ASSERT_EQ_U64(g->witnesses[i].len, W);
        ASSERT(memcmp(g->witnesses[i].data, wit + (size_t)i * W, W) == 0);
    }
    ASSERT(strcmp(g->key, "k") == 0);
    ASSERT_OK(zkpipe_engine_get_status(e, st));
    ASSERT_MSG(st->mem_live[rc] >= (uint64_t)N * W, "request bytes %llu",
               (unsigned long long)st->mem_live[rc]);
    ASSERT_EQ_U64(st->budget_reserved_bytes - reserved0, st->mem_live[rc]);
    svc_unpacked_free(got, arena);
    ASSERT_OK(zkpipe_engine_get_status(e, st));
    ASSERT_EQ_U64(st->mem_live[rc], 0);
    ASSERT_EQ_U64(st->budget_reserved_bytes, reserved0);

    /* Small messages take the C library's memory, as before. */
    Zkpipe__V1__SubmitRequest small = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    small.key = (char *)"k";
    uint8_t sbuf[16];
    size_t slen = zkpipe__v1__submit_request__pack(&small, sbuf);
    got = svc_unpack(&d, &zkpipe__v1__submit_request__descriptor, sbuf, slen, &arena, &code);
    ASSERT(got != NULL && arena == NULL);
    svc_unpacked_free(got, arena);

    /* Truncated: malformed, and nothing left charged. */
    got = svc_unpack(&d, &zkpipe__v1__submit_request__descriptor, wire, len - 1, &arena, &code);
    ASSERT(got == NULL && arena == NULL);
    ASSERT_EQ_U64(code, ZKP_RPC_INVALID_ARGUMENT);
    ASSERT_OK(zkpipe_engine_get_status(e, st));
    ASSERT_EQ_U64(st->mem_live[rc], 0);
    ASSERT_EQ_U64(st->budget_reserved_bytes, reserved0);

    /* A budget smaller than the request. */
    d.engine = server_engine_((uint64_t)1 << 20);
    got = svc_unpack(&d, &zkpipe__v1__submit_request__descriptor, wire, len, &arena, &code);
    ASSERT(got == NULL && arena == NULL);
    ASSERT_EQ_U64(code, ZKP_RPC_RESOURCE_EXHAUSTED);
}
