// RefereeClient over gRPC: Referee.RunMatch on a channel per referee address.
//
// Cancellation: the client keeps the contexts of its calls in flight;
// CancelAll() cancels those whose flag is set (no thread watches the flags, so
// nothing wakes up while matches run).
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
#include "tarock/transport/transport.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace tarock::metrics {
class GrpcMetrics;
}  // namespace tarock::metrics

namespace tarock::arena {

class GrpcRefereeClient : public RefereeClient {
 public:
  GrpcRefereeClient() = default;
  // `transport` secures the connections to referees (tarock/transport/transport.h);
  // a non-empty `token` goes with every call (the referees' --referee_token);
  // `grpc_metrics` (may be null; must outlive the client) records every call
  // to the referees (grpc_client_* metrics).
  GrpcRefereeClient(transport::Transport transport, std::string token,
                    metrics::GrpcMetrics* grpc_metrics = nullptr)
      : transport_(std::move(transport)), token_(std::move(token)), grpc_metrics_(grpc_metrics) {}
  GrpcRefereeClient(const GrpcRefereeClient&) = delete;
  GrpcRefereeClient& operator=(const GrpcRefereeClient&) = delete;

  absl::StatusOr<v1::MatchFinished> RunMatch(const std::string& address, const v1::MatchSpec& spec,
                                             const std::atomic<bool>* cancel) override;
  absl::StatusOr<v1::MatchFinished> RunMatchWithEvents(const std::string& address,
                                                       const v1::MatchSpec& spec,
                                                       const std::atomic<bool>* cancel,
                                                       const EventCallback& on_event) override;
  void CancelAll() override;
  // The RunMatch calls of a table whose deal other tables share
  // (withhold_hand_records) are held in grpc_metrics (GrpcMetrics::
  // HoldClientCall) under the match id until this is called.
  void ReleaseHeldMetrics(const std::string& match_id) override;

 private:
  absl::StatusOr<std::shared_ptr<grpc::Channel>> ChannelTo(const std::string& address);

  transport::Transport transport_;  // not const: clang would delete the default constructor
  std::string token_;
  metrics::GrpcMetrics* const grpc_metrics_ = nullptr;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
  // The calls in flight that can be cancelled, and their flags.
  std::map<grpc::ClientContext*, const std::atomic<bool>*> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_GRPC_REFEREE_CLIENT_H_
