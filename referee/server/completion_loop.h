// The referee's event loop for its outgoing gRPC streams: one completion
// queue, polled by a few threads. Each completion is handed to the object
// that started the operation (a CompletionLoop::Handler), on the polling
// thread, so the thread that read a bot's answer from the socket is the one
// that goes on with the match (no hand-off).
//
// Thread-safety: thread-safe. Handlers run on the loop's threads, several at
// once (for different operations); they must not block.

#ifndef TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_
#define TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_

#include <grpcpp/grpcpp.h>

#include <thread>
#include <vector>

namespace tarock {

class CompletionLoop {
 public:
  // The tag of every operation started on cq(): the loop calls Done with the
  // operation's outcome.
  class Handler {
   public:
    virtual void Done(bool ok) = 0;

   protected:
    ~Handler() = default;
  };

  // Starts `threads` (at least 1) polling threads.
  explicit CompletionLoop(int threads);
  // Shuts the queue down and joins the threads; every operation started on
  // the queue must have completed (or complete during shutdown) by then.
  ~CompletionLoop();
  CompletionLoop(const CompletionLoop&) = delete;
  CompletionLoop& operator=(const CompletionLoop&) = delete;

  grpc::CompletionQueue* cq() { return &cq_; }
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  grpc::CompletionQueue cq_;
  std::vector<std::thread> threads_;
};

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_COMPLETION_LOOP_H_
