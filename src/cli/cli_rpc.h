/* The unary call that zkpipe-daemon's client commands share (zkpipe client,
 * bench porep --daemon): protobuf in, protobuf out, failures said. */
#ifndef ZKP_CLI_CLI_RPC_H
#define ZKP_CLI_CLI_RPC_H

#include <protobuf-c/protobuf-c.h>
#include <stdint.h>

#include "server/rpc.h"

/* The largest answer taken. */
#define CLI_RPC_MAX_MESSAGE ((size_t)256 << 20)

typedef void *(*cli_rpc_unpack_fn)(ProtobufCAllocator *, size_t, const uint8_t *);

/* Packs req, calls method ("/service/Method") at addr with sec (may be
 * NULL) and timeout_ms (0: none), and unpacks the answer with unpack. NULL
 * on any failure, the reason printed as "zkpipe <cmd>: <method>: ...". */
void *cli_rpc_call(const char *cmd, const char *addr, const zkp_rpc_client_security *sec,
                   int64_t timeout_ms, const char *method, const ProtobufCMessage *req,
                   cli_rpc_unpack_fn unpack);

#endif
