#include "referee/protocol/convert.h"

namespace tarock {
namespace {

void SetEvent(const std::pair<int, std::string>& event, v1::Event* e) {
  e->set_seat(event.first);
  e->set_action(event.second);
}

}  // namespace

v1::Observation ObservationToProto(const Observation& obs) {
  v1::Observation p;
  p.set_variant(obs.variant);
  p.set_seat(obs.seat);
  p.set_num_seats(obs.num_seats);
  p.set_dealer(obs.dealer);
  p.set_phase(obs.phase);
  p.set_to_act(obs.to_act);
  for (Card c : obs.hand) p.add_hand(CardName(c));
  for (const auto& event : obs.history) SetEvent(event, p.add_history());
  for (const std::string& t : obs.talon) p.add_talon(t);
  for (CardSet s : obs.shown) {
    v1::ShownCards* shown = p.add_shown();
    for (Card c : s) shown->add_cards(CardName(c));
  }
  p.set_declarer(obs.declarer);
  p.set_contract(obs.contract);
  p.set_called_king(obs.called_king);
  p.set_partner(obs.partner);
  p.set_trick_leader(obs.trick_leader);
  for (Card c : obs.trick) p.add_trick(CardName(c));
  for (int t : obs.tricks_won) p.add_tricks_won(t);
  for (int r : obs.radli) p.add_radli(r);
  return p;
}

v1::DecisionRequest MakeDecisionRequest(const Observation& obs, int64_t request_id,
                                        int hand_index, int events_seen) {
  v1::DecisionRequest r;
  r.set_request_id(request_id);
  r.set_hand_index(hand_index);
  *r.mutable_observation() = ObservationToProto(obs);
  for (const std::string& a : obs.legal) r.add_legal_actions(a);
  for (size_t i = static_cast<size_t>(events_seen < 0 ? 0 : events_seen); i < obs.history.size(); ++i)
    SetEvent(obs.history[i], r.add_new_events());
  return r;
}

}  // namespace tarock
