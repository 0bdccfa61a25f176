#include "util/cpu.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define ZKP_X86 1
#endif

int zkp_cpu_use_adx = 0;

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

int zkp_cpu_detect(void) {
    const char *force = getenv("ZKPIPE_FORCE_PORTABLE");
    int forced = force != NULL && force[0] != '\0' && strcmp(force, "0") != 0;
#ifdef ZKP_HAVE_X86_ASM
    zkp_cpu_use_adx = !forced && cpu_has_adx_bmi2();
#else
    (void)forced;
    (void)cpu_has_adx_bmi2;
    zkp_cpu_use_adx = 0;
#endif
    return zkp_cpu_use_adx;
}

const char *zkp_cpu_path_name(void) { return zkp_cpu_use_adx ? "x86-64 adx" : "portable"; }

__attribute__((constructor)) static void zkp_cpu_init(void) { (void)zkp_cpu_detect(); }
