#include "arena/play/play_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tarock::arena::play {
namespace {

using json = nlohmann::json;

template <typename T>
json List(const google::protobuf::RepeatedField<T>& values) {
  json out = json::array();
  for (const T& v : values) out.push_back(v);
  return out;
}
json List(const google::protobuf::RepeatedPtrField<std::string>& values) {
  json out = json::array();
  for (const std::string& v : values) out.push_back(v);
  return out;
}
json Events(const google::protobuf::RepeatedPtrField<v1::Event>& events) {
  json out = json::array();
  for (const v1::Event& e : events) out.push_back({{"seat", e.seat()}, {"action", e.action()}});
  return out;
}

json ObservationJson(const v1::Observation& o) {
  json shown = json::array();
  for (const v1::ShownCards& s : o.shown()) shown.push_back(List(s.cards()));
  return {{"variant", o.variant()},
          {"seat", o.seat()},
          {"num_seats", o.num_seats()},
          {"dealer", o.dealer()},
          {"phase", o.phase()},
          {"to_act", o.to_act()},
          {"hand", List(o.hand())},
          {"history", Events(o.history())},
          {"talon", List(o.talon())},
          {"shown", shown},
          {"declarer", o.declarer()},
          {"contract", o.contract()},
          {"called_king", o.called_king()},
          {"partner", o.partner()},
          {"trick_leader", o.trick_leader()},
          {"trick", List(o.trick())},
          {"tricks_won", List(o.tricks_won())},
          {"radli", List(o.radli())}};
}

}  // namespace

PlaySession::PlaySession(std::string id, std::string match_id, int seat, Clock clock)
    : id_(std::move(id)), match_id_(std::move(match_id)), seat_(seat), clock_(std::move(clock)) {}

void PlaySession::SetHoldUntil(absl::Time until) {
  absl::MutexLock lock(&mu_);
  hold_until_ = until;
}

void PlaySession::OnAttach(std::shared_ptr<RefereeLink> link) {
  absl::MutexLock lock(&mu_);
  if (attaches_++ > 0) {
    // The match starts over (the scheduler retries it on another referee,
    // same id and seed): forget the broken run.
    start_.reset();
    hand_.reset();
    observation_.reset();
    pending_.reset();
    hand_results_.clear();
    result_.reset();
  }
  link_ = std::move(link);
  if (status_ != "failed") status_ = "playing";
  ++version_;
}

void PlaySession::OnDetach(const RefereeLink* link) {
  absl::MutexLock lock(&mu_);
  if (link_.get() != link) return;  // an older stream
  link_.reset();
  pending_.reset();
  ++version_;
}

void PlaySession::OnMessage(const v1::RefereeMessage& m) {
  absl::MutexLock lock(&mu_);
  ++version_;
  switch (m.message_case()) {
    case v1::RefereeMessage::kMatchStart:
      start_ = m.match_start();
      break;
    case v1::RefereeMessage::kHandStart: {
      hand_ = m.hand_start();
      pending_.reset();
      // Before the seat's first decision of the hand it knows its cards.
      v1::Observation o;
      if (start_) {
        o.set_variant(start_->variant());
        o.set_num_seats(start_->num_seats());
      }
      o.set_seat(seat_);
      o.set_dealer(hand_->dealer());
      o.set_to_act(-1);
      o.set_declarer(-1);
      o.set_partner(-1);
      o.set_trick_leader(-1);
      *o.mutable_hand() = hand_->hand();
      *o.mutable_radli() = hand_->radli();
      observation_ = std::move(o);
      break;
    }
    case v1::RefereeMessage::kDecisionRequest: {
      if (pending_) ++missed_;  // the referee played for the seat and moved on
      const v1::DecisionRequest& r = m.decision_request();
      pending_ = Pending{r, clock_() + absl::Milliseconds(r.time_left_ms())};
      observation_ = r.observation();
      break;
    }
    case v1::RefereeMessage::kHandResult: {
      pending_.reset();
      v1::HandResult r = m.hand_result();
      r.clear_record_json();  // every hand revealed: not shown during the match
      hand_results_.push_back(std::move(r));
      break;
    }
    case v1::RefereeMessage::kMatchResult:
      pending_.reset();
      result_ = m.match_result();
      status_ = "done";
      ended_at_ = clock_();
      break;
    default:
      break;
  }
}

