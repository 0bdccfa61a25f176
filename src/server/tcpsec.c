/* TLS files, the bearer token and the rule for TCP beyond loopback
 * (tcpsec.h). */
#include "server/tcpsec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/daemon_internal.h"

/* Reads a small text file whole, NUL-terminated. A secret file (a private
 * key, a token) that other users may read or write is refused: whoever
 * reads it can talk to the daemon, or pose as it, and whoever writes it
 * chooses the token. */
static zkpipe_status read_small_(const char *setting, const char *path, size_t max, int secret,
                                 char **out, size_t *len, zkp_diag *d) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s %s: cannot open: %s", setting, path,
                             strerror(errno));
    struct stat sb;
    zkpipe_status st = ZKPIPE_OK;
    char *buf = NULL;
    size_t n = 0;
    if (fstat(fd, &sb) != 0) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s %s: cannot stat: %s", setting, path,
                           strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s %s: not a regular file", setting,
                           path);
    } else if (secret && (sb.st_mode & 0006)) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "%s %s: every user may %s it (mode %04o), and it is a secret: "
                           "chmod o-rwx %s",
                           setting, path, (sb.st_mode & 0004) ? "read" : "write",
                           (unsigned)(sb.st_mode & 07777), path);
    } else if (sb.st_size <= 0) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s %s: the file is empty", setting,
                           path);
    } else if ((uint64_t)sb.st_size > max) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                           "%s %s: %lld bytes, more than the %zu allowed", setting, path,
                           (long long)sb.st_size, max);
    } else if (!(buf = malloc((size_t)sb.st_size + 1))) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    } else {
        while (n < (size_t)sb.st_size) {
            ssize_t r = read(fd, buf + n, (size_t)sb.st_size - n);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s %s: cannot read: %s", setting, path,
                                   strerror(errno));
                break;
            }
            if (r == 0) break; /* shrank since the stat: take what is there */
            n += (size_t)r;
        }
        if (st == ZKPIPE_OK && memchr(buf, 0, n))
            st = zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s %s: holds a NUL byte, not text",
                               setting, path);
    }
    close(fd);
    if (st != ZKPIPE_OK) {
        free(buf);
        return st;
    }
    buf[n] = 0;
    *out = buf;
    if (len) *len = n;
    return ZKPIPE_OK;
}

zkpipe_status srv_token_check(const char *origin, const char *text, size_t *len, zkp_diag *d) {
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' ||
                 text[n - 1] == '\t'))
        n--;
    *len = n;
    if (n < SRV_TOKEN_MIN)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the token has %zu characters; at least %d are needed (for "
                             "example from: openssl rand -hex 32)",
                             origin, n, SRV_TOKEN_MIN);
    if (n > SRV_TOKEN_MAX)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s: the token has %zu characters; at most %d are allowed", origin, n,
                             SRV_TOKEN_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x21 || (unsigned char)text[i] > 0x7e)
            return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                                 "%s: the token's character %zu (byte 0x%02x) cannot be sent in a "
                                 "header; use visible ASCII only",
                                 origin, i + 1, (unsigned char)text[i]);
    return ZKPIPE_OK;
}

zkpipe_status srv_token_read(const char *setting, const char *path, char **token, zkp_diag *d) {
    *token = NULL;
    char *text;
    /* Room for the longest token and a line ending or two. */
    zkpipe_status st = read_small_(setting, path, SRV_TOKEN_MAX + 64, 1, &text, NULL, d);
    if (st != ZKPIPE_OK) return st;
    char origin[300];
    snprintf(origin, sizeof origin, "%s %s", setting, path);
    size_t n;
    st = srv_token_check(origin, text, &n, d);
    if (st != ZKPIPE_OK) {
        /* The token is a secret: not left behind in freed memory. */
        explicit_bzero(text, strlen(text));
        free(text);
        return st;
    }
    text[n] = 0;
    *token = text;
    return ZKPIPE_OK;
}

