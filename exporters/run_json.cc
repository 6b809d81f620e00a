// RunResultToJson: the machine-readable result (schema in README.md).
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "exporters/counter_json.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"
#include "exporters/run_json_keys.h"
#include "exporters/run_report.h"
#include "net/base/absl_view.h"
#include "proto/grpc_status.h"

namespace uringload::exporters {
namespace {

using core::Outcome;
using core::RunStats;

// The histogram itself, for an exact merge of shards: the non-empty buckets as [index, count].
Json HistogramJson(const core::HistogramSnapshot& h) {
  Json buckets = Json::array();
  for (size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] != 0) buckets.push_back({i, h.counts[i]});
  }
  return {{run_key::kLayout, core::HistogramBuckets::kLayout},
          {"unit", "ns"},
          {run_key::kBuckets, buckets},
          {run_key::kCount, h.count},
          {run_key::kSum, h.sum},
          {run_key::kMin, h.min},
          {run_key::kMax, h.max}};
}

Json OutcomesJson(const std::array<uint64_t, core::kOutcomeCount>& counts) {
  Json outcomes = Json::object();
  for (size_t o = 0; o < core::kOutcomeCount; ++o) outcomes[core::kOutcomeNames[o]] = counts[o];
  return outcomes;
}

Json StatusCodesJson(const std::array<uint64_t, core::kStatusCodeSlots>& counts) {
  Json status_codes = Json::object();
  for (size_t code = 0; code < counts.size(); ++code) {
    if (counts[code] > 0) status_codes[std::to_string(code)] = counts[code];
  }
  return status_codes;
}

// Per target (--targets: each name=, or each unnamed line): what the run has for the whole.
Json ByTargetJson(const RunReport& report) {
  Json by_target = Json::array();
  const RunStats& s = report.result->stats;
  if (report.plan == nullptr) return by_target;
  for (size_t t = 0; t < report.plan->target_names.size() && t < s.by_target.size(); ++t) {
    const core::TargetStats& target = s.by_target[t];
    by_target.push_back({{run_key::kName, report.plan->target_names[t]},
                         {run_key::kRequests, target.requests()},
                         {run_key::kOutcomes, OutcomesJson(target.outcomes)},
                         {run_key::kStatusCodes, StatusCodesJson(target.status_codes)},
                         {"latency_seconds", LatencyJson(target.latency)},
                         {run_key::kLatencyHistogram, HistogramJson(target.latency)}});
    if (report.plan->flow != nullptr) {
      // A step's: the iterations aborted at it, and its check_failed by what was missed.
      Json causes = Json::object();
      for (int c = 1; c < core::kCheckFailureCount; ++c) {
        if (target.check_causes[c] > 0) causes[core::CheckFailureText(c)] = target.check_causes[c];
      }
      by_target.back()["aborted_iterations"] = target.aborted;
      by_target.back()["check_failed_causes"] = causes;
    }
  }
  return by_target;
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
          {{run_key::kOutcome, core::kOutcomeNames[o]},
           {run_key::kErrno, core::CauseIsReason(o) ? 0 : e},
           {run_key::kMessage, core::CauseIsReason(o) || e != 0 ? CauseText(o, e) : ""},
           {run_key::kCount, s.causes[o][e]}});
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
    targets.push_back({{run_key::kLine, target.line},
                       {run_key::kMethod, target.method},
                       {run_key::kUrl, target.url},
                       {run_key::kRequests, ok + failed},
                       {run_key::kOk, ok},
                       {run_key::kFailed, failed}});
  }
  return targets;
}

// Closed model: the round trip and what the connections could carry over it
// (core/run/round_trip_bound.h); null in the open model or with nothing to go by.
Json RoundTripJson(const RunReport& report) {
  std::optional<core::RoundTripBound> r = RoundTripBoundOf(report);
  if (!r.has_value()) return nullptr;
  return {{run_key::kSeconds, absl::ToDoubleSeconds(r->round_trip)},
          {"in_flight_bytes_per_connection", r->in_flight_bytes_per_connection},
          {"ceiling_bytes_per_second", r->ceiling_bytes_per_second},
          {"bytes_per_second", r->bytes_per_second},
          {"bound", r->bound}};
}

