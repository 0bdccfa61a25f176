/* A whole file mapped read-only into memory.
 *
 * Key and constraint files are read through a mapping rather than read(2)
 * into a buffer: a proving key of 10^8 points is tens of gigabytes, and the
 * parsers point straight into the mapping where the layout allows it, so the
 * page cache is the only copy. The mapping is private and read-only; the
 * file descriptor is closed as soon as the mapping exists (the mapping keeps
 * the file alive).
 *
 * An empty file maps to a valid pointer with size 0 (mmap refuses length 0),
 * so callers never see data == NULL and always fail on the length instead. */
#ifndef ZKP_UTIL_MAPPED_FILE_H
#define ZKP_UTIL_MAPPED_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* Which file a path named, and in what state: device, inode, size and
 * modification time. Equal stamps on one path mean the same file, not
 * rewritten since (short of a writer that resets the mtime). */
typedef struct {
    uint64_t dev, ino, size;
    int64_t mtime_sec, mtime_nsec;
} zkp_file_stamp;

/* The stamp of the file path names now (following links); ZKPIPE_ERR_IO
 * with the system error in diag when it cannot be stat'ed. */
ZKP_WARN_UNUSED zkpipe_status zkp_file_stamp_of(const char *path, zkp_file_stamp *out,
                                                zkp_diag *diag);
int zkp_file_stamp_same(const zkp_file_stamp *a, const zkp_file_stamp *b);

typedef struct {
    const uint8_t *data; /* size bytes; never NULL after a successful open */
    size_t size;
    void *map_base; /* what munmap takes; NULL when nothing is mapped */
    size_t map_len;
    zkp_file_stamp stamp; /* of the file mapped, from the descriptor that mapped it */
} zkp_mapped_file;

/* Maps path read-only (MAP_PRIVATE, PROT_READ) and advises sequential
 * access. On failure returns ZKPIPE_ERR_IO with a message naming the path
 * and the system error, and leaves *mf empty (safe to close). */
ZKP_WARN_UNUSED zkpipe_status zkp_mapped_file_open(zkp_mapped_file *mf, const char *path,
                                                   zkp_diag *diag);

/* Reads [off, off + len) of the mapping into memory now (clamped to the
 * file), so that its pages are resident before a caller accounts them and
 * walks them. Only a hint to the kernel plus a page-touching fallback: it
 * cannot fail. */
void zkp_mapped_file_populate(const zkp_mapped_file *mf, size_t off, size_t len);

/* Unmaps; *mf is left empty. Accepts an empty or already closed *mf. */
void zkp_mapped_file_close(zkp_mapped_file *mf);

#endif
