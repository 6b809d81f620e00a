// Metric families for `run` and `serve`, built from stats snapshots at collection time.
#include <prometheus/text_serializer.h>

#include <cmath>
#include <limits>
#include <span>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "core/serve/server_counters.h"
#include "exporters/prometheus_metrics.h"
#include "proto/grpc_status.h"

namespace uringload::exporters {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Builds families one metric at a time, every metric carrying the shared labels.
class FamilyBuilder {
 public:
  explicit FamilyBuilder(const LabelPairs& labels) : labels_(labels) {}

  MetricFamily& Family(const std::string& name, const std::string& help, MetricType type) {
    families_.push_back(MetricFamily{name, help, type, {}});
    return families_.back();
  }
  ClientMetric& Metric(MetricFamily& family, const LabelPairs& extra = {}) {
    ClientMetric& m = family.metric.emplace_back();
    for (const auto& [name, value] : labels_) m.label.push_back({name, value});
    for (const auto& [name, value] : extra) m.label.push_back({name, value});
    return m;
  }
  void Counter(const std::string& name, const std::string& help, double value,
               const LabelPairs& extra = {}) {
    Metric(Family(name, help, MetricType::Counter), extra).counter.value = value;
  }
  void Gauge(const std::string& name, const std::string& help, double value,
             const LabelPairs& extra = {}) {
    Metric(Family(name, help, MetricType::Gauge), extra).gauge.value = value;
  }
  std::vector<MetricFamily> Take() { return std::move(families_); }

 private:
  const LabelPairs& labels_;
  std::vector<MetricFamily> families_;
};

// A metric per row of a counter table (core/counter_table.h) that has one, when `shown` says
// the run has the row's JSON object (no TLS metrics for a run without TLS).
template <typename Stats, typename Shown>
void AddCounterRows(FamilyBuilder& b, const Stats& s,
                    std::span<const core::CounterRowOf<Stats>> rows, Shown shown) {
  for (const core::CounterRowOf<Stats>& row : rows) {
    if (row.metric.empty() || !shown(row.object)) continue;
    double value = static_cast<double>(s.*row.member);
    if (row.nanoseconds) value /= 1e9;
    std::string name(row.metric), help(row.help);
    if (row.gauge) {
      b.Gauge(name, help, value);
    } else {
      b.Counter(name, help, value);
    }
  }
}

// One histogram series of `family` (labelled `extra`) from `latency`.
void AddDurationSeries(FamilyBuilder& b, MetricFamily& family,
                       const core::HistogramSnapshot& latency, const LabelPairs& extra = {}) {
  ClientMetric::Histogram& h = b.Metric(family, extra).histogram;
  h.sample_count = latency.count;
  h.sample_sum = static_cast<double>(latency.sum) / 1e9;
  for (double bound : DurationBuckets()) {
    uint64_t bound_ns = static_cast<uint64_t>(std::llround(bound * 1e9));
    h.bucket.push_back({latency.CountAtOrBelow(bound_ns), bound});
  }
  h.bucket.push_back({latency.count, std::numeric_limits<double>::infinity()});
}

void AddDurationHistogram(FamilyBuilder& b, const std::string& name, const std::string& help,
                          const core::HistogramSnapshot& latency) {
  AddDurationSeries(b, b.Family(name, help, MetricType::Histogram), latency);
}

// Per target (--targets, at most --max-target-labels of them, the rest as "other"): its own
// outcomes, status codes and latency, in families of their own so that the run's series keep
// their labels.
// A flow's steps are its targets, labelled step=.
void AddTargets(FamilyBuilder& b, const core::RunStats& s, const std::vector<std::string>& names,
                const std::string& label) {
  if (names.empty() || s.by_target.size() < names.size()) return;
  MetricFamily& completed =
      b.Family("uringload_target_requests_completed_total",
               "Requests with an outcome, by target and outcome", MetricType::Counter);
  for (size_t t = 0; t < names.size(); ++t) {
    for (size_t o = 0; o < core::kOutcomeCount; ++o) {
      b.Metric(completed, {{label, names[t]}, {"outcome", core::kOutcomeNames[o]}}).counter.value =
          static_cast<double>(s.by_target[t].outcomes[o]);
    }
  }
  MetricFamily& responses = b.Family("uringload_target_responses_total",
                                     "Responses by target and status code", MetricType::Counter);
  for (size_t t = 0; t < names.size(); ++t) {
    const auto& codes = s.by_target[t].status_codes;
    for (size_t code = 0; code < codes.size(); ++code) {
      if (codes[code] == 0) continue;
      b.Metric(responses, {{label, names[t]}, {"code", std::to_string(code)}}).counter.value =
          static_cast<double>(codes[code]);
    }
  }
  MetricFamily& duration =
      b.Family("uringload_target_request_duration_seconds",
               "Ok requests of each target, measured as uringload_request_duration_seconds",
               MetricType::Histogram);
  for (size_t t = 0; t < names.size(); ++t) {
    AddDurationSeries(b, duration, s.by_target[t].latency, {{label, names[t]}});
  }
}

// --flow: iterations started and how they ended, and how long the completed ones took.
void AddIterations(FamilyBuilder& b, const core::RunStats& s) {
  MetricFamily& ended =
      b.Family("uringload_iterations_ended_total",
               "Flow iterations that ran every step ok (completed) or ended at a failed step "
               "(aborted)",
               MetricType::Counter);
  b.Metric(ended, {{"outcome", "completed"}}).counter.value =
      static_cast<double>(s.iterations_completed);
  b.Metric(ended, {{"outcome", "aborted"}}).counter.value =
      static_cast<double>(s.iterations_aborted);
}

}  // namespace

