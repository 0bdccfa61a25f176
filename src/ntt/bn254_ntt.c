#include "ntt/bn254_ntt.h"

#define NTT_FIELD bn254_fr
#define NTT_PARAM BN254_FR
#include "ntt/ntt_body.h"
