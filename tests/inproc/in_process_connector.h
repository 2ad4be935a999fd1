// In-process seats: endpoints of the form "inproc:NAME" run an SDK bot in the
// referee's own process, with no network, through the same MatchRunner as
// remote bots. For tests, benchmarks and strength runs of trusted bot code; a
// decision runs on the match's thread, so the per-decision deadline is checked
// after the fact (a late answer is still a timeout fault) but cannot preempt it.
// It joins the SDK's Bot to the referee's BotConnector, so it lives above both,
// beside the tests (target tarock_in_process_connector): the referee's own
// libraries do not depend on the bot SDK.
//
// Thread-safety: Register before use; Connect is thread-safe; each connection
// belongs to one match thread.

#ifndef TAROCK_TESTS_INPROC_IN_PROCESS_CONNECTOR_H_
#define TAROCK_TESTS_INPROC_IN_PROCESS_CONNECTOR_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/bot_connection.h"
#include "tarock/sdk/bot.h"

namespace tarock {

class InProcessConnector : public BotConnector {
 public:
  // Makes "inproc:NAME" available; a later registration of NAME replaces it.
  void Register(const std::string& name, sdk::BotFactory factory);
  // Connects "inproc:NAME"; other endpoints go to `fallback` when set
  // (e.g. the gRPC connector), else fail with UNAVAILABLE.
  absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                         absl::Time deadline) override;
  void set_fallback(BotConnector* fallback) { fallback_ = fallback; }

 private:
  absl::Mutex mu_;
  std::map<std::string, sdk::BotFactory> factories_ ABSL_GUARDED_BY(mu_);
  BotConnector* fallback_ = nullptr;
};

}  // namespace tarock

#endif  // TAROCK_TESTS_INPROC_IN_PROCESS_CONNECTOR_H_
