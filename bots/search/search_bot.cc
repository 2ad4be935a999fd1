// The search bot (see search_bot.h): PIMC over the determinizer's samples,
// with a greedy perfect-information playout policy.
//
// Thread-safety: a SearchBot is used by one thread at a time; the helpers
// here are functions of their arguments.

#include "bots/search/search_bot.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bots/heuristic/heuristic_bot.h"
#include "referee/protocol/convert.h"
#include "referee/variants/austrian/austrian.h"
#include "referee/variants/czech/westfest.h"
#include "referee/variants/slovenian/slovenian.h"
#include "tarock/sdk/determinize.h"

namespace tarock::bots {
namespace {

using slovenian::Phase;
using slovenian::SlovenianGame;
using slovenian::SlovenianState;
using Clock = std::chrono::steady_clock;

constexpr int kMaxSeats = SlovenianState::kMaxSeats;

// What the playout policy needs of a variant, computed once per decision.
struct Tables {
  std::array<uint8_t, kNumCards> strength{};
  std::array<CardSet, kNumCards> higher{};  // stronger cards of the same suit
  std::array<int, kNumCards> thirds{};
  int num_seats = 0;
  int num_active = 0;
  int dealer = 0;
  std::array<int, kMaxSeats> next{};  // the next playing seat
  bool imperator = true;

  Tables(const SlovenianGame& game, int dealer_seat) {
    const RankTable& ranks = game.ranks();
    num_seats = game.rules().num_seats;
    num_active = game.rules().num_active;
    dealer = dealer_seat;
    imperator = game.rules().imperator;
    for (int c = 0; c < kNumCards; ++c) {
      strength[c] = ranks.strength[c];
      thirds[c] = CardThirds(static_cast<Card>(c));
      for (Card o : SuitSet(SuitOf(static_cast<Card>(c))))
        if (ranks.strength[o] > ranks.strength[c]) higher[c].Add(o);
    }
    for (int s = 0; s < num_seats; ++s) {
      int n = s;
      do {
        n = (n + 1) % num_seats;
      } while (num_active < num_seats && n == dealer);
      next[s] = n;
    }
  }
};

// The current trick, which the engine's State does not expose: tracked beside it.
struct Trick {
  std::array<Card, kMaxSeats> cards{};
  std::array<uint8_t, kMaxSeats> seats{};
  int len = 0;
  CardSet set;
};

// A sample being played out: the engine state and its current trick.
struct Sim {
  SlovenianState st;
  Trick trick;

