/* The zkey parser: the curve-neutral half (container, protocol, primes,
 * storage of the point sections, the threaded point checks), and the
 * per-curve half instantiated from zkey_body.h. See zkey.h. */
#include "formats/zkey.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "field/field.h"
#include "formats/binfile.h"
#include "util/fnv.h"

/* Points are used where they lie only because the file's little-endian
 * limbs are the in-memory limbs. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "zkey points are read in place");

#define ZKEY_VERSION 1
#define ZKEY_PROTOCOL_GROTH16 1

enum {
    ZKEY_PROTOCOL = 1,
    ZKEY_HEADER = 2,
    ZKEY_IC = 3,
    ZKEY_COEFS = 4,
    ZKEY_A = 5,
    ZKEY_B1 = 6,
    ZKEY_B2 = 7,
    ZKEY_C = 8,
    ZKEY_H = 9,
    ZKEY_CONTRIBUTIONS = 10,
    ZKEY_SECTION_COUNT
};

static const char *zkey_section_name(int section) {
    static const char *const names[ZKEY_SECTION_COUNT] = {
        [ZKEY_PROTOCOL] = "protocol",
        [ZKEY_HEADER] = "header",
        [ZKEY_IC] = "IC",
        [ZKEY_COEFS] = "coefficients",
        [ZKEY_A] = "A",
        [ZKEY_B1] = "B1",
        [ZKEY_B2] = "B2",
        [ZKEY_C] = "C",
        [ZKEY_H] = "H",
        [ZKEY_CONTRIBUTIONS] = "MPC contributions",
    };
    return section > 0 && section < ZKEY_SECTION_COUNT ? names[section] : "unknown";
}

typedef struct {
    const zkp_binfile *bf;
    const char *name;
    zkp_zkey_options opt; /* nthreads resolved to >= 1 */
    zkp_binfile_section sec[ZKEY_SECTION_COUNT];
} zkey_ctx;

typedef zkpipe_status (*zkey_point_check_fn)(const void *point, int subgroup);

static zkpipe_status zkey_header_point_fail(const zkey_ctx *ctx, zkpipe_status st, const char *what,
                                            zkp_diag *diag) {
    return zkp_diag_fail(diag, st, "%s: section 2 (header): %s: %s", ctx->name, what,
                         zkpipe_strerror(st));
}

/* Allocates bytes (> 0) of key memory that the key frees. NULL after filling
 * diag when the allocator fails. */
static void *zkey_own(zkp_zkey *key, const zkey_ctx *ctx, size_t bytes, const char *what,
                      zkp_diag *diag) {
    void *p =
        key->n_owned < ZKP_ZKEY_MAX_OWNED ? zkp_alloc(ctx->opt.alloc, bytes, ZKP_MEM_KEY) : NULL;
    if (!p) {
        zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes for %s", ctx->name,
                      bytes, what);
        return NULL;
    }
    key->owned[key->n_owned].ptr = p;
    key->owned[key->n_owned].bytes = bytes;
    key->n_owned++;
    return p;
}

/* Where a point section's points will live: in place when its bytes are
 * aligned for the affine type (the mapping is page-aligned, so that is the
 * file offset's alignment), else in a copy. An empty section gives NULL. */
static zkpipe_status zkey_place_points(zkp_zkey *key, const zkey_ctx *ctx, int section,
                                       size_t align, const void **out, zkp_diag *diag) {
    const zkp_binfile_section *s = &ctx->sec[section];
    const uint8_t *body = zkp_binfile_body(ctx->bf, s);
    *out = NULL;
    if (s->size == 0) return ZKPIPE_OK;
    if ((uintptr_t)body % align == 0) {
        key->in_place_sections |= (uint32_t)1 << section;
        *out = body;
        return ZKPIPE_OK;
    }
    void *copy = zkey_own(key, ctx, s->size, zkey_section_name(section), diag);
    if (!copy) return ZKPIPE_ERR_NO_MEMORY;
    memcpy(copy, body, s->size);
    *out = copy;
    return ZKPIPE_OK;
}

/* ---- The threaded point check.
 *
 * Points are handed out in chunks through an atomic counter, in increasing
 * order. A failing point lowers first_bad (an atomic minimum), and a worker
 * stops taking chunks that start past it: every chunk before the lowest
 * failure is still checked in full, so the reported point is the first bad
 * one of the section whatever the thread count, and a bad key stops early. */

#define ZKEY_CHECK_CHUNK 4096
/* The thread table lives on the stack. */
#define ZKEY_MAX_THREADS 256

