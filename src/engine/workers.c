/* The stage workers: synthesis, device (prove_start) and finalize (+ verify).
 *
 * DESIGN
 *
 * Each worker loops: pop the first partition of its queue under the engine
 * lock, run its stage with the lock released, then, under the lock again,
 * either push the partition to the next queue or settle it (done, failed or
 * cancelled). The partition is owned by the worker between pop and push, so
 * nothing else touches its buffers meanwhile.
 *
 *   synthesis  parses the witness into a buffer of the partition's
 *              reservation (through the reservation's zkp_allocator),
 *              checks it against the key, copies the public inputs, and
 *              runs the compiled circuit's SpMV into an a, b, c buffer of the
 *              same reservation.
 *   device     takes its device's lock for prove_start_abc only (H
 *              polynomial, G1 MSMs); a, b, c and the NTT tables are freed
 *              inside it, and right after it the partition gives their share
 *              of the reservation back to the budget (the two-phase
 *              release), so the next partition can be admitted while this
 *              one finalizes. M workers per device overlap one's CPU work
 *              with another's device work.
 *   finalize   prove_finalize (G2 MSM, assembly), then verification, then
 *              the partition is settled: its remaining buffers are freed and
 *              its reservation released, in that order.
 *
 * Cancellation is checked at every boundary (before a stage and before a
 * push) and inside the prover, which reads the job's atomic flag itself at
 * every one of its stage boundaries: a cancel stops the proof at the next
 * boundary after it is raised.
 *
 * A failing or cancelled partition frees its buffers (the prover frees what
 * was handed to it, on every path), releases its reservation and fails its
 * job as a whole; other jobs carry on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "formats/wtns.h"

static int cancelled_(const eng_part *p) { return atomic_load(&p->job->cancel) != 0; }

/* The reservation's books at a stage boundary (p owned by the caller). */
static void audit_(zkpipe_engine *e, const eng_part *p, int final) {
    zkp_mem_reservation_info ri;
    if (!p->res || zkp_mem_reservation_info_get(p->res, &ri) != ZKPIPE_OK) return;
    if (ri.allocated_bytes > ri.reserved_bytes) atomic_fetch_add(&e->res_violations, 1);
    if (final && ri.refused) atomic_fetch_add(&e->res_refusals, ri.refused);
}

void eng_part_free_buffers(eng_part *p) {
    zkp_g16_pending_free(p->pending);
    p->pending = NULL;
    if (p->witness.ptr) zkp_buffer_release(&p->witness);
    if (p->abc.ptr) zkp_buffer_release(&p->abc);
    if (p->res && zkp_mem_release(&p->res) != ZKPIPE_OK) {
        /* A buffer of the reservation is still live: never return its
         * budget. Unreachable while every path above frees what it owns. */
    }
    p->alloc = NULL;
    /* What a partition malloc'd in other threads (small buffers of the
     * prover and verifier) leaves freed pages in their arenas; handing them
     * back now keeps RSS equal to baseline + tracked bytes between
     * partitions. It costs microseconds against a partition's seconds. */
    zkp_mem_trim_heap();
}

void eng_part_settle_locked(zkpipe_engine *e, eng_part *p, zkpipe_status st, const char *msg) {
    eng_job *j = p->job;
    eng_key *k = j->key;
    double t = eng_now();
    p->status = st;
    p->state = st == ZKPIPE_OK ? PART_DONE : PART_FAILED;
    p->times.total = t - j->t_submit;
    j->in_flight--;
    e->parts_in_flight--;
    k->running--;
    k->last_use = ++e->lru_clock;
    if (k->running == 0) atomic_store(&e->admit_interrupt, 1); /* an idle key may be evicted */
    if (p->reads_host_b2) {
        p->reads_host_b2 = 0;
        /* The last reader of the host's B2 points: they may go now. */
        if (--k->b2_host_readers == 0) eng_key_settle_on_devices_locked(e, k);
    }
    if (st == ZKPIPE_OK) {
        j->n_done++;
        e->partitions_completed++;
        if (p->verified) e->proofs_verified++;
    } else {
        char buf[480];
        snprintf(buf, sizeof buf, "partition %u: %.440s", p->index,
                 msg && msg[0] ? msg : zkpipe_strerror(st));
        eng_job_fail_locked(e, j, st, buf);
    }
    pthread_cond_signal(&e->admit_cv);
    eng_job_check_final_locked(e, j);
}

