/* zkpipe info: what a file is, for which curve, and its dimensions. The
 * kind comes from the content (binfile magic, the shape of bellperson's
 * files, or the shape of the JSON), never from the file name. Every file is
 * fully validated on the way, except the points of a .params file's five
 * sections (tens of gigabytes for Filecoin's largest): `zkpipe filecoin
 * params inspect --check` checks those. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "filecoin/c1.h"
#include "formats/bellperson.h"
#include "formats/r1cs.h"
#include "formats/snarkjs_json.h"
#include "formats/wtns.h"
#include "formats/zkey.h"
#include "util/fileio.h"
#include "util/json.h"
#include "util/mapped_file.h"

static int info_zkey(const char *path, size_t size) {
    zkp_diag d = {{0}};
    zkp_zkey key = {0};
    zkpipe_status st = zkp_zkey_load(&key, path, NULL, &d);
    if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
    zkp_g16_pk pk;
    zkp_zkey_pk(&key, &pk);
    uint32_t domain = key.curve == ZKPIPE_CURVE_BN254 ? pk.u.bn254.domain_size
                                                      : pk.u.bls12_381.domain_size;
    size_t coefs = key.curve == ZKPIPE_CURVE_BN254 ? pk.u.bn254.n_coefs : pk.u.bls12_381.n_coefs;
    printf("kind: zkey (snarkjs Groth16 proving key)\ncurve: %s\nvariables: %u\n"
           "public inputs: %u\ndomain size: %u\ncoefficients: %zu\nfile bytes: %zu\n",
           zkpipe_curve_name(key.curve), zkp_zkey_n_vars(&key), zkp_zkey_n_public(&key), domain,
           coefs, size);
    zkp_zkey_free(&key);
    return CLI_OK;
}

static int info_wtns(const char *path, size_t size) {
    zkp_diag d = {{0}};
    zkp_wtns w = {0};
    zkpipe_status st = zkp_wtns_load(&w, path, NULL, &d);
    if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
    printf("kind: wtns (circom witness)\ncurve: %s\nvariables: %zu\nfile bytes: %zu\n",
           zkpipe_curve_name(w.curve), w.n_vars, size);
    zkp_wtns_free(&w);
    return CLI_OK;
}

static int info_r1cs(const char *path, size_t size) {
    zkp_diag d = {{0}};
    zkp_r1cs r = {0};
    zkpipe_status st = zkp_r1cs_load(&r, path, &d);
    if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
    printf("kind: r1cs (circom constraint system)\ncurve: %s\nconstraints: %u\nwires: %u\n"
           "public outputs: %u\npublic inputs: %u\nprivate inputs: %u\nlabels: %llu\n"
           "terms (A, B, C): %llu, %llu, %llu\nfile bytes: %zu\n",
           zkpipe_curve_name(r.curve), r.n_constraints, r.n_wires, r.n_pub_out, r.n_pub_in,
           r.n_prv_in, (unsigned long long)r.n_labels, (unsigned long long)r.n_terms[0],
           (unsigned long long)r.n_terms[1], (unsigned long long)r.n_terms[2], size);
    zkp_r1cs_free(&r);
    return CLI_OK;
}

static int info_json(const char *path) {
    zkp_diag d = {{0}};
    char *text = NULL;
    size_t len = 0;
    zkp_json *root = NULL;
    zkp_json_error err;
    int code = CLI_OK;
    zkpipe_status st = zkp_read_file(path, ZKP_SNARKJS_MAX_TEXT, &text, &len, &d);
    if (st == ZKPIPE_OK && (st = zkp_json_parse_report(&root, text, len, NULL, &err)) != ZKPIPE_OK)
        zkp_diag_fail(&d, st,
                      "%s: not a zkey, wtns, r1cs, bellperson or valid JSON file (JSON: %s at "
                      "byte %zu)",
                      path, err.reason[0] ? err.reason : zkpipe_strerror(st), err.offset);
    if (st != ZKPIPE_OK) {
        code = cli_fail("info", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    if (zkp_json_type_of(root) == ZKP_JSON_ARRAY) {
        /* public.json names no curve, so only the count is known. */
        printf("kind: public inputs (snarkjs public.json)\nvalues: %zu\nfile bytes: %zu\n",
               zkp_json_len(root), len);
    } else if (zkp_json_get(root, "pi_a")) {
        zkp_g16_proof proof;
        if ((st = zkp_snarkjs_read_proof(text, len, path, &proof, &d)) != ZKPIPE_OK) {
            code = cli_fail("info", st, &d, CLI_BAD_INPUT);
            goto done;
        }
        printf("kind: proof (snarkjs Groth16 proof.json)\ncurve: %s\nfile bytes: %zu\n",
               zkpipe_curve_name(proof.curve), len);
    } else if (zkp_json_get(root, "IC")) {
        zkp_g16_vk vk = {0};
        if ((st = zkp_snarkjs_read_vk(text, len, path, &vk, &d)) != ZKPIPE_OK) {
            code = cli_fail("info", st, &d, CLI_BAD_INPUT);
            goto done;
        }
        unsigned npub = vk.curve == ZKPIPE_CURVE_BN254 ? vk.u.bn254.n_public : vk.u.bls12_381.n_public;
        printf("kind: verification key (snarkjs verification_key.json)\ncurve: %s\n"
               "public inputs: %u\nfile bytes: %zu\n",
               zkpipe_curve_name(vk.curve), npub, len);
        zkp_g16_vk_release(&vk);
    } else {
        code = cli_fail("info", ZKPIPE_ERR_UNSUPPORTED, NULL, CLI_BAD_INPUT);
    }
