/* zkpipe public API: status codes shared by every public header.
 *
 * Every public function returns a zkpipe_status. The list below is the single
 * source of the enum, its names and its messages (an X-macro), so the three
 * can never drift apart. */
#ifndef ZKPIPE_ZKPIPE_H
#define ZKPIPE_ZKPIPE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ZKPIPE_WARN_UNUSED __attribute__((warn_unused_result))
#define ZKPIPE_API __attribute__((visibility("default")))
#else
#define ZKPIPE_WARN_UNUSED
#define ZKPIPE_API
#endif

/* X(name, message) */
#define ZKPIPE_STATUS_MAP(X)                                                          \
    X(OK, "success")                                                                  \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                                       \
    X(ERR_BAD_ENCODING, "malformed encoding (wrong length, flag bits or characters)") \
    X(ERR_NON_CANONICAL, "field element is not in canonical range [0, p)")            \
    X(ERR_NOT_ON_CURVE, "point is not on the curve")                                  \
    X(ERR_NOT_IN_SUBGROUP, "point is not in the prime-order subgroup")                \
    X(ERR_NOT_INVERTIBLE, "element has no inverse (zero)")                            \
    X(ERR_NO_SQRT, "element is not a square")                                         \
    X(ERR_UNSUPPORTED, "unsupported curve or operation")                              \
    X(ERR_NO_MEMORY, "out of memory")                                                 \
    X(ERR_RANDOM, "the OS random source failed")                                      \
    X(ERR_IO, "input/output error")                                                   \
    X(ERR_PARSE, "malformed input")                                                   \
    X(ERR_BAD_MAGIC, "not a file of the expected kind (bad magic)")                   \
    X(ERR_BAD_VERSION, "unsupported file format version")                             \
    X(ERR_TRUNCATED, "file is shorter than its headers say")                          \
    X(ERR_SECTION_MISSING, "a required section is missing or duplicated")             \
    X(ERR_SECTION_SIZE, "a section's size does not match its contents")               \
    X(ERR_WRONG_CURVE, "prime does not match a supported or the expected curve")      \
    X(ERR_SIZE_MISMATCH, "files disagree on a dimension (variables, public inputs)")  \
    X(ERR_OUT_OF_RANGE, "an index or count is outside its allowed range")             \
    X(ERR_PROOF_INVALID, "the proof does not verify")                                 \
    X(ERR_CANCELLED, "the operation was cancelled")                                   \
    X(ERR_TIMEOUT, "the operation did not complete in the time allowed")              \
    X(ERR_RESERVATION_EXCEEDED, "the request exceeds the memory reservation")        \
    X(ERR_NO_DEVICE, "no usable GPU")                                                 \
    X(ERR_DEVICE, "the GPU reported an error")                                       \
    X(ERR_FILE_CHANGED, "the file changed since it was registered")

typedef enum {
#define ZKPIPE_STATUS_ENUM_(name, msg) ZKPIPE_##name,
    ZKPIPE_STATUS_MAP(ZKPIPE_STATUS_ENUM_)
#undef ZKPIPE_STATUS_ENUM_
    ZKPIPE_STATUS_COUNT_
} zkpipe_status;

/* "ZKPIPE_ERR_NOT_ON_CURVE"-style name; "ZKPIPE_UNKNOWN_STATUS" for values
 * outside the enum. Never NULL. */
ZKPIPE_API const char *zkpipe_status_name(zkpipe_status s);

/* Human-readable message. Never NULL. */
ZKPIPE_API const char *zkpipe_strerror(zkpipe_status s);

#ifdef __cplusplus
}
#endif
#endif
