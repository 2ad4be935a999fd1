// A complete Tarock Arena bot on the C++ SDK: it plays every variant legally.
// Change Decide() to make it play well; `tarock check-bot ./build/my_bot` tells
// you when it does something wrong.
//
//   ./build/my_bot --listen 127.0.0.1:7801      (or let `tarock match` start it)
//   TAROCK_BOT_TOKEN=T ./build/my_bot --arena ARENA:7700   (dial in: docs/dial-in.md)
//
// The idea (the same as the Python and stdio templates):
//  - never bid when passing is allowed; otherwise the first legal action;
//  - discard the cheapest cards; announce nothing, kontra nothing;
//  - in play: take a trick that holds points if a card of ours wins it,
//    with the cheapest such card; otherwise throw the cheapest card.

#include <memory>
#include <string>
#include <vector>

#include "tarock/sdk/serve.h"

namespace {

using tarock::Card;
using tarock::CardSet;
using tarock::sdk::Situation;

// True when `mine` would win against everything in `trick` (led by trick[0]),
// under the plain rules: tarocks beat suit cards, a higher tarock beats a lower
// one, a suit card wins only in the led suit. (The engine knows the fine print:
// the Pagat rule, Colour Valat; a wrong guess here is only a weaker play.)
bool WouldWin(const std::vector<Card>& trick, Card mine) {
  if (trick.empty()) return true;
  const tarock::Suit led = tarock::SuitOf(trick[0]);
  for (Card c : trick) {
    const bool c_tarock = tarock::IsTarock(c), m_tarock = tarock::IsTarock(mine);
    if (c_tarock && !m_tarock) return false;
    if (c_tarock == m_tarock) {
      if (!m_tarock && tarock::SuitOf(mine) != led) return false;
      // Same suit: the card index grows with strength (traditional order).
      if (tarock::SuitOf(c) == tarock::SuitOf(mine) && c > mine) return false;
    }
  }
  return true;
}

// The cheapest card of a set, by card points (ties: the lowest card).
Card Cheapest(CardSet cards) {
  Card best = cards.First();
  for (Card c : cards)
    if (tarock::CardValue(c) < tarock::CardValue(best)) best = c;
  return best;
}

class MyBot : public tarock::sdk::Bot {
 public:
  std::string Decide(const Situation& s) override {
    if (s.phase() == "play") return Play(s);
    if (s.phase() == "discard") return Discard(s);
    if (s.IsLegal("pass")) return "pass";
    return s.legal().front();
  }

 private:
  std::string Play(const Situation& s) {
    const CardSet playable = s.PlayableCards();
    if (playable.empty()) return s.legal().front();
    const std::vector<Card> trick = s.trick();
    int trick_points = 0;
    for (Card c : trick) trick_points += tarock::CardValue(c) - 1;
    if (!trick.empty() && trick_points > 0) {
      CardSet winners;
      for (Card c : playable)
        if (WouldWin(trick, c)) winners.Add(c);
      if (!winners.empty()) return tarock::sdk::PlayAction(Cheapest(winners));
    }
    return tarock::sdk::PlayAction(Cheapest(playable));
  }

  std::string Discard(const Situation& s) {
    CardSet options;
    for (const std::string& a : s.legal())
      if (std::optional<Card> c = tarock::sdk::CardOfAction(a)) options.Add(*c);
    if (options.empty()) return s.legal().front();
    return "discard " + tarock::CardName(Cheapest(options));
  }
};

}  // namespace

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(argc, argv, "my-cpp-bot", [] { return std::make_unique<MyBot>(); });
}