done:
    zkp_json_free(root);
    free(text);
    return code;
}

/* bellperson's files carry no magic. A proof is whole 192-byte partitions
 * whose first byte has the compression flag; a verifying key's ic_len (at
 * byte 864) makes its size exactly 868 + 96·ic_len; a .params file starts
 * with such a key and is longer. Uncompressed points start with a byte
 * below 0x1b (p's top byte is 0x1a) or 0x40 (infinity), which no JSON text
 * does unless it starts with control characters. */
enum { BP_NONE, BP_PROOF, BP_VK, BP_PARAMS };

static int bp_kind(const uint8_t *data, size_t size) {
    if (size > 0 && size % ZKP_BP_PROOF_BYTES == 0 && (data[0] & 0x80)) return BP_PROOF;
    if (size < ZKP_BP_VK_FIXED_BYTES || !(data[0] <= 0x1a || data[0] == 0x40)) return BP_NONE;
    const uint8_t *n = data + ZKP_BP_VK_FIXED_BYTES - 4;
    uint64_t vk = zkp_bp_vk_bytes((uint32_t)n[0] << 24 | (uint32_t)n[1] << 16 |
                                  (uint32_t)n[2] << 8 | n[3]);
    if (vk == size) return BP_VK;
    return vk < size ? BP_PARAMS : BP_NONE;
}

static int info_bp(const char *path, int kind) {
    zkp_diag d = {{0}};
    if (kind == BP_PARAMS) {
        zkp_bp_params p;
        zkpipe_status st = zkp_bp_params_load(&p, path, NULL, &d);
        if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
        printf("kind: params (bellperson Groth16 parameters)\ncurve: bls12_381\n"
               "public inputs: %u\ndomain size: %llu\n",
               p.vk.n_ic - 1, (unsigned long long)p.sec[ZKP_BP_H].count + 1);
        for (int s = 0; s < ZKP_BP_SECTION_COUNT; s++)
            printf("%s points: %u\n", zkp_bp_section_name((zkp_bp_section)s), p.sec[s].count);
        printf("file bytes: %zu\nsection points checked: no (zkpipe filecoin params inspect "
               "--check)\n",
               p.file_size);
        zkp_bp_params_free(&p);
        return CLI_OK;
    }
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, path, &d);
    if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
    if (kind == BP_VK) {
        zkp_bp_vk vk;
        st = zkp_bp_vk_parse(&vk, mf.data, mf.size, 1, NULL, path, NULL, &d);
        if (st == ZKPIPE_OK) {
            printf("kind: vk (bellperson Groth16 verifying key)\ncurve: bls12_381\n"
                   "public inputs: %u\nfile bytes: %zu\n",
                   vk.n_ic - 1, mf.size);
            zkp_bp_vk_free(&vk);
        }
    } else {
        size_t n = mf.size / ZKP_BP_PROOF_BYTES;
        bls12_381_g16_proof_t *proofs = malloc(n * sizeof *proofs);
        if (!proofs) {
            st = zkp_diag_fail(&d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
        } else if ((st = zkp_bp_proofs_decode(proofs, n, &n, mf.data, mf.size, &d)) !=
                   ZKPIPE_OK) {
            zkp_diag_prefix(&d, path);
        } else {
            printf("kind: proof (bellperson Groth16, %d bytes per partition)\ncurve: bls12_381\n"
                   "partitions: %zu\nfile bytes: %zu\n",
                   ZKP_BP_PROOF_BYTES, n, mf.size);
        }
        free(proofs);
    }
    zkp_mapped_file_close(&mf);
    return st == ZKPIPE_OK ? CLI_OK : cli_fail("info", st, &d, CLI_BAD_INPUT);
}

