#include "core/serve/server_engine.h"

#include "core/cpu_pinning.h"

namespace uringload::core {

// Worker slots exist from construction on and never move: Snapshot() is safe from any thread.
ServerEngine::ServerEngine(const ServePlan& plan)
    : plan_(plan), fixed_(MakeFixedResponses(plan_)), workers_(plan.threads) {}

ServerEngine::~ServerEngine() {
  Stop();
  for (WorkerSlot& slot : workers_) {
    if (slot.thread.joinable()) slot.thread.join();
  }
}

absl::Status ServerEngine::Start() {
  for (uint32_t i = 0; i < plan_.threads; ++i) {
    WorkerSlot& slot = workers_[i];
    slot.worker = std::make_unique<ServerWorker>(&plan_, &fixed_, i, slot.stats.get(), &stop_);
    if (absl::Status s = slot.worker->Listen(); !s.ok()) return s;
  }
  for (uint32_t i = 0; i < plan_.threads; ++i) {
    WorkerSlot& slot = workers_[i];
    slot.thread = std::thread([this, &slot, cpu = CpuOfWorker(plan_.cpus, i)] {
      slot.status = cpu < 0 ? absl::OkStatus() : PinThisThread(cpu);
      if (slot.status.ok()) slot.status = slot.worker->Run();
      if (!slot.status.ok()) failed_.store(true, std::memory_order_relaxed);
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
  for (WorkerSlot& slot : workers_) {
    if (slot.thread.joinable()) slot.thread.join();
  }
  for (WorkerSlot& slot : workers_) {
    if (!slot.status.ok()) return slot.status;
  }
  return absl::OkStatus();
}

}  // namespace uringload::core
