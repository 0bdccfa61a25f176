/* bellperson's .vk, .params and 192-byte proofs over BLS12-381. See
 * bellperson.h for the layouts and what is checked. */
#include "formats/bellperson.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "field/field.h"
#include "ntt/bls12_381_ntt.h"
#include "util/fileio.h"
#include "util/fnv.h"
#include "util/parallel.h"

/* Points are decoded and checked in batches of this many: large enough that
 * handing out a batch costs nothing next to its subgroup checks (tens of
 * microseconds per point), small enough that a bad point stops the work of
 * every thread soon after. */
#define BP_DECODE_BATCH 256

/* A decoded section's pages of the file leave the resident set this many
 * bytes at a time (bp_release_pages). */
#define BP_RELEASE_STEP ((size_t)8 << 20)

static uint32_t bp_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void bp_put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void zkp_bp_put_count(uint8_t out[ZKP_BP_COUNT_BYTES], uint32_t count) { bp_put_be32(out, count); }

static double bp_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned bp_online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* One uncompressed point with every check (with subgroup 0, on the curve
 * only: zkp_bp_params_options.curve_only); the identity is refused unless
 * allow_identity. The identity's own status is BAD_ENCODING: its flag is
 * what is not allowed. */
static zkpipe_status bp_g1_read(bls12_381_g1_affine_t *p, const uint8_t *in, int allow_identity,
                                int subgroup) {
    zkpipe_status st = subgroup ? bls12_381_g1_affine_deserialize(p, in)
                                : bls12_381_g1_affine_deserialize_on_curve(p, in);
    if (st == ZKPIPE_OK && !allow_identity && bls12_381_g1_affine_is_infinity(p))
        return ZKPIPE_ERR_BAD_ENCODING;
    return st;
}

static zkpipe_status bp_g2_read(bls12_381_g2_affine_t *p, const uint8_t *in, int allow_identity,
                                int subgroup) {
    zkpipe_status st = subgroup ? bls12_381_g2_affine_deserialize(p, in)
                                : bls12_381_g2_affine_deserialize_on_curve(p, in);
    if (st == ZKPIPE_OK && !allow_identity && bls12_381_g2_affine_is_infinity(p))
        return ZKPIPE_ERR_BAD_ENCODING;
    return st;
}

/* The reason of an uncompressed point's failure, with the identity (the
 * infinity flag and nothing else) said in words. */
static const char *bp_why(zkpipe_status st, const uint8_t *in, size_t len) {
    int identity = st == ZKPIPE_ERR_BAD_ENCODING && in[0] == 0x40;
    for (size_t i = 1; identity && i < len; i++) identity = in[i] == 0;
    return identity ? "the point at infinity, which is not allowed here" : zkpipe_strerror(st);
}

/* ---- verifying keys */

uint64_t zkp_bp_vk_bytes(uint32_t n_ic) {
    return ZKP_BP_VK_FIXED_BYTES + (uint64_t)ZKP_BP_G1_BYTES * n_ic;
}

zkpipe_status zkp_bp_vk_parse(zkp_bp_vk *vk, const uint8_t *data, size_t len, int exact,
                              size_t *used, const char *name, const zkp_allocator *alloc,
                              zkp_diag *diag) {
    memset(vk, 0, sizeof *vk);
    vk->alloc = alloc;
    if (!name) name = "verifying key";
    if (len < ZKP_BP_VK_FIXED_BYTES) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                             "%s: %zu bytes end inside the verifying key's fixed part (%d bytes)",
                             name, len, ZKP_BP_VK_FIXED_BYTES);
    }
    /* bellperson's order; the six fixed points may be the identity. */
    const struct {
        const char *what;
        int g2;
        void *dst;
    } fixed[] = {
        {"alpha_g1", 0, &vk->alpha_g1}, {"beta_g1", 0, &vk->beta_g1},
        {"beta_g2", 1, &vk->beta_g2},   {"gamma_g2", 1, &vk->gamma_g2},
        {"delta_g1", 0, &vk->delta_g1}, {"delta_g2", 1, &vk->delta_g2},
    };
    size_t pos = 0;
    for (size_t i = 0; i < ZKP_ARRAY_LEN(fixed); i++) {
        zkpipe_status st = fixed[i].g2 ? bp_g2_read(fixed[i].dst, data + pos, 1, 1)
                                       : bp_g1_read(fixed[i].dst, data + pos, 1, 1);
        if (st != ZKPIPE_OK) {
            zkpipe_status fail = zkp_diag_fail(
                diag, st, "%s: verifying key: %s (byte %zu): %s", name, fixed[i].what, pos,
                bp_why(st, data + pos, fixed[i].g2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES));
            memset(vk, 0, sizeof *vk);
            return fail;
        }
        pos += fixed[i].g2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES;
    }
    uint32_t n_ic = bp_be32(data + pos);
    pos += 4;
    uint64_t need = zkp_bp_vk_bytes(n_ic);
    zkpipe_status st = ZKPIPE_OK;
    if (need > len) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                           "%s: verifying key: ic_len %" PRIu32 " needs %" PRIu64
                           " bytes, the data has %zu",
                           name, n_ic, need, len);
    } else if (exact && need != len) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                           "%s: verifying key: %zu bytes follow its end at byte %" PRIu64, name,
                           len - (size_t)need, need);
    } else if (n_ic == 0) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                           "%s: verifying key: ic is empty; it holds at least the constant input",
                           name);
    }
    if (st != ZKPIPE_OK) {
        memset(vk, 0, sizeof *vk);
        return st;
    }
    size_t bytes = (size_t)n_ic * sizeof(bls12_381_g1_affine_t); /* <= the file's bytes */
    vk->ic = zkp_alloc(alloc, bytes, ZKP_MEM_KEY);
    if (!vk->ic) {
        memset(vk, 0, sizeof *vk);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes for ic",
                             name, bytes);
    }
    vk->n_ic = n_ic;
    for (uint32_t i = 0; i < n_ic; i++, pos += ZKP_BP_G1_BYTES) {
        st = bp_g1_read(&vk->ic[i], data + pos, 0, 1);
        if (st != ZKPIPE_OK) {
            zkp_diag_fail(diag, st, "%s: verifying key: ic point %" PRIu32 " of %" PRIu32 ": %s",
                          name, i, n_ic, bp_why(st, data + pos, ZKP_BP_G1_BYTES));
            zkp_bp_vk_free(vk);
            return st;
        }
    }
    if (used) *used = pos;
    return ZKPIPE_OK;
}