// 16 buckets per doubling (each bound 4.4% above the last), from 50 us to 60 s: 325 bounds.
// histogram_quantile interpolates linearly inside a bucket, so its error can approach the
// bucket's width when a run's latencies crowd into one bucket (a fixed server delay does
// that); at 4.4% the quantiles stay within 5% (docs/metrics.md, "Latency buckets"). The cost
// is 325 series per run instead of 19.
// Bounds are rounded to 4 significant digits so the `le` labels stay readable.
const std::vector<double>& DurationBuckets() {
  static const std::vector<double> buckets = [] {
    std::vector<double> out;
    for (int k = 0;; ++k) {
      double exact = 50e-6 * std::exp2(k / 16.0);
      double scale = std::pow(10.0, 3 - static_cast<int>(std::floor(std::log10(exact))));
      out.push_back(std::round(exact * scale) / scale);
      if (exact >= 60.0) break;
    }
    return out;
  }();
  return buckets;
}

RunCollector::RunCollector(std::function<core::RunStats()> snapshot,
                           std::function<absl::Duration()> elapsed, RunInfo info, LabelPairs labels,
                           std::vector<std::string> target_names)
    : snapshot_(std::move(snapshot)),
      elapsed_(std::move(elapsed)),
      info_(std::move(info)),
      labels_(std::move(labels)),
      target_names_(std::move(target_names)) {}

