/* Tests of the daemon configuration (src/server/config.h): the key table,
 * the TOML-subset parser and its error messages, sizes, the four layered
 * sources, the dump, and random inputs. Texts are parsed from exact-size heap
 * copies so that AddressSanitizer catches any read past the end. */
#include <stdlib.h>
#include <unistd.h>

#include "server/config.h"
#include "test.h"

static zkpipe_status load_n(zkp_config *c, const char *s, size_t len, zkp_diag *d) {
    char *copy = malloc(len ? len : 1);
    ASSERT(copy != NULL);
    if (len) memcpy(copy, s, len);
    zkpipe_status st = zkp_config_load_text(c, copy, len, "t.toml", d);
    free(copy);
    return st;
}

static zkp_config *fresh(void) {
    zkp_config *c = NULL;
    ASSERT_EQ_STATUS(zkp_config_new(&c), ZKPIPE_OK);
    return c;
}

static zkp_config *must_load(const char *s) {
    zkp_config *c = fresh();
    zkp_diag d = {{0}};
    zkpipe_status st = load_n(c, s, strlen(s), &d);
    ASSERT_MSG(st == ZKPIPE_OK, "load of <%s> failed: %s: %s", s, zkpipe_status_name(st), d.msg);
    return c;
}

/* Expects status st and a message containing every non-NULL fragment; the
 * configuration must be unchanged (still all defaults). */
static void expect_error(const char *s, zkpipe_status want, const char *frag1, const char *frag2) {
    zkp_config *c = fresh();
    char *before = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    zkp_diag d = {{0}};
    zkpipe_status st = load_n(c, s, strlen(s), &d);
    ASSERT_MSG(st == want, "<%s>: got %s, want %s (%s)", s, zkpipe_status_name(st),
               zkpipe_status_name(want), d.msg);
    if (frag1) ASSERT_MSG(strstr(d.msg, frag1), "<%s>: message '%s' lacks '%s'", s, d.msg, frag1);
    if (frag2) ASSERT_MSG(strstr(d.msg, frag2), "<%s>: message '%s' lacks '%s'", s, d.msg, frag2);
    char *after = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    ASSERT(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    zkp_config_free(c);
}

TEST_CASE(config_table_and_defaults) {
    zkp_config *c = fresh();
    for (int i = 0; i < ZKP_CFG_KEY_COUNT; i++) {
        const zkp_cfg_key *k = zkp_config_key((zkp_cfg_id)i);
        ASSERT(k && k->name && k->help && strchr(k->name, '.'));
        ASSERT_EQ_INT(zkp_config_find(k->name), i);
        ASSERT_EQ_INT(zkp_config_source(c, (zkp_cfg_id)i), ZKP_CFG_SRC_DEFAULT);
    }
    ASSERT_EQ_INT(zkp_config_find("engine.nope"), -1);
    char env[64];
    zkp_config_env_name(ZKP_CFG_ENGINE_BUDGET, env, sizeof env);
    ASSERT(strcmp(env, "ZKPIPE_ENGINE_BUDGET") == 0);
    zkp_config_env_name(ZKP_CFG_SERVER_MAX_MESSAGE, env, sizeof env);
    ASSERT(strcmp(env, "ZKPIPE_SERVER_MAX_MESSAGE") == 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_SERVER_MAX_MESSAGE), 256u << 20);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 0);
    ASSERT_EQ_INT(zkp_config_bool(c, ZKP_CFG_ENGINE_VERIFY), 1);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_METRICS_POLL_MS), 1000);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_RUNTIME_DIR), "/run/zkpipe") == 0);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_TCP), "") == 0);
    const char *const *items;
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &items), 0);
    zkp_config_free(c);
}

