#include "gpu/gpu_horner.h"

#include "curve/bls12_381_g1.h"
#include "curve/bls12_381_g2.h"
#include "curve/bn254_g1.h"
#include "curve/bn254_g2.h"

#define HORNER_(G)                                                                                \
    static void G##_horner_(G##_xyzz_t *out, const G##_xyzz_t *sums, const unsigned *width,      \
                            unsigned sets) {                                                      \
        G##_xyzz_set_infinity(out);                                                               \
        for (unsigned w = sets; w-- > 0;) {                                                       \
            for (unsigned k = 0; k < width[w]; k++) G##_xyzz_dbl(out, out);                       \
            G##_xyzz_add_var(out, out, &sums[w]);                                                 \
        }                                                                                         \
    }
HORNER_(bn254_g1)
HORNER_(bls12_381_g1)
HORNER_(bn254_g2)
HORNER_(bls12_381_g2)
#undef HORNER_

int zkp_gpu_horner(int group, void *out, const void *sums, const unsigned *width, unsigned sets) {
    switch (group) {
    case ZKP_GPU_GROUP_BN254_G1: bn254_g1_horner_(out, sums, width, sets); return 0;
    case ZKP_GPU_GROUP_BLS12_381_G1: bls12_381_g1_horner_(out, sums, width, sets); return 0;
    case ZKP_GPU_GROUP_BN254_G2: bn254_g2_horner_(out, sums, width, sets); return 0;
    case ZKP_GPU_GROUP_BLS12_381_G2: bls12_381_g2_horner_(out, sums, width, sets); return 0;
    default: return -1;
    }
}
