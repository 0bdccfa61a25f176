/* How much memory the engine may plan with: the cgroup limit or MemTotal,
 * less a safety margin; and the procfs readers the sampler shares.
 *
 * The parsers take text, not paths, and detection takes its paths from a
 * zkp_mem_sources, so tests feed both without touching the real /proc. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mem/mem.h"
#include "mem/mem_internal.h"

#define GIB ((uint64_t)1 << 30)

/* Enough for /proc/meminfo (about 1.5 KiB) and /proc/self/cgroup with its
 * longest realistic paths. */
#define SMALL_FILE_MAX 16384
#define PATH_MAX_LEN 4096

int zkp_mem_read_small_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    size_t len = 0;
    int err = 0;
    for (;;) {
        if (len + 1 >= cap) {
            err = EFBIG;
            break;
        }
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0) {
            if (errno == EINTR) continue;
            err = errno;
            break;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return err;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Parses decimal digits at *p into *out, advancing *p. 0 when there are
 * none or the value overflows 64 bits. */
static int parse_u64(const char **p, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9') return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *out = v;
    return 1;
}

/* The line after the one s points into; NULL after the last. */
static const char *next_line(const char *s) {
    const char *nl = strchr(s, '\n');
    return nl ? nl + 1 : NULL;
}

static int only_space_left(const char *s) {
    while (is_space(*s)) s++;
    return *s == '\0';
}

zkpipe_status zkp_mem_parse_cgroup_limit(const char *text, uint64_t *out) {
    if (!text || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    if (strncmp(text, "max", 3) == 0 && only_space_left(text + 3)) {
        *out = UINT64_MAX;
        return ZKPIPE_OK;
    }
    const char *p = text;
    uint64_t v;
    if (!parse_u64(&p, &v) || !only_space_left(p)) return ZKPIPE_ERR_PARSE;
    *out = v;
    return ZKPIPE_OK;
}

zkpipe_status zkp_mem_parse_kib_field(const char *text, const char *key, uint64_t *out) {
    size_t key_len = strlen(key);
    for (const char *line = text; line; line = next_line(line)) {
        if (strncmp(line, key, key_len) != 0 || line[key_len] != ':') continue;
        const char *p = line + key_len + 1;
        while (*p == ' ' || *p == '\t') p++;
        uint64_t kib;
        if (!parse_u64(&p, &kib)) return ZKPIPE_ERR_PARSE;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "kB", 2) != 0 || (p[2] != '\n' && p[2] != '\0')) return ZKPIPE_ERR_PARSE;
        if (kib > UINT64_MAX / 1024) return ZKPIPE_ERR_PARSE;
        *out = kib * 1024;
        return ZKPIPE_OK;
    }
    return ZKPIPE_ERR_PARSE;
}

zkpipe_status zkp_mem_parse_meminfo_total(const char *text, uint64_t *out) {
    if (!text || !out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    return zkp_mem_parse_kib_field(text, "MemTotal", out);
}

zkpipe_status zkp_mem_default_margin(uint64_t limit, uint64_t *out) {
    if (!out) return ZKPIPE_ERR_INVALID_ARGUMENT;
    uint64_t m = limit / 20;
    if (m < GIB) m = GIB;
    if (m > 32 * GIB) m = 32 * GIB;
    if (m > limit / 2) m = limit / 2;
    *out = m;
    return ZKPIPE_OK;
}

/* The cgroup path of this process for one hierarchy, from the text of
 * /proc/self/cgroup: v2's line is "0::/path", a v1 line names its
 * controllers ("4:memory:/path" or "7:cpu,memory:/path"). Copies it into
 * path (without the leading '/'; "" for the root). 0 when not listed. */
static int cgroup_path_of(const char *self_cgroup, int want_v2, char *path, size_t cap) {
    for (const char *line = self_cgroup; line; line = next_line(line)) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            size_t ctl_len = (size_t)(c2 - c1 - 1);
            int match = 0;
            if (want_v2) {
                match = ctl_len == 0 && c1 - line == 1 && line[0] == '0';
            } else {
                for (const char *t = c1 + 1; t < c2;) {
                    const char *comma = memchr(t, ',', (size_t)(c2 - t));
                    const char *tend = comma ? comma : c2;
                    if (tend - t == 6 && memcmp(t, "memory", 6) == 0) match = 1;
                    t = tend + 1;
                }
            }
            if (match) {
                const char *p = c2 + 1;
                size_t plen = len - (size_t)(p - line);
                while (plen > 0 && *p == '/') p++, plen--;
                if (plen >= cap) return 0;
                memcpy(path, p, plen);
                path[plen] = '\0';
                return 1;
            }
        }
    }
    return 0;
}

