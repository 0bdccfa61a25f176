/* test_<F>_rand (field_sample_impl.h) for the four prime fields of the two
 * curves, for tests that sample several of them. */
#ifndef ZKP_TESTS_FIELD_SAMPLES_H
#define ZKP_TESTS_FIELD_SAMPLES_H

#include "field/field.h"
#include "field/limbs.h"

#define F bn254_fq
#define FK BN254_FQ
#include "field_sample_impl.h"
#undef F
#undef FK
#define F bn254_fr
#define FK BN254_FR
#include "field_sample_impl.h"
#undef F
#undef FK
#define F bls12_381_fp
#define FK BLS12_381_FP
#include "field_sample_impl.h"
#undef F
#undef FK
#define F bls12_381_fr
#define FK BLS12_381_FR
#include "field_sample_impl.h"
#undef F
#undef FK

#endif
