#include "field/field.h"
#include "test.h"

#define F2 bn254_fq2
#define FB bn254_fq
#include "fp2_props_impl.h"
#define F2 bls12_381_fp2
#define FB bls12_381_fp
#include "fp2_props_impl.h"

TEST_CASE(bn254_fq2_laws) { test_bn254_fq2_laws(); }
TEST_CASE(bls12_381_fp2_laws) { test_bls12_381_fp2_laws(); }
