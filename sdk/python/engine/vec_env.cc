#include "sdk/python/engine/vec_env.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bots/search/search_bot.h"
#include "bots/strength/bot_factory.h"
#include "referee/engine/registry.h"
#include "referee/engine/status_macros.h"
#include "referee/protocol/convert.h"

namespace tarock::python {

absl::StatusOr<std::unique_ptr<VecEnv>> VecEnv::Create(const VecEnvOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<Game> game,
                   Registry::Global().Create(options.variant, options.options));
  const int seats = game->num_seats();
  if (options.num_envs < 1 || options.num_envs > (1 << 20))
    return absl::InvalidArgumentError(
        absl::StrCat("num_envs must be in [1, 1048576], not ", options.num_envs));
  if (options.duplicate && options.num_envs % seats != 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "duplicate needs num_envs to be a multiple of the ", seats, " seats, not ",
        options.num_envs));
  if (options.hands_per_match < 0 || options.hands_per_match % seats != 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "hands_per_match must be 0 or a positive multiple of the ", seats, " seats, not ",
        options.hands_per_match));
  if (!options.seat_bots.empty() && static_cast<int>(options.seat_bots.size()) != seats)
    return absl::InvalidArgumentError(absl::StrCat(options.variant, " has ", seats,
                                                   " seats; seat_bots names ",
                                                   options.seat_bots.size()));
  bool agent = options.seat_bots.empty();
  for (const std::string& b : options.seat_bots) {
    if (b.empty()) {
      agent = true;
      continue;
    }
    RETURN_IF_ERROR(bots::MakeBot(b, 0).status());
  }
  if (!agent)
    return absl::InvalidArgumentError("seat_bots leaves no agent seat (\"\") for the caller");
  std::unique_ptr<VecEnv> env(new VecEnv(options, std::move(game)));
  RETURN_IF_ERROR(env->Reset());
  return env;
}

VecEnv::VecEnv(const VecEnvOptions& options, std::unique_ptr<Game> game)
    : options_(options),
      game_(std::move(game)),
      encoder_(*game_),
      n_(options.num_envs),
      seats_(game_->num_seats()),
      a_(encoder_.space().size()) {
  if (options_.seat_bots.empty()) options_.seat_bots.assign(seats_, "");
  if (options_.hands_per_match == 0) options_.hands_per_match = seats_;
  options_.options = game_->options();
  if (options_.observation_tensor) obs_.assign(size_t(n_) * encoder_.observation_size(), 0);
  if (options_.info_state) info_.assign(size_t(n_) * encoder_.info_state_size(), 0);
  mask_.assign(size_t(n_) * a_, 0);
  legal_.assign(size_t(n_) * kMaxLegal, -1);
  num_legal_.assign(n_, 0);
  seat_.assign(n_, -1);
  phase_.assign(n_, 0);
  hand_index_.assign(n_, 0);
  match_seed_.assign(n_, 0);
  reward_.assign(size_t(n_) * seats_, 0);
  dup_reward_.assign(size_t(n_) * seats_, 0);
  hand_done_.assign(n_, 0);
  match_done_.assign(n_, 0);
  dup_done_.assign(n_, 0);
  tables_.resize(n_);
  const int groups = options_.duplicate ? n_ / seats_ : n_;
  dup_.assign(options_.duplicate ? groups : 0, {});
  for (int i = 0; i < n_; ++i) {
    Table& t = tables_[i];
    t.rotation = options_.duplicate ? i % seats_ : 0;
    t.first_seed = options_.seed + static_cast<uint64_t>(options_.duplicate ? i / seats_ : i);
    t.seed_stride = static_cast<uint64_t>(groups);
    t.controller.resize(seats_);
    for (int p = 0; p < seats_; ++p)
      t.controller[p] = options_.seat_bots[((p - t.rotation) % seats_ + seats_) % seats_];
  }
}

const std::string& VecEnv::Controller(int i, int seat) const { return tables_[i].controller[seat]; }

absl::Status VecEnv::Reset() {
  for (auto& d : dup_) d.clear();
  std::fill(reward_.begin(), reward_.end(), 0.0f);
  std::fill(dup_reward_.begin(), dup_reward_.end(), 0.0f);
  std::fill(hand_done_.begin(), hand_done_.end(), 0);
  std::fill(match_done_.begin(), match_done_.end(), 0);
  std::fill(dup_done_.begin(), dup_done_.end(), 0);
  for (int i = 0; i < n_; ++i) {
    tables_[i].matches = 0;
    RETURN_IF_ERROR(StartMatch(i));
    RETURN_IF_ERROR(Advance(i));
    Fill(i);
  }
  return absl::OkStatus();
}

