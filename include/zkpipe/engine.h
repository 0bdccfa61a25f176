/* zkpipe engine: a pipelined, memory-budgeted Groth16 proving service in a
 * library.
 *
 * A job is one proving key plus P partitions, one witness each. Every
 * partition flows through
 *
 *     admit -> synthesize -> prove_start (device) -> finalize + verify -> assemble
 *
 * Admission is by bytes: before a partition is synthesized, its working set
 * (computed from the key's dimensions) is reserved from one memory budget,
 * and every big buffer of the partition is allocated from that reservation.
 * The a, b, c part goes back to the budget right after prove_start, the rest
 * after finalize. Keys are loaded on demand and charged to the same budget;
 * idle keys are evicted, least recently used first, when admission needs
 * room.
 *
 * Everything lives in an explicit engine context; there is no global state.
 * Every function may be called from any thread. Functions return a
 * zkpipe_status and never abort. */
#ifndef ZKPIPE_ENGINE_H
#define ZKPIPE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe/curve.h"
#include "zkpipe/zkpipe.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkpipe_engine zkpipe_engine;

/* Served in this order, then by job arrival, then by partition index, so
 * jobs finish rather than interleave. */
typedef enum {
    ZKPIPE_PRIORITY_LOW = 0,
    ZKPIPE_PRIORITY_NORMAL = 1,
    ZKPIPE_PRIORITY_HIGH = 2,
    ZKPIPE_PRIORITY_CRITICAL = 3,
} zkpipe_priority;

typedef struct {
    uint64_t budget_bytes;     /* memory budget; 0: detect (cgroup limit or MemTotal, less a margin) */
    unsigned synth_workers;    /* synthesis workers; 0: 1 */
    unsigned synth_threads;    /* threads of one synthesis (SpMV); 0: 1 */
    unsigned devices;          /* proving devices; 0: every GPU (one CPU device without GPUs) */
    unsigned device_workers;   /* workers per device, sharing its lock; 0: 2 */
    unsigned device_threads;   /* threads of one prove_start and its finalize; 0: every CPU */
    unsigned finalize_workers; /* finalize + verify workers; 0: 1 */
    int verify;                /* verify every proof before its job completes; default 1 */
    unsigned rss_period_ms;    /* RSS sampler period; 0: 100 */
    const char *timeline_csv;  /* optional CSV timeline of RSS and tracked bytes; NULL: none */
    /* idle pooled memory kept for reuse; 0: the pool's default (1 GiB), or
     * no cap beside GPUs, whose pool regions are registered with the driver */
    uint64_t pool_idle_max_bytes;
    /* Where prove_start runs: "cpu" (the default when NULL), "cuda" (GPUs 0
     * .. devices-1, every GPU when devices is 0; creation fails without
     * one), or "auto" (the GPUs if there are any, else the CPU). Each device
     * has its own device workers and lock; a key's G1 bases are made
     * resident on a GPU the first time a partition of it runs there. */
    const char *device;
    /* Device memory the engine may take on each GPU, a budget as budget_bytes
     * is for host memory: an allocation that would pass it is refused before
     * the driver is asked, so a key's bases that do not fit beside what is
     * resident are streamed, and a partition's scratch that does not fit
     * fails that partition alone. 0: the whole device. */
    uint64_t vram_budget_bytes;
    /* 1: a partition's a, b and c are made in host memory by its synthesis
     * worker even on GPUs. 0 (the default): on GPUs they are made on the
     * device from the witness, through the key's compiled circuit made
     * resident beside its bases, when it fits there; a partition then
     * takes its witness alone in host memory. */
    int abc_on_host;
} zkpipe_engine_config;

/* The defaults above (verify = 1, everything else 0 / NULL). */
ZKPIPE_API zkpipe_status zkpipe_engine_config_default(zkpipe_engine_config *cfg);

/* Starts the engine's threads. errbuf (may be NULL) receives a message on
 * failure. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_create(zkpipe_engine **out,
                                                                 const zkpipe_engine_config *cfg,
                                                                 char *errbuf, size_t errbuf_len);

/* Cancels every live job, joins every thread, frees every key and result
 * not yet collected, and sets *e to NULL (accepts *e == NULL). No other call
 * may be in flight on the engine. */
ZKPIPE_API zkpipe_status zkpipe_engine_destroy(zkpipe_engine **e);

