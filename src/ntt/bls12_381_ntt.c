#include "ntt/bls12_381_ntt.h"

#define NTT_FIELD bls12_381_fr
#define NTT_PARAM BLS12_381_FR
#include "ntt/ntt_body.h"
