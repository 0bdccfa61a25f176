/* The key manager: keys load on demand, are charged to the budget, and are
 * evicted least recently used first when admission needs room.
 *
 * A hot key holds one reservation of the budget covering:
 *   - a zkey's mapped file (charged to the tracker under "key_file" by
 *     hand, a window at a time as it is read in: the mapping does not come
 *     from the pool), kept as unallocated remainder of the reservation, so
 *     the budget counts it; a PoRep key's file only while it loads, a
 *     section at a time, charged to the reservation itself (porep_pages_);
 *   - the copies the zkey loader makes (coefficients, unaligned point
 *     sections), allocated from the reservation under "key";
 *   - the compiled circuit (CSR), allocated from the reservation under "csr".
 * The loader reserves a conservative estimate first (the coefficients grow
 * from 44 to 48 bytes each in memory and the CSR holds them once more, so
 * four times the file is more than enough), then gives back what the key
 * did not use.
 *
 * Tiers: cold (registered, never loaded), warm (loaded before and evicted:
 * the file's pages are likely still in the page cache), loading, hot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "ntt/bls12_381_ntt.h"
#include "ntt/bn254_ntt.h"

#define PAGE ((uint64_t)4096)

static uint64_t charge_(uint64_t bytes) {
    size_t c;
    if (bytes == 0 || zkp_mem_charge_size((size_t)bytes, &c) != ZKPIPE_OK) return bytes;
    return c;
}

/* The working set of one partition, from the key's dimensions and the
 * prover's own size functions, as the sum of the charges its buffers will
 * make (see workers.c for when each is live):
 *   synthesis:     witness + abc
 *   prove_start:   witness + abc + NTT tables + MSM scratch (the peak)
 *   finalize:      witness + MSM scratch
 * The reservation is witness + abc + ntt + scratch; after prove_start
 * everything but witness + scratch goes back. On the CPU both halves take
 * scratch of one size (G_g16_msm_scratch_bytes), so the pool hands
 * finalize the region prove_start gave back. On GPUs the NTTs and the G1
 * MSMs take device memory only: no tables, and scratch for a B2 MSM left
 * to the CPU alone (G_g16_b2_scratch_bytes), which at 32 GiB is 2 GB
 * where the CPU's is 12. */
static void part_estimate_(eng_key *k, unsigned threads, int gpu) {
    size_t n = k->domain, nv = k->n_vars;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n) log_n++;
    size_t ntt = 0, scratch = 0;
    switch (k->curve) {
    case ZKPIPE_CURVE_BN254:
        ntt = gpu ? 0 : bn254_fr_ntt_domain_bytes(log_n);
        scratch = gpu ? bn254_g16_b2_scratch_bytes(&k->pk.u.bn254, threads)
                      : bn254_g16_msm_scratch_bytes(&k->pk.u.bn254, threads);
        break;
    case ZKPIPE_CURVE_BLS12_381:
        ntt = gpu ? 0 : bls12_381_fr_ntt_domain_bytes(log_n);
        scratch = gpu ? bls12_381_g16_b2_scratch_bytes(&k->pk.u.bls12_381, threads)
                      : bls12_381_g16_msm_scratch_bytes(&k->pk.u.bls12_381, threads);
        break;
    }
    k->c_witness = charge_((uint64_t)nv * 32);
    k->c_abc = charge_((uint64_t)3 * n * 32);
    k->c_ntt = charge_(ntt);
    k->c_scratch = charge_(scratch);
    k->part_bytes = k->c_witness + k->c_abc + k->c_ntt + k->c_scratch;
    k->part_after_start = k->c_witness + k->c_scratch;
}