void zkp_bp_vk_free(zkp_bp_vk *vk) {
    if (!vk) return;
    zkp_free(vk->alloc, vk->ic, (size_t)vk->n_ic * sizeof(bls12_381_g1_affine_t), ZKP_MEM_KEY);
    memset(vk, 0, sizeof *vk);
}

zkpipe_status zkp_bp_vk_encode(uint8_t *out, size_t out_len, const zkp_bp_vk *vk,
                               zkp_diag *diag) {
    if (out_len != zkp_bp_vk_bytes(vk->n_ic)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "verifying key: %zu bytes given for %" PRIu64, out_len,
                             zkp_bp_vk_bytes(vk->n_ic));
    }
    for (uint32_t i = 0; i < vk->n_ic; i++) {
        if (bls12_381_g1_affine_is_infinity(&vk->ic[i])) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "verifying key: ic point %" PRIu32
                                 " is the identity, which bellperson refuses to read",
                                 i);
        }
    }
    uint8_t *p = out;
    bls12_381_g1_affine_serialize(p, &vk->alpha_g1), p += ZKP_BP_G1_BYTES;
    bls12_381_g1_affine_serialize(p, &vk->beta_g1), p += ZKP_BP_G1_BYTES;
    bls12_381_g2_affine_serialize(p, &vk->beta_g2), p += ZKP_BP_G2_BYTES;
    bls12_381_g2_affine_serialize(p, &vk->gamma_g2), p += ZKP_BP_G2_BYTES;
    bls12_381_g1_affine_serialize(p, &vk->delta_g1), p += ZKP_BP_G1_BYTES;
    bls12_381_g2_affine_serialize(p, &vk->delta_g2), p += ZKP_BP_G2_BYTES;
    bp_put_be32(p, vk->n_ic), p += 4;
    for (uint32_t i = 0; i < vk->n_ic; i++, p += ZKP_BP_G1_BYTES)
        bls12_381_g1_affine_serialize(p, &vk->ic[i]);
    return ZKPIPE_OK;
}

void zkp_bp_vk_to_g16(zkp_g16_vk *out, const zkp_bp_vk *vk) {
    memset(out, 0, sizeof *out);
    out->curve = ZKPIPE_CURVE_BLS12_381;
    bls12_381_g16_vk_t *v = &out->u.bls12_381;
    v->n_public = vk->n_ic ? vk->n_ic - 1 : 0;
    v->alpha1 = vk->alpha_g1;
    v->beta2 = vk->beta_g2;
    v->gamma2 = vk->gamma_g2;
    v->delta2 = vk->delta_g2;
    v->ic = vk->ic;
}

void zkp_bp_vk_from_g16_pk(zkp_bp_vk *vk, const bls12_381_g16_pk_t *pk) {
    memset(vk, 0, sizeof *vk);
    vk->alpha_g1 = pk->alpha1;
    vk->beta_g1 = pk->beta1;
    vk->delta_g1 = pk->delta1;
    vk->beta_g2 = pk->beta2;
    vk->gamma_g2 = pk->gamma2;
    vk->delta_g2 = pk->delta2;
    vk->n_ic = pk->n_public + 1;
    /* Borrowed: the caller never frees this key (bellperson.h). */
    vk->ic = (bls12_381_g1_affine_t *)pk->ic;
}

zkpipe_status zkp_bp_vk_write(const char *path, const zkp_bp_vk *vk, zkp_diag *diag) {
    uint64_t bytes = zkp_bp_vk_bytes(vk->n_ic);
    if (bytes > SIZE_MAX) return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE, "%s: too big", path);
    /* At most 868 + 96·(2^32 − 1) bytes, and in practice a few kilobytes
     * (328 inputs for a 32 GiB sector): small enough for the heap. */
    uint8_t *buf = zkp_alloc(NULL, (size_t)bytes, ZKP_MEM_SCRATCH);
    if (!buf) return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
    zkpipe_status st = zkp_bp_vk_encode(buf, (size_t)bytes, vk, diag);
    if (st == ZKPIPE_OK) st = zkp_write_file_atomic(path, buf, (size_t)bytes, diag);
    else zkp_diag_prefix(diag, path);
    zkp_free(NULL, buf, (size_t)bytes, ZKP_MEM_SCRATCH);
    return st;
}

