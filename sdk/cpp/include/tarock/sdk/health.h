// The SDK's names for the shared health service (tarock/transport/health.h):
// grpc.health.v1 on every gRPC server, bots included.
//
// Thread-safety: as tarock/transport/health.h.

#ifndef TAROCK_SDK_HEALTH_H_
#define TAROCK_SDK_HEALTH_H_

#include "tarock/transport/health.h"

namespace tarock::sdk {

using ::tarock::transport::EnableHealthService;
using ::tarock::transport::SetServing;

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_HEALTH_H_
