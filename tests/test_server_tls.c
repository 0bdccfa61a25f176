/* TCP security: TLS listeners and the bearer token at the RPC layer
 * (server/rpc.h) with certificates made for the test by the openssl
 * command line (tests/make_test_certs.sh), and the checks of the settings
 * behind them (server/tcpsec.h). tests/daemon.sh drives the same through
 * `zkpipe serve` and `zkpipe client`. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server/config.h"
#include "server/rpc.h"
#include "server/tcpsec.h"
#include "test.h"
#include "util/fileio.h"

extern char **environ;

#define TOKEN "0123456789abcdef-test-token"
#define METHOD "/zkpipe.test.Echo/Echo"

/* A fresh directory under $TMPDIR, removed with what it holds when the
 * case ends. */
static void rm_rf_(void *dir) {
    char *argv[] = {"rm", "-rf", dir, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "rm", NULL, NULL, argv, environ) == 0) waitpid(pid, NULL, 0);
    free(dir);
}

static char *temp_dir_(void) {
    const char *base = getenv("TMPDIR");
    char *dir = malloc(512);
    ASSERT(dir != NULL);
    snprintf(dir, 512, "%s/zkp_tls_XXXXXX", base && *base ? base : "/tmp");
    ASSERT_MSG(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    test_defer(rm_rf_, dir);
    return dir;
}

static void write_file_(const char *dir, const char *name, const char *text, mode_t mode) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_MSG(fd >= 0, "%s: %s", p, strerror(errno));
    ASSERT(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    ASSERT(fchmod(fd, mode) == 0 && close(fd) == 0);
}

/* The certificates, made in dir; the case is skipped without openssl. */
static void make_certs_(const char *dir) {
    char script[600], log[600];
    snprintf(script, sizeof script, "%s", test_data_path("make_test_certs.sh"));
    snprintf(log, sizeof log, "%s/make_certs.log", dir);
    char *argv[] = {"bash", script, (char *)dir, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int e = posix_spawnp(&pid, "bash", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ASSERT_MSG(e == 0, "cannot run bash: %s", strerror(e));
    int ws;
    ASSERT(waitpid(pid, &ws, 0) == pid);
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return;
    char *text = NULL;
    size_t len;
    zkp_diag d;
    if (zkp_read_file(log, 1 << 16, &text, &len, &d) == ZKPIPE_OK &&
        strstr(text, "openssl is not installed")) {
        free(text);
        test_skip("the openssl command line is not installed");
    }
    test_fail(__FILE__, __LINE__, "make_test_certs.sh failed: %s", text ? text : "(no log)");
}

static char *slurp_(const char *dir, const char *name) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *text;
    size_t len;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_read_file(p, 1 << 20, &text, &len, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(free, text);
    return text;
}

static void echo_(void *ctx, zkp_rpc_call *call, const uint8_t *req, size_t len) {
    (void)ctx;
    zkp_rpc_reply(call, req, len);
}

static void server_destroy_(void *s) {
    zkp_rpc_server *srv = s;
    zkp_rpc_server_destroy(&srv, 0);
}

/* A server answering METHOD with its request, on 127.0.0.1 (TLS when tls
 * is given) and on a unix socket when sock is given. Returns the port. */
static int serve_(const zkp_rpc_tls *tls, const char *token, const char *sock) {
    zkp_rpc_server *s;
    zkp_diag d = {{0}};
    ASSERT_MSG(zkp_rpc_server_create(&s, 1 << 20, &d) == ZKPIPE_OK, "%s", d.msg);
    test_defer(server_destroy_, s);
    ASSERT_OK(zkp_rpc_server_add_method(s, METHOD, echo_, NULL));
    int port = 0;
    ASSERT_MSG(zkp_rpc_server_listen_tls(s, "127.0.0.1:0", tls, &port, &d) == ZKPIPE_OK, "%s",
               d.msg);
    if (sock) {
        char addr[700];
        snprintf(addr, sizeof addr, "unix:%s", sock);
        ASSERT_MSG(zkp_rpc_server_listen(s, addr, NULL, &d) == ZKPIPE_OK, "%s", d.msg);
    }
    if (token) ASSERT_OK(zkp_rpc_server_require_token(s, token));
    ASSERT_MSG(zkp_rpc_server_start(s, &d) == ZKPIPE_OK, "%s", d.msg);
    return port;
}

/* One call; the status, and msg its message. An answer must echo. */
static zkp_rpc_code call_(const char *target, const zkp_rpc_client_security *sec, char msg[512]) {
    zkp_rpc_code code;
    uint8_t *resp = NULL;
    size_t n = 0;
    ASSERT_OK(zkp_rpc_client_call(target, sec, METHOD, (const uint8_t *)"ping", 4, 20000, 1 << 20,
                                  &code, &resp, &n, msg, 512));
    if (code == ZKP_RPC_OK) ASSERT(n == 4 && memcmp(resp, "ping", 4) == 0);
    free(resp);
    return code;
}

#define EXPECT_CALL(want, target, sec, what)                                                       \
    do {                                                                                           \
        char m_[512];                                                                              \
        zkp_rpc_code c_ = call_((target), (sec), m_);                                              \
        ASSERT_MSG(c_ == (want), "%s: %s (%s), expected %s", (what), zkp_rpc_code_name((int)c_),   \
                   m_, zkp_rpc_code_name((int)(want)));                                            \
    } while (0)

/* TLS with and without client certificates, the token, and the unix
 * socket beside them, through gRPC core on both ends. A refused
 * handshake surfaces as UNAVAILABLE, gRPC's status for a connection that
 * could not be made. */
TEST_CASE(server_tls_and_token_at_the_rpc_layer) {
    const char *dir = temp_dir_();
    make_certs_(dir);
    const char *ca = slurp_(dir, "ca.pem"), *other_ca = slurp_(dir, "other-ca.pem");
    const char *other_key = slurp_(dir, "other-ca.key");
    const char *srv_cert = slurp_(dir, "server.pem"), *srv_key = slurp_(dir, "server.key");
    const char *cli_cert = slurp_(dir, "client.pem"), *cli_key = slurp_(dir, "client.key");
    char sock[600], target[64];
    snprintf(sock, sizeof sock, "%s/a.sock", dir);

    /* TLS, client certificates from ca required, the token required. */
    zkp_rpc_tls mutual = {srv_cert, srv_key, ca};
    snprintf(target, sizeof target, "127.0.0.1:%d", serve_(&mutual, TOKEN, sock));
    zkp_rpc_client_security good = {1, ca, cli_cert, cli_key, NULL, TOKEN};
    EXPECT_CALL(ZKP_RPC_OK, target, &good, "the right CA, client certificate and token");
    zkp_rpc_client_security s = good;
    s.server_name = "localhost"; /* the certificate's other name */
    EXPECT_CALL(ZKP_RPC_OK, target, &s, "server name localhost");
    s.server_name = "not-the-daemon.example";
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &s, "a name the certificate does not carry");
    s = good;
    s.ca = other_ca;
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &s, "the server checked against another CA");
    s = good;
    s.cert_chain = s.private_key = NULL;
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &s, "no client certificate");
    s.cert_chain = other_ca; /* a certificate another CA issued (itself) */
    s.private_key = other_key;
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &s, "a client certificate of another CA");
    s = good;
    s.token = NULL;
    EXPECT_CALL(ZKP_RPC_UNAUTHENTICATED, target, &s, "no token");
    s.token = "0123456789abcdef-test-tokeN"; /* the last character differs */
    EXPECT_CALL(ZKP_RPC_UNAUTHENTICATED, target, &s, "a wrong token");
    s.token = TOKEN "x";
    EXPECT_CALL(ZKP_RPC_UNAUTHENTICATED, target, &s, "the token and one character more");
    zkp_rpc_client_security plain = {0, NULL, NULL, NULL, NULL, TOKEN};
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &plain, "plaintext to the TLS port");
    /* The socket's file mode is its access control: no token asked. */
    char unix_target[700];
    snprintf(unix_target, sizeof unix_target, "unix:%s", sock);
    EXPECT_CALL(ZKP_RPC_OK, unix_target, NULL, "the unix socket without a token");

    /* TLS with no client certificate asked for, no token. */
    zkp_rpc_tls server_only = {srv_cert, srv_key, NULL};
    snprintf(target, sizeof target, "127.0.0.1:%d", serve_(&server_only, NULL, NULL));
    zkp_rpc_client_security tls_only = {1, ca, NULL, NULL, NULL, NULL};
    EXPECT_CALL(ZKP_RPC_OK, target, &tls_only, "TLS without a client certificate");
    tls_only.ca = other_ca;
    EXPECT_CALL(ZKP_RPC_UNAVAILABLE, target, &tls_only, "TLS checked against another CA");

    /* Plaintext with the token. */
    snprintf(target, sizeof target, "127.0.0.1:%d", serve_(NULL, TOKEN, NULL));
    EXPECT_CALL(ZKP_RPC_OK, target, &plain, "plaintext with the token");
    EXPECT_CALL(ZKP_RPC_UNAUTHENTICATED, target, NULL, "plaintext without the token");

    /* A key that is not the certificate's is refused when listening. */
    zkp_rpc_server *bad;
    zkp_diag d = {{0}};
    ASSERT_OK(zkp_rpc_server_create(&bad, 1 << 20, &d));
    test_defer(server_destroy_, bad);
    zkp_rpc_tls mismatched = {srv_cert, cli_key, NULL};
    ASSERT_EQ_STATUS(zkp_rpc_server_listen_tls(bad, "127.0.0.1:0", &mismatched, NULL, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "is the key the certificate's?") != NULL);
}

