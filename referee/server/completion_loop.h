// The referee's event loop for its outgoing gRPC streams: a few completion
// queues, each polled by one thread of its own. Each completion is handed to
// the object that started the operation (a CompletionLoop::Handler), on the
// polling thread, so the thread that read a bot's answer from the socket is
// the one that goes on with the match (no hand-off).
//
// One thread per queue, not several threads on one queue: with several
// pollers gRPC hands completions from the thread that read the socket to
// another one (about four more context switches per decision, measured). And
// a match keeps to one queue: cq() called from a loop thread returns that
// thread's queue, so the streams a match opens after its first land where the
// match runs; a call from elsewhere (a match's start) takes the next queue in
// turn, which spreads matches over the threads.
//
// A server's queues (grpc::ServerBuilder::AddCompletionQueue) may be the
// loop's: then the streams bots open to the server (SeatGateway.Join,
// seat_gateway_service.h) complete on the same threads as the streams the
// referee dials, and a joined bot's answer resumes its match with no hand-off
// either.
//
// Thread-safety: thread-safe. Handlers run on the loop's threads, several at
// once (for different queues); they must not block.

#ifndef TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_
#define TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace tarock {

class CompletionLoop {
 public:
  // The tag of every operation started on a queue of the loop: the loop
  // calls Done with the operation's outcome.
  class Handler {
   public:
    virtual void Done(bool ok) = 0;

   protected:
    ~Handler() = default;
  };

  // The tag of one kind of operation of `Owner`: the loop's completion goes
  // to owner->Handle(op, ok). An owner keeps one per kind of operation it may
  // have in flight, so a tag needs no allocation.
  template <typename Owner, typename Op>
  class OpTag final : public Handler {
   public:
    OpTag(Owner* owner, Op op) : owner_(owner), op_(op) {}
    void Done(bool ok) override { owner_->Handle(op_, ok); }
    // The tag to start an operation with.
    void* tag() { return static_cast<Handler*>(this); }

   private:
    Owner* owner_;
    Op op_;
  };

  // Starts `threads` (at least 1) queues with a polling thread each.
  explicit CompletionLoop(int threads);
  // A loop on a server's queues (at least one), made before the server is
  // built; their threads start with Start(), once it is.
  explicit CompletionLoop(std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues);
  // Shuts down (see Shutdown).
  ~CompletionLoop();
  CompletionLoop(const CompletionLoop&) = delete;
  CompletionLoop& operator=(const CompletionLoop&) = delete;

  // The queue for a new stream: the calling thread's own when it is one of
  // this loop's threads, else the next in turn.
  grpc::CompletionQueue* cq();
  int threads() const { return static_cast<int>(shards_.size()); }
  // The server's queues the loop was made from (empty for a loop of its own).
  std::vector<grpc::ServerCompletionQueue*> server_queues() const;

  // Starts the polling threads of a loop made from a server's queues (a no-op
  // otherwise, and when started).
  void Start();
  // Shuts the queues down and joins the threads; idempotent. Every operation
  // started on the queues must have completed (or complete during shutdown),
  // and none may be started after: a server's queues only after its Shutdown
  // and once its calls have ended.
  void Shutdown();

 private:
  struct Shard {
    std::unique_ptr<grpc::CompletionQueue> cq;
    grpc::ServerCompletionQueue* server_cq = nullptr;  // cq, when it is one
    std::thread thread;
  };
  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<bool> started_{false};
  std::atomic<bool> shut_down_{false};
  std::atomic<unsigned> next_{0};
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_