/* The tightest limit in file `leaf` of dir/rel and each ancestor of rel up
 * to dir itself. Files that are missing or unreadable are skipped (a
 * namespaced mount shows no ancestors; the root cgroup has no
 * memory.max). Returns UINT64_MAX when none holds a limit. */
static uint64_t tightest_limit(const char *dir, const char *rel, const char *leaf) {
    char path[PATH_MAX_LEN], text[256];
    char sub[PATH_MAX_LEN];
    snprintf(sub, sizeof sub, "%s", rel);
    uint64_t best = UINT64_MAX;
    for (;;) {
        int n = sub[0] ? snprintf(path, sizeof path, "%s/%s/%s", dir, sub, leaf)
                       : snprintf(path, sizeof path, "%s/%s", dir, leaf);
        uint64_t v;
        if (n > 0 && (size_t)n < sizeof path &&
            zkp_mem_read_small_file(path, text, sizeof text) == 0 &&
            zkp_mem_parse_cgroup_limit(text, &v) == ZKPIPE_OK && v < best)
            best = v;
        if (!sub[0]) break;
        char *slash = strrchr(sub, '/');
        if (slash)
            *slash = '\0';
        else
            sub[0] = '\0';
    }
    return best;
}

zkpipe_status zkp_mem_detect_limits(const zkp_mem_sources *src, uint64_t configured_total,
                                    uint64_t margin, zkp_mem_limits *out, zkp_diag *diag) {
    if (!out) return zkp_diag_fail(diag, ZKPIPE_ERR_INVALID_ARGUMENT, "no output given");
    memset(out, 0, sizeof *out);
    const char *cgroup_root = src && src->cgroup_root ? src->cgroup_root : "/sys/fs/cgroup";
    const char *self_cgroup = src && src->self_cgroup ? src->self_cgroup : "/proc/self/cgroup";
    const char *meminfo = src && src->meminfo ? src->meminfo : "/proc/meminfo";

    char text[SMALL_FILE_MAX];
    int err = zkp_mem_read_small_file(meminfo, text, sizeof text);
    if (err)
        return zkp_diag_fail(diag, ZKPIPE_ERR_IO, "%s: cannot read: %s", meminfo, strerror(err));
    if (zkp_mem_parse_meminfo_total(text, &out->mem_total) != ZKPIPE_OK || out->mem_total == 0)
        return zkp_diag_fail(diag, ZKPIPE_ERR_PARSE, "%s: no valid MemTotal line", meminfo);

    /* Without /proc/self/cgroup, only the hierarchy roots are looked at. */
    if (zkp_mem_read_small_file(self_cgroup, text, sizeof text) != 0) text[0] = '\0';
    char rel[PATH_MAX_LEN], dir[PATH_MAX_LEN];
    if (!cgroup_path_of(text, 1, rel, sizeof rel)) rel[0] = '\0';
    uint64_t v2 = tightest_limit(cgroup_root, rel, "memory.max");
    if (!cgroup_path_of(text, 0, rel, sizeof rel)) rel[0] = '\0';
    snprintf(dir, sizeof dir, "%s/memory", cgroup_root);
    uint64_t v1 = tightest_limit(dir, rel, "memory.limit_in_bytes");
    out->cgroup_limit = v2 < v1 ? v2 : v1;

    out->limit = out->mem_total;
    out->source = ZKP_MEM_LIMIT_MEMTOTAL;
    if (out->cgroup_limit < out->limit) {
        out->limit = out->cgroup_limit;
        out->source = v2 <= v1 ? ZKP_MEM_LIMIT_CGROUP_V2 : ZKP_MEM_LIMIT_CGROUP_V1;
    }
    if (configured_total > 0) {
        /* The operator's number, but never more than the machine or the
         * cgroup can give. */
        if (configured_total < out->limit) out->limit = configured_total;
        out->source = ZKP_MEM_LIMIT_CONFIGURED;
        out->margin = 0;
        out->budget = out->limit;
        return ZKPIPE_OK;
    }
    if (margin == ZKP_MEM_MARGIN_AUTO) (void)zkp_mem_default_margin(out->limit, &margin);
    out->margin = margin;
    if (margin >= out->limit)
        return zkp_diag_fail(diag, ZKPIPE_ERR_NO_MEMORY,
                             "a safety margin of %llu bytes leaves nothing of a %llu-byte limit",
                             (unsigned long long)margin, (unsigned long long)out->limit);
    out->budget = out->limit - margin;
    return ZKPIPE_OK;
}
