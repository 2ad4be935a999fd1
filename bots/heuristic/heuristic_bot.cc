// The `heuristic` reference bot: see heuristic_bot.h for what it does.
//
// Structure: Decide() dispatches on the legal actions and the phase. Bidding,
// king call, talon, discard and announcements are point-count rules. For play
// a Ctx gathers from the observation where every unseen card may be, which
// seats have shown a void (or, under "must beat", that they hold nothing
// higher), and who is on whose side (a probability while the called king's
// holder is unknown); then
//   - in positive contracts every playable card is scored by the card points
//     its side should take in this trick minus what the card is worth if kept
//     (its chance to win a later trick, or to be smeared onto a partner's),
//     less the risk of a Mondfang / Lost 21; the Pagat is kept for the last
//     trick only when no other tarock is out, and shed before the end
//     otherwise;
//   - in Klop and Beggar it avoids tricks: it sheds its most dangerous cards
//     onto tricks someone else must take, and when it must beat, beats so low
//     that a later seat (who must beat too) probably overtakes; the Austrian
//     Bridscher (each for himself, the most points lose) is played the same
//     way, without "must beat".
// The variants outside the Slovenian family (tapp-tarock, tapp-tarock-classic,
// westfest) share the play model with their own card points, trick ranks (no
// Imperator, westfest's red pips), sides (the declarer alone; in westfest the
// holder of the called tarock is the partner) and Pagat Ultimo values; their
// bidding, talon, discard and announcement rules are their own (see the
// "Austrian" and "Westfest" sections below).
// The probabilities come from one simple model: every card whose place this
// seat does not know is equally likely in any free slot of the seats that may
// hold it (hypergeometric draws).
//
// Thread-safety: no state between decisions; see the header.

#include "bots/heuristic/heuristic_bot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace tarock::bots {
namespace {

constexpr int kMaxSeats = 5;
constexpr int kNoSeat = -1;

// Card points as a real number (thirds / 3): K and the trula 4 1/3, Q 3 1/3,
// N 2 1/3, J 1 1/3, any other card 1/3. Summed over a trick this is what the
// scoring counts, so it is the unit of every estimate below.
double Pts(Card c) { return CardThirds(c) / 3.0; }

// Play constants, tuned in duplicate matches of the bot against its previous
// version (slovenian-4p, -3p and -tapp; -5p plays as -4p).
constexpr double kSmearChance = 0.35;      // a card that cannot win: chance it is smeared later
constexpr double kTarockPower = 0.6;       // any tarock's worth beyond its own chances
constexpr double kPartnerOvertakes = 0.7;  // a partner beats the opponents' card when he can
constexpr double kDrawTrumps = 1.5;        // a strong declarer side leads its master tarocks

std::optional<Card> CardArg(absl::string_view action, absl::string_view verb) {
  if (!absl::ConsumePrefix(&action, verb)) return std::nullopt;
  absl::StatusOr<Card> c = ParseCard(action);
  if (!c.ok()) return std::nullopt;
  return *c;
}

// The arguments of the legal actions with the given verb ("bid ", "call ", ...).
std::vector<std::string> ArgsOf(const std::vector<std::string>& legal, absl::string_view verb) {
  std::vector<std::string> out;
  for (const std::string& a : legal) {
    absl::string_view rest = a;
    if (absl::ConsumePrefix(&rest, verb)) out.emplace_back(rest);
  }
  return out;
}

bool Has(const std::vector<std::string>& v, absl::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

CardSet SetOf(Card c) { return CardSet::Of(c); }

// Cards in the set stronger than `c` in its own suit (tarocks: higher tarocks).
CardSet HigherInSuit(Card c, const RankTable& ranks) {
  CardSet out;
  for (Card d : SuitSet(SuitOf(c)))
    if (ranks.strength[d] > ranks.strength[c]) out.Add(d);
  return out;
}

// ---------------------------------------------------------------------------
// Bidding.

// Contract families as this bot thinks of them.
enum class Kind { kNone, kKlop, kPositive, kBeggar, kBridscher };

Kind KindOf(absl::string_view contract) {
  if (contract.empty()) return Kind::kNone;
  if (contract == "klop") return Kind::kKlop;
  if (contract == "bridscher") return Kind::kBridscher;
  if (contract == "beggar" || contract == "open-beggar") return Kind::kBeggar;
  return Kind::kPositive;
}

// The point count each contract needs. Calibrated in heuristic self-play:
// 4,000 deals, each played once per contract with the dealer forced into it,
// gave the declarer's mean score by point count; a contract is bid from the
// count where that turns positive (the dealer's forced choice: where it beats
// Klop). Partner games (12 cards, king calling; 4p and 5p):
struct Threshold {
  const char* contract;
  double strength;
};
constexpr Threshold kPartnerThresholds[] = {
    {"three", 7.5},     {"two", 9.0},       {"one", 11.0},          {"solo-three", 13.5},
    {"solo-two", 14.5}, {"solo-one", 15.5}, {"solo-without", 19.0},
};
// Alone against two (16 cards). slovenian-3p: only the dealer, facing two
// passes, may choose Three, and his alternative is Klop.
constexpr Threshold kThreeHandThresholds[] = {
    {"three", 10.5},
    {"two", 14.5},
    {"one", 16.0},
    {"solo-without", 21.0},
};
// slovenian-tapp: anyone may open with Three; no one is forced to play.
constexpr Threshold kTappThresholds[] = {
    {"three", 13.5},
    {"two", 15.0},
    {"one", 17.0},
    {"solo-without", 21.0},
};

enum class Family { kPartner, kThreeHand, kTapp };

// The rule families this bot knows; anything else is played as Slovenian.
enum class Rules { kSlovenian, kTapp001, kClassic002, kWestfest };

Rules RulesOf(absl::string_view variant) {
  if (variant == "tapp-tarock") return Rules::kTapp001;
  if (variant == "tapp-tarock-classic") return Rules::kClassic002;
  if (variant == "westfest") return Rules::kWestfest;
  return Rules::kSlovenian;
}

Family FamilyOf(absl::string_view variant, int num_seats) {
  if (variant == "slovenian-tapp") return Family::kTapp;
  if (num_seats == 3) return Family::kThreeHand;
  return Family::kPartner;
}

double ThresholdFor(absl::string_view contract, Family family) {
  auto find = [&](const auto& table) {
    for (const Threshold& t : table)
      if (contract == t.contract) return t.strength;
    return 1e9;  // never bid it (valat, colour-valat, open-beggar)
  };
  switch (family) {
    case Family::kPartner:
      return find(kPartnerThresholds);
    case Family::kThreeHand:
      return find(kThreeHandThresholds);
    case Family::kTapp:
      return find(kTappThresholds);
  }
  return 1e9;
}

}  // namespace

HandEval EvaluateHand(CardSet hand) {
  HandEval e;
  const CardSet tarocks = hand & kTarockSet;
  e.tarocks = tarocks.size();
  e.skis = hand.Contains(kSkis);
  e.mond = hand.Contains(kMond);
  e.pagat = hand.Contains(kPagat);
  double s = 0;
  for (Card t : tarocks) {
    const int r = RankOf(t) + 1;  // T1..T22
    if (r == 22) {
      s += 3.0;
    } else if (r == 21) {
      s += 2.5;
    } else if (r >= 17) {
      s += 1.6;
    } else if (r >= 11) {
      s += 1.2;
    } else if (r >= 2) {
      s += 1.0;
    } else {
      // The Pagat is a liability unless many tarocks protect it.
      s += e.tarocks >= 7 ? 1.0 : 0.3;
    }
    if (r >= 17) ++e.high_tarocks;
  }
  for (int su = 0; su < 4; ++su) {
    const Suit suit = static_cast<Suit>(su);
    const CardSet cards = hand & SuitSet(suit);
    const int n = cards.size();
    const bool king = cards.Contains(King(suit));
    const bool queen = cards.Contains(SuitCard(suit, kQueenRank));
    if (king) {
      ++e.kings;
      s += 2.0;
    }
    if (queen) s += king ? 1.0 : (n >= 2 ? 0.6 : 0.3);
    if (n == 0) {
      ++e.voids;
      s += e.tarocks >= 4 ? 1.2 : 0.3;
    } else if (n == 1 && !king) {
      s += e.tarocks >= 4 ? 0.5 : 0.0;
    }
    if (n >= 4) s -= 0.3 * (n - 3);
  }
  e.strength = s;

  // Beggar: under "must beat" every card that may have to win is a danger. In
  // self-play the declarer keeps a clean sheet more often than not only with
  // at most two low tarocks (T10 or lower), no void (a void with tarocks forces
  // a trump onto a suit lead) and at most one king or queen.
  int kq = 0;
  for (int su = 0; su < 4; ++su) {
    const Suit suit = static_cast<Suit>(su);
    kq += hand.Contains(King(suit)) + hand.Contains(SuitCard(suit, kQueenRank));
  }
  const bool beggar = e.tarocks <= 2 && e.voids == 0 && kq <= 1 &&
                      (tarocks.empty() || RankOf(tarocks.Last()) + 1 <= 10);
  e.beggar = beggar;
  return e;
}

namespace {

// ---------------------------------------------------------------------------
// Everything the bot derives from one Situation.

class Ctx {
 public:
  Ctx(const sdk::Situation& s);