/* Filecoin's C1 (SealCommitPhase1Output) JSON, or Curio's envelope around
 * it: JSON that names vanilla_proofs, or Phase1Out. */
static void hex_(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int info_c1(const char *path, const uint8_t *data, size_t size) {
    zkp_diag d = {{0}};
    char *inner = NULL;
    size_t inner_len = 0;
    uint64_t sector_num = 0, sector_size = 0;
    const char *text = (const char *)data;
    size_t len = size;
    int envelope = memmem(data, size, "\"Phase1Out\"", 11) != NULL;
    zkpipe_status st = ZKPIPE_OK;
    if (envelope) {
        st = zkp_fil_c1_envelope_parse(text, len, &sector_num, &sector_size, &inner, &inner_len,
                                       NULL, ZKP_MEM_AUX, &d);
        text = inner;
        len = inner_len;
    }
    zkp_fil_c1 c1;
    memset(&c1, 0, sizeof c1);
    if (st == ZKPIPE_OK) st = zkp_fil_c1_parse(&c1, text, len, path, NULL, ZKP_MEM_AUX, &d);
    if (st == ZKPIPE_OK) {
        char r[65], dd[65], rid[65];
        hex_(r, c1.comm_r.b);
        hex_(dd, c1.comm_d.b);
        hex_(rid, c1.replica_id.b);
        if (envelope)
            printf("wrapped in: Curio's envelope for cuzk (base64)\nsector number: %llu\n"
                   "sector size: %llu\n",
                   (unsigned long long)sector_num, (unsigned long long)sector_size);
        printf("kind: C1 (Filecoin SealCommitPhase1Output)\nregistered proof: %s (id %u)\n"
               "sector bytes: %llu\nlayers: %u\npartitions: %u\nchallenges per partition: %u\n"
               "comm_r: %s\ncomm_d: %s\nreplica_id: %s\nfile bytes: %zu\n"
               "vanilla proofs checked: no (zkpipe filecoin c1 verify)\n",
               c1.proof->name, (unsigned)c1.proof->id,
               (unsigned long long)c1.proof->sector_bytes, (unsigned)c1.proof->layers,
               (unsigned)c1.vanilla_proofs.n, (unsigned)c1.proof->challenges, r, dd, rid, size);
    }
    zkp_fil_c1_free(&c1);
    zkp_free(NULL, inner, inner_len, ZKP_MEM_AUX);
    return st == ZKPIPE_OK ? CLI_OK : cli_fail("info", st, &d, CLI_BAD_INPUT);
}

static const char info_usage[] =
    "usage: zkpipe info <file>\n"
    "Describes a .zkey, .wtns, .r1cs or snarkjs JSON file (proof, public inputs or\n"
    "verification key), bellperson's .vk, .params or 192-byte proofs (BLS12-381), or\n"
    "Filecoin's C1 JSON (bare, or in Curio's base64 envelope),\n"
    "told apart by its contents, after validating it (a .params file's section\n"
    "points are checked by zkpipe filecoin params inspect --check).\n"
    CLI_EXIT_CODES_HELP;

int cli_info(int argc, char **argv) {
    if (argc >= 1 && cli_is_help(argv[0])) {
        fputs(info_usage, stdout);
        return CLI_OK;
    }
    if (argc != 1 || (argv[0][0] == '-' && argv[0][1])) {
        fputs(info_usage, stderr);
        return CLI_USAGE;
    }
    zkp_diag d = {{0}};
    zkp_mapped_file mf;
    zkpipe_status st = zkp_mapped_file_open(&mf, argv[0], &d);
    if (st != ZKPIPE_OK) return cli_fail("info", st, &d, CLI_BAD_INPUT);
    char magic[4] = {0};
    size_t size = mf.size;
    if (mf.size >= 4) memcpy(magic, mf.data, 4);
    int bp = bp_kind(mf.data, mf.size);
    if (bp == BP_NONE && (memmem(mf.data, mf.size, "\"vanilla_proofs\"", 16) ||
                          memmem(mf.data, mf.size, "\"Phase1Out\"", 11))) {
        int code = info_c1(argv[0], mf.data, mf.size);
        zkp_mapped_file_close(&mf);
        return code;
    }
    zkp_mapped_file_close(&mf);
    if (!memcmp(magic, "zkey", 4)) return info_zkey(argv[0], size);
    if (!memcmp(magic, "wtns", 4)) return info_wtns(argv[0], size);
    if (!memcmp(magic, "r1cs", 4)) return info_r1cs(argv[0], size);
    if (bp != BP_NONE) return info_bp(argv[0], bp);
    return info_json(argv[0]);
}
