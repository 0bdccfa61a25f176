/* zkpipe zkey export-vk: the verification key of a .zkey, as snarkjs writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "util/fileio.h"

static const char zkey_usage[] =
    "usage: zkpipe zkey export-vk <circuit.zkey> <verification_key.json>\n"
    "Writes the key's verification key in snarkjs's format, byte for byte as\n"
    "`snarkjs zkey export verificationkey` does. The output is replaced through a\n"
    "temporary file (a device or FIFO is written in place); it may not be the key.\n"
    CLI_EXIT_CODES_HELP;

int cli_zkey(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(zkey_usage, stdout);
            return CLI_OK;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "zkpipe zkey: unknown option %s\n%s", argv[i], zkey_usage);
            return CLI_USAGE;
        }
    }
    if (argc != 3 || strcmp(argv[0], "export-vk") != 0) {
        fputs(zkey_usage, stderr);
        return CLI_USAGE;
    }
    zkp_output out;
    const char *in = argv[1];
    int code = cli_outputs_open("zkey export-vk", &out, (const char *const *)&argv[2], 1, &in, 1);
    if (code != CLI_OK) return code;
    zkp_diag d = {{0}};
    zkp_zkey key = {0};
    char *text = NULL;
    size_t len = 0;
    zkpipe_status st = zkp_zkey_load(&key, argv[1], NULL, &d);
    if (st != ZKPIPE_OK) {
        code = cli_fail("zkey export-vk", st, &d, CLI_BAD_INPUT);
        goto done;
    }
    zkp_g16_vk vk;
    zkp_zkey_vk(&key, &vk);
    if ((st = zkp_snarkjs_write_vk(&vk, &text, &len)) != ZKPIPE_OK)
        code = cli_fail("zkey export-vk", st, NULL, CLI_INVALID);
    else
        code = cli_outputs_write("zkey export-vk", &out, (const char *const *)&text, &len, 1);
done:
    cli_outputs_close(&out, 1);
    free(text);
    zkp_zkey_free(&key);
    return code;
}