/* Registers a .zkey file and returns its id. The file is not read yet
 * beyond its section table and header sections (the key is "cold"); it is
 * loaded when a partition needs it, or by zkpipe_engine_load_key.
 *
 * The key is bound to the file as it is now: device, inode, size, mtime and
 * a digest of the section table and header sections. Once the file at the
 * path is another one or has changed, the engine refuses to prove with the
 * key or to load it (ZKPIPE_ERR_FILE_CHANGED) until it is registered again;
 * a key loaded before the change is never used with the new file.
 *
 * Registering the same path again returns the same id; when the file
 * changed meanwhile, the key is bound to the new file (unloaded first;
 * ERR_INVALID_ARGUMENT while partitions of it run). A file that is not a
 * zkey container is refused with the parser's status. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_register_key(zkpipe_engine *e,
                                                                       uint32_t *key_id,
                                                                       const char *zkey_path);

/* Registers a Filecoin PoRep parameter file (bellperson's .params, as
 * published or as `zkpipe setup dev --filecoin porep` writes it) as the key
 * of the PoRep circuit of registered_seal_proof (Filecoin's numeric
 * RegisteredSealProof; V1, V1_1 and synthetic PoRep of one sector size
 * share one circuit). Only the file's header is read now; a load checks
 * the file's section lengths against the circuit before decoding a point,
 * decodes every section (each point on the curve, and in the subgroup
 * with check_subgroups), makes the key and unmaps the file. The binding
 * to the file is as for zkpipe_engine_register_key. ERR_UNSUPPORTED for an
 * unknown registered proof, the parser's status for a file that is not
 * bellperson parameters. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_register_porep_key(
    zkpipe_engine *e, uint32_t *key_id, const char *params_path, uint64_t registered_seal_proof,
    int check_subgroups);

/* ZKPIPE_OK when the file at the key's path is still the one registered
 * (a stat, nothing read); ZKPIPE_ERR_FILE_CHANGED with what changed in msg
 * (may be NULL) otherwise, ERR_IO when it is gone, ERR_INVALID_ARGUMENT for
 * an unknown id. zkpipe_engine_submit makes the same check. */
ZKPIPE_API zkpipe_status zkpipe_engine_check_key_file(zkpipe_engine *e, uint32_t key_id, char *msg,
                                                      size_t msg_len);

/* A PoRep job's C1, parsed and checked against its key ahead of the submit
 * (zkpipe_engine_porep_inputs_parse). */
typedef struct zkpipe_porep_inputs zkpipe_porep_inputs;

/* One partition's witness: a .wtns file path, or .wtns bytes in memory
 * (data/len, used when path is NULL). The bytes are borrowed: they must stay
 * valid until the job is final (await reported it) or the engine is
 * destroyed. */
typedef struct {
    const char *path;
    const uint8_t *data;
    size_t len;
} zkpipe_witness;

typedef struct {
    uint32_t key_id;
    const zkpipe_witness *witnesses; /* one per partition */
    size_t n_witnesses;
    zkpipe_priority priority;
    /* Optional idempotency key (NULL: none). Submitting again while a job
     * with the same request id is live returns that job's id; once it has
     * been collected by await the id is free again. It never becomes the
     * job id: job ids are the engine's own and unique. */
    const char *request_id;
    /* Also render each proof and its public inputs as snarkjs JSON text. */
    int want_json;
    /* Instead of witnesses, for a PoRep key: a sector's C1 output (the JSON
     * document Filecoin's seal_commit_phase1 returns; borrowed until the
     * call returns). Each of its vanilla proofs is one partition, whose
     * witness the synthesis workers compute from it; the public inputs
     * come from the C1's commitments and seed. Proofs are in bellperson's
     * 192-byte encoding. A C1 of another circuit, or one that does not
     * parse, is refused at submit (ERR_INVALID_ARGUMENT, ERR_PARSE). */
    const uint8_t *porep_c1;
    size_t porep_c1_len;
    /* Instead of porep_c1: the C1 parsed ahead by
     * zkpipe_engine_porep_inputs_parse for this key_id. The submit takes it
     * over whatever it returns (the caller frees it only if it never
     * submits it). */
    zkpipe_porep_inputs *porep_inputs;
} zkpipe_job_request;

