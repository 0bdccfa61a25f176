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

int cli_verify(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: zkpipe verify <verification_key.json> <public.json> <proof.json>\n");
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
    /* From here on a bad proof or bad inputs mean INVALID, not a usage
     * problem: they are what the verifier is there to reject. */
    if ((st = zkp_snarkjs_read_public(pub_text, pub_len, argv[1], vk.curve, &pub, &d)) != ZKPIPE_OK ||
        (st = zkp_snarkjs_read_proof_for(proof_text, proof_len, argv[2], vk.curve, &proof, &d)) != ZKPIPE_OK ||
        (st = zkp_g16_verify(&vk, &pub, &proof, &d)) != ZKPIPE_OK) {
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
