/* Whole-file reads and atomic writes for the small files zkpipe reads and
 * writes in one piece: JSON proofs, public inputs and verification keys.
 * (Large binary inputs are mapped, not read; see util/mapped_file.h.)
 *
 * Every function reports failures through a status and, when d is not NULL,
 * a message that names the path and the system's reason (strerror). */
#ifndef ZKP_UTIL_FILEIO_H
#define ZKP_UTIL_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

#include "util/diag.h"
#include "util/util.h"

/* Reads the whole file at path.
 *
 * On output: ZKPIPE_OK, *out a malloc'd buffer holding the *len bytes of the
 * file followed by a NUL (not counted in *len, so text parsers may rely on
 * it, binary callers may ignore it), to be released with free(); or
 *   ZKPIPE_ERR_OUT_OF_RANGE  the file is larger than max_len bytes (the
 *                            message gives both sizes); checked before the
 *                            buffer is allocated for regular files, and while
 *                            reading for pipes and other streams
 *   ZKPIPE_ERR_IO            open/read failed (missing file, a directory,
 *                            permissions), naming the path and strerror
 *   ZKPIPE_ERR_NO_MEMORY, ZKPIPE_ERR_INVALID_ARGUMENT (a NULL pointer)
 * and then *out is NULL and *len is 0. */
ZKP_WARN_UNUSED zkpipe_status zkp_read_file(const char *path, size_t max_len, char **out,
                                            size_t *len, zkp_diag *d);

/* Output files, written all or nothing.
 *
 * An output is opened (its path resolved and checked, before any expensive
 * work), staged (its bytes written to a temporary file beside the target)
 * and then committed together with the other outputs of the same command:
 *
 *   - A path that does not exist yet, or names a regular file, is replaced
 *     atomically: the bytes go to a temporary file in the target's directory
 *     (".<name>.XXXXXX", the name shortened where needed so that it fits the
 *     file system's limit whatever the length of the target's own name),
 *     which is written in full, fsync'd and renamed over the target. A new
 *     file gets mode 0644 minus the process umask; a replaced file keeps its
 *     permission bits (not its set-id bits, nor its owner).
 *   - A symbolic link is followed (every link in the chain, up to 40), and
 *     what it points to is written as above; the link itself stays.
 *   - A character device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is
 *     opened and written in place, never replaced. Writing to a FIFO waits
 *     for a reader.
 *   - A directory or a block device is refused.
 *
 * zkp_output_commit writes the in-place outputs first (they cannot be taken
 * back), then renames the temporaries one after the other. If a rename
 * fails, the outputs already renamed are put back: a file that existed is
 * restored from a hard link taken just before (or, where the file system
 * has no hard links, from the old file renamed aside), a new one is removed.
 * Whatever fails, no temporary is left behind, and a reader of a target sees
 * its old contents or its new, never a mixture. Callers must give distinct
 * targets (zkp_output_same tells). */
typedef enum {
    ZKP_OUTPUT_NEW,     /* nothing there yet */
    ZKP_OUTPUT_REGULAR, /* a regular file, to be replaced */
    ZKP_OUTPUT_DIRECT   /* a character device, FIFO or socket, written in place */
} zkp_output_kind;

/* One output. The fields are the functions' own; read kind and target only. */
typedef struct {
    char *path;   /* as the caller spelt it, for messages */
    char *target; /* absolute, with every symbolic link resolved */
    size_t dir_len; /* target[0..dir_len) is its directory, '/' included */
    zkp_output_kind kind;
    dev_t dev; /* ZKP_OUTPUT_REGULAR, ZKP_OUTPUT_DIRECT: the existing file */
    ino_t ino;
    mode_t mode;  /* the permission bits the written file gets */
    char *tmp;    /* the staged temporary, until it is renamed or removed */
    const void *data; /* ZKP_OUTPUT_DIRECT: the staged bytes (the caller's) */
    size_t len;
    int staged;
} zkp_output;

