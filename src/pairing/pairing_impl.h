/* Generic optimal ate pairing: the types and declarations. See pairing.h for
 * the contract. Instantiated by each curve's header with
 *
 *     #define PAIRING_NAME  bn254       (prefix of the types and functions)
 *     #define PAIRING_FP    bn254_fq
 *     #define PAIRING_FP2   bn254_fq2
 *     #define PAIRING_FP12  bn254_fq12
 *     #include "pairing/pairing_impl.h"
 *
 * and in exactly one .c file per curve, pairing_body.h after it. */
#include <stddef.h>

#define PR_FN(op) ZKP_CAT(ZKP_CAT(PAIRING_NAME, _), op)
/* The inputs are the curve layer's affine points, (0, 0) for infinity. */
#define PR_G1 ZKP_CAT(PAIRING_NAME, _g1_affine_t)
#define PR_G2 ZKP_CAT(PAIRING_NAME, _g2_affine_t)
#define PR_F12_T ZKP_CAT(PAIRING_FP12, _t)

void PR_FN(miller_loop)(PR_F12_T *f, const PR_G1 *p, const PR_G2 *q, size_t n);
void PR_FN(final_exp)(PR_F12_T *r, const PR_F12_T *f);
void PR_FN(pairing)(PR_F12_T *r, const PR_G1 *p, const PR_G2 *q);
int PR_FN(pairing_product_is_one)(const PR_G1 *p, const PR_G2 *q, size_t n);

static inline int PR_FN(gt_eq)(const PR_F12_T *a, const PR_F12_T *b) {
    return ZKP_CAT(PAIRING_FP12, _eq)(a, b);
}
static inline int PR_FN(gt_is_one)(const PR_F12_T *a) { return ZKP_CAT(PAIRING_FP12, _is_one)(a); }

#undef PR_FN
#undef PR_G1
#undef PR_G2
#undef PR_F12_T
