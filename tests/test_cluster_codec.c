/* Cluster mode's framing of a queued job's inputs and of its result
 * (src/server/cluster.c): what a member writes comes back unchanged, and a
 * row from the database that is not exactly that (a claimed row is
 * untrusted input) is refused with a message, never read past its end or
 * allocated for on its word. */
#include <stdlib.h>
#include <string.h>

#include "queue/queue.h"
#include "server/cluster.h"
#include "test.h"
#include "zkpipe/v1/prover.pb-c.h"

static void free_(void *p) { free(p); }

TEST_CASE(cluster_codec_inputs) {
    Zkpipe__V1__SubmitRequest s = ZKPIPE__V1__SUBMIT_REQUEST__INIT;
    ProtobufCBinaryData w[2];
    uint8_t a[100], b[3];
    test_rng_bytes(a, sizeof a);
    test_rng_bytes(b, sizeof b);
    w[0].data = a;
    w[0].len = sizeof a;
    w[1].data = b;
    w[1].len = sizeof b;
    s.key = (char *)"poseidon";
    s.request_id = (char *)"rq-1";
    s.priority = ZKPIPE__V1__PRIORITY__HIGH;
    s.n_witnesses = 2;
    s.witnesses = w;
    size_t len;
    uint8_t *buf = srv_cluster_encode_inputs(SRV_SERVICE_ZKPIPE, &s.base, &len);
    ASSERT(buf);
    test_defer(free_, buf);
    ASSERT_EQ_U64(len, SRV_CLUSTER_INPUTS_HEADER + protobuf_c_message_get_packed_size(&s.base));

    srv_service service;
    const uint8_t *m;
    size_t m_len;
    char why[256];
    ASSERT_EQ_INT(srv_cluster_decode_inputs(buf, len, &service, &m, &m_len, why, sizeof why), 0);
    ASSERT_EQ_INT(service, SRV_SERVICE_ZKPIPE);
    Zkpipe__V1__SubmitRequest *back = zkpipe__v1__submit_request__unpack(NULL, m_len, m);
    ASSERT(back);
    int same = !strcmp(back->key, "poseidon") && !strcmp(back->request_id, "rq-1") &&
               back->priority == ZKPIPE__V1__PRIORITY__HIGH && back->n_witnesses == 2 &&
               back->witnesses[0].len == sizeof a &&
               !memcmp(back->witnesses[0].data, a, sizeof a) && back->witnesses[1].len == sizeof b &&
               !memcmp(back->witnesses[1].data, b, sizeof b);
    zkpipe__v1__submit_request__free_unpacked(back, NULL);
    ASSERT_MSG(same, "the request did not come back unchanged");

    /* Every shorter frame, and every frame with one header byte changed
     * (but the length's high bytes, which only make it larger), is refused. */
    for (size_t cut = 0; cut < len; cut++)
        ASSERT_MSG(srv_cluster_decode_inputs(buf, cut, &service, &m, &m_len, why, sizeof why) != 0,
                   "a frame cut to %zu bytes was accepted", cut);
    for (size_t i = 0; i < SRV_CLUSTER_INPUTS_HEADER; i++) {
        uint8_t *bad = malloc(len);
        ASSERT(bad);
        memcpy(bad, buf, len);
        bad[i] ^= 0x5a;
        int r = srv_cluster_decode_inputs(bad, len, &service, &m, &m_len, why, sizeof why);
        free(bad);
        ASSERT_MSG(r != 0, "header byte %zu changed and accepted", i);
        ASSERT(why[0]);
    }
}

static void result_clear_(void *p) { zkpipe_job_result_clear(p); }