/* Parses a PoRep job's C1, checks it against the circuit of key key_id and
 * verifies its vanilla proofs (so that a C1 with a changed label, path
 * element or root is refused before any partition is synthesized, never
 * proved), as zkpipe_engine_submit does with porep_c1, but ahead of it: the parsed
 * form is charged to the budget ("request") from here on, and a submit
 * given it as porep_inputs takes it over. For a service with a lock of its
 * own around its submits: the parse takes about a second at 32 GiB and may
 * wait for memory, which belongs outside that lock; the submit is then
 * quick. c1 is borrowed until the call returns. The statuses of the
 * submit's C1 checks (ERR_INVALID_ARGUMENT, ERR_PARSE, ERR_NO_MEMORY). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_porep_inputs_parse(
    zkpipe_engine *e, uint32_t key_id, const uint8_t *c1, size_t c1_len,
    zkpipe_porep_inputs **out);
/* The same; on failure msg (msg_len bytes, may be NULL) says what is wrong
 * with the C1 (ERR_PROOF_INVALID: which vanilla proof fails, and how). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_porep_inputs_parse_msg(
    zkpipe_engine *e, uint32_t key_id, const uint8_t *c1, size_t c1_len,
    zkpipe_porep_inputs **out, char *msg, size_t msg_len);

/* Frees inputs that no submit took, and gives their memory back to the
 * budget; sets *in to NULL. Accepts NULL and *in == NULL. */
ZKPIPE_API void zkpipe_porep_inputs_free(zkpipe_porep_inputs **in);

/* Queues a job; *job_id identifies it. ERR_INVALID_ARGUMENT for an unknown
 * key, no witnesses, or inputs of another kind than the key's (witnesses
 * for a PoRep key, a C1 for a zkey, inputs parsed for another key). */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_submit(zkpipe_engine *e, uint64_t *job_id,
                                                                 const zkpipe_job_request *req);

/* Asks a job to stop: partitions not yet admitted never are, and running
 * ones stop at their next stage boundary and give back their memory. A job
 * that had already completed keeps its result. ERR_INVALID_ARGUMENT for an
 * unknown id. */
ZKPIPE_API zkpipe_status zkpipe_engine_cancel(zkpipe_engine *e, uint64_t job_id);

/* The steps of device, and the G2 MSM wherever it ran: the H values from
 * a, b and c (with the witness's upload and a, b, c themselves where the
 * key's circuit is on the GPU), then each MSM. The B2 MSM is part of device
 * on a GPU that holds its bases, of finalize otherwise. */
typedef enum {
    ZKPIPE_STEP_H_POLYNOMIAL,
    ZKPIPE_STEP_MSM_H,
    ZKPIPE_STEP_MSM_A,
    ZKPIPE_STEP_MSM_B1,
    ZKPIPE_STEP_MSM_L,
    ZKPIPE_STEP_MSM_B2,
    ZKPIPE_N_STEPS
} zkpipe_proof_step;

/* The step's name as reports, JSON and metrics spell it: "h_polynomial",
 * "msm_h", "msm_a", "msm_b1", "msm_l", "msm_b2"; NULL out of range. */
ZKPIPE_API const char *zkpipe_proof_step_name(zkpipe_proof_step step);

/* Seconds spent in each stage. For a partition, its own; for a job, the sum
 * over its partitions, except total (submission to completion, wall
 * clock) and queue_wait (the longest wait of any partition for admission). */
typedef struct {
    double queue_wait; /* submitted -> reservation granted */
    double key_load;   /* loading the key for this partition, if it did */
    double synthesis;  /* witness copy + a, b, c */
    double device;     /* prove_start: H polynomial and the G1 MSMs */
    double finalize;   /* prove_finalize: G2 MSM and assembly */
    double verify;
    double total;
    double steps[ZKPIPE_N_STEPS]; /* indexed by zkpipe_proof_step */
} zkpipe_stage_times;

/* sum += t, as a job's times sum its partitions': the longest queue_wait,
 * total untouched, every other stage added. */
ZKPIPE_API void zkpipe_stage_times_add(zkpipe_stage_times *sum, const zkpipe_stage_times *t);

/* Largest proof encoding: BLS12-381, 96 + 192 + 96 bytes. */
#define ZKPIPE_PROOF_MAX_BYTES 384

