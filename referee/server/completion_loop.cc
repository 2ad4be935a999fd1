#include "referee/server/completion_loop.h"

#include <algorithm>

namespace tarock {

CompletionLoop::CompletionLoop(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    threads_.emplace_back([this] {
      void* tag = nullptr;
      bool ok = false;
      while (cq_.Next(&tag, &ok)) static_cast<Handler*>(tag)->Done(ok);
    });
  }
}

CompletionLoop::~CompletionLoop() {
  cq_.Shutdown();
  for (std::thread& t : threads_) t.join();
}

}  // namespace tarock
