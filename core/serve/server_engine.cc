#include "core/serve/server_engine.h"

#include "proto/response_builder.h"

namespace uringload::core {

// Worker slots exist from construction on and never move: Snapshot() is safe from any thread.
ServerEngine::ServerEngine(const ServePlan& plan) : plan_(plan), workers_(plan.threads) {
  if (plan_.body_mode == ServePlan::BodyMode::kFixed) {
    int status = plan_.faults.status_code;
    fixed_.ok_keep_alive = proto::BuildResponse(200, true, plan_.body);
    fixed_.ok_close = proto::BuildResponse(200, false, plan_.body);
    fixed_.status_keep_alive = proto::BuildResponse(status, true, plan_.body);
    fixed_.status_close = proto::BuildResponse(status, false, plan_.body);
  }
}

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
  for (WorkerSlot& slot : workers_) {
    slot.thread = std::thread([this, &slot] {
      slot.status = slot.worker->Run();
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