/* Resolves path and checks, without writing anything, that it can be
 * written: its directory exists and is writable (for a new or regular file),
 * or the device, FIFO or socket is writable.
 *
 * On output: ZKPIPE_OK and *o ready for zkp_output_stage; or
 *   ZKPIPE_ERR_IO               the directory is missing or not writable, the
 *                               path is a directory, a symbolic link loops
 *   ZKPIPE_ERR_UNSUPPORTED      a block device
 *   ZKPIPE_ERR_INVALID_ARGUMENT a NULL pointer, an empty path or one ending
 *                               in '/'
 *   ZKPIPE_ERR_NO_MEMORY
 * each naming the path. On failure *o needs no zkp_output_close (which is
 * harmless all the same). */
ZKP_WARN_UNUSED zkpipe_status zkp_output_open(zkp_output *o, const char *path, zkp_diag *d);

/* Whether a and b are the same file: the same device and inode when both
 * exist, the same resolved path when both do not. Two in-place outputs
 * (both /dev/null, say) do not count as the same: writing both is harmless. */
int zkp_output_same(const zkp_output *a, const zkp_output *b);

/* Whether writing o would replace or overwrite the existing file at path
 * (an input), comparing device and inode, so every spelling of the file,
 * through links, relative paths or hard links, is caught. When path does
 * not exist, compares resolved paths. An in-place output (a device, a FIFO)
 * does not destroy what it writes to, and is never reported. */
int zkp_output_is(const zkp_output *o, const char *path);

/* Writes data[0..len) to o's temporary file (new and regular files), or
 * keeps data for zkp_output_commit (in-place outputs: data must then stay
 * valid until the commit). Staging twice replaces the first staging.
 * ZKPIPE_ERR_IO naming the path and the step that failed, with nothing left
 * behind. */
ZKP_WARN_UNUSED zkpipe_status zkp_output_stage(zkp_output *o, const void *data, size_t len,
                                               zkp_diag *d);

/* Writes what write(ctx, fd, path, d) writes through fd (with zkp_write_fd)
 * to o's temporary file, so that an output too big to hold in memory is
 * made piece by piece and still put in place all or nothing by
 * zkp_output_commit. write returns ZKPIPE_OK, or its own status with the
 * message set; either way nothing is left behind on failure. In-place
 * outputs (devices, FIFOs) are refused with ZKPIPE_ERR_UNSUPPORTED: their
 * bytes are written at commit, after the check that every output can be. */
typedef zkpipe_status (*zkp_output_writer)(void *ctx, int fd, const char *path, zkp_diag *d);
ZKP_WARN_UNUSED zkpipe_status zkp_output_stage_stream(zkp_output *o, zkp_output_writer write,
                                                      void *ctx, zkp_diag *d);

/* Writes data[0..len) to fd whole (retrying short writes and EINTR);
 * ZKPIPE_ERR_IO naming path otherwise. */
ZKP_WARN_UNUSED zkpipe_status zkp_write_fd(int fd, const void *data, size_t len, const char *path,
                                           zkp_diag *d);

/* Puts every staged output of outs[0..n) in place, all or nothing as
 * described above. ZKPIPE_ERR_IO naming the output that failed (and any
 * that could not be put back, which the message says). The outputs still
 * need zkp_output_close. */
ZKP_WARN_UNUSED zkpipe_status zkp_output_commit(zkp_output *outs, size_t n, zkp_diag *d);

/* Removes an uncommitted temporary and frees what o holds. Accepts a zeroed
 * or failed output. */
void zkp_output_close(zkp_output *o);

/* Writes data[0..len) to path as one output: zkp_output_open, _stage,
 * _commit and _close. Its statuses. */
ZKP_WARN_UNUSED zkpipe_status zkp_write_file_atomic(const char *path, const void *data, size_t len,
                                                    zkp_diag *d);

/* Fault injection, for tests only: from the next call on, the n-th system
 * call that the output functions make while staging and committing (creating
 * the temporary, setting its mode, writing, syncing and closing it, opening
 * and writing an in-place output, taking a backup link, renaming) fails with
 * errno err, once; n = 0 turns it off. Cleanup steps (removing a temporary
 * or a backup) are never failed. zkp_fileio_test_fault_fired says whether
 * the fault has happened. Not thread-safe: a test calls it on its own. */
void zkp_fileio_test_fault(unsigned n, int err);
int zkp_fileio_test_fault_fired(void);

#endif