/* ---- parameters */

const char *zkp_bp_section_name(zkp_bp_section s) {
    static const char *const names[ZKP_BP_SECTION_COUNT] = {"h", "l", "a", "b_g1", "b_g2"};
    return (unsigned)s < ZKP_BP_SECTION_COUNT ? names[s] : "unknown";
}

static zkpipe_status bp_params_sections(zkp_bp_params *p, size_t pos, zkp_diag *diag) {
    const size_t len = p->file_size;
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        const char *what = zkp_bp_section_name((zkp_bp_section)s);
        if (len - pos < 4) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                 "%s: the file ends at byte %zu, before the length of section %s",
                                 p->name, len, what);
        }
        uint32_t count = bp_be32(p->data + pos);
        pos += 4;
        unsigned elem = s == ZKP_BP_B_G2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES;
        /* count < 2^32 and elem <= 192: the product fits 64 bits. */
        uint64_t bytes = (uint64_t)count * elem;
        if (bytes > (uint64_t)(len - pos)) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_TRUNCATED,
                                 "%s: section %s: %" PRIu32 " points of %u bytes need %" PRIu64
                                 " bytes from byte %zu, the file has %zu after it",
                                 p->name, what, count, elem, bytes, pos, len - pos);
        }
        p->sec[s].offset = pos;
        p->sec[s].count = count;
        p->sec[s].elem = elem;
        pos += (size_t)bytes;
    }
    if (pos != len) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SECTION_SIZE,
                             "%s: %zu bytes follow section b_g2, which ends at byte %zu", p->name,
                             len - pos, pos);
    }
    /* What every file bellperson's generator writes satisfies; a file that
     * does not cannot be a key for any circuit. */
    uint64_t domain = (uint64_t)p->sec[ZKP_BP_H].count + 1;
    if ((domain & (domain - 1)) != 0) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: section h: %" PRIu32
                             " points; it holds one less than a power of two (the domain size)",
                             p->name, p->sec[ZKP_BP_H].count);
    }
    if (p->sec[ZKP_BP_B_G1].count != p->sec[ZKP_BP_B_G2].count) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "%s: section b_g1 has %" PRIu32 " points and b_g2 %" PRIu32
                             "; both hold the variables with a non-zero B column",
                             p->name, p->sec[ZKP_BP_B_G1].count, p->sec[ZKP_BP_B_G2].count);
    }
    if (p->sec[ZKP_BP_A].count < p->vk.n_ic) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_SIZE_MISMATCH,
                             "%s: section a has %" PRIu32 " points, fewer than the %" PRIu32
                             " inputs of the verifying key, which all have one",
                             p->name, p->sec[ZKP_BP_A].count, p->vk.n_ic);
    }
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_parse(zkp_bp_params *p, const uint8_t *data, size_t len,
                                  const char *name, const zkp_bp_params_options *opt,
                                  zkp_diag *diag) {
    memset(p, 0, sizeof *p);
    if (opt) p->opt = *opt;
    if (p->opt.nthreads == 0) p->opt.nthreads = bp_online_cpus();
    snprintf(p->name, sizeof p->name, "%s", name ? name : "parameters");
    p->data = data;
    p->file_size = len;
    size_t used = 0;
    zkpipe_status st = zkp_bp_vk_parse(&p->vk, data, len, 0, &used, p->name, p->opt.alloc, diag);
    if (st == ZKPIPE_OK) st = bp_params_sections(p, used, diag);
    if (st == ZKPIPE_OK && pthread_mutex_init(&p->lock, NULL) != 0)
        st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot create a mutex", p->name);
    if (st != ZKPIPE_OK) {
        zkp_bp_vk_free(&p->vk);
        memset(p, 0, sizeof *p);
        return st;
    }
    p->lock_init = 1;
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_load(zkp_bp_params *p, const char *path,
                                 const zkp_bp_params_options *opt, zkp_diag *diag) {
    memset(p, 0, sizeof *p);
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, diag);
    if (st != ZKPIPE_OK) return st;
    st = zkp_bp_params_parse(p, mf.data, mf.size, path, opt, diag);
    if (st != ZKPIPE_OK) {
        zkp_mapped_file_close(&mf);
        return st;
    }
    p->file = mf;
    return ZKPIPE_OK;
}

/* The threaded decode of one section. Batches are handed out in increasing
 * order; a failing point lowers first_bad (an atomic minimum) and batches
 * that start past it are skipped, so every batch before the lowest failure
 * is still checked in full and the reported point is the first bad one
 * whatever the thread count. */
typedef struct {
    const uint8_t *in;
    uint8_t *out; /* NULL: check only */
    size_t n;
    int g2, subgroup;
    atomic_size_t first_bad;
} bp_decode_job;

