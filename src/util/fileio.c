#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* ------------------------------------------------------------------------ */
/* Fault injection (zkp_fileio_test_fault). Every system call of the staging
 * and committing steps asks fault_ first, so a test can fail each one in
 * turn and check that nothing is lost or left behind. */

static unsigned fault_countdown_;
static int fault_errno_;
static int fault_fired_;

void zkp_fileio_test_fault(unsigned n, int err) {
    fault_countdown_ = n;
    fault_errno_ = err;
    fault_fired_ = 0;
}

int zkp_fileio_test_fault_fired(void) { return fault_fired_; }

static int fault_(void) {
    if (fault_countdown_ == 0 || --fault_countdown_ != 0) return 0;
    fault_fired_ = 1;
    errno = fault_errno_;
    return 1;
}

static int write_all(int fd, const unsigned char *p, size_t len) {
    while (len > 0) {
        size_t chunk = len > (size_t)1 << 30 ? (size_t)1 << 30 : len;
        ssize_t w = fault_() ? -1 : write(fd, p, chunk);
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

/* ------------------------------------------------------------------------ */
/* Output files (fileio.h). */

/* The longest symbolic-link chain followed, as the kernel's own limit. */
#define MAX_LINK_HOPS 40

static char *join_(const char *dir, size_t dir_len, const char *name) {
    size_t n = strlen(name), total;
    if (zkp_add_overflow(dir_len, n, &total) || zkp_add_overflow(total, 2, &total)) return NULL;
    char *p = malloc(total);
    if (p == NULL) return NULL;
    memcpy(p, dir, dir_len);
    size_t at = dir_len;
    if (at > 0 && p[at - 1] != '/') p[at++] = '/';
    memcpy(p + at, name, n + 1);
    return p;
}

/* The contents of the symbolic link at path, malloc'd. */
static char *read_link_(const char *path, size_t size_hint) {
    size_t cap = size_hint > 0 && size_hint < PATH_MAX ? size_hint + 1 : PATH_MAX;
    for (;;) {
        char *buf = malloc(cap);
        if (buf == NULL) return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        if (cap >= (size_t)1 << 20) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        cap *= 2;
    }
}

/* Resolves path to an absolute target with every symbolic link followed,
 * including links that point to files not created yet: their last
 * component need not exist, only its directory. */
static zkpipe_status resolve_(zkp_output *o, const char *path, zkp_diag *d) {
    char *p = strdup(path);
    if (p == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
    for (int hops = 0;; hops++) {
        struct stat ls;
        if (lstat(p, &ls) != 0 || !S_ISLNK(ls.st_mode)) break;
        if (hops == MAX_LINK_HOPS) {
            free(p);
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot resolve: %s", path,
                                 strerror(ELOOP));
        }
        char *link = read_link_(p, (size_t)ls.st_size);
        if (link == NULL) {
            int e = errno;
            free(p);
            return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot read the link: %s", path,
                                 strerror(e));
        }
        char *next = link;
        if (link[0] != '/') {
            /* A relative link is relative to the directory holding it. */
            const char *slash = strrchr(p, '/');
            next = join_(p, slash ? (size_t)(slash - p) + 1 : 0, link);
            free(link);
            if (next == NULL) {
                free(p);
                return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
            }
        }
        free(p);
        p = next;
    }
    /* p is no link now: its directory is resolved by realpath, and its last
     * component, which may not exist, is appended. */
    size_t plen = strlen(p);
    while (plen > 1 && p[plen - 1] == '/') p[--plen] = '\0';
    char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    if (!strcmp(base, ".") || !strcmp(base, "..") || (slash && slash == p && !base[0])) {
        free(p);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write: %s", path, strerror(EISDIR));
    }
    char *dir;
    if (slash == NULL)
        dir = realpath(".", NULL);
    else if (slash == p)
        dir = strdup("/");
    else {
        *slash = '\0';
        dir = realpath(p, NULL);
        *slash = '/';
    }
    if (dir == NULL) {
        int e = errno;
        free(p);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write in its directory: %s", path,
                             strerror(e));
    }
    size_t dlen = strlen(dir);
    o->target = join_(dir, dlen, base);
    o->dir_len = dlen + (dir[dlen - 1] == '/' ? 0 : 1);
    free(dir);
    free(p);
    if (o->target == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
    return ZKPIPE_OK;
}

/* The directory of o's target as a string of its own (for the system calls
 * that take one). */
static char *dir_of_(const zkp_output *o) {
    size_t n = o->dir_len > 1 ? o->dir_len - 1 : o->dir_len; /* "/" stays "/" */
    char *dir = malloc(n + 1);
    if (dir == NULL) return NULL;
    memcpy(dir, o->target, n);
    dir[n] = '\0';
    return dir;
}

zkpipe_status zkp_output_open(zkp_output *o, const char *path, zkp_diag *d) {
    if (o == NULL || path == NULL)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_output_open: NULL argument");
    memset(o, 0, sizeof *o);
    size_t plen = strlen(path);
    if (plen == 0 || path[plen - 1] == '/')
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "\"%s\": not a file name", path);
    o->path = strdup(path);
    if (o->path == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
    zkpipe_status st;
    struct stat sb;
    /* What the path leads to decides first. A device, FIFO or socket is
     * opened by the name given: /dev/stdout is a link through /proc to
     * "pipe:[N]" or a terminal, which only the kernel can follow. */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        o->target = strdup(path);
        if (o->target == NULL) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
            goto fail;
        }
    } else if ((st = resolve_(o, path, d)) != ZKPIPE_OK) {
        goto fail;
    }
    /* A resolved target (dir_len > 0) is no link; one kept as given is
     * looked at through its links again. */
    if ((o->dir_len == 0 ? stat(o->target, &sb) : lstat(o->target, &sb)) != 0) {
        if (errno != ENOENT) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
            goto fail;
        }
        o->kind = ZKP_OUTPUT_NEW;
        o->mode = (mode_t)0644 & ~current_umask();
    } else if (S_ISREG(sb.st_mode)) {
        o->kind = ZKP_OUTPUT_REGULAR;
        o->mode = sb.st_mode & 0777;
    } else if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)) {
        o->kind = ZKP_OUTPUT_DIRECT;
    } else if (S_ISDIR(sb.st_mode)) {
        st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write: %s", path, strerror(EISDIR));
        goto fail;
    } else {
        st = zkp_diag_fail(d, ZKPIPE_ERR_UNSUPPORTED,
                           "%s: a block device or special file; refusing to write to it", path);
        goto fail;
    }
    if (o->dir_len == 0 && o->kind != ZKP_OUTPUT_DIRECT) {
        /* It was a device a moment ago: something is replacing it. */
        st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: changed while being opened", path);
        goto fail;
    }
    o->dev = sb.st_dev;
    o->ino = sb.st_ino;

    /* Writable? A new or replaced file needs its directory writable and
     * searchable (by the effective ids, as the writes will be); an in-place
     * output needs itself writable. */
    if (o->kind == ZKP_OUTPUT_DIRECT) {
        if (faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) != 0) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
            goto fail;
        }
    } else {
        char *dir = dir_of_(o);
        if (dir == NULL) {
            st = zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", path);
            goto fail;
        }
        int rc = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS), e = errno;
        if (rc != 0)
            st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write in the directory %s: %s", path,
                               dir, strerror(e));
        free(dir);
        if (rc != 0) goto fail;
    }
    return ZKPIPE_OK;
