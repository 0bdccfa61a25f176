#include "curve/wnaf.h"

/* Bits [pos, pos + count) of k, with every bit at or above nbits read as 0. */
static unsigned wnaf_bits(const uint64_t *k, size_t nbits, size_t pos, unsigned count) {
    unsigned v = 0;
    for (unsigned i = 0; i < count && pos + i < nbits; i++)
        v |= (unsigned)((k[(pos + i) / 64] >> ((pos + i) % 64)) & 1) << i;
    return v;
}

/* Right-to-left recoding with a carry instead of a multi-precision
 * subtraction. At each position the bit plus the pending carry decides: an
 * even sum gives the digit 0 (the carry, if any, moves up unchanged); an odd
 * sum starts a window, whose w bits plus the carry form an odd value in
 * [1, 2^w). Values of 2^(w-1) or more become the negative digit value - 2^w,
 * which leaves 2^w, that is a carry of one into the position after the
 * window. The next w - 1 digits are zero by construction. A window that
 * reaches past nbits has a zero top bit and so never leaves a carry, which
 * is why nbits + 1 digits always suffice. */
size_t zkp_wnaf_recode_var(int8_t *digits, const uint64_t *k, size_t nbits, unsigned w) {
    unsigned carry = 0;
    size_t len = 0;
    for (size_t i = 0; i <= nbits; i++) digits[i] = 0;
    for (size_t i = 0; i <= nbits;) {
        if (wnaf_bits(k, nbits, i, 1) == carry) {
            i++;
            continue;
        }
        int v = (int)(wnaf_bits(k, nbits, i, w) + carry);
        carry = (unsigned)(v >> (w - 1)) & 1;
        v -= (int)(carry << w);
        digits[i] = (int8_t)v;
        len = i + 1;
        i += w;
    }
    return len;
}
