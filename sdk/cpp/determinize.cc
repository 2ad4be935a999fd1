// Determinization of one seat's observation (see determinize.h).
//
// Thread-safety: a Determinizer is immutable after Init(); sampling only reads it.

#include "tarock/sdk/determinize.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "referee/protocol/convert.h"
#include "sdk/cpp/determinize_replay.h"

namespace tarock::sdk {
namespace {

using slovenian::Contract;
using slovenian::SlovenianGame;
using slovenian::SlovenianState;

int TalonCardsOf(int contract) {
  switch (contract) {
    case slovenian::kThree: case slovenian::kSoloThree: return 3;
    case slovenian::kTwo: case slovenian::kSoloTwo: return 2;
    case slovenian::kOne: case slovenian::kSoloOne: return 1;
    default: return 0;
  }
}

absl::Status NoSample(int max_attempts) {
  return absl::NotFoundError(absl::StrCat("no consistent deal in ", max_attempts, " attempts"));
}

absl::StatusOr<Card> CardNamed(const std::string& name) { return ParseCard(name); }

}  // namespace

absl::StatusOr<Determinizer> Determinizer::Create(const Game& game, const v1::Observation& obs,
                                                  std::optional<bool> forced_klop,
                                                  absl::Span<const std::string> legal) {
  if (ReplayDeterminizer::Knows(game)) {
    // The Austrian variants and westfest: forced Klop and the legal actions
    // carry nothing there that the history does not.
    absl::StatusOr<ReplayDeterminizer> r = ReplayDeterminizer::Create(game, obs);
    if (!r.ok()) return r.status();
    Determinizer d;
    d.seat_ = obs.seat();
    d.num_seats_ = game.num_seats();
    d.setup_ = r->setup();
    d.unknown_ = r->UnknownCards();
    for (int s = 0; s < d.num_seats_; ++s) d.forbidden_[s] = r->Excluded(s);
    d.replay_ = std::make_shared<const ReplayDeterminizer>(*std::move(r));
    return d;
  }
  const auto* sg = dynamic_cast<const SlovenianGame*>(&game);
  if (sg == nullptr) {
    return absl::UnimplementedError(absl::StrCat("determinization knows the seven built-in variants, not ",
                                                 game.info().name));
  }
  Determinizer d;
  absl::Status st = d.Init(*sg, obs, forced_klop, legal);
  if (!st.ok()) return st;
  return d;
}

absl::StatusOr<Determinizer> Determinizer::Create(const Game& game, const v1::DecisionRequest& request,
                                                  std::optional<bool> forced_klop) {
  std::vector<std::string> legal(request.legal_actions().begin(), request.legal_actions().end());
  return Create(game, request.observation(), forced_klop, legal);
}

absl::StatusOr<Determinizer> Determinizer::Create(const Game& game, const Observation& obs,
                                                  std::optional<bool> forced_klop) {
  return Create(game, ObservationToProto(obs), forced_klop, obs.legal);
}

absl::Status Determinizer::Init(const SlovenianGame& game, const v1::Observation& obs,
                                std::optional<bool> forced_klop, absl::Span<const std::string> legal) {
  const slovenian::Rules& rules = game.rules();
  game_ = &game;
  num_seats_ = rules.num_seats;
  seat_ = obs.seat();
  const int n = num_seats_;
  if (seat_ < 0 || seat_ >= n || obs.num_seats() != n)
    return absl::InvalidArgumentError(absl::StrCat("seat ", seat_, " of ", obs.num_seats(),
                                                   " does not fit ", game.info().name));
  const int dealer = obs.dealer();
  if (dealer < 0 || dealer >= n) return absl::InvalidArgumentError(absl::StrCat("bad dealer ", dealer));
  setup_.dealer = dealer;
  to_act_ = obs.to_act();
  void_deal_ = obs.phase() == "done" && obs.history_size() == 0;
  bool any_radl = false;
  for (int r : obs.radli()) any_radl |= r != 0;
  if (any_radl) {
    if (obs.radli_size() != n) return absl::InvalidArgumentError("radli do not match the seats");
    setup_.radli.assign(obs.radli().begin(), obs.radli().end());
  }
  auto active = [&](int s) { return rules.num_active == n || s != dealer; };

  // The history: actions, plays, discards, the talon choice, announcements.
  std::array<CardSet, SlovenianState::kMaxSeats> played{}, discarded{};
  std::array<int, SlovenianState::kMaxSeats> discards_made{};
  std::vector<std::pair<int, Card>> plays;  // (seat, card) in order
  int hidden_discards = 0;
  int talon_choice = -1, contract_at_talon = -1, last_bid = -1;
  int pagat_announcer = -1;
  std::vector<int> actors;
  bool low_bid_seen = false;
  for (const v1::Event& e : obs.history()) {
    const int s = e.seat();
    if (s < 0 || s >= n) return absl::InvalidArgumentError(absl::StrCat("event of seat ", s));
    Action a;
    if (e.action() == "discard ?") {
      a = kHiddenDiscard;
      ++hidden_discards;
      ++discards_made[s];
    } else {
      absl::StatusOr<Action> parsed = game.ParseAction(e.action());
      if (!parsed.ok()) return parsed.status();
      a = *parsed;
      const int arg = ArgOf(a);
      switch (VerbOf(a)) {
        case Verb::kPlay:
          played[s].Add(static_cast<Card>(arg));
          plays.emplace_back(s, static_cast<Card>(arg));
          break;
        case Verb::kDiscard:
          discarded[s].Add(static_cast<Card>(arg));
          ++discards_made[s];
          break;
        case Verb::kBid:
          if (talon_choice < 0) last_bid = arg;
          if (arg >= slovenian::kTwo && arg <= slovenian::kBeggar) low_bid_seen = true;
          break;
        case Verb::kTalon:
          talon_choice = arg;
          contract_at_talon = last_bid;
          break;
        case Verb::kAnnounce:
          if (arg == slovenian::kPagatUltimo) pagat_announcer = s;
          break;
        default:
          break;
      }
    }
    actions_.push_back(a);
    actors.push_back(s);
  }

  // Forced Klop: given, or inferred where it changes anything (see the header).
  if (forced_klop.has_value()) {
    setup_.forced_klop = *forced_klop;
  } else if (rules.bidding == slovenian::BiddingStyle::kSeniority) {
    // 000: a compulsory Klop has no auction; play starts at once.
    setup_.forced_klop = actions_.empty() ? obs.phase() == "play" : VerbOf(actions_[0]) == Verb::kPlay;
  } else if (!low_bid_seen && obs.phase() == "bidding") {
    // 003 §4.2.1: only the lowest bids differ. Among the legal bids, any of
    // Three..Beggar means a normal hand.
    bool any_bid = false, low = false;
    for (const std::string& text : legal) {
      absl::StatusOr<Action> a = game.ParseAction(text);
      if (!a.ok() || VerbOf(*a) != Verb::kBid || ArgOf(*a) == slovenian::kKlop) continue;
      any_bid = true;
      if (ArgOf(*a) >= slovenian::kTwo && ArgOf(*a) <= slovenian::kBeggar) low = true;
    }
    setup_.forced_klop = any_bid && !low;
  }

  // The talon as shown.
  if (obs.talon_size() != 6) return absl::InvalidArgumentError("the talon must have 6 entries");
  CardSet visible_talon;
  int hidden_talon = 0;
  for (int i = 0; i < 6; ++i) {
    if (obs.talon(i) == "?") {
      talon_[i] = kNoCard;
      ++hidden_talon;
    } else {
      absl::StatusOr<Card> c = CardNamed(obs.talon(i));
      if (!c.ok()) return c.status();
      talon_[i] = *c;
      visible_talon.Add(*c);
    }
  }

  declarer_ = obs.declarer();
  if (declarer_ >= n) return absl::InvalidArgumentError("bad declarer");
  int contract = -1;
  if (!obs.contract().empty()) {
    const auto& names = game.codec().contracts;
    auto it = std::find(names.begin(), names.end(), obs.contract());
    if (it == names.end()) return absl::InvalidArgumentError(absl::StrCat("unknown contract ", obs.contract()));
    contract = static_cast<int>(it - names.begin());
  }
  if (talon_choice >= 0) {
    // The group the declarer took, with the contract he took it in (a Colour
    // Valat raise comes later).
    const int k = TalonCardsOf(contract_at_talon);
    if (k == 0 || declarer_ < 0) return absl::InvalidArgumentError("a talon choice without a talon contract");
    std::array<int, 3> idx{};
    int m = 0;
    if (rules.tapp_talon_groups && k == 2) {
      idx = {talon_choice, talon_choice + 3, 0};
      m = 2;
    } else {
      for (int i = 0; i < k; ++i) idx[m++] = talon_choice * k + i;
    }
    for (int i = 0; i < m; ++i) {
      if (idx[i] >= 6 || talon_[idx[i]] == kNoCard)
        return absl::InvalidArgumentError("the taken talon group is not shown");
      talon_taken_.Add(talon_[idx[i]]);
    }
  }

  // Own cards; shown cards.
  CardSet hand;
  for (const std::string& name : obs.hand()) {
    absl::StatusOr<Card> c = CardNamed(name);
    if (!c.ok()) return c.status();
    hand.Add(*c);
  }
  std::array<CardSet, SlovenianState::kMaxSeats> shown{};
  for (int s = 0; s < obs.shown_size() && s < n; ++s) {
    for (const std::string& name : obs.shown(s).cards()) {
      absl::StatusOr<Card> c = CardNamed(name);
      if (!c.ok()) return c.status();
      shown[s].Add(*c);
    }
  }

  // Cards each seat holds now, and what is known of them.
  std::array<int, SlovenianState::kMaxSeats> now{};
  CardSet known = hand | visible_talon;
  for (int s = 0; s < n; ++s) {
    if (!active(s)) continue;
    now[s] = rules.hand_size - played[s].size();
    if (s == declarer_ && talon_choice >= 0) now[s] += talon_taken_.size() - discards_made[s];
    base_[s] = played[s] | discarded[s] | shown[s];
    known |= base_[s];
  }
  base_[seat_] |= hand;
  if (active(seat_) && now[seat_] != hand.size())
    return absl::InvalidArgumentError(absl::StrCat("seat ", seat_, " holds ", hand.size(), " cards, the history says ",
                                                   now[seat_]));
  unknown_ = kAllCards - known;
  // The taken talon cards the declarer neither played nor showed: in his hand
  // or among his hidden discards.
  const CardSet talon_open = declarer_ >= 0 && declarer_ != seat_ ? talon_taken_ - base_[declarer_] : CardSet();

  for (int s = 0; s < n; ++s) {
    if (active(s) && s != seat_) capacity_[s] = now[s] - shown[s].size();
    if (capacity_[s] < 0) return absl::InvalidArgumentError(absl::StrCat("seat ", s, " shows too many cards"));
  }
  capacity_[kDiscardPlace] = declarer_ != seat_ ? hidden_discards : 0;
  capacity_[kTalonPlace] = hidden_talon;

  // What the play reveals (the engine's PlayableCards, read backwards): the
  // cards whose presence in the hand would have made each play illegal.
  const bool negative = contract == slovenian::kKlop || contract == slovenian::kBeggar ||
                        contract == slovenian::kOpenBeggar;
  const bool trumps = contract != slovenian::kColourValat;
  const RankTable& ranks = game.ranks();
  auto beaters = [&](Card best) {
    CardSet out;
    for (Card o : SuitSet(SuitOf(best)))
      if (ranks.strength[o] > ranks.strength[best]) out.Add(o);
    if (trumps && !IsTarock(best)) out |= kTarockSet;
    return out;
  };
  uint8_t guard = 0;  // seats whose Pagat is played only when it is the only legal card
  if (negative) {
    guard = 0xFF;
  } else if (rules.pagat_kept_when_announced && pagat_announcer >= 0) {
    guard = static_cast<uint8_t>(1 << pagat_announcer);
  }
  const CardSet mond_skis = CardSet::Of(kMond) | CardSet::Of(kSkis);
  CardSet trick;
  Card first = kNoCard, best = kNoCard;
  int in_trick = 0;
  for (const auto& [s, p] : plays) {
    CardSet f;
    CardSet cls = kAllCards;
    if (in_trick > 0) {
      const CardSet led = SuitSet(SuitOf(first));
      if (led.Contains(p)) {
        cls = led;
      } else {
        f |= led;  // did not follow: void in the led suit
        if (IsTarock(p)) {
          cls = kTarockSet;
        } else {
          f |= kTarockSet;  // did not trump either: no tarocks
          cls = kAllCards - led - kTarockSet;
        }
      }
    }
    CardSet fin = cls;
    if (negative && in_trick > 0) {
      // 003 §4.6.3 / 000: beat the winning card if a legal card can.
      CardSet w = beaters(best);
      if (rules.imperator && trick.ContainsAll(mond_skis)) {
        if (trick.Contains(kPagat)) {
          w = CardSet();
        } else {
          w.Add(kPagat);
        }
      }
      if (!w.Contains(p)) {
        f |= cls & w;
      } else {
        fin = cls & w;
      }
    }
    if (((guard >> s) & 1) && p == kPagat) f |= fin - CardSet::Of(kPagat);
    if (s != seat_) forbidden_[s] |= f;
    if (in_trick == 0) {
      first = best = p;
    } else if (beaters(best).Contains(p)) {
      best = p;
    }
    trick.Add(p);
    if (++in_trick == rules.num_active) {
      in_trick = 0;
      trick = CardSet();
    }
  }

  // Who may hold the called king, as the announcements show: the Kontra chain
  // alternates between the sides, and only the declarer's side announces King
  // Ultimo.
  Card called = kNoCard;
  uint8_t king_holders = 0xFF;
  if (!obs.called_king().empty()) {
    absl::StatusOr<Card> c = CardNamed(obs.called_king());
    if (!c.ok()) return c.status();
    called = *c;
  }
  // Kontra is legal for the seat to act in the announcements only on targets
  // its side may kontra (the odd levels against the owner, even ones for it).
  std::array<bool, slovenian::kNumKontraTargets> legal_kontra{};
  std::array<bool, slovenian::kNumBonuses> announced{};
  for (Action a : actions_)
    if (VerbOf(a) == Verb::kAnnounce) announced[ArgOf(a)] = true;
  const bool check_legal_kontra =
      rules.kontra && obs.phase() == "announce" && to_act_ == seat_ && !legal.empty();
  for (const std::string& text : legal) {
    absl::StatusOr<Action> a = game.ParseAction(text);
    if (a.ok() && VerbOf(*a) == Verb::kKontra) legal_kontra[ArgOf(*a)] = true;
  }
  if (called != kNoCard && unknown_.Contains(called)) {
    king_holders = 0;
    for (int h = 0; h < n; ++h) {
      if (!active(h) || h == seat_) continue;
      const int partner = h == declarer_ ? -1 : h;
      auto side = [&](int s) { return s == declarer_ || s == partner; };
      // 003 §4.5.2 (game_kontra=any-but-declarer, issue 11's default): on the
      // game the partner says the odd levels with the defenders and the
      // declarer alone the even ones, so a game Kontra shows nothing of the partner.
      auto kontra_side = [&](int s, int t) {
        return t == slovenian::kKontraGame && rules.kontra_game_by_seat ? s == declarer_ : side(s);
      };
      std::array<int, slovenian::kNumKontraTargets> level{};
      std::array<int, slovenian::kNumBonuses> owner{};  // 1: the declarer side
      bool ok = true;
      for (size_t i = 0; i < actions_.size() && ok; ++i) {
        const Action a = actions_[i];
        const int s = actors[i];
        if (VerbOf(a) == Verb::kAnnounce) {
          if (ArgOf(a) == slovenian::kKingUltimo && !side(s)) ok = false;
          owner[ArgOf(a)] = side(s);
        } else if (VerbOf(a) == Verb::kKontra) {
          const int t = ArgOf(a);
          const bool owned = t == slovenian::kKontraGame ? true : owner[t - 1] != 0;
          const bool odd = (++level[t] & 1) != 0;
          if (odd == (kontra_side(s, t) == owned)) ok = false;
        }
      }
      // The seat's own legal actions show which Kontras are open to its side.
      if (ok && check_legal_kontra) {
        for (int t = 0; t < slovenian::kNumKontraTargets; ++t) {
          const bool open = level[t] < 4 && (t == slovenian::kKontraGame || announced[t - 1]);
          if (!open) continue;
          const bool owned = t == slovenian::kKontraGame ? true : owner[t - 1] != 0;
          const bool odd_next = (level[t] & 1) == 0;
          const bool mine = odd_next == (kontra_side(seat_, t) != owned);
          if (mine != legal_kontra[t]) ok = false;
        }
      }
      if (ok) king_holders |= static_cast<uint8_t>(1 << h);
    }
  }

  // The places of each card.
  auto discardable = [](Card c) { return !IsTarock(c) && !kKingSet.Contains(c); };
  auto add = [&](Card c, uint8_t m) -> absl::Status {
    if (m == 0) {
      return absl::FailedPreconditionError(absl::StrCat("no seat can hold ", CardName(c),
                                                        " consistently with the history"));
    }
    cards_.push_back(c);
    places_.push_back(m);
    return absl::OkStatus();
  };
  int total = 0;
  for (int p = 0; p < kNumPlaces; ++p) total += capacity_[p];
  if (total != unknown_.size() + talon_open.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the observation does not add up: ", unknown_.size(),
                                                   " unknown cards and ", talon_open.size(),
                                                   " talon cards for ", total, " places"));
  }
  for (Card c : unknown_) {
    uint8_t m = 0;
    for (int s = 0; s < n; ++s)
      if (capacity_[s] > 0 && !forbidden_[s].Contains(c)) m |= 1 << s;
    if (capacity_[kDiscardPlace] > 0 && discardable(c)) m |= 1 << kDiscardPlace;
    if (capacity_[kTalonPlace] > 0) m |= 1 << kTalonPlace;
    if (c == called) m &= king_holders;
    // Only the Pagat's holder may announce Pagat Ultimo, and it cannot be laid away.
    if (c == kPagat && pagat_announcer >= 0 && pagat_announcer != seat_) m &= 1 << pagat_announcer;
    absl::Status st = add(c, m);
    if (!st.ok()) return st;
  }
  for (Card c : talon_open) {
    uint8_t m = 0;
    if (capacity_[declarer_] > 0 && !forbidden_[declarer_].Contains(c)) m |= 1 << declarer_;
    if (capacity_[kDiscardPlace] > 0 && discardable(c)) m |= 1 << kDiscardPlace;
    absl::Status st = add(c, m);
    if (!st.ok()) return st;
  }
  // Most constrained first: a card with one place is dealt before the cards
  // that could take its room.
  std::vector<int> idx(cards_.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return std::popcount(places_[a]) < std::popcount(places_[b]);
  });
  std::vector<Card> cards(idx.size());
  std::vector<uint8_t> places(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    cards[i] = cards_[idx[i]];
    places[i] = places_[idx[i]];
  }
  cards_ = std::move(cards);
  places_ = std::move(places);
  bucket_.clear();
  for (size_t i = 0; i < cards_.size(); ++i)
    if (i == 0 || std::popcount(places_[i]) != std::popcount(places_[i - 1])) bucket_.push_back(static_cast<int>(i));
  bucket_.push_back(static_cast<int>(cards_.size()));
  return absl::OkStatus();
}

