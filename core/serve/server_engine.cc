#include "core/serve/server_engine.h"

#include <unistd.h>

#include "core/cpu_pinning.h"
#include "net/base/status_macros.h"

namespace uringload::core {

// Worker slots exist from construction on and never move: Snapshot() is safe from any thread.
ServerEngine::ServerEngine(const ServePlan& plan)
    : plan_(plan), fixed_(MakeFixedResponses(plan_)), workers_(plan.threads) {}

ServerEngine::~ServerEngine() {
  Stop();
  for (WorkerSlot& slot : workers_) slot.thread.Join();
  for (size_t i = 0; i < unix_listeners_.size(); ++i) {
    if (unix_listeners_[i].get() >= 0) unlink(plan_.listen[i].UnixPath().c_str());
  }
}

absl::Status ServerEngine::Start() {
  std::vector<int> shared(plan_.listen.size(), -1);
  unix_listeners_.resize(plan_.listen.size());
  for (size_t i = 0; i < plan_.listen.size(); ++i) {
    if (!plan_.listen[i].is_unix()) continue;
    URINGLOAD_ASSIGN_OR_RETURN(net::UniqueFd fd, net::OpenListener(plan_.listen[i], plan_.backlog));
    unix_listeners_[i] = std::move(fd);
    shared[i] = unix_listeners_[i].get();
  }
  for (uint32_t i = 0; i < plan_.threads; ++i) {
    WorkerSlot& slot = workers_[i];
    slot.worker = std::make_unique<ServerWorker>(&plan_, &fixed_, i, slot.stats.get(), &stop_);
    URINGLOAD_RETURN_IF_ERROR(slot.worker->Listen(shared));
  }
  for (uint32_t i = 0; i < plan_.threads; ++i) {
    WorkerSlot& slot = workers_[i];
    slot.thread.Start(
        CpuOfWorker(plan_.cpus, i), [&slot] { return slot.worker->Run(); },
        [this](const absl::Status& status) {
          if (!status.ok()) failed_.store(true, std::memory_order_relaxed);
        });
  }
  return absl::OkStatus();
}

ServerRunStats ServerEngine::Snapshot() const {
  ServerRunStats merged;
  for (const WorkerSlot& slot : workers_) merged.Merge(slot.stats->Snapshot());
  return merged;
}

absl::Status ServerEngine::Wait() {
  for (WorkerSlot& slot : workers_) slot.thread.Join();
  for (WorkerSlot& slot : workers_) {
    if (!slot.thread.status().ok()) return slot.thread.status();
  }
  return absl::OkStatus();
}

}  // namespace uringload::core