  const sdk::Situation& s;
  const v1::Observation& obs;
  RankTable ranks;
  bool imperator = true;
  bool mondfang_in_klop = false;  // 003 §4.6.2 (issue 11's default): the Mond costs 20 in Klop too
  std::string variant;
  bool tapp = false;
  Rules rules = Rules::kSlovenian;
  bool simplified = false;  // tapp-tarock counting=simplified
  // What a low card adds to a trick (the estimate for cards not yet played).
  double low_card = 0.8;
  int pagat_caller = kNoSeat;  // announced Pagat Ultimo (not in the Slovenian family)
  // Play constants (see kTarockPower, kDrawTrumps), per variant: tuned in
  // duplicate matches against the previous version of the bot. Alone against
  // two (001, 002) the declarer gains little from drawing trumps early; in
  // westfest's raw count a tarock kept is worth more.
  double tarock_power = kTarockPower;
  double draw_trumps = kDrawTrumps;
  int me = 0;
  int n = 4;
  int dealer = 0;
  int sitout = kNoSeat;  // 5p: the dealer
  int num_active = 4;
  int hand_size = 12;
  std::string contract;
  Kind kind = Kind::kNone;
  bool trumps = true;         // false in Colour Valat
  bool partner_game = false;  // a king was (or will be) called
  int declarer = kNoSeat;
  CardSet hand;

  // Card points of a card in the unit every estimate uses: thirds / 3 (the
  // traditional count), westfest's raw value, tapp-tarock's simplified value.
  double P(Card c) const {
    if (rules == Rules::kWestfest) return CardValue(c);
    if (simplified) return CardValue(c) > 1 ? CardValue(c) : 0.0;
    return Pts(c);
  }

  int NextActive(int seat) const {
    int t = (seat + 1) % n;
    if (t == sitout) t = (t + 1) % n;
    return t;
  }
  bool Beats(Card a, Card best) const {
    if (IsTarock(a)) return IsTarock(best) ? a > best : trumps;
    if (IsTarock(best)) return false;
    return SuitOf(a) == SuitOf(best) && ranks.strength[a] > ranks.strength[best];
  }
  // Index of the winning card of a (partial) trick.
  int BestIndex(const std::vector<Card>& cards) const {
    if (cards.empty()) return -1;
    int bi = 0;
    CardSet all = SetOf(cards[0]);
    for (size_t i = 1; i < cards.size(); ++i) {
      all.Add(cards[i]);
      if (Beats(cards[i], cards[bi])) bi = static_cast<int>(i);
    }
    if (imperator && all.ContainsAll(kTrulaSet) && (trumps || IsTarock(cards[0]))) {
      for (size_t i = 0; i < cards.size(); ++i)
        if (cards[i] == kPagat) return static_cast<int>(i);
    }
    return bi;
  }

  // ---- Play knowledge (BuildPlay) ----
  std::vector<Card> trick;
  std::vector<int> trick_seats;  // seat of each card of the trick
  std::vector<int> later;        // seats still to play after me, in order
  CardSet played;
  CardSet pool;  // cards whose place I do not know (others' hands or out of play)
  std::array<CardSet, kMaxSeats> known{};     // cards known to be in that hand
  std::array<CardSet, kMaxSeats> excluded{};  // cards that seat cannot hold
  std::array<int, kMaxSeats> free{};          // unknown cards in that hand
  std::array<double, kMaxSeats> ally{};       // probability the seat is on my side
  int tricks_done = 0;
  int tricks_total = 12;
  std::array<double, kMaxSeats> won_pts{};  // card points taken so far (Klop gifts included)
  std::array<int, kMaxSeats> won_tricks{};
  bool has_ally = false;  // someone (known or not) plays on my side

  void BuildPlay();

