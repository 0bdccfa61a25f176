/* Synthetic (INSECURE, benchmark-only) keys and witnesses over bn254: the
 * generic body, instantiated. See synthetic.h. */
#include "synthetic/synthetic_internal.h"

#define SY_CURVE bn254
#define SY_G1 bn254_g1
#define SY_G2 bn254_g2
#define SY_FQ bn254_fq
#define SY_FQ2 bn254_fq2
#define SY_FR bn254_fr
#define SY_FR_PARAM BN254_FR
#include "synthetic/synthetic_body.h"
