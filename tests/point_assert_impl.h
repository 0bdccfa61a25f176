/* ASSERT_PT_EQ(what, a, b) for Jacobian points of one group, shared by the
 * per-group test templates (curve_props_impl.h, msm_props_impl.h). Included
 * inside them, where TG (the test-name prefix), GFN (the group's functions),
 * JAC and AFF (its point types) are defined. On mismatch it prints both points
 * in affine form. */
static void TG(assert_eq_)(const char *file, int line, const char *what, const JAC *a, const JAC *b) {
    if (GFN(eq)(a, b)) return;
    AFF aa, ab;
    char ha[2 * sizeof aa + 1], hb[2 * sizeof ab + 1];
    GFN(to_affine)(&aa, a);
    GFN(to_affine)(&ab, b);
    test_hex(ha, &aa, sizeof aa);
    test_hex(hb, &ab, sizeof ab);
    test_fail(file, line, "%s: points differ (affine x||y, Montgomery limbs LE; zero = infinity)\n  %s\n  %s",
              what, ha, hb);
}
#define ASSERT_PT_EQ(what, a, b) TG(assert_eq_)(__FILE__, __LINE__, what, a, b)