typedef struct {
    const uint8_t *points;
    size_t n, stride, nchunks;
    zkey_point_check_fn check;
    int subgroup;
    atomic_size_t next_chunk;
    atomic_size_t first_bad; /* SIZE_MAX while none is known */
} zkey_check_job;

static void zkey_check_work(zkey_check_job *job) {
    for (;;) {
        size_t ch = atomic_fetch_add_explicit(&job->next_chunk, 1, memory_order_relaxed);
        if (ch >= job->nchunks) return;
        size_t lo = ch * ZKEY_CHECK_CHUNK;
        size_t hi = job->n - lo < ZKEY_CHECK_CHUNK ? job->n : lo + ZKEY_CHECK_CHUNK;
        /* Chunks come in increasing order, so every later one is past it too. */
        if (lo > atomic_load_explicit(&job->first_bad, memory_order_relaxed)) return;
        for (size_t i = lo; i < hi; i++) {
            if (job->check(job->points + i * job->stride, job->subgroup) == ZKPIPE_OK) continue;
            size_t cur = atomic_load_explicit(&job->first_bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak_explicit(&job->first_bad, &cur, i,
                                                                     memory_order_relaxed,
                                                                     memory_order_relaxed)) {
            }
            break;
        }
    }
}

static void *zkey_check_thread(void *arg) {
    zkey_check_work(arg);
    return NULL;
}

/* Checks n points of stride bytes at points; the first failure (lowest
 * index) is reported with its section and index. */
static zkpipe_status zkey_check_points(const zkey_ctx *ctx, int section, const void *points,
                                       size_t n, size_t stride, zkey_point_check_fn check,
                                       int subgroup, zkp_diag *diag) {
    if (n == 0) return ZKPIPE_OK;
    zkey_check_job job;
    job.points = points;
    job.n = n;
    job.stride = stride;
    job.nchunks = (n + ZKEY_CHECK_CHUNK - 1) / ZKEY_CHECK_CHUNK;
    job.check = check;
    job.subgroup = subgroup;
    atomic_init(&job.next_chunk, 0);
    atomic_init(&job.first_bad, SIZE_MAX);

    size_t want = ctx->opt.nthreads;
    if (want > job.nchunks) want = job.nchunks;
    if (want > ZKEY_MAX_THREADS) want = ZKEY_MAX_THREADS;
    pthread_t threads[ZKEY_MAX_THREADS];
    size_t started = 0;
    /* If a thread cannot be created the others take its chunks. */
    for (size_t t = 1; t < want; t++) {
        if (pthread_create(&threads[started], NULL, zkey_check_thread, &job) != 0) break;
        started++;
    }
    zkey_check_work(&job);
    for (size_t t = 0; t < started; t++) pthread_join(threads[t], NULL);

    size_t bad = atomic_load(&job.first_bad);
    if (bad == SIZE_MAX) return ZKPIPE_OK;
    /* The workers keep only the index; the status is cheap to recompute. */
    zkpipe_status st = check(job.points + bad * stride, subgroup);
    return zkp_diag_fail(diag, st, "%s: section %d (%s): point %zu of %zu: %s", ctx->name, section,
                         zkey_section_name(section), bad, n, zkpipe_strerror(st));
}

/* ---- per curve */

#define ZK_CURVE bn254
#define ZK_G1 bn254_g1
#define ZK_G2 bn254_g2
#define ZK_FQ bn254_fq
#define ZK_FQ_PARAM BN254_FQ
#define ZK_FR bn254_fr
#define ZK_FR_PARAM BN254_FR
#include "formats/zkey_body.h"

#define ZK_CURVE bls12_381
#define ZK_G1 bls12_381_g1
#define ZK_G2 bls12_381_g2
#define ZK_FQ bls12_381_fp
#define ZK_FQ_PARAM BLS12_381_FP
#define ZK_FR bls12_381_fr
#define ZK_FR_PARAM BLS12_381_FR
#include "formats/zkey_body.h"

/* ---- the entry points */

static unsigned online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* Reads a u32 field of section 2 at *pos, or fails naming the field. */
static zkpipe_status header_u32(const zkey_ctx *ctx, size_t *pos, const char *what, uint32_t *out,
                                zkp_diag *diag) {
    const zkp_binfile_section *s = &ctx->sec[ZKEY_HEADER];
    if (s->size - *pos < 4) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 2 (header): %zu bytes end before %s", ctx->name, s->size,
                             what);
    }
    *out = zkp_le32(zkp_binfile_body(ctx->bf, s) + *pos);
    *pos += 4;
    return ZKPIPE_OK;
}

