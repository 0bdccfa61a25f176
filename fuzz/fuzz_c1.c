/* libFuzzer target: Filecoin C1 JSON and Curio's envelope (filecoin/c1.h).
 * An accepted C1 writes back to text that reads again and writes the same
 * bytes; a failure leaves nothing allocated and names the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/c1.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    zkp_fil_c1 c1;
    zkp_diag d;
    if (zkp_fil_c1_parse(&c1, text, size, "fuzz", NULL, ZKP_MEM_AUX, &d) != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz", 4) == 0);
        CHECK(c1.arena == NULL);
    } else {
        uint8_t *out, *again;
        size_t len, len2;
        CHECK(zkp_fil_c1_write(&c1, &out, &len, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK);
        zkp_fil_c1 back;
        CHECK(zkp_fil_c1_parse(&back, (const char *)out, len, "again", NULL, ZKP_MEM_AUX, &d) ==
              ZKPIPE_OK);
        CHECK(zkp_fil_c1_write(&back, &again, &len2, NULL, ZKP_MEM_AUX, &d) == ZKPIPE_OK);
        CHECK(len == len2 && memcmp(out, again, len) == 0);
        zkp_free(NULL, out, len, ZKP_MEM_AUX);
        zkp_free(NULL, again, len2, ZKP_MEM_AUX);
        zkp_fil_c1_free(&back);
        zkp_fil_c1_free(&c1);
    }
    uint64_t num, sz;
    char *json;
    size_t json_len;
    if (zkp_fil_c1_envelope_parse(text, size, &num, &sz, &json, &json_len, NULL, ZKP_MEM_AUX,
                                  &d) == ZKPIPE_OK) {
        CHECK(json_len <= size);
        zkp_free(NULL, json, json_len, ZKP_MEM_AUX);
    } else {
        CHECK(json == NULL);
    }
    return 0;
}
