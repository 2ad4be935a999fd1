// The determinizer of the Austrian variants and westfest (see
// determinize_replay.h); moved here from the search bot (issue 16), which now
// samples through tarock::sdk::Determinizer only.
//
// Thread-safety: a ReplayDeterminizer is immutable after Create(); sampling
// only reads it.

#include "sdk/cpp/determinize_replay.h"

#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/protocol/convert.h"

namespace tarock::sdk {
namespace {

using austrian::AustrianGame;
using austrian::AustrianState;
using czech::WestfestGame;
using czech::WestfestState;

std::vector<Card> CardsOf(CardSet set) {
  std::vector<Card> out;
  for (Card c : set) out.push_back(c);
  return out;
}

}  // namespace

bool ReplayDeterminizer::Knows(const Game& game) {
  return dynamic_cast<const AustrianGame*>(&game) != nullptr ||
         dynamic_cast<const WestfestGame*>(&game) != nullptr;
}

absl::StatusOr<ReplayDeterminizer> ReplayDeterminizer::Create(const Game& game, const v1::Observation& obs) {
  ReplayDeterminizer r;
  r.game_ = &game;
  r.austrian_ = dynamic_cast<const AustrianGame*>(&game);
  r.westfest_ = dynamic_cast<const WestfestGame*>(&game);
  if (r.austrian_ == nullptr && r.westfest_ == nullptr)
    return absl::UnimplementedError("the replay determinizer knows the Austrian variants and westfest");
  // Before the announcements the hands are not yet the play's (the talon
  // exchange is under way), and the counts below assume they are.
  if (obs.phase() != "play" && obs.phase() != "announce")
    return absl::UnimplementedError(absl::StrCat("determinization of ", game.info().name,
                                                 " starts at the announcements, not in phase ", obs.phase()));
  r.n_ = game.num_seats();
  r.me_ = obs.seat();
  r.dealer_ = obs.dealer();
  r.to_act_ = obs.to_act();
  r.setup_.dealer = r.dealer_;
  if (r.n_ > kMax || r.me_ < 0 || r.me_ >= r.n_ || r.dealer_ < 0 || r.dealer_ >= r.n_)
    return absl::InvalidArgumentError("bad seats");
  const int hand_size = game.info().hand_size;
  const int declarer = obs.declarer();
  r.my_hand_ = CardSet();
  for (const std::string& name : obs.hand()) {
    absl::StatusOr<Card> c = ParseCard(name);
    if (!c.ok()) return c.status();
    r.my_hand_.Add(*c);
  }
  for (int i = 0; i < 6; ++i) {
    r.talon_[i] = kNoCard;
    r.drawer_[i] = -1;
    if (i < obs.talon_size())
      if (absl::StatusOr<Card> c = ParseCard(obs.talon(i)); c.ok()) r.talon_[i] = *c;
  }
  // The history: actions, plays, discards, who drew which talon cards.
  std::array<int, kMax> plays{};
  CardSet played, shown;
  std::vector<std::pair<int, Card>> play_seq;
  int contract = -1;  // the last bid (Austrian: the contract, for its talon groups)
  bool prever = false;
  // westfest, povinnost: the povinnost's discards so far; the draw stage (1:
  // the seat after it draws, 2: the next, 3: done).
  int pov_discards = 0;
  int draw_stage = 0;
  uint8_t prever_set = 0x07;
  for (const v1::Event& e : obs.history()) {
    const int seat = e.seat();
    if (seat < 0 || seat >= r.n_) return absl::InvalidArgumentError("bad seat in the history");
    if (e.action() == "discard ?") {
      r.actions_.emplace_back(seat, kHidden);
      ++r.hidden_count_[seat];
      if (r.westfest_ != nullptr && contract < 0 && seat == (r.dealer_ + 1) % r.n_ &&
          ++pov_discards == 4)
        draw_stage = 1;
      continue;
    }
    absl::StatusOr<Action> a = game.ParseAction(e.action());
    if (!a.ok()) return a.status();
    r.actions_.emplace_back(seat, *a);
    const Verb v = VerbOf(*a);
    const int arg = ArgOf(*a);
    if (v == Verb::kPlay) {
      const Card c = static_cast<Card>(arg);
      played.Add(c);
      r.played_[seat].Add(c);
      r.holdings_known_[seat].Add(c);
      ++plays[seat];
      play_seq.emplace_back(seat, c);
    } else if (v == Verb::kDiscard) {
      const Card c = static_cast<Card>(arg);
      shown.Add(c);
      r.holdings_known_[seat].Add(c);
      if (r.westfest_ != nullptr && contract < 0 && seat == (r.dealer_ + 1) % r.n_ &&
          ++pov_discards == 4)
        draw_stage = 1;
    } else if (v == Verb::kAnnounce) {
      // Announcements that only a holding allows (the engine checks them).
      const std::string& name = e.action();
      constexpr CardSet kFive = kKingSet | kTrulaSet;
      if (name == "announce pagat-ultimo" || name == "announce pagat") r.must_hold_[seat].Add(kPagat);
      if (r.westfest_ != nullptr) {
        if (name == "announce tarocky") r.counts_.push_back({seat, kTarockSet, 8, 12});
        if (name == "announce taroky") r.counts_.push_back({seat, kTarockSet, 10, 12});
        if (name == "announce bida") r.counts_.push_back({seat, kTarockSet, 1, 2});
        if (name == "announce trul" || name == "announce trul-honery") r.must_hold_[seat] |= kTrulaSet;
        if (name == "announce trul-honery") r.counts_.push_back({seat, kKingSet, 1, 4});
        if (name == "announce honery") r.counts_.push_back({seat, kFive, 4, 7});
        if (name == "announce kralovske-honery" || name == "announce kralovske-honery-plus")
          r.must_hold_[seat] |= kKingSet;
        if (name == "announce kralovske-honery-plus") r.counts_.push_back({seat, kTrulaSet, 1, 3});
      }
    } else if (v == Verb::kPass && draw_stage > 0 && draw_stage < 3 &&
               seat == (r.dealer_ + 1 + draw_stage) % r.n_) {
      // westfest: passing the draw keeps uni or bida, at most two tarocks.
      r.counts_.push_back({seat, kTarockSet, 0, 2});
      ++draw_stage;
    } else if (v == Verb::kBid) {
      contract = arg;
      if (r.westfest_ != nullptr && arg == czech::kPrever) prever = true;
    } else if (v == Verb::kTalon) {
      if (r.austrian_ != nullptr) {
        if (contract >= 0 && contract < static_cast<int>(r.austrian_->rules().contracts.size())) {
          const auto& groups = r.austrian_->rules().contracts[contract].groups;
          if (arg < static_cast<int>(groups.size()))
            for (int i = 0; i < 6; ++i)
              if ((groups[arg] >> i) & 1) r.drawer_[i] = seat;
        }
      } else if (prever) {
        prever_set = arg == 1 ? 0x38 : 0x07;  // the second set, or back to the first
      } else if (arg == 1 || arg == 2) {
        r.drawer_[3 + arg] = seat;  // westfest draws: talon card 5 or 6
        draw_stage = arg + 1;
      }
    }
  }
  if (r.austrian_ != nullptr) {
    // Bottom 3 / Top 3 (002): one unexposed group, taken without an action.
    const int c = obs.contract().empty() ? -1 : [&] {
      for (size_t i = 0; i < r.austrian_->rules().contracts.size(); ++i)
        if (r.austrian_->rules().contracts[i].name == obs.contract()) return static_cast<int>(i);
      return -1;
    }();
    if (c >= 0 && declarer >= 0) {
      const auto& rule = r.austrian_->rules().contracts[c];
      if (rule.take > 0 && !rule.exposed && rule.groups.size() == 1)
        for (int i = 0; i < 6; ++i)
          if ((rule.groups[0] >> i) & 1) r.drawer_[i] = declarer;
    }
  } else {
    if (declarer < 0) return absl::InvalidArgumentError("no declarer in play");
    if (prever) {
      for (int i = 0; i < 6; ++i)
        if ((prever_set >> i) & 1) r.drawer_[i] = declarer;
    } else {
      for (int i = 0; i < 4; ++i) r.drawer_[i] = declarer;
    }
    r.povinnost_ = (r.dealer_ + 1) % r.n_;
    // The called tarock: the highest of XIX..XV the povinnost was not dealt.
    if (!prever && obs.contract() == "povinnost") {
      r.has_call_ = true;
      int k = 14;
      if (!obs.called_king().empty()) {
        absl::StatusOr<Card> c = ParseCard(obs.called_king());
        if (!c.ok()) return c.status();
        r.called_ = *c;
        k = RankOf(*c) + 1;
      }
      for (int j = k + 1; j <= 19; ++j) r.must_pov_.Add(Tarock(j));
    }
    // Where the cut puts each deck position: replay the deal actions on a pack
    // in index order.
    tarock::Deal probe;
    probe.hands.assign(r.n_, CardSet());
    for (int c = 0; c < kNumCards; ++c) probe.deck.push_back(static_cast<Card>(c));
    probe.talon.assign(probe.deck.begin(), probe.deck.begin() + 6);
    HandSetup setup;
    setup.dealer = r.dealer_;
    absl::StatusOr<WestfestState> st = r.westfest_->NewWestfestHand(probe, setup);
    if (!st.ok()) return st.status();
    for (const auto& [seat, a] : r.actions_) {
      if (st->phase() != czech::Phase::kCut && st->phase() != czech::Phase::kStacks) break;
      absl::Status s = st->ApplyChecked(a);
      if (!s.ok()) return s;
    }
    if (st->phase() == czech::Phase::kCut || st->phase() == czech::Phase::kStacks)
      return absl::InvalidArgumentError("the deal is not done");
    r.position_seat_.fill(-1);
    for (int s = 0; s < r.n_; ++s)
      for (Card c : st->hand(s)) {
        r.position_seat_[c] = s;  // card c sat at deck position c
        r.positions_[s].push_back(c);
      }
  }
  // My own holdings are all known: my hand, plays and discards (mine are
  // named in my history).
  r.holdings_known_[r.me_] |= r.my_hand_;
  for (int i = 0; i < 6; ++i)
    if (r.drawer_[i] == r.me_ && r.talon_[i] == kNoCard)
      return absl::InvalidArgumentError("a talon card I took is not shown to me");
  // Talon cards I saw that another seat took are among its holdings.
  for (int i = 0; i < 6; ++i)
    if (r.talon_[i] != kNoCard && r.drawer_[i] >= 0) r.holdings_known_[r.drawer_[i]].Add(r.talon_[i]);
  // Voids from the play.
  for (size_t i = 0; i < play_seq.size(); ++i) {
    const size_t lead = i - i % r.n_;
    if (lead == i) continue;
    const Suit led = SuitOf(play_seq[lead].second);
    const auto [seat, c] = play_seq[i];
    if (SuitOf(c) != led) {
      r.excluded_[seat] |= SuitSet(led);
      if (!IsTarock(c)) r.excluded_[seat] |= kTarockSet;
    }
  }
  // Counts.
  for (int s = 0; s < r.n_; ++s) r.hand_count_[s] = hand_size - plays[s];
  if (r.hand_count_[r.me_] != r.my_hand_.size())
    return absl::InvalidArgumentError("my hand size does not add up");
  // The cards to deal and where each may go.
  CardSet placed = r.holdings_known_[r.me_] | played | shown;
  for (int i = 0; i < 6; ++i)
    if (r.talon_[i] != kNoCard && r.drawer_[i] < 0) placed.Add(r.talon_[i]);  // seen, left in the talon
  // Seen talon cards another seat took, not played or shown: in its hand or
  // face-down discards; they are dealt with the unknown cards.
  r.unknown_ = kAllCards - placed;
  r.capacity_.fill(0);
  for (int s = 0; s < r.n_; ++s) {
    if (s == r.me_) continue;
    CardSet seen_taken;
    for (int i = 0; i < 6; ++i)
      if (r.drawer_[i] == s && r.talon_[i] != kNoCard) seen_taken.Add(r.talon_[i]);
    seen_taken -= played | shown;
    r.capacity_[s] = r.hand_count_[s];
    r.capacity_[kMax + s] = r.hidden_count_[s];
    r.allowed_[s] = r.unknown_ - r.excluded_[s];
    // Face down are only suit cards that are not kings (tarocks are laid away
    // face up, kings and the trula never).
    r.allowed_[kMax + s] = r.unknown_ - kTarockSet - kKingSet;
    // Cards known to be this seat's go nowhere else.
    for (int q = 0; q < kNumPlaces; ++q)
      if (q != s && q != kMax + s) r.allowed_[q] -= seen_taken;
  }
  int rest = 0;
  for (int i = 0; i < 6; ++i)
    if (r.talon_[i] == kNoCard && r.drawer_[i] < 0) ++rest;
  r.capacity_[kRest] = rest;
  r.allowed_[kRest] = r.unknown_;
  for (int s = 0; s < r.n_; ++s)
    if (s != r.me_) r.allowed_[kRest] -= r.holdings_known_[s];
  // Westfest: the tarocks the call shows the povinnost was dealt are in its
  // hand now (tarocks are never laid away face down), unless already seen.
  if (r.has_call_ && r.povinnost_ != r.me_) {
    r.must_hold_[r.povinnost_] |= r.must_pov_;
  }
  // Cards an announcement shows in a hand go there only.
  for (int s = 0; s < r.n_; ++s) {
    if (s == r.me_) continue;
    const CardSet must = r.must_hold_[s] & r.unknown_;
    for (int q = 0; q < kNumPlaces; ++q)
      if (q != s) r.allowed_[q] -= must;
  }
  int total = 0;
  for (int q = 0; q < kNumPlaces; ++q) total += r.capacity_[q];
  if (total != r.unknown_.size())
    return absl::InvalidArgumentError(
        absl::StrCat("the unseen cards (", r.unknown_.size(), ") do not fill the unseen places (", total, ")"));
  return r;
}


bool ReplayDeterminizer::DealPlaces(Rng& rng, std::array<CardSet, kNumPlaces>* out) const {
  out->fill(CardSet());
  std::array<int, kNumPlaces> room = capacity_;
  // The cards of a hand as far as known now (plays, what it must hold, what
  // has been dealt to it) among `cards`.
  auto have = [&](int s, CardSet cards) {
    return ((played_[s] | must_hold_[s] | (*out)[s]) & cards).size();
  };
  // Announced counts first: deal each hand the cards it is short of.
  CardSet assigned;
  for (const Count& k : counts_) {
    if (k.seat == me_) continue;
    int need = k.min - have(k.seat, k.cards);
    CardSet candidates = (unknown_ & k.cards & allowed_[k.seat]) - assigned - must_hold_[k.seat];
    while (need > 0) {
      if (candidates.empty() || room[k.seat] == 0) return false;
      int pick = static_cast<int>(rng.Below(static_cast<uint32_t>(candidates.size())));
      Card chosen = candidates.First();
      for (Card c : candidates)
        if (pick-- == 0) {
          chosen = c;
          break;
        }
      (*out)[k.seat].Add(chosen);
      assigned.Add(chosen);
      candidates.Remove(chosen);
      --room[k.seat];
      --need;
    }
  }
  // Whether a hand may take one more card `c` under the announced maxima.
  auto fits = [&](int q, Card c) {
    if (q >= kMax || must_hold_[q].Contains(c)) return true;
    for (const Count& k : counts_)
      if (k.seat == q && k.cards.Contains(c) && have(q, k.cards) >= k.max) return false;
    return true;
  };
  // Most constrained cards first.
  std::array<std::vector<Card>, kNumPlaces + 1> by_count;
  for (Card c : unknown_ - assigned) {
    int k = 0;
    for (int q = 0; q < kNumPlaces; ++q) k += allowed_[q].Contains(c) && capacity_[q] > 0;
    by_count[k].push_back(c);
  }
  for (auto& bucket : by_count) {
    for (size_t i = bucket.size(); i > 1; --i) std::swap(bucket[i - 1], bucket[rng.Below(static_cast<uint32_t>(i))]);
    for (Card c : bucket) {
      int sum = 0;
      for (int q = 0; q < kNumPlaces; ++q)
        if (allowed_[q].Contains(c) && fits(q, c)) sum += room[q];
      if (sum == 0) return false;
      int pick = static_cast<int>(rng.Below(static_cast<uint32_t>(sum)));
      for (int q = 0; q < kNumPlaces; ++q) {
        if (!allowed_[q].Contains(c) || !fits(q, c)) continue;
        if (pick < room[q]) {
          (*out)[q].Add(c);
          --room[q];
          break;
        }
        pick -= room[q];
      }
    }
  }
  return true;
}

bool ReplayDeterminizer::BuildDeal(Rng& rng, tarock::Deal* deal,
                              std::array<std::vector<Card>, kMax>* hidden) const {
  std::array<CardSet, kNumPlaces> places;
  if (!DealPlaces(rng, &places)) return false;
  std::array<CardSet, kMax> holdings = holdings_known_;
  for (int s = 0; s < n_; ++s) {
    if (s == me_) continue;
    holdings[s] |= places[s] | places[kMax + s];
    (*hidden)[s] = CardsOf(places[kMax + s]);
    std::vector<Card>& h = (*hidden)[s];
    for (size_t i = h.size(); i > 1; --i) std::swap(h[i - 1], h[rng.Below(static_cast<uint32_t>(i))]);
  }
  // The talon: seen cards, cards nobody took, and for each card another seat
  // took unseen, one of that seat's cards (not one it must have been dealt).
  std::array<Card, 6> talon = talon_;
  std::vector<Card> rest = CardsOf(places[kRest]);
  for (size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[rng.Below(static_cast<uint32_t>(i))]);
  size_t next_rest = 0;
  std::array<CardSet, kMax> drawn{};
  for (int i = 0; i < 6; ++i) {
    const int s = drawer_[i];
    if (talon[i] == kNoCard) {
      if (s < 0) {
        if (next_rest >= rest.size()) return false;
        talon[i] = rest[next_rest++];
      } else {
        CardSet choice = holdings[s] - drawn[s];
        for (int j = 0; j < 6; ++j)
          if (talon_[j] != kNoCard) choice.Remove(talon_[j]);
        if (s == povinnost_ && has_call_) choice -= must_pov_;
        if (choice.empty()) return false;
        int k = static_cast<int>(rng.Below(static_cast<uint32_t>(choice.size())));
        Card pick = choice.First();
        for (Card c : choice)
          if (k-- == 0) {
            pick = c;
            break;
          }
        talon[i] = pick;
      }
    }
    if (s >= 0) drawn[s].Add(talon[i]);
  }
  deal->hands.assign(n_, CardSet());
  deal->talon.assign(talon.begin(), talon.end());
  deal->deck.clear();
  for (int s = 0; s < n_; ++s) {
    const CardSet dealt = holdings[s] - drawn[s];
    if (dealt.size() != game_->info().hand_size) return false;
    deal->hands[s] = dealt;
  }
  if (westfest_ != nullptr) {
    // The deck the recorded cut deals into these hands.
    deal->deck.assign(kNumCards, kNoCard);
    for (int i = 0; i < 6; ++i) deal->deck[i] = talon[i];
    for (int s = 0; s < n_; ++s) {
      std::vector<Card> cards = CardsOf(deal->hands[s]);
      for (size_t i = cards.size(); i > 1; --i) std::swap(cards[i - 1], cards[rng.Below(static_cast<uint32_t>(i))]);
      if (cards.size() != positions_[s].size()) return false;
      for (size_t k = 0; k < cards.size(); ++k) deal->deck[positions_[s][k]] = cards[k];
    }
    deal->hands.assign(n_, CardSet());
  }
  return true;
}

template <typename St>
bool ReplayDeterminizer::Replay(St* st, const std::array<std::vector<Card>, kMax>& hidden) const {
  std::array<size_t, kMax> used{};
  ActionList legal;
  for (const auto& [seat, recorded] : actions_) {
    if (st->CurrentSeat() != seat) return false;
    Action a = recorded;
    if (a == kHidden) {
      if (used[seat] >= hidden[seat].size()) return false;
      a = MakeAction(Verb::kDiscard, hidden[seat][used[seat]++]);
    }
    st->LegalActions(&legal);
    if (!legal.Contains(a)) return false;
    st->Apply(a);
  }
  return st->CurrentSeat() == to_act_ && st->hand(me_) == my_hand_;
}


CardSet ReplayDeterminizer::Excluded(int s) const {
  if (s < 0 || s >= n_) return CardSet();
  if (s == me_) return CardSet();  // as in the Slovenian family: the own hand is known
  // allowed_[s] holds every unseen card the seat may hold, the talon cards it
  // was seen to take included; everything else is played, shown or known to
  // be elsewhere.
  return kAllCards - allowed_[s];
}

std::vector<Action> ReplayDeterminizer::Filled(const std::array<std::vector<Card>, kMax>& hidden) const {
  std::vector<Action> out;
  out.reserve(actions_.size());
  std::array<size_t, kMax> used{};
  for (const auto& [seat, a] : actions_)
    out.push_back(a == kHidden ? MakeAction(Verb::kDiscard, hidden[seat][used[seat]++]) : a);
  return out;
}

namespace {

// One attempt's state of either family.
absl::StatusOr<AustrianState> NewState(const AustrianGame& g, const Deal& deal, const HandSetup& setup) {
  return g.NewAustrianHand(deal, setup);
}
absl::StatusOr<WestfestState> NewState(const WestfestGame& g, const Deal& deal, const HandSetup& setup) {
  return g.NewWestfestHand(deal, setup);
}

}  // namespace

template <typename St, typename G>
std::optional<St> ReplayDeterminizer::Attempts(const G& game, Rng& rng, int max_attempts, Deal* deal,
                                               std::array<std::vector<Card>, kMax>* hidden) const {
  for (int i = 0; i < max_attempts; ++i) {
    if (!BuildDeal(rng, deal, hidden)) continue;
    absl::StatusOr<St> st = NewState(game, *deal, setup_);
    if (!st.ok()) continue;
    if (!Replay(&*st, *hidden)) continue;
    if constexpr (std::is_same_v<St, WestfestState>) {
      // The call is made by the engine from the povinnost's hand: it must
      // name the tarock this seat saw called.
      if (has_call_ && st->called() != called_) continue;
    }
    return *std::move(st);
  }
  return std::nullopt;
}

std::optional<AustrianState> ReplayDeterminizer::SampleAustrian(Rng& rng, int max_attempts) const {
  if (austrian_ == nullptr) return std::nullopt;
  tarock::Deal deal;
  std::array<std::vector<Card>, kMax> hidden;
  return Attempts<AustrianState>(*austrian_, rng, max_attempts, &deal, &hidden);
}

std::optional<WestfestState> ReplayDeterminizer::SampleWestfest(Rng& rng, int max_attempts) const {
  if (westfest_ == nullptr) return std::nullopt;
  tarock::Deal deal;
  std::array<std::vector<Card>, kMax> hidden;
  return Attempts<WestfestState>(*westfest_, rng, max_attempts, &deal, &hidden);
}

std::unique_ptr<State> ReplayDeterminizer::Sample(Rng& rng, int max_attempts, Deal* deal,
                                                  std::vector<Action>* actions) const {
  tarock::Deal d;
  std::array<std::vector<Card>, kMax> hidden;
  std::unique_ptr<State> out;
  if (austrian_ != nullptr) {
    if (std::optional<AustrianState> st = Attempts<AustrianState>(*austrian_, rng, max_attempts, &d, &hidden))
      out = std::make_unique<AustrianState>(*std::move(st));
  } else if (westfest_ != nullptr) {
    if (std::optional<WestfestState> st = Attempts<WestfestState>(*westfest_, rng, max_attempts, &d, &hidden))
      out = std::make_unique<WestfestState>(*std::move(st));
  }
  if (out == nullptr) return out;
  if (deal != nullptr) *deal = std::move(d);
  if (actions != nullptr) *actions = Filled(hidden);
  return out;
}

}  // namespace tarock::sdk
