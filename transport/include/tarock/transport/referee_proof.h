// Telling the arena's referees from strangers. Each bot gets a referee
// secret at registration; the arena gives the referee, per match and seat, a
// proof of it (SeatSpec.referee_proof in tarock.proto); the referee presents
// the proof as the metadata kRefereeProofHeader of the bot's Play stream; the
// bot checks it against its MatchStart (the SDKs do when given
// --referee_secret) and ends the stream with UNAUTHENTICATED otherwise.
//
//   proof  = hex(HMAC-SHA256(secret, MATCH_ID + "/" + SEAT))
//   secret = hex(HMAC-SHA256(arena key, "tarock-referee-secret/" + BOT_NAME))
//
// The arena derives each bot's secret from its own key, so no secret is
// stored. No gRPC here: the arena's scheduler uses it.
//
// Thread-safety: pure functions.

#ifndef TAROCK_TRANSPORT_REFEREE_PROOF_H_
#define TAROCK_TRANSPORT_REFEREE_PROOF_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tarock::transport {

inline constexpr char kRefereeProofHeader[] = "x-tarock-referee-proof";

std::string RefereeProof(absl::string_view secret, absl::string_view match_id, int seat);
// The check, in constant time. False for an empty proof.
bool RefereeProofMatches(absl::string_view secret, absl::string_view match_id, int seat,
                         absl::string_view proof);
// The arena's secret of one bot, derived from the arena's key.
std::string BotRefereeSecret(absl::string_view arena_key, absl::string_view bot_name);
// Equality of two strings in time that depends only on their lengths.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace tarock::transport

#endif  // TAROCK_TRANSPORT_REFEREE_PROOF_H_
