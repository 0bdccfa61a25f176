/* libFuzzer target: constraint systems (formats/r1cs.h). An accepted system
 * must iterate over exactly its constraints, every term inside the section,
 * every wire < nWires. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/r1cs.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_r1cs r;
    zkp_diag d;
    zkpipe_status st = zkp_r1cs_parse(&r, data, size, "fuzz", &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        zkp_r1cs_free(&r);
        return 0;
    }
    CHECK(1 + (uint64_t)r.n_pub_out + r.n_pub_in + r.n_prv_in <= r.n_wires);
    zkp_r1cs_iter it;
    zkp_r1cs_constraint c;
    uint64_t terms[3] = {0, 0, 0};
    uint32_t n = 0;
    zkp_r1cs_iter_init(&it, &r);
    while (zkp_r1cs_iter_next(&it, &c)) {
        for (int m = 0; m < 3; m++) {
            for (uint32_t k = 0; k < c.lc[m].n_terms; k++) {
                CHECK(zkp_r1cs_term_wire(&c.lc[m], k) < r.n_wires);
                const uint8_t *end = zkp_r1cs_term_coef(&c.lc[m], k) + ZKP_R1CS_COEF_BYTES;
                CHECK(end <= r.constraints + r.constraints_size);
                uint64_t limbs[4];
                zkp_r1cs_term_coef_limbs(&c.lc[m], k, limbs);
            }
            terms[m] += c.lc[m].n_terms;
        }
        n++;
    }
    CHECK(n == r.n_constraints);
    for (int m = 0; m < 3; m++) CHECK(terms[m] == r.n_terms[m]);
    for (uint32_t i = 0; i < r.n_wires; i++) (void)zkp_r1cs_wire_label(&r, i);
    zkp_r1cs_free(&r);
    return 0;
}
