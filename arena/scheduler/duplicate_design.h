// Duplicate set designs for ladders: which of a ladder "match"'s bots sits at
// which seat of which table, when the match is a duplicate set (the same
// deals played at several tables; arena/rating/margin_rating.h rates it).
// Every table of a set is a match of the same variant, options, seed, first
// dealer and number of hands, so deal d and the cards of seat s are the same
// at every table.
//
// Two designs:
//
//   rotated  n bots, n seats, n tables; table t seat s holds bot (s + t) mod n.
//            Every bot holds every seat's cards of every deal, and at each
//            table it meets the same n - 1 opponents, so the margins are
//            balanced exactly. A bot plays each deal n times: only for bots
//            hosted in a fresh sandbox per match (a bot process that saw a
//            deal at one table could remember it at the next; the secret
//            deals threat model).
//   bridge   k * n bots (k >= 2), n seats, k tables; each bot sits at exactly
//            one table and never plays a deal twice. The holders of one seat
//            at the k tables form a comparison group (their margins compare
//            them with each other): group g is bots g*k .. g*k+k-1 of the
//            caller's list, dealt to the tables in snake order (group 0 to
//            tables 0..k-1, group 1 to k-1..0, ...), so a list sorted by
//            strength gives tables of balanced strength. Who is compared with
//            whom is the caller's list order: shuffle it with public
//            randomness per set (the ladder's seat shuffle). Sorting it by
//            strength instead compares the same neighbours set after set, and
//            in a stable field the groups never connect (ladder_bench, two
//            bots of each kind: twins compared with each other for ever;
//            docs/benchmarks.md). `seat_shuffle` permutes which seat each
//            group holds, the same way at every table; 0 keeps group g at
//            seat g.
//
// A set's deals: the caller picks the number of hands (a multiple of the seat
// count, so every seat deals equally often; the ladder's hands_per_match).
//
// Thread-safety: pure functions of their arguments; thread-safe.

#ifndef TAROCK_ARENA_SCHEDULER_DUPLICATE_DESIGN_H_
#define TAROCK_ARENA_SCHEDULER_DUPLICATE_DESIGN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "arena/rating/margin_rating.h"

namespace tarock::arena {

// How a ladder plays a "match" (LadderConfig.format).
enum class LadderFormat {
  kMatch,      // one match (one table), as before issue 33
  kDuplicate,  // a duplicate set: the same deals at several tables
};

// "match" or "duplicate", or InvalidArgument naming the valid ones in one
// line.
absl::StatusOr<LadderFormat> ParseLadderFormat(std::string_view name);
std::string LadderFormatName(LadderFormat format);

// The design of one duplicate set (see above): ChooseSetDesign.
enum class SetDesign { kBridge, kRotated };
std::string SetDesignName(SetDesign design);

// Which design a set may use (docs/security.md, "One kernel per deal"). A
// rotated set seats each bot at every table, so no process of a bot may
// remember a deal (only hosted bots, fresh per match) and, since processes on
// one kernel can signal each other through machine-wide counters, CPU timing
// and the page cache (which outlives a process), the bot's tables must run
// on as many machines as the set has tables. `every_bot_hosted`: every bot
// of the set is hosted; `machines_per_bot`: how many hosts (machines) can
// each play one table of one bot at the same time. Rotated only when both
// hold for `seats` tables; bridge otherwise (each bot at one table).
SetDesign ChooseSetDesign(bool every_bot_hosted, int machines_per_bot, int seats);

// How a duplicate tournament (and an event's final) deals the tables of its
// groups. A group is n bots played in every seating (seating r: seat s holds
// the group's bot (s + r) mod n). Three ways:
//
//   rotated  every seating of the group plays the same deal: each bot holds
//            every seat's cards of it (the luck of the cards cancels). The
//            design for groups without a hosted bot, unchanged; a bot that
//            runs elsewhere could remember the deal from seating to seating
//            (its result rests on trust).
//   bridged  a group with a hosted bot whose tables cannot run on machines of
//            their own (one bot host holds it: kHostsPerHostedBot) must not
//            meet a deal twice, on one kernel at once or one after the other
//            (docs/security.md, "One kernel per deal"). It is paired with
//            another such group that has no bot in common, and seating r of
//            both plays one deal: a bridge set of two tables, each bot at one
//            of them, the holders of a seat's cards compared across them.
//   fresh    such a group left without a partner (every other candidate
//            shares a bot with it, e.g. in a gauntlet, where the challenger
//            is in every group) plays a deal of its own in each seating: no
//            bot meets a deal twice, and nothing of the luck cancels.
enum class GroupDeals { kRotated, kBridged, kFresh };

struct TournamentDealPlan {
  std::vector<GroupDeals> deals;  // per group
  std::vector<int> partner;       // per group: its bridged partner, or -1
};

// The plan for `groups` (indices into a field, `seats` each) where hosted[i]
// says whether bot i of the field is hosted and `machines_per_bot` is how
// many machines can play one hosted bot's tables at once. A group rotates
// when no bot of it is hosted or machines_per_bot >= seats; the others are
// paired greedily in order (each with the first later one that shares no
// bot with it and has no partner yet) and the rest play fresh deals.
TournamentDealPlan PlanTournamentDeals(const std::vector<std::vector<int>>& groups,
                                       const std::vector<bool>& hosted, int seats,
                                       int machines_per_bot);

// A set: tables[t][s] is the index (into the caller's list of chosen bots) of
// the bot at seat s of table t.
struct DuplicateDesign {
  std::vector<std::vector<int>> tables;
};

// The rotated design for num_bots == seats >= 2; InvalidArgument otherwise.
absl::StatusOr<DuplicateDesign> RotatedDesign(int num_bots, int seats);

// The bridge design for num_bots == k * seats, k >= 2, seats >= 2 (see
// above for the order of the bots). InvalidArgument otherwise (saying how
// many bots it needs).
absl::StatusOr<DuplicateDesign> BridgeDesign(int num_bots, int seats, uint64_t seat_shuffle = 0);

// The margin model's input from a set's finished tables as the store keeps
// them: table_bots[t][s] the bot at seat s of table t, hand_scores[t][s] that
// seat's hand scores (SeatRow::hand_scores: thrown-in deals included, deals
// dealt again not), `num_hands` the set's hands per table. A deal a table did
// not reach (a failed or short match), and a seat for which sits_out(hand,
// seat) is true (the 5-player dealer), get no score. InvalidArgument when the
// tables' shapes disagree.
absl::StatusOr<DuplicateSet> SetFromTables(
    const std::vector<std::vector<int64_t>>& table_bots,
    const std::vector<std::vector<std::vector<int>>>& hand_scores, int num_hands,
    const std::function<bool(int hand, int seat)>& sits_out);

// How many bots a set of `design` wants for `seats` seats: seats for
// rotated, 2 * seats for bridge (the smallest bridge set).
int BotsPerSet(SetDesign design, int seats);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_DUPLICATE_DESIGN_H_
