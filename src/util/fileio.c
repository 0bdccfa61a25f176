#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

zkpipe_status zkp_read_file(const char *path, size_t max_len, char **out, size_t *len,
                            zkp_diag *d) {
    if (out) *out = NULL;
    if (len) *len = 0;
    if (path == NULL || out == NULL || len == NULL)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_read_file: NULL argument");
    if (max_len == SIZE_MAX) max_len = SIZE_MAX - 1; /* room for the terminator */

    int fd;
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));

    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot read: %s", path, strerror(EISDIR));
    }
    /* A regular file's size is known up front: refuse it before allocating,
     * and allocate exactly (plus one byte, to see growth while reading). */
    size_t cap = 4096;
    if (S_ISREG(st.st_mode)) {
        if (st.st_size < 0 || (uintmax_t)st.st_size > (uintmax_t)max_len) {
            close(fd);
            return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                 "%s: file is %jd bytes, more than the limit of %zu bytes", path,
                                 (intmax_t)st.st_size, max_len);
        }
        cap = (size_t)st.st_size + 1;
    }
    if (cap > max_len + 1) cap = max_len + 1;

    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes", path, cap);
    }
    size_t n = 0;
    for (;;) {
        if (n == cap) {
            /* Grown past the expected size (a pipe, or a file that grew). */
            if (cap > max_len) {
                free(buf);
                close(fd);
                return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                                     "%s: file is more than the limit of %zu bytes", path, max_len);
            }
            size_t grown = cap <= (max_len + 1) / 2 ? cap * 2 : max_len + 1;
            char *nb = realloc(buf, grown);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes", path,
                                     grown);
            }
            buf = nb;
            cap = grown;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            close(fd);
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: read failed: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max_len) {
        free(buf);
        return zkp_diag_fail(d, ZKPIPE_ERR_OUT_OF_RANGE,
                             "%s: file is more than the limit of %zu bytes", path, max_len);
    }
    if (n == cap) {
        char *nb = realloc(buf, n + 1);
        if (nb == NULL) {
            free(buf);
            return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes", path,
                                 n + 1);
        }
        buf = nb;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return ZKPIPE_OK;
}

/* The process umask, without changing it where possible: umask() can only be
 * read by setting it, which races with other threads creating files, so the
 * kernel's report in /proc is preferred. */
static mode_t current_umask(void) {
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned int m;
            if (sscanf(line, "Umask: %o", &m) == 1) {
                fclose(f);
                return (mode_t)(m & 0777);
            }
        }
        fclose(f);
    }
    mode_t m = umask(022);
    umask(m);
    return m & 0777;
}

static int write_all(int fd, const unsigned char *p, size_t len) {
    while (len > 0) {
        size_t chunk = len > (size_t)1 << 30 ? (size_t)1 << 30 : len;
        ssize_t w = write(fd, p, chunk);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

zkpipe_status zkp_write_file_atomic(const char *path, const void *data, size_t len, zkp_diag *d) {
    if (path == NULL || (data == NULL && len > 0))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_write_file_atomic: NULL argument");
    size_t plen = strlen(path);
    if (plen == 0 || path[plen - 1] == '/')
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "\"%s\": not a file name", path);

    /* tmp = <dir>/.<base>.XXXXXX, in the same directory so rename is atomic. */
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    static const char suffix[] = ".XXXXXX";
    size_t tmp_len;
    if (zkp_add_overflow(plen, 1 + sizeof suffix, &tmp_len))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "path too long");
    char *tmp = malloc(tmp_len);
    if (tmp == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
    memcpy(tmp, path, dir_len);
    tmp[dir_len] = '.';
    memcpy(tmp + dir_len + 1, base, plen - dir_len);
    memcpy(tmp + plen + 1, suffix, sizeof suffix);

    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot create a temporary file: %s", path,
                             strerror(e));
    }
    const char *what = NULL;
    if (fchmod(fd, (mode_t)0644 & ~current_umask()) != 0)
        what = "cannot set the mode of";
    else if (write_all(fd, data, len) != 0)
        what = "cannot write";
    else if (fsync(fd) != 0)
        what = "cannot sync";
    if (what) {
        int e = errno;
        close(fd);
        unlink(tmp);
        zkpipe_status st =
            zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: %s %s: %s", path, what, tmp, strerror(e));
        free(tmp);
        return st;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        zkpipe_status st =
            zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot close %s: %s", path, tmp, strerror(e));
        free(tmp);
        return st;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        zkpipe_status st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot rename %s over it: %s",
                                         path, tmp, strerror(e));
        free(tmp);
        return st;
    }
    free(tmp);

    /* Make the rename itself durable. Best effort: some file systems refuse
     * fsync on a directory, and the new contents are already in place. */
    char *dir = NULL;
    if (dir_len > 0) {
        dir = malloc(dir_len + 1);
        if (dir) {
            memcpy(dir, path, dir_len);
            dir[dir_len] = '\0';
        }
    }
    int dfd = -1;
    if (dir_len == 0 || dir != NULL) dfd = open(dir_len > 0 ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    return ZKPIPE_OK;
}
