/* The constraint system that gadgets write into, over BLS12-381 Fr.
 *
 * Model. bellperson's: a circuit allocates variables, public (inputs) or
 * private (aux), and enforces constraints A * B = C where A, B and C are
 * linear combinations of variables. Variables are numbered per kind in the
 * order they are allocated; input 0 is the constant ONE, allocated by
 * zkp_cs_init before any gadget runs (FACTS 1.4), so a circuit's first
 * alloc_input gets index 1. Constraints are numbered in the order enforced.
 * The input constraints that bellperson's prover appends after synthesis
 * (one A = input_i per input) are not enforced here: like bellperson's
 * test and metric systems, the counts are synthesis's own. bellperson's
 * namespaces only name things for debugging and change nothing in the R1CS,
 * so there are none here.
 *
 * Back ends. A zkp_cs keeps the counts itself and hands every allocation and
 * constraint to a small table of operations (zkp_cs_backend). Two are here:
 *   - count only (zkp_cs_init_counter): no table at all, nothing stored, so
 *     the shape of a partition of any size can be counted in constant memory;
 *   - the recorder (zkp_cs_recorder): keeps every value and every constraint
 *     (a flat term array) and checks them afterwards, reporting the first
 *     unsatisfied constraint by index.
 * and a third, the CSR back end (csr.h), records the rows the prover takes,
 * or only the witness, or only their counts.
 *
 * Values. Gadgets always compute witness values (an allocation passes its
 * value); a back end that does not want them ignores them. The structure
 * never depends on the values, only on which operands are constants.
 *
 * Combinations. Building them is most of a gadget's time (SHA-256's sums
 * and MultiEq's packed equalities above all), and two uses read none: the
 * count, and the CSR back end's witness alone, the one that proving runs.
 * A back end that reads none has no enforce operation; the combinations a
 * gadget makes for such a system (zkp_lc_init_for) are inert, every
 * addition to them a no-op, and enforce counts the constraint. Gadgets
 * build their constraints the same way in every mode and pay for the terms
 * only where a back end reads them (zkp_cs_wants_lcs tells, for the work
 * around the terms, such as their coefficients).
 *
 * Errors. An allocation failure inside a back end is sticky: the zkp_cs
 * records the first status and ignores later operations, and gadgets do not
 * check after each step; callers read zkp_cs_status once at the end. */
#ifndef ZKP_GADGETS_CS_H
#define ZKP_GADGETS_CS_H

#include <stddef.h>
#include <stdint.h>

#include "field/bls12_381_fr.h"
#include "zkpipe/zkpipe.h"

typedef bls12_381_fr_t zkp_fr;

/* A variable: its index, with the top bit set for an input. */
typedef uint32_t zkp_var;
#define ZKP_VAR_INPUT_BIT 0x80000000u
#define ZKP_VAR_ONE ZKP_VAR_INPUT_BIT /* input 0 */
#define ZKP_VAR_MAX_INDEX (ZKP_VAR_INPUT_BIT - 1u)

static inline int zkp_var_is_input(zkp_var v) { return (v & ZKP_VAR_INPUT_BIT) != 0; }
static inline uint32_t zkp_var_index(zkp_var v) { return v & ~ZKP_VAR_INPUT_BIT; }

typedef struct {
    zkp_var var;
    zkp_fr coeff; /* Montgomery form */
} zkp_lc_term;

/* A linear combination: a list of terms, the same variable possibly more
 * than once (bellpepper merges repeated variables into one term; that only
 * changes the matrices' non-zero counts, and the CSR back end will merge
 * when it compiles a row). The first few terms live inside the struct, so
 * the small combinations of the boolean gadgets never touch the heap; longer
 * ones (UInt32 sums, MultiEq) grow by doubling. Since terms may point into
 * the struct itself, a zkp_lc is never copied by value: init it in place. */
#define ZKP_LC_INLINE 4
typedef struct {
    zkp_lc_term *terms; /* inline_terms or heap */
    uint32_t len, cap;
    int oom;   /* a growth failed; the combination is incomplete */
    int inert; /* for a system whose back end reads no combinations: stays empty */
    zkp_lc_term inline_terms[ZKP_LC_INLINE];
} zkp_lc;

