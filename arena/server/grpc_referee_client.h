// RefereeClient over gRPC: Referee.RunMatch on a channel per referee address.
//
// Thread-safety: thread-safe; channels are created once per address and shared.

#ifndef TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_
#define TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_

#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "arena/scheduler/referee_client.h"

namespace grpc {
class Channel;
}

namespace tarock::arena {

class GrpcRefereeClient : public RefereeClient {
 public:
  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address, const v1::MatchSpec& spec,
                                             const std::atomic<bool>* cancel) override;

 private:
  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address);
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_
