#include "tarock/sdk/bot.h"

#include <algorithm>
#include <exception>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "referee/engine/registry.h"

namespace tarock::sdk {
namespace {

CardSet ParseCards(const google::protobuf::RepeatedPtrField<std::string>& names) {
  CardSet set;
  for (const std::string& n : names) {
    absl::StatusOr<Card> c = ParseCard(n);
    if (c.ok()) set.Add(*c);
  }
  return set;
}

}  // namespace

std::string PlayAction(Card card) { return "play " + CardName(card); }

std::optional<Card> CardOfAction(const std::string& action) {
  absl::string_view rest = action;
  if (absl::ConsumePrefix(&rest, "play ") || absl::ConsumePrefix(&rest, "discard ")) {
    absl::StatusOr<Card> c = ParseCard(rest);
    if (c.ok()) return *c;
  }
  return std::nullopt;
}

int CardPoints(CardSet cards) { return RoundThirds(SetThirds(cards)); }

Situation::Situation(const MatchInfo& match, const v1::DecisionRequest& request)
    : match_(&match), request_(&request) {
  legal_.assign(request.legal_actions().begin(), request.legal_actions().end());
  hand_ = ParseCards(request.observation().hand());
}

bool Situation::IsLegal(const std::string& action) const {
  return std::find(legal_.begin(), legal_.end(), action) != legal_.end();
}

CardSet Situation::PlayableCards() const {
  CardSet out;
  for (const std::string& a : legal_) {
    if (absl::StartsWith(a, "play ")) {
      if (std::optional<Card> c = CardOfAction(a)) out.Add(*c);
    }
  }
  return out;
}

std::vector<Card> Situation::trick() const {
  std::vector<Card> out;
  for (const std::string& n : observation().trick()) {
    absl::StatusOr<Card> c = ParseCard(n);
    if (c.ok()) out.push_back(*c);
  }
  return out;
}

CardSet Situation::PlayedCards() const {
  CardSet out;
  for (const v1::Event& e : observation().history()) {
    if (absl::StartsWith(e.action(), "play ")) {
      if (std::optional<Card> c = CardOfAction(e.action())) out.Add(*c);
    }
  }
  return out;
}

CardSet Situation::Shown(int seat) const {
  if (seat < 0 || seat >= observation().shown_size()) return CardSet();
  return ParseCards(observation().shown(seat).cards());
}

CardSet Situation::UnknownCards() const {
  CardSet known = hand_ | PlayedCards();
  for (int s = 0; s < observation().shown_size(); ++s) known |= Shown(s);
  known |= ParseCards(observation().talon());
  // Own discards are known to this seat (they are in its history in full).
  for (const v1::Event& e : observation().history()) {
    if (e.seat() == seat() && absl::StartsWith(e.action(), "discard ")) {
      if (std::optional<Card> c = CardOfAction(e.action())) known.Add(*c);
    }
  }
  return kAllCards - known;
}

std::optional<v1::BotMessage> BotSession::Handle(const v1::RefereeMessage& message) {
  switch (message.message_case()) {
    case v1::RefereeMessage::kMatchStart: {
      const v1::MatchStart& m = message.match_start();
      match_ = MatchInfo();
      match_.match_id = m.match_id();
      match_.variant = m.variant();
      match_.options = Options(m.options().begin(), m.options().end());
      match_.seat = m.seat();
      match_.num_seats = m.num_seats();
      match_.num_hands = m.num_hands();
      match_.time_control = m.time_control();
      match_.seat_names.assign(m.seat_names().begin(), m.seat_names().end());
      absl::StatusOr<std::unique_ptr<Game>> game =
          Registry::Global().Create(m.variant(), match_.options);
      if (game.ok()) match_.game = std::shared_ptr<const Game>(std::move(*game));
      bot_->StartMatch(match_);
      return std::nullopt;
    }
    case v1::RefereeMessage::kHandStart:
      bot_->StartHand(message.hand_start());
      return std::nullopt;
    case v1::RefereeMessage::kDecisionRequest: {
      const v1::DecisionRequest& request = message.decision_request();
      v1::BotMessage reply;
      v1::Decision* d = reply.mutable_decision();
      d->set_request_id(request.request_id());
      try {
        d->set_action(bot_->Decide(Situation(match_, request)));
      } catch (const std::exception&) {
        d->set_action("");
      }
      return reply;
    }
    case v1::RefereeMessage::kHandResult:
      bot_->EndHand(message.hand_result());
      return std::nullopt;
    case v1::RefereeMessage::kMatchResult:
      bot_->EndMatch(message.match_result());
      return std::nullopt;
    case v1::RefereeMessage::MESSAGE_NOT_SET:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace tarock::sdk
