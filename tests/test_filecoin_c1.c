#define _GNU_SOURCE /* memmem */
/* The C1 (SealCommitPhase1Output) JSON: built here in the shape of a
 * registered proof, written, read back and written again byte for byte;
 * the writer's member order checked with the generic JSON reader; every
 * kind of damage refused with a message naming the member; Curio's base64
 * envelope unwrapped. */
#include <stdlib.h>
#include <string.h>

#include "filecoin/c1.h"
#include "test.h"
#include "util/json.h"
#include "util/mapped_file.h"

/* ---- A C1 of random values in the shape of proof p, from malloc. */

typedef struct {
    void **blocks;
    size_t n, cap;
} owner_;

static void *own_(owner_ *o, size_t bytes) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 256;
        void **b = realloc(o->blocks, cap * sizeof *b);
        ASSERT(b != NULL);
        o->blocks = b;
        o->cap = cap;
    }
    void *p = calloc(1, bytes ? bytes : 1);
    ASSERT(p != NULL);
    o->blocks[o->n++] = p;
    return p;
}

static void owner_free_(void *arg) {
    owner_ *o = arg;
    for (size_t i = 0; i < o->n; i++) free(o->blocks[i]);
    free(o->blocks);
    free(o);
}

static void rand_domain_(zkp_fil_domain *d) {
    for (int i = 0; i < 32; i++) d->b[i] = (uint8_t)test_rng_u64();
}

static zkp_fil_domains rand_domains_(owner_ *o, uint32_t n) {
    zkp_fil_domains d = {own_(o, n * sizeof(zkp_fil_domain)), n};
    for (uint32_t i = 0; i < n; i++) rand_domain_(&d.v[i]);
    return d;
}

static zkp_fil_path rand_path_(owner_ *o, uint32_t levels, uint32_t arity) {
    zkp_fil_path p = {own_(o, levels * sizeof(zkp_fil_path_elem)), levels};
    for (uint32_t i = 0; i < levels; i++) {
        p.v[i].hashes = rand_domains_(o, arity - 1);
        p.v[i].index = test_rng_u64() % arity;
    }
    return p;
}

static zkp_fil_merkle_proof rand_merkle_(owner_ *o, const zkp_fil_seal_proof *p, int sha) {
    zkp_fil_merkle_proof m;
    memset(&m, 0, sizeof m);
    rand_domain_(&m.root);
    rand_domain_(&m.leaf);
    if (sha) {
        uint32_t levels = 0;
        while (((uint64_t)1 << levels) < p->nodes) levels++;
        m.kind = ZKP_FIL_MERKLE_SINGLE;
        m.base = rand_path_(o, levels, 2);
        return m;
    }
    m.kind = !p->sub_arity   ? ZKP_FIL_MERKLE_SINGLE
             : !p->top_arity ? ZKP_FIL_MERKLE_SUB
                             : ZKP_FIL_MERKLE_TOP;
    m.base = rand_path_(o, zkp_fil_tree_base_levels(p), p->base_arity);
    if (p->sub_arity) m.sub = rand_path_(o, 1, p->sub_arity);
    if (p->top_arity) m.top = rand_path_(o, 1, p->top_arity);
    return m;
}

static zkp_fil_column_proof rand_column_(owner_ *o, const zkp_fil_seal_proof *p) {
    zkp_fil_column_proof c = {(uint32_t)(test_rng_u64() % p->nodes), rand_domains_(o, p->layers),
                              rand_merkle_(o, p, 0)};
    return c;
}

static zkp_fil_column_proofs rand_columns_(owner_ *o, const zkp_fil_seal_proof *p, uint32_t n) {
    zkp_fil_column_proofs c = {own_(o, n * sizeof(zkp_fil_column_proof)), n};
    for (uint32_t i = 0; i < n; i++) c.v[i] = rand_column_(o, p);
    return c;
}

static zkp_fil_labeling_proof rand_labeling_(owner_ *o, uint32_t layer, uint64_t node) {
    zkp_fil_labeling_proof l = {rand_domains_(o, 37), layer, node};
    return l;
}

