/* The SHA-256 compression function on the x86 SHA extensions.
 *
 * sha256rnds2 performs two rounds on a state split across two registers in
 * the order the instruction wants: one holds (A, B, E, F) and the other
 * (C, D, G, H), from the high lane down. The chaining words are shuffled
 * into that form once per call, not per block, and back at the end.
 * sha256msg1 and sha256msg2 compute the σ0 and σ1 halves of the message
 * schedule four words at a time; the W[t-7] term in between is a palignr of
 * the two previous groups.
 *
 * The functions carry their own target attribute, so the file builds with
 * the project's flags and the instructions are only executed when
 * util/cpu.c found them (zkp_cpu_use_sha). */
#include "hash/sha256.h"

#ifdef ZKP_HAVE_X86_ASM

#include <immintrin.h>

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Four rounds with schedule group m (already K-added in wk). */
#define SHANI_4ROUNDS(wk)                                     \
    do {                                                      \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, (wk));       \
        abef = _mm_sha256rnds2_epu32(abef, cdgh,              \
                                     _mm_shuffle_epi32((wk), 0x0e)); \
    } while (0)

SHANI_TARGET
void zkp_sha256_blocks_shani(uint32_t state[8], const uint8_t *blocks, size_t n_blocks) {
    /* Each 32-bit word of the block is big-endian. */
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]); /* lanes a b c d */
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]); /* lanes e f g h */
    __m128i badc = _mm_shuffle_epi32(dcba, 0xb1);               /* lanes b a d c */
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);               /* lanes h g f e */
    __m128i abef = _mm_alignr_epi8(badc, efgh, 8);              /* lanes f e b a */
    __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xf0);           /* lanes h g d c */

    for (size_t b = 0; b < n_blocks; b++, blocks += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m[4];
        for (int g = 0; g < 4; g++) {
            m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * g)), bswap);
            SHANI_4ROUNDS(_mm_add_epi32(m[g], _mm_loadu_si128((const __m128i *)&zkp_sha256_k[4 * g])));
        }
        /* Groups 4..15: m[g & 3] holds W[4g .. 4g+3] once computed from the
         * four groups before it, which the ring still holds. */
        for (int g = 4; g < 16; g++) {
            __m128i w16 = m[g & 3], w12 = m[(g + 1) & 3], w8 = m[(g + 2) & 3], w4 = m[(g + 3) & 3];
            __m128i next = _mm_sha256msg1_epu32(w16, w12);
            next = _mm_add_epi32(next, _mm_alignr_epi8(w4, w8, 4));
            next = _mm_sha256msg2_epu32(next, w4);
            m[g & 3] = next;
            SHANI_4ROUNDS(_mm_add_epi32(next, _mm_loadu_si128((const __m128i *)&zkp_sha256_k[4 * g])));
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1b); /* lanes a b e f */
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1); /* lanes g h c d */
    dcba = _mm_blend_epi16(feba, dchg, 0xf0);     /* lanes a b c d */
    hgfe = _mm_alignr_epi8(dchg, feba, 8);        /* lanes e f g h */
    _mm_storeu_si128((__m128i *)&state[0], dcba);
    _mm_storeu_si128((__m128i *)&state[4], hgfe);
}

#endif