absl::Status VecEnv::StartMatch(int i) {
  Table& t = tables_[i];
  t.seed = t.first_seed + t.seed_stride * static_cast<uint64_t>(t.matches);
  ++t.matches;
  MatchOptions mo;
  mo.num_hands = options_.hands_per_match;
  mo.seed = t.seed;
  mo.salt = options_.salt;
  mo.first_dealer = options_.first_dealer;
  ASSIGN_OR_RETURN(MatchProgress progress, MatchProgress::Start(*game_, mo));
  t.progress.emplace(std::move(progress));
  t.bots.clear();
  t.bots.resize(seats_);
  for (int p = 0; p < seats_; ++p) {
    if (t.controller[p].empty()) continue;
    // Each bot its own seed, as the random bot process seeds per match.
    ASSIGN_OR_RETURN(std::unique_ptr<sdk::Bot> bot,
                     bots::MakeBot(t.controller[p], t.seed * 31 + static_cast<uint64_t>(p)));
    t.bots[p] = std::make_unique<sdk::BotSession>(std::move(bot));
    v1::RefereeMessage m;
    v1::MatchStart* start = m.mutable_match_start();
    start->set_match_id(absl::StrCat("vecenv-", i, "-", t.seed));
    start->set_variant(options_.variant);
    for (const auto& [k, v] : game_->options()) (*start->mutable_options())[k] = v;
    start->set_seat(p);
    start->set_num_seats(seats_);
    start->set_num_hands(options_.hands_per_match);
    for (int s = 0; s < seats_; ++s)
      start->add_seat_names(t.controller[s].empty() ? std::string("agent") : t.controller[s]);
    t.bots[p]->Handle(m);
  }
  match_seed_[i] = t.seed;
  return StartHand(i);
}

absl::Status VecEnv::StartHand(int i) {
  Table& t = tables_[i];
  t.next = t.progress->Next();
  ASSIGN_OR_RETURN(t.state, game_->NewHand(t.next.deal, t.next.setup));
  t.seen.assign(seats_, 0);
  for (int p = 0; p < seats_; ++p) {
    if (!t.bots[p]) continue;
    v1::RefereeMessage m;
    v1::HandStart* hs = m.mutable_hand_start();
    hs->set_hand_index(t.next.hand_index);
    hs->set_dealer(t.next.setup.dealer);
    if (p < static_cast<int>(t.next.deal.hands.size()))
      for (Card c : t.next.deal.hands[p]) hs->add_hand(CardName(c));
    for (int r : t.next.setup.radli) hs->add_radli(r);
    hs->set_forced_klop(t.next.setup.forced_klop);
    t.bots[p]->Handle(m);
  }
  hand_index_[i] = t.next.hand_index;
  return absl::OkStatus();
}

void VecEnv::BookDuplicate(int i, const HandResult& result) {
  const Table& t = tables_[i];
  const int g = i / seats_;
  DupEntry& e = dup_[g][{t.matches, t.next.hand_index}];
  if (e.scores.empty()) e.scores.resize(seats_);
  e.scores[t.rotation] = result.scores;
  if (++e.count < seats_) return;
  for (int p = 0; p < seats_; ++p) {
    double mean = 0;
    for (int r = 0; r < seats_; ++r)
      mean += p < static_cast<int>(e.scores[r].size()) ? e.scores[r][p] : 0;
    mean /= seats_;
    for (int r = 0; r < seats_; ++r) {
      const int table = g * seats_ + r;
      const double own = p < static_cast<int>(e.scores[r].size()) ? e.scores[r][p] : 0;
      dup_reward_[size_t(table) * seats_ + p] += static_cast<float>(own - mean);
      dup_done_[table] = 1;
    }
  }
  dup_[g].erase({t.matches, t.next.hand_index});
}

