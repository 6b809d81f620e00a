// WorkerThread: the thread one worker of `run` or `serve` runs in. It pins itself to its CPU
// (--cpus) before the body runs, so the worker's ring is made on that CPU; keeps the body's
// status; and is joined at the latest when it is destroyed.
#pragma once

#include <functional>
#include <thread>

#include "absl/status/status.h"

namespace uringload::core {

class WorkerThread {
 public:
  WorkerThread() = default;
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  ~WorkerThread() { Join(); }

  // Runs `body` in a new thread pinned to `cpu` (< 0: not pinned), then `done` with its status
  // (or the pinning's error), in that thread.
  void Start(int cpu, std::function<absl::Status()> body,
             std::function<void(const absl::Status&)> done);
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  // After Join: how the body ended.
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
  std::thread thread_;
};

}  // namespace uringload::core