TEST_CASE(config_valid_file) {
    const char *text =
        "# zkpipe daemon\n"
        "\n"
        "[server]\n"
        "socket = \"/tmp/z k/\\\"s\\\\.sock\"   # comment\n"
        "  tcp=\"127.0.0.1:9000\"\n"
        "max_message = \"512 MiB\"\n"
        "keys = [\n"
        "  \"a=/k/a.zkey\",  # first\n"
        "  \"b=/k/b.zkey\",\n"
        "]\r\n"
        "[ engine ]\n"
        "budget = \"64GiB\"\n"
        "synthesis_workers = 12\n"
        "device_workers = +2\n"
        "verify = false\n"
        "[metrics]\n"
        "http = \"0.0.0.0:9100\\t\"\n"
        "poll_ms = 250";
    zkp_config *c = must_load(text);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_SOCKET), "/tmp/z k/\"s\\.sock") == 0);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_TCP), "127.0.0.1:9000") == 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_SERVER_MAX_MESSAGE), 512u << 20);
    const char *const *items;
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &items), 2);
    ASSERT(strcmp(items[0], "a=/k/a.zkey") == 0 && strcmp(items[1], "b=/k/b.zkey") == 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 64ull << 30);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_SYNTHESIS_WORKERS), 12);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_DEVICE_WORKERS), 2);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS), 0);
    ASSERT_EQ_INT(zkp_config_bool(c, ZKP_CFG_ENGINE_VERIFY), 0);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_METRICS_HTTP), "0.0.0.0:9100\t") == 0);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_METRICS_POLL_MS), 250);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_ENGINE_BUDGET), ZKP_CFG_SRC_FILE);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS), ZKP_CFG_SRC_DEFAULT);
    zkp_config_free(c);

    /* dotted keys at top level, empty file, comments only, empty array */
    c = must_load("engine.budget = 4096\nserver.keys = []\n");
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 4096);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_VRAM_BUDGET), 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_POOL_IDLE_MAX), 0);
    zkp_config_free(c);
    c = must_load("[engine]\nvram_budget = \"120 GiB\"\npool_idle_max = \"8 GiB\"\n");
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_VRAM_BUDGET), 120ull << 30);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_POOL_IDLE_MAX), 8ull << 30);
    zkp_config_free(c);
    c = must_load("");
    zkp_config_free(c);
    c = must_load("# only\n   # comments\n\n");
    zkp_config_free(c);
}

TEST_CASE(config_syntax_errors) {
    expect_error("[server]\nsocket = \"abc\n", ZKPIPE_ERR_PARSE, "t.toml:2:10:", "unterminated string");
    expect_error("[server]\nsocket = \"a\\qb\"\n", ZKPIPE_ERR_PARSE, "t.toml:2:12:", "unknown escape");
    expect_error("[server\n", ZKPIPE_ERR_PARSE, "t.toml:1:1:", "section header");
    expect_error("[[server]]\n", ZKPIPE_ERR_PARSE, "t.toml:1:1:", "not supported");
    expect_error("[engine]\nbudget 5\n", ZKPIPE_ERR_PARSE, "t.toml:2:8:", "expected '='");
    expect_error("[engine]\nbudget =\n", ZKPIPE_ERR_PARSE, "t.toml:2:9:", "missing value");
    expect_error("[engine]\nbudget = 64GiB\n", ZKPIPE_ERR_PARSE, "t.toml:2:10:", "must be quoted");
    expect_error("[engine]\nverify = yes\n", ZKPIPE_ERR_PARSE, "t.toml:2:10:", "expected a value");
    expect_error("[engine]\nverify = true false\n", ZKPIPE_ERR_PARSE, "t.toml:2:15:", "end of line");
    expect_error("[server]\nkeys = [\"a=b\" \"c=d\"]\n", ZKPIPE_ERR_PARSE, "t.toml:2:15:", "',' or ']'");
    expect_error("[server]\nkeys = [\"a=b\",\n", ZKPIPE_ERR_PARSE, "t.toml:3:1:", "unterminated array (opened on line 2)");
    expect_error("= 3\n", ZKPIPE_ERR_PARSE, "t.toml:1:1:", "unexpected '='");
    expect_error("a\rb = 1\n", ZKPIPE_ERR_PARSE, "t.toml:1:2:", NULL);
    expect_error("[server]\nsocket = \"a\x01\"\n", ZKPIPE_ERR_PARSE, "t.toml:2:12:", "control character");
    {
        zkp_config *c = fresh();
        zkp_diag d = {{0}};
        ASSERT_EQ_STATUS(load_n(c, "x\0y", 3, &d), ZKPIPE_ERR_PARSE);
        ASSERT(strstr(d.msg, "t.toml:1:2: NUL byte"));
        zkp_config_free(c);
    }
    /* malformed size string: a parse error naming the key and line */
    expect_error("[engine]\n\nbudget = \"64 GiBs\"\n", ZKPIPE_ERR_PARSE, "t.toml:3:1:", "'engine.budget'");
}

