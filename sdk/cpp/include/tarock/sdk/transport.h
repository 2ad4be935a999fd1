// The SDK's names for the shared transport (tarock/transport/transport.h):
// TLS flags, credentials and bearer tokens, the same in the bots, the referee
// and the arena. Bots written against tarock::sdk::Transport and
// tarock::sdk::TransportOptions keep compiling; new code may use either name.
//
// Thread-safety: as tarock/transport/transport.h.

#ifndef TAROCK_SDK_TRANSPORT_H_
#define TAROCK_SDK_TRANSPORT_H_

#include "tarock/sdk/referee_proof.h"
#include "tarock/transport/transport.h"

namespace tarock::sdk {

using ::tarock::transport::AddBearerToken;
using ::tarock::transport::HasBearerToken;
using ::tarock::transport::IsLoopbackAddress;
using ::tarock::transport::SecretFromFlagOrEnv;
using ::tarock::transport::Transport;
using ::tarock::transport::TransportOptions;
using ::tarock::transport::TransportOptionsFromFlags;

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_TRANSPORT_H_