/* A PoRep partition's witness, synthesized from its job's C1 into a buffer
 * of the reservation shaped like the key, and its public inputs, derived
 * from the C1's commitments and seed (filecoin/c2.h). */
static zkpipe_status porep_witness_(eng_part *p, unsigned nthreads, zkp_diag *d) {
    const eng_key *k = p->job->key;
    size_t bytes = (size_t)k->n_vars * 32;
    p->witness = (zkp_buffer){zkp_alloc(p->alloc, bytes, ZKP_MEM_WITNESS), bytes, ZKP_MEM_WITNESS,
                              p->alloc};
    if (!p->witness.ptr)
        return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY,
                             "cannot allocate %zu bytes of witness from the reservation", bytes);
    zkpipe_status st =
        zkp_fil_c2_synthesize(p->witness.ptr, &k->pk.u.bls12_381, p->job->c1, p->index, nthreads,
                              &p->job->cancel, d);
    if (st == ZKPIPE_OK) st = zkp_fil_c2_public_inputs(&p->pub, p->job->c1, p->index, d);
    return st;
}

/* A zkey partition's witness: its .wtns parsed into a buffer of the
 * reservation and checked against the key; the public inputs copied. */
static zkpipe_status wtns_witness_(eng_part *p, zkp_diag *d) {
    eng_job *j = p->job;
    eng_key *k = j->key;
    const zkpipe_witness *w = &j->witnesses[p->index];
    zkp_wtns wt;
    memset(&wt, 0, sizeof wt);
    zkpipe_status st = w->path ? zkp_wtns_load(&wt, w->path, p->alloc, d)
                               : zkp_wtns_parse(&wt, w->data, w->len, "witness", p->alloc, d);
    if (st == ZKPIPE_OK) st = zkp_wtns_check_zkey(&wt, &k->zkey, d);
    if (st != ZKPIPE_OK) {
        zkp_wtns_free(&wt);
        return st;
    }
    p->pub.curve = wt.curve;
    p->pub.n = k->n_public;
    p->pub.values = NULL;
    if (k->n_public) {
        p->pub.values = malloc((size_t)k->n_public * 4 * sizeof(uint64_t));
        if (!p->pub.values) {
            zkp_wtns_free(&wt);
            return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "cannot copy the public inputs");
        }
        memcpy(p->pub.values, wt.values + 4, (size_t)k->n_public * 4 * sizeof(uint64_t));
    }
    p->witness = (zkp_buffer){wt.values, wt.values_bytes, ZKP_MEM_WITNESS, p->alloc};
    wt.values = NULL;
    return ZKPIPE_OK;
}

/* Lock not held; p owned by the caller. */
static zkpipe_status synthesize_(zkpipe_engine *e, eng_part *p, zkp_diag *d) {
    if (cancelled_(p)) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "cancelled before synthesis");
    eng_key *k = p->job->key;
    unsigned nt = e->cfg.synth_threads ? e->cfg.synth_threads : 1;
    zkpipe_status st = k->kind == ENG_KEY_POREP ? porep_witness_(p, nt, d) : wtns_witness_(p, d);
    if (st != ZKPIPE_OK) return st;
    if (cancelled_(p)) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "cancelled during synthesis");
    /* The GPUs make a, b and c from the witness. */
    pthread_mutex_lock(&e->lk);
    int on_device = k->abc_on_device;
    pthread_mutex_unlock(&e->lk);
    if (on_device) return ZKPIPE_OK;
    size_t abc_bytes = zkp_circuit_abc_bytes(&k->circuit);
    p->abc = (zkp_buffer){zkp_alloc(p->alloc, abc_bytes, ZKP_MEM_ABC), abc_bytes, ZKP_MEM_ABC,
                          p->alloc};
    if (!p->abc.ptr)
        return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY,
                             "cannot allocate %zu bytes for a, b, c from the reservation",
                             abc_bytes);
    zkp_circuit_synthesize(&k->circuit, p->witness.ptr, p->abc.ptr, nt);
    return ZKPIPE_OK;
}

