// Prometheus metrics for `run` and `serve`. Collectors build metric families from core's
// stats snapshots at scrape (or push) time, so the hot path never touches prometheus-cpp.
// MetricsEndpoint serves /metrics; MetricsPusher pushes to a Pushgateway.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/run/generator_check.h"
#include "core/run/worker_stats.h"
#include "core/serve/server_stats.h"

namespace uringload::exporters {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

// "name=value" for --metrics-label; names follow Prometheus' rules and may not start "__".
absl::StatusOr<std::pair<std::string, std::string>> ParseMetricsLabel(const std::string& text);

// Request-duration histogram bounds in seconds: 50 us to 60 s, 16 per doubling.
const std::vector<double>& DurationBuckets();

struct RunInfo {
  std::string version;
  std::string target;
  uint32_t threads = 0;
  uint32_t concurrency = 0;
  std::optional<uint64_t> planned;
  std::optional<double> planned_duration_seconds;  // -d
  // What the saturation verdict needs of the plan (core::JudgeGenerator).
  bool open_model = false;
  absl::Duration schedule_lag_bound = core::kDefaultScheduleLagBound;
  bool busy_poll = false;
  // --flow: the targets are a flow's steps (label step=), and iterations are counted.
  bool flow = false;
  // --grpc: the ok calls are counted by grpc-status.
  bool grpc = false;
  // --stream: the responses' events are counted and timed.
  bool streams = false;
  // --llm: the answers' tokens are counted and timed.
  bool llm = false;
};

class RunCollector : public prometheus::Collectable {
 public:
  // `elapsed` is the run's time so far, frozen at its end (progress of -d runs).
  // `target_names`: the run's targets (RunPlan::target_names), each with its own series of
  // outcomes, status codes and latency under a `target` label (none: no per-target series).
  RunCollector(std::function<core::RunStats()> snapshot, std::function<absl::Duration()> elapsed,
               RunInfo info, LabelPairs labels, std::vector<std::string> target_names = {});
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::function<core::RunStats()> snapshot_;
  std::function<absl::Duration()> elapsed_;
  RunInfo info_;
  LabelPairs labels_;  // role + constant labels, on every metric.
  std::vector<std::string> target_names_;
};

class ServeCollector : public prometheus::Collectable {
 public:
  ServeCollector(std::function<core::ServerRunStats()> snapshot, LabelPairs labels);
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::function<core::ServerRunStats()> snapshot_;
  LabelPairs labels_;
};

// The text exposition of a collectable, as /metrics serves it.
std::string SerializeMetrics(const prometheus::Collectable& collectable);

class MetricsEndpoint {
 public:
  // Serves /metrics on "ADDR:PORT" (binds only that address).
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& address, std::shared_ptr<prometheus::Collectable> collectable);
  // Stops serving at once (see the .cc for why that takes a nudge).
  ~MetricsEndpoint();

 private:
  struct Impl;
  explicit MetricsEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class MetricsPusher {
 public:
  // Pushes to the Pushgateway at `url` (http://host:port) as job `job` with the grouping key
  // `grouping`, every `interval` (zero: only when Push() is called) from its own thread.
  static absl::StatusOr<std::unique_ptr<MetricsPusher>> Start(
      const std::string& url, const std::string& job, const LabelPairs& grouping,
      absl::Duration interval, std::shared_ptr<prometheus::Collectable> collectable);
  ~MetricsPusher();
  // Pushes now; an error names the gateway and the HTTP status.
  absl::Status Push();

 private:
  struct Impl;
  explicit MetricsPusher(std::unique_ptr<Impl> impl);
  void Loop(absl::Duration interval);
  std::unique_ptr<Impl> impl_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace uringload::exporters
