// ServerEngine: runs `uringload serve` on T worker threads until Stop(); live stats merged
// from every worker on demand.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/serve/serve_plan.h"
#include "core/serve/server_stats.h"
#include "core/serve/server_worker.h"
#include "core/worker_thread.h"

namespace uringload::core {

class ServerEngine {
 public:
  explicit ServerEngine(const ServePlan& plan);
  ~ServerEngine();
  ServerEngine(const ServerEngine&) = delete;
  ServerEngine& operator=(const ServerEngine&) = delete;

  // Opens every worker's listeners (a Unix socket's once, shared), then starts the threads.
  absl::Status Start();
  ServerRunStats Snapshot() const;
  // True when a worker ended by itself (its ring failed).
  bool Failed() const { return failed_.load(std::memory_order_relaxed); }
  void Stop() { stop_.store(true, std::memory_order_relaxed); }
  // Joins the workers; the first worker error, if any.
  absl::Status Wait();

 private:
  struct WorkerSlot {
    std::unique_ptr<ServerStats> stats = std::make_unique<ServerStats>();
    std::unique_ptr<ServerWorker> worker;
    WorkerThread thread;  // Last: joined before the worker goes.
  };

  const ServePlan plan_;
  FixedResponses fixed_;
  // Per plan_.listen entry: the one listening socket of a Unix path (-1 for TCP, where each
  // worker has its own); the engine removes the paths it bound when it goes.
  std::vector<net::UniqueFd> unix_listeners_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::vector<WorkerSlot> workers_;
};

}  // namespace uringload::core
