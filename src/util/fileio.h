/* Whole-file reads and atomic writes for the small files zkpipe reads and
 * writes in one piece: JSON proofs, public inputs and verification keys.
 * (Large binary inputs are mapped, not read; see util/mapped_file.h.)
 *
 * Both functions report failures through a status and, when d is not NULL, a
 * message that names the path and the system's reason (strerror). */
#ifndef ZKP_UTIL_FILEIO_H
#define ZKP_UTIL_FILEIO_H

#include <stddef.h>

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

/* Replaces the file at path with data[0..len), atomically: the bytes go to a
 * new temporary file in the same directory (mkstemp, named ".<name>.XXXXXX"),
 * which gets mode 0644 minus the process umask (the mode fopen's new files
 * get from a 0644 request), is written in full, fsync'd and closed, then
 * renamed over path; the directory is then fsync'd (best effort). A reader of
 * path sees the old contents or the new, never a mixture.
 *
 * On any failure the temporary file is removed and an existing path is left
 * untouched: ZKPIPE_ERR_IO naming the path (or the temporary) and strerror,
 * or ZKPIPE_ERR_INVALID_ARGUMENT (a NULL pointer, an empty path or one ending
 * in '/'). If path is a symbolic link, the link itself is replaced. */
ZKP_WARN_UNUSED zkpipe_status zkp_write_file_atomic(const char *path, const void *data, size_t len,
                                                    zkp_diag *d);

#endif