bool Determinizer::TryDeal(Rng& rng, Deal* out, std::array<Card, 6>* discards) const {
  std::array<int, kNumPlaces> room = capacity_;
  // A void deal (a hand without tarocks, 003 §4.1.1 / 000) seen by a seat that
  // has tarocks itself: another seat, drawn at random, gets none.
  int tarockless = -1;
  if (void_deal_ && !(base_[seat_] & kTarockSet).empty()) {
    int seats[SlovenianState::kMaxSeats], k = 0;
    for (int s = 0; s < num_seats_; ++s)
      if (capacity_[s] > 0) seats[k++] = s;
    if (k == 0) return false;
    tarockless = seats[rng.Below(static_cast<uint32_t>(k))];
  }
  std::array<CardSet, kNumPlaces> placed{};
  // Cards with the same number of places in random order; the ordering by
  // that number stays.
  std::array<uint8_t, kNumCards> order;
  const int m = static_cast<int>(cards_.size());
  for (int i = 0; i < m; ++i) order[i] = static_cast<uint8_t>(i);
  for (size_t b = 0; b + 1 < bucket_.size(); ++b)
    rng.Shuffle(order.data() + bucket_[b], bucket_[b + 1] - bucket_[b]);
  for (int i = 0; i < m; ++i) {
    const int k = order[i];
    uint8_t mask = places_[k];
    if (tarockless >= 0 && IsTarock(cards_[k])) mask &= ~(1u << tarockless);
    int total = 0;
    for (unsigned bits = mask; bits != 0; bits &= bits - 1) total += room[std::countr_zero(bits)];
    if (total == 0) return false;  // a dead end: every place left for it is full
    int r = static_cast<int>(rng.Below(static_cast<uint32_t>(total)));
    for (unsigned bits = mask; bits != 0; bits &= bits - 1) {
      const int p = std::countr_zero(bits);
      if (r < room[p]) {
        --room[p];
        placed[p].Add(cards_[k]);
        break;
      }
      r -= room[p];
    }
  }
  out->hands.assign(num_seats_, CardSet());
  for (int s = 0; s < num_seats_; ++s) {
    CardSet h = base_[s] | placed[s];
    if (s == declarer_) h = (h | placed[kDiscardPlace]) - talon_taken_;
    out->hands[s] = h;
    // A seat without a tarock would have made the deal void.
    if (!void_deal_ && capacity_[s] + base_[s].size() > 0 && (h & kTarockSet).empty()) return false;
  }
  std::array<Card, 6> hidden{};
  int nh = 0;
  for (Card c : placed[kTalonPlace]) hidden[nh++] = c;
  rng.Shuffle(hidden.data(), nh);
  out->talon.resize(6);
  for (int i = 0, j = 0; i < 6; ++i) out->talon[i] = talon_[i] != kNoCard ? talon_[i] : hidden[j++];
  int nd = 0;
  for (Card c : placed[kDiscardPlace]) (*discards)[nd++] = c;
  rng.Shuffle(discards->data(), nd);
  return true;
}

