/* zkpipe zkey export-vk: the verification key of a .zkey, as snarkjs writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "util/fileio.h"

int cli_zkey(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[0], "export-vk") != 0) {
        fprintf(stderr, "usage: zkpipe zkey export-vk <circuit.zkey> <verification_key.json>\n");
        return CLI_USAGE;
    }
    zkp_diag d = {{0}};
    zkp_zkey key = {0};
    char *text = NULL;
    size_t len = 0;
    int code = CLI_OK;
    zkpipe_status st = zkp_zkey_load(&key, argv[1], NULL, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("zkey export-vk", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    zkp_g16_vk vk;
    zkp_zkey_vk(&key, &vk);
    if ((st = zkp_snarkjs_write_vk(&vk, &text, &len)) != ZKPIPE_OK ||
        (st = zkp_write_file_atomic(argv[2], text, len, &d)) != ZKPIPE_OK)
        code = cli_fail("zkey export-vk", st, &d, CLI_INVALID);
done:
    free(text);
    zkp_zkey_free(&key);
    return code;
}