static zkp_fil_c1 rand_c1_(const zkp_fil_seal_proof *p) {
    owner_ *o = calloc(1, sizeof *o);
    ASSERT(o != NULL);
    test_defer(owner_free_, o);
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    c1.proof = p;
    c1.vanilla_proofs.n = p->partitions;
    c1.vanilla_proofs.v = own_(o, p->partitions * sizeof(zkp_fil_partition_proofs));
    for (uint32_t k = 0; k < p->partitions; k++) {
        zkp_fil_partition_proofs *part = &c1.vanilla_proofs.v[k];
        part->n = p->challenges;
        part->v = own_(o, p->challenges * sizeof(zkp_fil_challenge_proof));
        for (uint32_t i = 0; i < p->challenges; i++) {
            zkp_fil_challenge_proof *c = &part->v[i];
            uint64_t node = test_rng_u64() % p->nodes;
            c->comm_d_proofs = rand_merkle_(o, p, 1);
            c->comm_r_last_proof = rand_merkle_(o, p, 0);
            c->replica_column_proofs.c_x = rand_column_(o, p);
            c->replica_column_proofs.drg_parents = rand_columns_(o, p, 6);
            c->replica_column_proofs.exp_parents = rand_columns_(o, p, 8);
            c->labeling_proofs.n = p->layers;
            c->labeling_proofs.v = own_(o, p->layers * sizeof(zkp_fil_labeling_proof));
            for (uint32_t l = 0; l < p->layers; l++)
                c->labeling_proofs.v[l] = rand_labeling_(o, l + 1, node);
            c->encoding_proof = rand_labeling_(o, p->layers, node);
        }
    }
    rand_domain_(&c1.comm_r);
    rand_domain_(&c1.comm_d);
    rand_domain_(&c1.replica_id);
    rand_domain_(&c1.seed);
    rand_domain_(&c1.ticket);
    return c1;
}

typedef struct {
    uint8_t *bytes;
    size_t len;
} text_;

static void text_free_(void *arg) {
    text_ *t = arg;
    zkp_free(NULL, t->bytes, t->len, ZKP_MEM_AUX);
    free(t);
}

static text_ *write_(const zkp_fil_c1 *c1) {
    text_ *t = calloc(1, sizeof *t);
    ASSERT(t != NULL);
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_fil_c1_write(c1, &t->bytes, &t->len, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK, "%s",
               d.msg);
    test_defer(text_free_, t);
    return t;
}

static void c1_free_(void *arg) {
    zkp_fil_c1_free(arg);
    free(arg);
}