static void bp_decode_unit(void *ctx, unsigned tid, size_t unit) {
    (void)tid;
    bp_decode_job *job = ctx;
    size_t lo = unit * BP_DECODE_BATCH;
    size_t hi = job->n - lo < BP_DECODE_BATCH ? job->n : lo + BP_DECODE_BATCH;
    if (lo > atomic_load_explicit(&job->first_bad, memory_order_relaxed)) return;
    const size_t in_elem = job->g2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES;
    const size_t out_elem = job->g2 ? sizeof(bls12_381_g2_affine_t) : sizeof(bls12_381_g1_affine_t);
    for (size_t i = lo; i < hi; i++) {
        union {
            bls12_381_g1_affine_t g1;
            bls12_381_g2_affine_t g2;
        } tmp;
        void *dst = job->out ? (void *)(job->out + i * out_elem) : (void *)&tmp;
        zkpipe_status st = job->g2 ? bp_g2_read(dst, job->in + i * in_elem, 0, job->subgroup)
                                   : bp_g1_read(dst, job->in + i * in_elem, 0, job->subgroup);
        if (st == ZKPIPE_OK) continue;
        size_t cur = atomic_load_explicit(&job->first_bad, memory_order_relaxed);
        while (i < cur &&
               !atomic_compare_exchange_weak_explicit(&job->first_bad, &cur, i,
                                                      memory_order_relaxed, memory_order_relaxed)) {
        }
        return;
    }
}

/* The whole pages of the mapping that section s touches, from the start of
 * the file; 0 bytes when the bytes are the caller's, not a mapping. */
static void bp_section_span(const zkp_bp_params *p, zkp_bp_section s, size_t *off, size_t *len) {
    *off = *len = 0;
    long page = sysconf(_SC_PAGESIZE);
    if (!p->file.map_base || page <= 0 || p->sec[s].count == 0) return;
    size_t ps = (size_t)page;
    size_t lo = (size_t)p->sec[s].offset;
    size_t hi = lo + (size_t)p->sec[s].count * p->sec[s].elem;
    lo = lo / ps * ps;
    hi = (hi + ps - 1) / ps * ps;
    if (hi > p->file.map_len) hi = p->file.map_len;
    *off = lo;
    *len = hi > lo ? hi - lo : 0;
}

/* Once a section's points are decoded (or checked), its pages of the file
 * are no longer needed: they leave this process's resident set, so RSS
 * counts the decoded copy once, as the tracker does (the page cache keeps
 * them for the next reader). The pages it shares with its neighbours go
 * too: the mapping is read-only, so a later read of them faults them back
 * in from the page cache, and the span charged (opt.pages) is then all
 * that was resident. */
static void bp_release_pages(const zkp_bp_params *p, size_t off, size_t len,
                             const zkp_bp_file_pages *pages) {
    /* In steps, each discharged as soon as it is gone: dropping a section
     * of hundreds of MB takes tens of milliseconds, and RSS falls through
     * them while a discharge of the whole span would wait for the end. */
    for (size_t done = 0; done < len;) {
        size_t n = len - done < BP_RELEASE_STEP ? len - done : BP_RELEASE_STEP;
        (void)madvise((uint8_t *)p->file.map_base + off + done, n, MADV_DONTNEED);
        if (pages) pages->discharge(pages->ctx, off + done, n);
        done += n;
    }
}

void zkp_bp_params_drop_pages(zkp_bp_params *p) {
    if (p->file.map_base && p->file.map_len)
        (void)madvise(p->file.map_base, p->file.map_len, MADV_DONTNEED);
}

/* Decodes (out != NULL) or checks the points of section s. */
static zkpipe_status bp_decode(zkp_bp_params *p, zkp_bp_section s, void *out,
                               zkp_bp_decode_stats *stats, zkp_diag *diag) {
    bp_decode_job job;
    job.in = p->data + p->sec[s].offset;
    job.out = out;
    job.n = p->sec[s].count;
    job.g2 = s == ZKP_BP_B_G2;
    job.subgroup = !p->opt.curve_only;
    atomic_init(&job.first_bad, SIZE_MAX);
    size_t units = (job.n + BP_DECODE_BATCH - 1) / BP_DECODE_BATCH;
    unsigned threads = p->opt.nthreads;
    if (threads > ZKP_PARALLEL_MAX_THREADS) threads = ZKP_PARALLEL_MAX_THREADS;
    size_t span_off, span_len;
    bp_section_span(p, s, &span_off, &span_len);
    const zkp_bp_file_pages *pages = span_len ? p->opt.pages : NULL;
    if (pages) {
        zkpipe_status st = pages->charge(pages->ctx, &p->file, span_off, span_len);
        if (st != ZKPIPE_OK) {
            /* charge may have read part of the span in before it failed. */
            bp_release_pages(p, span_off, span_len, pages);
            return zkp_diag_fail(diag, st, "%s: section %s: its %zu bytes of the file cannot be "
                                 "read in: %s", p->name, zkp_bp_section_name(s), span_len,
                                 zkpipe_strerror(st));
        }
    }
    double t0 = bp_now();
    zkp_parallel_for(threads, units, bp_decode_unit, &job);
    if (stats) {
        stats->points = job.n;
        stats->seconds = bp_now() - t0;
    }
    size_t bad = atomic_load(&job.first_bad);
    zkpipe_status st = ZKPIPE_OK;
    if (bad != SIZE_MAX) {
        /* The workers keep only the index; the status is cheap to
         * recompute, while the section's pages are still paid for. */
        const uint8_t *at = job.in + bad * p->sec[s].elem;
        bls12_381_g2_affine_t tmp;
        st = job.g2 ? bp_g2_read(&tmp, at, 0, job.subgroup)
                    : bp_g1_read((bls12_381_g1_affine_t *)(void *)&tmp, at, 0, job.subgroup);
        st = zkp_diag_fail(diag, st, "%s: section %s: point %zu of %zu (byte %zu): %s", p->name,
                           zkp_bp_section_name(s), bad, job.n, (size_t)(at - p->data),
                           bp_why(st, at, p->sec[s].elem));
    }
    bp_release_pages(p, span_off, span_len, pages);
    return st;
}

