/* The curve-independent parts of the Groth16 layer. */
#include "groth16/groth16.h"

#include <stdlib.h>
#include <unistd.h>

#include "gpu/gpu.h"

const char *zkp_g16_stage_label(zkp_g16_stage s) {
    switch (s) {
#define ZKP_G16_STAGE_LABEL_(name, label) \
    case ZKP_G16_##name:                  \
        return label;
        ZKP_G16_STAGE_MAP(ZKP_G16_STAGE_LABEL_)
#undef ZKP_G16_STAGE_LABEL_
    default:
        return "unknown stage";
    }
}

unsigned zkp_g16_threads(const zkp_g16_prove_opts *opts) {
    if (opts && opts->nthreads) return opts->nthreads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 4096 ? (unsigned)n : 1;
}

void zkp_g16_vk_release(zkp_g16_vk *vk) {
    if (!vk) return;
    free(vk->owned);
    vk->owned = NULL;
}

void zkp_g16_public_release(zkp_g16_public *pub) {
    if (!pub) return;
    free(pub->values);
    pub->values = NULL;
    pub->n = 0;
}

struct zkp_g16_pending {
    zkpipe_curve curve;
    union {
        bn254_g16_pending_t *bn254;
        bls12_381_g16_pending_t *bls12_381;
    } u;
};

/* Both start forms: abc NULL synthesizes from the key's coefficients. */
static zkpipe_status g16_start(zkp_g16_pending **out, const zkp_g16_pk *pk, zkp_buffer *witness,
                               zkp_buffer *abc, const zkp_g16_prove_opts *opts, zkp_diag *diag) {
    if (out) *out = NULL;
    zkp_g16_pending *p = (out && pk) ? calloc(1, sizeof *p) : NULL;
    zkpipe_status st;
    if (!p) {
        st = out && pk ? ZKPIPE_ERR_NO_MEMORY : ZKPIPE_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    p->curve = pk->curve;
    switch (pk->curve) {
    case ZKPIPE_CURVE_BN254:
        st = abc ? bn254_g16_prove_start_abc(&p->u.bn254, &pk->u.bn254, witness, abc, opts, diag)
                 : bn254_g16_prove_start(&p->u.bn254, &pk->u.bn254, witness, opts, diag);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        st = abc ? bls12_381_g16_prove_start_abc(&p->u.bls12_381, &pk->u.bls12_381, witness, abc,
                                                 opts, diag)
                 : bls12_381_g16_prove_start(&p->u.bls12_381, &pk->u.bls12_381, witness, opts, diag);
        break;
    default:
        st = ZKPIPE_ERR_UNSUPPORTED;
        goto fail;
    }
    if (st != ZKPIPE_OK) {
        free(p);
        return st;
    }
    *out = p;
    return ZKPIPE_OK;
fail:
    free(p);
    zkp_g16_release_witness(witness, opts);
    if (abc) zkp_buffer_release(abc);
    return st;
}

void zkp_g16_release_witness(zkp_buffer *witness, const zkp_g16_prove_opts *opts) {
    if (opts) zkp_gpu_buf_free(opts->witness_on_device);
    if (witness) zkp_buffer_release(witness);
}

zkpipe_status zkp_g16_prove_start(zkp_g16_pending **out, const zkp_g16_pk *pk, zkp_buffer *witness,
                                  const zkp_g16_prove_opts *opts, zkp_diag *diag) {
    return g16_start(out, pk, witness, NULL, opts, diag);
}

zkpipe_status zkp_g16_prove_start_abc(zkp_g16_pending **out, const zkp_g16_pk *pk,
                                      zkp_buffer *witness, zkp_buffer *abc,
                                      const zkp_g16_prove_opts *opts, zkp_diag *diag) {
    if (!abc) {
        if (out) *out = NULL;
        zkp_g16_release_witness(witness, opts);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    return g16_start(out, pk, witness, abc, opts, diag);
}

zkpipe_status zkp_g16_prove_finalize(zkp_g16_proof *proof, zkp_g16_pending *p,
                                     zkp_g16_timings *timings, zkp_diag *diag) {
    if (!p) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (!proof) {
        zkp_g16_pending_free(p);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    zkpipe_status st = ZKPIPE_ERR_UNSUPPORTED;
    proof->curve = p->curve;
    switch (p->curve) {
    case ZKPIPE_CURVE_BN254:
        st = bn254_g16_prove_finalize(&proof->u.bn254, p->u.bn254, timings, diag);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        st = bls12_381_g16_prove_finalize(&proof->u.bls12_381, p->u.bls12_381, timings, diag);
        break;
    }
    free(p);
    return st;
}

void zkp_g16_pending_free(zkp_g16_pending *p) {
    if (!p) return;
    switch (p->curve) {
    case ZKPIPE_CURVE_BN254:
        bn254_g16_pending_free(p->u.bn254);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        bls12_381_g16_pending_free(p->u.bls12_381);
        break;
    }
    free(p);
}

zkpipe_status zkp_g16_verify(const zkp_g16_vk *vk, const zkp_g16_public *pub,
                             const zkp_g16_proof *proof, zkp_diag *diag) {
    if (!vk || !pub || !proof) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (vk->curve != proof->curve || vk->curve != pub->curve)
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "the verification key is for %s, the proof for %s, the inputs for %s",
                             zkpipe_curve_name(vk->curve), zkpipe_curve_name(proof->curve),
                             zkpipe_curve_name(pub->curve));
    switch (vk->curve) {
    case ZKPIPE_CURVE_BN254:
        return bn254_g16_verify(&vk->u.bn254, pub->values, pub->n, &proof->u.bn254, diag);
    case ZKPIPE_CURVE_BLS12_381:
        return bls12_381_g16_verify(&vk->u.bls12_381, pub->values, pub->n, &proof->u.bls12_381,
                                    diag);
    }
    return ZKPIPE_ERR_UNSUPPORTED;
}

void zkp_g16_pk_vk(zkp_g16_vk *vk, const zkp_g16_pk *pk) {
    vk->curve = pk->curve;
    vk->owned = NULL;
    switch (pk->curve) {
    case ZKPIPE_CURVE_BN254:
        bn254_g16_pk_vk(&vk->u.bn254, &pk->u.bn254);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        bls12_381_g16_pk_vk(&vk->u.bls12_381, &pk->u.bls12_381);
        break;
    }
}
