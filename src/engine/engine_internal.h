/* The engine's internal types, shared by its translation units:
 *
 *   engine.c   the public API, the dispatcher (admission) and the status
 *   keys.c     the key manager: on-demand load, budget charge, LRU eviction
 *   workers.c  the synthesis, device and finalize workers
 *
 * DESIGN (threads, ownership, order)
 *
 * Threads. One dispatcher; synth_workers synthesis workers; devices ×
 * device_workers device workers; finalize_workers finalize workers. The
 * memory pool owns a trimmer thread and the sampler a sampling thread (src/mem).
 *
 * One mutex (engine.lk) guards the job table, the three stage queues, the
 * key table's state fields, the worker states and the counters. It is never
 * held across proving work, a key load, a witness parse or a reservation
 * wait, so a status request waits at most for a queue operation.
 *
 * A partition is owned by exactly one place at a time: the job (not
 * admitted yet), a queue, or the worker that popped it. Its reservation is
 * a field of the partition, so it moves with it through every queue; every
 * big buffer of the partition (witness, a/b/c, MSM scratch, NTT tables) is
 * allocated from that reservation. The reservation is released only by the
 * worker that owns the partition after the last buffer is freed, and
 * zkp_mem_release refuses to return bytes whose data is still live. (A
 * build with ZKPIPE_FAULT_EARLY_RELEASE breaks this on purpose, for the
 * control run: util/fault.h.)
 *
 * A job lives in the table from submit until await collects it. It is final
 * when no partition of it is admitted and in flight and no more will be
 * (all done, or it failed or was cancelled). Workers touch a job only
 * through a partition they own, and a job is never freed while one is in
 * flight, so no worker can see a freed job.
 *
 * A key's proving data (zkey, compiled circuit) is read by workers only
 * while key.running > 0, which the dispatcher raises under the lock when it
 * admits a partition and the finalize stage (or a failing worker) lowers. A
 * key is evicted only with running == 0 and no admission pinning it; its
 * data is taken out of the key under the lock and freed outside it.
 *
 * Devices. Each device has a backend (groth16/backend.h: the CPU, or one
 * GPU's context) and a lock that its device workers take around
 * prove_start, so calls on one GPU context never overlap. A key's ready
 * form on device d (its G1 bases in that GPU's memory) is made by the
 * first device worker of d that proves a partition of it, under d's lock,
 * and lives until the key is evicted, or until another key's bases do not
 * fit on d: then the other keys' copies on d are taken out under the
 * engine lock (so an eviction never sees half of it) and freed, still
 * under d's lock. Only d's workers use a copy, and only under d's lock.
 *
 * Order. Every queue (and admission) is ordered by priority, then job
 * arrival (a sequence number), then partition index. */
#ifndef ZKP_ENGINE_ENGINE_INTERNAL_H
#define ZKP_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "circuit/circuit.h"
#include "filecoin/c2.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "mem/mem.h"
#include "util/diag.h"
#include "zkpipe/engine.h"

/* For statuses that cannot fail on the path at hand, or whose failure only
 * leaks budget (the safe side), under warn_unused_result. */
#define ENG_IGNORE(expr)                \
    do {                                \
        zkpipe_status eng_ign_ = (expr); \
        (void)eng_ign_;                 \
    } while (0)

typedef struct eng_job eng_job;
typedef struct eng_key eng_key;
typedef struct eng_part eng_part;

/* What a key's file is: a snarkjs zkey, whose partitions come with their
 * witnesses, or bellperson parameters of a Filecoin PoRep circuit, whose
 * partitions the engine synthesizes from a C1 (filecoin/c2.h). */
typedef enum { ENG_KEY_ZKEY = 0, ENG_KEY_POREP = 1 } eng_key_kind;

