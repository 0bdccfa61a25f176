/* The engine: public API, the dispatcher (admission) and the status.
 *
 * DESIGN
 *
 * The dispatcher is one thread. It looks at the job table, which is kept in
 * (priority, arrival) order, takes the first job that still has partitions
 * to admit, makes its key hot (loading it on demand, see keys.c), and
 * reserves the partition's working set from the budget: at once if it
 * fits, else after evicting idle keys, else waiting in priority order. The
 * wait gives up when something happens that could change the decision (a
 * new job, a cancellation, a key going idle, shutdown: admit_interrupt),
 * and the dispatcher looks again, so a CRITICAL job submitted while a NORMAL
 * partition waits for memory is admitted first. Nothing but the reservation
 * gates admission: there are no permits and no counters of partitions.
 *
 * An admitted partition carries its reservation into the synthesis queue;
 * from there on, workers.c owns it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "curve/encoding.h"
#include "engine/engine_internal.h"
#include "filecoin/seal.h"
#include "formats/snarkjs_json.h"
#include "util/clock.h"
#include "util/fault.h"

double eng_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* (priority desc, seq asc, index asc): a before b. */
static int before_(const eng_part *a, const eng_part *b) {
    if (a->job->priority != b->job->priority) return a->job->priority > b->job->priority;
    if (a->job->seq != b->job->seq) return a->job->seq < b->job->seq;
    return a->index < b->index;
}

void eng_queue_push(eng_queue *q, eng_part *p) {
    eng_part **at = &q->head;
    while (*at && !before_(p, *at)) at = &(*at)->next;
    p->next = *at;
    *at = p;
    q->len++;
}

eng_part *eng_queue_pop(eng_queue *q) {
    eng_part *p = q->head;
    if (p) {
        q->head = p->next;
        p->next = NULL;
        q->len--;
    }
    return p;
}

eng_part *eng_queue_take_job(eng_queue *q, const eng_job *j) {
    eng_part *taken = NULL, **tail = &taken;
    for (eng_part **at = &q->head; *at;) {
        eng_part *p = *at;
        if (p->job != j) {
            at = &p->next;
            continue;
        }
        *at = p->next;
        p->next = NULL;
        q->len--;
        *tail = p;
        tail = &p->next;
    }
    return taken;
}

static void wake_dispatcher_locked_(zkpipe_engine *e) {
    atomic_store(&e->admit_interrupt, 1);
    pthread_cond_signal(&e->admit_cv);
}

void eng_job_fail_locked(zkpipe_engine *e, eng_job *j, zkpipe_status st, const char *msg) {
    if (j->final) return;
    if (j->status == ZKPIPE_OK) {
        j->status = st;
        snprintf(j->error, sizeof j->error, "%s", msg ? msg : zkpipe_strerror(st));
    }
    atomic_store(&j->cancel, 1);
    wake_dispatcher_locked_(e);
}

void eng_job_check_final_locked(zkpipe_engine *e, eng_job *j) {
    if (j->final || j->in_flight || j->admitting) return;
    if (j->status == ZKPIPE_OK && j->n_done < j->n_parts) return;
    for (size_t i = j->next_admit; i < j->n_parts; i++) j->parts[i].state = PART_SKIPPED;
    j->next_admit = j->n_parts;
    j->final = 1;
    j->t_final = eng_now();
    e->jobs_live--;
    if (j->status == ZKPIPE_OK)
        e->jobs_completed++;
    else if (j->status == ZKPIPE_ERR_CANCELLED)
        e->jobs_cancelled++;
    else
        e->jobs_failed++;
    pthread_cond_broadcast(&e->done_cv);
}

/* The first job with a partition to admit (lock held). */
static eng_job *pick_locked_(zkpipe_engine *e) {
    for (eng_job *j = e->jobs; j; j = j->next)
        if (!j->final && j->status == ZKPIPE_OK && !atomic_load(&j->cancel) &&
            j->next_admit < j->n_parts)
            return j;
    return NULL;
}

static void *dispatcher_main_(void *arg) {
    eng_worker *w = arg;
    zkpipe_engine *e = w->e;
    pthread_mutex_lock(&e->lk);
    for (;;) {
        atomic_store(&e->admit_interrupt, 0);
        if (e->stop) break;
        eng_job *j = e->paused ? NULL : pick_locked_(e);
        if (!j) {
            w->state = ZKPIPE_WORKER_IDLE;
            pthread_cond_wait(&e->admit_cv, &e->lk);
            continue;
        }
        /* No device to prove it on: the job fails now, before its key
         * loads and its partitions are synthesized for nothing. */
        char none[400];
        if (eng_no_device_locked(e, none, sizeof none)) {
            char buf[480];
            snprintf(buf, sizeof buf, "partition %zu: %.440s", j->next_admit, none);
            eng_job_fail_locked(e, j, ZKPIPE_ERR_DEVICE, buf);
            eng_job_check_final_locked(e, j);
            continue;
        }
        eng_key *k = j->key;
        zkpipe_priority prio = j->priority;
        j->admitting = 1;
        k->pinned++;
        int was_hot = k->tier == ZKPIPE_KEY_HOT;
        w->state = ZKPIPE_WORKER_WAITING;
        pthread_mutex_unlock(&e->lk);

        zkp_diag d;
        d.msg[0] = 0;
        zkp_mem_reservation *res = NULL;
        double t0 = eng_now();
        zkpipe_status st = eng_key_ensure_hot_ex(e, k, prio, 1, &d);
        double key_s = was_hot ? 0 : eng_now() - t0;
        uint64_t bytes = 0, start_share = 0;
        if (st == ZKPIPE_OK) {
            pthread_mutex_lock(&e->lk);
            bytes = k->part_bytes;
            start_share = k->c_abc + k->c_ntt;
            pthread_mutex_unlock(&e->lk);
            st = eng_reserve(e, bytes, prio, k, 1, &res, &d);
        }

        pthread_mutex_lock(&e->lk);
        w->state = ZKPIPE_WORKER_BUSY;
        k->pinned--;
        int admit = st == ZKPIPE_OK && !e->stop && j->status == ZKPIPE_OK &&
                    !atomic_load(&j->cancel) && j->next_admit < j->n_parts &&
                    k->tier == ZKPIPE_KEY_HOT;
        if (st == ZKPIPE_OK && !admit) {
            /* The reservation goes back with the lock out. The job stays
             * admitting meanwhile: were it to turn final, it could be
             * collected and freed under j. */
            pthread_mutex_unlock(&e->lk);
            ENG_IGNORE(zkp_mem_release(&res));
            pthread_mutex_lock(&e->lk);
        }
        j->admitting = 0;
        if (st == ZKPIPE_ERR_CANCELLED && !e->stop && !atomic_load(&j->cancel)) {
            /* Interrupted: look at the table again. */
            eng_job_check_final_locked(e, j);
            continue;
        }
        if (st != ZKPIPE_OK) {
            char buf[480];
            snprintf(buf, sizeof buf, "partition %zu: %.440s", j->next_admit,
                     d.msg[0] ? d.msg : zkpipe_strerror(st));
            eng_job_fail_locked(e, j, st, buf);
            eng_job_check_final_locked(e, j);
            continue;
        }
        if (!admit) {
            eng_job_check_final_locked(e, j);
            continue;
        }
        eng_part *p = &j->parts[j->next_admit++];
        p->res = res;
        p->start_share = start_share;
        (void)zkp_mem_reservation_allocator(res, &p->alloc);
        p->admit_seq = ++e->admit_seq;
        p->times.key_load = key_s;
        p->times.queue_wait = eng_now() - j->t_submit;
        p->state = PART_SYNTH_Q;
        j->in_flight++;
        e->parts_in_flight++;
        k->running++;
        k->last_use = ++e->lru_clock;
        eng_queue_push(&e->synth_q, p);
        /* Every synthesis worker, not one: a signal could wake only workers
         * over synth_limit, which take nothing. A push per partition. */
        pthread_cond_broadcast(&e->synth_cv);
    }
    w->state = ZKPIPE_WORKER_IDLE;
    pthread_mutex_unlock(&e->lk);
    return NULL;
}

