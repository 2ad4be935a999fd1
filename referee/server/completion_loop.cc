#include "referee/server/completion_loop.h"

#include <algorithm>

namespace tarock {
namespace {
// The queue polled by the current thread, if it is a loop thread.
thread_local grpc::CompletionQueue* current_queue = nullptr;
thread_local const CompletionLoop* current_loop = nullptr;
}  // namespace

CompletionLoop::CompletionLoop(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) shards_.push_back(std::make_unique<Shard>());
  for (auto& shard : shards_) {
    Shard* s = shard.get();
    s->thread = std::thread([this, s] {
      current_queue = &s->cq;
      current_loop = this;
      void* tag = nullptr;
      bool ok = false;
      while (s->cq.Next(&tag, &ok)) static_cast<Handler*>(tag)->Done(ok);
    });
  }
}

CompletionLoop::~CompletionLoop() {
  for (auto& shard : shards_) shard->cq.Shutdown();
  for (auto& shard : shards_) shard->thread.join();
}

grpc::CompletionQueue* CompletionLoop::cq() {
  if (current_loop == this) return current_queue;
  return &shards_[next_.fetch_add(1, std::memory_order_relaxed) % shards_.size()]->cq;
}

}  // namespace tarock