size_t zkp_bp_params_section_bytes(const zkp_bp_params *p, zkp_bp_section s) {
    if ((unsigned)s >= ZKP_BP_SECTION_COUNT) return 0;
    /* count < 2^32 points of at most 192 bytes: no overflow on 64 bits. */
    return (size_t)p->sec[s].count *
           (s == ZKP_BP_B_G2 ? sizeof(bls12_381_g2_affine_t) : sizeof(bls12_381_g1_affine_t));
}

zkpipe_status zkp_bp_params_section(zkp_bp_params *p, zkp_bp_section s, const void **out,
                                    zkp_diag *diag) {
    *out = NULL;
    if ((unsigned)s >= ZKP_BP_SECTION_COUNT || !p->lock_init)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no such section or parameters");
    pthread_mutex_lock(&p->lock);
    zkpipe_status st = ZKPIPE_OK;
    if (!p->points[s] && p->sec[s].count > 0 && !p->data) {
        st = zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "%s: section %s was not decoded before the file was unmapped", p->name,
                           zkp_bp_section_name(s));
    } else if (!p->points[s] && p->sec[s].count > 0) {
        size_t bytes = zkp_bp_params_section_bytes(p, s);
        void *dst = zkp_alloc(p->opt.alloc, bytes, ZKP_MEM_KEY);
        if (!dst) {
            st = zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                               "%s: cannot allocate %zu bytes for section %s", p->name, bytes,
                               zkp_bp_section_name(s));
        } else if ((st = bp_decode(p, s, dst, &p->stats[s], diag)) != ZKPIPE_OK) {
            zkp_free(p->opt.alloc, dst, bytes, ZKP_MEM_KEY);
        } else {
            p->points[s] = dst;
        }
    }
    *out = p->points[s];
    pthread_mutex_unlock(&p->lock);
    return st;
}

zkpipe_status zkp_bp_params_check_section(zkp_bp_params *p, zkp_bp_section s,
                                          zkp_bp_decode_stats *stats, zkp_diag *diag) {
    if ((unsigned)s >= ZKP_BP_SECTION_COUNT || !p->lock_init)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no such section or parameters");
    pthread_mutex_lock(&p->lock);
    int mapped = p->data != NULL;
    pthread_mutex_unlock(&p->lock);
    if (!mapped)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: the file was unmapped",
                             p->name);
    return bp_decode(p, s, NULL, stats, diag);
}

uint64_t zkp_bp_params_header_digest(const zkp_bp_params *p) {
    uint64_t h = ZKP_FNV1A64_INIT;
    uint64_t size = p->file_size;
    h = zkp_fnv1a64(h, &size, sizeof size);
    /* The verifying key is the file's first bytes, up to the first section's
     * length word. */
    if (p->data && p->sec[0].offset >= 4) h = zkp_fnv1a64(h, p->data, (size_t)p->sec[0].offset - 4);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        uint64_t c[2] = {p->sec[s].offset, p->sec[s].count};
        h = zkp_fnv1a64(h, c, sizeof c);
    }
    return h;
}

void zkp_bp_params_unmap(zkp_bp_params *p) {
    if (!p->lock_init) return;
    pthread_mutex_lock(&p->lock);
    if (p->file.data) {
        zkp_mapped_file_close(&p->file);
        p->data = NULL;
    }
    pthread_mutex_unlock(&p->lock);
}

void zkp_bp_params_drop_section(zkp_bp_params *p, zkp_bp_section s) {
    if ((unsigned)s >= ZKP_BP_SECTION_COUNT || !p->lock_init) return;
    pthread_mutex_lock(&p->lock);
    zkp_free(p->opt.alloc, p->points[s], zkp_bp_params_section_bytes(p, s), ZKP_MEM_KEY);
    p->points[s] = NULL;
    pthread_mutex_unlock(&p->lock);
}

void zkp_bp_params_free(zkp_bp_params *p) {
    if (!p) return;
    if (p->lock_init) {
        for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++)
            zkp_bp_params_drop_section(p, (zkp_bp_section)s);
        pthread_mutex_destroy(&p->lock);
    }
    zkp_bp_vk_free(&p->vk);
    zkp_mapped_file_close(&p->file);
    memset(p, 0, sizeof *p);
}

/* ---- writing parameters */

