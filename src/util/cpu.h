/* Run-time CPU feature selection for the arithmetic fast paths.
 *
 * zkp_cpu_use_adx is decided once, before main(), from CPUID (ADX and BMI2
 * both required for the mulx/adcx/adox Montgomery kernels). Setting the
 * environment variable ZKPIPE_FORCE_PORTABLE=1 forces the portable C path,
 * which is how the test suite runs every case on both paths. The flag is
 * written only during start-up and read everywhere after, so reading it
 * needs no synchronisation.
 *
 * zkp_cpu_use_ifma, decided the same way, selects the eight-lane AVX-512
 * IFMA kernels (msm/msm_ifma.h, ntt/ntt_ifma.h): it needs avx512f and
 * avx512ifma from CPUID and the OS saving the zmm state (XCR0). ZKPIPE_FORCE_PORTABLE clears it
 * too; ZKPIPE_NO_IFMA=1 clears only it, to measure the kernels against the
 * scalar ones in one build.
 *
 * zkp_cpu_use_sha selects the SHA-256 compression of hash/sha256_x86.c,
 * built on the x86 SHA extensions (CPUID leaf 7 EBX bit 29, with SSSE3 and
 * SSE4.1 for the byte shuffles and blends around them). ZKPIPE_FORCE_PORTABLE
 * clears it too; ZKPIPE_NO_SHA_NI=1 clears only it. */
#ifndef ZKP_UTIL_CPU_H
#define ZKP_UTIL_CPU_H

extern int zkp_cpu_use_adx;
extern int zkp_cpu_use_ifma;
extern int zkp_cpu_use_sha;

/* Re-run detection (honouring the variables above). Returns the new
 * zkp_cpu_use_adx. */
int zkp_cpu_detect(void);

/* Whether this CPU has the SHA extensions (and SSSE3, SSE4.1), whatever the
 * environment says: tests compare the two SHA-256 bodies with it even in
 * the ZKPIPE_FORCE_PORTABLE runs. 0 in builds without ZKP_HAVE_X86_ASM. */
int zkp_cpu_has_sha_ni(void);

/* A short description of the selected arithmetic path: "x86-64 adx",
 * "x86-64 adx avx512ifma" or "portable". */
const char *zkp_cpu_path_name(void);

#endif