/* A failure the device gave, rather than the job's input or the memory
 * budget: the kind after which the device is asked whether it still works. */
static int device_error_(zkpipe_status st) {
    return st == ZKPIPE_ERR_DEVICE || st == ZKPIPE_ERR_NO_DEVICE;
}

/* The key's first partition on GPU dev makes its bases resident there
 * (dev's lock held); once every device has them, what the host no longer
 * needs goes (eng_key_settle_on_devices). */
static zkpipe_status ready_key_(zkpipe_engine *e, unsigned dev, eng_key *k, zkp_diag *d) {
    zkp_g16_backend *be = e->backends[dev];
    /* The compiled circuit goes too, so that a, b and c are made there. */
    zkp_gpu_csr_src src;
    const zkp_gpu_csr_src *circuit = NULL;
    if (!e->cfg.abc_on_host && k->circuit_built) {
        zkp_circuit_gpu_src(&k->circuit, &src);
        circuit = &src;
    }
    zkp_g16_rkey *rk = NULL;
    zkpipe_status st = zkp_g16_rkey_load_with_circuit(&rk, be, &k->pk, circuit, d);
    /* GPU memory is short: the other keys' copies on this device go (they
     * come back when their keys next run here), then one retry. */
    if (st == ZKPIPE_ERR_NO_MEMORY && eng_key_drop_device_copies(e, dev, k) > 0)
        st = zkp_g16_rkey_load_with_circuit(&rk, be, &k->pk, circuit, d);
    /* Some of its bases would stream at every proof: resident copies pay
     * once, so the other keys' copies go first, then one retry. */
    if (st == ZKPIPE_OK && zkp_g16_rkey_streamed_sets(rk) > 0 &&
        eng_key_drop_device_copies(e, dev, k) > 0) {
        zkp_g16_rkey_free(rk);
        rk = NULL;
        st = zkp_g16_rkey_load_with_circuit(&rk, be, &k->pk, circuit, d);
    }
    if (st != ZKPIPE_OK) {
        zkp_diag_prefix(d, zkp_g16_backend_name(be));
        return st;
    }
    pthread_mutex_lock(&e->lk);
    k->rkeys[dev] = rk;
    pthread_mutex_unlock(&e->lk);
    eng_key_settle_on_devices(e, k);
    return ZKPIPE_OK;
}

zkpipe_status eng_key_ready_on_devices(zkpipe_engine *e, eng_key *k, zkp_diag *d) {
    char none[400];
    pthread_mutex_lock(&e->lk);
    int hot = k->tier == ZKPIPE_KEY_HOT, no_device = eng_no_device_locked(e, none, sizeof none);
    if (hot && !no_device) k->pinned++;
    pthread_mutex_unlock(&e->lk);
    if (no_device) return zkp_diag_fail(d, ZKPIPE_ERR_DEVICE, "%s", none);
    if (!hot) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "the key was evicted");
    zkpipe_status st = ZKPIPE_OK;
    for (unsigned dev = 0; dev < e->cfg.devices && st == ZKPIPE_OK; dev++) {
        zkp_g16_backend *be = e->backends[dev];
        if (!zkp_g16_backend_is_gpu(be) || zkp_g16_backend_lost(be, NULL, 0)) continue;
        pthread_mutex_lock(&e->dev_lock[dev]);
        if (!k->rkeys[dev]) st = ready_key_(e, dev, k, d);
        pthread_mutex_unlock(&e->dev_lock[dev]);
        /* A device found lost is no failure of the key's: the others go
         * on, unless none is left. */
        if (device_error_(st) && zkp_g16_backend_probe(be)) {
            pthread_mutex_lock(&e->lk);
            eng_device_out_if_lost_locked(e, dev);
            st = eng_no_device_locked(e, none, sizeof none)
                     ? zkp_diag_fail(d, ZKPIPE_ERR_DEVICE, "%s", none)
                     : ZKPIPE_OK;
            pthread_mutex_unlock(&e->lk);
        }
    }
    pthread_mutex_lock(&e->lk);
    k->pinned--;
    pthread_mutex_unlock(&e->lk);
    return st;
}

