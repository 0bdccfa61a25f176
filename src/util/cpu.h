/* Run-time CPU feature selection for the arithmetic fast paths.
 *
 * zkp_cpu_use_adx is decided once, before main(), from CPUID (ADX and BMI2
 * both required for the mulx/adcx/adox Montgomery kernels). Setting the
 * environment variable ZKPIPE_FORCE_PORTABLE=1 forces the portable C path,
 * which is how the test suite runs every case on both paths. The flag is
 * written only during start-up and read everywhere after, so reading it
 * needs no synchronisation. */
#ifndef ZKP_UTIL_CPU_H
#define ZKP_UTIL_CPU_H

extern int zkp_cpu_use_adx;

/* Re-run detection (honouring ZKPIPE_FORCE_PORTABLE). Returns the new value. */
int zkp_cpu_detect(void);

/* A short description of the selected arithmetic path: "x86-64 adx" or "portable". */
const char *zkp_cpu_path_name(void);

#endif
