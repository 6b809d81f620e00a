#include "core/worker_thread.h"

#include <utility>

#include "core/cpu_pinning.h"

namespace uringload::core {

void WorkerThread::Start(int cpu, std::function<absl::Status()> body,
                         std::function<void(const absl::Status&)> done) {
  thread_ = std::thread([this, cpu, body = std::move(body), done = std::move(done)] {
    status_ = cpu < 0 ? absl::OkStatus() : PinThisThread(cpu);
    if (status_.ok()) status_ = body();
    done(status_);
  });
}

}  // namespace uringload::core
