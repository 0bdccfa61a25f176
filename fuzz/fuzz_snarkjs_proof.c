/* libFuzzer target: snarkjs proof.json reader (formats/snarkjs_json.h).
 * An accepted proof must write out and read back to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/snarkjs_json.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_g16_proof p;
    zkp_diag d;
    zkpipe_status st = zkp_snarkjs_read_proof((const char *)data, size, "fuzz", &p, &d);
    if (st != ZKPIPE_OK) {
        CHECK(strncmp(d.msg, "fuzz: ", 6) == 0);
        return 0;
    }
    char *t1, *t2;
    size_t l1, l2;
    CHECK(zkp_snarkjs_write_proof(&p, &t1, &l1) == ZKPIPE_OK);
    zkp_g16_proof q;
    CHECK(zkp_snarkjs_read_proof(t1, l1, "again", &q, NULL) == ZKPIPE_OK);
    CHECK(zkp_snarkjs_write_proof(&q, &t2, &l2) == ZKPIPE_OK);
    CHECK(l1 == l2 && memcmp(t1, t2, l1) == 0);
    free(t1);
    free(t2);
    return 0;
}