TEST_CASE(config_range_and_type_errors) {
    expect_error("[engine]\ndevice_workers = 257\n", ZKPIPE_ERR_OUT_OF_RANGE, "t.toml:2:1:",
                 "'engine.device_workers'");
    expect_error("[metrics]\npoll_ms = 9\n", ZKPIPE_ERR_OUT_OF_RANGE, "'metrics.poll_ms'", "10 to 3600000");
    expect_error("[metrics]\npoll_ms = -5\n", ZKPIPE_ERR_OUT_OF_RANGE, "t.toml:2:1:", NULL);
    expect_error("[metrics]\npoll_ms = 99999999999999999999999\n", ZKPIPE_ERR_OUT_OF_RANGE,
                 "does not fit 64 bits", NULL);
    expect_error("[server]\nmax_message = \"1KiB\"\n", ZKPIPE_ERR_OUT_OF_RANGE, "'server.max_message'", NULL);
    expect_error("[server]\nmax_message = \"2GiB\"\n", ZKPIPE_ERR_OUT_OF_RANGE, NULL, NULL);
    expect_error("[engine]\nbudget = \"20000000TiB\"\n", ZKPIPE_ERR_OUT_OF_RANGE, "does not fit", NULL);
    expect_error("[engine]\nbudget = -1\n", ZKPIPE_ERR_OUT_OF_RANGE, "negative", NULL);
    expect_error("[engine]\nbudget = \"2PiB\"\n", ZKPIPE_ERR_PARSE, NULL, NULL);

    expect_error("[engine]\nbudgt = 1\n", ZKPIPE_ERR_INVALID_ARGUMENT, "t.toml:2:1:", "unknown key 'engine.budgt'");
    expect_error("[gpu]\n", ZKPIPE_ERR_INVALID_ARGUMENT, "t.toml:1:2:", "unknown section [gpu]");
    expect_error("budget = 1\n", ZKPIPE_ERR_INVALID_ARGUMENT, "unknown key 'budget'", NULL);
    expect_error("[engine]\nverify = 1\n", ZKPIPE_ERR_INVALID_ARGUMENT, "'engine.verify' takes a boolean",
                 "not an integer");
    expect_error("[engine]\nsynthesis_workers = \"4\"\n", ZKPIPE_ERR_INVALID_ARGUMENT, "t.toml:2:1:",
                 "takes an integer");
    expect_error("[server]\nsocket = [\"a\"]\n", ZKPIPE_ERR_INVALID_ARGUMENT, "takes a string", NULL);
    expect_error("[server]\nkeys = \"a=b\"\n", ZKPIPE_ERR_INVALID_ARGUMENT, "array of strings", NULL);
    expect_error("[server]\nkeys = [\"a=b\", 3]\n", ZKPIPE_ERR_INVALID_ARGUMENT, "t.toml:2:16:",
                 "must be strings");
    expect_error("[server]\nkeys = [\"noequals\"]\n", ZKPIPE_ERR_INVALID_ARGUMENT, "\"name=path\"", NULL);
    expect_error("[server]\nkeys = [\"=x\"]\n", ZKPIPE_ERR_INVALID_ARGUMENT, NULL, NULL);
    expect_error("[engine]\nverify = true\n[engine]\nverify = false\n", ZKPIPE_ERR_INVALID_ARGUMENT,
                 "t.toml:4:1:", "set twice (first on line 2)");
    expect_error("[engine]\nbudget = true\n", ZKPIPE_ERR_INVALID_ARGUMENT, "'engine.budget' takes a size", NULL);
    expect_error("[queue]\nnotify = \"maybe\"\n", ZKPIPE_ERR_INVALID_ARGUMENT, "'queue.notify'",
                 "neither \"on\" nor \"off\"");
    expect_error("[queue]\npoll_ms = 5\n", ZKPIPE_ERR_OUT_OF_RANGE, "'queue.poll_ms'", NULL);
}