/* Takes a hot key's data out (lock held) so it can be freed outside it. */
typedef struct {
    zkp_zkey zkey;
    zkp_fil_c2_key c2;
    zkp_circuit circuit;
    int circuit_built;
    zkp_mem_reservation *res;
    uint64_t map_charge;
    zkp_g16_rkey *rkeys[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
} key_data_;

static void key_take_locked_(eng_key *k, key_data_ *d) {
    d->zkey = k->zkey;
    d->c2 = k->c2;
    d->circuit = k->circuit;
    d->circuit_built = k->circuit_built;
    d->res = k->res;
    d->map_charge = k->map_charge;
    memcpy(d->rkeys, k->rkeys, sizeof d->rkeys);
    memset(k->rkeys, 0, sizeof k->rkeys);
    memset(&k->zkey, 0, sizeof k->zkey);
    memset(&k->c2, 0, sizeof k->c2);
    memset(&k->circuit, 0, sizeof k->circuit);
    k->circuit_built = 0;
    k->res = NULL;
    k->map_charge = 0;
    k->resident_bytes = 0;
    k->host_dropped = 0;
    k->abc_on_device = 0;
}

static void key_data_free_(zkpipe_engine *e, key_data_ *d) {
    /* The ready keys first: they borrow the key's points. Their device
     * memory goes back to the driver, which is safe beside other work on
     * the same GPU, and so do the working buffers the GPU kept cached
     * after its partitions: another key's are of other sizes. */
    for (int i = 0; i < ZKPIPE_ENGINE_STATUS_MAX_DEVICES; i++) {
        if (!d->rkeys[i]) continue;
        zkp_g16_rkey_free(d->rkeys[i]);
        zkp_gpu *g = zkp_g16_backend_gpu(e->backends[i]);
        if (g) (void)zkp_gpu_release_cached(g);
    }
    if (d->circuit_built) zkp_circuit_free(&d->circuit);
    zkp_zkey_free(&d->zkey);
    zkp_fil_c2_key_free(&d->c2);
    if (d->map_charge)
        ENG_IGNORE(zkp_mem_tracker_discharge(e->tracker, ZKP_MEM_KEY_FILE, d->map_charge));
    if (d->res && zkp_mem_release(&d->res) != ZKPIPE_OK) {
        /* Something allocated from the key's reservation is still live: a
         * bug. Leaking the budget is the safe side. */
    }
    memset(d, 0, sizeof *d);
}

/* Reads the mapped key file in a window at a time, charging each
 * window to the tracker just before its pages become resident. The parser
 * then walks memory that is already counted. A window is a thirty-second of
 * what is charged so far (at least 256 KiB, at most 64 MiB), so the bytes
 * charged ahead of RSS stay a few percent of it from the first window of a
 * small process to the last of a key of tens of gigabytes. *charged is what
 * was charged (page-rounded; 0 if the tracker refused, which it does not for
 * this category). */
#define KEY_MAP_WINDOW_MIN ((uint64_t)256 << 10)
#define KEY_MAP_WINDOW_MAX ((uint64_t)64 << 20)

/* The next window: a thirty-second of basis, clamped to the bounds above,
 * whole pages, no more than left. */
static uint64_t key_map_window_(uint64_t basis, uint64_t left) {
    uint64_t w = basis / 32;
    if (w < KEY_MAP_WINDOW_MIN) w = KEY_MAP_WINDOW_MIN;
    if (w > KEY_MAP_WINDOW_MAX) w = KEY_MAP_WINDOW_MAX;
    w = (w + PAGE - 1) / PAGE * PAGE;
    return w < left ? w : left;
}

static void key_map_charged_(zkpipe_engine *e, zkp_mapped_file *mf, uint64_t *charged) {
    *charged = 0;
    uint64_t off = 0, len = (uint64_t)mf->map_len;
    while (off < len) {
        uint64_t w = key_map_window_(*charged, len - off);
        uint64_t c = (w + PAGE - 1) / PAGE * PAGE;
        if (zkp_mem_tracker_charge(e->tracker, ZKP_MEM_KEY_FILE, c) == ZKPIPE_OK) *charged += c;
        zkp_mapped_file_populate(mf, (size_t)off, (size_t)w);
        off += w;
    }
}

zkpipe_status eng_key_file_identity(const char *path, eng_key_kind kind, zkp_file_stamp *stamp,
                                    uint64_t *digest, zkp_diag *diag) {
    if (kind == ENG_KEY_POREP) {
        zkp_bp_params bp;
        zkp_bp_params_options o = {.curve_only = 1};
        zkpipe_status st = zkp_bp_params_load(&bp, path, &o, diag);
        if (st != ZKPIPE_OK) return st;
        *stamp = bp.file.stamp;
        *digest = zkp_bp_params_header_digest(&bp);
        zkp_bp_params_free(&bp);
        return ZKPIPE_OK;
    }
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, diag);
    if (st != ZKPIPE_OK) return st;
    *stamp = mf.stamp;
    st = zkp_zkey_header_digest(mf.data, mf.size, path, digest, diag);
    zkp_mapped_file_close(&mf);
    return st;
}