// How well the client kept up, with the verdict (core/run/generator_check.h).
Json GeneratorJson(const RunReport& report) {
  const RunStats& s = report.result->stats;
  const core::GeneratorStats& g = s.generator;
  core::GeneratorVerdict v = GeneratorVerdictOf(report);
  double cpu = (g.cpu_user_ns + g.cpu_system_ns) / 1e9;
  bool open_model = v.planned_sends.has_value();
  return {
      {"saturated", v.saturated},
      {"reason", v.saturated ? Json(v.reason) : Json(nullptr)},
      {"note", v.note.empty() ? Json(nullptr) : Json(v.note)},
      {"planned_sends", open_model ? Json(*v.planned_sends) : Json(nullptr)},
      {"sent_share", open_model ? Json(v.sent_share) : Json(nullptr)},
      {run_key::kUnsent, g.unsent},
      {"waited_for_connection", s.late_starts},
      {"schedule_lag_seconds", open_model ? LatencyJson(g.schedule_lag) : Json(nullptr)},
      {run_key::kScheduleLagBoundSeconds,
       absl::ToDoubleSeconds(report.plan != nullptr ? report.plan->schedule_lag_bound
                                                    : core::kDefaultScheduleLagBound)},
      {"late_sends", v.late_sends},
      {run_key::kBusyPoll, report.plan != nullptr ? Json(report.plan->busy_poll) : Json(nullptr)},
      {run_key::kBusySeconds, g.busy_ns / 1e9},
      {run_key::kWorkerSeconds, g.wall_ns / 1e9},
      {"busy_share", g.wall_ns > 0 ? Json(double(g.busy_ns) / g.wall_ns) : Json(nullptr)},
      {run_key::kBusiestWorkerShare, g.busiest_share},
      {run_key::kCpuSeconds,
       {{run_key::kUser, g.cpu_user_ns / 1e9}, {run_key::kSystem, g.cpu_system_ns / 1e9}}},
      {"cpu_seconds_per_request", s.completed() > 0 ? Json(cpu / s.completed()) : Json(nullptr)},
      {run_key::kRunQueueSeconds, g.run_queue_ns / 1e9},
      {run_key::kRunQueueLongestSeconds, g.run_queue_longest_ns / 1e9},
      {run_key::kRunQueueShare, g.run_queue_share},
      {run_key::kUnreadSeconds, g.unread_ns / 1e9},
      {run_key::kUnreadLongestSeconds, g.unread_longest_ns / 1e9},
      {run_key::kUnreadShare, g.unread_share},
      {run_key::kThrottledSeconds, g.throttled_ns / 1e9},
      {run_key::kThrottledPeriods, g.throttled_periods},
      {run_key::kThrottledShare, g.throttled_share},
      {run_key::kThrottledCgroup,
       g.throttled_cgroup.empty() ? Json(nullptr) : Json(g.throttled_cgroup)},
      {run_key::kWorkers, g.workers},
      {run_key::kCpus, g.cpus},
      {run_key::kCpuCount, g.cpu_count},
      {run_key::kScheduleLagHistogram, HistogramJson(g.schedule_lag)},
  };
}

}  // namespace