TEST_CASE(cluster_codec_result) {
    zkpipe_partition_result parts[3];
    memset(parts, 0, sizeof parts);
    char json[3][64];
    for (int i = 0; i < 3; i++) {
        parts[i].proof_len = i == 2 ? 384 : 256;
        test_rng_bytes(parts[i].proof, parts[i].proof_len);
        snprintf(json[i], sizeof json[i], "{\"pi_a\": [\"%d\"]}", i);
        parts[i].proof_json = i == 1 ? NULL : json[i];
        parts[i].public_json = (char *)"[\"7\"]";
        parts[i].verified = i != 1;
    }
    zkpipe_job_result r;
    memset(&r, 0, sizeof r);
    r.partitions = parts;
    r.n_partitions = 3;
    zkpipe_stage_times t = {.queue_wait = 0.25, .key_load = 1.5, .synthesis = 0.125,
                            .device = 2.0, .finalize = 0.5, .verify = 0.0625};
    size_t len;
    char why[256];
    uint8_t *buf = srv_cluster_encode_result(&r, &t, &len, why, sizeof why);
    ASSERT_MSG(buf, "%s", why);
    test_defer(free_, buf);

    static zkpipe_job_result back;
    zkpipe_stage_times tb;
    test_defer(result_clear_, &back);
    ASSERT_MSG(srv_cluster_decode_result(buf, len, &back, &tb, why, sizeof why) == 0, "%s", why);
    ASSERT_EQ_U64(back.n_partitions, 3);
    for (int i = 0; i < 3; i++) {
        const zkpipe_partition_result *p = &back.partitions[i];
        ASSERT_EQ_U64(p->proof_len, parts[i].proof_len);
        ASSERT_MEM_EQ(p->proof, parts[i].proof, p->proof_len);
        ASSERT_EQ_INT(p->verified, parts[i].verified);
        if (parts[i].proof_json)
            ASSERT_STR_EQ(p->proof_json, parts[i].proof_json);
        else
            ASSERT(p->proof_json == NULL);
        ASSERT_STR_EQ(p->public_json, parts[i].public_json);
    }
    ASSERT(tb.queue_wait == t.queue_wait && tb.key_load == t.key_load &&
           tb.synthesis == t.synthesis && tb.device == t.device && tb.finalize == t.finalize &&
           tb.verify == t.verify);
    zkpipe_job_result_clear(&back);

    /* Truncated anywhere, one byte too many, or a changed byte in a header
     * or a length: refused, and nothing is left allocated. */
    for (size_t cut = 0; cut < len; cut++) {
        zkpipe_job_result x;
        ASSERT_MSG(srv_cluster_decode_result(buf, cut, &x, &tb, why, sizeof why) != 0,
                   "a result cut to %zu bytes was accepted", cut);
        ASSERT(x.partitions == NULL);
    }
    uint8_t *bad = malloc(len + 1);
    ASSERT(bad);
    test_defer(free_, bad);
    memcpy(bad, buf, len);
    bad[len] = 0;
    ASSERT(srv_cluster_decode_result(bad, len + 1, &back, &tb, why, sizeof why) != 0);
    /* The partition count inflated: refused before anything is allocated. */
    memcpy(bad, buf, len);
    bad[11] = 0x7f;
    ASSERT(srv_cluster_decode_result(bad, len, &back, &tb, why, sizeof why) != 0);
    /* A proof longer than any curve's. */
    memcpy(bad, buf, len);
    bad[60 + 1] = 0xff;
    bad[60 + 2] = 0x01;
    ASSERT(srv_cluster_decode_result(bad, len, &back, &tb, why, sizeof why) != 0);
    /* Text with a NUL inside, and text that is not UTF-8. */
    size_t at = 60 + 13 + 256; /* partition 0's proof.json */
    memcpy(bad, buf, len);
    bad[at + 2] = 0;
    ASSERT(srv_cluster_decode_result(bad, len, &back, &tb, why, sizeof why) != 0);
    memcpy(bad, buf, len);
    bad[at + 2] = 0xc0;
    ASSERT(srv_cluster_decode_result(bad, len, &back, &tb, why, sizeof why) != 0);

    /* A result past the queue's limit is refused when written. */
    size_t n = ZKP_QUEUE_RESULT_MAX / 256 + 1;
    zkpipe_partition_result *many = calloc(n, sizeof *many);
    ASSERT(many);
    test_defer(free_, many);
    for (size_t i = 0; i < n; i++) many[i].proof_len = 256;
    r.partitions = many;
    r.n_partitions = n;
    ASSERT(srv_cluster_encode_result(&r, &t, &len, why, sizeof why) == NULL);
    ASSERT(strstr(why, "exceeds"));
}

/* A member claims while one of its devices is in service, and stops once a
 * fault has taken the last one out. */
TEST_CASE(cluster_member_without_a_device_in_service_claims_nothing) {
    zkpipe_engine_status *st = calloc(1, sizeof *st);
    ASSERT(st != NULL);
    ASSERT_EQ_INT(srv_cluster_can_prove(st), 1);
    st->n_devices = 2;
    ASSERT_EQ_INT(srv_cluster_can_prove(st), 1);
    st->devices[1].lost = 1;
    ASSERT_EQ_INT(srv_cluster_can_prove(st), 1);
    st->devices[0].lost = 1;
    ASSERT_EQ_INT(srv_cluster_can_prove(st), 0);
    st->n_devices = 1;
    ASSERT_EQ_INT(srv_cluster_can_prove(st), 0);
    free(st);
}
