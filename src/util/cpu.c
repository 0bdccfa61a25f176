#include "util/cpu.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define ZKP_X86 1
#endif

int zkp_cpu_use_adx = 0;
int zkp_cpu_use_ifma = 0;
int zkp_cpu_use_sha = 0;

static int env_set(const char *name) {
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static int cpu_has_adx_bmi2(void) {
#ifdef ZKP_X86
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    (void)eax;
    (void)ecx;
    (void)edx;
    /* Leaf 7, EBX bit 8 = BMI2 (mulx), bit 19 = ADX (adcx/adox). */
    return ((ebx >> 8) & 1) && ((ebx >> 19) & 1);
#else
    return 0;
#endif
}

static int cpu_has_avx512ifma(void) {
#ifdef ZKP_X86
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid(1, eax, ebx, ecx, edx);
    /* Leaf 1, ECX bit 27 = OSXSAVE: XGETBV may be used. */
    if (!((ecx >> 27) & 1)) return 0;
    unsigned xlo, xhi;
    __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void)xhi;
    /* XCR0 bits 1, 2 (SSE, AVX) and 5, 6, 7 (opmask, zmm 0-15 upper
     * halves, zmm 16-31): the OS saves every register the kernels use. */
    if ((xlo & 0xe6) != 0xe6) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    /* Leaf 7, EBX bit 16 = AVX512F, bit 21 = AVX512_IFMA. */
    return ((ebx >> 16) & 1) && ((ebx >> 21) & 1);
#else
    return 0;
#endif
}

static int cpu_has_sha_ni(void) {
#ifdef ZKP_X86
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid(1, eax, ebx, ecx, edx);
    /* Leaf 1, ECX bit 9 = SSSE3 (pshufb), bit 19 = SSE4.1 (pblendw). */
    if (!((ecx >> 9) & 1) || !((ecx >> 19) & 1)) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    /* Leaf 7, EBX bit 29 = SHA (sha256rnds2, sha256msg1, sha256msg2). */
    return (ebx >> 29) & 1;
#else
    return 0;
#endif
}

int zkp_cpu_detect(void) {
    int forced = env_set("ZKPIPE_FORCE_PORTABLE");
#ifdef ZKP_HAVE_X86_ASM
    zkp_cpu_use_adx = !forced && cpu_has_adx_bmi2();
    zkp_cpu_use_ifma = zkp_cpu_use_adx && !env_set("ZKPIPE_NO_IFMA") && cpu_has_avx512ifma();
    zkp_cpu_use_sha = !forced && !env_set("ZKPIPE_NO_SHA_NI") && cpu_has_sha_ni();
#else
    (void)forced;
    (void)cpu_has_adx_bmi2;
    (void)cpu_has_avx512ifma;
    zkp_cpu_use_adx = 0;
    zkp_cpu_use_ifma = 0;
    zkp_cpu_use_sha = 0;
#endif
    return zkp_cpu_use_adx;
}

int zkp_cpu_has_sha_ni(void) {
#ifdef ZKP_HAVE_X86_ASM
    return cpu_has_sha_ni();
#else
    (void)cpu_has_sha_ni;
    return 0;
#endif
}

const char *zkp_cpu_path_name(void) {
    if (zkp_cpu_use_ifma) return "x86-64 adx avx512ifma";
    return zkp_cpu_use_adx ? "x86-64 adx" : "portable";
}

__attribute__((constructor)) static void zkp_cpu_init(void) { (void)zkp_cpu_detect(); }