/* ZKPIPE_ERR_FILE_CHANGED, saying how the file now differs from the one
 * bound (why, when not NULL, says it instead). */
static zkpipe_status file_changed_(zkp_diag *diag, const char *path, const zkp_file_stamp *was,
                                   const zkp_file_stamp *now, const char *why) {
    char buf[160];
    if (why)
        snprintf(buf, sizeof buf, "%s", why);
    else if (was->dev != now->dev || was->ino != now->ino)
        snprintf(buf, sizeof buf, "another file is at the path now (inode %llu, was %llu)",
                 (unsigned long long)now->ino, (unsigned long long)was->ino);
    else if (was->size != now->size)
        snprintf(buf, sizeof buf, "its size is %llu bytes, was %llu",
                 (unsigned long long)now->size, (unsigned long long)was->size);
    else
        snprintf(buf, sizeof buf, "it was modified (mtime changed)");
    return zkp_diag_fail(diag, ZKPIPE_ERR_FILE_CHANGED,
                         "%s changed since the key was registered: %s; register it again", path,
                         buf);
}

zkpipe_status eng_key_file_check(zkpipe_engine *e, eng_key *k, zkp_diag *diag) {
    pthread_mutex_lock(&e->lk);
    zkp_file_stamp was = k->stamp;
    pthread_mutex_unlock(&e->lk);
    zkp_file_stamp now;
    zkpipe_status st = zkp_file_stamp_of(k->path, &now, diag);
    if (st != ZKPIPE_OK) return st;
    if (zkp_file_stamp_same(&was, &now)) return ZKPIPE_OK;
    return file_changed_(diag, k->path, &was, &now, NULL);
}

/* Makes the loaded key d hot (its pk, vk and dimensions already in k's
 * fields' sources), with its circuit compiled; lock NOT held. */
static void key_publish_(zkpipe_engine *e, eng_key *k, key_data_ *d, uint64_t keep) {
    pthread_mutex_lock(&e->lk);
    k->zkey = d->zkey;
    k->c2 = d->c2;
    k->circuit = d->circuit;
    k->circuit_built = 1;
    k->res = d->res;
    k->map_charge = d->map_charge;
    k->resident_bytes = keep;
    if (k->kind == ENG_KEY_POREP) {
        k->curve = ZKPIPE_CURVE_BLS12_381;
        k->pk.curve = ZKPIPE_CURVE_BLS12_381;
        k->pk.u.bls12_381 = k->c2.key.pk;
        zkp_bp_vk_to_g16(&k->vk, &k->c2.params.vk);
        k->n_vars = k->c2.key.pk.n_vars;
        k->n_public = k->c2.key.pk.n_public;
    } else {
        k->curve = k->zkey.curve;
        zkp_zkey_pk(&k->zkey, &k->pk);
        zkp_zkey_vk(&k->zkey, &k->vk);
        k->n_vars = zkp_zkey_n_vars(&k->zkey);
        k->n_public = zkp_zkey_n_public(&k->zkey);
    }
    k->domain = k->pk.curve == ZKPIPE_CURVE_BN254 ? k->pk.u.bn254.domain_size
                                                   : k->pk.u.bls12_381.domain_size;
    part_estimate_(k, e->device_threads, zkp_g16_backend_is_gpu(e->backends[0]));
    /* Whatever this engine proves on: the figure travels with the key's
     * jobs to a cluster's GPU members. */
    k->dev_part_bytes = zkp_g16_device_work_bytes(&k->pk);
    k->tier = ZKPIPE_KEY_HOT;
    k->loads++;
    k->last_use = ++e->lru_clock;
    pthread_cond_broadcast(&e->key_cv);
    pthread_mutex_unlock(&e->lk);
}

/* Gives back what of a key's reservation is neither allocated nor its
 * file's mapping; returns what stays reserved. */
static uint64_t key_trim_reservation_(zkp_mem_reservation *res, uint64_t map_charge) {
    zkp_mem_reservation_info ri;
    (void)zkp_mem_reservation_info_get(res, &ri);
    uint64_t keep = ri.allocated_bytes + map_charge;
    if (ri.reserved_bytes > keep) ENG_IGNORE(zkp_mem_release_part(res, ri.reserved_bytes - keep));
    return keep;
}

/* Compiles the circuit of pk into d from its reservation (a refusal says
 * what the key needed against what was reserved), and gives back what the
 * key did not use; *keep gets what stays reserved. */
