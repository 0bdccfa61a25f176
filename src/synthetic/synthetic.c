/* Synthetic workloads, the curve-neutral half: the names, the file layouts
 * (the binfile containers of zkey and wtns), the dispatch to the per-curve
 * bodies and the atomic writes. See synthetic.h; INSECURE by construction. */
#include "synthetic/synthetic.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "field/field.h"
#include "groth16/groth16.h"
#include "synthetic/synthetic_internal.h"
#include "util/fileio.h"

/* The 64 bytes where snarkjs keeps the circuit hash (section 10): a key
 * that anyone can forge proofs for says so to whoever opens it. */
static const char zkp_synth_marker[64] =
    "zkpipe synthetic key: INSECURE, for benchmarks and tests only";

/* snarkjs's section order (zkey_new.js). */
static const int zkp_synth_order[] = {
    ZKP_SYNTH_SEC_PROTOCOL, ZKP_SYNTH_SEC_HEADER, ZKP_SYNTH_SEC_COEFS, ZKP_SYNTH_SEC_IC,
    ZKP_SYNTH_SEC_H,        ZKP_SYNTH_SEC_C,      ZKP_SYNTH_SEC_A,     ZKP_SYNTH_SEC_B1,
    ZKP_SYNTH_SEC_B2,       ZKP_SYNTH_SEC_CONTRIB,
};

#define ZKP_SYNTH_FILE_HEADER 12    /* magic, version, section count */
#define ZKP_SYNTH_SECTION_HEADER 12 /* type, size */
#define ZKP_SYNTH_COEF_BYTES 44     /* matrix, constraint, signal, 32-byte value */

zkpipe_status zkp_synthetic_parse_spec(const char *spec, zkpipe_curve *curve, unsigned *log_n,
                                       zkp_diag *diag) {
    static const struct {
        const char *name;
        zkpipe_curve curve;
    } names[] = {
        {"bn254", ZKPIPE_CURVE_BN254},         {"bn128", ZKPIPE_CURVE_BN254},
        {"alt_bn128", ZKPIPE_CURVE_BN254},     {"bls12381", ZKPIPE_CURVE_BLS12_381},
        {"bls12_381", ZKPIPE_CURVE_BLS12_381}, {"bls12-381", ZKPIPE_CURVE_BLS12_381},
    };
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "synthetic workload \"%s\": expected <curve>:<log2 size>, for "
                             "example bn254:16",
                             spec ? spec : "");
    }
    size_t len = (size_t)(colon - spec);
    size_t i = 0;
    while (i < ZKP_ARRAY_LEN(names) &&
           !(strlen(names[i].name) == len && !strncasecmp(spec, names[i].name, len)))
        i++;
    if (i == ZKP_ARRAY_LEN(names)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "synthetic workload \"%s\": unknown curve \"%.*s\" (bn254, bn128, "
                             "bls12381, bls12_381)",
                             spec, (int)len, spec);
    }
    const char *num = colon + 1;
    char *end;
    errno = 0;
    unsigned long v = isdigit((unsigned char)num[0]) ? strtoul(num, &end, 10) : 0;
    if (!isdigit((unsigned char)num[0]) || *end || errno || v < ZKP_SYNTHETIC_MIN_LOG ||
        v > ZKP_SYNTHETIC_MAX_LOG) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "synthetic workload \"%s\": the size is log2 of the domain, a "
                             "whole number from %d to %d",
                             spec, ZKP_SYNTHETIC_MIN_LOG, ZKP_SYNTHETIC_MAX_LOG);
    }
    *curve = names[i].curve;
    *log_n = (unsigned)v;
    return ZKPIPE_OK;
}

