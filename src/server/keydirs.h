/* Which files a client may make the daemon open: those under the
 * directories of server.key_dirs. RegisterKey goes through here, and so
 * must any later lookup of a file a client names (Filecoin parameters). */
#ifndef ZKP_SERVER_KEYDIRS_H
#define ZKP_SERVER_KEYDIRS_H

#include <limits.h>
#include <stddef.h>

#include "server/rpc.h"

/* Resolves each configured directory (realpath: no "..", no symbolic
 * links left) into out[i] (malloc'd; free with srv_key_dirs_free).
 * ZKPIPE_ERR_INVALID_ARGUMENT, naming the entry, for one that does not
 * resolve to a directory. */
zkpipe_status srv_key_dirs_resolve(const char *const *dirs, size_t n, char ***out, zkp_diag *d);
void srv_key_dirs_free(char **dirs, size_t n);

/* Checks a path a client named: it must be absolute and resolve (every
 * symbolic link and ".." followed) to a regular file strictly inside one
 * of dirs (resolved directories). On ZKP_RPC_OK resolved holds that path,
 * which is what the daemon then opens. Otherwise msg says why:
 * INVALID_ARGUMENT for a relative path, one under a directory that does
 * not resolve, or one that is not a regular file; PERMISSION_DENIED for
 * one outside every directory, whether it exists or not (always, when
 * n_dirs is 0). */
zkp_rpc_code srv_key_path_check(const char *const *dirs, size_t n_dirs, const char *path,
                                char resolved[PATH_MAX], char *msg, size_t msg_len);

#endif