static zkpipe_status key_compile_(eng_key *k, key_data_ *d, const zkp_g16_pk *pk,
                                  const zkp_allocator *al, uint64_t *keep, zkp_diag *diag) {
    /* The circuit's size is known only once its distinct values are
     * counted, a pass over every coefficient (seconds at 32 GiB), so the
     * build is tried first and a refusal explained after. */
    zkpipe_status st = zkp_circuit_build(&d->circuit, pk, al, diag);
    if (st == ZKPIPE_ERR_NO_MEMORY) {
        zkp_mem_reservation_info ri;
        (void)zkp_mem_reservation_info_get(d->res, &ri);
        uint64_t csr = charge_(zkp_circuit_bytes(pk));
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "%s: the key needs %llu bytes (file %llu, copies %llu, circuit %llu); "
                             "only %llu could be reserved",
                             k->path,
                             (unsigned long long)(ri.allocated_bytes + d->map_charge + csr),
                             (unsigned long long)d->map_charge,
                             (unsigned long long)ri.allocated_bytes, (unsigned long long)csr,
                             (unsigned long long)ri.reserved_bytes);
    }
    if (st != ZKPIPE_OK) return st;
    d->circuit_built = 1;
    /* A PoRep key's coefficients are its own copy, and synthesis reads the
     * compiled circuit: they go (21 GB at 32 GiB). A zkey's stay, as its
     * file's mapping holds most of them. */
    if (k->kind == ENG_KEY_POREP) zkp_bp_key_drop_coefs(&d->c2.key);
    *keep = key_trim_reservation_(d->res, d->map_charge);
    return ZKPIPE_OK;
}

/* The pages of a PoRep parameter file, paid for by the key's reservation
 * one section at a time (formats/bellperson.h: zkp_bp_file_pages).
 *
 * Why sections, and why through the reservation: the file is as big as the
 * decoded sections (1.1 GB at 2 KiB, 47 GB at 32 GiB), and charging all of
 * it to key_file before the first page was read, beside the decoded
 * sections charged to the reservation, counted the file twice over: 3,623
 * MiB tracked against a 3,200 MiB budget at 2 KiB, while RSS stayed far
 * below. Now a section's span is charged to the reservation (under
 * key_file) a window at a time just before the window is read in, decoded,
 * dropped from the resident set (MADV_DONTNEED; the page cache keeps it)
 * and discharged. So tracked bytes follow what is resident, at most one
 * section of the file is, and the reservation, which never over-commits,
 * holds the file's pages and the decoded points together: tracked bytes
 * cannot pass the budget. Reading with pread into budgeted buffers would
 * do the same with a copy; the mapping needs none. */
typedef struct {
    zkp_mem_reservation *res;
    uint64_t charged;
} porep_pages_;

static zkpipe_status porep_pages_charge_(void *ctx, const zkp_mapped_file *mf, size_t off,
                                         size_t len) {
    porep_pages_ *pp = ctx;
    uint64_t done = 0;
    while (done < len) {
        uint64_t w = key_map_window_(len, len - done);
        zkpipe_status st = zkp_mem_charge_external(pp->res, w, ZKP_MEM_KEY_FILE);
        if (st != ZKPIPE_OK) return ZKPIPE_ERR_NO_MEMORY;
        pp->charged += w;
        zkp_mapped_file_populate(mf, off + (size_t)done, (size_t)w);
        done += w;
    }
    return ZKPIPE_OK;
}

/* A piece of the span is gone: what was charged for it goes too (after a
 * charge that failed part way, less was charged than the span holds). */
static void porep_pages_discharge_(void *ctx, size_t off, size_t len) {
    (void)off;
    porep_pages_ *pp = ctx;
    uint64_t n = len < pp->charged ? len : pp->charged;
    ENG_IGNORE(zkp_mem_discharge_external(pp->res, n, ZKP_MEM_KEY_FILE));
    pp->charged -= n;
}

/* A PoRep key (filecoin/c2.h) into d. The file is opened and checked to be
 * the one registered (the stamp of the descriptor that mapped it, then the
 * header digest) before anything is counted or decoded; then made, its
 * pages paid for a section at a time as above; the blank circuit's
 * matrices, the decoded sections, the key and its circuit come from the
 * reservation. */