typedef struct {
    zkpipe_status status;
    /* The proof as A || B || C in the circom/snarkjs binary point encoding
     * (ZKPIPE_ENCODING_CIRCOM of curve.h): 256 bytes on BN254, 384 on
     * BLS12-381; for a PoRep key, bellperson's compressed encoding, 192
     * bytes. proof_len 0 when the partition has no proof. */
    uint8_t proof[ZKPIPE_PROOF_MAX_BYTES];
    size_t proof_len;
    /* Public inputs, n_public scalars of 32 bytes each, big-endian. */
    uint8_t *public_inputs;
    size_t n_public;
    char *proof_json;  /* snarkjs proof.json text when want_json; else NULL */
    char *public_json; /* snarkjs public.json text when want_json; else NULL */
    int verified;      /* 1 when the proof was verified */
    /* The engine-wide order in which partitions were admitted (1, 2, ...);
     * 0 for a partition never admitted. */
    uint64_t admit_seq;
    zkpipe_stage_times times;
} zkpipe_partition_result;

typedef struct {
    uint64_t job_id;
    /* OK: every partition has a (verified) proof. Otherwise the first
     * failure's status (ERR_CANCELLED for a cancelled job) and error names
     * the partition and what failed. */
    zkpipe_status status;
    char error[512];
    zkpipe_curve curve;
    size_t n_partitions;
    zkpipe_partition_result *partitions;
    zkpipe_stage_times times;
} zkpipe_job_result;

/* Waits up to timeout_ms (< 0: as long as it takes; 0: do not wait) for a
 * job to be final, then moves its result into *out and forgets the job.
 * ERR_TIMEOUT when it is not final in time (*out untouched, the job stays);
 * ERR_INVALID_ARGUMENT for an unknown (or already collected) id. The status
 * returned is that of the waiting; the job's own is out->status. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_await(zkpipe_engine *e, uint64_t job_id,
                                                                int64_t timeout_ms,
                                                                zkpipe_job_result *out);

/* zkpipe_engine_await for whichever job is final first: a service that
 * keeps its own table of results collects them all with one thread. Final
 * jobs are taken in submission order. ERR_TIMEOUT when none is final in
 * time. Do not mix with zkpipe_engine_await on the same jobs. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_await_any(zkpipe_engine *e,
                                                                    int64_t timeout_ms,
                                                                    zkpipe_job_result *out);

/* Frees what a result owns; accepts a zeroed result. */
ZKPIPE_API void zkpipe_job_result_clear(zkpipe_job_result *r);

/* ------------------------------------------------------------------------
 * Status: a snapshot that takes only short locks and atomic loads, so it
 * never waits behind proving work. */

/* key csr witness abc aux scratch pool_idle gpu_staging key_file request */
#define ZKPIPE_ENGINE_MEM_CATEGORIES 10
#define ZKPIPE_ENGINE_STATUS_MAX_KEYS 32
#define ZKPIPE_ENGINE_STATUS_MAX_WORKERS 64
#define ZKPIPE_ENGINE_STATUS_MAX_DEVICES 16
#define ZKPIPE_ENGINE_GPU_MEM_CATEGORIES 5 /* bases abc scalars scratch cached */

typedef struct {
    char name[160];    /* "cpu" or "cuda:N (model)" */
    int is_gpu;
    unsigned ordinal;  /* the GPU's CUDA ordinal */
    uint64_t vram_total_bytes, vram_free_bytes; /* the driver's view, whole device */
    uint64_t vram_tracked_bytes, vram_peak_bytes; /* this engine's allocations */
    uint64_t vram_bytes[ZKPIPE_ENGINE_GPU_MEM_CATEGORIES];
    uint64_t h2d_bytes, d2h_bytes; /* copied so far */
    double busy_seconds;           /* inside device calls so far */
    uint64_t vram_budget_bytes;    /* engine.vram_budget; 0: none beyond the device */
    /* 1 once a fault left the device failing every call (an illegal
     * address in a kernel, an uncorrectable ECC error): it takes no more
     * partitions until the process restarts, and lost_reason has the
     * driver's message. */
    int lost;
    char lost_reason[256];
} zkpipe_device_status;