absl::Status VecEnv::Advance(int i) {
  Table& t = tables_[i];
  while (true) {
    if (t.state->IsTerminal()) {
      const HandResult result = t.state->Result();
      for (int p = 0; p < seats_ && p < static_cast<int>(result.scores.size()); ++p)
        reward_[size_t(i) * seats_ + p] += static_cast<float>(result.scores[p]);
      hand_done_[i] = 1;
      if (options_.duplicate && (!result.redeal || result.counts_as_hand))
        BookDuplicate(i, result);
      for (int p = 0; p < seats_; ++p) {
        if (!t.bots[p]) continue;
        v1::RefereeMessage m;
        v1::HandResult* hr = m.mutable_hand_result();
        hr->set_hand_index(t.next.hand_index);
        for (int x : result.scores) hr->add_scores(x);
        for (int x : result.radli) hr->add_radli(x);
        hr->set_declarer(result.declarer);
        hr->set_contract(result.contract);
        hr->set_partner(result.partner);
        hr->set_redeal(result.redeal);
        hr->set_counts_as_hand(result.redeal && result.counts_as_hand);
        t.bots[p]->Handle(m);
      }
      RETURN_IF_ERROR(t.progress->Record(result));
      if (t.progress->Finished()) {
        for (int p = 0; p < seats_; ++p) {
          if (!t.bots[p]) continue;
          v1::RefereeMessage m;
          for (int64_t x : t.progress->Totals()) m.mutable_match_result()->add_totals(x);
          t.bots[p]->Handle(m);
        }
        match_done_[i] = 1;
        RETURN_IF_ERROR(StartMatch(i));
      } else {
        RETURN_IF_ERROR(StartHand(i));
      }
      continue;
    }
    const int seat = t.state->CurrentSeat();
    if (!t.bots[seat]) return absl::OkStatus();
    const Observation obs = t.state->Observe(seat);
    v1::RefereeMessage m;
    *m.mutable_decision_request() =
        MakeDecisionRequest(obs, ++t.request_id, t.next.hand_index, t.seen[seat]);
    t.seen[seat] = static_cast<int>(obs.history.size());
    std::optional<v1::BotMessage> reply = t.bots[seat]->Handle(m);
    const std::string action = reply ? reply->decision().action() : "";
    absl::Status s = t.state->ApplyText(action);
    if (!s.ok())
      return absl::InternalError(absl::StrCat("table ", i, ": the bundled bot '",
                                              t.controller[seat], "' at seat ", seat,
                                              " answered '", action, "': ", s.message()));
    ++bot_decisions_;
  }
}

void VecEnv::Fill(int i) {
  Table& t = tables_[i];
  const int seat = t.state->CurrentSeat();
  seat_[i] = seat;
  phase_[i] = PhaseId(t.state->PhaseName());
  ActionList legal;
  t.state->LegalActions(&legal);
  space().Mask(legal, &mask_[size_t(i) * a_]);
  int16_t* l = &legal_[size_t(i) * kMaxLegal];
  int k = 0;
  for (Action a : legal) l[k++] = static_cast<int16_t>(space().Index(a));
  std::memset(l + k, 0xFF, sizeof(int16_t) * (kMaxLegal - k));  // -1
  num_legal_[i] = k;
  if (options_.observation_tensor || options_.info_state) {
    // The compact observation (no texts built or parsed), the same bytes;
    // a variant without it (a plugin) is observed in full.
    Observation& obs = scratch_;
    if (!t.state->ObserveCompact(seat, &obs)) obs = t.state->Observe(seat);
    if (options_.info_state) {
      float* out = &info_[size_t(i) * encoder_.info_state_size()];
      absl::Status s = encoder_.EncodeInfoState(obs, out);
      if (!s.ok()) std::memset(out, 0, sizeof(float) * encoder_.info_state_size());
      if (options_.observation_tensor)
        std::memcpy(&obs_[size_t(i) * encoder_.observation_size()], out,
                    sizeof(float) * encoder_.observation_size());
    } else {
      encoder_.EncodeObservation(obs, &obs_[size_t(i) * encoder_.observation_size()]);
    }
  }
}

