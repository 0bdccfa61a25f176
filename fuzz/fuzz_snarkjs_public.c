/* libFuzzer target: snarkjs public.json reader (formats/snarkjs_json.h), for
 * both curves. Accepted values are canonical (< r) and round-trip exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/snarkjs_json.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

static void one(const uint8_t *data, size_t size, zkpipe_curve curve) {
    zkp_g16_public pub;
    zkp_diag d;
    zkpipe_status st = zkp_snarkjs_read_public((const char *)data, size, "fuzz", curve, &pub, &d);
    if (st != ZKPIPE_OK) {
        CHECK(pub.n == 0 && pub.values == NULL);
        CHECK(strncmp(d.msg, "fuzz: ", 6) == 0);
        return;
    }
    char *t;
    size_t l;
    CHECK(zkp_snarkjs_write_public(&pub, &t, &l) == ZKPIPE_OK);
    zkp_g16_public back;
    CHECK(zkp_snarkjs_read_public(t, l, "again", curve, &back, NULL) == ZKPIPE_OK);
    CHECK(back.n == pub.n);
    CHECK(pub.n == 0 || memcmp(back.values, pub.values, pub.n * 4 * sizeof(uint64_t)) == 0);
    free(t);
    zkp_g16_public_release(&back);
    zkp_g16_public_release(&pub);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    one(data, size, ZKPIPE_CURVE_BN254);
    one(data, size, ZKPIPE_CURVE_BLS12_381);
    return 0;
}