TEST_CASE(config_input_limits) {
    size_t n = ZKP_CONFIG_MAX_INPUT + 1;
    char *big = malloc(n);
    ASSERT(big);
    memset(big, '#', n);
    zkp_config *c = fresh();
    zkp_diag d = {{0}};
    ASSERT_EQ_STATUS(zkp_config_load_text(c, big, n, "big.toml", &d), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT(strstr(d.msg, "big.toml") && strstr(d.msg, "limit"));
    ASSERT_EQ_STATUS(zkp_config_load_text(c, big, n - 1, "big.toml", &d), ZKPIPE_OK);
    free(big);

    /* an array longer than the item limit */
    size_t items = ZKP_CONFIG_MAX_ARRAY + 1;
    char *arr = malloc(items * 6 + 32);
    ASSERT(arr);
    size_t o = (size_t)sprintf(arr, "server.keys = [");
    for (size_t i = 0; i < items; i++) o += (size_t)sprintf(arr + o, "\"a=b\",");
    o += (size_t)sprintf(arr + o, "]\n");
    ASSERT_EQ_STATUS(load_n(c, arr, o, &d), ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT(strstr(d.msg, "array items"));
    free(arr);
    zkp_config_free(c);

    /* a file that does not exist, and one over the limit */
    c = fresh();
    ASSERT_EQ_STATUS(zkp_config_load_file(c, "/nonexistent/zkpipe.toml", &d), ZKPIPE_ERR_IO);
    ASSERT(strstr(d.msg, "/nonexistent/zkpipe.toml"));
    zkp_config_free(c);
}

TEST_CASE(config_sizes) {
    static const struct {
        const char *s;
        uint64_t v;
    } ok[] = {{"0", 0},
              {"4096", 4096},
              {"1B", 1},
              {"1KiB", 1024},
              {"3 MiB", 3u << 20},
              {"64GiB", 64ull << 30},
              {"2TiB", 2ull << 40},
              {"1KB", 1000},
              {"5MB", 5000000},
              {"7GB", 7000000000ull},
              {"1tb", 1000000000000ull},
              {"64gib", 64ull << 30},
              {" 8 KiB ", 8192},
              {"18446744073709551615", UINT64_MAX},
              {"16777215TiB", 16777215ull << 40}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 1;
        ASSERT_MSG(zkp_config_parse_size(ok[i].s, strlen(ok[i].s), &v) == ZKPIPE_OK, "%s", ok[i].s);
        ASSERT_EQ_U64(v, ok[i].v);
    }
    static const char *const bad[] = {"", "GiB", "1.5GiB", "-1", "1 G iB", "1XB", "1 KiBx2", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        ASSERT_MSG(zkp_config_parse_size(bad[i], strlen(bad[i]), &v) == ZKPIPE_ERR_PARSE, "%s", bad[i]);
    }
    static const char *const over[] = {"18446744073709551616", "16777216TiB", "99999999999999999999999B",
                                       "18446744073709552GB"};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        uint64_t v;
        ASSERT_MSG(zkp_config_parse_size(over[i], strlen(over[i]), &v) == ZKPIPE_ERR_OUT_OF_RANGE, "%s",
                   over[i]);
    }
    /* integer bytes and unit strings both reach a size key */
    zkp_config *c = must_load("engine.budget = 1073741824\n");
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 1ull << 30);
    zkp_config_free(c);
    expect_error("engine.budget = \"1PB\"\n", ZKPIPE_ERR_PARSE, "malformed size", NULL);
}

static const char *const ENV[] = {
    "PATH=/bin",
    "ZKPIPE_ENGINE_BUDGET=32GiB",
    "ZKPIPE_ENGINE_VERIFY=off",
    "ZKPIPE_SERVER_KEYS=x=/x.zkey, y=/y.zkey",
    "ZKPIPE_METRICS_POLL_MS=500",
    "ZKPIPE_NOT_A_KEY=1", /* unknown ZKPIPE_ variables are ignored */
    "ZKPIPE_TEST_SEED=7",
    NULL,
};

