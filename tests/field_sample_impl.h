/* A random field element from the seeded test generator (replayable),
 * shared by the field property tests and the IFMA tests. Included once per
 * field with F (the field) and FK (its constant prefix) set; defines
 * static inline test_<F>_rand(r), uniform below p. */
#define FS_T ZKP_CAT(F, _t)
#define FS_K(k) ZKP_CAT(ZKP_CAT(FK, _), k)

static inline void ZKP_CAT(ZKP_CAT(test_, F), _rand)(FS_T *r) {
    static const FS_T p = {FS_K(MODULUS)};
    do {
        test_rng_bytes(r->l, sizeof r->l);
        r->l[FS_K(LIMBS) - 1] &= (~(uint64_t)0) >> (64 * FS_K(LIMBS) - FS_K(BITS));
    } while (!zkp_limbs_lt(r->l, p.l, FS_K(LIMBS)));
}

#undef FS_T
#undef FS_K
