#define _GNU_SOURCE
#include "util/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What an empty file's data points at: a real object, so callers may pass
 * data to memcpy and friends with length 0 without undefined behaviour. */
static const uint8_t empty_file_byte;

static void stamp_from_(const struct stat *st, zkp_file_stamp *out) {
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
    out->mtime_sec = (int64_t)st->st_mtim.tv_sec;
    out->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
}

zkpipe_status zkp_file_stamp_of(const char *path, zkp_file_stamp *out, zkp_diag *diag) {
    memset(out, 0, sizeof *out);
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        int err = path ? errno : EINVAL;
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot stat: %s", path ? path : "(null)",
                             strerror(err));
    }
    stamp_from_(&st, out);
    return ZKPIPE_OK;
}

int zkp_file_stamp_same(const zkp_file_stamp *a, const zkp_file_stamp *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

zkpipe_status zkp_mapped_file_open(zkp_mapped_file *mf, const char *path, zkp_diag *diag) {
    memset(mf, 0, sizeof *mf);
    if (!path) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no file name given");

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot open: %s", path, strerror(err));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot stat: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: not a regular file", path);
    }
    if (st.st_size < 0 || (uintmax_t)st.st_size > (uintmax_t)SIZE_MAX) {
        close(fd);
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: file size %jd does not fit in memory", path,
                             (intmax_t)st.st_size);
    }
    size_t size = (size_t)st.st_size;
    zkp_file_stamp stamp;
    stamp_from_(&st, &stamp);
    if (size == 0) {
        mf->stamp = stamp;
        close(fd);
        mf->data = &empty_file_byte;
        return ZKPIPE_OK;
    }

    void *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_err = errno;
    close(fd); /* the mapping holds its own reference to the file */
    if (base == MAP_FAILED) {
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot map %zu bytes: %s", path, size,
                             strerror(map_err));
    }
    /* Only a hint: the parsers walk every section front to back once, so
     * aggressive read-ahead pays off. A failure here changes nothing. */
    (void)madvise(base, size, MADV_SEQUENTIAL);

    mf->data = base;
    mf->size = size;
    mf->map_base = base;
    mf->map_len = size;
    mf->stamp = stamp;
    return ZKPIPE_OK;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older kernels answer EINVAL */
#endif

void zkp_mapped_file_populate(const zkp_mapped_file *mf, size_t off, size_t len) {
    if (!mf->map_base || off >= mf->size) return;
    if (len > mf->size - off) len = mf->size - off;
    long page = sysconf(_SC_PAGESIZE);
    size_t ps = page > 0 ? (size_t)page : 4096;
    size_t start = off / ps * ps;
    uint8_t *base = (uint8_t *)mf->map_base;
    if (madvise(base + start, off + len - start, MADV_POPULATE_READ) == 0) return;
    /* One read per page faults it in, as the kernel would have. */
    volatile const uint8_t *p = base;
    uint8_t sink = 0;
    for (size_t at = start; at < off + len; at += ps) sink ^= p[at];
    (void)sink;
}

void zkp_mapped_file_close(zkp_mapped_file *mf) {
    if (!mf) return;
    if (mf->map_base) munmap(mf->map_base, mf->map_len);
    memset(mf, 0, sizeof *mf);
}