static zkpipe_status device_(zkpipe_engine *e, eng_worker *w, eng_part *p, zkp_diag *d) {
    if (cancelled_(p)) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "cancelled before prove_start");
    eng_key *k = p->job->key;
    zkp_g16_backend *be = e->backends[w->device];
    char why[256];
    if (zkp_g16_backend_lost(be, why, sizeof why))
        return zkp_diag_fail(d, ZKPIPE_ERR_DEVICE, "%s is out of service: %s",
                             zkp_g16_backend_name(be), why);
    pthread_mutex_lock(&e->lk);
    w->state = ZKPIPE_WORKER_WAITING;
    int key_ready = k->rkeys[w->device] != NULL;
    pthread_mutex_unlock(&e->lk);
    /* The witness's copy is queued before the wait for the device, so that
     * it crosses the bus while the GPU computes the partition ahead (the
     * other device worker's): 4.2 GB, 85 ms at 32 GiB, off each
     * partition's turn on the device. Only for a key ready there, whose
     * making sizes its copies to the free memory. Where the copy does not
     * go early (no room, or a failure), prove_start makes it. */
    zkp_gpu_buf *early = NULL;
    if (key_ready && zkp_g16_backend_is_gpu(be)) {
        zkp_diag ignored = {{0}};
        if (zkp_g16_witness_to_device(&early, be, &k->pk, &p->witness, &ignored) != ZKPIPE_OK)
            early = NULL;
    }
    pthread_mutex_lock(&e->dev_lock[w->device]);
    pthread_mutex_lock(&e->lk);
    w->state = ZKPIPE_WORKER_BUSY;
    pthread_mutex_unlock(&e->lk);
    double t0 = eng_now();
    zkpipe_status st = ZKPIPE_OK;
    if (zkp_g16_backend_is_gpu(be) && !k->rkeys[w->device]) st = ready_key_(e, w->device, k, d);
    zkp_g16_prove_opts o = {.nthreads = e->device_threads,
                            .alloc = p->alloc,
                            .cancel = &p->job->cancel,
                            .rkey = k->rkeys[w->device],
                            .witness_on_device = early};
    if (st == ZKPIPE_OK)
        st = zkp_g16_prove_start_abc(&p->pending, &k->pk, &p->witness, &p->abc, &o, d);
    else
        zkp_gpu_buf_free(early);
    /* Whether the failure was the call's alone or the device's for good
     * (eng_device_out_if_lost_locked reads the answer). */
    if (device_error_(st)) (void)zkp_g16_backend_probe(be);
    /* Counted before the device is free again: only its holder may replace
     * the key's copy there, which could let the host's B2 points go. */
    pthread_mutex_lock(&e->lk);
    p->reads_host_b2 =
        st == ZKPIPE_OK && o.rkey && (zkp_g16_rkey_host_sets(o.rkey) & ZKP_G16_SETS_B2);
    k->b2_host_readers += (uint32_t)p->reads_host_b2;
    pthread_mutex_unlock(&e->lk);
    pthread_mutex_unlock(&e->dev_lock[w->device]);
    p->times.device = eng_now() - t0;
    if (st != ZKPIPE_OK) return st;
    /* a, b, c and the NTT tables are gone: their share goes back now. */
    if (p->start_share) ENG_IGNORE(zkp_mem_release_part(p->res, p->start_share));
    return ZKPIPE_OK;
}

/* The public proof steps are the prover's stages from the H polynomial to
 * the B2 MSM, in the same order. */
#define STEP_FIRST_STAGE ZKP_G16_NTT
_Static_assert(ZKP_G16_MSM_H - STEP_FIRST_STAGE == ZKPIPE_STEP_MSM_H &&
                   ZKP_G16_MSM_A - STEP_FIRST_STAGE == ZKPIPE_STEP_MSM_A &&
                   ZKP_G16_MSM_B1 - STEP_FIRST_STAGE == ZKPIPE_STEP_MSM_B1 &&
                   ZKP_G16_MSM_C - STEP_FIRST_STAGE == ZKPIPE_STEP_MSM_L &&
                   ZKP_G16_MSM_B2 - STEP_FIRST_STAGE == ZKPIPE_STEP_MSM_B2,
               "the proof steps follow the prover's stages");