static zkpipe_status porep_load_(zkpipe_engine *e, eng_key *k, key_data_ *d,
                                 const zkp_allocator *al, uint64_t *keep, zkp_diag *diag) {
    pthread_mutex_lock(&e->lk);
    zkp_file_stamp want = k->stamp;
    uint64_t want_digest = k->header_digest;
    pthread_mutex_unlock(&e->lk);
    porep_pages_ pp = {d->res, 0};
    const zkp_bp_file_pages pages = {porep_pages_charge_, porep_pages_discharge_, &pp};
    zkp_fil_c2_options o = {.nthreads = e->device_threads,
                            .alloc = al,
                            .check_subgroups = k->check_subgroups,
                            .pages = &pages};
    zkpipe_status st = zkp_fil_c2_key_open(&d->c2, k->seal, k->path, &o, diag);
    if (st != ZKPIPE_OK) {
        /* A file that no longer parses may simply be another file now. */
        zkp_file_stamp now;
        if (zkp_file_stamp_of(k->path, &now, NULL) == ZKPIPE_OK &&
            !zkp_file_stamp_same(&now, &want))
            return file_changed_(diag, k->path, &want, &now, NULL);
        return st;
    }
    if (!zkp_file_stamp_same(&d->c2.params.file.stamp, &want))
        return file_changed_(diag, k->path, &want, &d->c2.params.file.stamp, NULL);
    if (zkp_bp_params_header_digest(&d->c2.params) != want_digest)
        return file_changed_(diag, k->path, &want, &d->c2.params.file.stamp,
                             "its verifying key or section lengths differ");
    /* The header's pages, read by the checks above, leave too: from here on
     * only charged pages of the file are resident. */
    zkp_bp_params_drop_pages(&d->c2.params);
    if ((st = zkp_fil_c2_key_make(&d->c2, &o, diag)) != ZKPIPE_OK) return st;
    zkp_bp_params_unmap(&d->c2.params);
    d->c2.params.opt.pages = NULL; /* it points at this frame */
    zkp_g16_pk pk = {.curve = ZKPIPE_CURVE_BLS12_381};
    pk.u.bls12_381 = d->c2.key.pk;
    return key_compile_(k, d, &pk, al, keep, diag);
}

static int hopeless_locked_(zkpipe_engine *e, const eng_key *except);

static zkpipe_status key_load_(zkpipe_engine *e, eng_key *k, zkpipe_priority prio,
                               int interruptible, zkp_diag *diag) {
    zkp_mem_budget_stats bs;
    (void)zkp_mem_budget_stats_get(e->budget, &bs);
    uint64_t est = 4 * k->file_bytes + ((uint64_t)2 << 20);
    if (est > bs.total_bytes) est = bs.total_bytes;
    /* The estimate is an upper bound. While nothing runs and no other key
     * is loaded, what others hold of the budget (the requests of queued
     * jobs, among them the C1 of the job that needs this key) cannot come
     * back, so the load takes what is free instead of waiting for ever;
     * if the key does not fit in that, its load says what it needed. */
    pthread_mutex_lock(&e->lk);
    int hopeless = hopeless_locked_(e, k);
    pthread_mutex_unlock(&e->lk);
    uint64_t free_now = bs.total_bytes > bs.reserved_bytes ? bs.total_bytes - bs.reserved_bytes : 0;
    if (hopeless && free_now > 0 && est > free_now) est = free_now;
    key_data_ d;
    memset(&d, 0, sizeof d);
    zkpipe_status st = eng_reserve(e, est, prio, k, interruptible, &d.res, diag);
    if (st != ZKPIPE_OK) {
        if (st == ZKPIPE_ERR_NO_MEMORY) zkp_diag_prefix(diag, "loading the key");
        return st;
    }
    const zkp_allocator *al;
    (void)zkp_mem_reservation_allocator(d.res, &al);
    uint64_t keep = 0;
    if (k->kind == ENG_KEY_POREP) {
        if ((st = porep_load_(e, k, &d, al, &keep, diag)) != ZKPIPE_OK) goto fail;
        key_publish_(e, k, &d, keep);
        return ZKPIPE_OK;
    }
    zkp_zkey_options o = {.alloc = al, .nthreads = e->device_threads, .check_subgroup = 0};
    /* The file mapped must be the one the key is bound to: the stamp of
     * the descriptor that mapped it and its header sections, checked
     * before the rest of it is read. */
    zkp_mapped_file mf;
    if ((st = zkp_mapped_file_open(&mf, k->path, diag)) != ZKPIPE_OK) goto fail;
    pthread_mutex_lock(&e->lk);
    zkp_file_stamp want = k->stamp;
    uint64_t want_digest = k->header_digest;
    pthread_mutex_unlock(&e->lk);
    uint64_t digest = 0;
    if (!zkp_file_stamp_same(&mf.stamp, &want)) {
        st = file_changed_(diag, k->path, &want, &mf.stamp, NULL);
    } else if ((st = zkp_zkey_header_digest(mf.data, mf.size, k->path, &digest, diag)) ==
                   ZKPIPE_OK &&
               digest != want_digest) {
        st = file_changed_(diag, k->path, &want, &mf.stamp, "its header sections differ");
    }
    if (st == ZKPIPE_OK) {
        key_map_charged_(e, &mf, &d.map_charge);
        st = zkp_zkey_parse(&d.zkey, mf.data, mf.size, k->path, &o, diag);
    }
    if (st != ZKPIPE_OK) {
        zkp_mapped_file_close(&mf);
        goto fail;
    }
    d.zkey.file = mf; /* the key now owns the mapping; zkp_zkey_free unmaps it */
    zkp_g16_pk pk;
    zkp_zkey_pk(&d.zkey, &pk);
    if ((st = key_compile_(k, &d, &pk, al, &keep, diag)) != ZKPIPE_OK) goto fail;
    key_publish_(e, k, &d, keep);
    return ZKPIPE_OK;
fail:
    key_data_free_(e, &d);
    return st;
}

