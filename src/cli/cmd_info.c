/* zkpipe info: what a file is, for which curve, and its dimensions. The
 * kind comes from the content (binfile magic, or the shape of the JSON),
 * never from the file name. Every file is fully validated on the way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
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
        zkp_diag_fail(&d, st, "%s: not a zkey, wtns, r1cs or valid JSON file (JSON: %s at byte %zu)",
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

static const char info_usage[] =
    "usage: zkpipe info <file>\n"
    "Describes a .zkey, .wtns, .r1cs or snarkjs JSON file (proof, public inputs or\n"
    "verification key), told apart by its contents, after validating all of it.\n"
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
    zkp_mapped_file_close(&mf);
    if (!memcmp(magic, "zkey", 4)) return info_zkey(argv[0], size);
    if (!memcmp(magic, "wtns", 4)) return info_wtns(argv[0], size);
    if (!memcmp(magic, "r1cs", 4)) return info_r1cs(argv[0], size);
    return info_json(argv[0]);
}