std::vector<MetricFamily> RunCollector::Collect() const {
  core::RunStats s = snapshot_();
  FamilyBuilder b(labels_);
  // The single-number counters, by their rows (core/run/run_counters.h), with their JSON
  // object: only the objects the run has.
  auto shown = [&](std::string_view object) {
    if (object == "tls") return s.tls_handshakes > 0;
    if (object == "quic") return s.connections_http3 > 0;
    if (object == "grpc") return info_.grpc;
    if (object == "iterations") return info_.flow;
    if (object == "streams") return info_.streams;
    if (object == "llm") return info_.llm;
    return true;
  };
  AddCounterRows<core::RunStats>(b, s, core::kRunCounters, shown);
  MetricFamily& completed = b.Family("uringload_requests_completed_total",
                                     "Requests with an outcome, by outcome", MetricType::Counter);
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    b.Metric(completed, {{"outcome", core::kOutcomeNames[o]}}).counter.value = s.outcomes[o];
  }
  MetricFamily& responses =
      b.Family("uringload_responses_total", "Responses by status code", MetricType::Counter);
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] == 0) continue;
    b.Metric(responses, {{"code", std::to_string(code)}}).counter.value = s.status_codes[code];
  }
  if (info_.grpc) {
    MetricFamily& calls = b.Family("uringload_grpc_calls_total",
                                   "gRPC calls that ended ok, by grpc-status", MetricType::Counter);
    for (int code = 0; code < proto::kGrpcStatusCount; ++code) {
      // OK always, so a rate of errors over calls has its denominator from the start.
      if (s.grpc_status[code] == 0 && code != 0) continue;
      b.Metric(calls, {{"code", std::string(proto::GrpcStatusName(code))}}).counter.value =
          s.grpc_status[code];
    }
  }
  AddDurationHistogram(b, "uringload_request_duration_seconds",
                       "Ok requests, to the end of the parsed response: from the intended start "
                       "under -R (waiting for a connection counts), else from the send",
                       s.latency);
  AddDurationHistogram(b, "uringload_request_duration_uncorrected_seconds",
                       "Ok requests, from the send submission to the end of the parsed response",
                       s.latency_uncorrected);
  AddTargets(b, s, target_names_, info_.flow ? "step" : "target");
  if (info_.flow) AddIterations(b, s);
  for (const core::HistogramRow& row : core::kRunHistograms) {
    if (row.shown_with.empty() || shown(row.shown_with)) {
      AddDurationHistogram(b, std::string(row.metric), std::string(row.help), s.*row.member);
    }
  }
  // The client's own limits (core/run/generator_check.h): live for the CPU it waited for, the
  // cgroup's throttling, responses left unread and the schedule lag; the busy share and
  // unsent requests at the end.
  const core::GeneratorStats& g = s.generator;
  b.Counter("uringload_generator_run_queue_seconds_total",
            "Time the workers were runnable but waited for a CPU, summed over workers",
            g.run_queue_ns / 1e9);
  b.Gauge("uringload_generator_run_queue_share",
          "The highest share of one worker's run it waited for a CPU", g.run_queue_share);
  b.Counter("uringload_generator_unread_seconds_total",
            "Time responses waited unread for their worker longer than a loop takes, summed "
            "over workers",
            g.unread_ns / 1e9);
  b.Gauge("uringload_generator_unread_share",
          "The highest share of one worker's run responses waited unread for it", g.unread_share);
  b.Counter("uringload_generator_throttled_seconds_total",
            "Time a cgroup's CPU quota throttled the client", g.throttled_ns / 1e9);
  core::GeneratorVerdict verdict =
      core::JudgeGenerator(s, info_.open_model, info_.schedule_lag_bound, info_.busy_poll);
  MetricFamily& saturated = b.Family(
      "uringload_generator_saturated",
      "1 when the client, not the server, limited the run, by cause (generator.reason in the "
      "JSON says more)",
      MetricType::Gauge);
  for (size_t c = 0; c < core::kSaturationCauseCount; ++c) {
    b.Metric(saturated, {{"cause", core::kSaturationCauseNames[c]}}).gauge.value =
        verdict.causes[c] ? 1 : 0;
  }
  b.Gauge("uringload_requests_in_flight", "Requests started without an outcome yet", s.in_flight());
  MetricFamily& opened =
      b.Family("uringload_connections_opened_total",
               "Client connections established, by the protocol they spoke", MetricType::Counter);
  b.Metric(opened, {{"protocol", "http/1.1"}}).counter.value =
      static_cast<double>(s.connections_http1());
  b.Metric(opened, {{"protocol", "h2"}}).counter.value = static_cast<double>(s.connections_http2);
  b.Metric(opened, {{"protocol", "h3"}}).counter.value = static_cast<double>(s.connections_http3);
  if (info_.planned.has_value()) {
    b.Gauge("uringload_planned_requests", "Requests planned (-n)", *info_.planned);
  }
  if (info_.planned_duration_seconds.has_value()) {
    b.Gauge("uringload_planned_duration_seconds", "Duration planned (-d)",
            *info_.planned_duration_seconds);
  }
  b.Gauge("uringload_elapsed_seconds", "Time since the run started, frozen at its end",
          absl::ToDoubleSeconds(elapsed_()));
  b.Gauge("uringload_run_info", "The run's plan", 1,
          {{"version", info_.version},
           {"target", info_.target},
           {"threads", std::to_string(info_.threads)},
           {"concurrency", std::to_string(info_.concurrency)}});
  return b.Take();
}

ServeCollector::ServeCollector(std::function<core::ServerRunStats()> snapshot, LabelPairs labels)
    : snapshot_(std::move(snapshot)), labels_(std::move(labels)) {}

std::vector<MetricFamily> ServeCollector::Collect() const {
  core::ServerRunStats s = snapshot_();
  FamilyBuilder b(labels_);
  AddCounterRows<core::ServerRunStats>(b, s, core::kServerCounters,
                                       [](std::string_view) { return true; });
  MetricFamily& faults =
      b.Family("uringload_server_faults_total", "Faults injected, by kind", MetricType::Counter);
  for (size_t f = 1; f < core::kFaultKinds; ++f) {
    b.Metric(faults, {{"kind", core::kFaultNames[f]}}).counter.value = s.faults[f];
  }
  return b.Take();
}

std::string SerializeMetrics(const prometheus::Collectable& collectable) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, collectable.Collect());
  return out.str();
}

}  // namespace uringload::exporters