bool Determinizer::Replay(const Deal& deal, const std::array<Card, 6>& discards,
                          SlovenianState* state) const {
  ActionList legal;
  int d = 0;
  for (Action a : actions_) {
    if (a == kHiddenDiscard) a = MakeAction(Verb::kDiscard, discards[d++]);
    if (state->IsTerminal()) return false;
    state->LegalActions(&legal);
    if (!legal.Contains(a)) return false;
    state->Apply(a);
  }
  return state->CurrentSeat() == to_act_ || (to_act_ < 0 && state->IsTerminal());
}

std::optional<SlovenianState> Determinizer::Attempt(Rng& rng, Deal* deal,
                                                    std::array<Card, 6>* discards) const {
  if (!TryDeal(rng, deal, discards)) return std::nullopt;
  SlovenianState state(game_, *deal, setup_);
  if (!Replay(*deal, *discards, &state)) return std::nullopt;
  return state;
}

absl::StatusOr<SlovenianState> Determinizer::SampleState(Rng& rng, int max_attempts) const {
  if (game_ == nullptr) return absl::FailedPreconditionError("not a Slovenian determinizer");
  Deal deal;
  std::array<Card, 6> discards{};
  for (int i = 0; i < max_attempts; ++i) {
    std::optional<SlovenianState> s = Attempt(rng, &deal, &discards);
    if (s.has_value()) return *std::move(s);
  }
  return NoSample(max_attempts);
}

