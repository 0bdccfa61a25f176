/* The field-independent half of the NTT layer: limits, default tuning, the
 * transform kinds, the bit reversal of an index and the thread driver. See
 * ntt.h for the contract and ntt_impl.h for the per-field half. */
#ifndef ZKP_NTT_NTT_COMMON_H
#define ZKP_NTT_NTT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* No field here has a 2-adicity above 32, so every index fits 64 bits with
 * room for the products the twiddle step forms. */
#define ZKP_NTT_MAX_LOG 32
/* A transform of log_n bits is cut into at most log_n levels of >= 1 bit. */
#define ZKP_NTT_MAX_LEVELS ZKP_NTT_MAX_LOG
/* The levels, plus one bit-reversal pass. */
#define ZKP_NTT_MAX_PASSES (ZKP_NTT_MAX_LEVELS + 1)
/* Default tuning (F_ntt_options_t): sub-transforms of at most 2^13 points
 * (256 KiB of 32-byte elements, which stays in a 512 KiB or larger L2 while
 * all 13 stages run over it) and chunks of about 2^12 elements. On a Zen 4
 * core a 2^13 transform runs at 12 ns per element and stage, 2^20 cut into
 * 7 + 13 bits at 13.6 (the twiddle step and the strided level cost the
 * difference), and chunks of 2^12 or 2^13 elements time the same, so the
 * smaller size wins for having more chunks to share among threads. */
#define ZKP_NTT_DEFAULT_LEVEL_BITS 13
#define ZKP_NTT_DEFAULT_BLOCK_BITS 12
#define ZKP_NTT_MAX_BLOCK_BITS 24
/* Levels above the last one are strided: each of their rows is a run of
 * ncols contiguous elements, and a chunk holds 2^d rows of them. With more
 * than 2^8 rows a 2^12-element chunk leaves runs shorter than 16 elements
 * (512 bytes), and the prefetchers and the TLB stop keeping up: measured on
 * a 16-core Xeon, a 2^26 transform cut 13 + 13 ran at 50 ns per element
 * and stage, cut 6 + 7 + 13 at 26, although the extra level adds a
 * twiddle step. So strided levels take at most this many bits. */
#define ZKP_NTT_STRIDED_BITS 8
/* The bit-reversal pass swaps square tiles of 2^BR_BITS x 2^BR_BITS
 * elements: 16 KiB per pair of tiles, so both stay in L1 while every
 * element of both is swapped. */
#define ZKP_NTT_BR_BITS 4

/* What a plan computes. "N" is natural order, "R" bit-reversed (ntt.h). */
typedef enum {
    ZKP_NTT_FORWARD = 0, /* natural -> natural: a_j = P(w^j) */
    ZKP_NTT_INVERSE,     /* natural -> natural: c_i = (1/n) sum_j a_j w^(-ij) */
    ZKP_NTT_FORWARD_NR,  /* natural -> bit-reversed, no permutation pass */
    ZKP_NTT_FORWARD_RN,  /* bit-reversed -> natural, no permutation pass */
    ZKP_NTT_INVERSE_NR,
    ZKP_NTT_INVERSE_RN,
    ZKP_NTT_BIT_REVERSE, /* the permutation alone; takes no shift */
    ZKP_NTT_KIND_COUNT_
} zkp_ntt_kind;

/* One chunk runner, called by the thread driver as fn(plan, pass, chunk). */
typedef void (*zkp_ntt_chunk_fn)(const void *plan, unsigned pass, size_t chunk);

/* Runs every chunk of each pass in turn on up to nthreads threads (the
 * caller's and nthreads - 1 pthreads per pass), all chunks of pass k before
 * any of pass k+1. If a thread cannot be created the others do its share,
 * so the result never depends on it. ntt_threads.c. */
void zkp_ntt_run_passes_mt(const void *plan, unsigned npasses, const size_t *nchunks,
                           zkp_ntt_chunk_fn fn, unsigned nthreads);

/* The bits-bit reversal of x (bits <= 64); 0 when bits = 0. */
static inline uint64_t zkp_ntt_bitrev(uint64_t x, unsigned bits) {
    if (bits == 0) return 0;
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
    x = __builtin_bswap64(x);
    return x >> (64 - bits);
}

#endif