static zkp_fil_c1 *parse_ok_(const text_ *t) {
    zkp_fil_c1 *c1 = calloc(1, sizeof *c1);
    ASSERT(c1 != NULL);
    zkp_diag d = {{0}};
    zkpipe_status st =
        zkp_fil_c1_parse(c1, (const char *)t->bytes, t->len, "c1.json", NULL, ZKP_MEM_AUX, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    test_defer(c1_free_, c1);
    return c1;
}

/* Parses text, expects failure with status st and a message containing
 * every one of the fragments (NULL-terminated). */
static void parse_fails_(const char *text, size_t len, zkpipe_status st, const char *const *frags) {
    zkp_fil_c1 c1;
    zkp_diag d = {{0}};
    zkpipe_status got = zkp_fil_c1_parse(&c1, text, len, "c1.json", NULL, ZKP_MEM_AUX, &d);
    ASSERT_MSG(got == st, "expected %s, got %s (%s)", zkpipe_status_name(st),
               zkpipe_status_name(got), d.msg);
    ASSERT(c1.arena == NULL && c1.vanilla_proofs.v == NULL);
    ASSERT_MSG(strncmp(d.msg, "c1.json: ", 9) == 0, "%s", d.msg);
    for (size_t i = 0; frags && frags[i]; i++)
        ASSERT_MSG(strstr(d.msg, frags[i]) != NULL, "\"%s\" not in: %s", frags[i], d.msg);
}

/* Replaces the first occurrence of from in t (which must exist) by to. */
static char *edit_(const text_ *t, const char *from, const char *to, size_t *len) {
    const char *s = (const char *)t->bytes;
    const char *at = memmem(s, t->len, from, strlen(from));
    ASSERT_MSG(at != NULL, "%s not found", from);
    size_t pre = (size_t)(at - s), fl = strlen(from), tl = strlen(to);
    *len = t->len - fl + tl;
    char *out = malloc(*len + 1);
    ASSERT(out != NULL);
    memcpy(out, s, pre);
    memcpy(out + pre, to, tl);
    memcpy(out + pre + tl, at + fl, t->len - pre - fl);
    out[*len] = 0;
    return out;
}

/* The member names of a JSON object in document order, joined by ','. */
static void keys_(const zkp_json *obj, char *out, size_t cap) {
    out[0] = 0;
    for (size_t i = 0; i < zkp_json_len(obj); i++) {
        if (i) strncat(out, ",", cap - strlen(out) - 1);
        strncat(out, zkp_json_key_at(obj, i), cap - strlen(out) - 1);
    }
}

/* ---- The cases. */

TEST_CASE(filecoin_c1_round_trips_every_sector_shape) {
    /* The small sizes in full; 32 and 64 GiB (Sub and Top trees, 11
     * layers) with the partition and challenge counts cut down, which the
     * reader then refuses, so their shape check is run on a full count in
     * filecoin_c1_large_shapes. */
    static const char *names[] = {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1",
                                  "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
                                  "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name(names[i], strlen(names[i]));
        ASSERT(p != NULL);
        zkp_fil_c1 c1 = rand_c1_(p);
        text_ *t = write_(&c1);
        zkp_fil_c1 *back = parse_ok_(t);
        ASSERT(back->proof == p);
        ASSERT(!memcmp(back->comm_r.b, c1.comm_r.b, 32) &&
               !memcmp(back->ticket.b, c1.ticket.b, 32));
        const zkp_fil_challenge_proof *a = &c1.vanilla_proofs.v[0].v[p->challenges - 1];
        const zkp_fil_challenge_proof *b = &back->vanilla_proofs.v[0].v[p->challenges - 1];
        ASSERT(!memcmp(a->replica_column_proofs.exp_parents.v[7].inclusion.base.v[1].hashes.v[6].b,
                       b->replica_column_proofs.exp_parents.v[7].inclusion.base.v[1].hashes.v[6].b,
                       32));
        ASSERT_EQ_U64(a->encoding_proof.node, b->encoding_proof.node);
        text_ *again = write_(back);
        ASSERT_EQ_U64(again->len, t->len);
        ASSERT(!memcmp(again->bytes, t->bytes, t->len));
    }
}

TEST_CASE(filecoin_c1_large_shapes) {
    /* A 32 GiB C1 is about 50 MB: build one partition's worth and check the
     * reader's complaint names the partition count, after it has accepted
     * the Sub-tree paths of every challenge. The 64 GiB Top tree likewise. */
    static const char *names[] = {"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"};
    for (size_t i = 0; i < 2; i++) {
        zkp_fil_seal_proof cut = *zkp_fil_seal_proof_by_name(names[i], strlen(names[i]));
        cut.partitions = 1;
        cut.challenges = 2;
        zkp_fil_c1 c1 = rand_c1_(&cut);
        c1.proof = zkp_fil_seal_proof_by_name(names[i], strlen(names[i]));
        text_ *t = write_(&c1);
        const char *frags[] = {"1 partitions where 10 belong", names[i], NULL};
        parse_fails_((const char *)t->bytes, t->len, ZKPIPE_ERR_PARSE, frags);
        ASSERT(memmem(t->bytes, t->len, i ? "\"Top\"" : "\"Sub\"", 5) != NULL);
    }
}

/* A C1 written by another JSON encoder: Python's json.dumps with compact
 * separators, which prints integers, strings and null as serde_json does
 * (fuzz/corpus/c1's seed). It reads, and writes back byte for byte. */
TEST_CASE(filecoin_c1_matches_an_independent_encoder) {
    zkp_mapped_file mf;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_mapped_file_open(&mf, ZKP_TEST_DATA_DIR "/../fuzz/corpus/c1/c1_2kib_v1_1.json",
                                    &d) == ZKPIPE_OK,
               "%s", d.msg);
    zkp_fil_c1 c1;
    zkpipe_status st =
        zkp_fil_c1_parse(&c1, (const char *)mf.data, mf.size, "seed", NULL, ZKP_MEM_AUX, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    ASSERT_STR_EQ(c1.proof->name, "StackedDrg2KiBV1_1");
    uint8_t *out;
    size_t len;
    ASSERT_OK(zkp_fil_c1_write(&c1, &out, &len, NULL, ZKP_MEM_AUX, &d));
    ASSERT_EQ_U64(len, mf.size);
    ASSERT(!memcmp(out, mf.data, len));
    zkp_free(NULL, out, len, ZKP_MEM_AUX);
    zkp_fil_c1_free(&c1);
    zkp_mapped_file_close(&mf);
}

TEST_CASE(filecoin_c1_is_serde_json_in_member_order) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1_1", 18);
    zkp_fil_c1 c1 = rand_c1_(p);
    text_ *t = write_(&c1);
    /* Compact: no whitespace anywhere. */
    for (size_t i = 0; i < t->len; i++) ASSERT(t->bytes[i] > ' ');
    zkp_json *root = NULL;
    ASSERT_OK(zkp_json_parse(&root, (const char *)t->bytes, t->len, NULL));
    char k[512];
    keys_(root, k, sizeof k);
    ASSERT_STR_EQ(k, "registered_proof,vanilla_proofs,comm_r,comm_d,replica_id,seed,ticket");
    ASSERT_STR_EQ(zkp_json_string(zkp_json_get(root, "registered_proof"), NULL),
                  "StackedDrg2KiBV1_1");
    const zkp_json *vp = zkp_json_get(root, "vanilla_proofs");
    keys_(vp, k, sizeof k);
    ASSERT_STR_EQ(k, "StackedDrg2KiBV1"); /* the V1 name for every version */
    const zkp_json *ch = zkp_json_at(zkp_json_at(zkp_json_at(vp, 0), 0), 1);
    keys_(ch, k, sizeof k);
    ASSERT_STR_EQ(k, "comm_d_proofs,comm_r_last_proof,replica_column_proofs,labeling_proofs,"
                     "encoding_proof");
    const zkp_json *single =
        zkp_json_get(zkp_json_get(zkp_json_get(ch, "comm_d_proofs"), "data"), "Single");
    keys_(single, k, sizeof k);
    ASSERT_STR_EQ(k, "root,leaf,path");
    const zkp_json *elem = zkp_json_at(zkp_json_get(zkp_json_get(single, "path"), "path"), 0);
    keys_(elem, k, sizeof k);
    ASSERT_STR_EQ(k, "hashes,index");
    const zkp_json *rcp = zkp_json_get(ch, "replica_column_proofs");
    keys_(rcp, k, sizeof k);
    ASSERT_STR_EQ(k, "c_x,drg_parents,exp_parents");
    keys_(zkp_json_get(rcp, "c_x"), k, sizeof k);
    ASSERT_STR_EQ(k, "column,inclusion_proof");
    const zkp_json *col = zkp_json_get(zkp_json_get(rcp, "c_x"), "column");
    keys_(col, k, sizeof k);
    ASSERT_STR_EQ(k, "index,rows,_h");
    ASSERT(zkp_json_type_of(zkp_json_get(col, "_h")) == ZKP_JSON_NULL &&
           zkp_json_get(col, "_h") != NULL);
    keys_(zkp_json_get(ch, "encoding_proof"), k, sizeof k);
    ASSERT_STR_EQ(k, "parents,layer_index,node");
    /* A 32-byte value is 32 integers. */
    const zkp_json *comm_r = zkp_json_get(root, "comm_r");
    ASSERT_EQ_U64(zkp_json_len(comm_r), 32);
    char num[8];
    snprintf(num, sizeof num, "%u", (unsigned)c1.comm_r.b[31]);
    ASSERT_STR_EQ(zkp_json_number_text(zkp_json_at(comm_r, 31)), num);
    zkp_json_free(root);
}