absl::StatusOr<std::unique_ptr<State>> Determinizer::Sample(Rng& rng, int max_attempts) const {
  if (replay_ != nullptr) {
    std::unique_ptr<State> st = replay_->Sample(rng, max_attempts, nullptr, nullptr);
    if (st == nullptr) return NoSample(max_attempts);
    return st;
  }
  absl::StatusOr<SlovenianState> s = SampleState(rng, max_attempts);
  if (!s.ok()) return s.status();
  return std::unique_ptr<State>(std::make_unique<SlovenianState>(*std::move(s)));
}

absl::StatusOr<Determinizer::Sampled> Determinizer::SampleDeal(Rng& rng, int max_attempts) const {
  Sampled out;
  if (replay_ != nullptr) {
    if (replay_->Sample(rng, max_attempts, &out.deal, &out.actions) == nullptr) return NoSample(max_attempts);
    return out;
  }
  std::array<Card, 6> discards{};
  for (int i = 0; i < max_attempts; ++i) {
    if (!Attempt(rng, &out.deal, &discards).has_value()) continue;
    int d = 0;
    for (Action a : actions_)
      out.actions.push_back(a == kHiddenDiscard ? MakeAction(Verb::kDiscard, discards[d++]) : a);
    return out;
  }
  return NoSample(max_attempts);
}

absl::StatusOr<austrian::AustrianState> Determinizer::SampleAustrianState(Rng& rng, int max_attempts) const {
  if (replay_ == nullptr) return absl::FailedPreconditionError("not an Austrian determinizer");
  std::optional<austrian::AustrianState> st = replay_->SampleAustrian(rng, max_attempts);
  if (!st.has_value()) {
    if (!replay_->IsAustrian()) return absl::FailedPreconditionError("not an Austrian determinizer");
    return NoSample(max_attempts);
  }
  return *std::move(st);
}

absl::StatusOr<czech::WestfestState> Determinizer::SampleWestfestState(Rng& rng, int max_attempts) const {
  if (replay_ == nullptr) return absl::FailedPreconditionError("not a westfest determinizer");
  std::optional<czech::WestfestState> st = replay_->SampleWestfest(rng, max_attempts);
  if (!st.has_value()) {
    if (replay_->IsAustrian()) return absl::FailedPreconditionError("not a westfest determinizer");
    return NoSample(max_attempts);
  }
  return *std::move(st);
}

}  // namespace tarock::sdk