zkpipe_status eng_key_ensure_hot(zkpipe_engine *e, eng_key *k, zkpipe_priority prio,
                                 zkp_diag *diag) {
    return eng_key_ensure_hot_ex(e, k, prio, 0, diag);
}

zkpipe_status eng_key_ensure_hot_ex(zkpipe_engine *e, eng_key *k, zkpipe_priority prio,
                                    int interruptible, zkp_diag *diag) {
    pthread_mutex_lock(&e->lk);
    for (;;) {
        if (k->tier == ZKPIPE_KEY_HOT) {
            pthread_mutex_unlock(&e->lk);
            return ZKPIPE_OK;
        }
        if (e->stop) {
            pthread_mutex_unlock(&e->lk);
            return zkp_diag_fail(diag, ZKPIPE_ERR_CANCELLED, "the engine is shutting down");
        }
        if (k->tier != ZKPIPE_KEY_LOADING) break;
        pthread_cond_wait(&e->key_cv, &e->lk);
    }
    zkpipe_key_tier before = k->tier;
    k->tier = ZKPIPE_KEY_LOADING;
    pthread_mutex_unlock(&e->lk);
    zkpipe_status st = key_load_(e, k, prio, interruptible, diag);
    if (st != ZKPIPE_OK) {
        pthread_mutex_lock(&e->lk);
        k->tier = before;
        pthread_cond_broadcast(&e->key_cv);
        pthread_mutex_unlock(&e->lk);
    }
    return st;
}

static int key_idle_locked_(const eng_key *k) {
    return k->tier == ZKPIPE_KEY_HOT && k->running == 0 && k->pinned == 0;
}

static void key_evict_locked_(zkpipe_engine *e, eng_key *k, key_data_ *d) {
    key_take_locked_(k, d);
    memset(&k->pk, 0, sizeof k->pk);
    memset(&k->vk, 0, sizeof k->vk);
    k->tier = ZKPIPE_KEY_WARM;
    k->evictions++;
    pthread_cond_broadcast(&e->key_cv);
}

int eng_key_evict_lru(zkpipe_engine *e, const eng_key *except) {
    key_data_ d;
    memset(&d, 0, sizeof d);
    pthread_mutex_lock(&e->lk);
    eng_key *victim = NULL;
    for (size_t i = 0; i < e->n_keys; i++) {
        eng_key *k = e->keys[i];
        if (k == except || !key_idle_locked_(k)) continue;
        if (!victim || k->last_use < victim->last_use) victim = k;
    }
    if (victim) key_evict_locked_(e, victim, &d);
    pthread_mutex_unlock(&e->lk);
    if (!victim) return 0;
    key_data_free_(e, &d);
    return 1;
}

/* A key whose host copy of some sets is gone cannot make its device copy
 * again: it goes whole, if idle, and loads again from its file when next
 * needed; a running one keeps its copy. */