struct eng_key {
    uint32_t id;
    eng_key_kind kind;
    const zkp_fil_seal_proof *seal; /* PoRep: the circuit's registered proof */
    int check_subgroups;            /* PoRep: decode with subgroup checks */
    char *path;
    uint64_t file_bytes;
    /* The file the key is bound to (zkpipe_engine_register_key). */
    zkp_file_stamp stamp;
    uint64_t header_digest;
    zkpipe_key_tier tier;
    /* Valid while tier == HOT (or while the loader/evictor owns them). */
    zkp_zkey zkey;   /* ENG_KEY_ZKEY */
    zkp_fil_c2_key c2; /* ENG_KEY_POREP: the decoded parameters and the key made of them */
    zkp_circuit circuit;
    int circuit_built;
    zkp_g16_pk pk;
    zkp_g16_vk vk;
    zkp_mem_reservation *res; /* the key's share of the budget */
    uint64_t map_charge;      /* tracked under KEY for the file mapping */
    uint64_t resident_bytes;
    /* Dimensions, known after the first load. */
    zkpipe_curve curve;
    uint32_t n_vars, n_public, domain;
    /* Charges of one partition's buffers (zkp_mem_charge_size of each). */
    uint64_t c_witness, c_abc, c_ntt, c_scratch;
    uint64_t part_bytes;     /* reservation of one partition */
    uint64_t part_after_start; /* what stays reserved after prove_start */
    uint64_t dev_part_bytes; /* device memory of one partition (zkp_g16_device_work_bytes) */
    uint32_t running;        /* partitions in flight */
    uint32_t pinned;         /* admissions or loads using it right now */
    uint64_t last_use;       /* LRU clock */
    uint64_t loads, evictions;
    /* The key made ready on each GPU device (NULL on the CPU, or not yet);
     * set and cleared under the engine's lock. */
    zkp_g16_rkey *rkeys[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
    /* The point sets (ZKP_G16_SETS_*) whose host copy was freed because
     * every device holds them (eng_key_settle_on_devices); such a key's
     * device copies go only with the whole key. */
    unsigned host_dropped;
    /* Partitions past prove_start whose finalize runs the B2 MSM on the
     * host's points (their GPU held no B2 copy): those points stay until
     * the last of them settles, whatever the devices hold by then. */
    uint32_t b2_host_readers;
    /* Every GPU makes a partition's a, b and c from its witness, through
     * the compiled circuit resident there (eng_key_settle_on_devices): its
     * synthesis makes the witness alone. */
    int abc_on_device;
};

typedef enum {
    PART_PENDING = 0, /* not admitted */
    PART_SYNTH_Q,
    PART_SYNTH,
    PART_DEVICE_Q,
    PART_DEVICE,
    PART_FINAL_Q,
    PART_FINAL,
    PART_DONE,   /* proof made (and verified) */
    PART_FAILED, /* failed or cancelled after admission */
    PART_SKIPPED /* never admitted (job failed or cancelled first) */
} eng_part_state;

struct eng_part {
    eng_job *job;
    unsigned index;
    eng_part_state state;
    eng_part *next; /* queue link */
    zkp_mem_reservation *res;
    /* What of res goes back once prove_start is done: a, b, c and the NTT
     * tables, as the key's estimate had them when the partition was
     * admitted. */
    uint64_t start_share;
    const zkp_allocator *alloc; /* res's allocator view */
    zkp_buffer witness;
    zkp_buffer abc;
    zkp_g16_pending *pending;
    zkp_g16_public pub;
    zkp_g16_proof proof;
    zkpipe_status status;
    int verified;
    int reads_host_b2; /* counted in its key's b2_host_readers */
    uint64_t admit_seq;
    zkpipe_stage_times times;
    double t_stage; /* when the current stage (or queue) began */
};

struct eng_job {
    uint64_t id;
    uint64_t seq;
    zkpipe_priority priority;
    eng_key *key;
    char *request_id; /* NULL: none */
    int want_json;
    size_t n_parts;
    eng_part *parts;
    zkpipe_witness *witnesses; /* the request's, paths copied (NULL for a PoRep job) */
    zkp_fil_c1 *c1;            /* a PoRep job's parsed C1: one partition per vanilla proof */
    zkp_mem_reservation *c1_res; /* what c1 is allocated from, charged as "request" */
    size_t next_admit;  /* index of the next partition to admit */
    size_t in_flight;   /* admitted and not settled */
    size_t n_done;
    atomic_int cancel;  /* raised by cancel or by a failing partition */
    int cancelled;      /* by the caller */
    zkpipe_status status; /* the first failure */
    char error[512];
    int final;
    int admitting; /* the dispatcher holds a pointer to it without the lock */
    double t_submit, t_final;
    eng_job *next; /* the job table, in (priority, seq) order */
};

typedef struct {
    zkpipe_worker_role role;
    zkpipe_worker_state state;
    unsigned device;
    unsigned rank; /* a synthesis worker's index among them (synth_limit) */
    pthread_t thread;
    int started;
    struct zkpipe_engine *e;
} eng_worker;

typedef struct {
    eng_part *head;
    size_t len;
} eng_queue;

struct zkpipe_engine {
    zkpipe_engine_config cfg;
    unsigned device_threads;
    zkp_mem_tracker *tracker;
    zkp_mem_pool *pool;
    zkp_mem_budget *budget;
    zkp_mem_sampler *sampler;
    uint64_t baseline_rss;

