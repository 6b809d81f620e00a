// RunResultToJson: the machine-readable result (schema in README.md).
#include "absl/time/time.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"
#include "exporters/run_report.h"

namespace uringload::exporters {
namespace {

using core::Outcome;
using core::RunStats;

// Without an ok response there is no latency to report: null, not zero.
Json LatencyJson(const core::HistogramSnapshot& h) {
  if (h.count == 0) return nullptr;
  Quantiles q = LatencyQuantiles(h);
  return {{"mean", q.mean}, {"stddev", q.stddev}, {"min", q.min}, {"p50", q.p50},   {"p75", q.p75},
          {"p90", q.p90},   {"p95", q.p95},       {"p99", q.p99}, {"p999", q.p999}, {"max", q.max}};
}

// The histogram itself, for an exact merge of shards: the non-empty buckets as [index, count].
Json HistogramJson(const core::HistogramSnapshot& h) {
  Json buckets = Json::array();
  for (size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] != 0) buckets.push_back({i, h.counts[i]});
  }
  return {{"layout", core::HistogramBuckets::kLayout},
          {"unit", "ns"},
          {"buckets", buckets},
          {"count", h.count},
          {"sum", h.sum},
          {"min", h.min},
          {"max", h.max}};
}

// RFC 3339 in UTC with microseconds.
std::string Timestamp(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

Json ErrorsJson(const RunStats& s) {
  Json errors = Json::array();
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    for (size_t e = 0; e < core::kErrnoSlots; ++e) {
      if (s.causes[o][e] == 0) continue;
      errors.push_back(
          {{"outcome", core::kOutcomeNames[o]},
           {"errno", o == size_t(Outcome::kParseError) ? 0 : e},
           {"message", o == size_t(Outcome::kParseError) || e != 0 ? CauseText(o, e) : ""},
           {"count", s.causes[o][e]}});
    }
  }
  return errors;
}

Json TargetsJson(const RunReport& report) {
  Json targets = Json::array();
  if (report.plan == nullptr) return targets;
  const RunStats& s = report.result->stats;
  for (size_t t = 0; t < report.plan->targets.size(); ++t) {
    const core::TargetRequest& target = report.plan->targets[t];
    uint64_t ok = t < s.target_ok.size() ? s.target_ok[t] : 0;
    uint64_t failed = t < s.target_failed.size() ? s.target_failed[t] : 0;
    targets.push_back({{"line", target.line},
                       {"method", target.method},
                       {"url", target.url},
                       {"requests", ok + failed},
                       {"ok", ok},
                       {"failed", failed}});
  }
  return targets;
}

}  // namespace

std::string RunResultToJson(const RunReport& report) {
  const RunStats& s = report.result->stats;
  absl::Duration measured = MeasuredDuration(*report.result, report.plan);
  const core::RunPlan* plan = report.plan;
  Json outcomes = Json::object();
  for (size_t o = 0; o < core::kOutcomeCount; ++o) outcomes[core::kOutcomeNames[o]] = s.outcomes[o];
  Json status_codes = Json::object();
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] > 0) status_codes[std::to_string(code)] = s.status_codes[code];
  }
  Json thresholds = Json::array();
  for (const core::ThresholdResult& t : report.thresholds) {
    thresholds.push_back({{"expr", t.expr},
                          {"value", t.value ? Json(*t.value) : Json(nullptr)},
                          {"failed", t.failed}});
  }
  Json tls = nullptr;
  if (plan != nullptr && plan->url.tls) {  // https:// (run), or shards that were (merge).
    tls = {{"handshakes", s.tls_handshakes},
           {"resumed", s.tls_resumed},
           {"version", s.tls_version},
           {"cipher", s.tls_cipher}};
  }
  Json doc = {
      {"target", report.target},
      {"run_id", report.run_id},
      {"shard", {{"index", report.shard.index}, {"count", report.shard.count}}},
      {"merged_shards", report.merged_shards},
      {"machine", report.machine.empty() ? Json(nullptr) : Json(report.machine)},
      {"concurrency", report.concurrency},
      {"threads", report.threads},
      {"rate", plan && plan->rate ? Json(*plan->rate) : Json(nullptr)},
      {"pipeline", plan ? plan->pipeline : 1},
      {"batch_window_max_seconds", report.batch_window_max
                                       ? Json(absl::ToDoubleSeconds(*report.batch_window_max))
                                       : Json(nullptr)},
      {"interrupted", report.result->interrupted},
      {"start_at", plan && plan->start_at ? Json(Timestamp(*plan->start_at)) : Json(nullptr)},
      {"start_skew_seconds",
       plan && plan->start_at ? Json(report.result->stats.start_skew_ns / 1e9) : Json(nullptr)},
      {"started_at", Timestamp(report.result->started_at)},
      {"ended_at", Timestamp(report.result->ended_at)},
      {"requests",
       {{"planned", report.planned ? Json(*report.planned) : Json(nullptr)},
        {"started", s.started},
        {"completed", s.completed()},
        {"late_starts", s.late_starts}}},
      {"warmup",
       {{"seconds", plan ? absl::ToDoubleSeconds(plan->warmup) : 0.0},
        {"requests", s.warmup_started}}},
      {"outcomes", outcomes},
      {"status_codes", status_codes},
      {"duration_seconds", absl::ToDoubleSeconds(report.result->duration)},
      {"measured_seconds", absl::ToDoubleSeconds(measured)},
      {"requests_per_second", Rate(s.completed(), measured)},
      {"latency_seconds", LatencyJson(s.latency)},
      {"latency_uncorrected_seconds", LatencyJson(s.latency_uncorrected)},
      {"bytes", {{"sent", s.bytes_sent}, {"received", s.bytes_received}}},
      {"connections",
       {{"opened", s.connections_opened},
        {"peak", s.connections_peak},
        {"ramp_seconds", s.ramp_ns / 1e9},
        {"preconnected", s.preconnected}}},
      {"connect_seconds", LatencyJson(s.connect)},
      {"tls", tls},
      {"tls_handshake_seconds", LatencyJson(s.tls_handshake)},
      {"errors", ErrorsJson(s)},
      {"targets", TargetsJson(report)},
      {"thresholds", thresholds},
      {"latency_histogram", HistogramJson(s.latency)},
      {"latency_uncorrected_histogram", HistogramJson(s.latency_uncorrected)},
      {"connect_histogram", HistogramJson(s.connect)},
      {"tls_handshake_histogram", HistogramJson(s.tls_handshake)},
  };
  return DumpJson(doc);
}

}  // namespace uringload::exporters