fail:
    zkp_output_close(o);
    return st;
}

int zkp_output_same(const zkp_output *a, const zkp_output *b) {
    if (a->target == NULL || b->target == NULL) return 0;
    if (a->kind == ZKP_OUTPUT_DIRECT && b->kind == ZKP_OUTPUT_DIRECT) return 0;
    if (a->kind != ZKP_OUTPUT_NEW && b->kind != ZKP_OUTPUT_NEW)
        return a->dev == b->dev && a->ino == b->ino;
    return a->kind == ZKP_OUTPUT_NEW && b->kind == ZKP_OUTPUT_NEW && !strcmp(a->target, b->target);
}

int zkp_output_is(const zkp_output *o, const char *path) {
    if (o->target == NULL || path == NULL || o->kind == ZKP_OUTPUT_DIRECT) return 0;
    struct stat sb;
    if (stat(path, &sb) == 0)
        return o->kind == ZKP_OUTPUT_REGULAR && sb.st_dev == o->dev && sb.st_ino == o->ino;
    /* A path that does not exist: the same as a new output if it resolves to
     * the same place. */
    if (o->kind != ZKP_OUTPUT_NEW) return 0;
    zkp_output other;
    memset(&other, 0, sizeof other);
    int same = resolve_(&other, path, NULL) == ZKPIPE_OK && !strcmp(other.target, o->target);
    free(other.target);
    return same;
}