TEST_CASE(filecoin_c1_accepts_any_member_order_and_whitespace) {
    /* Go's encoding/json orders Curio's struct differently from serde. */
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1", 16);
    zkp_fil_c1 c1 = rand_c1_(p);
    text_ *t = write_(&c1);
    const char *s = (const char *)t->bytes;
    const char *vp = strstr(s, ",\"vanilla_proofs\":");
    const char *cr = strstr(s, ",\"comm_r\":");
    ASSERT(vp && cr);
    /* {"registered_proof":..,"vanilla_proofs":..,"comm_r":...} becomes
     * {"comm_r":...,"registered_proof":..,"vanilla_proofs":..} with spaces. */
    size_t len = t->len + 8;
    char *moved = malloc(len);
    ASSERT(moved != NULL);
    size_t n = 0;
    n += (size_t)snprintf(moved + n, len - n, "{ \n%.*s, ",
                          (int)(t->len - (size_t)(cr + 1 - s) - 1), cr + 1);
    n += (size_t)snprintf(moved + n, len - n, "%.*s\t}", (int)(cr - s - 1), s + 1);
    zkp_fil_c1 back;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_fil_c1_parse(&back, moved, n, "c1.json", NULL, ZKP_MEM_AUX, &d);
    free(moved);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    uint8_t *again;
    size_t again_len;
    ASSERT_OK(zkp_fil_c1_write(&back, &again, &again_len, NULL, ZKP_MEM_AUX, &d));
    ASSERT(again_len == t->len && !memcmp(again, t->bytes, t->len));
    zkp_free(NULL, again, again_len, ZKP_MEM_AUX);
    zkp_fil_c1_free(&back);
}

