#include "util/fault.h"

#include <stddef.h>

const char *zkp_fault_name(void) {
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
    return "early_release";
#else
    return NULL;
#endif
}

const char *zkp_fault_warning(void) {
#ifdef ZKPIPE_FAULT_EARLY_RELEASE
    return "WARNING: built with ZKPIPE_FAULT_EARLY_RELEASE: partitions give their memory "
           "reservation back before their buffers are freed, so memory can exceed the budget; "
           "for control runs only, never deploy this build";
#else
    return NULL;
#endif
}