static zkpipe_status finalize_(zkpipe_engine *e, eng_part *p, zkp_diag *d) {
    if (cancelled_(p)) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "cancelled before finalize");
    eng_key *k = p->job->key;
    double t0 = eng_now();
    zkp_g16_pending *pend = p->pending;
    p->pending = NULL; /* prove_finalize consumes it on every path */
    zkp_g16_timings steps = {{0}};
    zkpipe_status st = zkp_g16_prove_finalize(&p->proof, pend, &steps, d);
    double t1 = eng_now();
    p->times.finalize = t1 - t0;
    if (st != ZKPIPE_OK) return st;
    for (int s = 0; s < ZKPIPE_N_STEPS; s++)
        p->times.steps[s] = steps.seconds[STEP_FIRST_STAGE + s];
    if (e->cfg.verify) {
        if (cancelled_(p)) return zkp_diag_fail(d, ZKPIPE_ERR_CANCELLED, "cancelled before verify");
        st = zkp_g16_verify(&k->vk, &p->pub, &p->proof, d);
        p->times.verify = eng_now() - t1;
        if (st != ZKPIPE_OK) {
            /* A PoRep partition's public inputs are the C1's, not the
             * circuit's: a C1 that does not satisfy the circuit ends here. */
            if (st == ZKPIPE_ERR_PROOF_INVALID && k->kind == ENG_KEY_POREP)
                zkp_fil_c2_unsatisfied_prefix(d);
            zkp_diag_prefix(d, "the proof does not verify");
            return st;
        }
        p->verified = 1;
    }
    return ZKPIPE_OK;
}

typedef struct {
    eng_queue *in;
    pthread_cond_t *in_cv;
    eng_queue *out;
    pthread_cond_t *out_cv;
    eng_part_state running_state, out_state;
    int idx; /* e->running[idx] */
} stage_desc_;

void eng_device_out_if_lost_locked(zkpipe_engine *e, unsigned dev) {
    char why[256];
    if (e->dev_out[dev] || !zkp_g16_backend_lost(e->backends[dev], why, sizeof why)) return;
    e->dev_out[dev] = 1;
    e->devices_out++;
    const unsigned left = e->cfg.devices - e->devices_out;
    fprintf(stderr,
            "zkpipe engine: %s is out of service: %s; %s (a restart of the process brings "
            "it back)\n",
            zkp_g16_backend_name(e->backends[dev]), why,
            left ? "its partitions go to the other devices"
                 : "no device is left, so jobs fail until then");
    /* Its idle workers stand down, the others take what it queued, and the
     * dispatcher fails what no device is left to prove. */
    pthread_cond_broadcast(&e->device_cv);
    pthread_cond_signal(&e->admit_cv);
}

int eng_no_device_locked(zkpipe_engine *e, char *msg, size_t len) {
    if (e->devices_out < e->cfg.devices) return 0;
    char why[256] = "";
    (void)zkp_g16_backend_lost(e->backends[0], why, sizeof why);
    snprintf(msg, len, "no device is in service (%s: %s)", zkp_g16_backend_name(e->backends[0]),
             why);
    return 1;
}

/* A worker of dev takes no partitions: dev is out of service and another
 * device is not (with none left, its workers take them to fail them). */
static int stands_down_locked_(const zkpipe_engine *e, unsigned dev) {
    return e->dev_out[dev] && e->devices_out < e->cfg.devices;
}

