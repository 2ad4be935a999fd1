// The C++ bot SDK: a bot author implements one class, `tarock::sdk::Bot`, whose
// `Decide` takes what the bot's seat may see and returns one of the legal actions
// as text, and calls `tarock::sdk::BotMain` (serve.h) to serve it over gRPC.
//
//   class MyBot : public tarock::sdk::Bot {
//    public:
//     std::string Decide(const tarock::sdk::Situation& s) override {
//       return s.legal().front();
//     }
//   };
//   int main(int argc, char** argv) {
//     return tarock::sdk::BotMain(argc, argv, "my-bot",
//                                 [] { return std::make_unique<MyBot>(); });
//   }
//
// A Situation carries the complete observation of the seat (so a stateless bot
// works), the legal actions, the time left, and helpers for cards, the current
// trick and card points. MatchInfo::game is the rules engine of the match's
// variant (referee/engine/game.h), for bots that simulate.
//
// Thread-safety: the SDK creates one Bot per match stream and calls it from one
// thread at a time; a Bot needs no locking of its own. Situation and MatchInfo
// are plain values.

#ifndef TAROCK_SDK_BOT_H_
#define TAROCK_SDK_BOT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "referee/engine/card.h"
#include "referee/engine/game.h"
#include "tarock/v1/tarock.pb.h"

namespace tarock::sdk {

// What a bot knows of its match from the MatchStart message.
struct MatchInfo {
  std::string match_id;
  std::string variant;
  Options options;  // complete: defaults filled in
  int seat = 0;
  int num_seats = 0;
  int num_hands = 0;
  v1::TimeControl time_control;
  std::vector<std::string> seat_names;
  // The rules engine for this variant and options; null only when the variant
  // is unknown to this build of the engine (a newer referee).
  std::shared_ptr<const Game> game;
};

// One decision: the request as the referee sent it, with helpers. Cheap to make;
// the helpers compute on demand.
class Situation {
 public:
  Situation(const MatchInfo& match, const v1::DecisionRequest& request);

  const MatchInfo& match() const { return *match_; }
  const v1::DecisionRequest& request() const { return *request_; }
  const v1::Observation& observation() const { return request_->observation(); }
  // The rules engine (may be null, see MatchInfo::game).
  const Game* game() const { return match_->game.get(); }

  int seat() const { return observation().seat(); }
  int num_seats() const { return observation().num_seats(); }
  int hand_index() const { return request_->hand_index(); }
  const std::string& phase() const { return observation().phase(); }
  // The legal actions in text form ("pass", "bid three", "play T22", ...).
  const std::vector<std::string>& legal() const { return legal_; }
  bool IsLegal(const std::string& action) const;

  CardSet hand() const { return hand_; }
  // The cards this seat may play now (the arguments of the legal "play" actions).
  CardSet PlayableCards() const;
  // The current trick in play order, and who led it (-1 outside play).
  std::vector<Card> trick() const;
  int trick_leader() const { return observation().trick_leader(); }
  // Every card played to a trick so far in this hand, this trick included.
  CardSet PlayedCards() const;
  // The cards of `seat` that are shown to everyone (tarock discards, an open hand).
  CardSet Shown(int seat) const;
  // The cards whose place this seat does not know: not in its hand, not played,
  // not shown, not a visible talon card. Hidden discards are among them.
  CardSet UnknownCards() const;

  int declarer() const { return observation().declarer(); }
  const std::string& contract() const { return observation().contract(); }
  // The declarer's partner when this seat knows it (itself included), else -1.
  int partner() const { return observation().partner(); }

  // Time for this decision and in the match bank, in milliseconds; 0 means no limit.
  int64_t time_left_ms() const { return request_->time_left_ms(); }
  int64_t bank_left_ms() const { return request_->bank_left_ms(); }

 private:
  const MatchInfo* match_;
  const v1::DecisionRequest* request_;
  std::vector<std::string> legal_;
  CardSet hand_;
};

// "play HK" for a card; "" when `action` is not a play.
std::string PlayAction(Card card);
// The card of a "play X" or "discard X" action, if it is one.
std::optional<Card> CardOfAction(const std::string& action);
// Card points of a set, rounded the traditional way (CardThirds in card.h
// gives exact thirds).
int CardPoints(CardSet cards);

// The class a bot author implements. One instance serves one match.
class Bot {
 public:
  virtual ~Bot() = default;
  virtual void StartMatch(const MatchInfo& match) {}
  virtual void StartHand(const v1::HandStart& hand) {}
  // Returns one of s.legal(). Anything else is a fault charged to the bot (the
  // referee then plays a fallback action for it).
  virtual std::string Decide(const Situation& s) = 0;
  virtual void EndHand(const v1::HandResult& result) {}
  virtual void EndMatch(const v1::MatchResult& result) {}
};

using BotFactory = std::function<std::unique_ptr<Bot>()>;

// Drives one Bot through one match stream: turns each RefereeMessage into calls
// on the bot and returns the Decision to send, if any. The gRPC server (serve.h)
// and in-process seats (the referee's tests and benchmarks) both use it, so a
// bot behaves the same in both. Not thread-safe: one stream, one thread at a time.
class BotSession {
 public:
  explicit BotSession(std::unique_ptr<Bot> bot) : bot_(std::move(bot)) {}
  // Returns the reply to `message`: a Decision for a DecisionRequest, nothing
  // otherwise. A bot that throws answers with an empty action (a fault).
  std::optional<v1::BotMessage> Handle(const v1::RefereeMessage& message);
  const MatchInfo& match() const { return match_; }
  Bot& bot() { return *bot_; }

 private:
  std::unique_ptr<Bot> bot_;
  MatchInfo match_;
};

}  // namespace tarock::sdk

#endif  // TAROCK_SDK_BOT_H_