static size_t bp_count_g1(const bls12_381_g1_affine_t *v, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += !bls12_381_g1_affine_is_infinity(&v[i]);
    return k;
}

static size_t bp_count_g2(const bls12_381_g2_affine_t *v, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += !bls12_381_g2_affine_is_infinity(&v[i]);
    return k;
}

zkpipe_status zkp_bp_params_size(const zkp_bp_params_src *src, size_t *out, zkp_diag *diag) {
    const size_t counts[ZKP_BP_SECTION_COUNT] = {
        src->n_h, src->n_l, bp_count_g1(src->a, src->n_vars), bp_count_g1(src->b_g1, src->n_vars),
        bp_count_g2(src->b_g2, src->n_vars)};
    uint64_t total = zkp_bp_vk_bytes(src->vk->n_ic);
    for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++) {
        if (counts[s] > UINT32_MAX) {
            return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "parameters: section %s: %zu points; bellperson's length is a u32",
                                 zkp_bp_section_name((zkp_bp_section)s), counts[s]);
        }
        /* Each term is below 2^40, so five of them cannot overflow. */
        total += 4 + (uint64_t)counts[s] * (s == ZKP_BP_B_G2 ? ZKP_BP_G2_BYTES : ZKP_BP_G1_BYTES);
    }
    if (total > SIZE_MAX) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "parameters: %" PRIu64 " bytes do not fit in memory", total);
    }
    *out = (size_t)total;
    return ZKPIPE_OK;
}

/* Writes a u32 count and the points of v[0..n): with filter, the points
 * that are not the identity; without, all of them, refusing the identity.
 * *p advances. */
static zkpipe_status bp_put_g1s(uint8_t **p, const bls12_381_g1_affine_t *v, size_t n,
                                int filter, const char *what, zkp_diag *diag) {
    uint8_t *len_at = *p;
    uint8_t *q = *p + 4;
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (bls12_381_g1_affine_is_infinity(&v[i])) {
            if (filter) continue;
            return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "parameters: section %s: point %zu is the identity, which "
                                 "bellperson refuses to read",
                                 what, i);
        }
        bls12_381_g1_affine_serialize(q, &v[i]);
        q += ZKP_BP_G1_BYTES;
        k++;
    }
    bp_put_be32(len_at, k);
    *p = q;
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_encode(uint8_t *out, size_t out_len, const zkp_bp_params_src *src,
                                   zkp_diag *diag) {
    size_t need = 0;
    zkpipe_status st = zkp_bp_params_size(src, &need, diag);
    if (st != ZKPIPE_OK) return st;
    if (out_len != need) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "parameters: %zu bytes given for %zu", out_len, need);
    }
    size_t vk_bytes = (size_t)zkp_bp_vk_bytes(src->vk->n_ic);
    if ((st = zkp_bp_vk_encode(out, vk_bytes, src->vk, diag)) != ZKPIPE_OK) return st;
    uint8_t *p = out + vk_bytes;
    if ((st = bp_put_g1s(&p, src->h, src->n_h, 0, "h", diag)) != ZKPIPE_OK ||
        (st = bp_put_g1s(&p, src->l, src->n_l, 0, "l", diag)) != ZKPIPE_OK ||
        (st = bp_put_g1s(&p, src->a, src->n_vars, 1, "a", diag)) != ZKPIPE_OK ||
        (st = bp_put_g1s(&p, src->b_g1, src->n_vars, 1, "b_g1", diag)) != ZKPIPE_OK)
        return st;
    uint8_t *len_at = p;
    p += 4;
    uint32_t k = 0;
    for (size_t i = 0; i < src->n_vars; i++) {
        if (bls12_381_g2_affine_is_infinity(&src->b_g2[i])) continue;
        bls12_381_g2_affine_serialize(p, &src->b_g2[i]);
        p += ZKP_BP_G2_BYTES;
        k++;
    }
    bp_put_be32(len_at, k);
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_write(const char *path, const zkp_bp_params_src *src,
                                  const zkp_allocator *alloc, zkp_diag *diag) {
    size_t bytes = 0;
    zkpipe_status st = zkp_bp_params_size(src, &bytes, diag);
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(diag, path);
        return st;
    }
    uint8_t *buf = zkp_alloc(alloc, bytes, ZKP_MEM_SCRATCH);
    if (!buf) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes", path,
                             bytes);
    }
    st = zkp_bp_params_encode(buf, bytes, src, diag);
    if (st == ZKPIPE_OK)
        st = zkp_write_file_atomic(path, buf, bytes, diag);
    else
        zkp_diag_prefix(diag, path);
    zkp_free(alloc, buf, bytes, ZKP_MEM_SCRATCH);
    return st;
}

/* ---- the h query in bellperson's basis
 *
 * The zkpipe prover sums h_j·H[j] with h_j = P(g·ω^j), P = A·B − C = h·Z,
 * and Σ_j h_j·H[j] = P(τ)/δ. Writing h = Σ_i c_i X^i (degree <= n − 2),
 * h_j = Z(g·ω^j)·Σ_i c_i (g·ω^j)^i = Z·Σ_i c_i g^i ω^(ij), since
 * Z(g·ω^j) = g^n − 1 for every j. So Σ_j h_j·H[j] = Σ_i c_i·(Z·g^i·Σ_j
 * ω^(ij)·H[j]), and the bracket is bellperson's τ^i·Z(τ)/δ. */

