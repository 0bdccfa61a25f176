/* What secures a TCP listener: TLS (server.tls_cert, server.tls_key,
 * server.tls_client_ca) and a bearer token (server.auth_token_file), read
 * and checked when the daemon starts, and the rule for listening beyond
 * loopback. The token file reader is shared with `zkpipe client`, so both
 * ends read one file the same way. */
#ifndef ZKP_SERVER_TCPSEC_H
#define ZKP_SERVER_TCPSEC_H

#include <stddef.h>

#include "server/config.h"
#include "util/diag.h"

/* A token is 16 to 4096 characters, each visible ASCII (0x21..0x7e), as an
 * HTTP/2 header value must be. */
#define SRV_TOKEN_MIN 16
#define SRV_TOKEN_MAX 4096
/* The largest PEM file read (a certificate chain or a CA bundle). */
#define SRV_PEM_MAX ((size_t)1 << 20)

typedef struct {
    char *cert;      /* PEM text of server.tls_cert; NULL: no TLS */
    char *key;       /* PEM text of server.tls_key (set with cert) */
    char *client_ca; /* PEM text of server.tls_client_ca; NULL: no client certificates */
    char *token;     /* the token of server.auth_token_file; NULL: none */
} srv_tcp_security;

/* Reads and checks the four settings' files; *out is zeroed first and
 * holds what is set. ZKPIPE_ERR_INVALID_ARGUMENT for settings that do not
 * go together (a certificate without its key, client CAs without TLS), a
 * file that is not what its setting wants or a secret file that every
 * user may read; ZKPIPE_ERR_IO for one that cannot be read. The message
 * names the setting and the file. */
zkpipe_status srv_tcp_security_load(const zkp_config *c, srv_tcp_security *out, zkp_diag *d);
void srv_tcp_security_free(srv_tcp_security *s);

/* Whether the daemon may listen on TCP address addr: loopback always;
 * any other address only with TLS or a token, or with allow_insecure.
 * ZKPIPE_ERR_INVALID_ARGUMENT with a message that says how otherwise. */
zkpipe_status srv_tcp_allowed(const srv_tcp_security *sec, int allow_insecure, const char *addr,
                              zkp_diag *d);

/* Reads a token file: a regular file that other users can neither read
 * nor write (mode & 0006 == 0), holding the token and at most trailing
 * white space (a final newline is usual). *token is malloc'd. setting
 * names the option in messages ("server.auth_token_file"). */
zkpipe_status srv_token_read(const char *setting, const char *path, char **token, zkp_diag *d);

/* Checks token text (from a file or the environment) after dropping
 * trailing white space; *len receives the length kept. origin names it in
 * messages. */
zkpipe_status srv_token_check(const char *origin, const char *text, size_t *len, zkp_diag *d);

#endif
