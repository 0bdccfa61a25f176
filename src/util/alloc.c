#include "util/alloc.h"

#include <stdlib.h>

const char *zkp_mem_category_name(zkp_mem_category c) {
    switch (c) {
#define ZKP_MEM_NAME_(name, str) \
    case ZKP_MEM_##name:         \
        return str;
        ZKP_MEM_CATEGORY_MAP(ZKP_MEM_NAME_)
#undef ZKP_MEM_NAME_
    default:
        return "unknown";
    }
}

static void *default_alloc(void *ctx, size_t bytes, zkp_mem_category cat) {
    (void)ctx;
    (void)cat;
    size_t rounded;
    /* aligned_alloc wants a multiple of the alignment. */
    if (zkp_add_overflow(bytes, ZKP_ALLOC_ALIGN - 1, &rounded)) return NULL;
    rounded &= ~(size_t)(ZKP_ALLOC_ALIGN - 1);
    return aligned_alloc(ZKP_ALLOC_ALIGN, rounded);
}

static void default_free(void *ctx, void *p, size_t bytes, zkp_mem_category cat) {
    (void)ctx;
    (void)bytes;
    (void)cat;
    free(p);
}

static const zkp_allocator default_allocator = {default_alloc, default_free, NULL};

const zkp_allocator *zkp_default_allocator(void) { return &default_allocator; }
