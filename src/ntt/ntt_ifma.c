/* The AVX-512 IFMA NTT stages: see ntt_ifma.h. Compiled for avx512f and
 * avx512ifma (CMakeLists.txt); nothing in it runs unless zkp_cpu_use_ifma
 * is set. */
#include "ntt/ntt_ifma.h"

#ifdef ZKP_HAVE_X86_ASM

#include "ntt/ntt_common.h"

#define FP8_NAME bn254_fr8
#define FP8_FIELD bn254_fr
#define FP8_PARAM BN254_FR
#define FP8_N 5
#include "field/fp8_ifma_body.h"
#undef FP8_NAME
#undef FP8_FIELD
#undef FP8_PARAM
#undef FP8_N

#define FP8_NAME bls12_381_fr8
#define FP8_FIELD bls12_381_fr
#define FP8_PARAM BLS12_381_FR
#define FP8_N 5
#include "field/fp8_ifma_body.h"
#undef FP8_NAME
#undef FP8_FIELD
#undef FP8_PARAM
#undef FP8_N

#define NTT_FIELD bn254_fr
#define NTT_VEC bn254_fr8
#include "ntt/ntt_ifma_body.h"
#undef NTT_FIELD
#undef NTT_VEC

#define NTT_FIELD bls12_381_fr
#define NTT_VEC bls12_381_fr8
#include "ntt/ntt_ifma_body.h"
#undef NTT_FIELD
#undef NTT_VEC

#endif