TEST_CASE(config_precedence) {
    char path[] = "/tmp/zkp_cfg_XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    const char *file = "[engine]\nbudget = \"16GiB\"\nsynthesis_workers = 3\ndevice_workers = 1\n"
                       "[metrics]\npoll_ms = 200\nhttp = \"file:1\"\n";
    ASSERT_EQ_U64((size_t)write(fd, file, strlen(file)), strlen(file));
    close(fd);
    const char *const sets[] = {"engine.budget=64GiB", " engine.device_workers =4", "metrics.http=",
                                "engine.device_workers=5"};
    zkp_config_sources src = {.file = path, .use_env = 1, .envp = ENV, .sets = sets, .n_sets = 4};
    zkp_config *c = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_config_resolve(&c, &src, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    /* cli > env > file > default */
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 64ull << 30);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_ENGINE_BUDGET), ZKP_CFG_SRC_CLI);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_METRICS_POLL_MS), 500);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_METRICS_POLL_MS), ZKP_CFG_SRC_ENV);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_SYNTHESIS_WORKERS), 3);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_ENGINE_SYNTHESIS_WORKERS), ZKP_CFG_SRC_FILE);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_DEVICE_WORKERS), 5); /* later --set wins */
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS), 0);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS), ZKP_CFG_SRC_DEFAULT);
    ASSERT_EQ_INT(zkp_config_bool(c, ZKP_CFG_ENGINE_VERIFY), 0);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_METRICS_HTTP), "") == 0);
    ASSERT_EQ_INT(zkp_config_source(c, ZKP_CFG_METRICS_HTTP), ZKP_CFG_SRC_CLI);
    const char *const *items;
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &items), 2);
    ASSERT(strcmp(items[0], "x=/x.zkey") == 0 && strcmp(items[1], "y=/y.zkey") == 0);

    /* the printed configuration names each source */
    char *dump = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES | ZKP_CONFIG_DUMP_HELP);
    ASSERT(dump);
    ASSERT(strstr(dump, "budget = \"64GiB\"  # cli --set"));
    ASSERT(strstr(dump, "poll_ms = 500  # env ZKPIPE_METRICS_POLL_MS"));
    ASSERT(strstr(dump, "synthesis_workers = 3  # file "));
    ASSERT(strstr(dump, ":3\n"));
    ASSERT(strstr(dump, "finalize_workers = 0  # default"));
    ASSERT(strstr(dump, "max_message = \"256MiB\"  # default"));
    ASSERT(strstr(dump, "# memory budget of the engine; 0 = detect"));
    free(dump);
    FILE *devnull = fopen("/dev/null", "w");
    ASSERT(devnull);
    ASSERT_EQ_STATUS(zkp_config_print(c, devnull), ZKPIPE_OK);
    fclose(devnull);
    zkp_config_free(c);

    /* without the environment */
    src.use_env = 0;
    src.n_sets = 0;
    ASSERT_EQ_STATUS(zkp_config_resolve(&c, &src, &d), ZKPIPE_OK);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 16ull << 30);
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_METRICS_POLL_MS), 200);
    ASSERT_EQ_INT(zkp_config_bool(c, ZKP_CFG_ENGINE_VERIFY), 1);
    zkp_config_free(c);

    /* a failing source fails the whole resolve, naming the source */
    const char *const bad_set[] = {"engine.budget=lots"};
    src.sets = bad_set;
    src.n_sets = 1;
    c = (zkp_config *)&c;
    ASSERT_EQ_STATUS(zkp_config_resolve(&c, &src, &d), ZKPIPE_ERR_PARSE);
    ASSERT(c == NULL);
    ASSERT(strstr(d.msg, "--set engine.budget") && strstr(d.msg, "malformed size"));
    unlink(path);
    src.n_sets = 0;
    ASSERT_EQ_STATUS(zkp_config_resolve(&c, &src, &d), ZKPIPE_ERR_IO);
}

