/* libFuzzer target: bellperson verifying keys (formats/bellperson.h). An
 * accepted key must encode back to exactly the bytes it was read from (the
 * encoding of a point is unique), and a failure must name the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bellperson.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_bp_vk vk;
    zkp_diag d;
    size_t used = 0;
    zkpipe_status st = zkp_bp_vk_parse(&vk, data, size, 1, &used, "fuzz", NULL, &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        CHECK(vk.ic == NULL);
        return 0;
    }
    CHECK(used == size && zkp_bp_vk_bytes(vk.n_ic) == size && vk.n_ic > 0);
    uint8_t *back = malloc(size);
    if (back) {
        CHECK(zkp_bp_vk_encode(back, size, &vk, &d) == ZKPIPE_OK);
        CHECK(memcmp(back, data, size) == 0);
        free(back);
    }
    zkp_bp_vk_free(&vk);
    return 0;
}
