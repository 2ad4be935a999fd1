// RefereeClient over gRPC: Referee.RunMatch on a channel per referee address.
//
// Cancellation: one watcher thread per client (started with the first call)
// checks the cancel flags of the calls in flight every 50 ms and cancels those
// whose flag is set, instead of a thread per call.
//
// Thread-safety: thread-safe; channels are created once per address and shared.

#ifndef TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_
#define TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_

#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "arena/scheduler/referee_client.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace tarock::arena {

class GrpcRefereeClient : public RefereeClient {
 public:
  GrpcRefereeClient() = default;
  ~GrpcRefereeClient() override;  // stops the watcher; no call may be in flight
  GrpcRefereeClient(const GrpcRefereeClient&) = delete;
  GrpcRefereeClient& operator=(const GrpcRefereeClient&) = delete;

  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address, const v1::MatchSpec& spec,
                                             const std::atomic<bool>* cancel) override;

 private:
  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address);
  void WatchLoop();

  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
  // The calls in flight that can be cancelled, and their flags.
  std::map<grpc::ClientContext*, const std::atomic<bool>*> calls_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;  // started by the first call with a cancel flag
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_
