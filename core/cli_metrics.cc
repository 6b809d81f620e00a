#include "core/cli_metrics.h"

#include "absl/strings/str_cat.h"

namespace uringload::cli {
namespace {

absl::StatusOr<absl::Duration> ParseNonNegative(const char* flag, const std::string& text) {
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration() || d > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": invalid duration '", text, "' (e.g. 0s, 15s, 1m)"));
  }
  return d;
}

}  // namespace

void AddMetricsFlags(CLI::App* app, MetricsFlags& flags, bool with_linger) {
  app->add_option("--metrics-listen", flags.listen,
                  "Serve Prometheus metrics at http://ADDR:PORT/metrics (binds only ADDR)");
  app->add_option("--metrics-label", flags.labels, "Constant label name=value (repeatable)");
  if (with_linger) {
    app->add_option("--metrics-linger", flags.linger,
                    "Keep /metrics up this long after the run, for the last scrape")
        ->capture_default_str();
  }
  app->add_option("--pushgateway", flags.pushgateway, "Push metrics to this Pushgateway URL");
  app->add_option("--push-job", flags.push_job, "Pushgateway job name")->capture_default_str();
  app->add_option("--push-interval", flags.push_interval,
                  "Also push this often during the run (0: only the final values)")
      ->capture_default_str();
}

absl::StatusOr<std::unique_ptr<MetricsSession>> MetricsSession::Start(
    const MetricsFlags& flags, const std::string& role, const CollectorFactory& make) {
  auto session = std::make_unique<MetricsSession>();
  exporters::LabelPairs labels = {{"role", role}};
  for (const std::string& text : flags.labels) {
    absl::StatusOr<std::pair<std::string, std::string>> label = exporters::ParseMetricsLabel(text);
    if (!label.ok()) return label.status();
    labels.push_back(*label);
  }
  absl::StatusOr<absl::Duration> linger = ParseNonNegative("--metrics-linger", flags.linger);
  if (!linger.ok()) return linger.status();
  session->linger_ = flags.listen.empty() ? absl::ZeroDuration() : *linger;
  absl::StatusOr<absl::Duration> interval =
      ParseNonNegative("--push-interval", flags.push_interval);
  if (!interval.ok()) return interval.status();
  if (flags.listen.empty() && flags.pushgateway.empty()) return session;

  std::shared_ptr<prometheus::Collectable> collector = make(labels);
  if (!flags.pushgateway.empty()) {
    absl::StatusOr<std::unique_ptr<exporters::MetricsPusher>> pusher =
        exporters::MetricsPusher::Start(flags.pushgateway, flags.push_job, *interval, collector);
    if (!pusher.ok()) return pusher.status();
    session->pusher_ = *std::move(pusher);
  }
  if (!flags.listen.empty()) {
    absl::StatusOr<std::unique_ptr<exporters::MetricsEndpoint>> endpoint =
        exporters::MetricsEndpoint::Start(flags.listen, collector);
    if (!endpoint.ok()) return endpoint.status();
    session->endpoint_ = *std::move(endpoint);
  }
  return session;
}

absl::Status MetricsSession::Finish() { return pusher_ ? pusher_->Push() : absl::OkStatus(); }

}  // namespace uringload::cli