static zkpipe_status zkp_synth_layout_init(zkp_synth_layout *l, const zkp_synthetic_params *p,
                                           zkp_diag *diag) {
    memset(l, 0, sizeof *l);
    if (p->curve != ZKPIPE_CURVE_BN254 && p->curve != ZKPIPE_CURVE_BLS12_381)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "synthetic workload: unknown curve");
    if (p->log_n < ZKP_SYNTHETIC_MIN_LOG || p->log_n > ZKP_SYNTHETIC_MAX_LOG)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "synthetic workload: log2 size %u is outside [%d, %d]", p->log_n,
                             ZKP_SYNTHETIC_MIN_LOG, ZKP_SYNTHETIC_MAX_LOG);
    l->curve = p->curve;
    l->log_n = p->log_n;
    l->n = (uint32_t)1 << p->log_n;
    l->m = l->n - ZKP_SYNTH_N_PUBLIC - 1;
    l->n_vars = l->n - 1;
    l->n_coefs = 2 * l->m + ZKP_SYNTH_N_PUBLIC + 1;
    l->q_bytes = p->curve == ZKPIPE_CURVE_BN254 ? BN254_FQ_BYTES : BLS12_381_FP_BYTES;
    l->g1_bytes = 2 * l->q_bytes;
    l->g2_bytes = 4 * l->q_bytes;

    size_t *sz = l->size;
    int bad = 0;
    sz[ZKP_SYNTH_SEC_PROTOCOL] = 4;
    sz[ZKP_SYNTH_SEC_HEADER] = 4 + l->q_bytes + 4 + 32 + 12 + 3 * l->g1_bytes + 3 * l->g2_bytes;
    bad |= zkp_mul_overflow(l->n_coefs, ZKP_SYNTH_COEF_BYTES, &sz[ZKP_SYNTH_SEC_COEFS]);
    bad |= zkp_add_overflow(sz[ZKP_SYNTH_SEC_COEFS], 4, &sz[ZKP_SYNTH_SEC_COEFS]);
    bad |= zkp_mul_overflow(ZKP_SYNTH_N_PUBLIC + 1, l->g1_bytes, &sz[ZKP_SYNTH_SEC_IC]);
    bad |= zkp_mul_overflow(l->n, l->g1_bytes, &sz[ZKP_SYNTH_SEC_H]);
    bad |= zkp_mul_overflow((size_t)l->n_vars - ZKP_SYNTH_N_PUBLIC - 1, l->g1_bytes,
                         &sz[ZKP_SYNTH_SEC_C]);
    bad |= zkp_mul_overflow(l->n_vars, l->g1_bytes, &sz[ZKP_SYNTH_SEC_A]);
    bad |= zkp_mul_overflow(l->n_vars, l->g1_bytes, &sz[ZKP_SYNTH_SEC_B1]);
    bad |= zkp_mul_overflow(l->n_vars, l->g2_bytes, &sz[ZKP_SYNTH_SEC_B2]);
    sz[ZKP_SYNTH_SEC_CONTRIB] = sizeof zkp_synth_marker + 4;
    size_t pos = ZKP_SYNTH_FILE_HEADER;
    for (size_t i = 0; i < ZKP_ARRAY_LEN(zkp_synth_order); i++) {
        int t = zkp_synth_order[i];
        bad |= zkp_add_overflow(pos, ZKP_SYNTH_SECTION_HEADER, &pos);
        l->off[t] = pos;
        bad |= zkp_add_overflow(pos, sz[t], &pos);
    }
    if (bad)
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "synthetic workload: a key of 2^%u rows does not fit in memory",
                             p->log_n);
    l->total = pos;
    return ZKPIPE_OK;
}

/* The witness file: header section of n8, r, count; then the values. */
#define ZKP_SYNTH_WTNS_HEADER (4 + 32 + 4)

static zkpipe_status zkp_synth_wtns_bytes(const zkp_synth_layout *l, size_t *bytes,
                                          zkp_diag *diag) {
    size_t v;
    if (zkp_mul_overflow(l->n_vars, 32, &v) ||
        zkp_add_overflow(v, ZKP_SYNTH_FILE_HEADER + 2 * ZKP_SYNTH_SECTION_HEADER +
                                ZKP_SYNTH_WTNS_HEADER,
                         bytes))
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "synthetic workload: a witness of %u values does not fit in memory",
                             (unsigned)l->n_vars);
    return ZKPIPE_OK;
}

zkpipe_status zkp_synthetic_shape_of(const zkp_synthetic_params *p, zkp_synthetic_shape *out,
                                     zkp_diag *diag) {
    zkp_synth_layout l;
    memset(out, 0, sizeof *out);
    zkpipe_status st = zkp_synth_layout_init(&l, p, diag);
    if (st != ZKPIPE_OK) return st;
    if ((st = zkp_synth_wtns_bytes(&l, &out->wtns_bytes, diag)) != ZKPIPE_OK) return st;
    out->domain_size = l.n;
    out->n_constraints = l.m;
    out->n_public = ZKP_SYNTH_N_PUBLIC;
    out->n_vars = l.n_vars;
    out->zkey_bytes = l.total;
    return ZKPIPE_OK;
}

static void zkp_synth_put_magic(uint8_t *p, const char magic[4], uint32_t version,
                                uint32_t nsections) {
    memcpy(p, magic, 4);
    zkp_synth_put32(p + 4, version);
    zkp_synth_put32(p + 8, nsections);
}