std::string RunResultToJson(const RunReport& report) {
  const RunStats& s = report.result->stats;
  absl::Duration measured = MeasuredDuration(*report.result, report.plan);
  const core::RunPlan* plan = report.plan;
  Json outcomes = OutcomesJson(s.outcomes);
  Json status_codes = StatusCodesJson(s.status_codes);
  Json thresholds = Json::array();
  for (const core::ThresholdResult& t : report.thresholds) {
    thresholds.push_back({{"expr", t.expr},
                          {"value", t.value ? Json(*t.value) : Json(nullptr)},
                          {run_key::kFailed, t.failed}});
  }
  Json tls = nullptr;
  if (plan != nullptr && plan->url.tls) {  // https:// (run), or shards that were (merge).
    tls = {{run_key::kVersion, s.tls_version}, {run_key::kCipher, s.tls_cipher}};
  }
  Json quic = nullptr;
  if ((plan != nullptr && plan->http == core::HttpVersion::kHttp3) || s.connections_http3 > 0) {
    quic = Json::object();  // Its counters are rows (WriteCounters).
  }
  Json streams = nullptr;
  if (plan != nullptr && plan->streams) {  // --stream (run), or shards that were (merge).
    streams = {{"format", plan->stream == proto::EventFormat::kSse ? "sse" : "ndjson"}};
  }
  Json llm = nullptr;
  if (plan != nullptr && plan->llm.has_value()) {
    llm = {{"kind", plan->llm->chat ? "chat" : "completions"}};
  }
  Json doc = {
      {run_key::kTarget, report.target},
      {run_key::kRunId, report.run_id},
      {run_key::kShard,
       {{run_key::kIndex, report.shard.index}, {run_key::kCount, report.shard.count}}},
      {run_key::kMergedShards, report.merged_shards},
      {run_key::kMachine, report.machine.empty() ? Json(nullptr) : Json(report.machine)},
      {run_key::kConcurrency, report.concurrency},
      // --flow: the connections a virtual user holds (one per origin, up to its bound).
      {"connections_per_user", plan && plan->flow ? Json(plan->lanes) : Json(nullptr)},
      {run_key::kThreads, report.threads},
      {run_key::kRate, plan && plan->rate ? Json(*plan->rate) : Json(nullptr)},
      {"arrival", plan && plan->rate && !plan->replay_offsets
                      ? Json(core::ArrivalName(plan->arrival))
                      : Json(nullptr)},
      {run_key::kPipeline, plan ? plan->pipeline : 1},
      {"batch_window_max_seconds", report.batch_window_max
                                       ? Json(absl::ToDoubleSeconds(*report.batch_window_max))
                                       : Json(nullptr)},
      {run_key::kInterrupted, report.result->interrupted},
      {run_key::kStartAt,
       plan && plan->start_at ? Json(Timestamp(*plan->start_at)) : Json(nullptr)},
      {run_key::kStartSkewSeconds,
       plan && plan->start_at ? Json(report.result->stats.start_skew_ns / 1e9) : Json(nullptr)},
      {run_key::kStartedAt, Timestamp(report.result->started_at)},
      {run_key::kEndedAt, Timestamp(report.result->ended_at)},
      {run_key::kRequests,
       {{run_key::kPlanned, report.planned ? Json(*report.planned) : Json(nullptr)},
        {"completed", s.completed()}}},
      {run_key::kWarmup, {{run_key::kSeconds, plan ? absl::ToDoubleSeconds(plan->warmup) : 0.0}}},
      {run_key::kOutcomes, outcomes},
      {run_key::kStatusCodes, status_codes},
      {"duration_seconds", absl::ToDoubleSeconds(report.result->duration)},
      {"measured_seconds", absl::ToDoubleSeconds(measured)},
      {"requests_per_second", Rate(s.completed(), measured)},
      {"latency_seconds", LatencyJson(s.latency)},
      {"latency_uncorrected_seconds", LatencyJson(s.latency_uncorrected)},
      {run_key::kBytes, Json::object()},
      {run_key::kConnections, {{run_key::kProtocols, {{run_key::kHttp1, s.connections_http1()}}}}},
      {run_key::kTls, tls},
      {run_key::kQuic, quic},
      {"streams", streams},
      {"llm", llm},
      {run_key::kErrors, ErrorsJson(s)},
      {run_key::kTargets, TargetsJson(report)},
      {run_key::kByTarget, ByTargetJson(report)},
      {run_key::kGenerator, GeneratorJson(report)},
      {"round_trip", RoundTripJson(report)},
      {run_key::kOkPerInterval,
       {{run_key::kSeconds, report.result->interval_seconds},
        {run_key::kCounts, report.result->ok_per_interval}}},
      {"thresholds", thresholds},
      {run_key::kLatencyHistogram, HistogramJson(s.latency)},
      {run_key::kLatencyUncorrectedHistogram, HistogramJson(s.latency_uncorrected)},
  };
  if (plan != nullptr && plan->flow != nullptr) {
    doc["iterations"] = {
        {run_key::kPlanned, report.planned ? Json(*report.planned) : Json(nullptr)},
        {"cut", s.iterations_started - s.iterations_completed - s.iterations_aborted}};
  }
  if (plan != nullptr && plan->grpc) {
    Json status = Json::object();
    for (int code = 0; code < proto::kGrpcStatusCount; ++code) {
      if (s.grpc_status[code] > 0)
        status[std::string(proto::GrpcStatusName(code))] = s.grpc_status[code];
    }
    doc[run_key::kGrpc] = {{run_key::kCalls, s.grpc_calls()},
                           {run_key::kErrors, s.grpc_errors()},
                           {run_key::kStatus, status}};
  }
  // The single-number counters and the histograms, by their rows.
  WriteCounters<RunStats>(s, doc, core::kRunCounters);
  if (llm.is_object()) {  // What the counters give per second and as shares.
    Json& l = doc["llm"];
    l["output_tokens_per_second"] = Rate(s.llm_output_tokens, measured);
    l["total_tokens_per_second"] = Rate(s.llm_output_tokens + s.llm_input_tokens, measured);
    l["goodput"] =
        s.completed() > 0 ? Json(static_cast<double>(s.llm_good) / s.completed()) : Json(nullptr);
    l["tokens_from"] = s.llm_usage == s.llm_answers ? "usage"
                       : s.llm_usage == 0           ? "deltas"
                                                    : "usage and deltas";
  }
  for (const core::HistogramRow& row : core::kRunHistograms) {
    Json* object = row.object.empty() ? &doc : CounterObject(doc, row.object);
    if (object == nullptr) continue;
    (*object)[absl::StrCat(AbslView(row.stem), "_seconds")] = LatencyJson(s.*row.member);
    (*object)[absl::StrCat(AbslView(row.stem), "_histogram")] = HistogramJson(s.*row.member);
  }
  return DumpJson(doc);
}

}  // namespace uringload::exporters