  void Apply(Action a, const Tables& t) {
    if (st.phase() == Phase::kPlay && VerbOf(a) == Verb::kPlay) {
      const Card c = static_cast<Card>(ArgOf(a));
      trick.cards[trick.len] = c;
      trick.seats[trick.len] = static_cast<uint8_t>(st.CurrentSeat());
      trick.set.Add(c);
      if (++trick.len == t.num_active) {
        trick.len = 0;
        trick.set = CardSet();
      }
    }
    st.Apply(a);
  }
};

bool Trumps(const SlovenianState& st) { return st.contract() != slovenian::kColourValat; }
bool Negative(const SlovenianState& st) {
  const auto c = st.contract();
  return c == slovenian::kKlop || c == slovenian::kBeggar || c == slovenian::kOpenBeggar;
}

// Whether `c` takes the lead from `best` (without the Imperator).
bool Beats(Card c, Card best, bool trumps, const Tables& t) {
  if (SuitOf(c) == SuitOf(best)) return t.strength[c] > t.strength[best];
  return trumps && IsTarock(c) && !IsTarock(best);
}

// Index in the trick of the card winning it so far.
int WinningIndex(const Trick& tr, bool trumps, const Tables& t) {
  int w = 0;
  for (int i = 1; i < tr.len; ++i)
    if (Beats(tr.cards[i], tr.cards[w], trumps, t)) w = i;
  if (t.imperator && tr.set.ContainsAll(kTrulaSet) && (trumps || IsTarock(tr.cards[0]))) {
    for (int i = 0; i < tr.len; ++i)
      if (tr.cards[i] == kPagat) return i;
  }
  return w;
}

// Sides: in Klop everyone plays for himself; otherwise the declarer (and his
// partner) against the rest.
bool SameSide(const SlovenianState& st, int a, int b) {
  if (a == b) return true;
  if (st.contract() == slovenian::kKlop) return false;
  const bool da = a == st.declarer() || a == st.partner();
  const bool db = b == st.declarer() || b == st.partner();
  return da == db;
}

// Whether some opponent of `seat` still to play in this trick (after `seat`)
// can beat `card` if it is the best card, led suit `led`.
bool OpponentCanBeat(const SlovenianState& st, const Tables& t, int seat, int to_play_after, Card card,
                     Suit led, bool trumps) {
  int o = seat;
  for (int i = 0; i < to_play_after; ++i) {
    o = t.next[o];
    if (SameSide(st, seat, o)) continue;
    const CardSet h = st.hand(o);
    const CardSet follow = h & SuitSet(led);
    CardSet beat;
    if (!follow.empty()) {
      if (SuitOf(card) == led) beat = follow & t.higher[card];
    } else {
      const CardSet tar = h & kTarockSet;
      if (!tar.empty()) {
        if (IsTarock(card)) beat = tar & t.higher[card];
        else if (trumps) beat = tar;
      }
    }
    if (!beat.empty()) return true;
  }
  return false;
}

template <typename Key>
Card BestBy(CardSet set, Key key) {
  Card best = set.First();
  auto best_key = key(best);
  for (Card c : set) {
    auto k = key(c);
    if (k > best_key) {
      best = c;
      best_key = k;
    }
  }
  return best;
}

// The cheapest card to give away: fewest points, then weakest; the trula last.
Card Cheapest(CardSet set, const Tables& t) {
  return BestBy(set, [&](Card c) {
    return -(t.thirds[c] * 64 + t.strength[c] + (kTrulaSet.Contains(c) ? 4096 : 0));
  });
}

// Discard for the talon: a card of the shortest suit (voids let the tarocks
// trump), the one worth most (discards count for the declarer).
Action DiscardRule(const ActionList& legal, CardSet hand, const Tables& t) {
  Action best = legal.items[0];
  int best_key = std::numeric_limits<int>::min();
  for (Action a : legal) {
    const Card c = static_cast<Card>(ArgOf(a));
    int key;
    if (IsTarock(c)) {
      key = -100000 - t.strength[c];  // a tarock only when nothing else may go
    } else {
      const int len = (hand & SuitSet(SuitOf(c))).size();
      key = -len * 100 + t.thirds[c];
    }
    if (key > best_key) {
      best_key = key;
      best = a;
    }
  }
  return best;
}

// The greedy playout policy: it sees every hand of the sample.
Action PolicyMove(const Sim& sim, const Tables& t, Rng& rng, double epsilon) {
  const SlovenianState& st = sim.st;
  ActionList legal;
  st.LegalActions(&legal);
  if (legal.size == 1) return legal.items[0];
  const int seat = st.CurrentSeat();
  switch (st.phase()) {
    case Phase::kPlay:
      break;
    case Phase::kDiscard:
      return DiscardRule(legal, st.hand(seat), t);
    case Phase::kAnnounce:
      return kPassAction;  // the first legal action of the phase
    default:
      return legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
  }
  if (epsilon > 0 && rng.Below(1u << 16) < static_cast<uint32_t>(epsilon * 65536))
    return legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
  CardSet cards;
  for (Action a : legal) cards.Add(static_cast<Card>(ArgOf(a)));
  const bool trumps = Trumps(st);
  const Trick& tr = sim.trick;
  const int after = t.num_active - tr.len - 1;  // seats still to play after this one

  if (Negative(st)) {
    // Avoid tricks: under the winning card, shed the strongest card that
    // stays under; forced to win, take it with the strongest card when last,
    // else with the weakest and hope to be overtaken.
    if (tr.len == 0) return MakeAction(Verb::kPlay, BestBy(cards, [&](Card c) { return -t.strength[c]; }));
    const Card best = tr.cards[WinningIndex(tr, trumps, t)];
    CardSet winners;
    for (Card c : cards)
      if (Beats(c, best, trumps, t)) winners.Add(c);
    if (winners.empty() || winners != cards) {
      const CardSet under = cards - winners;
      return MakeAction(Verb::kPlay, BestBy(under, [&](Card c) { return t.thirds[c] * 64 + t.strength[c]; }));
    }
    if (after == 0) return MakeAction(Verb::kPlay, BestBy(cards, [&](Card c) { return t.strength[c] * 64 - t.thirds[c]; }));
    return MakeAction(Verb::kPlay, BestBy(cards, [&](Card c) { return -t.strength[c]; }));
  }

  if (tr.len == 0) {
    // Lead a sure winner, the one worth most; else the cheapest card of the
    // shortest suit.
    CardSet sure;
    for (Card c : cards)
      if (!OpponentCanBeat(st, t, seat, t.num_active - 1, c, SuitOf(c), trumps)) sure.Add(c);
    if (!sure.empty()) return MakeAction(Verb::kPlay, BestBy(sure, [&](Card c) { return t.thirds[c] * 64 - t.strength[c]; }));
    const CardSet hand = st.hand(seat);
    return MakeAction(Verb::kPlay, BestBy(cards, [&](Card c) {
                        const int len = IsTarock(c) ? 20 : (hand & SuitSet(SuitOf(c))).size();
                        return -(t.thirds[c] * 64 + len * 4 + (IsTarock(c) ? t.strength[c] : 0));
                      }));
  }
  const int wi = WinningIndex(tr, trumps, t);
  const Card best = tr.cards[wi];
  const Suit led = SuitOf(tr.cards[0]);
  const bool ours = SameSide(st, seat, tr.seats[wi]);
  if (ours && (after == 0 || !OpponentCanBeat(st, t, seat, after, best, led, trumps))) {
    // The trick is ours: add points, but no tarock worth keeping.
    return MakeAction(Verb::kPlay, BestBy(cards, [&](Card c) {
                        return IsTarock(c) ? -(t.thirds[c] * 64 + t.strength[c]) - 100000 : t.thirds[c];
                      }));
  }
  CardSet winners;
  for (Card c : cards) {
    if (!Beats(c, best, trumps, t)) continue;
    if (after > 0 && OpponentCanBeat(st, t, seat, after, c, led, trumps)) continue;
    winners.Add(c);
  }
  if (!winners.empty()) {
    // The weakest card that takes the trick for sure (the Pagat gladly).
    return MakeAction(Verb::kPlay, BestBy(winners, [&](Card c) { return -(t.strength[c] + (IsTarock(c) ? 64 : 0)); }));
  }
  return MakeAction(Verb::kPlay, Cheapest(cards, t));
}

void PlayOut(Sim* sim, const Tables& t, Rng& rng, double epsilon) {
  while (!sim->st.IsTerminal()) sim->Apply(PolicyMove(*sim, t, rng, epsilon), t);
}

double Utility(const SlovenianState& st, int seat, const Tables& t, SearchOptions::Utility u) {
  const HandResult r = st.Result();
  const double own = r.scores[seat];
  if (u == SearchOptions::Utility::kOwn) return own;
  double others = 0;
  int n = 0;
  for (int s = 0; s < t.num_seats; ++s) {
    if (s == seat || (t.num_active < t.num_seats && s == t.dealer)) continue;
    others += r.scores[s];
    ++n;
  }
  return own - (n > 0 ? others / n : 0.0);
}

// Exact value of a sample for `me` (alpha-beta): its side maximises the
// utility, everyone else minimises it (in Klop, where each plays for himself,
// that is the cautious reading).
double Minimax(const Sim& sim, int me, const Tables& t, SearchOptions::Utility u, double alpha,
               double beta) {
  if (sim.st.IsTerminal()) return Utility(sim.st, me, t, u);
  ActionList legal;
  sim.st.LegalActions(&legal);
  const bool maximize = SameSide(sim.st, me, sim.st.CurrentSeat());
  double best = maximize ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  for (Action a : legal) {
    Sim child = sim;
    child.Apply(a, t);
    const double v = Minimax(child, me, t, u, alpha, beta);
    if (maximize) {
      best = std::max(best, v);
      alpha = std::max(alpha, v);
    } else {
      best = std::min(best, v);
      beta = std::min(beta, v);
    }
    if (alpha >= beta) break;
  }
  return best;
}

// The trick in progress, from the observation's history.
Trick TrickOf(const sdk::Situation& s, const Tables& t) {
  std::vector<std::pair<int, Card>> plays;
  for (const v1::Event& e : s.observation().history()) {
    if (!absl::StartsWith(e.action(), "play ")) continue;
    if (std::optional<Card> c = sdk::CardOfAction(e.action())) plays.emplace_back(e.seat(), *c);
  }
  Trick tr;
  const int k = static_cast<int>(plays.size()) % t.num_active;
  for (int i = static_cast<int>(plays.size()) - k; i < static_cast<int>(plays.size()); ++i) {
    tr.cards[tr.len] = plays[i].second;
    tr.seats[tr.len] = static_cast<uint8_t>(plays[i].first);
    tr.set.Add(plays[i].second);
    ++tr.len;
  }
  return tr;
}

// The hand strength (bots/heuristic EvaluateHand) from which the search bot
// bids each simple contract, by family; the heuristic bot's calibrated
// thresholds (its own play), lowered by SearchOptions::bid_boost because the
// search plays a contract better.
double BidThreshold(const std::string& variant, const std::string& contract) {
  struct Row {
    const char* contract;
    double strength;
  };
  static constexpr Row kPartner[] = {{"three", 8.0}, {"two", 9.0}, {"one", 11.0}};
  static constexpr Row kThreeHand[] = {{"three", 11.0}, {"two", 14.5}, {"one", 16.5}};
  static constexpr Row kTapp[] = {{"three", 13.5}, {"two", 15.0}, {"one", 17.0}};
  auto find = [&](const auto& rows) {
    for (const Row& r : rows)
      if (contract == r.contract) return r.strength;
    return std::numeric_limits<double>::infinity();
  };
  if (variant == "slovenian-tapp") return find(kTapp);
  if (variant == "slovenian-3p") return find(kThreeHand);
  return find(kPartner);
}

int ContractIndex(const std::string& name) {
  static const char* kNames[] = {"klop", "three", "two", "one", "solo-three", "solo-two",
                                 "solo-one", "beggar", "solo-without", "open-beggar", "colour-valat", "valat"};
  for (int i = 0; i < 12; ++i)
    if (name == kNames[i]) return i;
  return -1;
}

// ---------------------------------------------------------------------------
// tapp-tarock, tapp-tarock-classic (referee/variants/austrian) and westfest
// (referee/variants/czech): the play is searched on the SDK determinizer's
// samples (sdk::Determinizer::SampleAustrianState / SampleWestfestState) as
// in the Slovenian family: each legal card on every sample, a greedy playout
// that sees all hands, the mean of own score minus the others' mean (these
// variants are zero-sum, so that is the own score scaled).

using austrian::AustrianGame;
using austrian::AustrianState;
using czech::WestfestGame;
using czech::WestfestState;

bool GSameSide(const AustrianState& st, int a, int b) {
  if (a == b) return true;
  if (st.contract() == austrian::kBridscher) return false;  // each for himself
  return (a == st.declarer()) == (b == st.declarer());
}
bool GSameSide(const WestfestState& st, int a, int b) {
  if (a == b) return true;
  auto side = [&](int s) { return s == st.declarer() || s == st.partner(); };
  return side(a) == side(b);
}
bool GNegative(const AustrianState& st) { return st.contract() == austrian::kBridscher; }
bool GNegative(const WestfestState&) { return false; }
int GPhasePlay(const AustrianState& st) { return st.phase() == austrian::Phase::kPlay; }
int GPhasePlay(const WestfestState& st) { return st.phase() == czech::Phase::kPlay; }

// Trick ranks and card values of the variant (no Imperator in either).
struct GTables {
  std::array<uint8_t, kNumCards> strength{};
  std::array<CardSet, kNumCards> higher{};
  std::array<int, kNumCards> thirds{};
  int num_seats = 0;
};

GTables MakeGTables(const Game& game) {
  GTables t;
  t.num_seats = game.num_seats();
  const RankTable ranks = RankTable::Make(/*red_pips_numeric=*/false);
  const auto* westfest = dynamic_cast<const WestfestGame*>(&game);
  for (int c = 0; c < kNumCards; ++c) {
    t.strength[c] = westfest != nullptr ? westfest->strength()[c] : ranks.strength[c];
    t.thirds[c] = CardThirds(static_cast<Card>(c));
  }
  for (int c = 0; c < kNumCards; ++c)
    for (Card o : SuitSet(SuitOf(static_cast<Card>(c))))
      if (t.strength[o] > t.strength[c]) t.higher[c].Add(o);
  return t;
}

bool GBeats(Card c, Card best, const GTables& t) {
  if (SuitOf(c) == SuitOf(best)) return t.strength[c] > t.strength[best];
  return IsTarock(c) && !IsTarock(best);
}

int GWinning(const Trick& tr, const GTables& t) {
  int w = 0;
  for (int i = 1; i < tr.len; ++i)
    if (GBeats(tr.cards[i], tr.cards[w], t)) w = i;
  return w;
}

template <typename St>
struct GSim {
  St st;
  Trick trick;