/* A name for a file beside the target, ".<name>.XXXXXX" with the X's
 * random, shortened so that it fits the directory's NAME_MAX: the target's
 * own name may be as long as the limit, and the temporary is 8 bytes
 * longer. The name is cut at a UTF-8 character boundary. */
static char *sibling_name_(const zkp_output *o) {
    const char *base = o->target + o->dir_len;
    size_t blen = strlen(base);
    long name_max = -1;
    char *dir = dir_of_(o);
    if (dir != NULL) {
        name_max = pathconf(dir, _PC_NAME_MAX);
        free(dir);
    }
    if (name_max < 16) name_max = 255;
    size_t keep = blen;
    if (keep + 8 > (size_t)name_max) {
        keep = (size_t)name_max - 8;
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80) keep--;
    }
    char *name = malloc(o->dir_len + keep + 9);
    if (name == NULL) return NULL;
    memcpy(name, o->target, o->dir_len);
    char *q = name + o->dir_len;
    *q++ = '.';
    memcpy(q, base, keep);
    q += keep;
    memcpy(q, ".XXXXXX", 8);
    return name;
}

/* Fills the six X's at the end of name with fresh random characters. The
 * names need to be unpredictable only enough not to collide; O_EXCL and
 * link() refuse an existing name, and the caller then tries another. */
static void randomize_(char *name) {
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
                 (++counter * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)name;
    size_t n = strlen(name);
    for (size_t i = n - 6; i < n; i++) {
        x ^= x >> 30;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBull;
        x ^= x >> 31;
        name[i] = alphabet[x % (sizeof alphabet - 1)];
    }
}

/* Up to this many random names are tried before giving up on EEXIST. */
#define NAME_TRIES 100

zkpipe_status zkp_write_fd(int fd, const void *data, size_t len, const char *path, zkp_diag *d) {
    if (write_all(fd, data, len) != 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return ZKPIPE_OK;
}

/* Drops o's staged temporary, if any. */
static void unstage_(zkp_output *o) {
    if (o->tmp != NULL) {
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    o->staged = 0;
}

/* Creates o's temporary, lets write fill it, then syncs and closes it; on
 * any failure nothing is left behind. */
static zkpipe_status stage_file_(zkp_output *o, zkp_output_writer write, void *ctx, zkp_diag *d) {
    char *tmp = sibling_name_(o);
    if (tmp == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", o->path);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < NAME_TRIES; tries++) {
        randomize_(tmp);
        fd = fault_() ? -1 : open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot create a temporary file: %s", o->path,
                             strerror(e));
    }
    const char *what = NULL;
    zkpipe_status st = ZKPIPE_OK;
    if (fault_() || fchmod(fd, o->mode) != 0)
        what = "cannot set the mode of";
    else if ((st = write(ctx, fd, o->path, d)) != ZKPIPE_OK)
        what = ""; /* write has said why */
    else if (fault_() || fsync(fd) != 0)
        what = "cannot sync";
    int e = errno;
    /* close() releases the descriptor whatever it returns; its error is
     * the last chance to hear of a failed write (NFS reports them here). */
    int crc;
    if (fault_()) {
        int fe = errno;
        close(fd);
        errno = fe;
        crc = -1;
    } else {
        crc = close(fd);
    }
    if (crc != 0 && !what) {
        e = errno;
        what = "cannot close";
    }
    if (what) {
        unlink(tmp);
        if (*what)
            st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: %s %s: %s", o->path, what, tmp, strerror(e));
        free(tmp);
        return st;
    }
    o->tmp = tmp;
    o->staged = 1;
    return ZKPIPE_OK;
}

typedef struct {
    const void *data;
    size_t len;
} buffer_writer_;

static zkpipe_status write_buffer_(void *ctx, int fd, const char *path, zkp_diag *d) {
    const buffer_writer_ *b = ctx;
    return zkp_write_fd(fd, b->data, b->len, path, d);
}

zkpipe_status zkp_output_stage(zkp_output *o, const void *data, size_t len, zkp_diag *d) {
    if (o == NULL || o->target == NULL || (data == NULL && len > 0))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_output_stage: bad argument");
    unstage_(o);
    if (o->kind == ZKP_OUTPUT_DIRECT) {
        o->data = data;
        o->len = len;
        o->staged = 1;
        return ZKPIPE_OK;
    }
    buffer_writer_ b = {data, len};
    return stage_file_(o, write_buffer_, &b, d);
}

zkpipe_status zkp_output_stage_stream(zkp_output *o, zkp_output_writer write, void *ctx,
                                      zkp_diag *d) {
    if (o == NULL || o->target == NULL || write == NULL)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT,
                             "zkp_output_stage_stream: bad argument");
    unstage_(o);
    if (o->kind == ZKP_OUTPUT_DIRECT)
        return zkp_diag_fail(d, ZKPIPE_ERR_UNSUPPORTED,
                             "%s: a device, FIFO or socket cannot take this output, which is "
                             "written as it is made; name a file",
                             o->path);
    return stage_file_(o, write, ctx, d);
}

