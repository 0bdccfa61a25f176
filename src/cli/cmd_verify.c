/* zkpipe verify: snarkjs's argument order and answers. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "formats/snarkjs_json.h"
#include "groth16/groth16.h"
#include "util/fileio.h"

static zkpipe_status read_text(const char *path, char **text, size_t *len, zkp_diag *d) {
    return zkp_read_file(path, ZKP_SNARKJS_MAX_TEXT, text, len, d);
}

static const char verify_usage[] =
    "usage: zkpipe verify <verification_key.json> <public.json> <proof.json>\n"
    "Checks a Groth16 proof as snarkjs does: prints OK (exit 0) or INVALID (exit 1).\n"
    "INVALID also covers a proof point off the curve or outside the subgroup and a\n"
    "public input not below the group order; a file that is not a readable snarkjs\n"
    "JSON file of its kind exits 3.\n" CLI_EXIT_CODES_HELP;

/* Which failures to read the public inputs or the proof make the proof
 * INVALID: well-formed files whose values are not valid, which a verifier
 * exists to reject. A file that is not the JSON it should be (or cannot be
 * read) is a bad input instead, like a malformed verification key. */
static int invalid_value(zkpipe_status st) {
    return st == ZKPIPE_ERR_NON_CANONICAL || st == ZKPIPE_ERR_NOT_ON_CURVE ||
           st == ZKPIPE_ERR_NOT_IN_SUBGROUP || st == ZKPIPE_ERR_WRONG_CURVE;
}

int cli_verify(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(verify_usage, stdout);
            return CLI_OK;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkpipe verify: unknown option %s\n%s", argv[i], verify_usage);
            return CLI_USAGE;
        }
    }
    if (argc != 3) {
        fputs(verify_usage, stderr);
        return CLI_USAGE;
    }
    zkp_diag d = {{0}};
    char *vk_text = NULL, *pub_text = NULL, *proof_text = NULL;
    size_t vk_len, pub_len, proof_len;
    zkp_g16_vk vk = {0};
    zkp_g16_public pub = {0};
    zkp_g16_proof proof;
    int code;
    zkpipe_status st;
    if ((st = read_text(argv[0], &vk_text, &vk_len, &d)) != ZKPIPE_OK ||
        (st = read_text(argv[1], &pub_text, &pub_len, &d)) != ZKPIPE_OK ||
        (st = read_text(argv[2], &proof_text, &proof_len, &d)) != ZKPIPE_OK ||
        (st = zkp_snarkjs_read_vk(vk_text, vk_len, argv[0], &vk, &d)) != ZKPIPE_OK) {
        code = cli_fail("verify", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    if ((st = zkp_snarkjs_read_public(pub_text, pub_len, argv[1], vk.curve, &pub, &d)) != ZKPIPE_OK ||
        (st = zkp_snarkjs_read_proof_for(proof_text, proof_len, argv[2], vk.curve, &proof, &d)) != ZKPIPE_OK) {
        code = invalid_value(st) ? CLI_INVALID : CLI_BAD_INPUT;
        if (code == CLI_INVALID) printf("INVALID\n");
        code = cli_fail("verify", st, &d, code);
        goto done;
    }
    if ((st = zkp_g16_verify(&vk, &pub, &proof, &d)) != ZKPIPE_OK) {
        printf("INVALID\n");
        code = cli_fail("verify", st, &d, CLI_INVALID);
        goto done;
    }
    printf("OK\n");
    code = CLI_OK;
done:
    zkp_g16_public_release(&pub);
    zkp_g16_vk_release(&vk);
    free(vk_text);
    free(pub_text);
    free(proof_text);
    return code;
}
