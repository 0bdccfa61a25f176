/* Short Weierstrass groups y^2 = x^3 + b (a = 0) on the device, over one
 * of the fields of gpu_field.cuh: G1 of BN254 and of BLS12-381 over the
 * prime fields, and their G2 over the quadratic extensions. The formulas
 * never use b, so one template serves the four groups.
 *
 * affine: (x, y) in Montgomery form, with (0, 0) the point at infinity,
 * which is the layout of the CPU's affine points (curve/ec_impl.h), so the
 * key's bases are uploaded as they lie in memory.
 * xyzz: (X, Y, ZZ, ZZZ) for (X/ZZ, Y/ZZZ), ZZ = 0 the point at infinity:
 * the bucket form, because adding an affine point costs 8M + 2S and needs
 * no inversion (EFD g1p/auto-shortw-xyzz, madd-2008-s, add-2008-s,
 * dbl-2008-s-1, mdbl-2008-s-1; curve/ec_impl.h names the same formulas).
 *
 * Each formula's Y is a difference of two products, computed as one
 * F::sum_of_products with a negated factor: one reduction for both on the
 * device.
 *
 * The additions branch on the exceptional cases (infinity, P + P, P - P),
 * so they are _var in the CPU's sense: for public points. */
#ifndef ZKP_GPU_GPU_CURVE_CUH
#define ZKP_GPU_GPU_CURVE_CUH

#include "gpu/gpu_field.cuh"

namespace zkp_cuda {

template <class F>
struct affine {
    F x, y;
    ZKP_GPU_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
    ZKP_GPU_HD affine neg() const {
        affine r = *this;
        r.y = y.neg();
        return r;
    }
};

template <class F>
struct xyzz {
    F x, y, zz, zzz;

    ZKP_GPU_HD static xyzz inf() {
        xyzz r;
        r.x = F::one();
        r.y = F::one();
        r.zz = F::zero();
        r.zzz = F::zero();
        return r;
    }
    ZKP_GPU_HD bool is_inf() const { return zz.is_zero(); }
    ZKP_GPU_HD static xyzz from_affine(const affine<F> &a) {
        if (a.is_inf()) return inf();
        xyzz r;
        r.x = a.x;
        r.y = a.y;
        r.zz = F::one();
        r.zzz = F::one();
        return r;
    }
    ZKP_GPU_HD xyzz neg() const {
        xyzz r = *this;
        r.y = y.neg();
        return r;
    }

    /* 2·(x, y) of an affine point, which is not infinity (mdbl-2008-s-1). */
    ZKP_GPU_HD static xyzz dbl_affine(const affine<F> &a) {
        F u = a.y.dbl(), v = u.sqr(), w = u * v, s = a.x * v, xx = a.x.sqr();
        F m = xx.dbl() + xx;
        xyzz r;
        r.x = m.sqr() - s.dbl();
        r.y = F::sum_of_products(m, s - r.x, w, a.y.neg());
        r.zz = v;
        r.zzz = w;
        return r;
    }

    /* 2·this (dbl-2008-s-1); infinity stays infinity since ZZ scales. */
    ZKP_GPU_HD xyzz dbl() const {
        F u = y.dbl(), v = u.sqr(), w = u * v, s = x * v, xx = x.sqr();
        F m = xx.dbl() + xx;
        xyzz r;
        r.x = m.sqr() - s.dbl();
        r.y = F::sum_of_products(m, s - r.x, w, y.neg());
        r.zz = v * zz;
        r.zzz = w * zzz;
        return r;
    }

    /* this + a (madd-2008-s), every case. */
    ZKP_GPU_HD void add_affine(const affine<F> &a) {
        if (a.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(a);
            return;
        }
        F u2 = a.x * zz, s2 = a.y * zzz;
        F p = u2 - x, r = s2 - y;
        if (p.is_zero()) {
            if (r.is_zero())
                *this = dbl_affine(a);
            else
                *this = inf();
            return;
        }
        F pp = p.sqr(), ppp = p * pp, q = x * pp;
        F x3 = r.sqr() - ppp - q.dbl();
        y = F::sum_of_products(r, q - x3, y, ppp.neg());
        x = x3;
        zz = zz * pp;
        zzz = zzz * ppp;
    }

    /* this + b (add-2008-s), every case. */
    ZKP_GPU_HD void add(const xyzz &b) {
        if (b.is_inf()) return;
        if (is_inf()) {
            *this = b;
            return;
        }
        F u1 = x * b.zz, u2 = b.x * zz, s1 = y * b.zzz, s2 = b.y * zzz;
        F p = u2 - u1, r = s2 - s1;
        if (p.is_zero()) {
            if (r.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        F pp = p.sqr(), ppp = p * pp, q = u1 * pp;
        F x3 = r.sqr() - ppp - q.dbl();
        y = F::sum_of_products(r, q - x3, s1, ppp.neg());
        x = x3;
        zz = zz * b.zz * pp;
        zzz = zzz * b.zzz * ppp;
    }
};

} /* namespace zkp_cuda */

#endif