/* The in-place outputs' bytes, written at commit. */
static zkpipe_status write_direct_(const zkp_output *o, zkp_diag *d) {
    int fd;
    do {
        fd = fault_() ? -1 : open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot open: %s", o->path, strerror(errno));
    zkpipe_status st = zkp_write_fd(fd, o->data, o->len, o->path, d);
    close(fd);
    return st;
}

/* How an output that existed is put back if a later one fails: from a hard
 * link to the old file, or from the old file itself moved aside. KEEP marks
 * a backup that could not be put back and so holds the only copy of the
 * old contents: it is left in place, and the message names it. */
typedef enum { BACKUP_NONE, BACKUP_LINK, BACKUP_TO_MOVE, BACKUP_MOVED, BACKUP_KEEP } backup_kind;

typedef struct {
    char *name;
    backup_kind kind;
} backup_;

/* Keeps the file at o's target reachable under a sibling name: a hard link,
 * so the target stays in place for readers until the rename replaces it.
 * Where the file system has no hard links, BACKUP_TO_MOVE tells the caller
 * to move the old file aside under b->name just before its rename instead. */
static zkpipe_status take_backup_(const zkp_output *o, backup_ *b, zkp_diag *d) {
    b->kind = BACKUP_NONE;
    b->name = NULL;
    struct stat sb;
    if (lstat(o->target, &sb) != 0 || !S_ISREG(sb.st_mode)) return ZKPIPE_OK; /* nothing to keep */
    b->name = sibling_name_(o);
    if (b->name == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "%s: out of memory", o->path);
    for (int tries = 0; tries < NAME_TRIES; tries++) {
        randomize_(b->name);
        if (!fault_() && link(o->target, b->name) == 0) {
            b->kind = BACKUP_LINK;
            return ZKPIPE_OK;
        }
        if (errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS) {
            /* No hard links here: the name is kept for a move aside. */
            b->kind = BACKUP_TO_MOVE;
            return ZKPIPE_OK;
        }
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(b->name);
    b->name = NULL;
    return zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot keep the old file while replacing it: %s",
                         o->path, strerror(e));
}

/* Makes the renames durable: fsyncs the directory. Best effort, since some
 * file systems refuse fsync on a directory, and the files are in place. */
static void sync_dir_(const zkp_output *o) {
    char *dir = dir_of_(o);
    if (dir == NULL) return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
}

zkpipe_status zkp_output_commit(zkp_output *outs, size_t n, zkp_diag *d) {
    if (outs == NULL && n > 0)
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_output_commit: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (!outs[i].staged)
            return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "%s: nothing staged",
                                 outs[i].path ? outs[i].path : "(output)");
    /* The in-place outputs first: they cannot be taken back, so no file is
     * replaced unless they were all written. */
    for (size_t i = 0; i < n; i++) {
        if (outs[i].kind != ZKP_OUTPUT_DIRECT) continue;
        zkpipe_status st = write_direct_(&outs[i], d);
        if (st != ZKPIPE_OK) return st;
    }
    /* The last rename needs no backup: nothing after it can fail. */
    size_t last = n;
    for (size_t i = 0; i < n; i++)
        if (outs[i].kind != ZKP_OUTPUT_DIRECT) last = i;
    backup_ *bk = calloc(n ? n : 1, sizeof *bk);
    if (bk == NULL) return zkp_diag_fail(d, ZKPIPE_ERR_NO_MEMORY, "out of memory");
    zkpipe_status st = ZKPIPE_OK;
    size_t done = 0; /* outputs [0, done) are in place */
    for (size_t i = 0; i < n && st == ZKPIPE_OK; i++)
        if (outs[i].kind != ZKP_OUTPUT_DIRECT && i != last) st = take_backup_(&outs[i], &bk[i], d);
    for (; st == ZKPIPE_OK && done < n; done++) {
        zkp_output *o = &outs[done];
        if (o->kind == ZKP_OUTPUT_DIRECT) continue;
        if (bk[done].kind == BACKUP_TO_MOVE) {
            if (fault_() || rename(o->target, bk[done].name) != 0) {
                st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot move the old file aside: %s",
                                   o->path, strerror(errno));
                bk[done].kind = BACKUP_NONE;
                break;
            }
            bk[done].kind = BACKUP_MOVED;
        }
        if (fault_() || rename(o->tmp, o->target) != 0) {
            int e = errno;
            st = zkp_diag_fail(d, ZKPIPE_ERR_IO, "%s: cannot rename %s over it: %s", o->path,
                               o->tmp, strerror(e));
            if (bk[done].kind == BACKUP_MOVED) {
                if (rename(bk[done].name, o->target) == 0)
                    bk[done].kind = BACKUP_NONE;
                else
                    bk[done].kind = BACKUP_KEEP;
            }
            break;
        }
        free(o->tmp);
        o->tmp = NULL;
    }
    if (st != ZKPIPE_OK) {
        /* Put back, newest first, every output already renamed. */
        char lost[ZKP_DIAG_MAX] = "";
        for (size_t j = done; j-- > 0;) {
            zkp_output *o = &outs[j];
            if (o->kind == ZKP_OUTPUT_DIRECT) continue;
            int had_old = bk[j].kind == BACKUP_LINK || bk[j].kind == BACKUP_MOVED;
            int rc = had_old ? rename(bk[j].name, o->target) : unlink(o->target);
            int e = errno;
            if (rc == 0) {
                bk[j].kind = BACKUP_NONE;
                continue;
            }
            if (had_old) bk[j].kind = BACKUP_KEEP;
            if (!lost[0])
                snprintf(lost, sizeof lost, "; %s could not be put back (%s): %s", o->path,
                         had_old ? bk[j].name : "it holds the new contents", strerror(e));
        }
        if (done < n && bk[done].kind == BACKUP_KEEP && !lost[0])
            snprintf(lost, sizeof lost, "; the old %s is at %s", outs[done].path, bk[done].name);
        if (lost[0] && d != NULL) {
            size_t m = strlen(d->msg);
            snprintf(d->msg + m, sizeof d->msg - m, "%s", lost);
        }
    }
    for (size_t i = 0; i < n; i++) {
        /* A backup left over is a second name of a file no longer needed:
         * the old file after a success, or a target that was never
         * replaced. One marked KEEP holds the only copy of old contents. */
        if (bk[i].kind == BACKUP_LINK || bk[i].kind == BACKUP_MOVED) unlink(bk[i].name);
        free(bk[i].name);
    }
    free(bk);
    if (st == ZKPIPE_OK)
        for (size_t i = 0; i < n; i++)
            if (outs[i].kind != ZKP_OUTPUT_DIRECT) sync_dir_(&outs[i]);
    return st;
}

void zkp_output_close(zkp_output *o) {
    if (o == NULL) return;
    if (o->tmp != NULL) unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    free(o->path);
    memset(o, 0, sizeof *o);
}

zkpipe_status zkp_write_file_atomic(const char *path, const void *data, size_t len, zkp_diag *d) {
    if (path == NULL || (data == NULL && len > 0))
        return zkp_diag_fail(d, ZKPIPE_ERR_INVALID_ARGUMENT, "zkp_write_file_atomic: NULL argument");
    zkp_output o;
    zkpipe_status st = zkp_output_open(&o, path, d);
    if (st != ZKPIPE_OK) return st;
    if ((st = zkp_output_stage(&o, data, len, d)) == ZKPIPE_OK) st = zkp_output_commit(&o, 1, d);
    zkp_output_close(&o);
    return st;
}
