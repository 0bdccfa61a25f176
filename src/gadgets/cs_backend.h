/* What the back ends of cs.h (the recorder in cs.c, the CSR back end in
 * csr.c) share: arrays that grow by doubling, and the store of one
 * variable's value by its index. Internal to src/gadgets. */
#ifndef ZKP_GADGETS_CS_BACKEND_H
#define ZKP_GADGETS_CS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "gadgets/cs.h"

/* Makes *p (of *cap elements of elem bytes) hold at least need, doubling
 * from 64; 0 when the size overflows or realloc fails (*p is kept). */
int zkp_cs_grow(void **p, size_t *cap, size_t need, size_t elem);

/* (*vals)[index] = *value, growing *vals (of *cap values) as needed. */
zkpipe_status zkp_cs_store_value(zkp_fr **vals, size_t *cap, uint32_t index, const zkp_fr *value);

#endif
