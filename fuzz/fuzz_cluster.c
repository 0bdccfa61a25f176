/* libFuzzer target: cluster mode's frames of a queued job's inputs and of
 * its result (server/cluster.h). Both come from rows of the shared
 * database, which any member (or anyone with access to it) may have
 * written, so a claimed row is untrusted input.
 *
 * Every input goes to both decoders. Beyond "no crash, no leak, no read
 * outside the input", it checks what they promise: a refused frame comes
 * with a reason and, for a result, nothing left allocated; an accepted
 * inputs frame points inside the input at a request that, when its
 * service's parser takes it, frames again to a frame that decodes the
 * same; an accepted result encodes back to the same bytes (the stage
 * times to within a microsecond, as they pass through seconds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/cluster.h"
#include "zkpipe/v1/prover.pb-c.h"
#include "cuzk/v1/proving.pb-c.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

static ProtobufCMessage *unpack_(srv_service service, const uint8_t *m, size_t n) {
    if (service == SRV_SERVICE_ZKPIPE)
        return (ProtobufCMessage *)zkpipe__v1__submit_request__unpack(NULL, n, m);
    return (ProtobufCMessage *)cuzk__v1__submit_proof_request__unpack(NULL, n, m);
}

/* The framed request, when its service's parser accepts it, frames again
 * into a frame that decodes to the same service and to a request that
 * packs to the same bytes. */
static void inputs_(const uint8_t *data, size_t size) {
    srv_service service;
    const uint8_t *m = NULL;
    size_t m_len = 0;
    char why[256];
    why[0] = '\0';
    if (srv_cluster_decode_inputs(data, size, &service, &m, &m_len, why, sizeof why) != 0) {
        CHECK(why[0] != '\0');
        return;
    }
    CHECK(service == SRV_SERVICE_ZKPIPE || service == SRV_SERVICE_CUZK);
    CHECK(m == data + SRV_CLUSTER_INPUTS_HEADER && m_len == size - SRV_CLUSTER_INPUTS_HEADER);

    ProtobufCMessage *req = unpack_(service, m, m_len);
    if (!req) return;
    size_t len;
    uint8_t *again = srv_cluster_encode_inputs(service, req, &len);
    CHECK(again != NULL);
    srv_service service2;
    const uint8_t *m2;
    size_t m2_len;
    CHECK(srv_cluster_decode_inputs(again, len, &service2, &m2, &m2_len, why, sizeof why) == 0);
    CHECK(service2 == service);
    ProtobufCMessage *req2 = unpack_(service, m2, m2_len);
    CHECK(req2 != NULL);
    size_t packed = protobuf_c_message_get_packed_size(req2);
    CHECK(packed == m2_len);
    uint8_t *repacked = malloc(packed ? packed : 1);
    CHECK(repacked != NULL);
    CHECK(protobuf_c_message_pack(req2, repacked) == packed);
    CHECK(memcmp(repacked, m2, packed) == 0);
    free(repacked);
    protobuf_c_message_free_unpacked(req2, NULL);
    protobuf_c_message_free_unpacked(req, NULL);
    free(again);
}

/* Stage times, in the frame's microseconds, at offset 12 (cluster.h). */
#define TIMES_AT 12
#define TIMES_END (TIMES_AT + 6 * 8)

static uint64_t u64_at_(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void result_(const uint8_t *data, size_t size) {
    zkpipe_job_result r;
    zkpipe_stage_times t;
    char why[256];
    why[0] = '\0';
    if (srv_cluster_decode_result(data, size, &r, &t, why, sizeof why) != 0) {
        CHECK(why[0] != '\0');
        CHECK(r.partitions == NULL && r.n_partitions == 0);
        return;
    }
    CHECK(r.n_partitions > 0 && r.partitions != NULL && r.status == ZKPIPE_OK);
    for (size_t i = 0; i < r.n_partitions; i++) {
        const zkpipe_partition_result *p = &r.partitions[i];
        CHECK(p->proof_len > 0 && p->proof_len <= ZKPIPE_PROOF_MAX_BYTES);
        CHECK(p->verified == 0 || p->verified == 1);
        CHECK(!p->proof_json || p->proof_json[0] != '\0');
        CHECK(!p->public_json || p->public_json[0] != '\0');
    }
    size_t len;
    uint8_t *again = srv_cluster_encode_result(&r, &t, &len, why, sizeof why);
    CHECK(again != NULL);
    CHECK(len == size);
    CHECK(memcmp(again, data, TIMES_AT) == 0);
    CHECK(memcmp(again + TIMES_END, data + TIMES_END, size - TIMES_END) == 0);
    for (int i = 0; i < 6; i++) {
        uint64_t was = u64_at_(data + TIMES_AT + 8 * i), now = u64_at_(again + TIMES_AT + 8 * i);
        CHECK(was >= now ? was - now <= 1 : now - was <= 1);
    }
    free(again);
    zkpipe_job_result_clear(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    inputs_(data, size);
    result_(data, size);
    return 0;
}
