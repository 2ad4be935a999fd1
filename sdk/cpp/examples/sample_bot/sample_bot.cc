// A complete bot on the Tarock Arena C++ SDK, built out of tree against the
// installed SDK (find_package(TarockSDK)). It plays every variant legally with
// one simple idea: never bid, and throw the cheapest card it may play unless it
// can take a trick that already holds points.
//
//   sample_bot --listen 127.0.0.1:7801
//   tarock match --variant slovenian-4p a=./sample_bot b=... c=... d=...

#include <memory>
#include <string>

#include "tarock/sdk/serve.h"

namespace {

class SampleBot : public tarock::sdk::Bot {
 public:
  std::string Decide(const tarock::sdk::Situation& s) override {
    if (s.phase() != "play") return s.IsLegal("pass") ? "pass" : s.legal().front();
    tarock::CardSet playable = s.PlayableCards();
    if (playable.empty()) return s.legal().front();
    // The trick so far is worth taking when it holds points: lead with the
    // highest card then, else the cheapest.
    int trick_points = 0;
    for (tarock::Card c : s.trick()) trick_points += tarock::CardValue(c) - 1;
    tarock::Card choice = playable.First();
    for (tarock::Card c : playable) {
      const bool better = trick_points > 2 ? c > choice
                                           : tarock::CardValue(c) < tarock::CardValue(choice);
      if (better) choice = c;
    }
    return tarock::sdk::PlayAction(choice);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return tarock::sdk::BotMain(argc, argv, "sample", [] { return std::make_unique<SampleBot>(); });
}