/* Token comparison: equal only for the same bytes and length. */
TEST_CASE(server_token_compare) {
    static const char want[] = "0123456789abcdef";
    ASSERT(zkp_rpc_token_equal(want, 16, "0123456789abcdef", 16));
    ASSERT(!zkp_rpc_token_equal(want, 16, "0123456789abcdeF", 16));
    ASSERT(!zkp_rpc_token_equal(want, 16, "1123456789abcdef", 16));
    ASSERT(!zkp_rpc_token_equal(want, 16, "0123456789abcde", 15));
    ASSERT(!zkp_rpc_token_equal(want, 16, "0123456789abcdef0", 17));
    ASSERT(!zkp_rpc_token_equal(want, 16, "", 0));
    /* A guess padded with NUL bytes to the length is still wrong. */
    ASSERT(!zkp_rpc_token_equal("0123456789abcde\0", 16, "0123456789abcde", 15));
}

/* The token file: the token with trailing white space dropped; refused
 * when other users may read or write it, when too short or too long, or
 * with characters a header cannot carry. */
TEST_CASE(server_token_file_rules) {
    const char *dir = temp_dir_();
    char p[700], *tok = NULL;
    zkp_diag d = {{0}};
    snprintf(p, sizeof p, "%s/token", dir);
    write_file_(dir, "token", "0123456789abcdef0123\r\n\n", 0600);
    ASSERT_MSG(srv_token_read("server.auth_token_file", p, &tok, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT_STR_EQ(tok, "0123456789abcdef0123");
    free(tok);
    write_file_(dir, "token", "0123456789abcdef0123\n", 0640); /* the group may read it */
    ASSERT_MSG(srv_token_read("server.auth_token_file", p, &tok, &d) == ZKPIPE_OK, "%s", d.msg);
    free(tok);
    struct {
        const char *text;
        mode_t mode;
        zkpipe_status want;
        const char *says;
    } bad[] = {
        {"0123456789abcdef0123\n", 0644, ZKPIPE_ERR_INVALID_ARGUMENT, "every user may read it"},
        {"0123456789abcdef0123\n", 0602, ZKPIPE_ERR_INVALID_ARGUMENT, "every user may write it"},
        {"0123456789abcde\n", 0600, ZKPIPE_ERR_INVALID_ARGUMENT, "at least 16"},
        {"0123456789 abcdef0123\n", 0600, ZKPIPE_ERR_INVALID_ARGUMENT, "character 11 (byte 0x20)"},
        {"0123456789abcdef\n0123\n", 0600, ZKPIPE_ERR_INVALID_ARGUMENT, "byte 0x0a"},
        {"", 0600, ZKPIPE_ERR_INVALID_ARGUMENT, "empty"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file_(dir, "token", bad[i].text, bad[i].mode);
        d.msg[0] = 0;
        ASSERT_EQ_STATUS(srv_token_read("server.auth_token_file", p, &tok, &d), bad[i].want);
        ASSERT(tok == NULL);
        ASSERT_MSG(strstr(d.msg, bad[i].says) && strstr(d.msg, "server.auth_token_file"),
                   "case %zu: \"%s\" does not say \"%s\"", i, d.msg, bad[i].says);
    }
    char *big = malloc(SRV_TOKEN_MAX + 2);
    ASSERT(big != NULL);
    memset(big, 'a', SRV_TOKEN_MAX + 1);
    big[SRV_TOKEN_MAX + 1] = 0;
    write_file_(dir, "token", big, 0600);
    free(big);
    ASSERT_EQ_STATUS(srv_token_read("server.auth_token_file", p, &tok, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "at most 4096") != NULL);
    ASSERT_EQ_STATUS(srv_token_read("server.auth_token_file", dir, &tok, &d),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "not a regular file") != NULL);
    snprintf(p, sizeof p, "%s/missing", dir);
    ASSERT_EQ_STATUS(srv_token_read("server.auth_token_file", p, &tok, &d), ZKPIPE_ERR_IO);
    size_t n;
    ASSERT_OK(srv_token_check("ZKPIPE_TOKEN", "0123456789abcdef \t\n", &n, &d));
    ASSERT_EQ_U64(n, 16);
}

static zkpipe_status load_(const char *const *sets, size_t n, srv_tcp_security *sec, zkp_diag *d) {
    zkp_config *c;
    ASSERT_OK(zkp_config_new(&c));
    ASSERT_MSG(zkp_config_apply_sets(c, sets, n, d) == ZKPIPE_OK, "%s", d->msg);
    zkpipe_status st = srv_tcp_security_load(c, sec, d);
    zkp_config_free(c);
    return st;
}

/* The TLS and token settings: which go together, what each file must
 * hold, and when a TCP address beyond loopback is allowed. */
TEST_CASE(server_tcp_security_settings) {
    const char *dir = temp_dir_();
    static const char cert[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    static const char key[] = "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n";
    write_file_(dir, "cert.pem", cert, 0644);
    write_file_(dir, "key.pem", key, 0600);
    write_file_(dir, "open.key", key, 0644);
    write_file_(
        dir, "enc.key",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----\n", 0600);
    write_file_(dir, "token", "0123456789abcdef0123\n", 0600);
    char c_cert[700], c_key[700], c_open[700], c_enc[700], c_ca[700], c_tok[700], c_keyascert[700];
    snprintf(c_cert, sizeof c_cert, "server.tls_cert=%s/cert.pem", dir);
    snprintf(c_key, sizeof c_key, "server.tls_key=%s/key.pem", dir);
    snprintf(c_open, sizeof c_open, "server.tls_key=%s/open.key", dir);
    snprintf(c_enc, sizeof c_enc, "server.tls_key=%s/enc.key", dir);
    snprintf(c_ca, sizeof c_ca, "server.tls_client_ca=%s/cert.pem", dir);
    snprintf(c_tok, sizeof c_tok, "server.auth_token_file=%s/token", dir);
    snprintf(c_keyascert, sizeof c_keyascert, "server.tls_cert=%s/key.pem", dir);
    srv_tcp_security sec;
    zkp_diag d = {{0}};

    const char *all[] = {c_cert, c_key, c_ca, c_tok};
    ASSERT_MSG(load_(all, 4, &sec, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT(sec.cert && strcmp(sec.cert, cert) == 0 && sec.key && strcmp(sec.key, key) == 0);
    ASSERT(sec.client_ca && strcmp(sec.client_ca, cert) == 0);
    ASSERT_STR_EQ(sec.token, "0123456789abcdef0123");
    srv_tcp_security_free(&sec);
    ASSERT_MSG(load_(NULL, 0, &sec, &d) == ZKPIPE_OK, "%s", d.msg);
    ASSERT(!sec.cert && !sec.key && !sec.client_ca && !sec.token);

    struct {
        const char *sets[2];
        size_t n;
        const char *says;
    } bad[] = {
        {{c_cert}, 1, "server.tls_cert is set, server.tls_key is not"},
        {{c_key}, 1, "server.tls_key is set, server.tls_cert is not"},
        {{c_ca}, 1, "server.tls_client_ca is set without TLS"},
        {{c_cert, c_open}, 2, "every user may read it"},
        {{c_cert, c_enc}, 2, "encrypted private key"},
        {{c_keyascert, c_key}, 2, "holds no PEM certificate"},
        {{c_cert, "server.tls_key=/nonexistent/key.pem"},
         2,
         "server.tls_key /nonexistent/key.pem: cannot open"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d.msg[0] = 0;
        ASSERT_MSG(load_(bad[i].sets, bad[i].n, &sec, &d) != ZKPIPE_OK, "case %zu accepted", i);
        ASSERT_MSG(strstr(d.msg, bad[i].says) != NULL, "case %zu: \"%s\" does not say \"%s\"", i,
                   d.msg, bad[i].says);
        ASSERT(!sec.cert && !sec.key && !sec.client_ca && !sec.token);
    }
    write_file_(dir, "cert-as-key.pem", cert, 0600); /* private, but a certificate */
    snprintf(c_key, sizeof c_key, "server.tls_key=%s/cert-as-key.pem", dir);
    const char *cert_as_key[] = {c_cert, c_key};
    ASSERT(load_(cert_as_key, 2, &sec, &d) == ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "holds no PEM private key") != NULL);

    /* Beyond loopback: TLS or a token, or the operator's word. */
    srv_tcp_security none = {0}, tls = {0}, token = {0};
    tls.cert = (char *)cert;
    token.token = (char *)"0123456789abcdef";
    ASSERT_OK(srv_tcp_allowed(&none, 0, "127.0.0.1:9000", &d));
    ASSERT_OK(srv_tcp_allowed(&none, 0, "[::1]:9000", &d));
    ASSERT_OK(srv_tcp_allowed(&tls, 0, "0.0.0.0:9000", &d));
    ASSERT_OK(srv_tcp_allowed(&token, 0, "[::]:9000", &d));
    ASSERT_OK(srv_tcp_allowed(&none, 1, "0.0.0.0:9000", &d));
    ASSERT_EQ_STATUS(srv_tcp_allowed(&none, 0, "0.0.0.0:9000", &d), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(strstr(d.msg, "refusing to listen on 0.0.0.0:9000") &&
           strstr(d.msg, "server.tls_cert") && strstr(d.msg, "server.auth_token_file") &&
           strstr(d.msg, "allow_insecure_tcp"));
    ASSERT_EQ_STATUS(srv_tcp_allowed(&none, 0, "10.1.2.3:9000", &d), ZKPIPE_ERR_INVALID_ARGUMENT);
}
