/* libFuzzer target: bellperson .params files (formats/bellperson.h): the
 * header pass and the decode of every section, on two threads. An accepted
 * file's sections must tile it exactly, and its decoded points must encode
 * back to the file's bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve/encoding.h"
#include "formats/bellperson.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_bp_params p;
    zkp_diag d;
    zkp_bp_params_options opt = {NULL, 2, 0, NULL};
    zkpipe_status st = zkp_bp_params_parse(&p, data, size, "fuzz", &opt, &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        return 0;
    }
    uint64_t end = zkp_bp_vk_bytes(p.vk.n_ic);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        CHECK(p.sec[s].offset == end + 4);
        end = p.sec[s].offset + (uint64_t)p.sec[s].count * p.sec[s].elem;
    }
    CHECK(end == size);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        const void *pts = NULL;
        st = zkp_bp_params_section(&p, (zkp_bp_section)s, &pts, &d);
        if (st != ZKPIPE_OK) {
            CHECK(strncmp(d.msg, "fuzz", 4) == 0 && pts == NULL);
            break;
        }
        CHECK((pts == NULL) == (p.sec[s].count == 0));
        for (uint32_t i = 0; i < p.sec[s].count; i++) {
            uint8_t enc[ZKP_BP_G2_BYTES];
            if (s == ZKP_BP_B_G2)
                bls12_381_g2_affine_serialize(enc, (const bls12_381_g2_affine_t *)pts + i);
            else
                bls12_381_g1_affine_serialize(enc, (const bls12_381_g1_affine_t *)pts + i);
            CHECK(memcmp(enc, data + p.sec[s].offset + (size_t)i * p.sec[s].elem,
                         p.sec[s].elem) == 0);
        }
    }
    zkp_bp_params_free(&p);
    return 0;
}