absl::Status PlaySession::Act(int64_t request_id, const std::string& action) {
  std::shared_ptr<RefereeLink> link;
  v1::BotMessage out;
  {
    absl::MutexLock lock(&mu_);
    if (!pending_ || pending_->request.request_id() != request_id)
      return absl::FailedPreconditionError(
          "no decision of yours is waiting under that request (already answered, or the "
          "referee played for you)");
    if (clock_() > pending_->deadline)
      return absl::FailedPreconditionError("time is up for this decision");
    if (clock_() >= hold_until_)
      return absl::FailedPreconditionError(
          "this play match has run its time; the referee plays your seat to the end");
    const auto& legal = pending_->request.legal_actions();
    if (std::find(legal.begin(), legal.end(), action) == legal.end())
      return absl::InvalidArgumentError(absl::StrCat("'", action, "' is not a legal action now"));
    if (!link_) return absl::FailedPreconditionError("the referee's stream is gone");
    link = link_;
    out.mutable_decision()->set_request_id(request_id);
    out.mutable_decision()->set_action(action);
    // The seat knows its own action at once; the rest comes with the next request.
    if (observation_) {
      v1::Event* e = observation_->add_history();
      e->set_seat(seat_);
      e->set_action(action);
      const bool play = absl::StartsWith(action, "play ");
      if (play || absl::StartsWith(action, "discard ")) {
        const std::string card = action.substr(action.find(' ') + 1);
        auto* hand = observation_->mutable_hand();
        for (int i = 0; i < hand->size(); ++i) {
          if (hand->Get(i) != card) continue;
          hand->erase(hand->begin() + i);
          break;
        }
        if (play) observation_->add_trick(card);
      }
      observation_->set_to_act(-1);
    }
    pending_.reset();
    ++decisions_;
    ++version_;
  }
  // Outside the lock: the link may write inline.
  if (!link->Send(out)) return absl::FailedPreconditionError("the referee's stream is gone");
  return absl::OkStatus();
}

void PlaySession::Fail(const std::string& error) {
  absl::MutexLock lock(&mu_);
  if (status_ == "done" || status_ == "failed") return;
  status_ = "failed";
  error_ = error;
  pending_.reset();
  ended_at_ = clock_();
  ++version_;
}

void PlaySession::Finish(const v1::MatchResult& result) {
  absl::MutexLock lock(&mu_);
  if (status_ == "done" || status_ == "failed") return;
  status_ = "done";
  result_ = result;
  pending_.reset();
  ended_at_ = clock_();
  ++version_;
}

bool PlaySession::Ended(absl::Time* since) {
  absl::MutexLock lock(&mu_);
  if (since) *since = ended_at_;
  return status_ == "done" || status_ == "failed";
}

json PlaySession::View() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = clock_();
  json v;
  v["match_id"] = match_id_;
  v["seat"] = seat_;
  v["status"] = status_;
  if (hold_until_ != absl::InfiniteFuture())
    v["hold_until"] = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", hold_until_, absl::UTCTimeZone());
  v["error"] = error_;
  v["connected"] = link_ != nullptr;
  v["version"] = version_;
  v["decisions"] = decisions_;
  v["missed"] = missed_;
  if (start_) {
    v["variant"] = start_->variant();
    json options = json::object();
    for (const auto& [k, val] : start_->options()) options[k] = val;
    v["options"] = options;
    v["num_seats"] = start_->num_seats();
    v["num_hands"] = start_->num_hands();
    v["seat_names"] = List(start_->seat_names());
    v["per_decision_ms"] = start_->time_control().per_decision_ms();
  }
  if (hand_) {
    v["hand_index"] = hand_->hand_index();
    v["dealer"] = hand_->dealer();
    v["forced_klop"] = hand_->forced_klop();
  }
  v["observation"] = observation_ ? ObservationJson(*observation_) : json();
  if (pending_) {
    const v1::DecisionRequest& r = pending_->request;
    v["request"] = {{"request_id", r.request_id()},
                    {"hand_index", r.hand_index()},
                    {"legal_actions", List(r.legal_actions())},
                    {"new_events", Events(r.new_events())},
                    {"time_left_ms", std::max<int64_t>(
                                         0, absl::ToInt64Milliseconds(pending_->deadline - now))}};
  } else {
    v["request"] = json();
  }
  json hands = json::array();
  std::vector<int64_t> totals;
  for (const v1::HandResult& h : hand_results_) {
    hands.push_back({{"hand_index", h.hand_index()},
                     {"scores", List(h.scores())},
                     {"radli", List(h.radli())},
                     {"declarer", h.declarer()},
                     {"contract", h.contract()},
                     {"partner", h.partner()},
                     {"redeal", h.redeal()},
                     {"counts_as_hand", h.counts_as_hand()}});
    if (totals.size() < static_cast<size_t>(h.scores_size())) totals.resize(h.scores_size());
    for (int s = 0; s < h.scores_size(); ++s) totals[s] += h.scores(s);
  }
  v["hand_results"] = hands;
  v["totals"] = totals;
  if (result_) {
    // The end-of-match settlement (100 off per radl left in the Slovenian
    // variants): what the final totals add to the hands' sum, so the page
    // shows it as its own row and its Total row is the sum of the rows.
    json settlement = json::array();
    for (int s = 0; s < result_->totals_size(); ++s)
      settlement.push_back(result_->totals(s) -
                           (s < static_cast<int>(totals.size()) ? totals[s] : 0));
    v["settlement"] = settlement;
    v["result"] = {{"totals", List(result_->totals())},
                   {"faults", List(result_->faults())},
                   {"forfeited", result_->forfeited()},
                   {"ended_early", result_->ended_early()}};
  } else {
    v["settlement"] = json();
    v["result"] = json();
  }
  return v;
}

}  // namespace tarock::arena::play
