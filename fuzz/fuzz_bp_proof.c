/* libFuzzer target: bellperson's 192-byte proofs and their concatenations
 * (formats/bellperson.h). An accepted proof must encode back to its bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bellperson.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

#define MAX_PARTITIONS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    bls12_381_g16_proof_t proofs[MAX_PARTITIONS];
    size_t n = 0;
    zkp_diag d;
    zkpipe_status st = zkp_bp_proofs_decode(proofs, MAX_PARTITIONS, &n, data, size, &d);
    if (st != ZKPIPE_OK) {
        CHECK(n == 0);
        return 0;
    }
    CHECK(n * ZKP_BP_PROOF_BYTES == size);
    for (size_t i = 0; i < n; i++) {
        uint8_t back[ZKP_BP_PROOF_BYTES];
        CHECK(zkp_bp_proof_encode(back, &proofs[i], &d) == ZKPIPE_OK);
        CHECK(memcmp(back, data + i * ZKP_BP_PROOF_BYTES, ZKP_BP_PROOF_BYTES) == 0);
    }
    return 0;
}