    pthread_mutex_t lk;
    pthread_cond_t admit_cv, synth_cv, device_cv, final_cv, done_cv, key_cv;
    int stop;
    int paused;
    /* Synthesis workers of rank below this take partitions
     * (zkpipe_engine_set_limits); the rest wait. */
    unsigned synth_limit;
    uint64_t admit_seq;
    /* Raised to make the dispatcher's reservation wait give up and look at
     * the queue again: a new job, a cancellation, an idle key, shutdown. */
    atomic_int admit_interrupt;
    _Atomic uint64_t res_refusals, res_violations; /* see zkpipe_engine_status */

    eng_job *jobs; /* the table, ordered for admission */
    size_t jobs_live;
    uint64_t next_job_id, next_seq, lru_clock;
    eng_queue synth_q, device_q, final_q;
    size_t running[3]; /* synth, device, finalize */
    size_t parts_in_flight;
    uint64_t jobs_completed, jobs_failed, jobs_cancelled, partitions_completed, proofs_verified;

    eng_key **keys;
    size_t n_keys, cap_keys;

    pthread_mutex_t *dev_lock; /* one per device */
    zkp_g16_backend **backends; /* one per device */
    /* Devices taken out of service (their backend lost): their workers
     * take no partitions while another device is in service. */
    unsigned char dev_out[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
    unsigned devices_out;
    eng_worker *workers;
    size_t n_workers;
};

double eng_now(void);

/* Queues (engine lock held). */
void eng_queue_push(eng_queue *q, eng_part *p);
eng_part *eng_queue_pop(eng_queue *q);
/* Unlinks every partition of job j from q and returns them linked by next
 * (the caller owns them, as a worker owns a popped one). */
eng_part *eng_queue_take_job(eng_queue *q, const eng_job *j);

/* keys.c */
/* Makes the key hot, loading it if needed (waits for a concurrent load).
 * Lock NOT held on entry or exit. prio orders its reservation. */
zkpipe_status eng_key_ensure_hot(zkpipe_engine *e, eng_key *k, zkpipe_priority prio,
                                 zkp_diag *diag);
/* The same; interruptible: gives up with ZKPIPE_ERR_CANCELLED when
 * admit_interrupt is raised while waiting for budget (the dispatcher). */
zkpipe_status eng_key_ensure_hot_ex(zkpipe_engine *e, eng_key *k, zkpipe_priority prio,
                                    int interruptible, zkp_diag *diag);
/* Evicts the least recently used idle hot key other than except; 1 if one
 * was evicted. Lock NOT held. */
int eng_key_evict_lru(zkpipe_engine *e, const eng_key *except);
/* Frees every key's copy on GPU device dev but except's, so that except's
 * bases fit; the caller holds dev's lock, under which alone those copies
 * are used. Returns how many were freed. */
size_t eng_key_drop_device_copies(zkpipe_engine *e, unsigned dev, const eng_key *except);
/* Once every GPU holds k ready: a partition's estimate without the B2
 * MSM's scratch when every GPU runs it, and a PoRep key's host copy of the
 * point sets that no device reads from the host freed, their share of the
 * budget given back (see keys.c). Lock NOT held. */
void eng_key_settle_on_devices(zkpipe_engine *e, eng_key *k);
void eng_key_settle_on_devices_locked(zkpipe_engine *e, eng_key *k);
/* Evicts k if idle (lock NOT held). */
zkpipe_status eng_key_evict(zkpipe_engine *e, eng_key *k);
/* The identity of the key file at path now: its stamp and header digest
 * (maps the file, reads its section table and header sections; of
 * bellperson parameters, the verifying key and the section lengths). */
zkpipe_status eng_key_file_identity(const char *path, eng_key_kind kind, zkp_file_stamp *stamp,
                                    uint64_t *digest, zkp_diag *diag);
/* ZKPIPE_OK when the file at k's path is the one k is bound to (a stat);
 * ERR_FILE_CHANGED or ERR_IO with the reason in diag. Lock not held. */
zkpipe_status eng_key_file_check(zkpipe_engine *e, eng_key *k, zkp_diag *diag);
void eng_key_destroy(zkpipe_engine *e, eng_key *k);

/* Reserves bytes for an admission or a key load: takes them at once if
 * they fit, else evicts idle keys (never except), else waits in priority
 * order. ZKPIPE_ERR_CANCELLED when admit_interrupt was raised while waiting
 * (interruptible only), ZKPIPE_ERR_NO_MEMORY when it can never fit. Lock
 * NOT held. */
zkpipe_status eng_reserve(zkpipe_engine *e, uint64_t bytes, zkpipe_priority prio,
                          const eng_key *except, int interruptible, zkp_mem_reservation **out,
                          zkp_diag *diag);

/* workers.c */
void *eng_worker_main(void *arg);
/* Takes dev out of service where its backend was found lost (after a
 * device stage failed there, or when a worker of it takes a partition),
 * once, saying so on stderr (engine lock held). */
void eng_device_out_if_lost_locked(zkpipe_engine *e, unsigned dev);
/* Why no device is in service, into msg; 0 while one is (lock held). */
int eng_no_device_locked(zkpipe_engine *e, char *msg, size_t len);
/* Makes k ready on every GPU device that does not hold it yet, as the
 * first partition there would (each under its device's lock), and so
 * settles it (eng_key_settle_on_devices). k must be hot; it is pinned
 * meanwhile. Lock NOT held. */
zkpipe_status eng_key_ready_on_devices(zkpipe_engine *e, eng_key *k, zkp_diag *diag);
/* Settles a partition that stopped (lock held): frees its buffers, releases
 * its reservation, and updates its job and key. */
void eng_part_settle_locked(zkpipe_engine *e, eng_part *p, zkpipe_status st, const char *msg);
/* Frees a partition's buffers and releases its reservation (lock not
 * needed: the caller owns p). */
void eng_part_free_buffers(eng_part *p);

/* engine.c */
/* A job's final-state bookkeeping (lock held): marks it final when nothing
 * is in flight and nothing more will be admitted. */
void eng_job_check_final_locked(zkpipe_engine *e, eng_job *j);
/* Records the first failure of a job and stops its other partitions (lock held). */
void eng_job_fail_locked(zkpipe_engine *e, eng_job *j, zkpipe_status st, const char *msg);

#endif