/* The primes at the start of section 2 name the curve: q, then r, which must
 * be the same curve's. *hdr_used: the bytes consumed. */
static zkpipe_status header_curve(const zkey_ctx *ctx, zkpipe_curve *curve, size_t *hdr_used,
                                  zkp_diag *diag) {
    const zkp_binfile_section *s = &ctx->sec[ZKEY_HEADER];
    const uint8_t *body = zkp_binfile_body(ctx->bf, s);
    size_t pos = 0;
    uint32_t n8q = 0, n8r = 0;
    zkpipe_status st;
    if ((st = header_u32(ctx, &pos, "n8q", &n8q, diag)) != ZKPIPE_OK) return st;
    if (n8q != BN254_FQ_BYTES && n8q != BLS12_381_FP_BYTES) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 2 (header): base field elements of %" PRIu32
                             " bytes; bn254 has 32, bls12_381 48",
                             ctx->name, n8q);
    }
    if (s->size - pos < n8q) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 2 (header): %zu bytes end before q", ctx->name, s->size);
    }
    if (!zkp_formats_curve_of_q(body + pos, n8q, curve)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 2 (header): q is not the base field of bn254 or "
                             "bls12_381",
                             ctx->name);
    }
    pos += n8q;
    if ((st = header_u32(ctx, &pos, "n8r", &n8r, diag)) != ZKPIPE_OK) return st;
    if (n8r != BN254_FR_BYTES) { /* both curves' r take 32 bytes */
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 2 (header): scalars of %" PRIu32
                             " bytes; %s's r takes 32",
                             ctx->name, n8r, zkp_formats_curve_name(*curve));
    }
    if (s->size - pos < n8r) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: section 2 (header): %zu bytes end before r", ctx->name, s->size);
    }
    zkpipe_curve r_curve;
    if (!zkp_formats_curve_of_r(body + pos, n8r, &r_curve) || r_curve != *curve) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "%s: section 2 (header): r is not the scalar field of %s, the curve "
                             "that q names",
                             ctx->name, zkp_formats_curve_name(*curve));
    }
    pos += n8r;
    *hdr_used = pos;
    return ZKPIPE_OK;
}

static zkpipe_status zkey_parse_sections(zkp_zkey *key, zkey_ctx *ctx, zkp_diag *diag) {
    zkpipe_status st;
    /* The protocol first: a PLONK or FFLONK key has other sections, and
     * "unsupported protocol" says more than "section 5 is missing". */
    zkp_binfile_section *ps = &ctx->sec[ZKEY_PROTOCOL];
    if ((st = zkp_binfile_unique(ctx->bf, ZKEY_PROTOCOL, "protocol", ps, diag)) != ZKPIPE_OK ||
        (st = zkp_binfile_expect_size(ctx->bf, ps, "protocol", 4, 0, 0, diag)) != ZKPIPE_OK)
        return st;
    uint32_t protocol = zkp_le32(zkp_binfile_body(ctx->bf, ps));
    if (protocol != ZKEY_PROTOCOL_GROTH16) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_UNSUPPORTED,
                             "%s: section 1 (protocol): protocol %" PRIu32
                             ", only 1 (Groth16) is supported",
                             ctx->name, protocol);
    }
    for (int t = ZKEY_HEADER; t < ZKEY_SECTION_COUNT; t++) {
        st = zkp_binfile_unique(ctx->bf, (uint32_t)t, zkey_section_name(t), &ctx->sec[t], diag);
        if (st != ZKPIPE_OK) return st;
    }

    size_t hdr_used = 0;
    if ((st = header_curve(ctx, &key->curve, &hdr_used, diag)) != ZKPIPE_OK) return st;
    switch (key->curve) {
    case ZKPIPE_CURVE_BN254:
        return bn254_zkey_parse(key, ctx, hdr_used, diag);
    case ZKPIPE_CURVE_BLS12_381:
        return bls12_381_zkey_parse(key, ctx, hdr_used, diag);
    }
    return ZKPIPE_ERR_WRONG_CURVE; /* not reached: header_curve knows only these two */
}