  void Apply(Action a, const GTables& t) {
    if (VerbOf(a) == Verb::kPlay && GPhasePlay(st)) {
      const Card c = static_cast<Card>(ArgOf(a));
      trick.cards[trick.len] = c;
      trick.seats[trick.len] = static_cast<uint8_t>(st.CurrentSeat());
      trick.set.Add(c);
      if (++trick.len == t.num_seats) {
        trick.len = 0;
        trick.set = CardSet();
      }
    }
    st.Apply(a);
  }
};

// Whether an opponent of `seat` among the next `after` seats can beat `card`
// (the best card so far, suit `led` led): follow suit, else a tarock.
template <typename St>
bool GOpponentCanBeat(const St& st, const GTables& t, int seat, int after, Card card, Suit led) {
  int o = seat;
  for (int i = 0; i < after; ++i) {
    o = (o + 1) % t.num_seats;
    if (GSameSide(st, seat, o)) continue;
    const CardSet h = st.hand(o);
    const CardSet follow = h & SuitSet(led);
    CardSet beat;
    if (!follow.empty()) {
      if (SuitOf(card) == led) beat = follow & t.higher[card];
    } else {
      const CardSet tar = h & kTarockSet;
      if (!tar.empty()) beat = IsTarock(card) ? tar & t.higher[card] : tar;
    }
    if (!beat.empty()) return true;
  }
  return false;
}

template <typename Key>
Card GBestBy(CardSet set, Key key) {
  Card best = set.First();
  auto best_key = key(best);
  for (Card c : set) {
    auto k = key(c);
    if (k > best_key) {
      best = c;
      best_key = k;
    }
  }
  return best;
}

// The greedy playout policy (as PolicyMove above, for these variants; the
// Bridscher is played like Klop without "must beat").
template <typename St>
Action GPolicyMove(const GSim<St>& sim, const GTables& t, Rng& rng, double epsilon) {
  const St& st = sim.st;
  ActionList legal;
  st.LegalActions(&legal);
  if (legal.size == 1 || !GPhasePlay(st)) return legal.items[0];
  if (epsilon > 0 && rng.Below(1u << 16) < static_cast<uint32_t>(epsilon * 65536))
    return legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
  CardSet cards;
  for (Action a : legal) cards.Add(static_cast<Card>(ArgOf(a)));
  const int seat = st.CurrentSeat();
  const Trick& tr = sim.trick;
  const int after = t.num_seats - tr.len - 1;
  auto play = [](Card c) { return MakeAction(Verb::kPlay, c); };
  // Pagat Ultimo (001, 002, 004): once no other seat holds a tarock, the
  // Pagat is kept for the last trick, which it then wins.
  if (!GNegative(st) && cards.Contains(kPagat) && cards.size() > 1) {
    bool tarock_out = false;
    for (int o = 0; o < t.num_seats; ++o)
      if (o != seat && !(st.hand(o) & kTarockSet).empty()) tarock_out = true;
    if (!tarock_out) cards.Remove(kPagat);
  }

  if (GNegative(st)) {
    if (tr.len == 0) return play(GBestBy(cards, [&](Card c) { return -t.strength[c]; }));
    const Card best = tr.cards[GWinning(tr, t)];
    CardSet winners;
    for (Card c : cards)
      if (GBeats(c, best, t)) winners.Add(c);
    if (winners != cards) {
      return play(GBestBy(cards - winners, [&](Card c) { return t.thirds[c] * 64 + t.strength[c]; }));
    }
    if (after == 0) return play(GBestBy(cards, [&](Card c) { return t.strength[c] * 64 - t.thirds[c]; }));
    return play(GBestBy(cards, [&](Card c) { return -t.strength[c]; }));
  }

  if (tr.len == 0) {
    CardSet sure;
    for (Card c : cards)
      if (!GOpponentCanBeat(st, t, seat, t.num_seats - 1, c, SuitOf(c))) sure.Add(c);
    if (!sure.empty()) return play(GBestBy(sure, [&](Card c) { return t.thirds[c] * 64 - t.strength[c]; }));
    const CardSet hand = st.hand(seat);
    return play(GBestBy(cards, [&](Card c) {
      const int len = IsTarock(c) ? 20 : (hand & SuitSet(SuitOf(c))).size();
      return -(t.thirds[c] * 64 + len * 4 + (IsTarock(c) ? t.strength[c] : 0));
    }));
  }
  const int wi = GWinning(tr, t);
  const Card best = tr.cards[wi];
  const Suit led = SuitOf(tr.cards[0]);
  if (GSameSide(st, seat, tr.seats[wi]) &&
      (after == 0 || !GOpponentCanBeat(st, t, seat, after, best, led))) {
    return play(GBestBy(cards, [&](Card c) {
      return IsTarock(c) ? -(t.thirds[c] * 64 + t.strength[c]) - 100000 : t.thirds[c];
    }));
  }
  CardSet winners;
  for (Card c : cards) {
    if (!GBeats(c, best, t)) continue;
    if (after > 0 && GOpponentCanBeat(st, t, seat, after, c, led)) continue;
    winners.Add(c);
  }
  if (!winners.empty())
    return play(GBestBy(winners, [&](Card c) { return -(t.strength[c] + (IsTarock(c) ? 64 : 0)); }));
  return play(GBestBy(cards, [&](Card c) {
    return -(t.thirds[c] * 64 + t.strength[c] + (kTrulaSet.Contains(c) ? 4096 : 0));
  }));
}

template <typename St>
double GUtility(const St& st, int seat, int num_seats) {
  const HandResult r = st.Result();
  double others = 0;
  for (int s = 0; s < num_seats; ++s)
    if (s != seat) others += r.scores[s];
  return r.scores[seat] - others / (num_seats - 1);
}

template <typename St>
double GMinimax(const GSim<St>& sim, int me, const GTables& t, double alpha, double beta) {
  if (sim.st.IsTerminal()) return GUtility(sim.st, me, t.num_seats);
  ActionList legal;
  sim.st.LegalActions(&legal);
  const bool maximize = GSameSide(sim.st, me, sim.st.CurrentSeat());
  double best = maximize ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
  for (Action a : legal) {
    GSim<St> child = sim;
    child.Apply(a, t);
    const double v = GMinimax(child, me, t, alpha, beta);
    if (maximize) {
      best = std::max(best, v);
      alpha = std::max(alpha, v);
    } else {
      best = std::min(best, v);
      beta = std::min(beta, v);
    }
    if (alpha >= beta) break;
  }
  return best;
}

// The current trick from the observation (these variants: every seat plays).
Trick GTrickOf(const sdk::Situation& s, int num_seats) {
  std::vector<std::pair<int, Card>> plays;
  for (const v1::Event& e : s.observation().history()) {
    if (!absl::StartsWith(e.action(), "play ")) continue;
    if (std::optional<Card> c = sdk::CardOfAction(e.action())) plays.emplace_back(e.seat(), *c);
  }
  Trick tr;
  const int k = static_cast<int>(plays.size()) % num_seats;
  for (int i = static_cast<int>(plays.size()) - k; i < static_cast<int>(plays.size()); ++i) {
    tr.cards[tr.len] = plays[i].second;
    tr.seats[tr.len] = static_cast<uint8_t>(plays[i].first);
    tr.set.Add(plays[i].second);
    ++tr.len;
  }
  return tr;
}

// PIMC over the determinizer's samples (see above). `sample` draws one state
// (nullopt when none was found).
template <typename St, typename SampleFn>
absl::StatusOr<SearchResult> GenericSearch(const sdk::Situation& s, const SearchOptions& options,
                                           int64_t budget, Rng& rng, SampleFn sample) {
  const Game& game = *s.game();
  const GTables tables = MakeGTables(game);
  const Trick trick = GTrickOf(s, tables.num_seats);
  SearchResult out;
  std::vector<Action> actions;
  for (const std::string& text : s.legal()) {
    absl::StatusOr<Action> a = game.ParseAction(text);
    if (!a.ok()) return a.status();
    actions.push_back(*a);
    out.actions.push_back(text);
  }
  std::vector<double> sum(actions.size(), 0.0);
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(budget);
  const int iterations = options.iterations > 0 || budget > 0 ? options.iterations : 1;
  const bool exact = s.hand().size() <= options.exact_cards;
  int failures = 0;
  for (int i = 0; iterations == 0 || i < iterations; ++i) {
    if (budget > 0 && out.determinizations > 0 && Clock::now() >= deadline) break;
    std::optional<St> st = sample(rng);
    if (!st) {
      if (++failures > 3) break;
      continue;
    }
    const GSim<St> base{*std::move(st), trick};
    const uint64_t playout_seed = rng.Next();
    for (size_t k = 0; k < actions.size(); ++k) {
      GSim<St> sim = base;
      sim.Apply(actions[k], tables);
      if (exact) {
        sum[k] += GMinimax(sim, s.seat(), tables, -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity());
        continue;
      }
      Rng prng(playout_seed);
      while (!sim.st.IsTerminal()) sim.Apply(GPolicyMove(sim, tables, prng, options.epsilon), tables);
      sum[k] += GUtility(sim.st, s.seat(), tables.num_seats);
    }
    ++out.determinizations;
  }
  if (out.determinizations == 0) return absl::NotFoundError("no consistent sample");
  out.mean.resize(actions.size());
  size_t best = 0;
  for (size_t k = 0; k < actions.size(); ++k) {
    out.mean[k] = sum[k] / out.determinizations;
    if (out.mean[k] > out.mean[best]) best = k;
  }
  out.best = out.actions[best];
  return out;
}

}  // namespace

SearchBot::SearchBot(SearchOptions options, std::unique_ptr<sdk::Bot> delegate)
    : options_(options), delegate_(std::move(delegate)), rng_(options.seed) {}

SearchBot::~SearchBot() = default;

void SearchBot::StartMatch(const sdk::MatchInfo& match) {
  const uint64_t seed = options_.seed != 0 ? options_.seed + match.seat : std::random_device{}();
  rng_ = Rng(seed);
  if (delegate_) delegate_->StartMatch(match);
}

void SearchBot::StartHand(const v1::HandStart& hand) {
  forced_klop_ = hand.forced_klop();
  if (delegate_) delegate_->StartHand(hand);
}

void SearchBot::EndHand(const v1::HandResult& result) {
  if (delegate_) delegate_->EndHand(result);
}

void SearchBot::EndMatch(const v1::MatchResult& result) {
  if (delegate_) delegate_->EndMatch(result);
}

int64_t SearchBot::BudgetMs(const sdk::Situation& s) const {
  int64_t budget = options_.budget_ms;  // 0: none of our own
  if (s.time_left_ms() > 0) {
    // The referee's limit, less a margin for the transport and the clock.
    const int64_t cap = std::max<int64_t>(1, s.time_left_ms() * 4 / 5 - options_.margin_ms);
    budget = budget > 0 ? std::min(budget, cap) : cap;
  }
  if (s.bank_left_ms() > 0) {
    // An even share of the bank over the decisions still to come (about 20 a
    // hand is more than any seat takes).
    const int hands_left = std::max(1, s.match().num_hands - s.hand_index());
    const int64_t share = std::max<int64_t>(1, s.bank_left_ms() / (hands_left * 20));
    budget = budget > 0 ? std::min(budget, share) : share;
  }
  return budget;
}

// One bidding decision of another seat, as that seat saw it, to ask the
// delegate what it would have done with a sampled hand (the opponent model).
struct SearchBot::BidCheck {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
  int seat = 0;
  std::string action;
};

std::vector<SearchBot::BidCheck> SearchBot::BiddingChecks(const sdk::Situation& s,
                                                          const sdk::Determinizer& det) {
  std::vector<BidCheck> out;
  if (!delegate_ || options_.bid_mismatch_accept >= 1.0) return out;
  // The public side of each decision is the same in every sample: any sample
  // gives the observations; only the hand is replaced later.
  absl::StatusOr<sdk::Determinizer::Sampled> sampled = det.SampleDeal(rng_);
  if (!sampled.ok()) return out;
  absl::StatusOr<std::unique_ptr<State>> st = s.game()->NewHand(sampled->deal, det.setup());
  if (!st.ok()) return out;
  for (Action a : sampled->actions) {
    State& state = **st;
    const std::string phase = state.PhaseName();
    const int actor = state.CurrentSeat();
    if (actor != s.seat() && (phase == "bidding" || phase == "declare" || phase == "king-call")) {
      const Observation obs = state.Observe(actor);
      if (obs.legal.size() > 1) {
        BidCheck c;
        c.match = s.match();
        c.match.seat = actor;
        c.request = MakeDecisionRequest(obs, 0, s.hand_index(), 0);
        c.seat = actor;
        c.action = s.game()->ActionToString(a);
        out.push_back(std::move(c));
      }
    }
    state.Apply(a);
  }
  return out;
}

bool SearchBot::BidsFit(std::vector<BidCheck>& checks, const State& sample) {
  if (checks.empty()) return true;
  const Deal deal = sample.GetDeal();
  for (BidCheck& c : checks) {
    auto* hand = c.request.mutable_observation()->mutable_hand();
    hand->Clear();
    for (Card card : deal.hands[c.seat]) hand->Add(CardName(card));
    if (delegate_->Decide(sdk::Situation(c.match, c.request)) != c.action) return false;
  }
  return true;
}

absl::StatusOr<SearchResult> SearchBot::Search(const sdk::Situation& s) {
  if (s.game() != nullptr && (dynamic_cast<const AustrianGame*>(s.game()) != nullptr ||
                              dynamic_cast<const WestfestGame*>(s.game()) != nullptr)) {
    // The Austrian variants and westfest: the play only.
    absl::StatusOr<sdk::Determinizer> det = sdk::Determinizer::Create(*s.game(), s.observation());
    if (!det.ok()) return det.status();
    const int64_t budget = BudgetMs(s);
    // Fewer attempts than the SDK's default: a failed sample costs the
    // decision's time, and GenericSearch gives up after a few of them.
    constexpr int kAttempts = 500;
    if (dynamic_cast<const AustrianGame*>(s.game()) != nullptr) {
      return GenericSearch<AustrianState>(s, options_, budget, rng_, [&](Rng& rng) {
        absl::StatusOr<AustrianState> st = det->SampleAustrianState(rng, kAttempts);
        return st.ok() ? std::optional<AustrianState>(*std::move(st)) : std::nullopt;
      });
    }
    return GenericSearch<WestfestState>(s, options_, budget, rng_, [&](Rng& rng) {
      absl::StatusOr<WestfestState> st = det->SampleWestfestState(rng, kAttempts);
      return st.ok() ? std::optional<WestfestState>(*std::move(st)) : std::nullopt;
    });
  }
  const auto* game = dynamic_cast<const SlovenianGame*>(s.game());
  if (game == nullptr) return absl::UnimplementedError("search knows the Slovenian family only");
  absl::StatusOr<sdk::Determinizer> det = sdk::Determinizer::Create(*game, s.request(), forced_klop_);
  if (!det.ok()) return det.status();
  const Tables tables(*game, s.observation().dealer());
  const Trick trick = TrickOf(s, tables);
  SearchResult out;
  std::vector<Action> actions;
  for (const std::string& text : s.legal()) {
    absl::StatusOr<Action> a = game->ParseAction(text);
    if (!a.ok()) return a.status();
    actions.push_back(*a);
    out.actions.push_back(text);
  }
  std::vector<double> sum(actions.size(), 0.0);
  const int64_t budget = BudgetMs(s);
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(budget);
  const int iterations = options_.iterations > 0 || budget > 0 ? options_.iterations : 1;
  // Few cards left: every sample is solved exactly.
  const bool exact = s.phase() == "play" && s.hand().size() <= options_.exact_cards;
  std::vector<BidCheck> checks = BiddingChecks(s, *det);
  const uint32_t mismatch_accept = static_cast<uint32_t>(options_.bid_mismatch_accept * 65536);
  int failures = 0;
  for (int i = 0; iterations == 0 || i < iterations; ++i) {
    if (budget > 0 && out.determinizations > 0 && Clock::now() >= deadline) break;
    absl::StatusOr<SlovenianState> sample = det->SampleState(rng_);
    if (!sample.ok()) {
      if (++failures > 3) break;
      continue;
    }
    // Hands that would not have bid as their seats did are mostly drawn
    // again (a few stay: the others may bid differently from the model).
    for (int tries = 0; tries < 30 && !BidsFit(checks, *sample); ++tries) {
      if (rng_.Below(65536) < mismatch_accept) break;
      absl::StatusOr<SlovenianState> again = det->SampleState(rng_);
      if (!again.ok()) break;
      sample = std::move(again);
    }
    Sim base{*std::move(sample), trick};
    // The same playout randomness for every action of a sample: the actions
    // are compared on equal terms.
    const uint64_t playout_seed = rng_.Next();
    for (size_t k = 0; k < actions.size(); ++k) {
      Sim sim = base;
      sim.Apply(actions[k], tables);
      if (exact) {
        sum[k] += Minimax(sim, s.seat(), tables, options_.utility, -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::infinity());
        continue;
      }
      Rng prng(playout_seed);
      PlayOut(&sim, tables, prng, options_.epsilon);
      sum[k] += Utility(sim.st, s.seat(), tables, options_.utility);
    }
    ++out.determinizations;
  }
  if (out.determinizations == 0) return absl::NotFoundError("no consistent sample");
  out.mean.resize(actions.size());
  size_t best = 0;
  for (size_t k = 0; k < actions.size(); ++k) {
    out.mean[k] = sum[k] / out.determinizations;
    if (out.mean[k] > out.mean[best]) best = k;
  }
  out.best = out.actions[best];
  return out;
}

std::string SearchBot::Decide(const sdk::Situation& s) {
  if (s.legal().empty()) return "";
  if (s.legal().size() == 1) return s.legal()[0];
  const bool searched = s.phase() == "play" || (s.phase() == "talon" && options_.search_talon) ||
                        (s.phase() == "discard" && options_.search_discard);
  if (searched && s.game() != nullptr) {
    absl::StatusOr<SearchResult> r = Search(s);
    if (r.ok()) return r->best;
  }
  if (delegate_) {
    std::string a = delegate_->Decide(s);
    if (options_.bid_boost > 0 && s.phase() == "bidding" && (a == "pass" || a == "bid klop")) {
      // Where the delegate stays out, bid the lowest simple contract the hand
      // carries by the lowered thresholds.
      const double strength = EvaluateHand(s.hand()).strength;
      for (const std::string& b : s.legal()) {
        if (!absl::StartsWith(b, "bid ")) continue;
        const std::string contract = b.substr(4);
        if (contract == "klop") continue;
        if (strength >= BidThreshold(s.observation().variant(), contract) - options_.bid_boost) a = b;
        break;  // only the lowest bid above Klop
      }
    }
    if (s.IsLegal(a)) return a;
  }
  return DecideByRules(s);
}

// Simple rules for the phases the bot does not search, when it has no delegate.
std::string SearchBot::DecideByRules(const sdk::Situation& s) {
  const std::vector<std::string>& legal = s.legal();
  const CardSet hand = s.hand();
  const int tarocks = (hand & kTarockSet).size();
  const int high = (hand & CardSet(((uint64_t{1} << 22) - 1) & ~((uint64_t{1} << 16) - 1))).size();  // T17..T22
  const int kings = (hand & kKingSet).size();
  const double scale = 12.0 / std::max(1, hand.size());
  const double points = (tarocks + high + kings) * scale;
  const std::string& phase = s.phase();
  if (phase == "bidding" || phase == "declare") {
    // The lowest bid above Klop when the hand is strong; Klop or the lowest
    // bid when passing is not allowed.
    std::string lowest, klop;
    int lowest_c = 99;
    for (const std::string& a : legal) {
      if (!absl::StartsWith(a, "bid ")) continue;
      const int c = ContractIndex(a.substr(4));
      if (c == 0) klop = a;
      else if (c > 0 && c < lowest_c) {
        lowest_c = c;
        lowest = a;
      }
    }
    const bool can_pass = s.IsLegal("pass");
    if (phase == "declare") return lowest.empty() ? legal[0] : lowest;
    if (!can_pass) {
      if (points >= 11 && !lowest.empty() && lowest_c <= 3) return lowest;
      return klop.empty() ? legal[0] : klop;
    }
    if (points >= 14 && !lowest.empty() && lowest_c <= 3) return lowest;
    return "pass";
  }
  if (phase == "king-call") {
    // A king of a short suit: the partner's king then wins or we trump.
    std::string best = legal[0];
    int best_len = 99;
    for (const std::string& a : legal) {
      absl::StatusOr<Suit> suit = ParseSuit(a.substr(5));
      if (!suit.ok() || hand.Contains(King(*suit))) continue;
      const int len = (hand & SuitSet(*suit)).size();
      if (len < best_len) {
        best_len = len;
        best = a;
      }
    }
    return best;
  }
  if (phase == "talon") {
    // The group worth most to the hand, from the shown talon.
    const v1::Observation& o = s.observation();
    std::vector<Card> talon;
    for (const std::string& n : o.talon()) {
      absl::StatusOr<Card> c = ParseCard(n);
      talon.push_back(c.ok() ? *c : kNoCard);
    }
    const int groups = static_cast<int>(legal.size());
    const bool tapp = o.variant() == "slovenian-tapp";
    std::string best = legal[0];
    int best_v = -1;
    for (int g = 0; g < groups; ++g) {
      std::vector<Card> cards;
      if (tapp && groups == 3) {
        cards = {talon[g], talon[g + 3]};
      } else {
        const int k = 6 / groups;
        for (int i = 0; i < k; ++i) cards.push_back(talon[g * k + i]);
      }
      int v = 0;
      for (Card c : cards) {
        if (c == kNoCard) continue;
        v += CardThirds(c) + (IsTarock(c) ? 10 : 0) + (kKingSet.Contains(c) ? 10 : 0);
      }
      if (v > best_v) {
        best_v = v;
        best = "talon " + std::to_string(g);
      }
    }
    return best;
  }
  if (phase == "discard") {
    std::string best = legal[0];
    int best_key = std::numeric_limits<int>::min();
    for (const std::string& a : legal) {
      std::optional<Card> c = sdk::CardOfAction(a);
      if (!c) continue;
      const int key = IsTarock(*c) ? -100000 - *c
                                   : -(hand & SuitSet(SuitOf(*c))).size() * 100 + CardThirds(*c);
      if (key > best_key) {
        best_key = key;
        best = a;
      }
    }
    return best;
  }
  if (s.IsLegal("pass")) return "pass";
  return legal[0];
}

absl::StatusOr<SearchOptions> ParseSearchOptions(const std::string& spec, SearchOptions o) {
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    const std::string& k = kv.first;
    const std::string& v = kv.second;
    bool ok = true;
    if (k == "iterations") ok = absl::SimpleAtoi(v, &o.iterations) && o.iterations >= 0;
    else if (k == "budget_ms") ok = absl::SimpleAtoi(v, &o.budget_ms) && o.budget_ms >= 0;
    else if (k == "margin_ms") ok = absl::SimpleAtoi(v, &o.margin_ms) && o.margin_ms >= 0;
    else if (k == "seed") ok = absl::SimpleAtoi(v, &o.seed);
    else if (k == "epsilon") ok = absl::SimpleAtod(v, &o.epsilon) && o.epsilon >= 0 && o.epsilon <= 1;
    else if (k == "exact_cards") ok = absl::SimpleAtoi(v, &o.exact_cards) && o.exact_cards >= 0;
    else if (k == "search_talon") ok = absl::SimpleAtob(v, &o.search_talon);
    else if (k == "search_discard") ok = absl::SimpleAtob(v, &o.search_discard);
    else if (k == "bid_boost") ok = absl::SimpleAtod(v, &o.bid_boost);
    else if (k == "bid_mismatch_accept")
      ok = absl::SimpleAtod(v, &o.bid_mismatch_accept) && o.bid_mismatch_accept >= 0 && o.bid_mismatch_accept <= 1;
    else if (k == "utility") {
      if (v == "relative") o.utility = SearchOptions::Utility::kRelative;
      else if (v == "own") o.utility = SearchOptions::Utility::kOwn;
      else ok = false;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown search option '", k, "'"));
    }
    if (!ok) return absl::InvalidArgumentError(absl::StrCat("bad value '", v, "' for search option ", k));
  }
  return o;
}

std::unique_ptr<sdk::Bot> MakeSearchBot(SearchOptions options, uint64_t seed) {
  if (seed != 0) options.seed = seed;
  return std::make_unique<SearchBot>(options, std::make_unique<HeuristicBot>());
}

std::unique_ptr<sdk::Bot> MakeSearchBotFromEnvironment(uint64_t seed) {
  SearchOptions options;
  if (const char* spec = std::getenv("TAROCK_SEARCH_OPTIONS")) {
    absl::StatusOr<SearchOptions> parsed = ParseSearchOptions(spec, options);
    if (parsed.ok()) {
      options = *parsed;
    } else {
      std::cerr << "TAROCK_SEARCH_OPTIONS: " << parsed.status().message() << " (ignored)\n";
    }
  }
  return MakeSearchBot(options, seed);
}

}  // namespace tarock::bots