size_t eng_key_drop_device_copies(zkpipe_engine *e, unsigned dev, const eng_key *except) {
    size_t n = 0, n_evicted = 0;
    pthread_mutex_lock(&e->lk);
    size_t cap = e->n_keys ? e->n_keys : 1;
    zkp_g16_rkey **drop = calloc(cap, sizeof *drop);
    key_data_ *evicted = calloc(cap, sizeof *evicted);
    for (size_t i = 0; drop && evicted && i < e->n_keys; i++) {
        eng_key *k = e->keys[i];
        if (k == except || !k->rkeys[dev]) continue;
        if (k->host_dropped) {
            if (key_idle_locked_(k)) key_evict_locked_(e, k, &evicted[n_evicted++]);
            continue;
        }
        drop[n++] = k->rkeys[dev];
        k->rkeys[dev] = NULL;
    }
    pthread_mutex_unlock(&e->lk);
    for (size_t i = 0; i < n; i++) zkp_g16_rkey_free(drop[i]);
    for (size_t i = 0; i < n_evicted; i++) key_data_free_(e, &evicted[i]);
    free(drop);
    free(evicted);
    return n + n_evicted;
}

/* What a key needs in host memory once every GPU has made it ready.
 *
 * The B2 MSM: when every GPU runs it, prove_finalize takes no scratch, so
 * a partition's reservation leaves the estimate's scratch out (1.5 GiB a
 * PoRep partition at 32 GiB). Partitions admitted before keep what they
 * reserved; what they give back after prove_start is the same either way.
 *
 * a, b and c: when every GPU holds the compiled circuit (workers.c puts it
 * beside the bases unless engine.abc_on_host), they are made there from
 * the witness, and a partition's reservation leaves them out (12 GiB of a
 * 32 GiB PoRep partition's 16); synthesis makes the witness alone.
 *
 * The points, of a PoRep key: the GPUs hold them resident, where the MSMs
 * read them, and the host copy served only to upload them. At 32 GiB they
 * are 47 GB of the key's 68, room for three more partitions in a 110 GiB
 * budget. The file cannot be decoded again in part (the key unmapped it),
 * so a key that must be made ready again is loaded again whole
 * (eng_key_drop_device_copies). A set still read from the host (streamed,
 * or B2 on the CPU, also for a partition that began where the GPU held no
 * B2 copy and has yet to finalize) stays, and so does every set while a
 * device has yet to make the key ready. A zkey's points lie mostly in its
 * file's mapping and are small: they stay. */
void eng_key_settle_on_devices(zkpipe_engine *e, eng_key *k) {
    pthread_mutex_lock(&e->lk);
    eng_key_settle_on_devices_locked(e, k);
    pthread_mutex_unlock(&e->lk);
}

void eng_key_settle_on_devices_locked(zkpipe_engine *e, eng_key *k) {
    unsigned needed = k->b2_host_readers ? ZKP_G16_SETS_B2 : 0;
    int circuits = 1; /* every device makes a, b and c */
    for (unsigned d = 0; d < e->cfg.devices; d++) {
        needed |= k->rkeys[d] ? zkp_g16_rkey_host_sets(k->rkeys[d]) : ZKP_G16_SETS_ALL;
        circuits &= k->rkeys[d] && k->rkeys[d]->csr;
    }
    if (k->tier != ZKPIPE_KEY_HOT) return;
    if (!(needed & ZKP_G16_SETS_B2) && k->c_scratch) {
        k->part_bytes -= k->c_scratch;
        k->part_after_start -= k->c_scratch;
        k->c_scratch = 0;
    }
    if (circuits && !k->abc_on_device) {
        k->abc_on_device = 1;
        k->part_bytes -= k->c_abc;
        k->c_abc = 0;
    }
    unsigned drop = ZKP_G16_SETS_ALL & ~needed & ~k->host_dropped;
    if (k->kind == ENG_KEY_POREP && drop) {
        zkp_fil_c2_key_drop_points(&k->c2, drop);
        /* Only the dropped sets' pointers: the others are read without the
         * lock by partitions in flight. */
        bls12_381_g16_pk_t *pk = &k->pk.u.bls12_381;
        if (drop & (1u << ZKP_G16_SET_A)) pk->a = NULL;
        if (drop & (1u << ZKP_G16_SET_B1)) pk->b1 = NULL;
        if (drop & ZKP_G16_SETS_B2) pk->b2 = NULL;
        if (drop & (1u << ZKP_G16_SET_L)) pk->c = NULL;
        if (drop & (1u << ZKP_G16_SET_H)) pk->h = NULL;
        k->host_dropped |= drop;
        k->resident_bytes = key_trim_reservation_(k->res, k->map_charge);
    }
}

