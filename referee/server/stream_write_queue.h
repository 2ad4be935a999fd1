// The write side of one callback-API server stream (grpc::ServerBidiReactor,
// or grpc::ServerWriteReactor):
// the callback API allows one write in flight, so messages queue here and go
// out one after the other, and the call is finished only once no write is in
// flight. Shared by every bidi service that pushes messages from other
// threads: the referee's SeatGateway and RunMatch, the arena's Bot relay and
// BotGateway.
//
// StartWrite and Finish are called outside the lock (a reaction may run
// inline on the calling thread).
//
// Thread-safety: thread-safe. The reactor calls WriteDone from
// OnWriteDone and Done from OnDone; anyone may call Send and Close.

#ifndef TAROCK_REFEREE_SERVER_STREAM_WRITE_QUEUE_H_
#define TAROCK_REFEREE_SERVER_STREAM_WRITE_QUEUE_H_

#include <grpcpp/grpcpp.h>

#include <deque>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace tarock {

// `R` is the reactor: a bidi stream's by default, or a server stream's
// (grpc::ServerWriteReactor<Out>; `In` is unused then).
template <typename In, typename Out, typename R = grpc::ServerBidiReactor<In, Out>>
class StreamWriteQueue {
public:
  using Reactor = R;
  // What Close does with messages queued behind the write in flight.
  enum class OnClose {
    kDrain, // they are written first, then the call finishes
    kDrop,  // they are dropped
  };

  // `reactor` must stay valid until Done().
  StreamWriteQueue(Reactor *reactor, OnClose on_close)
      : reactor_(reactor), on_close_(on_close) {}

  // Queues `message`; false (and nothing queued) once closed.
  bool Send(const Out &message) {
    const Out *write = nullptr;
    Reactor *reactor = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (closed_ || reactor_ == nullptr)
        return false;
      reactor = reactor_;
      queue_.push_back(message);
      if (writing_)
        return true;
      writing_ = true;
      write = &queue_.front(); // stable until WriteDone pops it
    }
    reactor->StartWrite(write);
    return true;
  }

  // No more messages; the call finishes with `status` once the writes still
  // to go (see OnClose) are done. Later calls are no-ops.
  void Close(const grpc::Status &status) {
    bool now = false;
    Reactor *reactor = nullptr;
    {
      absl::MutexLock lock(&mu_);
      reactor = reactor_;
      closed_ = true;
      if (reactor == nullptr || finished_ || finish_pending_)
        return;
      if (on_close_ == OnClose::kDrop) {
        while (queue_.size() > (writing_ ? 1 : 0))
          queue_.pop_back();
      }
      finish_pending_ = status;
      if (!writing_) {
        finished_ = true;
        now = true;
      }
    }
    if (now)
      reactor->Finish(status);
  }

  // From the reactor's OnWriteDone.
  void WriteDone(bool ok) {
    const Out *write = nullptr;
    std::optional<grpc::Status> finish;
    Reactor *reactor = nullptr;
    {
      absl::MutexLock lock(&mu_);
      reactor = reactor_;
      if (!queue_.empty())
        queue_.pop_front();
      if (!ok) {
        closed_ = true;
        queue_.clear();
      }
      if (!queue_.empty() && (!closed_ || finish_pending_)) {
        write = &queue_.front();
      } else {
        writing_ = false;
        if (finish_pending_ && !finished_) {
          finished_ = true;
          finish = *finish_pending_;
        }
      }
    }
    if (reactor == nullptr)
      return;
    if (write)
      reactor->StartWrite(write);
    if (finish)
      reactor->Finish(*finish);
  }

  // From the reactor's OnDone: the call is over, nothing more is written.
  void Done() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    reactor_ = nullptr;
  }

  bool closed() {
    absl::MutexLock lock(&mu_);
    return closed_;
  }

private:
  absl::Mutex mu_;
  Reactor *reactor_ ABSL_GUARDED_BY(mu_);
  const OnClose on_close_;
  std::deque<Out> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> finish_pending_ ABSL_GUARDED_BY(mu_);
};

} // namespace tarock

#endif // TAROCK_REFEREE_SERVER_STREAM_WRITE_QUEUE_H_