  // Probability that `seat` holds at least one card of `cards`, optionally
  // given that it is void in suit `void_suit` (-1: no such assumption).
  double PHoldsAny(int seat, CardSet cards, int void_suit = -1) const {
    if (!(cards & known[seat]).empty()) return 1.0;
    CardSet up = pool - excluded[seat];
    if (void_suit >= 0) up -= SuitSet(static_cast<Suit>(void_suit));
    const int u = up.size();
    const int k = (cards & up).size();
    int f = std::min(free[seat], u);
    if (k == 0 || f <= 0) return 0.0;
    double none = 1.0;
    for (int i = 0; i < f; ++i) {
      const int num = u - k - i;
      if (num <= 0) return 1.0;
      none *= static_cast<double>(num) / (u - i);
    }
    return 1.0 - none;
  }
  // Cards of a set that another seat might hold (pool plus known hands).
  CardSet Out() const {
    CardSet o = pool;
    for (int p = 0; p < n; ++p)
      if (p != me) o |= known[p];
    return o;
  }
  // Probability that `seat`, playing after `best` in a trick led with `led`,
  // can beat it.
  double PBeat(int seat, Card best, Suit led, CardSet on_table) const;
  // Probability that my side wins the trick if I play `c` now.
  double PSideWins(Card c) const;
  // What `c` is worth to my side if I keep it (card points it should still bring).
  double KeepValue(Card c) const;
  // Expected card points the Mond costs (Mondfang / Lost 21) if played now.
  double MondRisk(Card c) const;
};

Ctx::Ctx(const sdk::Situation& sit) : s(sit), obs(sit.observation()) {
  const Options& opts = s.match().options;
  auto opt = [&](const char* k, const char* d) -> std::string {
    auto it = opts.find(k);
    if (it != opts.end()) return it->second;
    // An option the match did not name has the variant's default, which the
    // game knows (003's red pips, for one, default to numeric since issue 11).
    if (s.game() != nullptr) {
      auto g = s.game()->options().find(k);
      if (g != s.game()->options().end()) return g->second;
    }
    return d;
  };
  ranks = RankTable::Make(opt("red_pip_order", "traditional") == "numeric");
  imperator = opt("imperator", "on") == "on";
  variant = obs.variant();
  tapp = variant == "slovenian-tapp";
  rules = RulesOf(variant);
  if (rules != Rules::kSlovenian) imperator = false;  // 001, 002, 004: the highest tarock wins
  mondfang_in_klop = rules == Rules::kSlovenian && !tapp && opt("mondfang_in_klop", "no") == "yes";
  if (rules == Rules::kTapp001) simplified = opt("counting", "traditional") == "simplified";
  if (rules == Rules::kWestfest) {
    // 004: red pips 1 > 4 > 3 > 2 unless red_pip_order=traditional (1 2 3 4).
    // Red rank indices are 4, 3, 2, 1 for ranks 0..3.
    if (opt("red_pip_order", "document") != "traditional") {
      constexpr int kDocumentRed[4] = {2, 1, 0, 3};
      for (Suit su : {kHearts, kDiamonds})
        for (int r = 0; r < 4; ++r) ranks.strength[SuitCard(su, r)] = kDocumentRed[r];
    }
    low_card = 0.8 + 2.0 / 3.0;  // raw points: every card counts 2/3 more than in thirds
  }
  if (simplified) low_card = 0.4;
  if (rules == Rules::kTapp001 || rules == Rules::kClassic002) draw_trumps = 0.5;
  if (rules == Rules::kWestfest) tarock_power = 2.5;
  me = s.seat();
  n = std::clamp(s.num_seats(), 1, kMaxSeats);
  dealer = obs.dealer();
  if (s.game() != nullptr) {
    hand_size = s.game()->info().hand_size;
  } else {
    hand_size = n == 3 ? 16 : 12;
  }
  if (hand_size <= 0) hand_size = 12;
  // 48 cards go to the players: 4 hands of 12 or 3 of 16; a fifth seat sits out.
  num_active = std::clamp(48 / hand_size, 1, n);
  if (num_active < n && dealer >= 0 && dealer < n) sitout = dealer;
  tricks_total = hand_size;
  contract = obs.contract();
  kind = KindOf(contract);
  trumps = contract != "colour-valat";
  partner_game = !obs.called_king().empty() ||
                 ((contract == "three" || contract == "two" || contract == "one") && n >= 4);
  declarer = obs.declarer();
  hand = s.hand();
}

void Ctx::BuildPlay() {
  trick = s.trick();
  const int leader = s.trick_leader();
  {
    int seat = leader;
    for (size_t i = 0; i < trick.size() && seat >= 0; ++i) {
      trick_seats.push_back(seat);
      seat = NextActive(seat);
    }
    // I am next; the rest of the trick follows me.
    int cnt = static_cast<int>(trick.size()) + 1;
    int seat2 = NextActive(me);
    while (cnt < num_active) {
      later.push_back(seat2);
      seat2 = NextActive(seat2);
      ++cnt;
    }
  }

  // Talon: which cards are visible, which group the declarer took.
  std::array<Card, 6> talon;
  std::array<bool, 6> talon_seen{};
  for (int i = 0; i < 6 && i < obs.talon_size(); ++i) {
    absl::StatusOr<Card> c = ParseCard(obs.talon(i));
    talon_seen[i] = c.ok();
    talon[i] = c.ok() ? *c : kNoCard;
  }
  CardSet talon_visible;
  for (int i = 0; i < 6; ++i)
    if (talon_seen[i]) talon_visible.Add(talon[i]);

  std::array<int, kMaxSeats> plays{};
  CardSet discards_seen;  // discards whose card this seat knows
  int taken_group = -1;
  // Trick reconstruction for voids: every num_active plays form a trick.
  std::vector<Card> cur;
  std::vector<int> cur_seats;
  // "Must beat" (003 §4.6.3) is a Slovenian rule only.
  const bool negative =
      rules == Rules::kSlovenian && (kind == Kind::kKlop || kind == Kind::kBeggar);
  for (const v1::Event& e : obs.history()) {
    const std::string& a = e.action();
    const int seat = e.seat();
    if (seat < 0 || seat >= n) continue;
    if (std::optional<Card> c = CardArg(a, "play ")) {
      const Card card = *c;
      played.Add(card);
      ++plays[seat];
      if (!cur.empty()) {
        const Card lead = cur[0];
        const Suit led = SuitOf(lead);
        const Card best = cur[BestIndex(cur)];
        if (SuitOf(card) != led) {
          excluded[seat] |= SuitSet(led);
          if (!IsTarock(card))
            excluded[seat] |= kTarockSet;  // void and no tarock
          else if (negative && IsTarock(best) && !Beats(card, best))
            excluded[seat] |= HigherInSuit(best, ranks);  // could not beat
        } else if (negative && !Beats(card, best) && SuitOf(best) == led) {
          // Must beat (003 §4.6.3): following without beating means nothing higher.
          excluded[seat] |= HigherInSuit(best, ranks) - SetOf(kPagat);
        }
      }
      cur.push_back(card);
      cur_seats.push_back(seat);
      if (static_cast<int>(cur.size()) == num_active) {
        const int winner = cur_seats[BestIndex(cur)];
        for (Card d : cur) won_pts[winner] += P(d);
        ++won_tricks[winner];
        if (kind == Kind::kKlop && tricks_done < 6) {  // the talon card of an early trick
          won_pts[winner] += talon_seen[tricks_done] ? Pts(talon[tricks_done]) : 70.0 / 54.0;
        }
        cur.clear();
        cur_seats.clear();
        ++tricks_done;
      }
    } else if (absl::StartsWith(a, "talon ")) {
      int g = -1;
      if (absl::SimpleAtoi(absl::string_view(a).substr(6), &g)) taken_group = g;
    } else if (std::optional<Card> d = CardArg(a, "discard ")) {
      discards_seen.Add(*d);
    } else if (rules != Rules::kSlovenian &&
               (a == "announce pagat-ultimo" || a == "announce pagat")) {
      pagat_caller = seat;
    }
  }

  // Cards the declarer took from the talon: its tarocks and kings are surely
  // in his hand until played (a tarock laid away is shown; a king cannot be);
  // its other cards are in his hand or among his hidden discards, and in no
  // other hand.
  CardSet taken;
  if (taken_group >= 0 && declarer >= 0) {
    int groups = 0;
    if (contract == "three" || contract == "solo-three") groups = 2;
    if (contract == "two" || contract == "solo-two") groups = 3;
    if (contract == "one" || contract == "solo-one") groups = 6;
    if (groups > 0) {
      const int k = 6 / groups;
      for (int i = 0; i < 6; ++i) {
        const bool in = tapp && groups == 3 ? (i % 3 == taken_group) : (i / k == taken_group);
        if (in && talon_seen[i]) taken.Add(talon[i]);
      }
    }
  }

  pool = kAllCards - hand - played - talon_visible - discards_seen;
  const CardSet taken_maybe = taken - kTarockSet - kKingSet - played - discards_seen;
  if (declarer != me) pool |= taken_maybe;
  for (int p = 0; p < n; ++p) {
    if (p != declarer) excluded[p] |= taken_maybe;
  }
  for (int p = 0; p < n; ++p) {
    if (p == me || p == sitout) continue;
    CardSet k;
    if (p == declarer) k |= (taken & (kTarockSet | kKingSet)) - played - discards_seen;
    k |= s.Shown(p) - played;
    known[p] = k;
    pool -= k;
  }
  for (int p = 0; p < n; ++p) {
    if (p == me || p == sitout) {
      free[p] = 0;
      continue;
    }
    free[p] = std::max(0, hand_size - plays[p] - known[p].size());
    excluded[p] -= known[p];
  }

  // Sides.
  for (int p = 0; p < n; ++p) ally[p] = 0.0;
  ally[me] = 1.0;
  if (kind == Kind::kKlop || kind == Kind::kBridscher || kind == Kind::kNone) {
    // each for himself
  } else if (!partner_game) {
    for (int p = 0; p < n; ++p) {
      if (p == me || p == sitout) continue;
      const bool p_decl = p == declarer;
      const bool me_decl = me == declarer;
      ally[p] = (p_decl == me_decl) ? 1.0 : 0.0;
    }
  } else {
    // King calling: the partner knows himself from the start, everyone knows
    // him once the called king falls; the declarer plays alone when the king
    // lies in the talon or in his own hand.
    std::optional<Card> king;
    if (absl::StatusOr<Card> k = ParseCard(obs.called_king()); k.ok()) king = *k;
    const int partner = obs.partner();
    bool alone = partner == declarer;
    if (king && rules == Rules::kWestfest) {
      // 004: the called tarock is one the povinnost lacked; drawn by it (no
      // throw-in) or played by it, it plays alone. A drawer who took it from
      // the talon is the partner (and knows it: obs.partner).
      if (me == declarer && (hand.Contains(*king) || talon_visible.Contains(*king))) alone = true;
      if (partner < 0 && (played | discards_seen).Contains(*king)) alone = true;
    } else if (king) {
      if (talon_visible.Contains(*king)) alone = true;
      if (me == declarer && hand.Contains(*king)) alone = true;
      if (partner < 0 && played.Contains(*king)) alone = true;  // the declarer had it
    }
    if (alone || partner >= 0) {
      auto decl_side = [&](int p) { return p == declarer || (!alone && p == partner); };
      for (int p = 0; p < n; ++p)
        if (p != me && p != sitout) ally[p] = decl_side(p) == decl_side(me) ? 1.0 : 0.0;
    } else {
      // The partner is one of the seats that may still hold the called king.
      std::vector<int> cand;
      for (int p = 0; p < n; ++p) {
        if (p == me || p == declarer || p == sitout) continue;
        if (king && excluded[p].Contains(*king)) continue;
        cand.push_back(p);
      }
      const double pp = cand.empty() ? 0.0 : 1.0 / cand.size();
      for (int p = 0; p < n; ++p) {
        if (p == me || p == sitout) continue;
        const bool is_cand = std::find(cand.begin(), cand.end(), p) != cand.end();
        const double p_partner = p == declarer ? 0.0 : (is_cand ? pp : 0.0);
        if (me == declarer) {
          ally[p] = p_partner;
        } else {
          ally[p] = p == declarer ? 0.0 : 1.0 - p_partner;
        }
      }
    }
  }
  for (int p = 0; p < n; ++p)
    if (p != me && p != sitout && ally[p] > 0.01) has_ally = true;
}

double Ctx::PBeat(int seat, Card best, Suit led, CardSet on_table) const {
  if (led == kTarocks) {
    if (!IsTarock(best)) return 0.0;
    CardSet higher = HigherInSuit(best, ranks);
    if (imperator && (on_table | SetOf(best)).Contains(kSkis) && on_table.Contains(kMond))
      higher.Add(kPagat);
    return PHoldsAny(seat, higher);
  }
  const CardSet suit_out = Out() & SuitSet(led);
  const double has_suit = PHoldsAny(seat, suit_out);
  if (!IsTarock(best)) {
    const double higher = PHoldsAny(seat, HigherInSuit(best, ranks) & Out());
    const double trump = trumps ? (1.0 - has_suit) * PHoldsAny(seat, kTarockSet, led) : 0.0;
    return std::min(1.0, higher + trump);
  }
  if (!trumps) return 0.0;
  CardSet higher = HigherInSuit(best, ranks);
  if (imperator && (on_table | SetOf(best)).Contains(kSkis) && on_table.Contains(kMond))
    higher.Add(kPagat);
  return (1.0 - has_suit) * PHoldsAny(seat, higher, led);
}

double Ctx::PSideWins(Card c) const {
  std::vector<Card> cards = trick;
  cards.push_back(c);
  const int bi = BestIndex(cards);
  const Card best = cards[bi];
  const int winner = bi == static_cast<int>(trick.size()) ? me : trick_seats[bi];
  CardSet on_table;
  for (Card d : cards) on_table.Add(d);
  const Suit led = SuitOf(cards[0]);
  double p = ally[winner];
  for (int q : later) {
    const double beat = PBeat(q, best, led, on_table);
    const double a = ally[q];
    // An opponent takes our trick when he can; a partner takes theirs when he
    // can (less surely: his beating card is measured against our best, not
    // theirs).
    p = p * (1.0 - (1.0 - a) * beat) + (1.0 - p) * a * beat * kPartnerOvertakes;
  }
  return std::clamp(p, 0.0, 1.0);
}

double Ctx::KeepValue(Card c) const {
  const double v = P(c);
  // What a later trick won with c brings besides c: the others' cards, the
  // opponents' fully, the partners' half (we might have won those anyway).
  double extra = 0.0;
  for (int q = 0; q < n; ++q)
    if (q != me && q != sitout) extra += low_card * (1.0 - 0.5 * ally[q]);
  // A card that will not win may still be smeared onto a partner's trick.
  const double smear = has_ally ? kSmearChance : 0.0;
  const int tricks_left = tricks_total - tricks_done;
  const CardSet out = Out();
  const CardSet higher = HigherInSuit(c, ranks) & out;
  double fw;  // the chance that c wins a later trick for my side
  if (c == kPagat && rules != Rules::kSlovenian) {
    // Pagat Ultimo outside the Slovenian family, in card points: what winning
    // the last trick with it brings this seat, and how much keeping it to a
    // lost last trick costs. 001: a bonus of the holder, silent 10 from each
    // other player, a failed silent attempt costs nothing. 002: the
    // declarer's only (+4 from each defender). 004: a side stake, silent +-2
    // (T1 played to the last trick), called +-4.
    double win = 0.0, fail = 0.0;
    const bool called = pagat_caller == me;
    switch (rules) {
      case Rules::kTapp001:
        win = called ? 25.0 : 15.0;
        fail = called ? 25.0 : 0.0;
        break;
      case Rules::kClassic002:
        if (me == declarer) win = called ? 20.0 : 10.0;
        fail = called ? 20.0 : 0.0;
        break;
      case Rules::kWestfest:
        win = called ? 20.0 : 10.0;
        fail = called ? 20.0 : 10.0;
        break;
      case Rules::kSlovenian:
        break;
    }
    if (higher.empty()) return tricks_left > 1 ? win + v : v;
    if (called) return tricks_left > 1 ? 0.5 * (win + fail) : v;  // it stays to the end
    // Stuck in hand to a lost last trick it may cost the silent bonus: near
    // the end it is better smeared, or even lost, before that.
    double keep = smear * v;
    if (tricks_left <= 3) keep -= 0.25 * fail * (4 - tricks_left);
    return keep;
  }
  if (c == kPagat) {
    if (higher.empty()) {
      // Every other tarock is gone: the Pagat wins the last trick, worth the
      // (silent) Pagat Ultimo of 25 on top of its points.
      return tricks_left > 1 ? 25.0 + v : v;
    }
    // Stuck in hand to the last trick it fails the silent Ultimo (-25), so
    // near the end it is better smeared, or even lost, before that.
    double keep = smear * v;
    if (tricks_left <= 3) keep -= 6.0 * (4 - tricks_left);
    return keep;
  }
  if (IsTarock(c)) {
    // It wins a tarock lead if no opponent holds a higher tarock; any tarock
    // may still win by trumping a suit, and is worth its trumping power.
    double hold = 1.0;
    for (int q = 0; q < n; ++q) {
      if (q == me || q == sitout) continue;
      hold *= 1.0 - (1.0 - ally[q]) * PHoldsAny(q, higher);
    }
    fw = std::max(hold, 0.2);
    return fw * (v + extra) + (1.0 - fw) * smear * v + tarock_power;
  }
  if (higher.empty()) {
    // A master of its suit wins a later lead unless an opponent trumps it,
    // and voids only grow.
    double hold = 1.0;
    const CardSet suit_out = out & SuitSet(SuitOf(c));
    for (int q = 0; q < n; ++q) {
      if (q == me || q == sitout) continue;
      const double void_p = 1.0 - PHoldsAny(q, suit_out);
      const double trump = trumps ? void_p * PHoldsAny(q, kTarockSet, SuitOf(c)) : 0.0;
      hold *= 1.0 - (1.0 - ally[q]) * trump;
    }
    fw = hold * 0.85;
  } else {
    fw = 0.05;
  }
  return fw * (v + extra) + (1.0 - fw) * smear * v;
}

double Ctx::MondRisk(Card c) const {
  if (c != kMond || rules != Rules::kSlovenian) return 0.0;  // no Mond penalty in 001, 002, 004
  // 003: Mondfang, -20 to the Mond's seat whenever the Skis falls in the same
  // trick; 000 (tapp): Lost 21, -21 when the other side wins the trick.
  const double penalty = tapp ? 21.0 : 20.0;
  CardSet on_table;
  for (Card d : trick) on_table.Add(d);
  if (on_table.Contains(kSkis)) {
    if (!tapp) return penalty;
    for (size_t i = 0; i < trick.size(); ++i)
      if (trick[i] == kSkis) return ally[trick_seats[i]] < 0.5 ? penalty : 0.0;
  }
  if (hand.Contains(kSkis) || played.Contains(kSkis)) return 0.0;
  const Suit led = trick.empty() ? kTarocks : SuitOf(trick[0]);
  double p_no = 1.0;
  for (int q : later) {
    double pq = PHoldsAny(q, SetOf(kSkis));
    if (led != kTarocks) pq *= 1.0 - PHoldsAny(q, Out() & SuitSet(led));
    // A partner's Skis still costs the Mondfang in 003, not the Lost 21.
    if (tapp)
      pq *= 1.0 - ally[q];
    else
      pq *= 1.0 - 0.8 * ally[q];
    p_no *= 1.0 - pq;
  }
  return penalty * (1.0 - p_no);
}

// ---------------------------------------------------------------------------
// The decisions.

std::string Fallback(const sdk::Situation& s) { return s.legal().empty() ? "pass" : s.legal()[0]; }

std::string DecideBid(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  const std::vector<std::string> bids = ArgsOf(legal, "bid ");
  const bool can_pass = Has(legal, "pass");
  const HandEval e = EvaluateHand(c.hand);
  const Family family = FamilyOf(c.variant, c.n);
  const bool declare = c.obs.phase() == "declare";

  std::string choice;
  if (declare) {
    // 000: the auction's winner may convert to any higher contract.
    if (e.beggar && Has(bids, "beggar") && e.strength < ThresholdFor(bids.front(), family))
      choice = "beggar";
    else if (Has(bids, "solo-without") && e.strength >= ThresholdFor("solo-without", family))
      choice = "solo-without";
    else
      choice = bids.empty() ? "" : bids.front();
  } else {
    // Bid the lowest contract the hand carries: higher only to outbid someone.
    for (const std::string& b : bids) {
      if (KindOf(b) == Kind::kPositive && e.strength >= ThresholdFor(b, family)) {
        choice = b;
        break;
      }
    }
    if (choice.empty() && e.beggar && Has(bids, "beggar")) choice = "beggar";
    if (choice.empty() && !can_pass) {
      // Forced (the dealer facing three passes): Klop unless a contract is good.
      if (Has(bids, "klop"))
        choice = "klop";
      else if (!bids.empty())
        choice = bids.front();
    }
  }
  if (choice.empty()) return can_pass ? "pass" : Fallback(c.s);
  return "bid " + choice;
}

std::string DecideCall(const Ctx& c) {
  const std::vector<std::string> suits = ArgsOf(c.s.legal(), "call ");
  double best = -1e9;
  std::string choice;
  for (const std::string& name : suits) {
    absl::StatusOr<Suit> su = ParseSuit(name);
    if (!su.ok()) continue;
    const CardSet cards = c.hand & SuitSet(*su);
    // Never call one's own king (that plays alone at the partner price).
    double score = cards.Contains(King(*su)) ? -100.0 : 0.0;
    // A short suit: the partner's king is not needed where I am long, and in a
    // short suit I can trump what the king does not win.
    score -= 1.0 * cards.size();
    // A queen beside the partner's king is a second winner.
    if (cards.Contains(SuitCard(*su, kQueenRank))) score += 0.6;
    if (cards.size() == 0) score -= 0.5;  // void: can't lead to the partner
    if (score > best) {
      best = score;
      choice = name;
    }
  }
  if (choice.empty()) return Fallback(c.s);
  return "call " + choice;
}

// What a card adds to the declarer's hand, for choosing a talon group.
double TalonCardValue(const Ctx& c, Card card, const HandEval& e) {
  if (IsTarock(card)) {
    double v = 2.0 + RankOf(card) / 5.0;
    if (card == kSkis) v += 3.0;
    if (card == kMond) {
      v += 3.0;
      if (c.rules == Rules::kSlovenian) v += (c.tapp ? 21.0 : 20.0) * 0.5;  // left behind it costs 20/21
    }
    if (card == kPagat) v = e.tarocks >= 7 ? 2.0 : 0.8;
    return v;
  }
  const Suit su = SuitOf(card);
  const int held = (c.hand & SuitSet(su)).size();
  double v = 0.3 * c.P(card);
  if (RankOf(card) == kKingRank)
    v += 3.5;
  else if (RankOf(card) == kQueenRank)
    v += 1.0;
  // A card in a suit I am void in spoils the void (unless it is worth keeping).
  if (held == 0 && RankOf(card) < kKingRank) v -= 1.5;
  return v;
}

std::string DecideTalon(const Ctx& c) {
  const std::vector<std::string> groups_s = ArgsOf(c.s.legal(), "talon ");
  const int groups = static_cast<int>(groups_s.size());
  if (groups == 0) return Fallback(c.s);
  std::array<Card, 6> talon{};
  std::array<bool, 6> seen{};
  for (int i = 0; i < 6 && i < c.obs.talon_size(); ++i) {
    absl::StatusOr<Card> card = ParseCard(c.obs.talon(i));
    seen[i] = card.ok();
    if (card.ok()) talon[i] = *card;
  }
  const HandEval e = EvaluateHand(c.hand);
  std::optional<Card> king;
  if (absl::StatusOr<Card> k = ParseCard(c.obs.called_king()); k.ok()) king = *k;
  double best = -1e9;
  std::string choice;
  for (const std::string& gs : groups_s) {
    int g = 0;
    if (!absl::SimpleAtoi(gs, &g)) continue;
    double v = 0;
    const int k = 6 / std::max(1, groups);
    for (int i = 0; i < 6; ++i) {
      const bool in = c.tapp && groups == 3 ? (i % 3 == g) : (i / k == g);
      if (!in || !seen[i]) continue;
      v += TalonCardValue(c, talon[i], e);
      if (king && talon[i] == *king) v += 1.0;  // alone anyway: at least take the king
    }
    if (v > best) {
      best = v;
      choice = gs;
    }
  }
  if (choice.empty()) return Fallback(c.s);
  return "talon " + choice;
}

std::string DecideDiscard(const Ctx& c) {
  double best = -1e9;
  std::string choice;
  std::optional<Card> king;
  if (absl::StatusOr<Card> k = ParseCard(c.obs.called_king()); k.ok()) king = *k;
  for (const std::string& a : c.s.legal()) {
    std::optional<Card> card = CardArg(a, "discard ");
    if (!card) continue;
    double score = 0;
    if (IsTarock(*card)) {
      // Tarocks win tricks and are shown when laid away: only when nothing
      // else is left, and then the lowest.
      score = -50.0 - RankOf(*card);
    } else {
      const Suit su = SuitOf(*card);
      const CardSet suit = c.hand & SuitSet(su);
      const int cnt = suit.size();
      // Short suits first: each discard brings a void closer.
      score += 10.0 - 3.0 * cnt;
      // The guards of my own king are its company, keep them.
      if (suit.Contains(King(su))) score -= 6.0;
      // Points laid away are points won; a queen or knight without its king
      // would mostly be lost in play.
      score += 0.8 * c.P(*card);
      // Keep a card of the called suit to lead to the partner's king.
      if (king && SuitOf(*king) == su && cnt == 1) score -= 3.0;
    }
    if (score > best) {
      best = score;
      choice = a;
    }
  }
  if (choice.empty()) return Fallback(c.s);
  return choice;
}

std::string DecideAnnounce(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  const HandEval e = EvaluateHand(c.hand);
  const bool me_decl = c.me == c.declarer || c.obs.partner() == c.me;
  const int half = c.hand_size / 2;
  // Announce only what is all but certain.
  if (Has(legal, "announce trula") && me_decl && e.skis && e.mond && e.pagat &&
      e.tarocks >= half + 1)
    return "announce trula";
  if (Has(legal, "announce kings") && me_decl && e.kings == 4 && e.tarocks >= half)
    return "announce kings";
  if (Has(legal, "announce pagat-ultimo") && me_decl && e.pagat && e.skis && e.mond &&
      e.tarocks >= c.hand_size * 3 / 4)
    return "announce pagat-ultimo";
  // Kontra rarely: the game only with a defending hand that could carry a
  // contract by itself; a trula when I hold the Skis (they cannot win it).
  const bool defender = !me_decl;
  if (defender && Has(legal, "kontra trula") && e.skis) return "kontra trula";
  if (defender && Has(legal, "kontra kings") && e.kings >= 1 && e.tarocks >= half)
    return "kontra kings";
  if (defender && Has(legal, "kontra game")) {
    // Only against the lowest contracts, with a hand that would carry a
    // high contract itself.
    const Family family = FamilyOf(c.variant, c.n);
    const double strong =
        family == Family::kPartner ? ThresholdFor("solo-one", family) : ThresholdFor("one", family);
    if (e.strength >= strong && (c.contract == "three" || c.contract == "two"))
      return "kontra game";
  }
  if (Has(legal, "pass")) return "pass";
  return Fallback(c.s);
}

// ---- Play ----

std::string PlayPositive(Ctx& c, CardSet playable) {
  double table_pts = 0;
  for (Card d : c.trick) table_pts += c.P(d);
  const double later_pts = c.low_card * c.later.size();
  const bool leading = c.trick.empty();
  // Drawing trumps: a declarer side strong in tarocks leads its masters to
  // strip the others' trumps before they can ruff its kings.
  const CardSet my_tarocks = c.hand & kTarockSet;
  const CardSet out_tarocks = c.Out() & kTarockSet;
  const bool decl_side = c.me == c.declarer || c.obs.partner() == c.me;
  double best = -1e18;
  Card choice = playable.First();
  for (Card card : playable) {
    const double p = c.PSideWins(card);
    double score = p * (table_pts + c.P(card) + later_pts) - c.KeepValue(card) - c.MondRisk(card);
    if (leading && IsTarock(card) && decl_side && !out_tarocks.empty() &&
        my_tarocks.size() >= out_tarocks.size() / 2 + 1 &&
        (HigherInSuit(card, c.ranks) & out_tarocks).empty())
      score += c.draw_trumps;
    score -= 0.001 * c.ranks.strength[card];  // ties: the lower card
    if (score > best) {
      best = score;
      choice = card;
    }
  }
  return sdk::PlayAction(choice);
}

// How much a card hurts to keep in Klop/Beggar: high cards must win later.
double Danger(const Ctx& c, Card card) {
  if (IsTarock(card)) return 8.0 + RankOf(card);  // T1 is forced anyway
  return c.ranks.strength[card] + 0.5 * c.P(card);
}

// Probability that I end up with the trick if I play `card` (others must beat).
double PIWin(const Ctx& c, Card card) {
  std::vector<Card> cards = c.trick;
  cards.push_back(card);
  const int bi = c.BestIndex(cards);
  if (bi != static_cast<int>(c.trick.size())) return 0.0;
  CardSet on_table;
  for (Card d : cards) on_table.Add(d);
  double keep = 1.0;
  const Suit led = SuitOf(cards[0]);
  if (c.kind == Kind::kBridscher) {
    // 001: nobody must beat. A later seat takes the trick when it must trump
    // (void in the suit led, holding a tarock), and now and then when only
    // higher cards are left to it or it chooses to.
    for (int q : c.later) {
      double take;
      const double has_suit = led == kTarocks ? 1.0 : c.PHoldsAny(q, c.Out() & SuitSet(led));
      if (!IsTarock(card)) {
        take = (1.0 - has_suit) * c.PHoldsAny(q, kTarockSet, led) +
               0.2 * c.PHoldsAny(q, HigherInSuit(card, c.ranks) & c.Out());
      } else if (led == kTarocks) {
        take = 0.3 * c.PHoldsAny(q, HigherInSuit(card, c.ranks));
      } else {
        take = 0.3 * (1.0 - has_suit) * c.PHoldsAny(q, HigherInSuit(card, c.ranks), led);
      }
      keep *= 1.0 - std::min(1.0, take);
    }
    return keep;
  }
  for (int q : c.later) keep *= 1.0 - c.PBeat(q, card, led, on_table);
  return keep;
}

std::string PlayNegative(Ctx& c, CardSet playable) {
  const bool bridscher = c.kind == Kind::kBridscher;
  const bool klop = c.kind == Kind::kKlop || bridscher;
  const bool declarer = c.me == c.declarer;
  double table_pts = 0;
  for (Card d : c.trick) table_pts += c.P(d);
  double best = -1e18;
  Card choice = playable.First();

  if (!klop && !declarer) {
    // Beggar defence: make the declarer win a trick. Before him, play low so
    // he must beat; after him, duck under his card when possible.
    const int bi = c.BestIndex(c.trick);
    const bool decl_winning = bi >= 0 && c.trick_seats[bi] == c.declarer;
    const bool decl_later = std::find(c.later.begin(), c.later.end(), c.declarer) != c.later.end();
    for (Card card : playable) {
      std::vector<Card> cards = c.trick;
      cards.push_back(card);
      const int nbi = c.BestIndex(cards);
      const bool wins = nbi == static_cast<int>(c.trick.size());
      double score;
      if (decl_winning) {
        score = (wins ? -100.0 : 0.0) + Danger(c, card);  // duck, shed high cards
      } else if (decl_later) {
        // Leave him a card he must beat (he may not duck under it), in a
        // suit where the partners after him cannot overtake him (they must
        // beat him too when they can).
        CardSet on_table;
        for (Card d : cards) on_table.Add(d);
        const Suit led = SuitOf(cards[0]);
        double p = c.PBeat(c.declarer, cards[nbi], led, on_table);
        bool after_decl = false;
        for (int q : c.later) {
          if (q == c.declarer) {
            after_decl = true;
          } else if (after_decl) {
            p *= 1.0 - c.PBeat(q, cards[nbi], led, on_table);
          }
        }
        score = 10.0 * p - 0.1 * Danger(c, card);
      } else {
        score = Danger(c, card);  // the declarer is out of this trick: shed
      }
      if (score > best) {
        best = score;
        choice = card;
      }
    }
    return sdk::PlayAction(choice);
  }

  // Klop (each for himself) and the Beggar's declarer: take nothing.
  const bool leading = c.trick.empty();
  const double gift = klop && !bridscher && c.tricks_done < 6 ? 70.0 / 54.0 : 0.0;  // a talon card
  double most_other = 0;  // Bridscher: the most points another seat has taken
  for (int p = 0; p < c.n; ++p)
    if (p != c.me) most_other = std::max(most_other, c.won_pts[p]);
  for (Card card : playable) {
    const double p_win = PIWin(c, card);
    // If the trick is mine, those still to play and unable to beat dump their
    // worst on it; those who must follow with low cards add little.
    double later = 0;
    const Suit led = c.trick.empty() ? SuitOf(card) : SuitOf(c.trick[0]);
    for (int q : c.later) {
      const double can_follow = c.PHoldsAny(q, c.Out() & SuitSet(led));
      const double no_tarock = led == kTarocks ? 1.0 : 1.0 - c.PHoldsAny(q, kTarockSet, led);
      const double dump = (1.0 - can_follow) * no_tarock;
      later += 0.5 + 3.0 * dump;
    }
    double cost;
    if (bridscher) {
      // 001: the seat with the most points pays each other seat 10.
      const double pts = table_pts + c.P(card) + later;
      cost = pts + 2.0;
      if (c.won_pts[c.me] + pts > most_other) cost += 4.0;
    } else if (klop) {
      const double pts = table_pts + c.P(card) + later + gift;
      cost = pts + 2.0;
      // 003/000: no trick at all scores +70; more than 35 points scores -70.
      if (c.won_tricks[c.me] == 0) cost += 8.0;
      if (c.won_pts[c.me] + pts > 35.0) cost += 60.0;
    } else {
      cost = 100.0;  // Beggar: any trick loses the game
    }
    double score = -p_win * cost;
    if (klop && !bridscher && c.mondfang_in_klop) score -= c.MondRisk(card);  // each for himself
    // Shed the cards that would win later: onto someone else's trick, or when
    // following into a trick that is mine whatever I play.
    if (!leading && p_win > 0.999) {
      score += 0.45 * Danger(c, card);
    } else {
      score += 1.2 * (1.0 - p_win) * Danger(c, card);
    }
    if (score > best) {
      best = score;
      choice = card;
    }
  }
  return sdk::PlayAction(choice);
}

std::string DecidePlay(Ctx& c) {
  const CardSet playable = c.s.PlayableCards();
  if (playable.empty()) return Fallback(c.s);
  if (playable.size() == 1) return sdk::PlayAction(playable.First());
  c.BuildPlay();
  if (c.kind == Kind::kKlop || c.kind == Kind::kBeggar || c.kind == Kind::kBridscher)
    return PlayNegative(c, playable);
  return PlayPositive(c, playable);
}

// ---------------------------------------------------------------------------
// Austrian Tapp-Tarock (001 tapp-tarock, 002 tapp-tarock-classic) and westfest
// (004): the decisions that differ from the Slovenian family. The point
// counts are EvaluateHand's (16 cards in the Austrian games, 12 in westfest).

// 001: each defender pays three 10, two 20, one 30, solo 50; the opening bid
// is always three, a higher bid is possible only over someone's three. 002:
// three 3 (the better of two shown halves), bottom-three 4 and top-three 5
// (three unseen cards: top-three is the better bid whenever either is good),
// solo 8; all pass throws the deal in. Each threshold is the point count
// from which the contract earns more than the one below it (three: more
// than passing; in 001 a strong hand that passes into a Bridscher mostly
// pays it), measured in heuristic self-play: 8,000 deals per variant, each
// played once per contract with the seat after forehand forced into it.
// Solo earned less than the lower contracts over the whole measured range
// (to 20); its threshold only lets a monster overcall. Moving a threshold
// by 0.5 to 1 either way lost or changed nothing in duplicate matches.
constexpr Threshold kTapp001Thresholds[] = {
    {"three", 12.2},
    {"two", 13.8},
    {"one", 18.0},
    {"solo", 23.0},
};
constexpr Threshold kClassic002Thresholds[] = {
    {"three", 14.0},
    {"top-three", 15.0},
    {"solo", 23.0},
};
// 004: prever (alone against three with three talon cards), from the
// twelve dealt cards: the povinnost gives up a good game with a partner
// for it, the other seats a defence; playing on alone after drawing the
// called tarock (instead of the throw-in's 2 to each), from the sixteen
// cards held then.
constexpr double kPreverThreshold = 14.0;
constexpr double kPovinnostPreverThreshold = 16.0;
constexpr double kAloneThreshold = 12.5;
// 004 Contra (x2) by an opponent of the povinnost, Rhea Contra (x4) by its
// side: only with hands that would have carried a prever themselves.
constexpr double kContraThreshold = 16.0;
constexpr double kRheaThreshold = 17.0;

template <size_t N>
double Lookup(const Threshold (&table)[N], absl::string_view contract) {
  for (const Threshold& t : table)
    if (contract == t.contract) return t.strength;
  return 1e9;
}

std::string DecideBidAustrian(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  const std::vector<std::string> bids = ArgsOf(legal, "bid ");
  const HandEval e = EvaluateHand(c.hand);
  // The highest contract the hand carries (the bids are listed lowest first).
  std::string choice;
  for (const std::string& b : bids) {
    const double t = c.rules == Rules::kTapp001 ? Lookup(kTapp001Thresholds, b)
                                                : Lookup(kClassic002Thresholds, b);
    if (e.strength >= t) choice = b;
  }
  if (choice.empty()) return Has(legal, "pass") ? "pass" : Fallback(c.s);
  return "bid " + choice;
}

// The tapp positions of talon group `g` in contract `contract`, and (001) the
// positions that count for the declarer without going to his hand.
struct TappGroup {
  uint8_t take = 0;
  uint8_t rest = 0;
};
TappGroup AustrianGroup(const Ctx& c, int g) {
  TappGroup out;
  int size = 3;
  if (c.rules == Rules::kTapp001) {
    if (c.contract == "two") size = 2;
    if (c.contract == "one") size = 1;
  }
  for (int i = 0; i < size; ++i) out.take |= 1 << (g * size + i);
  if (c.rules == Rules::kTapp001) {
    // 001: the rest of a pack he took from is his.
    for (int pack = 0; pack < 2; ++pack) {
      const uint8_t mask = 7 << (3 * pack);
      if (out.take & mask) out.rest |= mask & ~out.take;
    }
  }
  return out;
}

std::string DecideTalonAustrian(const Ctx& c) {
  const std::vector<std::string> groups = ArgsOf(c.s.legal(), "talon ");
  std::array<Card, 6> talon{};
  std::array<bool, 6> seen{};
  for (int i = 0; i < 6 && i < c.obs.talon_size(); ++i) {
    absl::StatusOr<Card> card = ParseCard(c.obs.talon(i));
    seen[i] = card.ok();
    if (card.ok()) talon[i] = *card;
  }
  const HandEval e = EvaluateHand(c.hand);
  double best = -1e9;
  std::string choice;
  for (const std::string& gs : groups) {
    int g = 0;
    if (!absl::SimpleAtoi(gs, &g) || g < 0 || g > 5) continue;
    const TappGroup grp = AustrianGroup(c, g);
    double v = 0;
    for (int i = 0; i < 6; ++i) {
      if (!seen[i]) continue;
      if (grp.take & (1 << i)) v += TalonCardValue(c, talon[i], e);
      if (grp.rest & (1 << i)) v += c.P(talon[i]);  // sure points
    }
    if (v > best) {
      best = v;
      choice = gs;
    }
  }
  if (choice.empty()) return Fallback(c.s);
  return "talon " + choice;
}

// Whether `hand` takes every trick whoever leads: nothing but tarocks and
// kings, and the tarocks the others hold (all those not in `hand`) could not
// outlast its top ones (the highest `out` tarocks are all in `hand`).
bool SureOfEveryTrick(CardSet hand) {
  if (!(hand - kTarockSet - kKingSet).empty()) return false;
  const int out = kTarockSet.size() - (hand & kTarockSet).size();
  for (int r = 22; r > 22 - out; --r)
    if (!hand.Contains(Tarock(r))) return false;
  return true;
}

// 001 Absolut (40+ points in her own pile) and Grandpointe (50+): the point
// count after the exchange from which the declarer makes them in heuristic
// self-play often enough (about two times in three) to announce them:
// announced, each pays double, and a miss costs the announced value.
double AbsolutThreshold(absl::string_view contract) {
  if (contract == "two") return 19.5;
  if (contract == "three" || contract == "one") return 20.5;
  return 22.5;  // solo: the tapp's points go to the defenders
}
double GrandpointeThreshold(absl::string_view contract) {
  return contract == "solo" ? 1e9 : 23.5;
}

// 001: any player may announce a bonus of her own (declarer first); 002: only
// the declarer, Pagat Ultimo and Valat. An announcement doubles the bonus and
// costs the announced value when missed, so it is made only when the hand is
// all but sure of it (a defender never is).
std::string DecideAnnounceAustrian(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  const HandEval e = EvaluateHand(c.hand);
  const bool me_decl = c.me == c.declarer;
  // Pagat Ultimo (and 001's Trull, which needs the Pagat home too): a
  // declarer with the trula and ten tarocks or more, who draws the others'
  // tarocks and keeps the Pagat for the last trick. An announcement pays when
  // made more than two times in three; in forced Threes with the trula among
  // 9 tarocks dealt it was announced in 353 of 400 hands and made in 313,
  // among 10 dealt made in 375 of 400 (001 and 002 alike). In duplicate
  // matches 10 did best (11 and more gave away bonuses, 8 and less lost some).
  const bool ultimo = me_decl && e.pagat && e.skis && e.mond && e.tarocks >= 10;
  if (c.rules == Rules::kTapp001) {
    if (Has(legal, "announce pagat-ultimo") && ultimo) return "announce pagat-ultimo";
    if (Has(legal, "announce trull") && ultimo) return "announce trull";
    if (Has(legal, "announce four-kings") && me_decl && e.kings == 4 && SureOfEveryTrick(c.hand))
      return "announce four-kings";
    if (Has(legal, "announce grandpointe") && me_decl &&
        e.strength >= GrandpointeThreshold(c.contract))
      return "announce grandpointe";
    if (Has(legal, "announce absolut") && me_decl && e.strength >= AbsolutThreshold(c.contract))
      return "announce absolut";
  } else {
    if (Has(legal, "announce pagat-ultimo") && ultimo) return "announce pagat-ultimo";
    if (Has(legal, "announce valat") && me_decl && SureOfEveryTrick(c.hand)) return "announce valat";
  }
  if (Has(legal, "pass")) return "pass";
  return Fallback(c.s);
}

// ---- westfest ----

std::string DecidePrever(const Ctx& c) {
  const HandEval e = EvaluateHand(c.hand);
  const bool povinnost = c.me == (c.dealer + 1) % c.n;
  const double threshold = povinnost ? kPovinnostPreverThreshold : kPreverThreshold;
  if (e.strength >= threshold && c.s.IsLegal("bid prever")) return "bid prever";
  return c.s.IsLegal("pass") ? "pass" : Fallback(c.s);
}

// The prever player holds the first set: keeping it is free, the second set
// doubles a loss and going back quadruples it. Change only a useless set for
// a hand strong enough to win anyway.
std::string DecidePreverTalon(const Ctx& c) {
  if (!c.s.IsLegal("talon 1") || !c.s.IsLegal("pass")) return c.s.IsLegal("pass") ? "pass" : Fallback(c.s);
  CardSet set;
  for (int i = 0; i < 3 && i < c.obs.talon_size(); ++i)
    if (absl::StatusOr<Card> card = ParseCard(c.obs.talon(i)); card.ok()) set.Add(*card);
  const CardSet rest = c.hand - set;
  const HandEval e = EvaluateHand(rest);
  double v = 0;
  for (Card card : set) v += TalonCardValue(c, card, e);
  if (v < 0.5 && e.strength >= kPreverThreshold + 2.0) return "talon 1";
  return "pass";
}

// Drawn its own called tarock: throw in (2 to each other player) or play
// alone against three.
std::string DecideThrowIn(const Ctx& c) {
  const HandEval e = EvaluateHand(c.hand);
  if (e.strength >= kAloneThreshold && c.s.IsLegal("pass")) return "pass";
  return c.s.IsLegal("throw-in") ? "throw-in" : Fallback(c.s);
}

// The second and third seats draw one talon card, or keep uni (no tarock, 4
// from each other player, unannounced) or bida (one or two tarocks, 2 from
// each when announced) by passing: a drawn tarock would spoil it.
std::string DecideDraw(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  if (Has(legal, "pass") && (c.hand & kTarockSet).size() <= 2) return "pass";
  for (const std::string& a : legal)
    if (absl::StartsWith(a, "talon ")) return a;
  return Fallback(c.s);
}

std::string DecideAnnounceWestfest(const Ctx& c) {
  const std::vector<std::string>& legal = c.s.legal();
  // Hand bonuses are facts of the twelve cards: announce the best one of each
  // group (the engine offers only those the hand holds).
  static const char* const kCount[] = {"taroky", "tarocky", "bida"};
  static const char* const kHonours[] = {"kralovske-honery-plus", "trul-honery",
                                         "kralovske-honery", "trul", "honery"};
  for (const char* b : kCount)
    if (Has(legal, std::string("announce ") + b)) return std::string("announce ") + b;
  for (const char* b : kHonours)
    if (Has(legal, std::string("announce ") + b)) return std::string("announce ") + b;
  const HandEval e = EvaluateHand(c.hand);
  const bool decl_side = c.me == c.declarer || c.obs.partner() == c.me;
  // A called Pagat (+-4, the holder's side) only with a hand that keeps it.
  if (Has(legal, "announce pagat") && e.pagat && e.skis && e.mond && e.tarocks >= 10 &&
      e.high_tarocks >= 5)
    return "announce pagat";
  // The Contra chain, rarely: Contra from an opponent who could have played
  // prever himself; Rhea Contra from the povinnost's side with such a hand.
  if (Has(legal, "kontra game")) {
    int level = 0;
    for (const v1::Event& ev : c.obs.history())
      if (ev.action() == "kontra game") ++level;
    if (!decl_side && level == 0 && c.contract == "povinnost" && e.strength >= kContraThreshold)
      return "kontra game";
    if (decl_side && level == 1 && e.strength >= kRheaThreshold) return "kontra game";
  }
  return Has(legal, "pass") ? "pass" : Fallback(c.s);
}

std::string DecideUnchecked(const sdk::Situation& s) {
  Ctx c(s);
  const std::vector<std::string>& legal = s.legal();
  const std::string& phase = s.phase();
  if (c.rules == Rules::kWestfest) {
    // The deal (the cutter chooses blind; any choice is as good), prever and
    // the draws.
    if (phase == "cut") return Has(legal, "cut") ? "cut" : Fallback(s);
    if (phase == "stacks") return Fallback(s);
    if (phase == "prever") return DecidePrever(c);
    if (phase == "prever-talon") return DecidePreverTalon(c);
    if (phase == "throw-in") return DecideThrowIn(c);
    if (phase == "draw") return DecideDraw(c);
    if (phase == "announce") return DecideAnnounceWestfest(c);
  }
  const bool austrian = c.rules == Rules::kTapp001 || c.rules == Rules::kClassic002;
  bool any_play = false, any_discard = false, any_talon = false, any_call = false, any_bid = false;
  for (const std::string& a : legal) {
    any_play |= absl::StartsWith(a, "play ");
    any_discard |= absl::StartsWith(a, "discard ");
    any_talon |= absl::StartsWith(a, "talon ");
    any_call |= absl::StartsWith(a, "call ");
    any_bid |= absl::StartsWith(a, "bid ");
  }
  if (any_play) return DecidePlay(c);
  if (any_discard) return DecideDiscard(c);
  if (any_talon) return austrian ? DecideTalonAustrian(c) : DecideTalon(c);
  if (any_call) return DecideCall(c);
  if (phase == "announce") return austrian ? DecideAnnounceAustrian(c) : DecideAnnounce(c);
  if (austrian && (any_bid || phase == "bidding")) return DecideBidAustrian(c);
  if (any_bid || phase == "bidding" || phase == "declare") return DecideBid(c);
  return Fallback(s);
}

}  // namespace

std::string HeuristicBot::Decide(const sdk::Situation& s) {
  if (s.legal().empty()) return "pass";
  try {
    std::string a = DecideUnchecked(s);
    if (s.IsLegal(a)) return a;
  } catch (const std::exception&) {
  }
  ++fallbacks_;
  return s.legal()[0];
}

}  // namespace tarock::bots
