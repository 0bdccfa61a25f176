/* The RPC layer's life cycle (server/rpc.h): a server destroyed while calls
 * are uploading, or being decoded on their own threads, must stop cleanly. gRPC aborts the process when an
 * operation is started on a completion queue that was shut down, so a
 * call whose last event is handled after the server stopped must not
 * start one. The daemon's drain timeout (tests/daemon.sh) reaches the
 * same path through `zkpipe serve`. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/rpc.h"
#include "test.h"

#define ECHO "/zkpipe.test.Rpc/Echo"
#define CLIENTS 6
#define UPLOAD_BYTES (4u << 20)

static void echo_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    (void)ctx;
    zkp_rpc_reply(call, req, len < 16 ? len : 16);
}

static void *large_alloc_(void *ctx, size_t bytes, uint8_t **data) {
    (void)ctx;
    *data = malloc(bytes);
    return *data;
}

static void large_release_(void *ctx, void *handle) {
    (void)ctx;
    free(handle);
}

typedef struct {
    const char *target;
    const uint8_t *payload;
    size_t len;
    atomic_int *stop;
    atomic_int calls;
} client_arg;

static void *client_(void *arg) {
    client_arg *a = arg;
    while (!atomic_load(a->stop)) {
        zkp_rpc_code code;
        uint8_t *resp = NULL;
        size_t resp_len;
        char msg[256];
        /* Any outcome will do once the server stops; the point is that the
         * server side survives it. */
        (void)zkp_rpc_client_call(a->target, NULL, ECHO, a->payload, a->len, 5000, 64u << 20,
                                  &code, &resp, &resp_len, msg, sizeof msg);
        free(resp);
        atomic_fetch_add(&a->calls, 1);
    }
    return NULL;
}

TEST_CASE(server_rpc_stops_with_calls_uploading_and_decoding) {
    uint8_t *payload = calloc(1, UPLOAD_BYTES);
    ASSERT(payload != NULL);
    test_defer(free, payload);
    char sock[128];
    snprintf(sock, sizeof sock, "/tmp/zkp_rpc_stop_%ld.sock", (long)getpid());
    char target[160];
    snprintf(target, sizeof target, "unix:%s", sock);
    size_t total_calls = 0;
    for (int round = 0; round < 4; round++) {
        unlink(sock);
        zkp_rpc_server *s;
        zkp_diag d = {{0}};
        ASSERT_MSG(zkp_rpc_server_create(&s, 64u << 20, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_OK(zkp_rpc_server_add_method(s, ECHO, echo_, NULL));
        /* Every other round decodes the uploads on their own threads. */
        zkp_rpc_large_messages lm = {round % 2 ? 1u << 20 : 0, large_alloc_, large_release_, NULL};
        zkp_rpc_server_set_large_messages(s, &lm);
        ASSERT_MSG(zkp_rpc_server_listen(s, target, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
        ASSERT_MSG(zkp_rpc_server_start(s, &d) == ZKPIPE_OK, "%s", d.msg);

        atomic_int stop = 0;
        client_arg args[CLIENTS];
        pthread_t th[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) {
            args[i] = (client_arg){target, payload, UPLOAD_BYTES >> (i % 3), &stop, 0};
            ASSERT(pthread_create(&th[i], NULL, client_, &args[i]) == 0);
        }
        /* Stop at a different point of the uploads each round. */
        usleep(150000 + 70000 * (useconds_t)round);
        zkp_rpc_server_destroy(&s, 0);
        ASSERT(s == NULL);
        atomic_store(&stop, 1);
        for (int i = 0; i < CLIENTS; i++) {
            pthread_join(th[i], NULL);
            total_calls += (size_t)atomic_load(&args[i].calls);
        }
    }
    unlink(sock);
    ASSERT_MSG(total_calls >= CLIENTS, "only %zu calls were made", total_calls);
}