void *eng_worker_main(void *arg) {
    eng_worker *w = arg;
    zkpipe_engine *e = w->e;
    stage_desc_ s;
    switch (w->role) {
    case ZKPIPE_WORKER_SYNTH:
        s = (stage_desc_){&e->synth_q, &e->synth_cv, &e->device_q, &e->device_cv, PART_SYNTH,
                          PART_DEVICE_Q, 0};
        break;
    case ZKPIPE_WORKER_DEVICE:
        s = (stage_desc_){&e->device_q, &e->device_cv, &e->final_q, &e->final_cv, PART_DEVICE,
                          PART_FINAL_Q, 1};
        break;
    default:
        s = (stage_desc_){&e->final_q, &e->final_cv, NULL, NULL, PART_FINAL, PART_DONE, 2};
        break;
    }
    pthread_mutex_lock(&e->lk);
    for (;;) {
        /* A synthesis worker past the limit takes nothing until it rises;
         * nor does the worker of a device out of service while another
         * device can take the partition (with none, it fails them). */
        int idle = (w->role == ZKPIPE_WORKER_SYNTH && w->rank >= e->synth_limit) ||
                   (w->role == ZKPIPE_WORKER_DEVICE && stands_down_locked_(e, w->device));
        eng_part *p = idle ? NULL : eng_queue_pop(s.in);
        if (p && w->role == ZKPIPE_WORKER_DEVICE && !e->dev_out[w->device]) {
            /* The device's other worker may have found it lost meanwhile:
             * then the partition goes back for another device. */
            eng_device_out_if_lost_locked(e, w->device);
            if (stands_down_locked_(e, w->device)) {
                eng_queue_push(s.in, p);
                continue;
            }
        }
        if (!p) {
            if (e->stop) break;
            w->state = ZKPIPE_WORKER_IDLE;
            pthread_cond_wait(s.in_cv, &e->lk);
            continue;
        }
        w->state = ZKPIPE_WORKER_BUSY;
        e->running[s.idx]++;
        p->state = s.running_state;
        pthread_mutex_unlock(&e->lk);

        zkp_diag d;
        d.msg[0] = 0;
        double t0 = eng_now();
        zkpipe_status st;
        switch (w->role) {
        case ZKPIPE_WORKER_SYNTH:
            st = synthesize_(e, p, &d);
            p->times.synthesis = eng_now() - t0;
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
            /* The control run's fault, where cuzk's was: synthesis is done,
             * so its permit goes back, but the witness and a, b, c wait in
             * the device queue until prove_start frees them. The dispatcher
             * admits the next partition on bytes that are still resident. */
            if (st == ZKPIPE_OK) ENG_IGNORE(zkp_mem_fault_release_early(p->res));
#endif
            break;
        case ZKPIPE_WORKER_DEVICE:
            st = device_(e, w, p, &d);
            break;
        default:
            st = finalize_(e, p, &d);
            break;
        }
        int last = s.out == NULL;
        if (st != ZKPIPE_OK || last) {
            audit_(e, p, 1);
            /* Buffers go before the reservation, and both before the
             * partition is settled: nothing is left to touch afterwards. */
            eng_part_free_buffers(p);
        }
        pthread_mutex_lock(&e->lk);
        e->running[s.idx]--;
        w->state = ZKPIPE_WORKER_IDLE;
        if (device_error_(st) && w->role == ZKPIPE_WORKER_DEVICE)
            eng_device_out_if_lost_locked(e, w->device);
        if (st == ZKPIPE_OK && !last) audit_(e, p, 0);
        if (st == ZKPIPE_OK && !last && cancelled_(p)) {
            /* The boundary check before the next queue. */
            pthread_mutex_unlock(&e->lk);
            eng_part_free_buffers(p);
            pthread_mutex_lock(&e->lk);
            st = ZKPIPE_ERR_CANCELLED;
            snprintf(d.msg, sizeof d.msg, "cancelled after %s",
                     w->role == ZKPIPE_WORKER_SYNTH ? "synthesis" : "prove_start");
        }
        if (st != ZKPIPE_OK || last) {
            eng_part_settle_locked(e, p, st, d.msg);
        } else {
            p->state = s.out_state;
            eng_queue_push(s.out, p);
            /* One signal could wake only an idle worker of a device out
             * of service, which leaves the partition to the others. */
            if (s.out == &e->device_q && e->devices_out)
                pthread_cond_broadcast(s.out_cv);
            else
                pthread_cond_signal(s.out_cv);
        }
    }
    w->state = ZKPIPE_WORKER_IDLE;
    pthread_mutex_unlock(&e->lk);
    return NULL;
}
