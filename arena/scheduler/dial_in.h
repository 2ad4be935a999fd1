// What the scheduler needs to know of bots that dial in (docs/dial-in.md):
// whether a bot is connected, and a seat of a match prepared for it on the
// arena's seat relay before a referee dials that seat. Implemented by the
// gateway (arena/gateway/dial_in_hub.h); the scheduler holds only this
// interface, so it stays free of gRPC.
//
// A dial-in bot is stored with the endpoint kDialInEndpoint; its seats in a
// MatchSpec name that endpoint until the match runs, when the scheduler puts
// the arena's own Bot service (the relay) in its place.
//
// Thread-safety: implementations are thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_DIAL_IN_H_
#define TAROCK_ARENA_SCHEDULER_DIAL_IN_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace tarock::arena {

// The endpoint stored for a bot registered with --dial_in.
inline constexpr char kDialInEndpoint[] = "dial-in";
// The endpoint stored for a bot registered with --hosted (docs/hosting.md):
// it reaches its seats through the gateway like a dial-in bot, but only a
// bot host holding it may connect for it, never its own token (so a
// hosted-only event knows the code that plays is the code handed in).
inline constexpr char kHostedEndpoint[] = "hosted";
// How many bot hosts (machines) can play seats of one hosted bot at the same
// time: one. A hosted bot is held by one host (arena/hosting/hosted_bots.h)
// over one gateway connection, so all its seats run on that host's kernel,
// and a duplicate set with hosted bots is a bridge set (ChooseSetDesign,
// duplicate_design.h; docs/security.md, "One kernel per deal"). Raising it
// needs a bot held by several hosts and each table placed on its own host.
inline constexpr int kHostsPerHostedBot = 1;
// Whether a bot with this stored endpoint plays through the gateway.
inline bool ThroughGateway(const std::string& endpoint) {
  return endpoint == kDialInEndpoint || endpoint == kHostedEndpoint;
}

class DialInSeats {
 public:
  virtual ~DialInSeats() = default;
  // True while the bot has a live gateway connection.
  virtual bool Online(int64_t bot_id) = 0;
  // When the bot was last online: InfiniteFuture while it is, InfinitePast
  // when it never was (since the arena started).
  virtual absl::Time LastOnline(int64_t bot_id) {
    return Online(bot_id) ? absl::InfiniteFuture() : absl::InfinitePast();
  }
  // Whether seat `seat` of `match_id` (prepared, not yet released) was ever
  // played on a connection that was not a bot host's: then its Hello's
  // version is the bot's word only, and the seat is not counted as played
  // by a hosted (frozen) version.
  virtual bool PlayedUnhosted(const std::string& match_id, int seat) { return false; }
  // Waits until the bot is online or `deadline` passes; returns Online().
  virtual bool AwaitOnline(int64_t bot_id, absl::Time deadline) = 0;
  // Prepares seat `seat` of `match_id` for the bot (the relay hands the
  // referee's stream of that seat to the bot's connection). Errors:
  // ALREADY_EXISTS when the seat is relayed already.
  virtual absl::Status Prepare(const std::string& match_id, int seat, int64_t bot_id,
                               const std::string& bot_name) = 0;
  // Whether the bot can play seats on the direct route: its SDK listed the
  // feature "join-referee" in its Hello (gateway.proto, JoinReferee).
  virtual bool CanJoinReferee(int64_t bot_id) { return false; }
  // The direct route for a prepared seat (docs/dial-in.md, "Routes"): the bot
  // is asked to join `referee` (HOST:PORT as the bot must dial it) with
  // `ticket`, now and again after every reconnection until Release. A later
  // call (the match retried on another referee) replaces the earlier one.
  // Errors: NOT_FOUND for a seat not prepared.
  virtual absl::Status RouteToReferee(const std::string& match_id, int seat,
                                      const std::string& referee, const std::string& ticket) {
    return absl::UnimplementedError("this gateway has no direct route");
  }
  // Whether the bot's host connection (a bot host playing a hosted bot,
  // docs/hosting.md) was lost while seat `seat` of `match_id` was prepared,
  // since the last call for that seat (the call clears it). A connection
  // replaced by a newer one is not lost; a bot's own dial-in connection
  // never counts. The scheduler voids a match whose hosted seat got faults
  // while its host was gone ("host lost", not charged to the bot).
  virtual bool TakeHostLost(const std::string& match_id, int seat) { return false; }
  // The match is over (or failed): the seat is no longer relayed.
  virtual void Release(const std::string& match_id, int seat) = 0;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_DIAL_IN_H_
