#include "referee/server/completion_loop.h"

#include <algorithm>

namespace tarock {
namespace {
// The queue polled by the current thread, if it is a loop thread.
thread_local grpc::CompletionQueue* current_queue = nullptr;
thread_local const CompletionLoop* current_loop = nullptr;
}  // namespace

CompletionLoop::CompletionLoop(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->cq = std::make_unique<grpc::CompletionQueue>();
  }
  Start();
}

CompletionLoop::CompletionLoop(std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues) {
  for (auto& queue : queues) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->server_cq = queue.get();
    shards_.back()->cq = std::move(queue);
  }
}

CompletionLoop::~CompletionLoop() { Shutdown(); }

std::vector<grpc::ServerCompletionQueue*> CompletionLoop::server_queues() const {
  std::vector<grpc::ServerCompletionQueue*> queues;
  for (const auto& shard : shards_)
    if (shard->server_cq != nullptr) queues.push_back(shard->server_cq);
  return queues;
}

void CompletionLoop::Start() {
  if (started_.exchange(true)) return;
  for (auto& shard : shards_) {
    Shard* s = shard.get();
    s->thread = std::thread([this, s] {
      current_queue = s->cq.get();
      current_loop = this;
      void* tag = nullptr;
      bool ok = false;
      while (s->cq->Next(&tag, &ok)) static_cast<Handler*>(tag)->Done(ok);
    });
  }
}

void CompletionLoop::Shutdown() {
  if (shut_down_.exchange(true)) return;
  for (auto& shard : shards_) shard->cq->Shutdown();
  if (!started_.exchange(true)) {
    // Never polled: drain here so the queues may be destroyed.
    for (auto& shard : shards_) {
      void* tag = nullptr;
      bool ok = false;
      while (shard->cq->Next(&tag, &ok)) static_cast<Handler*>(tag)->Done(ok);
    }
    return;
  }
  for (auto& shard : shards_) shard->thread.join();
}

grpc::CompletionQueue* CompletionLoop::cq() {
  if (current_loop == this) return current_queue;
  return shards_[next_.fetch_add(1, std::memory_order_relaxed) % shards_.size()]->cq.get();
}

}  // namespace tarock