zkpipe_status zkpipe_engine_config_default(zkpipe_engine_config *cfg) {
    if (!cfg) return ZKPIPE_ERR_INVALID_ARGUMENT;
    memset(cfg, 0, sizeof *cfg);
    cfg->verify = 1;
    return ZKPIPE_OK;
}

static void set_err_(char *buf, size_t len, const char *msg) {
    if (buf && len) snprintf(buf, len, "%s", msg);
}

static void free_job_(eng_job *j) {
    if (!j) return;
    for (size_t i = 0; i < j->n_parts; i++) {
        zkp_g16_public_release(&j->parts[i].pub);
    }
    if (j->witnesses)
        for (size_t i = 0; i < j->n_parts; i++) free((char *)j->witnesses[i].path);
    free(j->witnesses);
    if (j->c1) {
        zkp_fil_c1_free(j->c1);
        free(j->c1);
    }
    ENG_IGNORE(zkp_mem_release(&j->c1_res)); /* after the C1 it paid for */
    free(j->parts);
    free(j->request_id);
    free(j);
}

static void close_backends_(zkp_g16_backend **b, unsigned n) {
    if (!b) return;
    for (unsigned i = 0; i < n; i++) zkp_g16_backend_close(b[i]);
    free(b);
}

/* The devices cfg asks for, opened: one CPU device, or GPUs 0 .. devices-1
 * (every GPU when devices is 0). Sets c->devices to their number. */
static zkpipe_status open_backends_(zkpipe_engine_config *c, zkp_g16_backend ***out, char *errbuf,
                                    size_t errbuf_len) {
    *out = NULL;
    const char *kind = c->device ? c->device : "cpu";
    zkp_diag d = {{0}};
    unsigned gpus = 0;
    int cpu = !strcmp(kind, "cpu");
    if (!cpu && strcmp(kind, "cuda") != 0 && strcmp(kind, "auto") != 0) {
        set_err_(errbuf, errbuf_len, "unknown engine device (expected cpu, cuda or auto)");
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    if (!cpu) {
        zkpipe_status st = zkp_gpu_device_count(&gpus, &d);
        if (st != ZKPIPE_OK && !strcmp(kind, "cuda")) {
            set_err_(errbuf, errbuf_len, d.msg);
            return st;
        }
        cpu = st != ZKPIPE_OK;
    }
    unsigned n = cpu ? 1 : c->devices ? c->devices : gpus;
    if (cpu && c->devices > 1 && !strcmp(kind, "cpu")) {
        set_err_(errbuf, errbuf_len, "the CPU is one device: engine.devices must be 0 or 1");
        return ZKPIPE_ERR_OUT_OF_RANGE;
    }
    if (!cpu && (n > gpus || n > ZKPIPE_ENGINE_STATUS_MAX_DEVICES)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%u GPUs asked for; this machine has %u (at most %d are used)", n,
                 gpus, ZKPIPE_ENGINE_STATUS_MAX_DEVICES);
        set_err_(errbuf, errbuf_len, msg);
        return ZKPIPE_ERR_OUT_OF_RANGE;
    }
    zkp_g16_backend **b = calloc(n, sizeof *b);
    if (!b) return ZKPIPE_ERR_NO_MEMORY;
    for (unsigned i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, cpu ? "cpu" : "cuda:%u", i);
        zkpipe_status st = zkp_g16_backend_open(&b[i], name, NULL, 0, &d);
        if (st != ZKPIPE_OK) {
            set_err_(errbuf, errbuf_len, d.msg[0] ? d.msg : zkpipe_strerror(st));
            close_backends_(b, i);
            return st;
        }
        zkp_gpu *g = zkp_g16_backend_gpu(b[i]);
        if (g) {
            zkp_gpu_set_memory_budget(g, c->vram_budget_bytes);
            /* Partition after partition allocates the same working set:
             * kept, it costs the driver nothing and no free waits for the
             * next partition's upload (docs/MEMORY.md). */
            zkp_gpu_set_cache(g, 1);
        }
    }
    c->devices = n;
    *out = b;
    return ZKPIPE_OK;
}

/* The pool's region hooks with a GPU: big regions are registered with the
 * driver once, when mapped, so the device half's uploads of a, b, c and
 * the witness run at the bus's speed. A region the driver refuses is
 * still used, at the speed of pageable memory. */
#define PIN_REGION_MIN_BYTES ((size_t)16 << 20)

static void pin_region_(void *ctx, void *base, size_t bytes) {
    (void)ctx;
    zkpipe_status st = zkp_gpu_host_register(base, bytes, NULL);
    (void)st; /* refused: the region stays pageable, slower to copy but as good */
}

static void unpin_region_(void *ctx, void *base, size_t bytes) {
    (void)ctx;
    zkp_gpu_host_unregister(base, bytes);
}

