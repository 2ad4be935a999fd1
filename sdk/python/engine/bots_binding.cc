// The bundled heuristic bot (bots/heuristic) from Python: its choice at a
// seat's decision, and hands played out by it, for bots that search
// (sdk/templates/python/pimc_bot.py) and want a sensible policy where they do
// not search (bidding, talon, announcements) or a better rollout than random.
//
// The bot only ever sees what the seat may see: its decision is made from the
// tarock.v1.DecisionRequest the referee sends that seat (a live decision's own
// request, or the one State.decision_request_proto(seat) makes from the seat's
// observation of a state), never from the other hands. The heuristic bot is a
// pure function of that request (heuristic_bot.h), so nothing is kept between
// calls.
//
// Thread-safety: heuristic_action keeps the GIL; heuristic_playout releases it
// while it plays and marks its State busy (StateGuard), as random_playout does.

#include <memory>
#include <string>

#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "bots/heuristic/heuristic_bot.h"
#include "referee/engine/random.h"
#include "referee/protocol/convert.h"
#include "sdk/python/engine/bindings.h"
#include "tarock/sdk/bot.h"

namespace py = pybind11;

namespace tarock::python {
namespace {

// What the bot knows of its "match": the game (aliasing the PyGame, which the
// caller keeps alive for the call) and the seat.
sdk::MatchInfo MatchOf(const std::shared_ptr<const PyGame>& g, int seat) {
  sdk::MatchInfo match;
  match.variant = g->game->info().name;
  match.options = g->game->options();
  match.seat = seat;
  match.num_seats = g->game->num_seats();
  match.num_hands = 1;
  match.game = std::shared_ptr<const Game>(g, g->game.get());
  return match;
}

// The heuristic bot's action for the request; ValueError when the request has
// no legal action, when the bot's answer is not among them.
std::string Decide(const std::shared_ptr<const PyGame>& g, const v1::DecisionRequest& request) {
  if (request.legal_actions().empty())
    throw py::value_error("the request has no legal action (not the seat's turn, or the hand is over)");
  sdk::MatchInfo match = MatchOf(g, request.observation().seat());
  bots::HeuristicBot bot;
  sdk::Situation situation(match, request);
  std::string action = bot.Decide(situation);
  if (!situation.IsLegal(action))  // the bot falls back itself; never expected
    throw std::runtime_error(absl::StrCat("the heuristic bot answered '", action,
                                          "', not a legal action"));
  return action;
}

}  // namespace

void RegisterBots(py::module_& m) {
  m.def("heuristic_action", [](std::shared_ptr<PyGame> g, py::bytes request_bytes) {
        v1::DecisionRequest request;
        if (!request.ParseFromString(std::string(request_bytes)))
          throw py::value_error("not a serialized tarock.v1.DecisionRequest");
        if (request.observation().variant() != g->game->info().name)
          throw py::value_error(absl::StrCat("the request is of variant '",
                                             request.observation().variant(), "', the game '",
                                             g->game->info().name, "'"));
        const int seat = request.observation().seat();
        if (seat < 0 || seat >= g->game->num_seats())
          throw py::value_error(absl::StrCat("the request's seat ", seat, " is not a seat"));
        return Decide(g, request);
      }, py::arg("game"), py::arg("request"),
      "The bundled heuristic bot's action (text) for a serialized tarock.v1.DecisionRequest "
      "(Situation.request.SerializeToString(), or State.decision_request_proto(seat)): "
      "decided from what that seat sees only. ValueError for a request that does not parse, "
      "is of another variant, or has no legal action.");

  m.def("heuristic_playout", [](PyState& s, uint64_t seed, double epsilon) {
        if (!(epsilon >= 0 && epsilon <= 1)) throw py::value_error("epsilon must be in [0, 1]");
        StateGuard guard(s);
        int n = 0;
        {
          py::gil_scoped_release release;
          const Game& game = *s.game->game;
          std::vector<sdk::MatchInfo> matches;
          for (int seat = 0; seat < game.num_seats(); ++seat)
            matches.push_back(MatchOf(s.game, seat));
          bots::HeuristicBot bot;
          Rng rng(seed);
          ActionList legal;
          while (!s.state->IsTerminal()) {
            const int seat = s.state->CurrentSeat();
            s.state->LegalActions(&legal);
            Action a = legal.items[0];
            if (legal.size > 1 && epsilon > 0 && rng.Below(1u << 20) < epsilon * (1u << 20)) {
              a = legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
            } else if (legal.size > 1) {
              const v1::DecisionRequest request =
                  MakeDecisionRequest(s.state->Observe(seat), 0, 0, 0);
              sdk::Situation situation(matches[seat], request);
              absl::StatusOr<Action> parsed = game.ParseAction(bot.Decide(situation));
              if (parsed.ok() && legal.Contains(*parsed)) a = *parsed;
            }
            s.state->Apply(a);
            ++n;
          }
        }
        return n;
      }, py::arg("state"), py::arg("seed"), py::arg("epsilon") = 0.0,
      "Plays the hand to its end in C++ with every seat's decision made by the heuristic bot "
      "from that seat's own observation (with probability epsilon a uniformly random legal "
      "action instead); the GIL is released. Returns how many actions were applied.");
}

}  // namespace tarock::python
