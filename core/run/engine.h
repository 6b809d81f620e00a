// Engine: runs a RunPlan on T worker threads and merges their stats. The caller may read
// live snapshots (Snapshot) from another thread while it runs, and ask it to stop early.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/cpu_contention.h"
#include "core/run/request_source.h"
#include "core/run/run_plan.h"
#include "core/run/unread_sampler.h"
#include "core/run/worker.h"
#include "core/run/worker_stats.h"
#include "core/worker_thread.h"

namespace uringload::core {

struct RunResult {
  RunStats stats;
  absl::Duration duration;
  absl::Time started_at;  // Wall clock, for the record.
  absl::Time ended_at;
  bool interrupted = false;  // Stopped by RequestStop() before the plan's end.
  // Ok responses per interval from the start (whole intervals only), for a throughput test
  // between runs (`compare`); filled by the command's reporter (OkSeries).
  std::vector<uint64_t> ok_per_interval;
  double interval_seconds = 1;
};

// The ok responses of each whole second of a run, bounded: past kMaxIntervals the intervals
// double in length (neighbours added up), so a week-long run keeps at most that many.
class OkSeries {
 public:
  static constexpr size_t kMaxIntervals = 3600;
  // The cumulative ok count at the end of the next interval.
  void Add(uint64_t ok_total);
  double next_end_seconds() const { return (seen_ + 1) * 1.0; }
  // At the run's end: each whole second of `duration` that no tick recorded (the run ended
  // just before the tick came, as on a busy machine) is added, the responses not yet counted
  // in the first of them, so a 2 s run always has its two seconds.
  void Finish(absl::Duration duration, uint64_t ok_total);
  void MoveInto(RunResult* result);

 private:
  std::vector<uint64_t> counts_;
  uint64_t last_total_ = 0;
  uint64_t seen_ = 0;     // Seconds recorded.
  uint64_t width_ = 1;    // Seconds per interval.
  uint64_t pending_ = 0;  // Of the interval being filled.
  uint64_t pending_seconds_ = 0;
};

class Engine {
 public:
  explicit Engine(const RunPlan& plan);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Builds the request template and starts the workers.
  absl::Status Start();
  // Merged live stats of all workers; callable from any thread.
  RunStats Snapshot() const;
  // Time since Start(), frozen at the end of the run; zero before Start(). Any thread.
  absl::Duration Elapsed() const;
  bool Done() const { return finished_.load(std::memory_order_acquire) == workers_.size(); }
  // No new requests start; in-flight ones finish or time out.
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }
  // Joins the workers. An error means a worker's ring failed.
  absl::StatusOr<RunResult> Wait();

 private:
  struct WorkerSlot {
    std::unique_ptr<WorkerStats> stats = std::make_unique<WorkerStats>();
    std::unique_ptr<Worker> worker;
    absl::Time finished_at;
    WorkerThread thread;  // Last: joined before the worker goes.
  };
  uint64_t BlockSize() const;

  const RunPlan plan_;
  const CgroupThrottleMeter throttle_;             // From construction: no scrape sees it change.
  const std::vector<int> cpus_;                    // The workers': --cpus, or this process's.
  std::vector<proto::RequestTemplate> templates_;  // Per (target, address).
  RequestSource source_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> finished_{0};
  std::vector<WorkerSlot> workers_;
  std::unique_ptr<UnreadSampler> unread_;  // After workers_: stops before their rings go.
  absl::Time started_at_;
  std::atomic<int64_t> started_at_ns_{0};  // started_at_ for other threads (0: not started).
};

}  // namespace uringload::core
