/* The NTT's radix-4 stages eight butterflies at a time with AVX-512 IFMA
 * (ntt_ifma.c), for both scalar fields. Callers check zkp_cpu_use_ifma
 * (util/cpu.h) first: these exist only in x86-64 builds (ZKP_HAVE_X86_ASM)
 * and must not run on a CPU without avx512f and avx512ifma. */
#ifndef ZKP_NTT_NTT_IFMA_H
#define ZKP_NTT_NTT_IFMA_H

#include <stddef.h>

#include "field/bls12_381_fr.h"
#include "field/bn254_fr.h"

#ifdef ZKP_HAVE_X86_ASM

/* One radix-2^2 stage of span q (the pair of radix-2 stages of spans 2q and
 * q) of ntt_body.h's dif_ (dit = 0) or dit_ (dit = 1), on the 2^d = len
 * rows of stride S and ncols adjacent columns at x, with the stage table
 * tw. The butterflies of eight adjacent columns, or of eight adjacent
 * positions p when the columns are fewer, run together. Returns 0, having
 * done nothing, when neither ncols nor q is a multiple of 8. The results
 * are the scalar stage's exactly. */
int bn254_fr_ntt_ifma_stage(bn254_fr_t *x, size_t S, size_t ncols, size_t len, size_t q, const bn254_fr_t *tw,
                            int dit);
int bls12_381_fr_ntt_ifma_stage(bls12_381_fr_t *x, size_t S, size_t ncols, size_t len, size_t q,
                                const bls12_381_fr_t *tw, int dit);

/* ntt_body.h's twiddle step on eight adjacent columns at a time: the
 * element at bit-reversed row r, column c of the d-bit level is multiplied
 * by hi[e >> split_bits] lo[e mod 2^split_bits], e = c k 2^top with
 * k = rev_d(r) (n - e mod n for the inverse). hi is the domain's hi_tab, or
 * hi_inv_n for the scaled step; e = 0 and a zero high part multiply by
 * the tables' ones, so the results equal the scalar step's. Returns 0,
 * having done nothing, unless ncols is a multiple of 8. */
int bn254_fr_ntt_ifma_twiddle(bn254_fr_t *x, unsigned d, size_t S, size_t ncols, size_t c0, unsigned top,
                              int inverse, uint64_t n, const bn254_fr_t *lo, const bn254_fr_t *hi,
                              unsigned split_bits);
int bls12_381_fr_ntt_ifma_twiddle(bls12_381_fr_t *x, unsigned d, size_t S, size_t ncols, size_t c0,
                                  unsigned top, int inverse, uint64_t n, const bls12_381_fr_t *lo,
                                  const bls12_381_fr_t *hi, unsigned split_bits);

#endif
#endif