typedef struct {
    bls12_381_g1_jacobian_t *v;
    const bls12_381_fr_t *tw; /* ω^k in canonical form (not Montgomery), k < n/2 */
    size_t n, half, stride;  /* this stage: butterflies of span 2·half, twiddle ω^(k·stride) */
} bp_dft_stage;

#define BP_DFT_UNIT 16

static void bp_dft_unit(void *ctx, unsigned tid, size_t unit) {
    (void)tid;
    const bp_dft_stage *st = ctx;
    size_t lo = unit * BP_DFT_UNIT, hi = lo + BP_DFT_UNIT;
    if (hi > st->n / 2) hi = st->n / 2;
    for (size_t b = lo; b < hi; b++) {
        size_t k = b % st->half, base = (b / st->half) * 2 * st->half;
        bls12_381_g1_jacobian_t *u = &st->v[base + k], *w = &st->v[base + k + st->half], t;
        bls12_381_g1_mul_var(&t, w, st->tw[k * st->stride].l, 256);
        bls12_381_g1_sub(w, u, &t);
        bls12_381_g1_add(u, u, &t);
    }
}

typedef struct {
    bls12_381_g1_jacobian_t *v;
    const bls12_381_fr_t *g;
    bls12_381_fr_t z;
    size_t n;
} bp_scale_job;

/* v[i] *= Z·g^i, a unit of BP_DFT_UNIT points each. */
static void bp_scale_unit(void *ctx, unsigned tid, size_t unit) {
    (void)tid;
    const bp_scale_job *job = ctx;
    size_t lo = unit * BP_DFT_UNIT, hi = lo + BP_DFT_UNIT;
    if (hi > job->n) hi = job->n;
    bls12_381_fr_t f;
    uint64_t e[1] = {lo};
    bls12_381_fr_pow(&f, job->g, e, 1);
    bls12_381_fr_mul(&f, &f, &job->z);
    for (size_t i = lo; i < hi; i++) {
        bls12_381_fr_t k;
        bls12_381_fr_from_mont(&k, &f);
        bls12_381_g1_mul_var(&job->v[i], &job->v[i], k.l, 256);
        bls12_381_fr_mul(&f, &f, job->g);
    }
}

zkpipe_status zkp_bp_h_from_g16_pk(bls12_381_g1_affine_t *out, const bls12_381_g16_pk_t *pk,
                                   unsigned nthreads, const zkp_allocator *alloc,
                                   zkp_diag *diag) {
    const size_t n = pk->domain_size;
    const unsigned log_n = pk->log_domain;
    if (n < 2 || n != (size_t)1 << log_n || log_n >= BLS12_381_FR_TWO_ADICITY) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "h query: a domain of %zu points is not supported", n);
    }
    if (nthreads == 0) nthreads = bp_online_cpus();
    bls12_381_fr_t five, omega, g, z, one;
    bls12_381_fr_set_u64(&five, 5);
    zkpipe_status st = bls12_381_fr_ntt_root_from_generator(&omega, &five, log_n);
    if (st == ZKPIPE_OK) st = bls12_381_fr_ntt_root_from_generator(&g, &five, log_n + 1);
    if (st != ZKPIPE_OK)
        return zkp_diag_fail(diag, st, "h query: no root of unity of order %zu", n);
    uint64_t n_limb[1] = {n};
    bls12_381_fr_pow(&z, &g, n_limb, 1);
    bls12_381_fr_set_one(&one);
    bls12_381_fr_sub(&z, &z, &one);

    size_t vbytes = n * sizeof(bls12_381_g1_jacobian_t), tbytes = n / 2 * sizeof(bls12_381_fr_t);
    bls12_381_g1_jacobian_t *v = zkp_alloc(alloc, vbytes, ZKP_MEM_SCRATCH);
    bls12_381_fr_t *tw = zkp_alloc(alloc, tbytes, ZKP_MEM_SCRATCH);
    if (!v || !tw) {
        zkp_free(alloc, v, vbytes, ZKP_MEM_SCRATCH);
        zkp_free(alloc, tw, tbytes, ZKP_MEM_SCRATCH);
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY, "h query: cannot allocate %zu bytes",
                             vbytes + tbytes);
    }
    bls12_381_fr_t w = one;
    for (size_t k = 0; k < n / 2; k++) {
        bls12_381_fr_from_mont(&tw[k], &w);
        bls12_381_fr_mul(&w, &w, &omega);
    }
    /* Decimation in time: the input in bit-reversed order, then log n
     * stages of butterflies, each a parallel loop over n/2 of them. */
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
        bls12_381_g1_from_affine(&v[r], &pk->h[i]);
    }
    for (size_t half = 1; half < n; half *= 2) {
        bp_dft_stage stage = {v, tw, n, half, n / (2 * half)};
        zkp_parallel_for(nthreads, (n / 2 + BP_DFT_UNIT - 1) / BP_DFT_UNIT, bp_dft_unit, &stage);
    }
    bp_scale_job job = {v, &g, z, n - 1};
    zkp_parallel_for(nthreads, (n - 1 + BP_DFT_UNIT - 1) / BP_DFT_UNIT, bp_scale_unit, &job);
    bls12_381_g1_batch_to_affine_var(out, v, n - 1);
    zkp_free(alloc, v, vbytes, ZKP_MEM_SCRATCH);
    zkp_free(alloc, tw, tbytes, ZKP_MEM_SCRATCH);
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_params_src_from_g16_pk(zkp_bp_params_src *src, zkp_bp_vk *vk,
                                            bls12_381_g1_affine_t *h, const bls12_381_g16_pk_t *pk,
                                            unsigned nthreads, const zkp_allocator *alloc,
                                            zkp_diag *diag) {
    memset(src, 0, sizeof *src);
    if (pk->a_cols || pk->b_cols)
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "the key keeps only its used columns of A and B; the .params "
                             "writer takes one point per variable");
    zkpipe_status st = zkp_bp_h_from_g16_pk(h, pk, nthreads, alloc, diag);
    if (st != ZKPIPE_OK) return st;
    zkp_bp_vk_from_g16_pk(vk, pk);
    src->vk = vk;
    src->h = h;
    src->n_h = pk->domain_size - 1;
    src->l = pk->c;
    src->n_l = pk->n_vars - pk->n_public - 1;
    src->a = pk->a;
    src->b_g1 = pk->b1;
    src->b_g2 = pk->b2;
    src->n_vars = pk->n_vars;
    return ZKPIPE_OK;
}

