#include "tests/inproc/in_process_connector.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tarock {
namespace {

class InProcessConnection : public BotConnection {
 public:
  explicit InProcessConnection(std::unique_ptr<sdk::Bot> bot) : session_(std::move(bot)) {}

  void Send(const v1::RefereeMessage& message) override { session_.Handle(message); }

  BotReply Decide(const v1::DecisionRequest& request, absl::Time deadline) override {
    BotReply reply;
    const absl::Time start = absl::Now();
    v1::RefereeMessage m;
    *m.mutable_decision_request() = request;
    std::optional<v1::BotMessage> answer = session_.Handle(m);
    const absl::Time end = absl::Now();
    reply.elapsed = end - start;
    if (end > deadline) {
      reply.kind = BotReply::Kind::kTimeout;
    } else if (!answer || !answer->has_decision()) {
      reply.kind = BotReply::Kind::kMalformed;
      reply.detail = "no decision";
    } else {
      reply.kind = BotReply::Kind::kDecision;
      reply.action = answer->decision().action();
    }
    return reply;
  }

  bool connected() const override { return true; }
  std::string hello_name() const override { return ""; }
  void Finish(absl::Time) override {}

 private:
  sdk::BotSession session_;
};

}  // namespace

void InProcessConnector::Register(const std::string& name, sdk::BotFactory factory) {
  absl::MutexLock lock(&mu_);
  factories_[name] = std::move(factory);
}

absl::StatusOr<std::unique_ptr<BotConnection>> InProcessConnector::Connect(
    const std::string& endpoint, absl::Time deadline) {
  absl::string_view name = endpoint;
  if (!absl::ConsumePrefix(&name, "inproc:")) {
    if (fallback_ != nullptr) return fallback_->Connect(endpoint, deadline);
    return absl::UnavailableError(absl::StrCat("no in-process bot at '", endpoint, "'"));
  }
  sdk::BotFactory factory;
  {
    absl::MutexLock lock(&mu_);
    auto it = factories_.find(std::string(name));
    if (it == factories_.end())
      return absl::UnavailableError(absl::StrCat("no in-process bot named '", name, "'"));
    factory = it->second;
  }
  return std::make_unique<InProcessConnection>(factory());
}

}  // namespace tarock