void zkp_lc_init(zkp_lc *lc);
void zkp_lc_clear(zkp_lc *lc); /* empties, keeps the storage */
void zkp_lc_free(zkp_lc *lc);  /* frees the storage; an inert combination stays inert */
/* lc += coeff * var */
void zkp_lc_add(zkp_lc *lc, zkp_var var, const zkp_fr *coeff);
void zkp_lc_add_one(zkp_lc *lc, zkp_var var);   /* coefficient 1 */
void zkp_lc_sub_one(zkp_lc *lc, zkp_var var);   /* coefficient -1 */
/* lc += scale * other (scale NULL: 1) */
void zkp_lc_add_lc(zkp_lc *lc, const zkp_lc *other, const zkp_fr *scale);

typedef struct zkp_cs zkp_cs;

typedef struct {
    /* A new variable; index is its number within its kind. */
    zkpipe_status (*alloc)(void *ctx, int is_input, uint32_t index, const zkp_fr *value);
    /* Constraint number index: a * b = c. NULL: the back end reads no
     * combinations, and gadgets build none for it. */
    zkpipe_status (*enforce)(void *ctx, uint64_t index, const zkp_lc *a, const zkp_lc *b,
                             const zkp_lc *c);
} zkp_cs_backend;

struct zkp_cs {
    const zkp_cs_backend *backend; /* NULL: count only */
    void *ctx;
    uint64_t num_inputs; /* including ONE */
    uint64_t num_aux;
    uint64_t num_constraints;
    zkpipe_status status; /* first failure, sticky */
};

/* Whether cs's back end reads the combinations of its constraints. */
static inline int zkp_cs_wants_lcs(const zkp_cs *cs) {
    return cs->backend != NULL && cs->backend->enforce != NULL;
}

/* An empty combination for a constraint of cs: inert where cs reads none. */
void zkp_lc_init_for(zkp_lc *lc, const zkp_cs *cs);

/* A system with the given back end (NULL: count only), ONE allocated. */
void zkp_cs_init(zkp_cs *cs, const zkp_cs_backend *backend, void *ctx);
static inline void zkp_cs_init_counter(zkp_cs *cs) { zkp_cs_init(cs, NULL, NULL); }
static inline zkpipe_status zkp_cs_status(const zkp_cs *cs) { return cs->status; }

/* New private / public variable with its value (Montgomery form). Returns
 * ZKP_VAR_ONE once the system has failed (never used then). */
zkp_var zkp_cs_alloc(zkp_cs *cs, const zkp_fr *value);
zkp_var zkp_cs_alloc_input(zkp_cs *cs, const zkp_fr *value);
void zkp_cs_enforce(zkp_cs *cs, const zkp_lc *a, const zkp_lc *b, const zkp_lc *c);

/* ---- the recorder (tests, debugging) ---- */
typedef struct {
    zkp_cs cs;
    zkp_fr *inputs, *aux;
    size_t inputs_cap, aux_cap;
    /* constraint k: its a, b and c terms are terms[row[3k] .. row[3k+1]),
     * [row[3k+1] .. row[3k+2]) and [row[3k+2] .. row[3k+3]) */
    uint64_t *row;
    size_t row_cap;
    zkp_lc_term *terms;
    size_t terms_len, terms_cap;
} zkp_cs_recorder;

/* The recorder's zkp_cs points back at it: init it where it will stay. */
void zkp_cs_recorder_init(zkp_cs_recorder *rec);
void zkp_cs_recorder_free(zkp_cs_recorder *rec);
/* The value of a variable (NULL when out of range). */
zkp_fr *zkp_cs_recorder_value(zkp_cs_recorder *rec, zkp_var v);
/* Evaluates every constraint. Returns 1 when all hold; otherwise 0 with
 * *first_unsatisfied the index of the first that does not. */
int zkp_cs_recorder_check(const zkp_cs_recorder *rec, uint64_t *first_unsatisfied);

#endif