TEST_CASE(config_env_and_set_errors) {
    zkp_config *c = fresh();
    char *before = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    zkp_diag d = {{0}};
    static const struct {
        const char *env;
        zkpipe_status st;
        const char *frag;
    } envs[] = {
        {"ZKPIPE_ENGINE_BUDGET=64QiB", ZKPIPE_ERR_PARSE, "environment ZKPIPE_ENGINE_BUDGET: key 'engine.budget'"},
        {"ZKPIPE_ENGINE_BUDGET=", ZKPIPE_ERR_PARSE, "malformed size"},
        {"ZKPIPE_ENGINE_VERIFY=maybe", ZKPIPE_ERR_PARSE, "not a boolean"},
        {"ZKPIPE_METRICS_POLL_MS=5", ZKPIPE_ERR_OUT_OF_RANGE, "ZKPIPE_METRICS_POLL_MS"},
        {"ZKPIPE_METRICS_POLL_MS=12ms", ZKPIPE_ERR_PARSE, "not an integer"},
        {"ZKPIPE_METRICS_POLL_MS=-9223372036854775809", ZKPIPE_ERR_OUT_OF_RANGE, "64 bits"},
        {"ZKPIPE_SERVER_KEYS=a=b,,c=d", ZKPIPE_ERR_INVALID_ARGUMENT, "item 2"},
        {"ZKPIPE_SERVER_KEYS=[\"a=b\", 1]", ZKPIPE_ERR_INVALID_ARGUMENT, "must be strings"},
        {"ZKPIPE_SERVER_TCP=\"abc", ZKPIPE_ERR_PARSE, "unterminated string"},
        {"ZKPIPE_SERVER_TCP=\"abc\" x", ZKPIPE_ERR_PARSE, "text after the value"},
        {"ZKPIPE_SERVER_TCP=a\x01", ZKPIPE_ERR_INVALID_ARGUMENT, "control character"},
    };
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        const char *const e[] = {"ZKPIPE_ENGINE_DEVICE_WORKERS=7", envs[i].env, NULL};
        zkpipe_status st = zkp_config_load_env(c, e, &d);
        ASSERT_MSG(st == envs[i].st, "%s: %s (%s)", envs[i].env, zkpipe_status_name(st), d.msg);
        ASSERT_MSG(strstr(d.msg, envs[i].frag), "%s: '%s' lacks '%s'", envs[i].env, d.msg, envs[i].frag);
    }
    static const struct {
        const char *set;
        zkpipe_status st;
        const char *frag;
    } sets[] = {
        {"engine.budget", ZKPIPE_ERR_PARSE, "expected key=value"},
        {"engine.bugdet=1", ZKPIPE_ERR_INVALID_ARGUMENT, "unknown key 'engine.bugdet'"},
        {"engine.device_workers=1000", ZKPIPE_ERR_OUT_OF_RANGE, "--set engine.device_workers"},
        {"server.max_message=3GiB", ZKPIPE_ERR_OUT_OF_RANGE, "server.max_message"},
        {"engine.budget=99999999999TiB", ZKPIPE_ERR_OUT_OF_RANGE, "does not fit"},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        const char *const s[] = {"engine.finalize_workers=2", sets[i].set};
        zkpipe_status st = zkp_config_apply_sets(c, s, 2, &d);
        ASSERT_MSG(st == sets[i].st, "%s: %s (%s)", sets[i].set, zkpipe_status_name(st), d.msg);
        ASSERT_MSG(strstr(d.msg, sets[i].frag), "%s: '%s' lacks '%s'", sets[i].set, d.msg, sets[i].frag);
    }
    /* all or nothing: nothing of the failed loads stuck */
    char *after = zkp_config_dump(c, ZKP_CONFIG_DUMP_SOURCES);
    ASSERT(before && after && strcmp(before, after) == 0);
    free(after);

    /* valid plain values of each type */
    const char *const e[] = {"ZKPIPE_SERVER_TCP=\"q\\\"uoted\"", "ZKPIPE_ENGINE_VERIFY=YES",
                             "ZKPIPE_SERVER_KEYS=[\"k=v\"]", "ZKPIPE_ENGINE_BUDGET=123", NULL};
    ASSERT_EQ_STATUS(zkp_config_load_env(c, e, &d), ZKPIPE_OK);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_TCP), "q\"uoted") == 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_ENGINE_BUDGET), 123);
    const char *const s2[] = {"server.keys=", "server.runtime_dir=/var/run/z p"};
    ASSERT_EQ_STATUS(zkp_config_apply_sets(c, s2, 2, &d), ZKPIPE_OK);
    const char *const *items;
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &items), 0);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_SERVER_RUNTIME_DIR), "/var/run/z p") == 0);
    /* the process environment (envp NULL) */
    ASSERT_EQ_INT(setenv("ZKPIPE_ENGINE_FINALIZE_WORKERS", "9", 1), 0);
    ASSERT_EQ_STATUS(zkp_config_load_env(c, NULL, &d), ZKPIPE_OK);
    unsetenv("ZKPIPE_ENGINE_FINALIZE_WORKERS");
    ASSERT_EQ_INT(zkp_config_int(c, ZKP_CFG_ENGINE_FINALIZE_WORKERS), 9);
    free(before);
    zkp_config_free(c);
}

/* The dump (without sources) loads back to the same dump. */
static void expect_roundtrip(const zkp_config *c) {
    char *a = zkp_config_dump(c, ZKP_CONFIG_DUMP_HELP);
    ASSERT(a);
    zkp_config *r = must_load(a);
    char *b = zkp_config_dump(r, ZKP_CONFIG_DUMP_HELP);
    ASSERT_MSG(b && strcmp(a, b) == 0, "dump does not round-trip:\n%s\n---\n%s", a, b ? b : "");
    free(a);
    free(b);
    zkp_config_free(r);
}