/* A PEM file of certificates (the listener's chain, the client CAs). */
static zkpipe_status read_certs_(const char *setting, const char *path, char **out, zkp_diag *d) {
    zkpipe_status st = read_small_(setting, path, SRV_PEM_MAX, 0, out, NULL, d);
    if (st != ZKPIPE_OK) return st;
    if (!strstr(*out, "-----BEGIN CERTIFICATE-----")) {
        free(*out);
        *out = NULL;
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "%s %s: holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\")",
                             setting, path);
    }
    return ZKPIPE_OK;
}

static zkpipe_status read_key_(const char *setting, const char *path, char **out, zkp_diag *d) {
    size_t n;
    zkpipe_status st = read_small_(setting, path, SRV_PEM_MAX, 1, out, &n, d);
    if (st != ZKPIPE_OK) return st;
    const char *why = NULL;
    if (strstr(*out, "-----BEGIN ENCRYPTED PRIVATE KEY-----") ||
        strstr(*out, "Proc-Type: 4,ENCRYPTED"))
        why = "holds an encrypted private key, and the daemon cannot ask for its passphrase "
              "(openssl pkey -in KEY -out PLAIN writes it unencrypted)";
    else if (!strstr(*out, "-----BEGIN ") || !strstr(*out, "PRIVATE KEY-----"))
        why = "holds no PEM private key (no \"-----BEGIN ... PRIVATE KEY-----\")";
    if (why) {
        explicit_bzero(*out, n);
        free(*out);
        *out = NULL;
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s %s: %s", setting, path, why);
    }
    return ZKPIPE_OK;
}

zkpipe_status srv_tcp_security_load(const zkp_config *c, srv_tcp_security *out, zkp_diag *d) {
    memset(out, 0, sizeof *out);
    const char *cert = zkp_config_str(c, ZKP_CFG_SERVER_TLS_CERT);
    const char *key = zkp_config_str(c, ZKP_CFG_SERVER_TLS_KEY);
    const char *ca = zkp_config_str(c, ZKP_CFG_SERVER_TLS_CLIENT_CA);
    const char *tok = zkp_config_str(c, ZKP_CFG_SERVER_AUTH_TOKEN_FILE);
    if (!*cert != !*key)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "server.tls_cert and server.tls_key go together: %s is set, %s is not",
                             *cert ? "server.tls_cert" : "server.tls_key",
                             *cert ? "server.tls_key" : "server.tls_cert");
    if (*ca && !*cert)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "server.tls_client_ca is set without TLS: client certificates are "
                             "checked in the TLS handshake, so set server.tls_cert and "
                             "server.tls_key as well");
    zkpipe_status st = ZKPIPE_OK;
    if (*cert && (st = read_certs_("server.tls_cert", cert, &out->cert, d)) == ZKPIPE_OK)
        st = read_key_("server.tls_key", key, &out->key, d);
    if (st == ZKPIPE_OK && *ca) st = read_certs_("server.tls_client_ca", ca, &out->client_ca, d);
    if (st == ZKPIPE_OK && *tok) st = srv_token_read("server.auth_token_file", tok, &out->token, d);
    if (st != ZKPIPE_OK) srv_tcp_security_free(out);
    return st;
}

static void free_secret_(char **p) {
    if (!*p) return;
    explicit_bzero(*p, strlen(*p));
    free(*p);
    *p = NULL;
}

void srv_tcp_security_free(srv_tcp_security *s) {
    free(s->cert);
    free(s->client_ca);
    free_secret_(&s->key);
    free_secret_(&s->token);
    s->cert = s->client_ca = NULL;
}

zkpipe_status srv_tcp_allowed(const srv_tcp_security *sec, int allow_insecure, const char *addr,
                              zkp_diag *d) {
    if (srv_tcp_is_loopback(addr) || sec->cert || sec->token || allow_insecure) return ZKPIPE_OK;
    return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                         "refusing to listen on %s: with neither TLS nor a token, any machine "
                         "that reaches it could prove, cancel and register keys; set "
                         "server.tls_cert and server.tls_key, or server.auth_token_file (both is "
                         "best), listen on loopback (127.0.0.1:PORT), or set "
                         "server.allow_insecure_tcp = true if the network is trusted (SECURITY.md)",
                         addr);
}
