/* The check of one zkey point where it lies, for one group. Included by
 * zkey_body.h once per group, with
 *
 *     #define ZP_GROUP bn254_g2   (the group prefix)
 *     #define ZP_BASE  bn254_fq   (the prime field under the coordinates)
 *
 * It defines static ZP_GROUP_zkey_check_point(point, subgroup) and undefines
 * both macros.
 *
 * Unlike G_affine_from_circom (curve/encoding.h), which decodes into a copy
 * and always tests the subgroup, this reads the point in place (the bytes
 * are already the affine type's layout, see zkey.h) and makes the subgroup
 * test optional: it runs over the big sections of a key, 10^5 to 10^8
 * points. The order of the checks and the statuses are the decoder's. */
#define ZP_AFF ZKP_CAT(ZP_GROUP, _affine_t)
#define ZP_FN(op) ZKP_CAT(ZKP_CAT(ZP_GROUP, _), op)
#define ZP_BASE_T ZKP_CAT(ZP_BASE, _t)
#define ZP_BASE_FN(op) ZKP_CAT(ZKP_CAT(ZP_BASE, _), op)

/* The affine point is a run of base-field elements (x then y, c0 before c1)
 * with no padding, which is what lets the check walk it as an array. */
_Static_assert(sizeof(ZP_AFF) % sizeof(ZP_BASE_T) == 0, "affine point is a run of coordinates");
_Static_assert(_Alignof(ZP_AFF) == _Alignof(uint64_t), "affine point aligned as its limbs");

/* point: a ZP_AFF in the circom layout, suitably aligned. Returns ZKPIPE_OK,
 * ZKPIPE_ERR_NON_CANONICAL (a coordinate >= q), ZKPIPE_ERR_NOT_ON_CURVE, or
 * (only when subgroup is set) ZKPIPE_ERR_NOT_IN_SUBGROUP. The all-zero
 * infinity passes every test. */
static zkpipe_status ZP_FN(zkey_check_point)(const void *point, int subgroup) {
    const ZP_BASE_T *coord = point;
    for (size_t i = 0; i < sizeof(ZP_AFF) / sizeof(ZP_BASE_T); i++)
        if (!ZP_BASE_FN(is_reduced)(&coord[i])) return ZKPIPE_ERR_NON_CANONICAL;
    const ZP_AFF *p = point;
    /* affine_is_on_curve also accepts (0, 0), the infinity of the layout. */
    if (!ZP_FN(affine_is_on_curve)(p)) return ZKPIPE_ERR_NOT_ON_CURVE;
    if (subgroup && !ZP_FN(affine_in_subgroup_var)(p)) return ZKPIPE_ERR_NOT_IN_SUBGROUP;
    return ZKPIPE_OK;
}

#undef ZP_AFF
#undef ZP_FN
#undef ZP_BASE_T
#undef ZP_BASE_FN
#undef ZP_GROUP
#undef ZP_BASE
