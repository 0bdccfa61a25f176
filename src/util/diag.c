#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

zkpipe_status zkp_diag_fail(zkp_diag *d, zkpipe_status st, const char *fmt, ...) {
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

void zkp_diag_prefix(zkp_diag *d, const char *prefix) {
    if (!d) return;
    char tmp[ZKP_DIAG_MAX];
    size_t plen = strlen(prefix);
    if (plen > sizeof tmp - 3) plen = sizeof tmp - 3;
    memcpy(tmp, prefix, plen);
    memcpy(tmp + plen, ": ", 2);
    size_t room = sizeof tmp - plen - 3, mlen = strnlen(d->msg, sizeof d->msg);
    if (mlen > room) mlen = room;
    memcpy(tmp + plen + 2, d->msg, mlen);
    tmp[plen + 2 + mlen] = '\0';
    memcpy(d->msg, tmp, sizeof tmp);
}