absl::Status VecEnv::Step(const int32_t* actions) {
  for (int i = 0; i < n_; ++i) {
    const int32_t a = actions[i];
    if (a < 0 || a >= a_ || !mask_[size_t(i) * a_ + a]) {
      std::vector<std::string> legal;
      for (int j = 0; j < num_legal_[i]; ++j)
        legal.push_back(absl::StrCat(legal_[size_t(i) * kMaxLegal + j], " (",
                                     space().Text(legal_[size_t(i) * kMaxLegal + j]), ")"));
      return absl::InvalidArgumentError(absl::StrCat(
          "table ", i, ": action ", a,
          a >= 0 && a < a_ ? absl::StrCat(" (", space().Text(a), ")") : std::string(""),
          " is not legal for seat ", seat_[i], "; legal: ", absl::StrJoin(legal, ", ")));
    }
  }
  std::fill(reward_.begin(), reward_.end(), 0.0f);
  std::fill(dup_reward_.begin(), dup_reward_.end(), 0.0f);
  std::memset(hand_done_.data(), 0, hand_done_.size());
  std::memset(match_done_.data(), 0, match_done_.size());
  std::memset(dup_done_.data(), 0, dup_done_.size());
  for (int i = 0; i < n_; ++i) {
    tables_[i].state->Apply(space().ActionAt(actions[i]));
    ++agent_decisions_;
    RETURN_IF_ERROR(Advance(i));
    Fill(i);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::unique_ptr<sdk::Bot>>*> VecEnv::Teachers(const std::string& bot) {
  auto it = teachers_.find(bot);
  if (it == teachers_.end()) {
    std::vector<std::unique_ptr<sdk::Bot>> bots;
    for (int i = 0; i < n_; ++i) {
      ASSIGN_OR_RETURN(std::unique_ptr<sdk::Bot> b,
                       bots::MakeBot(bot, options_.seed * 977 + static_cast<uint64_t>(i)));
      bots.push_back(std::move(b));
    }
    it = teachers_.emplace(bot, std::move(bots)).first;
  }
  if (!teacher_game_) {
    ASSIGN_OR_RETURN(std::unique_ptr<Game> g,
                     Registry::Global().Create(options_.variant, game_->options()));
    teacher_game_ = std::shared_ptr<const Game>(std::move(g));
  }
  return &it->second;
}

sdk::MatchInfo VecEnv::TeacherMatch() const {
  sdk::MatchInfo info;
  info.match_id = "vecenv-teacher";
  info.variant = options_.variant;
  info.options = game_->options();
  info.num_seats = seats_;
  info.num_hands = options_.hands_per_match;
  info.game = teacher_game_;
  for (int s = 0; s < seats_; ++s) info.seat_names.push_back(absl::StrCat("seat", s));
  return info;
}

absl::Status VecEnv::TeacherActions(const std::string& bot, int32_t* out) {
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<sdk::Bot>>* teachers, Teachers(bot));
  sdk::MatchInfo info = TeacherMatch();
  for (int i = 0; i < n_; ++i) {
    const Table& t = tables_[i];
    const Observation obs = t.state->Observe(t.state->CurrentSeat());
    info.seat = obs.seat;
    const v1::DecisionRequest request = MakeDecisionRequest(obs, 1, t.next.hand_index, 0);
    std::string action;
    try {
      action = (*teachers)[i]->Decide(sdk::Situation(info, request));
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("teacher '", bot, "' threw: ", e.what()));
    }
    absl::StatusOr<int> index = space().Parse(action);
    if (!index.ok() || !mask_[size_t(i) * a_ + *index])
      return absl::InternalError(
          absl::StrCat("teacher '", bot, "' answered '", action, "' at table ", i));
    out[i] = *index;
  }
  return absl::OkStatus();
}

absl::Status VecEnv::TeacherValues(const std::string& bot, float* out) {
  if (bot != "search")
    return absl::InvalidArgumentError(
        absl::StrCat("teacher values: only the search bot values actions, not '", bot, "'"));
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<sdk::Bot>>* teachers, Teachers(bot));
  sdk::MatchInfo info = TeacherMatch();
  std::fill(out, out + size_t(n_) * a_, std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i < n_; ++i) {
    const Table& t = tables_[i];
    const std::string phase = t.state->PhaseName();
    if (phase != "play" && phase != "talon" && phase != "discard") continue;
    auto* search = dynamic_cast<bots::SearchBot*>((*teachers)[i].get());
    if (search == nullptr) return absl::InternalError("teacher 'search' is not the search bot");
    const Observation obs = t.state->Observe(t.state->CurrentSeat());
    info.seat = obs.seat;
    const v1::DecisionRequest request = MakeDecisionRequest(obs, 1, t.next.hand_index, 0);
    absl::StatusOr<bots::SearchResult> r;
    try {
      r = search->Search(sdk::Situation(info, request));
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat("teacher '", bot, "' threw: ", e.what()));
    }
    if (!r.ok()) continue;  // no consistent sample: no values for this table
    for (size_t k = 0; k < r->actions.size(); ++k) {
      absl::StatusOr<int> index = space().Parse(r->actions[k]);
      if (!index.ok() || !mask_[size_t(i) * a_ + *index])
        return absl::InternalError(absl::StrCat("teacher '", bot, "' valued '", r->actions[k],
                                                "' at table ", i));
      out[size_t(i) * a_ + *index] = static_cast<float>(r->mean[k]);
    }
  }
  return absl::OkStatus();
}

Observation VecEnv::ObserveCurrent(int i) const {
  const Table& t = tables_[i];
  return t.state->Observe(std::max(0, t.state->CurrentSeat()));
}

std::unique_ptr<State> VecEnv::CloneState(int i) const { return tables_[i].state->Clone(); }

}  // namespace tarock::python
