// The metrics flags shared by `run` and `serve` (--metrics-listen, --metrics-label,
// --metrics-linger, --pushgateway, --push-job, --push-interval) and the session they start.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "exporters/prometheus_metrics.h"

namespace uringload::cli {

struct MetricsFlags {
  std::string listen;  // Empty: no endpoint.
  std::vector<std::string> labels;
  std::string linger = "0s";
  std::string pushgateway;  // Empty: no pushes.
  std::string push_job = "uringload";
  std::string push_instance;  // Empty: this host's name.
  std::string push_interval = "0s";
};

void AddMetricsFlags(CLI::App* app, MetricsFlags& flags, bool with_linger);

class MetricsSession {
 public:
  using CollectorFactory =
      std::function<std::shared_ptr<prometheus::Collectable>(exporters::LabelPairs labels)>;

  // Validates the flags (InvalidArgument: a usage error) and starts what they ask for. Every
  // series carries role, then `constant` (run: run_id and shard), then the --metrics-labels;
  // all of them are in the Pushgateway grouping key.
  static absl::StatusOr<std::unique_ptr<MetricsSession>> Start(
      const MetricsFlags& flags, const std::string& role, const CollectorFactory& make,
      const exporters::LabelPairs& constant = {});
  // Pushes the final values when a Pushgateway is configured.
  absl::Status Finish();
  absl::Duration linger() const { return linger_; }

 private:
  absl::Duration linger_;
  std::unique_ptr<exporters::MetricsEndpoint> endpoint_;
  std::unique_ptr<exporters::MetricsPusher> pusher_;
};

}  // namespace uringload::cli
