/* The last step of the GPU MSM (gpu_msm_body.cuh, step 7) on the host, in
 * C with the CPU's curve code. The device's field template also compiles
 * for the host, but as portable code over 32-bit words it took 2 to 11 µs
 * a doubling where curve/ takes 0.3 to 1.2, and the step's 256 doublings
 * sit between two MSMs on the device's critical path. */
#ifndef ZKP_GPU_GPU_HORNER_H
#define ZKP_GPU_GPU_HORNER_H

#ifdef __cplusplus
extern "C" {
#endif

/* The groups of the MSMs, as zkp_gpu_bases records them. */
enum {
    ZKP_GPU_GROUP_BN254_G1 = 1,
    ZKP_GPU_GROUP_BLS12_381_G1 = 2,
    ZKP_GPU_GROUP_BN254_G2 = 3,
    ZKP_GPU_GROUP_BLS12_381_G2 = 4
};

/* *out = sum over w < sets of 2^(width[0] + ... + width[w - 1])·sums[w], by
 * Horner's rule from the top set. The points are XYZZ in the CPU layout of
 * group `group` (curve/curve.h), as the device's are; out may not overlap
 * sums. Returns 0, or -1 for an unknown group. */
int zkp_gpu_horner(int group, void *out, const void *sums, const unsigned *width, unsigned sets);

#ifdef __cplusplus
}
#endif

#endif
