/* Allocation of large working buffers through a caller-chosen allocator.
 *
 * The prover and the parsers never call malloc for buffers whose size comes
 * from a key or a witness: they ask a zkp_allocator, naming the category the
 * bytes belong to. The default allocator below is plain aligned_alloc; the
 * engine passes one that draws from its mmap'd pool and charges a
 * reservation, so every big byte is accounted where it lives. */
#ifndef ZKP_UTIL_ALLOC_H
#define ZKP_UTIL_ALLOC_H

#include <stddef.h>

#include "util/util.h"

/* What a buffer holds; the engine's tracker keeps live and peak bytes per
 * category. New categories go at the end, so existing values keep their
 * numbers. POOL_IDLE is the memory pool's own (regions kept mapped for
 * reuse, src/mem/); nothing else allocates under it. GPU_STAGING is host
 * memory staged for a device. KEY_FILE is a key file's mapping, charged by
 * the engine as its pages are read in (nothing allocates under it).
 * REQUEST is data the engine's caller holds for its jobs (a daemon's
 * received requests), in buffers of zkpipe_engine_buffer_create. */
#define ZKP_MEM_CATEGORY_MAP(X)   \
    X(KEY, "key")                 \
    X(CSR, "csr")                 \
    X(WITNESS, "witness")         \
    X(ABC, "abc")                 \
    X(AUX, "aux")                 \
    X(SCRATCH, "scratch")         \
    X(POOL_IDLE, "pool_idle")     \
    X(GPU_STAGING, "gpu_staging")  \
    X(KEY_FILE, "key_file")       \
    X(REQUEST, "request")

typedef enum {
#define ZKP_MEM_ENUM_(name, str) ZKP_MEM_##name,
    ZKP_MEM_CATEGORY_MAP(ZKP_MEM_ENUM_)
#undef ZKP_MEM_ENUM_
    ZKP_MEM_CATEGORY_COUNT
} zkp_mem_category;

const char *zkp_mem_category_name(zkp_mem_category c);

typedef struct zkp_allocator {
    /* bytes > 0; returns memory aligned to ZKP_ALLOC_ALIGN, or NULL. */
    void *(*alloc)(void *ctx, size_t bytes, zkp_mem_category cat);
    /* p from alloc with the same bytes and category; p may be NULL. */
    void (*free)(void *ctx, void *p, size_t bytes, zkp_mem_category cat);
    void *ctx;
} zkp_allocator;

#define ZKP_ALLOC_ALIGN 64

/* aligned_alloc/free. Never NULL. */
const zkp_allocator *zkp_default_allocator(void);

static inline void *zkp_alloc(const zkp_allocator *a, size_t bytes, zkp_mem_category cat) {
    if (!a) a = zkp_default_allocator();
    return bytes ? a->alloc(a->ctx, bytes, cat) : NULL;
}
static inline void zkp_free(const zkp_allocator *a, void *p, size_t bytes, zkp_mem_category cat) {
    if (!p) return;
    if (!a) a = zkp_default_allocator();
    a->free(a->ctx, p, bytes, cat);
}

#endif
