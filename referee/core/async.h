// The referee's coroutines: a match is one C++20 coroutine that suspends at
// every wait for a bot (connect, decision, close) and is resumed by whatever
// completes the wait — a gRPC completion-queue thread, a joined stream's
// thread, a timer — so a thousand matches need a thousand coroutine frames,
// not a thousand threads (issue 15), while the match's rules stay written as
// straight-line code (match_runner.cc).
//
//   DetachedTask<int> Body() { int x = co_await Await<int>(start); co_return x; }
//   Body().Start([](int x) { ... });
//
// Await<T> adapts a callback API (`start(done)`, with `done` called exactly
// once, on any thread, possibly before `start` returns) to `co_await`. When
// `done` is called inline the coroutine does not suspend at all, so a match
// whose bots all answer inline (in-process bots) runs on its caller's thread
// with no recursion.
//
// Thread-safety: a coroutine is resumed by one thread at a time (each match
// has at most one wait outstanding); Await's hand-over between the thread that
// suspends and the thread that completes is an atomic exchange.

#ifndef TAROCK_REFEREE_CORE_ASYNC_H_
#define TAROCK_REFEREE_CORE_ASYNC_H_

#include <atomic>
#include <coroutine>
#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/notification.h"

namespace tarock {

// A coroutine that runs once Start() is called and hands its result to the
// callback given there; its frame frees itself when it ends. Not awaitable
// (the referee never nests them).
template <typename T>
class DetachedTask {
 public:
  struct promise_type {
    std::optional<T> value;
    absl::AnyInvocable<void(T)> on_done;

    DetachedTask get_return_object() {
      return DetachedTask(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    // Hands the value over and frees the frame: nothing runs in it afterwards.
    struct Final {
      bool await_ready() noexcept { return false; }
      void await_suspend(std::coroutine_handle<promise_type> handle) noexcept {
        absl::AnyInvocable<void(T)> done = std::move(handle.promise().on_done);
        T value = std::move(*handle.promise().value);
        handle.destroy();
        if (done) done(std::move(value));
      }
      void await_resume() noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_value(T v) { value.emplace(std::move(v)); }
    void unhandled_exception() { std::abort(); }  // the project builds without exceptions in mind
  };

  DetachedTask(DetachedTask&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  DetachedTask(const DetachedTask&) = delete;
  DetachedTask& operator=(const DetachedTask&) = delete;
  ~DetachedTask() {
    if (handle_) handle_.destroy();  // never started
  }

  // Runs the coroutine on the calling thread until its first suspension;
  // `on_done` gets the result on whichever thread finishes it.
  void Start(absl::AnyInvocable<void(T)> on_done) && {
    std::coroutine_handle<promise_type> handle = std::exchange(handle_, {});
    handle.promise().on_done = std::move(on_done);
    handle.resume();
  }

 private:
  explicit DetachedTask(std::coroutine_handle<promise_type> handle) : handle_(handle) {}
  std::coroutine_handle<promise_type> handle_;
};

// `co_await Await<T>(start)`: calls start(done) and resumes with the value
// given to done. `start` must call `done` exactly once.
template <typename T>
class Await {
 public:
  using Done = absl::AnyInvocable<void(T)>;
  using Start = absl::AnyInvocable<void(Done)>;

  explicit Await(Start start) : start_(std::move(start)) {}

  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> handle) {
    handle_ = handle;
    start_([this](T value) {
      value_.emplace(std::move(value));
      // kSuspended: the coroutine is parked and this is the last touch of it.
      if (phase_.exchange(kCompleted, std::memory_order_acq_rel) == kSuspended) handle_.resume();
    });
    // kCompleted already: `done` ran inline, so go on without suspending.
    return phase_.exchange(kSuspended, std::memory_order_acq_rel) != kCompleted;
  }
  T await_resume() { return std::move(*value_); }

 private:
  enum Phase : int { kStarting, kSuspended, kCompleted };
  Start start_;
  std::coroutine_handle<> handle_;
  std::optional<T> value_;
  std::atomic<int> phase_{kStarting};
};

// The synchronous form of a callback API: calls start(done) and blocks the
// calling thread until `done` has been called (on any thread, or inline);
// returns its value. Never call it from a thread that `done` needs.
template <typename T>
T BlockOn(absl::AnyInvocable<void(absl::AnyInvocable<void(T)>)> start) {
  absl::Notification finished;
  std::optional<T> value;
  start([&](T v) {
    value.emplace(std::move(v));
    finished.Notify();
  });
  finished.WaitForNotification();
  return std::move(*value);
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_CORE_ASYNC_H_
