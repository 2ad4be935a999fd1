// The referee's SeatGateway service (gateway.proto): dial-in bots on the
// direct route join their seats here with the ticket the arena gave them
// (referee/core/joined_seat.h, docs/dial-in.md "Routes"). A thin layer:
// each Join stream becomes a JoinedStream of the SeatRendezvous, and its
// messages go to the seat it plays.
//
// Served on gRPC's completion-queue (async) API, on the same queues as the
// streams the referee dials (completion_loop.h): the loop thread that reads a
// joined bot's answer off the socket resumes the match with it, exactly as for
// a dialed bot. (On the callback API a gRPC thread read the answer and handed
// it to another that ran the reaction: about 0.05 ms more per decision,
// docs/dial-in.md "Tests and figures".)
//
// Use: Register before the server is built, Start once it is and the loop
// runs; at shutdown Stop, then shut the server down, then AwaitCallsEnded,
// then shut the loop down.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_
#define TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "referee/core/joined_seat.h"
#include "referee/server/completion_loop.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock {

class SeatGatewayService {
 public:
  // `rendezvous` must outlive the service.
  explicit SeatGatewayService(SeatRendezvous* rendezvous) : rendezvous_(rendezvous) {}
  SeatGatewayService(const SeatGatewayService&) = delete;
  SeatGatewayService& operator=(const SeatGatewayService&) = delete;

  // Adds the service to `builder` (before BuildAndStart).
  void Register(grpc::ServerBuilder* builder) { builder->RegisterService(&async_); }
  // Takes Join calls on each of `loop`'s server queues (the loop must have
  // been made from the queues of the server this service is registered on).
  // `loop` must outlive every call (see AwaitCallsEnded).
  void Start(CompletionLoop* loop);
  // No new calls are taken once this returns: call it before the server's
  // Shutdown (a call requested on a shut-down queue would abort the process).
  void Stop();
  // Waits until every Join call has ended (after the server's Shutdown, which
  // cancels them) or `deadline` passes; true when none is left. Only then may
  // the loop's queues be shut down.
  bool AwaitCallsEnded(absl::Time deadline);

 private:
  friend class JoinCall;
  // Asks for the next Join call on `cq` (one is outstanding per queue).
  void RequestCall(grpc::ServerCompletionQueue* cq);
  void CallEnded();

  SeatRendezvous* const rendezvous_;
  v1::SeatGateway::AsyncService async_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Calls that exist: requested (one per queue) or in progress.
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_SEAT_GATEWAY_SERVICE_H_
