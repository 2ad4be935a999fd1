#include "tarock/sdk/local_play.h"

#include "absl/strings/str_cat.h"
#include "referee/engine/match.h"
#include "referee/engine/registry.h"
#include "referee/engine/status_macros.h"
#include "referee/protocol/convert.h"

namespace tarock::sdk {

absl::StatusOr<LocalMatchResult> PlayLocalMatch(const std::string& variant,
                                                const Options& options,
                                                std::vector<std::unique_ptr<Bot>> bots,
                                                int num_hands, uint64_t seed, int first_dealer) {
  ASSIGN_OR_RETURN(std::unique_ptr<Game> game, Registry::Global().Create(variant, options));
  const int n = game->num_seats();
  if (static_cast<int>(bots.size()) != n)
    return absl::InvalidArgumentError(absl::StrCat(variant, " needs ", n, " bots, got ", bots.size()));
  MatchOptions mo;
  mo.num_hands = num_hands;
  mo.seed = seed;
  mo.first_dealer = first_dealer;
  ASSIGN_OR_RETURN(MatchProgress progress, MatchProgress::Start(*game, mo));

  std::vector<BotSession> sessions;
  sessions.reserve(n);
  for (auto& b : bots) sessions.emplace_back(std::move(b));
  for (int s = 0; s < n; ++s) {
    v1::RefereeMessage m;
    v1::MatchStart* start = m.mutable_match_start();
    start->set_match_id("local");
    start->set_variant(variant);
    for (const auto& [k, v] : game->options()) (*start->mutable_options())[k] = v;
    start->set_seat(s);
    start->set_num_seats(n);
    start->set_num_hands(num_hands);
    for (int t = 0; t < n; ++t) start->add_seat_names(absl::StrCat("seat", t));
    sessions[s].Handle(m);
  }

  LocalMatchResult out;
  int64_t request_id = 0;
  while (!progress.Finished()) {
    MatchProgress::NextHand next = progress.Next();
    ASSIGN_OR_RETURN(std::unique_ptr<State> state, game->NewHand(next.deal, next.setup));
    for (int s = 0; s < n; ++s) {
      v1::RefereeMessage m;
      v1::HandStart* hs = m.mutable_hand_start();
      hs->set_hand_index(next.hand_index);
      hs->set_dealer(next.setup.dealer);
      for (Card c : next.deal.hands[s]) hs->add_hand(CardName(c));
      for (int r : next.setup.radli) hs->add_radli(r);
      hs->set_forced_klop(next.setup.forced_klop);
      sessions[s].Handle(m);
    }
    std::vector<int> seen(n, 0);
    while (!state->IsTerminal()) {
      const int seat = state->CurrentSeat();
      Observation obs = state->Observe(seat);
      v1::RefereeMessage m;
      *m.mutable_decision_request() =
          MakeDecisionRequest(obs, ++request_id, next.hand_index, seen[seat]);
      seen[seat] = static_cast<int>(obs.history.size());
      std::optional<v1::BotMessage> reply = sessions[seat].Handle(m);
      std::string action = reply ? reply->decision().action() : "";
      absl::Status s = state->ApplyText(action);
      if (!s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "seat ", seat, " answered '", action, "' in hand ", next.hand_index, " (phase ",
            state->PhaseName(), "): ", s.message(), "; record so far: ",
            HandRecordToJson(RecordOf(*game, *state, next.seed))));
      }
      ++out.decisions;
    }
    HandResult result = state->Result();
    out.records.push_back(RecordOf(*game, *state, next.seed));
    out.records.back().scores = result.scores;
    if (!result.redeal || result.counts_as_hand) out.hand_scores.push_back(result.scores);
    for (int s = 0; s < n; ++s) {
      v1::RefereeMessage m;
      v1::HandResult* hr = m.mutable_hand_result();
      hr->set_hand_index(next.hand_index);
      for (int x : result.scores) hr->add_scores(x);
      for (int x : result.radli) hr->add_radli(x);
      hr->set_declarer(result.declarer);
      hr->set_contract(result.contract);
      hr->set_partner(result.partner);
      hr->set_redeal(result.redeal);
      hr->set_counts_as_hand(result.redeal && result.counts_as_hand);
      sessions[s].Handle(m);
    }
    RETURN_IF_ERROR(progress.Record(result));
  }
  out.totals = progress.Totals();
  for (int s = 0; s < n; ++s) {
    v1::RefereeMessage m;
    for (int64_t t : out.totals) m.mutable_match_result()->add_totals(t);
    sessions[s].Handle(m);
  }
  return out;
}

}  // namespace tarock::sdk
