#include "util/rand.h"

#include <errno.h>
#include <sys/random.h>

zkpipe_status zkp_random_bytes(void *buf, size_t len) {
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return ZKPIPE_ERR_RANDOM;
        }
        p += got;
        len -= (size_t)got;
    }
    return ZKPIPE_OK;
}
