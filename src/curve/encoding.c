/* Instantiates the encodings of encoding.h for the four groups. */
#include "curve/encoding.h"

#include <string.h>

#define ENC_GROUP bn254_g1
#define ENC_BASE bn254_fq
#define ENC_BASE_PARAM BN254_FQ
#define ENC_DEG 1
#include "curve/encoding_impl.h"

#define ENC_GROUP bn254_g2
#define ENC_BASE bn254_fq
#define ENC_BASE_PARAM BN254_FQ
#define ENC_DEG 2
#include "curve/encoding_impl.h"

#define ENC_GROUP bls12_381_g1
#define ENC_BASE bls12_381_fp
#define ENC_BASE_PARAM BLS12_381_FP
#define ENC_DEG 1
#include "curve/encoding_impl.h"

#define ENC_GROUP bls12_381_g2
#define ENC_BASE bls12_381_fp
#define ENC_BASE_PARAM BLS12_381_FP
#define ENC_DEG 2
#include "curve/encoding_impl.h"

static void zc_set_b_g1(bls12_381_fp_t *b) { bls12_381_fp_set_u64(b, 4); }
static void zc_set_b_g2(bls12_381_fp2_t *b) {
    /* b' = 4(1 + u) on the M-type twist. */
    bls12_381_fp_set_u64(&b->c0, 4);
    bls12_381_fp_set_u64(&b->c1, 4);
}

#define ZC_GROUP bls12_381_g1
#define ZC_DEG 1
#define ZC_FIELD bls12_381_fp
#define ZC_SET_B zc_set_b_g1
#include "curve/zcash_impl.h"

#define ZC_GROUP bls12_381_g2
#define ZC_DEG 2
#define ZC_FIELD bls12_381_fp2
#define ZC_SET_B zc_set_b_g2
#include "curve/zcash_impl.h"
