// `tarock-arena-cli events ...`: classes and competitions (docs/events.md)
// over the Arena gRPC service.
//
//   events create SLUG --name=N --kind=class|competition --variants=V,...
//          [--description=D] [--opens=T] [--closes=T] [--deadline=T] [--unlisted]
//          [--max_entrants=N] [--bots_per_entrant=N] [--final_deals=N]
//          [--final_budget=N] [--weight=N] [--hands=N]      (admin; prints the
//          organiser token and the invite code, once)
//   events list       events show SLUG
//   events join CODE --name=NAME                 (prints the entrant token, once)
//   events roster SLUG        events register SLUG --roster=FILE (one name a line)
//   events reissue SLUG --entrant=NAME           events enter SLUG --bot=B
//   events withdraw SLUG --bot=B                 (the organiser's or the entrant's token)
//   events export SLUG [--as=csv|json]           events close SLUG
// The organiser token comes from --organiser_token or $TAROCK_ORGANISER_TOKEN;
// an entrant's from --entrant_token or $TAROCK_ENTRANT_TOKEN.
//
// Thread-safety: a command-line entry point; call from main only.

#ifndef TAROCK_ARENA_CLI_EVENTS_COMMAND_H_
#define TAROCK_ARENA_CLI_EVENTS_COMMAND_H_

#include <string>
#include <vector>

#include "tarock/v1/arena.grpc.pb.h"

namespace tarock::arena {

// The flags `events` reads besides the CLI's shared ones (for `help events`).
std::vector<std::string> EventsCommandFlags();

// --event (bots add, leaderboard, matches) and the entrant's token
// (--entrant_token, else $TAROCK_ENTRANT_TOKEN).
std::string EventFlag();
std::string EntrantToken();

// Runs `events SUB [ARG]` (args[0] is "events"); returns the exit status.
int RunEventsCommand(v1::Arena::Stub* stub, const std::vector<std::string>& args);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_CLI_EVENTS_COMMAND_H_
