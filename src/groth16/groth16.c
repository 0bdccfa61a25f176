/* The curve-independent parts of the Groth16 layer. */
#include "groth16/groth16.h"

#include <stdlib.h>
#include <unistd.h>

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
