// Bot connections over gRPC: one Bot.Play stream per seat per match, on the
// async API. Every stream's operations complete on the connector's
// CompletionLoop (a few completion queues, one thread polling each), and the thread
// that takes a bot's answer off the queue resumes the match with it (the match
// is a coroutine, referee/core/match_runner.h): no thread per stream or per
// match, and no hand-off between the socket and the match. A decision's
// deadline is a timer (referee/core/timer_queue.h), cancelled when the answer
// comes.
//
// Each connection gets its own channel with a local subchannel pool, so every
// seat has its own TCP connection: a bot that floods or stalls its connection
// cannot hold up another seat's flow control.
//
// Thread-safety: GrpcBotConnector is thread-safe; a connection is used by one
// match at a time (see bot_connection.h). The synchronous forms (Decide,
// Finish, ConnectSeat) block their caller until a loop thread completes them,
// so they must not be called from a loop thread.

#ifndef TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
#define TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_

#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/bot_connection.h"
#include "referee/net/endpoint_policy.h"
#include "tarock/transport/transport.h"

namespace tarock {

class CompletionLoop;

struct GrpcConnectorOptions {
  // The largest message accepted from a bot; larger ones fail the stream and
  // count as a malformed-message fault. A decision is a few dozen bytes.
  int max_receive_bytes = 64 * 1024;
  // Which bot addresses may be dialed (referee/net/endpoint_policy.h). The
  // endpoint is resolved and checked when the seat is dialed, and the checked
  // address is what is dialed, so a name that changes after registration
  // cannot point the referee elsewhere. Default: everything (tests, `tarock
  // match`); tarock-referee makes it restrictive.
  net::EndpointPolicy endpoint_policy;
  // Threads polling the streams' completion queues, one queue each (and
  // running the matches they resume; completion_loop.h). One is the default:
  // gRPC's poller hands a socket's events between the threads of different
  // queues (about three more context switches and a third more CPU per
  // decision with two, measured by referee_bench), and one thread plays
  // thousands of matches; more pay off only with cores to spare.
  int completion_threads = 1;
  // A loop to run on instead of one of the connector's own (then
  // completion_threads is unused): tarock-referee's, whose queues are also
  // its server's, so dialed and joined seats share the threads. Not owned; it
  // must outlive the connector. Default: none.
  CompletionLoop* loop = nullptr;
  // Streams being opened at once; more wait their turn (within their connect
  // deadline). A thousand matches starting together would otherwise open four
  // thousand TCP connections in the same instant, and the bots' accept queues
  // and handshakes time out, which makes gRPC retry, which makes it worse.
  int max_connects_in_flight = 64;
};

class GrpcBotConnector : public BotConnector {
 public:
  // `transport` secures the connections to bots (tarock/transport/transport.h); the
  // default is plaintext to loopback bots only. Starts the completion loop.
  explicit GrpcBotConnector(GrpcConnectorOptions options = {}, transport::Transport transport = {});
  // Every connection must have finished (or been dropped) before.
  ~GrpcBotConnector() override;
  absl::StatusOr<std::unique_ptr<BotConnection>> Connect(const std::string& endpoint,
                                                         absl::Time deadline) override;
  absl::StatusOr<std::unique_ptr<BotConnection>> ConnectSeat(const v1::SeatSpec& seat,
                                                             absl::Time deadline) override;
  void ConnectSeatAsync(const v1::SeatSpec& seat, absl::Time deadline,
                        ConnectDone done) override;

 private:
  // Opens the stream now (it holds a connect slot); `*done` is moved from and
  // gets the outcome. An error instead when the seat cannot be dialed at all
  // (the endpoint policy, the transport): then `*done` is untouched and the
  // caller still holds the slot.
  absl::Status StartConnect(const v1::SeatSpec& seat, absl::Time deadline, ConnectDone* done);
  // Gives a connect slot back, to the oldest waiting connect if any.
  void ReleaseConnectSlot();

  GrpcConnectorOptions options_;
  transport::Transport transport_;
  std::unique_ptr<CompletionLoop> own_loop_;  // unless options_.loop
  CompletionLoop* loop_;
  absl::Mutex mu_;
  int connects_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  struct WaitingConnect {
    v1::SeatSpec seat;
    absl::Time deadline;
    ConnectDone done;
  };
  std::deque<WaitingConnect> waiting_connects_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_GRPC_BOT_CONNECTION_H_
