/* libFuzzer target: the daemon configuration parser (server/config.h).
 *
 * Beyond "no crash, no leak, no read outside the input", it checks what the
 * parser promises: a failed load returns one of the documented statuses with
 * a "file:line:col:" message and leaves the configuration unchanged; an
 * accepted file dumps to text that loads back to the same dump; and the same
 * bytes as a command-line override ("key=value") or an environment value
 * never crash and fail with a documented status. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/config.h"

#define CHECK(cond)                    \
    do {                               \
        if (!(cond)) __builtin_trap(); \
    } while (0)

static int known_status(zkpipe_status st) {
    return st == ZKPIPE_OK || st == ZKPIPE_ERR_PARSE || st == ZKPIPE_ERR_OUT_OF_RANGE ||
           st == ZKPIPE_ERR_INVALID_ARGUMENT || st == ZKPIPE_ERR_NO_MEMORY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zkp_config *c = NULL;
    CHECK(zkp_config_new(&c) == ZKPIPE_OK);
    char *before = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    CHECK(before != NULL);

    zkp_diag d;
    d.msg[0] = '\0';
    zkpipe_status st = zkp_config_load_text(c, (const char *)data, size, "f", &d);
    CHECK(known_status(st));
    char *after = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    CHECK(after != NULL);
    if (st != ZKPIPE_OK) {
        if (st != ZKPIPE_ERR_NO_MEMORY) CHECK(strncmp(d.msg, "f:", 2) == 0);
        CHECK(strcmp(before, after) == 0);
    } else {
        /* the dump loads back to the same values */
        char *a = zkp_config_dump(c, 0);
        zkp_config *r = NULL;
        CHECK(a && zkp_config_new(&r) == ZKPIPE_OK);
        CHECK(zkp_config_load_text(r, a, strlen(a), "dump", NULL) == ZKPIPE_OK);
        char *b = zkp_config_dump(r, 0);
        CHECK(b && strcmp(a, b) == 0);
        free(a);
        free(b);
        zkp_config_free(r);
    }
    free(before);
    free(after);

    /* The bytes as an override and as environment values. */
    char *s = malloc(size + 1);
    CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    const char *const sets[] = {s};
    st = zkp_config_apply_sets(c, sets, 1, NULL);
    CHECK(known_status(st));
    if (size >= 1) {
        /* first byte picks the key, the rest is the value */
        char env[80 + 1];
        zkp_config_env_name((zkp_cfg_id)(data[0] % ZKP_CFG_KEY_COUNT), env, 64);
        size_t el = strlen(env);
        char *var = malloc(el + 1 + size);
        CHECK(var != NULL);
        memcpy(var, env, el);
        var[el] = '=';
        memcpy(var + el + 1, s + 1, size); /* includes the NUL */
        const char *const envp[] = {var, NULL};
        zkp_diag d2;
        st = zkp_config_load_env(c, envp, &d2);
        CHECK(known_status(st));
        if (st != ZKPIPE_OK && st != ZKPIPE_ERR_NO_MEMORY)
            CHECK(strncmp(d2.msg, "environment ZKPIPE_", 19) == 0);
        free(var);
    }
    free(s);
    zkp_config_free(c);
    return 0;
}