TEST_CASE(filecoin_c1_damage_is_refused_naming_the_member) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1_1", 18);
    zkp_fil_c1 c1 = rand_c1_(p);
    c1.comm_d.b[0] = 7;
    c1.vanilla_proofs.v[0].v[0].comm_d_proofs.leaf.b[0] = 201;
    text_ *t = write_(&c1);
    static const struct {
        const char *from, *to;
        zkpipe_status st;
        const char *frag1, *frag2;
    } cases[] = {
        {"\"comm_d\":[7,", "\"comm_d\":[256,", ZKPIPE_ERR_OUT_OF_RANGE, "comm_d",
         "larger than 255"},
        {"\"comm_d\":[7,", "\"comm_d\":[07,", ZKPIPE_ERR_PARSE, "comm_d", "leading zero"},
        {"\"comm_d\":[7,", "\"comm_d\":[-7,", ZKPIPE_ERR_OUT_OF_RANGE, "comm_d", "negative"},
        {"\"comm_d\":[7,", "\"comm_d\":[7.0,", ZKPIPE_ERR_PARSE, "comm_d", "integer expected"},
        {"\"comm_d\":[7,", "\"comm_d\":[7,1,", ZKPIPE_ERR_PARSE, "comm_d", "more than 32"},
        {"\"comm_d\":[7,", "\"comm_x\":[7,", ZKPIPE_ERR_PARSE, "unknown member \"comm_x\"", NULL},
        {"\"ticket\":", "\"comm_r\":", ZKPIPE_ERR_PARSE, "member \"comm_r\" twice", NULL},
        {"\"registered_proof\":\"StackedDrg2KiBV1_1\"", "\"registered_proof\":\"StackedDrg4KiBV1\"",
         ZKPIPE_ERR_UNSUPPORTED, "registered_proof", "StackedDrg4KiBV1"},
        {"\"registered_proof\":\"StackedDrg2KiBV1_1\"",
         "\"registered_proof\":\"StackedDrg8MiBV1_1\"", ZKPIPE_ERR_PARSE,
         "variant \"StackedDrg2KiBV1\"", "StackedDrg8MiBV1"},
        {"{\"data\":{\"Single\":{\"root\":", "{\"data\":{\"Sub\":{\"root\":", ZKPIPE_ERR_PARSE,
         "vanilla_proofs[\"StackedDrg2KiBV1\"][0][0].comm_d_proofs.data.Sub", "\"path\""},
        {"\"leaf\":[201,", "\"leaf\":[201,]", ZKPIPE_ERR_PARSE, "comm_d_proofs.data.Single.leaf",
         "1 bytes where 32 belong"},
        {"\"_h\":null", "\"_h\":0", ZKPIPE_ERR_PARSE, "replica_column_proofs.c_x.column._h",
         "null expected"},
        {"\"layer_index\":1,", "\"layer_index\":2,", ZKPIPE_ERR_PARSE, "labeling_proofs[0]",
         "layer_index 2 where 1 belongs"},
        {"\"layer_index\":1,", "\"layer_index\":4294967296,", ZKPIPE_ERR_OUT_OF_RANGE,
         "labeling_proofs[0].layer_index", "larger than 4294967295"},
        {"\"index\":", "\"index\":9,\"x\":", ZKPIPE_ERR_PARSE,
         "comm_d_proofs.data.Single.path.path[0]", "unknown member \"x\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *bad = edit_(t, cases[i].from, cases[i].to, &len);
        const char *frags[] = {cases[i].frag1, cases[i].frag2, NULL};
        parse_fails_(bad, len, cases[i].st, frags);
        free(bad);
    }
    /* A shape error deep inside: one sibling short in a tree_c path. */
    zkp_fil_c1 short_hashes = c1;
    zkp_fil_challenge_proof *ch = &c1.vanilla_proofs.v[0].v[1];
    ch->replica_column_proofs.drg_parents.v[2].inclusion.base.v[1].hashes.n = 6;
    text_ *t2 = write_(&short_hashes);
    const char *frags[] = {"vanilla_proofs[\"StackedDrg2KiBV1\"][0][1].replica_column_proofs."
                           "drg_parents[2].inclusion_proof.path[1]",
                           "6 siblings, a node of arity 8 has 7", NULL};
    parse_fails_((const char *)t2->bytes, t2->len, ZKPIPE_ERR_PARSE, frags);
    ch->replica_column_proofs.drg_parents.v[2].inclusion.base.v[1].hashes.n = 7;
    /* Every cut short of the end fails cleanly. */
    for (int k = 0; k < 300; k++) {
        size_t cut = (size_t)(test_rng_u64() % t->len);
        parse_fails_((const char *)t->bytes, cut, ZKPIPE_ERR_PARSE, NULL);
    }
    const char *trail[] = {"text after the document", NULL};
    size_t len;
    char *extra = edit_(t, "]}", "]}", &len);
    char *more = realloc(extra, len + 2);
    ASSERT(more != NULL);
    memcpy(more + len, "{}", 2);
    parse_fails_(more, len + 2, ZKPIPE_ERR_PARSE, trail);
    free(more);
}