TEST_CASE(config_dump_roundtrip) {
    zkp_config *c = fresh();
    expect_roundtrip(c);
    zkp_config_free(c);
    c = must_load("[server]\nsocket = \"a\\\\b\\\"c\\nd\\te # x\"\nkeys = [\"n=p\", \"m=#q\"]\n"
                  "max_message = 1234567\n[engine]\nbudget = \"3TiB\"\nverify = false\n");
    expect_roundtrip(c);
    zkp_config_free(c);
}

/* Random and mutated inputs: no crash, a known status, a message on
 * failure, and no change to the configuration on failure. */
TEST_CASE(config_random_inputs_do_not_crash) {
    static const char *const seeds[] = {
        "[server]\nsocket = \"/s\"\nkeys = [\"a=b\", \"c=d\"]\n[engine]\nbudget = \"64GiB\"\n",
        "[metrics]\npoll_ms = 250 # c\nhttp = \"h:1\"\n",
        "engine.verify = true\nengine.device_workers = -0\n",
    };
    static const char alphabet[] = "[]=\"\\#,\n\r\t .-+0123456789abegirstuvnfKMGTiBx\x01\x80";
    unsigned iters = test_iters(3000);
    for (unsigned it = 0; it < iters; it++) {
        char buf[256];
        size_t len;
        if (it % 2 == 0) {
            const char *s = seeds[test_rng_u64() % 3];
            len = strlen(s);
            memcpy(buf, s, len);
            unsigned muts = 1 + (unsigned)(test_rng_u64() % 4);
            for (unsigned m = 0; m < muts && len; m++) {
                size_t at = test_rng_u64() % len;
                switch (test_rng_u64() % 3) {
                case 0: buf[at] = alphabet[test_rng_u64() % (sizeof alphabet - 1)]; break;
                case 1: len = at; break;
                default:
                    if (len < sizeof buf) {
                        memmove(buf + at + 1, buf + at, len - at);
                        buf[at] = alphabet[test_rng_u64() % (sizeof alphabet - 1)];
                        len++;
                    }
                }
            }
        } else {
            len = test_rng_u64() % 64;
            for (size_t i = 0; i < len; i++) buf[i] = alphabet[test_rng_u64() % (sizeof alphabet - 1)];
        }
        zkp_config *c = fresh();
        zkp_diag d = {{0}};
        zkpipe_status st = load_n(c, buf, len, &d);
        ASSERT(st == ZKPIPE_OK || st == ZKPIPE_ERR_PARSE || st == ZKPIPE_ERR_OUT_OF_RANGE ||
               st == ZKPIPE_ERR_INVALID_ARGUMENT);
        if (st != ZKPIPE_OK) {
            ASSERT(d.msg[0] != '\0' && strncmp(d.msg, "t.toml:", 7) == 0);
        } else {
            expect_roundtrip(c);
        }
        zkp_config_free(c);
    }
}

/* The example shipped for operators loads, and says what it claims. */
TEST_CASE(config_example_file_loads) {
    zkp_config *c = fresh();
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_config_load_file(c, ZKP_TEST_DATA_DIR "/../packaging/zkpipe.toml", &d);
    ASSERT_MSG(st == ZKPIPE_OK, "packaging/zkpipe.toml: %s: %s", zkpipe_status_name(st), d.msg);
    ASSERT(strcmp(zkp_config_str(c, ZKP_CFG_METRICS_HTTP), "127.0.0.1:9464") == 0);
    ASSERT_EQ_U64(zkp_config_size(c, ZKP_CFG_SERVER_MAX_MESSAGE), (uint64_t)256 << 20);
    const char *const *keys;
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEYS, &keys), 1);
    ASSERT(strncmp(keys[0], "poseidon=", 9) == 0);
    ASSERT_EQ_U64(zkp_config_strings(c, ZKP_CFG_SERVER_KEY_DIRS, &keys), 1);
    ASSERT(strcmp(keys[0], "/var/lib/zkpipe/keys") == 0);
    ASSERT(!zkp_config_bool(c, ZKP_CFG_SERVER_ALLOW_INSECURE_TCP));
    zkp_config_free(c);
}
