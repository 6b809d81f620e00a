#include "cli/cli_metrics.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "core/plan_limits.h"
#include "net/base/status_macros.h"

namespace uringload::cli {
namespace {

absl::StatusOr<absl::Duration> ParseNonNegative(const char* flag, const std::string& text) {
  return core::ParseDurationFlag(flag, text, absl::ZeroDuration(), absl::Hours(24));
}

// A port alone ("9464" or ":9464") means loopback: /metrics has no authentication, so
// serving beyond this machine takes an explicit address (0.0.0.0:9464).
std::string MetricsListenAddress(const std::string& text) {
  std::string port = text.rfind(':', 0) == 0 ? text.substr(1) : text;
  bool digits_only = !port.empty() && port.find_first_not_of("0123456789") == std::string::npos;
  return digits_only ? "127.0.0.1:" + port : text;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

void AddMetricsFlags(CLI::App* app, MetricsFlags& flags, bool with_linger) {
  app->add_option("--metrics-listen", flags.listen,
                  "Serve Prometheus metrics at http://ADDR:PORT/metrics (binds only ADDR; a "
                  "port alone means 127.0.0.1)");
  app->add_option("--metrics-label", flags.labels, "Constant label name=value (repeatable)");
  if (with_linger) {
    app->add_option("--metrics-linger", flags.linger,
                    "Keep /metrics up this long after the run, for the last scrape")
        ->capture_default_str();
  }
  app->add_option("--pushgateway", flags.pushgateway, "Push metrics to this Pushgateway URL");
  app->add_option("--push-job", flags.push_job, "Pushgateway job name")->capture_default_str();
  app->add_option("--push-instance", flags.push_instance,
                  "Pushgateway instance (default: this host's name); with role and every "
                  "--metrics-label it makes the grouping key, so pushers never overwrite "
                  "each other");
  app->add_option("--push-interval", flags.push_interval,
                  "Also push this often during the run (0: only the final values)")
      ->capture_default_str();
}

absl::StatusOr<std::unique_ptr<MetricsSession>> MetricsSession::Start(
    const MetricsFlags& flags, const std::string& role, const CollectorFactory& make,
    const exporters::LabelPairs& constant) {
  auto session = std::make_unique<MetricsSession>();
  exporters::LabelPairs labels = {{"role", role}};
  labels.insert(labels.end(), constant.begin(), constant.end());
  for (const std::string& text : flags.labels) {
    URINGLOAD_ASSIGN_OR_RETURN(auto label, exporters::ParseMetricsLabel(text));
    labels.push_back(label);
  }
  URINGLOAD_ASSIGN_OR_RETURN(absl::Duration linger,
                             ParseNonNegative("--metrics-linger", flags.linger));
  session->linger_ = flags.listen.empty() ? absl::ZeroDuration() : linger;
  URINGLOAD_ASSIGN_OR_RETURN(absl::Duration interval,
                             ParseNonNegative("--push-interval", flags.push_interval));
  if (flags.listen.empty() && flags.pushgateway.empty()) return session;

  std::shared_ptr<prometheus::Collectable> collector = make(labels);
  if (!flags.pushgateway.empty()) {
    // Every label of the pushed metrics but the per-series ones: two pushers differ in it
    // unless they are the same role, instance and labels (then the newer one replaces).
    exporters::LabelPairs grouping = labels;
    grouping.emplace_back("instance",
                          flags.push_instance.empty() ? HostName() : flags.push_instance);
    URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<exporters::MetricsPusher> pusher,
                               exporters::MetricsPusher::Start(flags.pushgateway, flags.push_job,
                                                               grouping, interval, collector));
    session->pusher_ = std::move(pusher);
  }
  if (!flags.listen.empty()) {
    URINGLOAD_ASSIGN_OR_RETURN(
        std::unique_ptr<exporters::MetricsEndpoint> endpoint,
        exporters::MetricsEndpoint::Start(MetricsListenAddress(flags.listen), collector));
    session->endpoint_ = std::move(endpoint);
  }
  return session;
}

absl::Status MetricsSession::Finish() { return pusher_ ? pusher_->Push() : absl::OkStatus(); }

}  // namespace uringload::cli