static char *base64_(const uint8_t *in, size_t n, size_t *out_len) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(4 * ((n + 2) / 3) + 1);
    ASSERT(o != NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        o[k++] = a[v >> 18 & 63];
        o[k++] = a[v >> 12 & 63];
        o[k++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        o[k++] = i + 2 < n ? a[v & 63] : '=';
    }
    o[k] = 0;
    *out_len = k;
    return o;
}

TEST_CASE(filecoin_c1_envelope_unwraps_curio_base64) {
    const zkp_fil_seal_proof *p = zkp_fil_seal_proof_by_name("StackedDrg2KiBV1_1", 18);
    zkp_fil_c1 c1 = rand_c1_(p);
    text_ *t = write_(&c1);
    /* The three paddings: the C1 itself, and it cut by one and two bytes. */
    for (size_t cut = 0; cut < 3; cut++) {
        size_t n = t->len - cut, blen;
        char *b64 = base64_(t->bytes, n, &blen);
        size_t cap = blen + 128, len;
        char *env = malloc(cap);
        ASSERT(env != NULL);
        len = (size_t)snprintf(env, cap,
                               "{\"SectorNum\":%zu,\"Phase1Out\":\"%s\",\"SectorSize\":2048}",
                               cut + 41, b64);
        char *json;
        size_t json_len;
        uint64_t num, size;
        zkp_diag d = {{0}};
        zkpipe_status st = zkp_fil_c1_envelope_parse(env, len, &num, &size, &json, &json_len, NULL,
                                                     ZKP_MEM_AUX, &d);
        ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
        ASSERT_EQ_U64(num, cut + 41);
        ASSERT_EQ_U64(size, 2048);
        ASSERT_EQ_U64(json_len, n);
        ASSERT(!memcmp(json, t->bytes, n));
        zkp_free(NULL, json, json_len, ZKP_MEM_AUX);
        /* "\/" is how some encoders write '/'. */
        char *slash = strchr(env + 30, '/');
        if (slash && cut == 0) {
            size_t at = (size_t)(slash - env);
            char *esc = malloc(len + 2);
            ASSERT(esc != NULL);
            memcpy(esc, env, at);
            esc[at] = '\\';
            memcpy(esc + at + 1, env + at, len - at);
            ASSERT_OK(zkp_fil_c1_envelope_parse(esc, len + 1, &num, &size, &json, &json_len, NULL,
                                                ZKP_MEM_AUX, &d));
            ASSERT(json_len == n && !memcmp(json, t->bytes, n));
            zkp_free(NULL, json, json_len, ZKP_MEM_AUX);
            free(esc);
        }
        free(env);
        free(b64);
    }
    static const struct {
        const char *text, *frag;
    } bad[] = {
        {"{\"SectorNum\":1,\"Phase1Out\":\"QUJD*\",\"SectorSize\":2048}", "not a multiple of 4"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"QU*D\",\"SectorSize\":2048}", "'*' at character 2"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"Q=JD\",\"SectorSize\":2048}", "'=' at character 1"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"QUJD\"}", "member \"SectorSize\" missing"},
        {"{\"SectorNum\":-1,\"Phase1Out\":\"QUJD\",\"SectorSize\":2048}", "SectorNum"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"QUJD\",\"SectorSize\":2048,\"X\":1}", "unknown member"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *json;
        size_t json_len;
        uint64_t num, size;
        zkp_diag d = {{0}};
        zkpipe_status st = zkp_fil_c1_envelope_parse(bad[i].text, strlen(bad[i].text), &num, &size,
                                                     &json, &json_len, NULL, ZKP_MEM_AUX, &d);
        ASSERT(st != ZKPIPE_OK);
        ASSERT(json == NULL);
        ASSERT_MSG(strstr(d.msg, bad[i].frag) != NULL, "\"%s\" not in: %s", bad[i].frag, d.msg);
    }
}

TEST_CASE(filecoin_registry_matches_filecoin) {
    size_t n;
    const zkp_fil_seal_proof *rows = zkp_fil_seal_proofs(&n);
    ASSERT_EQ_U64(n, 20);
    for (size_t i = 0; i < n; i++) {
        ASSERT_EQ_U64(rows[i].id, i);
        ASSERT(zkp_fil_seal_proof_by_id((uint32_t)i) == &rows[i]);
        ASSERT(zkp_fil_seal_proof_by_name(rows[i].name, strlen(rows[i].name)) == &rows[i]);
        ASSERT_EQ_U64(rows[i].nodes * 32, rows[i].sector_bytes);
        ASSERT(zkp_fil_tree_base_levels(&rows[i]) > 0);
    }
    /* Filecoin's numbering (rust-filecoin-proofs-api, cuzk's registered_proof). */
    ASSERT_STR_EQ(zkp_fil_seal_proof_by_id(3)->name, "StackedDrg32GiBV1");
    ASSERT_STR_EQ(zkp_fil_seal_proof_by_id(8)->name, "StackedDrg32GiBV1_1");
    ASSERT_STR_EQ(zkp_fil_seal_proof_by_id(10)->name, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep");
    ASSERT_STR_EQ(zkp_fil_seal_proof_by_id(19)->name,
                  "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep");
    ASSERT(zkp_fil_seal_proof_by_id(20) == NULL);
    /* The shapes of filecoin-proofs' constants: 2 KiB has a 2-level octree,
     * 32 GiB 9 base levels under 8 sub trees, 64 GiB also 2 top trees. */
    const zkp_fil_seal_proof *k2 = zkp_fil_seal_proof_by_id(5), *g32 = zkp_fil_seal_proof_by_id(8),
                             *g64 = zkp_fil_seal_proof_by_id(9);
    ASSERT_EQ_U64(zkp_fil_tree_base_levels(k2), 2);
    ASSERT_EQ_U64(zkp_fil_tree_base_levels(g32), 9);
    ASSERT_EQ_U64(zkp_fil_tree_base_levels(g64), 9);
    ASSERT_EQ_U64(g32->layers, 11);
    ASSERT_EQ_U64(g32->partitions * g32->challenges, 180);
    ASSERT_EQ_U64(zkp_fil_seal_proof_by_id(18)->partitions, 126);
    ASSERT_STR_EQ(zkp_fil_seal_proof_by_id(13)->vanilla_key, "StackedDrg32GiBV1");
}