/* ---- proofs */

zkpipe_status zkp_bp_proof_decode(bls12_381_g16_proof_t *proof,
                                  const uint8_t in[ZKP_BP_PROOF_BYTES], zkp_diag *diag) {
    bls12_381_g16_proof_t t;
    const uint8_t *at_b = in + ZKP_BP_G1_COMPRESSED_BYTES;
    const uint8_t *at_c = at_b + ZKP_BP_G2_COMPRESSED_BYTES;
    const char *what = "A";
    const uint8_t *at = in;
    zkpipe_status st = bls12_381_g1_affine_uncompress(&t.a, in);
    int inf = st == ZKPIPE_OK && bls12_381_g1_affine_is_infinity(&t.a);
    if (st == ZKPIPE_OK && !inf) {
        what = "B", at = at_b;
        st = bls12_381_g2_affine_uncompress(&t.b, at_b);
        inf = st == ZKPIPE_OK && bls12_381_g2_affine_is_infinity(&t.b);
    }
    if (st == ZKPIPE_OK && !inf) {
        what = "C", at = at_c;
        st = bls12_381_g1_affine_uncompress(&t.c, at_c);
        inf = st == ZKPIPE_OK && bls12_381_g1_affine_is_infinity(&t.c);
    }
    if (inf) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_BAD_ENCODING,
                             "proof: %s (byte %zu) is the point at infinity, which a proof never "
                             "holds",
                             what, (size_t)(at - in));
    }
    if (st != ZKPIPE_OK) {
        return zkp_diag_fail(diag, st, "proof: %s (byte %zu): %s", what, (size_t)(at - in),
                             zkpipe_strerror(st));
    }
    *proof = t;
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_proof_encode(uint8_t out[ZKP_BP_PROOF_BYTES],
                                  const bls12_381_g16_proof_t *proof, zkp_diag *diag) {
    if (bls12_381_g1_affine_is_infinity(&proof->a) || bls12_381_g2_affine_is_infinity(&proof->b) ||
        bls12_381_g1_affine_is_infinity(&proof->c)) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "proof: a point is the identity, which bellperson refuses to read");
    }
    bls12_381_g1_affine_compress(out, &proof->a);
    bls12_381_g2_affine_compress(out + ZKP_BP_G1_COMPRESSED_BYTES, &proof->b);
    bls12_381_g1_affine_compress(out + ZKP_BP_G1_COMPRESSED_BYTES + ZKP_BP_G2_COMPRESSED_BYTES,
                                 &proof->c);
    return ZKPIPE_OK;
}

zkpipe_status zkp_bp_proofs_decode(bls12_381_g16_proof_t *proofs, size_t n_max, size_t *n,
                                   const uint8_t *in, size_t len, zkp_diag *diag) {
    *n = 0;
    if (len == 0 || len % ZKP_BP_PROOF_BYTES != 0) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_BAD_ENCODING,
                             "proof: %zu bytes; a proof is %d bytes per partition", len,
                             ZKP_BP_PROOF_BYTES);
    }
    size_t count = len / ZKP_BP_PROOF_BYTES;
    if (count > n_max) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_OUT_OF_RANGE,
                             "proof: %zu partitions, room for %zu", count, n_max);
    }
    for (size_t i = 0; i < count; i++) {
        zkpipe_status st = zkp_bp_proof_decode(&proofs[i], in + i * ZKP_BP_PROOF_BYTES, diag);
        if (st != ZKPIPE_OK) {
            char prefix[64]; /* two 20-digit numbers fit */
            snprintf(prefix, sizeof prefix, "partition %zu of %zu", i, count);
            zkp_diag_prefix(diag, prefix);
            return st;
        }
    }
    *n = count;
    return ZKPIPE_OK;
}