zkpipe_status zkp_synthetic_zkey(const zkp_synthetic_params *p, uint8_t **out, size_t *len,
                                 zkp_diag *diag) {
    *out = NULL;
    *len = 0;
    zkp_synth_layout l;
    zkpipe_status st = zkp_synth_layout_init(&l, p, diag);
    if (st != ZKPIPE_OK) return st;
    uint8_t *file = malloc(l.total);
    if (!file)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "synthetic workload: cannot allocate %zu bytes for the key", l.total);
    zkp_synth_put_magic(file, "zkey", 1, (uint32_t)ZKP_ARRAY_LEN(zkp_synth_order));
    for (size_t i = 0; i < ZKP_ARRAY_LEN(zkp_synth_order); i++) {
        int t = zkp_synth_order[i];
        zkp_synth_put32(file + l.off[t] - ZKP_SYNTH_SECTION_HEADER, (uint32_t)t);
        zkp_synth_put64(file + l.off[t] - ZKP_SYNTH_SECTION_HEADER + 4, l.size[t]);
    }
    zkp_synth_put32(file + l.off[ZKP_SYNTH_SEC_PROTOCOL], 1); /* Groth16 */
    memcpy(file + l.off[ZKP_SYNTH_SEC_CONTRIB], zkp_synth_marker, sizeof zkp_synth_marker);
    zkp_synth_put32(file + l.off[ZKP_SYNTH_SEC_CONTRIB] + sizeof zkp_synth_marker, 0);

    zkp_g16_prove_opts o = {.nthreads = p->nthreads};
    unsigned nthreads = zkp_g16_threads(&o);
    if (p->curve == ZKPIPE_CURVE_BN254)
        st = bn254_synthetic_fill_zkey(file, &l, p->seed, nthreads);
    else
        st = bls12_381_synthetic_fill_zkey(file, &l, p->seed, nthreads);
    if (st != ZKPIPE_OK) {
        free(file);
        return zkp_diag_fail(diag, st, "synthetic workload: cannot make the key of 2^%u rows: %s",
                             p->log_n, zkpipe_strerror(st));
    }
    *out = file;
    *len = l.total;
    return ZKPIPE_OK;
}

zkpipe_status zkp_synthetic_wtns(const zkp_synthetic_params *p, uint64_t index, uint8_t **out,
                                 size_t *len, zkp_diag *diag) {
    *out = NULL;
    *len = 0;
    zkp_synth_layout l;
    size_t bytes;
    zkpipe_status st = zkp_synth_layout_init(&l, p, diag);
    if (st == ZKPIPE_OK) st = zkp_synth_wtns_bytes(&l, &bytes, diag);
    if (st != ZKPIPE_OK) return st;
    uint8_t *file = malloc(bytes);
    if (!file)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "synthetic workload: cannot allocate %zu bytes for a witness", bytes);
    uint8_t *q = file;
    zkp_synth_put_magic(q, "wtns", 2, 2);
    q += ZKP_SYNTH_FILE_HEADER;
    zkp_synth_put32(q, 1);
    zkp_synth_put64(q + 4, ZKP_SYNTH_WTNS_HEADER);
    q += ZKP_SYNTH_SECTION_HEADER;
    zkp_synth_put32(q, 32);
    const uint64_t *r =
        p->curve == ZKPIPE_CURVE_BN254 ? bn254_fr_modulus.l : bls12_381_fr_modulus.l;
    for (int i = 0; i < 4; i++) zkp_synth_put64(q + 4 + 8 * i, r[i]);
    zkp_synth_put32(q + 36, l.n_vars);
    q += ZKP_SYNTH_WTNS_HEADER;
    zkp_synth_put32(q, 2);
    zkp_synth_put64(q + 4, (uint64_t)l.n_vars * 32);
    q += ZKP_SYNTH_SECTION_HEADER;
    if (p->curve == ZKPIPE_CURVE_BN254)
        bn254_synthetic_fill_wtns(q, &l, p->seed, index);
    else
        bls12_381_synthetic_fill_wtns(q, &l, p->seed, index);
    *out = file;
    *len = bytes;
    return ZKPIPE_OK;
}

zkpipe_status zkp_synthetic_write_zkey(const zkp_synthetic_params *p, const char *path,
                                       zkp_diag *diag) {
    uint8_t *bytes;
    size_t len;
    zkpipe_status st = zkp_synthetic_zkey(p, &bytes, &len, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_write_file_atomic(path, bytes, len, diag);
    free(bytes);
    return st;
}

zkpipe_status zkp_synthetic_write_wtns(const zkp_synthetic_params *p, uint64_t index,
                                       const char *path, zkp_diag *diag) {
    uint8_t *bytes;
    size_t len;
    zkpipe_status st = zkp_synthetic_wtns(p, index, &bytes, &len, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_write_file_atomic(path, bytes, len, diag);
    free(bytes);
    return st;
}