zkpipe_status zkp_zkey_parse(zkp_zkey *key, const uint8_t *data, size_t len, const char *name,
                             const zkp_zkey_options *opt, zkp_diag *diag) {
    memset(key, 0, sizeof *key);
    zkey_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    if (opt) ctx.opt = *opt;
    if (ctx.opt.nthreads == 0) ctx.opt.nthreads = online_cpus();
    key->alloc = ctx.opt.alloc;

    zkp_binfile bf;
    zkpipe_status st = zkp_binfile_parse(&bf, data, len, "zkey", ZKEY_VERSION, name, diag);
    if (st != ZKPIPE_OK) return st;
    ctx.bf = &bf;
    ctx.name = bf.name;

    st = zkey_parse_sections(key, &ctx, diag);
    if (st != ZKPIPE_OK) {
        zkp_zkey_free(key);
        return st;
    }
    key->file_size = len;
    return ZKPIPE_OK;
}

zkpipe_status zkp_zkey_load(zkp_zkey *key, const char *path, const zkp_zkey_options *opt,
                            zkp_diag *diag) {
    memset(key, 0, sizeof *key);
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_zkey_parse(key, mf.data, mf.size, path, opt, diag);
    if (st != ZKPIPE_OK) {
        zkp_mapped_file_close(&mf);
        return st;
    }
    key->file = mf;
    return ZKPIPE_OK;
}

zkpipe_status zkp_zkey_header_digest(const uint8_t *data, size_t len, const char *name,
                                     uint64_t *out, zkp_diag *diag) {
    *out = 0;
    zkp_binfile bf;
    zkpipe_status st = zkp_binfile_parse(&bf, data, len, "zkey", ZKEY_VERSION, name, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_binfile_section proto, hdr;
    if ((st = zkp_binfile_unique(&bf, ZKEY_PROTOCOL, "protocol", &proto, diag)) !=
            ZKPIPE_OK ||
        (st = zkp_binfile_unique(&bf, ZKEY_HEADER, "header", &hdr, diag)) != ZKPIPE_OK)
        return st;
    uint64_t h = ZKP_FNV1A64_INIT;
    for (uint32_t i = 0; i < bf.n_sections; i++) {
        uint64_t ts[2] = {bf.sections[i].type, (uint64_t)bf.sections[i].size};
        h = zkp_fnv1a64(h, ts, sizeof ts);
    }
    h = zkp_fnv1a64(h, zkp_binfile_body(&bf, &proto), proto.size);
    h = zkp_fnv1a64(h, zkp_binfile_body(&bf, &hdr), hdr.size);
    *out = h;
    return ZKPIPE_OK;
}

void zkp_zkey_free(zkp_zkey *key) {
    if (!key) return;
    for (unsigned i = 0; i < key->n_owned; i++)
        zkp_free(key->alloc, key->owned[i].ptr, key->owned[i].bytes, ZKP_MEM_KEY);
    zkp_mapped_file_close(&key->file);
    memset(key, 0, sizeof *key);
}

void zkp_zkey_pk(const zkp_zkey *key, zkp_g16_pk *out) {
    memset(out, 0, sizeof *out);
    out->curve = key->curve;
    if (key->curve == ZKPIPE_CURVE_BN254)
        out->u.bn254 = key->pk.bn254;
    else
        out->u.bls12_381 = key->pk.bls12_381;
}

void zkp_zkey_vk(const zkp_zkey *key, zkp_g16_vk *out) {
    zkp_g16_pk pk;
    zkp_zkey_pk(key, &pk);
    memset(out, 0, sizeof *out);
    zkp_g16_pk_vk(out, &pk);
}

uint32_t zkp_zkey_n_vars(const zkp_zkey *key) {
    return key->curve == ZKPIPE_CURVE_BN254 ? key->pk.bn254.n_vars : key->pk.bls12_381.n_vars;
}

uint32_t zkp_zkey_n_public(const zkp_zkey *key) {
    return key->curve == ZKPIPE_CURVE_BN254 ? key->pk.bn254.n_public : key->pk.bls12_381.n_public;
}

zkpipe_status zkp_wtns_check_zkey(const zkp_wtns *w, const zkp_zkey *key, zkp_diag *diag) {
    if (w->curve != key->curve) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_WRONG_CURVE,
                             "the witness is over %s's scalar field, the key is for %s",
                             zkp_formats_curve_name(w->curve), zkp_formats_curve_name(key->curve));
    }
    uint32_t n_vars = zkp_zkey_n_vars(key);
    if (w->n_vars != n_vars) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "the witness has %zu values, the key expects %" PRIu32 " variables",
                             w->n_vars, n_vars);
    }
    return ZKPIPE_OK;
}