typedef enum {
    ZKPIPE_KEY_COLD = 0, /* registered; never loaded */
    ZKPIPE_KEY_WARM = 1, /* loaded before and evicted: file known, pages likely cached */
    ZKPIPE_KEY_LOADING = 2,
    ZKPIPE_KEY_HOT = 3, /* loaded, compiled and charged to the budget */
} zkpipe_key_tier;

typedef enum {
    ZKPIPE_WORKER_SYNTH = 0,
    ZKPIPE_WORKER_DEVICE = 1,
    ZKPIPE_WORKER_FINALIZE = 2,
    ZKPIPE_WORKER_DISPATCH = 3,
} zkpipe_worker_role;

typedef enum {
    ZKPIPE_WORKER_IDLE = 0,
    ZKPIPE_WORKER_BUSY = 1,
    ZKPIPE_WORKER_WAITING = 2, /* the dispatcher, waiting for memory; a device worker, for its device */
} zkpipe_worker_state;

typedef struct {
    uint32_t id;
    zkpipe_key_tier tier;
    zkpipe_curve curve;         /* 0 until first loaded */
    uint64_t file_bytes;
    uint64_t resident_bytes;    /* charged to the budget while hot */
    uint64_t partition_bytes;   /* working set of one partition; 0 until first loaded */
    /* Device memory one partition takes on a GPU beside the key's resident
     * bases, as the engine estimates it when it makes the key resident
     * under engine.vram_budget; known on a CPU-only engine too (for a
     * cluster's GPU members); 0 until first loaded. */
    uint64_t device_partition_bytes;
    uint32_t running;           /* partitions of this key in flight */
    uint32_t queued;            /* partitions of its live jobs not admitted yet */
    int porep;                  /* 1: a Filecoin PoRep key (zkpipe_engine_register_porep_key) */
    uint64_t loads, evictions;
} zkpipe_key_status;

typedef struct {
    /* Partitions per stage: waiting for admission (including those whose
     * job is waiting for memory), queued before synthesis, before the
     * device, before finalize; and in each stage now. */
    size_t queued_admit, queued_synth, queued_device, queued_finalize;
    size_t running_synth, running_device, running_finalize;
    size_t jobs_live;
    uint64_t jobs_completed, jobs_failed, jobs_cancelled;
    uint64_t partitions_completed, proofs_verified;
    size_t n_workers;
    struct {
        zkpipe_worker_role role;
        zkpipe_worker_state state;
        unsigned device; /* device workers */
    } workers[ZKPIPE_ENGINE_STATUS_MAX_WORKERS];
    /* Live and peak bytes per category, named by zkpipe_engine_mem_category_name. */
    uint64_t mem_live[ZKPIPE_ENGINE_MEM_CATEGORIES];
    uint64_t mem_peak[ZKPIPE_ENGINE_MEM_CATEGORIES];
    uint64_t tracked_bytes, tracked_peak_bytes;
    uint64_t rss_bytes, peak_rss_bytes, baseline_rss_bytes;
    uint64_t budget_total_bytes, budget_reserved_bytes, budget_available_bytes,
        budget_peak_reserved_bytes;
    uint64_t reservations_waiting;
    /* Checked at every stage boundary of every partition: allocations a
     * reservation refused (its estimate was short), and times a
     * reservation was seen holding less than what was allocated from it
     * (must stay 0). */
    uint64_t reservation_refusals, reservation_violations;
    size_t n_keys; /* at most ZKPIPE_ENGINE_STATUS_MAX_KEYS listed */
    zkpipe_key_status keys[ZKPIPE_ENGINE_STATUS_MAX_KEYS];
    /* The proving devices: the CPU, or each GPU with its memory as the
     * driver reports it and as the engine has it allocated. */
    size_t n_devices;
    zkpipe_device_status devices[ZKPIPE_ENGINE_STATUS_MAX_DEVICES];
} zkpipe_engine_status;

ZKPIPE_API zkpipe_status zkpipe_engine_get_status(zkpipe_engine *e, zkpipe_engine_status *out);

/* "key", "csr", ... for i < ZKPIPE_ENGINE_MEM_CATEGORIES; "?" otherwise. */
ZKPIPE_API const char *zkpipe_engine_mem_category_name(unsigned i);
/* The name of device memory category i (bases, abc, scalars, scratch). */
ZKPIPE_API const char *zkpipe_engine_gpu_mem_category_name(unsigned i);

