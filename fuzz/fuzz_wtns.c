/* libFuzzer target: witness files (formats/wtns.h). An accepted witness has
 * at least one value and every value is canonical (< r). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field/bls12_381_fr.h"
#include "field/bn254_fr.h"
#include "formats/wtns.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_wtns w;
    zkp_diag d;
    zkpipe_status st = zkp_wtns_parse(&w, data, size, "fuzz", NULL, &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        zkp_wtns_free(&w); /* must be safe on the empty value */
        return 0;
    }
    CHECK(w.n_vars >= 1 && w.values != NULL);
    CHECK(w.curve == ZKPIPE_CURVE_BN254 || w.curve == ZKPIPE_CURVE_BLS12_381);
    for (size_t i = 0; i < w.n_vars; i++) {
        if (w.curve == ZKPIPE_CURVE_BN254) {
            bn254_fr_t v;
            memcpy(v.l, &w.values[4 * i], sizeof v.l);
            CHECK(bn254_fr_is_reduced(&v));
        } else {
            bls12_381_fr_t v;
            memcpy(v.l, &w.values[4 * i], sizeof v.l);
            CHECK(bls12_381_fr_is_reduced(&v));
        }
    }
    zkp_wtns_free(&w);
    return 0;
}
