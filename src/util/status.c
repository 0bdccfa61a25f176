#include "zkpipe/zkpipe.h"

const char *zkpipe_status_name(zkpipe_status s) {
    switch (s) {
#define ZKP_STATUS_NAME_(name, msg) \
    case ZKPIPE_##name:             \
        return "ZKPIPE_" #name;
        ZKPIPE_STATUS_MAP(ZKP_STATUS_NAME_)
#undef ZKP_STATUS_NAME_
    default:
        return "ZKPIPE_UNKNOWN_STATUS";
    }
}

const char *zkpipe_strerror(zkpipe_status s) {
    switch (s) {
#define ZKP_STATUS_MSG_(name, msg) \
    case ZKPIPE_##name:            \
        return msg;
        ZKPIPE_STATUS_MAP(ZKP_STATUS_MSG_)
#undef ZKP_STATUS_MSG_
    default:
        return "unknown status";
    }
}