static zkpipe_status start_thread_(eng_worker *w, void *(*fn)(void *)) {
    if (pthread_create(&w->thread, NULL, fn, w) != 0) return ZKPIPE_ERR_NO_MEMORY;
    w->started = 1;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_create(zkpipe_engine **out, const zkpipe_engine_config *cfg,
                                   char *errbuf, size_t errbuf_len) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    /* A build with a fault compiled in must not pass for a normal one. */
    const char *fault = zkp_fault_warning();
    if (fault) fprintf(stderr, "zkpipe engine: %s\n", fault);
    zkpipe_engine_config c;
    if (cfg)
        c = *cfg;
    else
        (void)zkpipe_engine_config_default(&c);
    zkp_g16_backend **backends = NULL;
    zkpipe_status bst = open_backends_(&c, &backends, errbuf, errbuf_len);
    if (bst != ZKPIPE_OK) return bst;
    if (!c.synth_workers) c.synth_workers = 1;
    if (!c.device_workers) c.device_workers = 2;
    if (!c.finalize_workers) c.finalize_workers = 1;
    size_t nw = 1 + c.synth_workers + (size_t)c.devices * c.device_workers + c.finalize_workers;
    if (nw > ZKPIPE_ENGINE_STATUS_MAX_WORKERS) {
        set_err_(errbuf, errbuf_len, "too many workers");
        close_backends_(backends, c.devices);
        return ZKPIPE_ERR_OUT_OF_RANGE;
    }
    zkpipe_engine *e = calloc(1, sizeof *e);
    if (!e) {
        close_backends_(backends, c.devices);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    e->cfg = c;
    e->cfg.device = NULL; /* not kept: the backends have it */
    e->backends = backends;
    e->cfg.timeline_csv = NULL; /* not kept: the sampler has it */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    e->device_threads = c.device_threads ? c.device_threads : (unsigned)(ncpu > 0 ? ncpu : 1);
    zkp_diag d;
    d.msg[0] = 0;
    zkpipe_status st = zkp_mem_tracker_create(&e->tracker);
    zkp_mem_pool_config pc;
    (void)zkp_mem_pool_config_default(&pc);
    if (c.pool_idle_max_bytes) pc.idle_max_bytes = c.pool_idle_max_bytes;
    if (zkp_g16_backend_is_gpu(backends[0])) {
        pc.region_mapped = pin_region_;
        pc.region_unmapping = unpin_region_;
        pc.region_hook_min_bytes = PIN_REGION_MIN_BYTES;
        /* No idle cap by default: a registered region costs its
         * unregistration and, when the next partition maps one, a new
         * registration (about 0.3 s for 4 GiB, during which the driver
         * holds the device workers' calls back). The decay and the exchange
         * rule still give idle memory back. */
        if (!c.pool_idle_max_bytes) pc.idle_max_bytes = UINT64_MAX;
    }
    if (st == ZKPIPE_OK) st = zkp_mem_pool_create(&e->pool, e->tracker, &pc);
    if (st == ZKPIPE_OK) {
        zkp_mem_budget_config bc;
        (void)zkp_mem_budget_config_default(&bc);
        bc.total_bytes = c.budget_bytes;
        bc.pool = e->pool;
        st = zkp_mem_budget_create(&e->budget, &bc, NULL, &d);
    }
    if (st == ZKPIPE_OK) {
        zkp_mem_sampler_config sc = {.period_ms = c.rss_period_ms,
                                     .csv_path = c.timeline_csv,
                                     .tracker = e->tracker,
                                     .budget = e->budget};
        st = zkp_mem_sampler_start(&e->sampler, &sc, &d);
    }
    if (st != ZKPIPE_OK) {
        set_err_(errbuf, errbuf_len, d.msg[0] ? d.msg : zkpipe_strerror(st));
        (void)zkp_mem_sampler_stop(&e->sampler, NULL);
        (void)zkp_mem_budget_destroy(&e->budget);
        (void)zkp_mem_pool_destroy(&e->pool);
        (void)zkp_mem_tracker_destroy(&e->tracker);
        close_backends_(e->backends, e->cfg.devices);
        free(e);
        return st;
    }
    pthread_mutex_init(&e->lk, NULL);
    pthread_cond_init(&e->admit_cv, NULL);
    pthread_cond_init(&e->synth_cv, NULL);
    pthread_cond_init(&e->device_cv, NULL);
    pthread_cond_init(&e->final_cv, NULL);
    pthread_cond_init(&e->done_cv, NULL);
    pthread_cond_init(&e->key_cv, NULL);
    atomic_init(&e->admit_interrupt, 0);
    e->next_job_id = 1;
    e->dev_lock = calloc(c.devices, sizeof *e->dev_lock);
    e->workers = calloc(nw, sizeof *e->workers);
    if (!e->dev_lock || !e->workers) {
        free(e->dev_lock);
        free(e->workers);
        e->dev_lock = NULL;
        e->workers = NULL;
        e->n_workers = 0;
        zkpipe_engine *tmp = e;
        (void)zkpipe_engine_destroy(&tmp);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    for (unsigned i = 0; i < c.devices; i++) pthread_mutex_init(&e->dev_lock[i], NULL);
    e->n_workers = nw;
    size_t i = 0;
    e->workers[i++].role = ZKPIPE_WORKER_DISPATCH;
    e->synth_limit = c.synth_workers;
    for (unsigned k = 0; k < c.synth_workers; k++) {
        e->workers[i].rank = k;
        e->workers[i++].role = ZKPIPE_WORKER_SYNTH;
    }
    for (unsigned dv = 0; dv < c.devices; dv++)
        for (unsigned k = 0; k < c.device_workers; k++) {
            e->workers[i].role = ZKPIPE_WORKER_DEVICE;
            e->workers[i++].device = dv;
        }
    for (unsigned k = 0; k < c.finalize_workers; k++) e->workers[i++].role = ZKPIPE_WORKER_FINALIZE;
    for (i = 0; i < nw && st == ZKPIPE_OK; i++) {
        e->workers[i].e = e;
        st = start_thread_(&e->workers[i], e->workers[i].role == ZKPIPE_WORKER_DISPATCH
                                               ? dispatcher_main_
                                               : eng_worker_main);
    }
    if (st != ZKPIPE_OK) {
        set_err_(errbuf, errbuf_len, "cannot start the engine's threads");
        zkpipe_engine *tmp = e;
        (void)zkpipe_engine_destroy(&tmp);
        return st;
    }
    /* The baseline: everything the engine is before its first job,
     * threads and the code a proof will run included, ... */
    (void)zkp_mem_prefault_code();
    /* Nor free heap pages left by whatever ran before: they would count in
     * the baseline and then vanish at the first trim. */
    zkp_mem_trim_heap();
    uint64_t rss = 0;
    (void)zkp_mem_read_rss(&rss);
    pthread_mutex_lock(&e->lk);
    e->baseline_rss = rss;
    pthread_mutex_unlock(&e->lk);
    *out = e;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_destroy(zkpipe_engine **ep) {
    if (!ep || !*ep) return ZKPIPE_OK;
    zkpipe_engine *e = *ep;
    pthread_mutex_lock(&e->lk);
    for (eng_job *j = e->jobs; j; j = j->next)
        if (!j->final) {
            j->cancelled = 1;
            eng_job_fail_locked(e, j, ZKPIPE_ERR_CANCELLED, "the engine was shut down");
        }
    e->stop = 1;
    atomic_store(&e->admit_interrupt, 1);
    pthread_cond_broadcast(&e->admit_cv);
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->device_cv);
    pthread_cond_broadcast(&e->final_cv);
    pthread_cond_broadcast(&e->key_cv);
    pthread_mutex_unlock(&e->lk);
    /* The dispatcher first (it admits nothing more), then the stages in
     * order, each draining its queue of cancelled partitions. */
    for (size_t i = 0; i < e->n_workers; i++)
        if (e->workers[i].started) pthread_join(e->workers[i].thread, NULL);
    /* Anything still queued (only if a thread failed to start). */
    eng_queue *qs[3] = {&e->synth_q, &e->device_q, &e->final_q};
    pthread_mutex_lock(&e->lk);
    for (int q = 0; q < 3; q++) {
        eng_part *p;
        while ((p = eng_queue_pop(qs[q])) != NULL) {
            pthread_mutex_unlock(&e->lk);
            eng_part_free_buffers(p);
            pthread_mutex_lock(&e->lk);
            eng_part_settle_locked(e, p, ZKPIPE_ERR_CANCELLED, "the engine was shut down");
        }
    }
    pthread_mutex_unlock(&e->lk);
    while (e->jobs) {
        eng_job *j = e->jobs;
        e->jobs = j->next;
        free_job_(j);
    }
    for (size_t i = 0; i < e->n_keys; i++) eng_key_destroy(e, e->keys[i]);
    free(e->keys);
    (void)zkp_mem_sampler_stop(&e->sampler, NULL);
    zkpipe_status st = zkp_mem_budget_destroy(&e->budget);
    if (st == ZKPIPE_OK) st = zkp_mem_pool_destroy(&e->pool);
    if (st == ZKPIPE_OK) st = zkp_mem_tracker_destroy(&e->tracker);
    if (e->dev_lock)
        for (unsigned i = 0; i < e->cfg.devices; i++) pthread_mutex_destroy(&e->dev_lock[i]);
    free(e->dev_lock);
    free(e->workers);
    close_backends_(e->backends, e->cfg.devices);
    pthread_cond_destroy(&e->admit_cv);
    pthread_cond_destroy(&e->synth_cv);
    pthread_cond_destroy(&e->device_cv);
    pthread_cond_destroy(&e->final_cv);
    pthread_cond_destroy(&e->done_cv);
    pthread_cond_destroy(&e->key_cv);
    pthread_mutex_destroy(&e->lk);
    free(e);
    *ep = NULL;
    return st;
}

static eng_key *find_key_locked_(zkpipe_engine *e, uint32_t id) {
    return id >= 1 && id <= e->n_keys ? e->keys[id - 1] : NULL;
}

/* Registers path as a key of kind (seal and check_subgroups for a PoRep
 * key); see zkpipe_engine_register_key. */
static zkpipe_status register_(zkpipe_engine *e, uint32_t *key_id, const char *path,
                               eng_key_kind kind, const zkp_fil_seal_proof *seal,
                               int check_subgroups) {
    zkp_file_stamp stamp;
    uint64_t digest;
    zkp_diag d;
    d.msg[0] = 0;
    zkpipe_status st = eng_key_file_identity(path, kind, &stamp, &digest, &d);
    if (st != ZKPIPE_OK) return st;
    if (stamp.size == 0) return ZKPIPE_ERR_IO;
    pthread_mutex_lock(&e->lk);
    for (size_t i = 0; i < e->n_keys; i++) {
        eng_key *k = e->keys[i];
        if (strcmp(k->path, path) != 0) continue;
        /* One file is one key: another kind or circuit for a path already
         * registered is refused rather than rebinding the key. The seal
         * proofs of one circuit (V1, V1_1, synthetic PoRep of one size)
         * share the key. */
        if (k->kind != kind || (seal && !zkp_fil_same_circuit(k->seal, seal)) ||
            k->check_subgroups != check_subgroups) {
            pthread_mutex_unlock(&e->lk);
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        }
        *key_id = k->id;
        if (zkp_file_stamp_same(&k->stamp, &stamp) && k->header_digest == digest) {
            pthread_mutex_unlock(&e->lk);
            return ZKPIPE_OK;
        }
        /* Bound to the new file: what was loaded from the old one goes
         * first, so nothing of it is used with the new one. */
        pthread_mutex_unlock(&e->lk);
        st = eng_key_evict(e, k);
        pthread_mutex_lock(&e->lk);
        if (st == ZKPIPE_OK && (k->tier == ZKPIPE_KEY_HOT || k->tier == ZKPIPE_KEY_LOADING))
            st = ZKPIPE_ERR_INVALID_ARGUMENT; /* loaded again meanwhile */
        if (st == ZKPIPE_OK) {
            k->stamp = stamp;
            k->header_digest = digest;
            k->file_bytes = stamp.size;
            k->tier = ZKPIPE_KEY_COLD;
        }
        pthread_mutex_unlock(&e->lk);
        return st;
    }
    if (e->n_keys == e->cap_keys) {
        size_t cap = e->cap_keys ? 2 * e->cap_keys : 8;
        eng_key **nk = realloc(e->keys, cap * sizeof *nk);
        if (!nk)
            st = ZKPIPE_ERR_NO_MEMORY;
        else {
            e->keys = nk;
            e->cap_keys = cap;
        }
    }
    eng_key *k = st == ZKPIPE_OK ? calloc(1, sizeof *k) : NULL;
    char *p = k ? strdup(path) : NULL;
    if (!p) {
        free(k);
        pthread_mutex_unlock(&e->lk);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    k->path = p;
    k->kind = kind;
    k->seal = seal;
    k->check_subgroups = check_subgroups;
    k->file_bytes = stamp.size;
    k->stamp = stamp;
    k->header_digest = digest;
    k->tier = ZKPIPE_KEY_COLD;
    k->id = (uint32_t)e->n_keys + 1;
    e->keys[e->n_keys++] = k;
    *key_id = k->id;
    pthread_mutex_unlock(&e->lk);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_register_key(zkpipe_engine *e, uint32_t *key_id, const char *path) {
    if (!e || !key_id || !path) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return register_(e, key_id, path, ENG_KEY_ZKEY, NULL, 0);
}

zkpipe_status zkpipe_engine_register_porep_key(zkpipe_engine *e, uint32_t *key_id,
                                               const char *params_path,
                                               uint64_t registered_seal_proof,
                                               int check_subgroups) {
    if (!e || !key_id || !params_path) return ZKPIPE_ERR_INVALID_ARGUMENT;
    const zkp_fil_seal_proof *seal = registered_seal_proof <= UINT32_MAX
                                         ? zkp_fil_seal_proof_by_id((uint32_t)registered_seal_proof)
                                         : NULL;
    if (!seal) return ZKPIPE_ERR_UNSUPPORTED;
    return register_(e, key_id, params_path, ENG_KEY_POREP, seal, check_subgroups != 0);
}

zkpipe_status zkpipe_engine_check_key_file(zkpipe_engine *e, uint32_t key_id, char *msg,
                                           size_t msg_len) {
    if (msg && msg_len) msg[0] = 0;
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_key *k = find_key_locked_(e, key_id);
    pthread_mutex_unlock(&e->lk);
    if (!k) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_diag d;
    d.msg[0] = 0;
    zkpipe_status st = eng_key_file_check(e, k, &d);
    if (st != ZKPIPE_OK && msg && msg_len) snprintf(msg, msg_len, "%s", d.msg);
    return st;
}

zkpipe_status zkpipe_engine_load_key(zkpipe_engine *e, uint32_t key_id) {
    return zkpipe_engine_load_key_msg(e, key_id, NULL, 0);
}

zkpipe_status zkpipe_engine_load_key_msg(zkpipe_engine *e, uint32_t key_id, char *msg,
                                         size_t msg_len) {
    if (msg && msg_len) msg[0] = 0;
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_key *k = find_key_locked_(e, key_id);
    pthread_mutex_unlock(&e->lk);
    if (!k) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkp_diag d;
    d.msg[0] = 0;
    zkpipe_status st = eng_key_ensure_hot(e, k, ZKPIPE_PRIORITY_CRITICAL, &d);
    /* A key loaded ahead of its jobs goes to the GPUs ahead of them too:
     * its first partitions then find it settled there (a partition's share
     * is its witness alone, the host's copy of the points gone), instead of
     * being admitted at the unsettled size and waiting for the upload. */
    if (st == ZKPIPE_OK) st = eng_key_ready_on_devices(e, k, &d);
    if (st != ZKPIPE_OK && msg && msg_len) snprintf(msg, msg_len, "%s", d.msg);
    return st;
}

zkpipe_status zkpipe_engine_evict_key(zkpipe_engine *e, uint32_t key_id) {
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_key *k = find_key_locked_(e, key_id);
    pthread_mutex_unlock(&e->lk);
    if (!k) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return eng_key_evict(e, k);
}

zkpipe_status zkpipe_engine_set_paused(zkpipe_engine *e, int paused) {
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    e->paused = paused != 0;
    wake_dispatcher_locked_(e);
    pthread_mutex_unlock(&e->lk);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_set_limits(zkpipe_engine *e, uint64_t budget_bytes,
                                       unsigned synth_workers, char *msg, size_t msg_len) {
    zkp_diag d;
    d.msg[0] = 0;
    zkpipe_status st = ZKPIPE_OK;
    if (!e) {
        st = zkp_diag_fail(&d, ZKPIPE_ERR_INVALID_ARGUMENT, "no engine");
        goto out;
    }
    if (synth_workers > e->cfg.synth_workers) {
        st = zkp_diag_fail(&d, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "%u synthesis workers asked for; the engine has %u", synth_workers,
                           e->cfg.synth_workers);
        goto out;
    }
    if (budget_bytes) {
        /* What the hot keys hold, and one partition of the largest of them
         * beside it: a budget below that could admit nothing. */
        uint64_t keys = 0, part = 0;
        pthread_mutex_lock(&e->lk);
        for (size_t i = 0; i < e->n_keys; i++) {
            const eng_key *k = e->keys[i];
            if (k->tier != ZKPIPE_KEY_HOT) continue;
            zkp_mem_reservation_info ri;
            if (k->res && zkp_mem_reservation_info_get(k->res, &ri) == ZKPIPE_OK)
                keys += ri.reserved_bytes;
            if (k->part_bytes > part) part = k->part_bytes;
        }
        pthread_mutex_unlock(&e->lk);
        if (budget_bytes < keys + part) {
            st = zkp_diag_fail(&d, ZKPIPE_ERR_INVALID_ARGUMENT,
                               "a budget of %llu bytes cannot hold the hot keys (%llu bytes) "
                               "and a partition (%llu)", (unsigned long long)budget_bytes,
                               (unsigned long long)keys, (unsigned long long)part);
            goto out;
        }
        if ((st = zkp_mem_budget_set_total(e->budget, budget_bytes, &d)) != ZKPIPE_OK) goto out;
    }
    pthread_mutex_lock(&e->lk);
    if (synth_workers) e->synth_limit = synth_workers;
    pthread_cond_broadcast(&e->synth_cv);
    wake_dispatcher_locked_(e);
    pthread_mutex_unlock(&e->lk);
out:
    if (msg && msg_len) snprintf(msg, msg_len, "%s", st == ZKPIPE_OK ? "" : d.msg);
    return st;
}

static eng_job *find_job_locked_(zkpipe_engine *e, uint64_t id) {
    for (eng_job *j = e->jobs; j; j = j->next)
        if (j->id == id) return j;
    return NULL;
}

/* A PoRep job's C1, parsed (porep_parse_) at submit or ahead of it.
 *
 * The parsed C1 is the job's for as long as the job lives (every partition
 * is synthesized from it), so it is allocated from a reservation of its own
 * and charged as "request", like the daemon's request buffers. Its size is
 * known only once parsed: the reservation is the text's length first (the
 * parsed form holds each value in fewer bytes than its decimal digits: 11.5
 * MB from a 37.5 MB C1 at 32 GiB), plus a chunk of the parser's arena, and
 * what the C1 did not take goes back at once. A document the reservation
 * cannot hold is refused (ZKPIPE_ERR_NO_MEMORY), never held uncharged. It
 * waits at CRITICAL priority: the text is in memory already, and the
 * accounting should not queue behind partitions. */
#define C1_ARENA_SLACK ((uint64_t)2 << 20)

struct zkpipe_porep_inputs {
    uint32_t key_id;
    zkp_fil_c1 *c1;
    zkp_mem_reservation *res; /* what c1 is allocated from */
};

void zkpipe_porep_inputs_free(zkpipe_porep_inputs **in) {
    if (!in || !*in) return;
    zkpipe_porep_inputs *p = *in;
    if (p->c1) {
        zkp_fil_c1_free(p->c1);
        free(p->c1);
    }
    ENG_IGNORE(zkp_mem_release(&p->res)); /* after the C1 it paid for */
    free(p);
    *in = NULL;
}

static zkpipe_status porep_parse_(zkpipe_engine *e, const eng_key *k, const uint8_t *text,
                                  size_t len, zkpipe_porep_inputs *in, zkp_diag *d) {
    zkp_mem_budget_stats bs;
    (void)zkp_mem_budget_stats_get(e->budget, &bs);
    size_t est_sz;
    if (zkp_mem_charge_size(len, &est_sz) != ZKPIPE_OK) return ZKPIPE_ERR_NO_MEMORY;
    uint64_t est = (uint64_t)est_sz + C1_ARENA_SLACK + ((uint64_t)4 << 10);
    if (est > bs.total_bytes) est = bs.total_bytes;
    zkpipe_status st = eng_reserve(e, est, ZKPIPE_PRIORITY_CRITICAL, k, 0, &in->res, d);
    if (st != ZKPIPE_OK) return st;
    const zkp_allocator *al;
    (void)zkp_mem_reservation_allocator(in->res, &al);
    in->c1 = calloc(1, sizeof *in->c1);
    if (!in->c1) return ZKPIPE_ERR_NO_MEMORY;
    st = zkp_fil_c1_parse(in->c1, (const char *)text, len, "C1", al, ZKP_MEM_REQUEST, d);
    if (st != ZKPIPE_OK) {
        free(in->c1);
        in->c1 = NULL;
        return st;
    }
    zkp_mem_reservation_info ri;
    (void)zkp_mem_reservation_info_get(in->res, &ri);
    if (ri.reserved_bytes > ri.allocated_bytes)
        ENG_IGNORE(zkp_mem_release_part(in->res, ri.reserved_bytes - ri.allocated_bytes));
    if (zkp_fil_c2_check_c1(k->seal, in->c1, d) != ZKPIPE_OK)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (in->c1->vanilla_proofs.n == 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "the C1 has no partitions");
    /* The vanilla proofs, before any partition is synthesized: the circuit
     * takes some of the C1's values from others (a label is recomputed from
     * its parents), so a C1 with one changed value can still give proofs
     * that verify for its commitments, or fail only after every partition
     * was proved. Either way the C1 is not what the sealer made. */
    return zkp_fil_c1_verify(in->c1, d);
}

zkpipe_status zkpipe_engine_porep_inputs_parse_msg(zkpipe_engine *e, uint32_t key_id,
                                                   const uint8_t *c1, size_t c1_len,
                                                   zkpipe_porep_inputs **out, char *msg,
                                                   size_t msg_len) {
    zkp_diag d;
    d.msg[0] = 0;
    if (msg && msg_len) msg[0] = 0;
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!e || !c1 || !c1_len) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_key *k = find_key_locked_(e, key_id);
    pthread_mutex_unlock(&e->lk);
    if (!k || k->kind != ENG_KEY_POREP) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkpipe_porep_inputs *in = calloc(1, sizeof *in);
    if (!in) return ZKPIPE_ERR_NO_MEMORY;
    in->key_id = key_id;
    zkpipe_status st = porep_parse_(e, k, c1, c1_len, in, &d);
    if (st != ZKPIPE_OK) {
        if (msg && msg_len) snprintf(msg, msg_len, "%s", d.msg);
        zkpipe_porep_inputs_free(&in);
        return st;
    }
    *out = in;
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_porep_inputs_parse(zkpipe_engine *e, uint32_t key_id,
                                               const uint8_t *c1, size_t c1_len,
                                               zkpipe_porep_inputs **out) {
    return zkpipe_engine_porep_inputs_parse_msg(e, key_id, c1, c1_len, out, NULL, 0);
}

/* A PoRep job's partitions from its C1: taken over from *in (parsed ahead),
 * or parsed here from req->porep_c1. */
static zkpipe_status porep_inputs_(zkpipe_engine *e, eng_job *j, const zkpipe_job_request *req,
                                   zkpipe_porep_inputs **in) {
    if (!*in) {
        zkpipe_status st = zkpipe_engine_porep_inputs_parse(e, req->key_id, req->porep_c1,
                                                            req->porep_c1_len, in);
        if (st != ZKPIPE_OK) return st;
    }
    j->c1 = (*in)->c1;
    j->c1_res = (*in)->res;
    (*in)->c1 = NULL;
    (*in)->res = NULL;
    zkpipe_porep_inputs_free(in);
    j->n_parts = j->c1->vanilla_proofs.n;
    return ZKPIPE_OK;
}

/* zkpipe_engine_submit; *in is the request's parsed C1, set to NULL once
 * taken (the caller frees what is left). */
static zkpipe_status submit_(zkpipe_engine *e, uint64_t *job_id, const zkpipe_job_request *req,
                             zkpipe_porep_inputs **in) {
    if (!e || !job_id || !req || req->priority < ZKPIPE_PRIORITY_LOW ||
        req->priority > ZKPIPE_PRIORITY_CRITICAL)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    int porep = req->porep_c1 != NULL || *in != NULL;
    if (porep ? req->witnesses || req->n_witnesses ||
                    (*in ? req->porep_c1 || (*in)->key_id != req->key_id : !req->porep_c1_len)
              : !req->witnesses || !req->n_witnesses)
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; !porep && i < req->n_witnesses; i++)
        if (!req->witnesses[i].path && !req->witnesses[i].data) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_key *k = find_key_locked_(e, req->key_id);
    pthread_mutex_unlock(&e->lk);
    if (!k || k->kind != (porep ? ENG_KEY_POREP : ENG_KEY_ZKEY)) return ZKPIPE_ERR_INVALID_ARGUMENT;
    eng_job *j = calloc(1, sizeof *j);
    if (!j) return ZKPIPE_ERR_NO_MEMORY;
    zkpipe_status st = porep ? porep_inputs_(e, j, req, in) : ZKPIPE_OK;
    if (st != ZKPIPE_OK) {
        free_job_(j);
        return st;
    }
    if (!porep) j->n_parts = req->n_witnesses;
    j->parts = calloc(j->n_parts, sizeof *j->parts);
    j->witnesses = porep ? NULL : calloc(j->n_parts, sizeof *j->witnesses);
    if (req->request_id) j->request_id = strdup(req->request_id);
    int oom = !j->parts || (!porep && !j->witnesses) || (req->request_id && !j->request_id);
    for (size_t i = 0; !oom && i < j->n_parts; i++) {
        if (!porep) {
            j->witnesses[i] = req->witnesses[i];
            if (req->witnesses[i].path) {
                j->witnesses[i].path = strdup(req->witnesses[i].path);
                if (!j->witnesses[i].path) oom = 1;
            }
        }
        j->parts[i].job = j;
        j->parts[i].index = (unsigned)i;
    }
    if (oom) {
        free_job_(j);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    j->priority = req->priority;
    j->want_json = req->want_json;
    atomic_init(&j->cancel, 0);
    /* Never a proof from a key whose file changed under it. */
    zkp_diag kd;
    kd.msg[0] = 0;
    zkpipe_status kst = eng_key_file_check(e, k, &kd);
    if (kst != ZKPIPE_OK) {
        free_job_(j);
        return kst;
    }
    pthread_mutex_lock(&e->lk);
    if (e->stop) {
        pthread_mutex_unlock(&e->lk);
        free_job_(j);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    if (j->request_id)
        for (eng_job *o = e->jobs; o; o = o->next)
            if (o->request_id && !strcmp(o->request_id, j->request_id)) {
                /* Idempotent: the live job with this request id. */
                *job_id = o->id;
                pthread_mutex_unlock(&e->lk);
                free_job_(j);
                return ZKPIPE_OK;
            }
    j->key = k;
    j->id = e->next_job_id++;
    j->seq = ++e->next_seq;
    j->t_submit = eng_now();
    /* Into the table in (priority desc, seq asc) order. */
    eng_job **at = &e->jobs;
    while (*at && (*at)->priority >= j->priority) at = &(*at)->next;
    j->next = *at;
    *at = j;
    e->jobs_live++;
    *job_id = j->id;
    wake_dispatcher_locked_(e);
    pthread_mutex_unlock(&e->lk);
    return ZKPIPE_OK;
}

zkpipe_status zkpipe_engine_submit(zkpipe_engine *e, uint64_t *job_id,
                                   const zkpipe_job_request *req) {
    zkpipe_porep_inputs *in = req ? req->porep_inputs : NULL;
    zkpipe_status st = submit_(e, job_id, req, &in);
    zkpipe_porep_inputs_free(&in); /* taken over, whatever the outcome */
    return st;
}

zkpipe_status zkpipe_engine_cancel(zkpipe_engine *e, uint64_t job_id) {
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&e->lk);
    eng_job *j = find_job_locked_(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->lk);
        return ZKPIPE_ERR_INVALID_ARGUMENT;
    }
    if (!j->final) {
        j->cancelled = 1;
        eng_job_fail_locked(e, j, ZKPIPE_ERR_CANCELLED, "cancelled");
        /* Its partitions waiting in a stage queue are settled here and now:
         * behind other jobs' work they could wait seconds for a worker to
         * pop and drop them, the job live and their memory held all the
         * while. They stay counted in flight until settled, so the job
         * cannot turn final in between. */
        eng_part *taken[3] = {eng_queue_take_job(&e->synth_q, j),
                              eng_queue_take_job(&e->device_q, j),
                              eng_queue_take_job(&e->final_q, j)};
        if (taken[0] || taken[1] || taken[2]) {
            pthread_mutex_unlock(&e->lk);
            for (int q = 0; q < 3; q++)
                for (eng_part *p = taken[q]; p; p = p->next) eng_part_free_buffers(p);
            pthread_mutex_lock(&e->lk);
            for (int q = 0; q < 3; q++)
                for (eng_part *p = taken[q], *next; p; p = next) {
                    next = p->next;
                    p->next = NULL;
                    eng_part_settle_locked(e, p, ZKPIPE_ERR_CANCELLED, "cancelled while queued");
                }
        }
        eng_job_check_final_locked(e, j);
    }
    pthread_mutex_unlock(&e->lk);
    return ZKPIPE_OK;
}

void zkpipe_stage_times_add(zkpipe_stage_times *sum, const zkpipe_stage_times *t) {
    if (t->queue_wait > sum->queue_wait) sum->queue_wait = t->queue_wait;
    sum->key_load += t->key_load;
    sum->synthesis += t->synthesis;
    sum->device += t->device;
    sum->finalize += t->finalize;
    sum->verify += t->verify;
    for (int s = 0; s < ZKPIPE_N_STEPS; s++) sum->steps[s] += t->steps[s];
}

const char *zkpipe_proof_step_name(zkpipe_proof_step step) {
    static const char *const names[ZKPIPE_N_STEPS] = {
        [ZKPIPE_STEP_H_POLYNOMIAL] = "h_polynomial", [ZKPIPE_STEP_MSM_H] = "msm_h",
        [ZKPIPE_STEP_MSM_A] = "msm_a",   [ZKPIPE_STEP_MSM_B1] = "msm_b1",
        [ZKPIPE_STEP_MSM_L] = "msm_l",   [ZKPIPE_STEP_MSM_B2] = "msm_b2",
    };
    return (unsigned)step < ZKPIPE_N_STEPS ? names[step] : NULL;
}

static size_t proof_encode_(const zkp_g16_proof *p, uint8_t *out) {
    switch (p->curve) {
    case ZKPIPE_CURVE_BN254:
        bn254_g1_affine_to_circom(out, &p->u.bn254.a);
        bn254_g2_affine_to_circom(out + 64, &p->u.bn254.b);
        bn254_g1_affine_to_circom(out + 192, &p->u.bn254.c);
        return 256;
    case ZKPIPE_CURVE_BLS12_381:
        bls12_381_g1_affine_to_circom(out, &p->u.bls12_381.a);
        bls12_381_g2_affine_to_circom(out + 96, &p->u.bls12_381.b);
        bls12_381_g1_affine_to_circom(out + 288, &p->u.bls12_381.c);
        return 384;
    }
    return 0;
}

/* Moves a final job's results into out (lock not needed: the job is out of
 * the table). */
static zkpipe_status collect_(eng_job *j, zkpipe_curve curve, zkpipe_job_result *out) {
    memset(out, 0, sizeof *out);
    out->job_id = j->id;
    out->status = j->status;
    snprintf(out->error, sizeof out->error, "%s", j->status == ZKPIPE_OK ? "" : j->error);
    out->curve = curve;
    out->partitions = calloc(j->n_parts, sizeof *out->partitions);
    if (!out->partitions) return ZKPIPE_ERR_NO_MEMORY;
    out->n_partitions = j->n_parts;
    for (size_t i = 0; i < j->n_parts; i++) {
        eng_part *p = &j->parts[i];
        zkpipe_partition_result *r = &out->partitions[i];
        r->status = p->state == PART_DONE      ? ZKPIPE_OK
                    : p->state == PART_SKIPPED ? ZKPIPE_ERR_CANCELLED
                                               : p->status;
        r->verified = p->verified;
        r->admit_seq = p->admit_seq;
        r->times = p->times;
        zkpipe_stage_times_add(&out->times, &p->times);
        if (p->state != PART_DONE) continue;
        if (j->key->kind == ENG_KEY_POREP) {
            zkp_diag d;
            r->status = zkp_bp_proof_encode(r->proof, &p->proof.u.bls12_381, &d);
            if (r->status != ZKPIPE_OK) continue; /* a verified proof always encodes */
            r->proof_len = ZKP_BP_PROOF_BYTES;
        } else {
            r->proof_len = proof_encode_(&p->proof, r->proof);
        }
        r->n_public = p->pub.n;
        if (p->pub.n) {
            r->public_inputs = malloc(p->pub.n * 32);
            if (!r->public_inputs) return ZKPIPE_ERR_NO_MEMORY;
            for (size_t v = 0; v < p->pub.n; v++)
                for (int b = 0; b < 32; b++)
                    r->public_inputs[32 * v + (size_t)b] =
                        (uint8_t)(p->pub.values[4 * v + (size_t)(31 - b) / 8] >> (8 * ((31 - b) % 8)));
        }
        if (j->want_json) {
            size_t len;
            if (zkp_snarkjs_write_proof(&p->proof, &r->proof_json, &len) != ZKPIPE_OK ||
                zkp_snarkjs_write_public(&p->pub, &r->public_json, &len) != ZKPIPE_OK)
                return ZKPIPE_ERR_NO_MEMORY;
        }
    }
    out->times.total = j->t_final - j->t_submit;
    return ZKPIPE_OK;
}

/* The first final job in the table (lock held), or NULL. */
static eng_job *find_final_locked_(zkpipe_engine *e) {
    for (eng_job *j = e->jobs; j; j = j->next)
        if (j->final) return j;
    return NULL;
}

/* zkpipe_engine_await for one job (job_id != 0) or for whichever is final
 * first (job_id == 0; no job to wait for is not an error then). */
static zkpipe_status await_(zkpipe_engine *e, uint64_t job_id, int64_t timeout_ms,
                            zkpipe_job_result *out) {
    struct timespec dl;
    zkp_realtime_after_ms(&dl, timeout_ms > 0 ? timeout_ms : 0);
    pthread_mutex_lock(&e->lk);
    eng_job *j;
    for (;;) {
        j = job_id ? find_job_locked_(e, job_id) : find_final_locked_(e);
        if (job_id && !j) {
            pthread_mutex_unlock(&e->lk);
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        }
        if (j && j->final) break;
        if (timeout_ms == 0) {
            pthread_mutex_unlock(&e->lk);
            return ZKPIPE_ERR_TIMEOUT;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&e->done_cv, &e->lk);
        } else if (pthread_cond_timedwait(&e->done_cv, &e->lk, &dl) == ETIMEDOUT) {
            j = job_id ? find_job_locked_(e, job_id) : find_final_locked_(e);
            if (j && j->final) break;
            pthread_mutex_unlock(&e->lk);
            return j || !job_id ? ZKPIPE_ERR_TIMEOUT : ZKPIPE_ERR_INVALID_ARGUMENT;
        }
    }
    for (eng_job **at = &e->jobs; *at; at = &(*at)->next)
        if (*at == j) {
            *at = j->next;
            break;
        }
    /* A later load of the key rewrites its fields under the lock. */
    zkpipe_curve curve = j->key->curve;
    pthread_mutex_unlock(&e->lk);
    zkpipe_status st = collect_(j, curve, out);
    free_job_(j);
    if (st != ZKPIPE_OK) zkpipe_job_result_clear(out);
    return st;
}

zkpipe_status zkpipe_engine_await(zkpipe_engine *e, uint64_t job_id, int64_t timeout_ms,
                                  zkpipe_job_result *out) {
    if (!e || !out || job_id == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return await_(e, job_id, timeout_ms, out);
}

zkpipe_status zkpipe_engine_await_any(zkpipe_engine *e, int64_t timeout_ms, zkpipe_job_result *out) {
    if (!e || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return await_(e, 0, timeout_ms, out);
}

void zkpipe_job_result_clear(zkpipe_job_result *r) {
    if (!r) return;
    for (size_t i = 0; r->partitions && i < r->n_partitions; i++) {
        free(r->partitions[i].public_inputs);
        free(r->partitions[i].proof_json);
        free(r->partitions[i].public_json);
    }
    free(r->partitions);
    memset(r, 0, sizeof *r);
}

zkpipe_status zkpipe_engine_trim(zkpipe_engine *e, uint64_t keep_idle_bytes) {
    if (!e) return ZKPIPE_ERR_INVALID_ARGUMENT;
    zkpipe_status st = zkp_mem_pool_trim(e->pool, keep_idle_bytes);
    for (unsigned i = 0; i < e->cfg.devices; i++) {
        zkp_gpu *g = zkp_g16_backend_gpu(e->backends[i]);
        if (g) (void)zkp_gpu_release_cached(g);
    }
    /* Small buffers (witnesses of small circuits, public inputs, results)
     * come from malloc; its arenas keep freed pages until asked. */
    zkp_mem_trim_heap();
    return st;
}

/* A caller's buffer: a mapping of its own rather than a pool region, as a
 * received request has no size class worth keeping idle for, and its
 * pages must leave the resident set the moment it goes. */
struct zkpipe_engine_buffer {
    zkpipe_engine *e;
    zkp_mem_reservation *res;
    uint8_t *data;
    size_t size; /* the mapping: the bytes asked for, rounded up to pages */
};

zkpipe_status zkpipe_engine_buffer_create(zkpipe_engine *e, size_t bytes, int64_t timeout_ms,
                                          zkpipe_engine_buffer **out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!e || bytes == 0) return ZKPIPE_ERR_INVALID_ARGUMENT;
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096;
    if (bytes > SIZE_MAX - pg) return ZKPIPE_ERR_NO_MEMORY;
    size_t size = (bytes + pg - 1) / pg * pg;
    zkpipe_engine_buffer *b = calloc(1, sizeof *b);
    if (!b) return ZKPIPE_ERR_NO_MEMORY;
    zkp_mem_wait_opts wo = {.priority = ZKP_MEM_PRIO_CRITICAL, .timeout_ms = timeout_ms};
    zkpipe_status st = zkp_mem_reserve_wait(e->budget, size, &wo, &b->res, NULL);
    if (st != ZKPIPE_OK) {
        free(b);
        return st;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        ENG_IGNORE(zkp_mem_release(&b->res));
        free(b);
        return ZKPIPE_ERR_NO_MEMORY;
    }
    if (zkp_mem_tracker_charge(e->tracker, ZKP_MEM_REQUEST, size) != ZKPIPE_OK) {
        munmap(p, size);
        ENG_IGNORE(zkp_mem_release(&b->res));
        free(b);
        return ZKPIPE_ERR_NO_MEMORY;
    }
#ifdef MADV_HUGEPAGE
    /* As the pool's regions: a 50 MB request fills in 2 MiB pages, a
     * twenty-fifth of the faults. */
    if (size >= ((size_t)2 << 20)) (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    b->e = e;
    b->data = p;
    b->size = size;
    *out = b;
    return ZKPIPE_OK;
}

uint8_t *zkpipe_engine_buffer_data(const zkpipe_engine_buffer *b) { return b ? b->data : NULL; }

size_t zkpipe_engine_buffer_size(const zkpipe_engine_buffer *b) { return b ? b->size : 0; }

void zkpipe_engine_buffer_destroy(zkpipe_engine_buffer **bp) {
    if (!bp || !*bp) return;
    zkpipe_engine_buffer *b = *bp;
    *bp = NULL;
    /* The pages go first, then the charge: the budget never counts bytes
     * as free while they are still resident. */
    munmap(b->data, b->size);
    ENG_IGNORE(zkp_mem_tracker_discharge(b->e->tracker, ZKP_MEM_REQUEST, b->size));
    ENG_IGNORE(zkp_mem_release(&b->res));
    free(b);
}

const char *zkpipe_engine_mem_category_name(unsigned i) {
    return i < ZKP_MEM_CATEGORY_COUNT ? zkp_mem_category_name((zkp_mem_category)i) : "?";
}

const char *zkpipe_engine_gpu_mem_category_name(unsigned i) {
    return zkp_gpu_mem_category_name((zkp_gpu_mem_category)i);
}

/* Each device's line of the status: reads atomics of its context and asks
 * the driver for free memory, which takes microseconds, with no engine
 * lock held. */
static void devices_status_(zkpipe_engine *e, zkpipe_engine_status *out) {
    _Static_assert(ZKPIPE_ENGINE_GPU_MEM_CATEGORIES == ZKP_GPU_MEM_COUNT_, "GPU categories");
    out->n_devices = e->cfg.devices;
    for (unsigned i = 0; i < e->cfg.devices; i++) {
        zkpipe_device_status *ds = &out->devices[i];
        zkp_g16_backend *b = e->backends[i];
        snprintf(ds->name, sizeof ds->name, "%s", zkp_g16_backend_name(b));
        ds->lost = zkp_g16_backend_lost(b, ds->lost_reason, sizeof ds->lost_reason);
        zkp_gpu *g = zkp_g16_backend_gpu(b);
        if (!g) continue;
        ds->is_gpu = 1;
        ds->ordinal = zkp_gpu_ordinal(g);
        zkp_gpu_info info;
        if (zkp_gpu_device_info(&info, ds->ordinal, NULL) == ZKPIPE_OK) {
            ds->vram_total_bytes = info.total_bytes;
            ds->vram_free_bytes = info.free_bytes;
        }
        zkp_gpu_stats gs;
        zkp_gpu_stats_get(g, &gs);
        for (int c = 0; c < ZKP_GPU_MEM_COUNT_; c++) ds->vram_bytes[c] = gs.live_bytes[c];
        ds->vram_tracked_bytes = gs.live_total;
        ds->vram_peak_bytes = gs.peak_total;
        ds->h2d_bytes = gs.h2d_bytes;
        ds->d2h_bytes = gs.d2h_bytes;
        ds->busy_seconds = gs.busy_seconds;
        ds->vram_budget_bytes = zkp_gpu_memory_budget(g);
    }
}

zkpipe_status zkpipe_engine_get_status(zkpipe_engine *e, zkpipe_engine_status *out) {
    if (!e || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->lk);
    for (eng_job *j = e->jobs; j; j = j->next)
        if (!j->final && j->status == ZKPIPE_OK) {
            out->queued_admit += j->n_parts - j->next_admit;
            if (j->key->id <= ZKPIPE_ENGINE_STATUS_MAX_KEYS)
                out->keys[j->key->id - 1].queued += (uint32_t)(j->n_parts - j->next_admit);
        }
    out->queued_synth = e->synth_q.len;
    out->queued_device = e->device_q.len;
    out->queued_finalize = e->final_q.len;
    out->running_synth = e->running[0];
    out->running_device = e->running[1];
    out->running_finalize = e->running[2];
    out->jobs_live = e->jobs_live;
    out->jobs_completed = e->jobs_completed;
    out->jobs_failed = e->jobs_failed;
    out->jobs_cancelled = e->jobs_cancelled;
    out->partitions_completed = e->partitions_completed;
    out->proofs_verified = e->proofs_verified;
    out->n_workers = e->n_workers;
    for (size_t i = 0; i < e->n_workers; i++) {
        out->workers[i].role = e->workers[i].role;
        out->workers[i].state = e->workers[i].state;
        out->workers[i].device = e->workers[i].device;
    }
    out->n_keys = e->n_keys < ZKPIPE_ENGINE_STATUS_MAX_KEYS ? e->n_keys : ZKPIPE_ENGINE_STATUS_MAX_KEYS;
    for (size_t i = 0; i < out->n_keys; i++) {
        const eng_key *k = e->keys[i];
        zkpipe_key_status *ks = &out->keys[i];
        ks->id = k->id;
        ks->tier = k->tier;
        ks->curve = k->curve;
        ks->file_bytes = k->file_bytes;
        ks->resident_bytes = k->resident_bytes;
        ks->partition_bytes = k->part_bytes;
        ks->device_partition_bytes = k->dev_part_bytes;
        ks->running = k->running;
        ks->porep = k->kind == ENG_KEY_POREP;
        ks->loads = k->loads;
        ks->evictions = k->evictions;
    }
    out->baseline_rss_bytes = e->baseline_rss;
    pthread_mutex_unlock(&e->lk);

    zkp_mem_snapshot snap;
    (void)zkp_mem_tracker_snapshot(e->tracker, &snap);
    _Static_assert(ZKP_MEM_CATEGORY_COUNT == ZKPIPE_ENGINE_MEM_CATEGORIES,
                   "the public status names every tracker category");
    for (unsigned c = 0; c < ZKPIPE_ENGINE_MEM_CATEGORIES; c++) {
        out->mem_live[c] = snap.cat[c].live_bytes;
        out->mem_peak[c] = snap.cat[c].peak_bytes;
    }
    out->tracked_bytes = snap.total_live_bytes;
    out->tracked_peak_bytes = snap.total_peak_bytes;
    zkp_mem_budget_stats bs;
    (void)zkp_mem_budget_stats_get(e->budget, &bs);
    out->budget_total_bytes = bs.total_bytes;
    out->budget_reserved_bytes = bs.reserved_bytes;
    out->budget_available_bytes = bs.total_bytes > bs.reserved_bytes ? bs.total_bytes - bs.reserved_bytes : 0;
    out->budget_peak_reserved_bytes = bs.peak_reserved_bytes;
    out->reservations_waiting = bs.waiting;
    out->reservation_refusals = atomic_load(&e->res_refusals);
    out->reservation_violations = atomic_load(&e->res_violations);
    zkp_mem_sampler_stats ss;
    if (zkp_mem_sampler_stats_get(e->sampler, &ss) == ZKPIPE_OK) {
        out->rss_bytes = ss.rss_bytes;
        out->peak_rss_bytes = ss.peak_rss_bytes;
    }
    devices_status_(e, out);
    return ZKPIPE_OK;
}