zkpipe_status eng_key_evict(zkpipe_engine *e, eng_key *k) {
    key_data_ d;
    memset(&d, 0, sizeof d);
    pthread_mutex_lock(&e->lk);
    if (k->tier != ZKPIPE_KEY_HOT) {
        pthread_mutex_unlock(&e->lk);
        return k->tier == ZKPIPE_KEY_LOADING ? ZKPIPE_ERR_INVALID_ARGUMENT : ZKPIPE_OK;
    }
    if (!key_idle_locked_(k)) {
        pthread_mutex_unlock(&e->lk);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    key_evict_locked_(e, k, &d);
    pthread_mutex_unlock(&e->lk);
    key_data_free_(e, &d);
    return ZKPIPE_OK;
}

void eng_key_destroy(zkpipe_engine *e, eng_key *k) {
    if (!k) return;
    key_data_ d;
    memset(&d, 0, sizeof d);
    key_take_locked_(k, &d);
    key_data_free_(e, &d);
    free(k->path);
    free(k);
}

/* Whether bytes can never be granted as things stand: nothing in flight
 * will return memory, no other key is resident or loading, so the budget
 * holds only `except` (lock held). */
static int hopeless_locked_(zkpipe_engine *e, const eng_key *except) {
    if (e->parts_in_flight) return 0;
    for (size_t i = 0; i < e->n_keys; i++) {
        const eng_key *k = e->keys[i];
        if (k == except) continue;
        if (k->tier == ZKPIPE_KEY_HOT || k->tier == ZKPIPE_KEY_LOADING) return 0;
    }
    return 1;
}

zkpipe_status eng_reserve(zkpipe_engine *e, uint64_t bytes, zkpipe_priority prio,
                          const eng_key *except, int interruptible, zkp_mem_reservation **out,
                          zkp_diag *diag) {
    zkp_mem_wait_opts wo = {.priority = (zkp_mem_priority)prio,
                            .timeout_ms = 50,
                            .cancel = interruptible ? &e->admit_interrupt : NULL};
    *out = NULL;
    for (;;) {
        zkpipe_status st = zkp_mem_try_reserve(e->budget, bytes, (zkp_mem_priority)prio, out);
        if (st == ZKPIPE_OK) return st;
        if (st != ZKPIPE_ERR_TIMEOUT) {
            zkp_mem_budget_stats bs;
            (void)zkp_mem_budget_stats_get(e->budget, &bs);
            return zkp_diag_fail(diag, st, "%llu bytes can never fit a budget of %llu bytes",
                                 (unsigned long long)bytes, (unsigned long long)bs.total_bytes);
        }
        if (eng_key_evict_lru(e, except)) continue;
        pthread_mutex_lock(&e->lk);
        int stop = e->stop, hopeless = hopeless_locked_(e, except);
        pthread_mutex_unlock(&e->lk);
        if (stop) return zkp_diag_fail(diag, ZKPIPE_ERR_CANCELLED, "the engine is shutting down");
        if (hopeless) {
            /* Retry once: a release may have landed after the first try. */
            st = zkp_mem_try_reserve(e->budget, bytes, (zkp_mem_priority)prio, out);
            if (st == ZKPIPE_OK) return st;
            zkp_mem_budget_stats bs;
            (void)zkp_mem_budget_stats_get(e->budget, &bs);
            return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                                 "%llu bytes do not fit the budget (%llu bytes, %llu held by "
                                 "the key it needs) and nothing else can be freed",
                                 (unsigned long long)bytes, (unsigned long long)bs.total_bytes,
                                 (unsigned long long)bs.reserved_bytes);
        }
        st = zkp_mem_reserve_wait(e->budget, bytes, &wo, out, NULL);
        if (st == ZKPIPE_OK) return st;
        if (st == ZKPIPE_ERR_CANCELLED) return st; /* interrupted: the caller looks again */
        if (st != ZKPIPE_ERR_TIMEOUT) return zkp_diag_fail(diag, st, "reserving %llu bytes failed",
                                                           (unsigned long long)bytes);
    }
}
