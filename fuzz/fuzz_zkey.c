/* libFuzzer target: Groth16 proving keys (formats/zkey.h), with every point
 * checked for subgroup membership. The input is parsed where libFuzzer put it
 * (8-byte aligned, so point sections may be used in place) and again from a
 * copy one byte off (so they must be copied). An accepted key must describe
 * itself consistently. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/zkey.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

static zkpipe_status one(const uint8_t *data, size_t size) {
    zkp_zkey_options opt = {.alloc = NULL, .nthreads = 1, .check_subgroup = 1};
    zkp_zkey key;
    zkp_diag d;
    zkpipe_status st = zkp_zkey_parse(&key, data, size, "fuzz", &opt, &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        zkp_zkey_free(&key);
        return st;
    }
    zkp_g16_pk pk;
    zkp_g16_vk vk;
    zkp_zkey_pk(&key, &pk);
    zkp_zkey_vk(&key, &vk);
    CHECK(vk.curve == key.curve && vk.owned == NULL);
    uint32_t n_vars = zkp_zkey_n_vars(&key), n_public = zkp_zkey_n_public(&key);
    CHECK((uint64_t)n_public + 1 <= n_vars);
    if (key.curve == ZKPIPE_CURVE_BN254) {
        CHECK(vk.u.bn254.n_public == n_public && key.pk.bn254.n_vars == n_vars);
        CHECK(key.pk.bn254.domain_size == (uint32_t)1 << key.pk.bn254.log_domain);
    } else {
        CHECK(key.curve == ZKPIPE_CURVE_BLS12_381);
        CHECK(vk.u.bls12_381.n_public == n_public && key.pk.bls12_381.n_vars == n_vars);
        CHECK(key.pk.bls12_381.domain_size == (uint32_t)1 << key.pk.bls12_381.log_domain);
    }
    zkp_zkey_free(&key);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkpipe_status st = one(data, size);
    uint8_t *shifted = malloc(size + 1);
    if (shifted == NULL) return 0;
    memcpy(shifted + 1, data, size);
    CHECK(one(shifted + 1, size) == st);
    free(shifted);
    return 0;
}
