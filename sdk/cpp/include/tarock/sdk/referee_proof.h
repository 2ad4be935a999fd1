// The SDK's names for the referee proof (tarock/transport/referee_proof.h):
// a bot given --referee_secret checks that the referee dialling it is the
// arena's.
//
// Thread-safety: pure functions.

#ifndef TAROCK_SDK_REFEREE_PROOF_H_
#define TAROCK_SDK_REFEREE_PROOF_H_

#include "tarock/transport/referee_proof.h"

namespace tarock::sdk {

using ::tarock::transport::BotRefereeSecret;
using ::tarock::transport::ConstantTimeEquals;
using ::tarock::transport::kRefereeProofHeader;
using ::tarock::transport::RefereeProof;
using ::tarock::transport::RefereeProofMatches;

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_REFEREE_PROOF_H_
