/* Synthetic (INSECURE, benchmark-only) keys and witnesses over bls12_381:
 * the generic body, instantiated. See synthetic.h. */
#include "synthetic/synthetic_internal.h"

#define SY_CURVE bls12_381
#define SY_G1 bls12_381_g1
#define SY_G2 bls12_381_g2
#define SY_FQ bls12_381_fp
#define SY_FQ2 bls12_381_fp2
#define SY_FR bls12_381_fr
#define SY_FR_PARAM BLS12_381_FR
#include "synthetic/synthetic_body.h"
