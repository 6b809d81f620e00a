// UnreadSampler: one thread that, while a run lasts, looks at each worker's ring every 10 ms
// and keeps the time completions waited unread (UnreadMeter) in the worker's stats. Off the
// hot path: a worker only publishes its ring's flags word and counts its drains.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "core/run/unread_meter.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

class UnreadSampler {
 public:
  static constexpr absl::Duration kPeriod = absl::Milliseconds(10);
  // A wait counts when its samples span more than two periods plus `batch_window_max`, the
  // longest a worker waits for a batch on purpose: longer than any loop of a worker that is
  // there. The workers' stats must outlive Stop().
  UnreadSampler(std::vector<WorkerStats*> workers, absl::Duration batch_window_max);
  ~UnreadSampler() { Stop(); }
  UnreadSampler(const UnreadSampler&) = delete;
  UnreadSampler& operator=(const UnreadSampler&) = delete;

  void Start();
  // Ends the thread at once (idempotent); the measurements stay in the stats.
  void Stop();

 private:
  void Run();
  void SampleAll();

  std::vector<WorkerStats*> workers_;
  std::vector<UnreadMeter> meters_;  // Only the sampler's thread touches them.
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;  // Under mutex_.
  std::thread thread_;
};

}  // namespace uringload::core