/* Loads a key now (it becomes hot), waiting for budget as needed, and,
 * with GPU devices, makes it ready on each of them (its bases and compiled
 * circuit resident there), as its first partition would have. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_load_key(zkpipe_engine *e, uint32_t key_id);
/* The same; on failure msg (msg_len bytes, may be NULL) says what failed:
 * the parser's or the length check's message, naming the file. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_load_key_msg(zkpipe_engine *e,
                                                                       uint32_t key_id, char *msg,
                                                                       size_t msg_len);

/* Stops admitting partitions (paused = 1) or resumes (0). Partitions
 * already admitted carry on. For draining, and for tests that queue work
 * before it may start. */
ZKPIPE_API zkpipe_status zkpipe_engine_set_paused(zkpipe_engine *e, int paused);

/* Changes two limits while the engine runs, each left as it is when 0:
 *   - budget_bytes, the memory budget's total. A larger one admits what
 *     now fits; a smaller one takes nothing back: admission waits until
 *     what is reserved fits under it, so RSS comes down as the partitions
 *     in flight finish. It must hold the hot keys' reservations and one
 *     partition of the largest of them.
 *   - synth_workers, how many synthesis workers take partitions: at most
 *     the config's synth_workers (the threads the engine started). A worker
 *     over the new count finishes the partition it has first.
 * For an operator's new limits, and for a benchmark that sweeps them with
 * one key loaded. ZKPIPE_ERR_INVALID_ARGUMENT with the reason in msg
 * (msg_len bytes, may be NULL): a count above the config's, a budget that
 * cannot hold the hot keys and a partition or that is more than the
 * machine's memory. */
ZKPIPE_API zkpipe_status zkpipe_engine_set_limits(zkpipe_engine *e, uint64_t budget_bytes,
                                                  unsigned synth_workers, char *msg,
                                                  size_t msg_len);

/* Gives idle memory back to the operating system: the pool's idle regions
 * beyond keep_idle_bytes are unmapped (waiting for the pool's trimmer to do
 * it), then the C library is asked to return its free heap pages
 * (malloc_trim, where the C library is glibc); the GPUs' cached working
 * buffers go back to their drivers. Running work is not waited for and
 * keeps its memory. For idle periods, shutdown and tests. */
ZKPIPE_API zkpipe_status zkpipe_engine_trim(zkpipe_engine *e, uint64_t keep_idle_bytes);

/* Memory the engine's caller holds on behalf of its jobs: a daemon's
 * received request messages and what it decodes from them (witnesses, a
 * Filecoin payload). Each buffer is a mapping of its own, charged to the
 * memory budget and to the "request" category while it lives, and unmapped
 * when destroyed, so nothing of it stays resident once the job no longer
 * needs it. The budget grants it at the highest priority, ahead of waiting
 * partitions: at once when it fits, else as running partitions give bytes
 * back, waiting up to timeout_ms (0: not at all; < 0: as long as it
 * takes). ZKPIPE_ERR_TIMEOUT when not granted in time, ZKPIPE_ERR_NO_MEMORY
 * when the bytes exceed the budget's total or the OS refuses. Contents
 * start zeroed. */
typedef struct zkpipe_engine_buffer zkpipe_engine_buffer;
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_buffer_create(zkpipe_engine *e,
                                                                        size_t bytes,
                                                                        int64_t timeout_ms,
                                                                        zkpipe_engine_buffer **out);
/* The buffer's bytes (at least the size asked for, page-aligned). */
ZKPIPE_API uint8_t *zkpipe_engine_buffer_data(const zkpipe_engine_buffer *b);
ZKPIPE_API size_t zkpipe_engine_buffer_size(const zkpipe_engine_buffer *b);
/* Unmaps the buffer and returns its bytes to the budget; sets *b to NULL
 * (accepts NULL and *b == NULL). The engine must still exist. */
ZKPIPE_API void zkpipe_engine_buffer_destroy(zkpipe_engine_buffer **b);

/* Evicts a key if no partition of it is running (ERR_INVALID_ARGUMENT
 * otherwise, or for an unknown id); a cold or warm key is left as it is. */
ZKPIPE_API ZKPIPE_WARN_UNUSED zkpipe_status zkpipe_engine_evict_key(zkpipe_engine *e, uint32_t key_id);

#ifdef __cplusplus
}
#endif
#endif
