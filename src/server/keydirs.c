#include "server/keydirs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

zkpipe_status srv_key_dirs_resolve(const char *const *dirs, size_t n, char ***out, zkp_diag *d) {
    *out = NULL;
    if (n == 0) return ZKPIPE_OK;
    char **r = calloc(n, sizeof *r);
    if (!r) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        const char *why = NULL;
        if (dirs[i][0] != '/')
            why = "relative";
        else if (!(r[i] = realpath(dirs[i], NULL)) || stat(r[i], &sb) != 0)
            why = strerror(errno);
        else if (!S_ISDIR(sb.st_mode))
            why = strerror(ENOTDIR);
        if (why) {
            zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                          "server.key_dirs: '%.200s' is not an absolute path to a directory (%s)",
                          dirs[i], why);
            srv_key_dirs_free(r, n);
            return ZKPIPE_ERR_INVALID_ARGUMENT;
        }
    }
    *out = r;
    return ZKPIPE_OK;
}

void srv_key_dirs_free(char **dirs, size_t n) {
    if (!dirs) return;
    for (size_t i = 0; i < n; i++) free(dirs[i]);
    free(dirs);
}

/* 1 when path lies strictly below dir (both resolved). */
static int inside_(const char *dir, const char *path) {
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return path[0] == '/' && path[1] != 0;
    return strncmp(dir, path, n) == 0 && path[n] == '/' && path[n + 1] != 0;
}

zkp_rpc_code srv_key_path_check(const char *const *dirs, size_t n_dirs, const char *path,
                                char resolved[PATH_MAX], char *msg, size_t msg_len) {
    resolved[0] = 0;
    if (n_dirs == 0) {
        snprintf(msg, msg_len,
                 "registering keys by path is off: server.key_dirs names no directory "
                 "(keys come from server.keys only)");
        return ZKP_RPC_PERMISSION_DENIED;
    }
    if (!path || path[0] != '/') {
        snprintf(msg, msg_len, "key path '%.200s' must be absolute", path ? path : "");
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    if (!realpath(path, resolved)) {
        int err = errno;
        resolved[0] = 0;
        /* Outside the directories, a path that does not resolve is refused
         * like one that does: the answer must not tell which files exist. */
        int under = 0;
        for (size_t i = 0; i < n_dirs && !under; i++) under = inside_(dirs[i], path);
        if (!under) {
            snprintf(msg, msg_len, "%.200s is not under any directory of server.key_dirs", path);
            return ZKP_RPC_PERMISSION_DENIED;
        }
        snprintf(msg, msg_len, "%.200s: %s", path, strerror(err));
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    int ok = 0;
    for (size_t i = 0; i < n_dirs && !ok; i++) ok = inside_(dirs[i], resolved);
    if (!ok) {
        /* The resolved path is not echoed: it would tell a client where a
         * link leads. */
        snprintf(msg, msg_len, "%.200s is not under any directory of server.key_dirs", path);
        resolved[0] = 0;
        return ZKP_RPC_PERMISSION_DENIED;
    }
    struct stat sb;
    if (stat(resolved, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(msg, msg_len, "%.200s: not a regular file", path);
        resolved[0] = 0;
        return ZKP_RPC_INVALID_ARGUMENT;
    }
    return ZKP_RPC_OK;
}
