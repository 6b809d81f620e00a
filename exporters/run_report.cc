#include "exporters/run_report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "exporters/report_format.h"
#include "exporters/summary_rows.h"
#include "net/base/absl_view.h"
#include "proto/grpc_status.h"

namespace uringload::exporters {
namespace {

using core::Outcome;
using core::RunStats;

std::string PlanLine(const RunReport& report) {
  std::string capped =
      report.requested_concurrency > report.concurrency
          ? absl::StrCat(" (-c ", report.requested_concurrency, ": no more than -n)")
          : "";
  bool flow = report.plan != nullptr && report.plan->flow != nullptr;
  std::string users = " connections";
  if (flow) {
    size_t origins = std::max<size_t>(1, report.plan->origins.size());
    uint32_t lanes = report.plan->lanes;
    users = origins == 1 ? " virtual users (a connection each)"
            : lanes == origins
                ? absl::StrCat(" virtual users (a connection per origin each, ", origins, ")")
                : absl::StrCat(" virtual users (", lanes, " connections each over ", origins,
                               " origins)");
  }
  std::string out = absl::StrCat(
      report.planned ? absl::StrCat(*report.planned, flow ? " iterations" : " requests")
                     : "duration",
      ", ", report.concurrency, users, capped, ", ", report.threads, " threads");
  if (const core::RunPlan* plan = report.plan) {
    if (plan->rate) absl::StrAppend(&out, absl::StrFormat(", rate %g/s", *plan->rate));
    if (plan->rate && plan->arrival.random()) {
      absl::StrAppend(&out, " (", core::ArrivalName(plan->arrival), " arrivals)");
    }
    if (plan->ramp > absl::ZeroDuration())
      absl::StrAppend(&out, " (ramp ", absl::FormatDuration(plan->ramp), ")");
    if (plan->pipeline > 1) absl::StrAppend(&out, ", pipeline ", plan->pipeline);
    if (plan->warmup > absl::ZeroDuration())
      absl::StrAppend(&out, ", warmup ", absl::FormatDuration(plan->warmup));
  }
  if (report.shard.count > 1) {
    absl::StrAppend(&out, "; shard ", report.shard.index, " of ", report.shard.count);
    const core::RunPlan* plan = report.plan;
    if (plan != nullptr && plan->requests.has_value()) {
      absl::StrAppend(&out, " (requests ", plan->index_base, "..",
                      plan->index_base + *plan->requests - 1, ")");
    }
    if (!report.run_id.empty()) absl::StrAppend(&out, ", run ", report.run_id);
  }
  if (report.merged_shards > 0) {
    absl::StrAppend(&out, "; merged from ", report.merged_shards, " shards of run ", report.run_id);
  }
  if (report.result->interrupted) absl::StrAppend(&out, " (interrupted)");
  return out;
}

void AppendErrors(const RunStats& s, std::string* out) {
  absl::StrAppend(out, "Errors:\n");
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    for (size_t e = 0; e < core::kErrnoSlots; ++e) {
      uint64_t n = s.causes[o][e];
      if (n == 0) continue;
      absl::StrAppend(out, "  ", core::kOutcomeNames[o], ": ", n, " (", CauseText(o, e), ")\n");
    }
  }
}

void AppendStatus(const RunReport& report, const RunStats& s, std::string* out) {
  absl::StrAppend(out, "Status:     ");
  uint64_t not_2xx = 0;
  bool any = false;
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] == 0) continue;
    absl::StrAppend(out, " ", code, ": ", s.status_codes[code]);
    if (code < 200 || code > 299) not_2xx += s.status_codes[code];
    any = true;
  }
  absl::StrAppend(out, any ? "\n" : " none\n");
  // Of the complete responses (ok, and those a check rejected, counted with their status);
  // with --expect-status the checks have said which statuses are wrong.
  bool statuses_checked = report.plan != nullptr && report.plan->checks.statuses.has_value();
  if (not_2xx > 0 && !statuses_checked) {
    absl::StrAppend(out, "Warning:     ", not_2xx, " of ",
                    s.outcome(Outcome::kOk) + s.outcome(Outcome::kCheckFailed),
                    " responses were not 2xx\n");
  }
}

// --grpc: the ok calls by grpc-status name, as the statuses above (OK first).
void AppendGrpcStatus(const RunStats& s, std::string* out) {
  absl::StrAppend(out, "gRPC status:");
  for (int code = 0; code < proto::kGrpcStatusCount; ++code) {
    if (s.grpc_status[code] > 0) {
      absl::StrAppend(out, " ", std::string(proto::GrpcStatusName(code)), " ", s.grpc_status[code]);
    }
  }
  if (s.grpc_calls() == 0) absl::StrAppend(out, " none");
  if (s.grpc_errors() > 0) {
    absl::StrAppend(out,
                    absl::StrFormat("  (%.2f%% not OK)", 100.0 * s.grpc_errors() / s.grpc_calls()));
  }
  if (s.grpc_calls() > 0) {
    absl::StrAppend(out, absl::StrFormat("; %d messages received (%.2f a call)", s.grpc_messages,
                                         static_cast<double>(s.grpc_messages) / s.grpc_calls()));
  }
  absl::StrAppend(out, "\n");
  if (s.grpc_first_message.count > 0) {
    absl::StrAppend(out, "First message: ", LatencyLine(s.grpc_first_message), "\n");
  }
}

// --flow: how the iterations ended, and how long the completed ones took.
void AppendIterations(const RunStats& s, std::string* out) {
  uint64_t cut = s.iterations_started - s.iterations_completed - s.iterations_aborted;
  absl::StrAppend(
      out,
      absl::StrFormat("Iterations:  %d started: %d completed, %d aborted at a step, "
                      "%d cut short by the run's end\n",
                      s.iterations_started, s.iterations_completed, s.iterations_aborted, cut));
  if (s.iteration_duration.count > 0) {
    absl::StrAppend(out, "Iteration:   ", LatencyLine(s.iteration_duration),
                    "  (completed ones, first send to last answer)\n");
  }
}

// Per target (--targets): one row per name (or unnamed line), its requests, the share ok,
// the latency quantiles of its ok requests and its failures.
void AppendTargets(const RunReport& report, std::string* out) {
  const RunStats& s = report.result->stats;
  const std::vector<std::string>& names = report.plan->target_names;
  if (names.empty() || s.by_target.size() < names.size()) {
    absl::StrAppend(out, "Targets:\n");
    for (size_t t = 0; t < report.plan->targets.size(); ++t) {
      const core::TargetRequest& target = report.plan->targets[t];
      uint64_t ok = t < s.target_ok.size() ? s.target_ok[t] : 0;
      uint64_t failed = t < s.target_failed.size() ? s.target_failed[t] : 0;
      absl::StrAppend(out, "  ", target.method, " ", target.url, ": ", ok + failed, " requests, ",
                      ok, " ok, ", failed, " failed\n");
    }
    return;
  }
  size_t width = 6;
  for (const std::string& name : names) width = std::max(width, name.size());
  bool flow = report.plan->flow != nullptr;
  absl::StrAppend(out, absl::StrFormat("%-12s %-*s %10s %8s %10s %10s %10s %8s %8s%s\n",
                                       flow ? "Steps:" : "Targets:", static_cast<int>(width),
                                       flow ? "step" : "target", "requests", "ok", "p50", "p99",
                                       "p99.9", "failed", "non-2xx", flow ? "  aborted" : ""));
  for (size_t t = 0; t < names.size(); ++t) {
    const core::TargetStats& target = s.by_target[t];
    uint64_t requests = target.requests();
    uint64_t ok = target.outcomes[static_cast<size_t>(Outcome::kOk)];
    std::string p50 = "-", p99 = "-", p999 = "-";
    if (target.latency.count > 0) {
      Quantiles q = LatencyQuantiles(target.latency);
      p50 = FormatSeconds(q.p50);
      p99 = FormatSeconds(q.p99);
      p999 = FormatSeconds(q.p999);
    }
    std::string share =
        requests > 0 ? absl::StrFormat("%.2f%%", 100.0 * ok / requests) : std::string("-");
    absl::StrAppend(out, absl::StrFormat("             %-*s %10d %8s %10s %10s %10s %8d %8d",
                                         static_cast<int>(width), names[t], requests, share, p50,
                                         p99, p999, requests - ok, target.non_2xx()));
    if (flow) absl::StrAppend(out, absl::StrFormat(" %8d", target.aborted));
    absl::StrAppend(out, "\n");
  }
}

void AppendThresholds(const RunReport& report, std::string* out) {
  absl::StrAppend(out, "Thresholds:\n");
  for (const core::ThresholdResult& t : report.thresholds) {
    std::string value = "n/a (nothing measured)";
    if (t.value && t.kind == core::MeasureKind::kLatency) {
      value = FormatSeconds(*t.value);
    } else if (t.value && t.kind == core::MeasureKind::kFraction) {
      value = absl::StrFormat("%.3f%%", 100 * *t.value);
    } else if (t.value) {
      value = absl::StrFormat("%.10g", *t.value);
    }
    absl::StrAppend(out, absl::StrFormat("  %-24s measured %-14s %s\n", t.expr, value,
                                         t.failed ? "FAILED" : "ok"));
  }
}

// How well the client kept up: its schedule lag (open model), how busy its workers were,
// and its CPU time; then, loudly, whether it limited the run.
void AppendGenerator(const RunReport& report, const core::GeneratorVerdict& v, std::string* out) {
  const RunStats& s = report.result->stats;
  const core::GeneratorStats& g = s.generator;
  absl::StrAppend(out, "Generator:  ");
  if (v.planned_sends.has_value()) {
    const core::HistogramSnapshot& lag = g.schedule_lag;
    absl::StrAppend(out, " schedule lag p50 ", FormatSeconds(lag.Quantile(0.5) / 1e9), " p99 ",
                    FormatSeconds(lag.Quantile(0.99) / 1e9), ", ", v.late_sends, " sent over the ",
                    FormatSeconds(absl::ToDoubleSeconds(report.plan->schedule_lag_bound)),
                    " bound, ", g.unsent, " due but unsent;");
  }
  if (g.wall_ns > 0) {
    absl::StrAppend(out,
                    absl::StrFormat(" busy %.1f%% (busiest worker %.1f%%%s);",
                                    100.0 * g.busy_ns / g.wall_ns, 100 * g.busiest_share,
                                    report.plan && report.plan->busy_poll ? ", busy-polling" : ""));
  }
  double cpu = (g.cpu_user_ns + g.cpu_system_ns) / 1e9;
  absl::StrAppend(out, " CPU ", FormatSeconds(cpu));
  if (s.completed() > 0) {
    absl::StrAppend(out, " (", FormatSeconds(cpu / s.completed()), " per request)");
  }
  // What the workers could not see themselves: waiting for a CPU, a cgroup's quota, and
  // responses that waited for them.
  absl::StrAppend(out,
                  absl::StrFormat("; CPU wait %s (worst worker %.1f%% of its run)",
                                  FormatSeconds(g.run_queue_ns / 1e9), 100 * g.run_queue_share));
  if (g.unread_ns > 0) {
    absl::StrAppend(out, absl::StrFormat("; responses unread %s (worst worker %.1f%%)",
                                         FormatSeconds(g.unread_ns / 1e9), 100 * g.unread_share));
  }
  if (g.throttled_ns > 0) {
    absl::StrAppend(out, "; throttled by its cgroup ", FormatSeconds(g.throttled_ns / 1e9));
  }
  absl::StrAppend(out, "\n");
  if (v.saturated) {
    absl::StrAppend(out, "Warning:     the client limited this run: ", v.reason, "\n");
  } else if (!v.note.empty()) {
    absl::StrAppend(out, "Note:        ", v.note, "\n");
  }
}

// Closed model only: says so when the round trip, not the server or the bandwidth, set the
// pace, and how much each connection had in flight.
void AppendRoundTrip(const RunReport& report, std::string* out) {
  std::optional<core::RoundTripBound> r = RoundTripBoundOf(report);
  if (!r.has_value() || !r->bound) return;
  uint32_t per_connection = InFlightPerConnection(*report.plan, report.result->stats);
  uint32_t connections = report.plan->concurrency;
  absl::StrAppend(out, "Note:        the round trip bounded this run: ", connections,
                  connections == 1 ? " connection" : " connections", " with ",
                  FormatBytes(static_cast<uint64_t>(r->in_flight_bytes_per_connection)),
                  " in flight each (", per_connection,
                  per_connection == 1 ? " response" : " responses", ") carry at most ",
                  FormatBytes(static_cast<uint64_t>(r->ceiling_bytes_per_second)), "/s over a ",
                  FormatSeconds(absl::ToDoubleSeconds(r->round_trip)),
                  " round trip (the fastest connect); it moved ",
                  FormatBytes(static_cast<uint64_t>(r->bytes_per_second)),
                  "/s. More connections (-c) or --pipeline carry more\n");
}

}  // namespace

uint32_t InFlightPerConnection(const core::RunPlan& plan, const RunStats& s) {
  if (s.streams_capped_at > 0) {
    return static_cast<uint32_t>(std::min<uint64_t>(plan.pipeline, s.streams_capped_at));
  }
  return plan.pipeline;
}

std::optional<core::RoundTripBound> RoundTripBoundOf(const RunReport& report) {
  const core::RunPlan* plan = report.plan;
  if (plan == nullptr || plan->rate.has_value()) return std::nullopt;
  const RunStats& s = report.result->stats;
  return core::JudgeRoundTrip(s, plan->concurrency, InFlightPerConnection(*plan, s),
                              MeasuredDuration(*report.result, plan));
}

core::GeneratorVerdict GeneratorVerdictOf(const RunReport& report) {
  const core::RunPlan* plan = report.plan;
  bool open_model = plan != nullptr && plan->rate.has_value();
  return core::JudgeGenerator(
      report.result->stats, open_model,
      plan != nullptr ? plan->schedule_lag_bound : core::kDefaultScheduleLagBound,
      plan != nullptr && plan->busy_poll);
}

std::string ThisMachine(const std::string& version) {
  utsname name{};
  uname(&name);
  return absl::StrCat(name.nodename, ", Linux ", name.release, ", ", sysconf(_SC_NPROCESSORS_ONLN),
                      " CPUs, uringload ", version);
}

absl::Duration MeasuredDuration(const core::RunResult& result, const core::RunPlan* plan) {
  if (plan == nullptr) return result.duration;
  return std::max(result.duration - plan->warmup, absl::ZeroDuration());
}

std::string FormatLatencyBars(const core::HistogramSnapshot& h) {
  if (h.count == 0 || h.max == 0) return "";
  constexpr int kRows = 10;
  constexpr int kWidth = 40;
  double low = std::max<double>(h.min, 1);
  double high = std::max<double>(h.max, low + 1);
  std::vector<uint64_t> rows(kRows);
  uint64_t below = 0;
  uint64_t widest = 0;
  for (int r = 0; r < kRows; ++r) {
    double edge = low * std::pow(high / low, (r + 1.0) / kRows);
    uint64_t at_or_below = r + 1 == kRows ? h.count : h.CountAtOrBelow(static_cast<uint64_t>(edge));
    rows[r] = at_or_below - std::min(below, at_or_below);
    below = std::max(below, at_or_below);
    widest = std::max(widest, rows[r]);
  }
  std::string out;
  for (int r = 0; r < kRows; ++r) {
    double edge = low * std::pow(high / low, (r + 1.0) / kRows);
    int bar = widest == 0 ? 0 : static_cast<int>(std::lround(kWidth * double(rows[r]) / widest));
    absl::StrAppend(&out, absl::StrFormat("  <= %-10s %12d |%s\n", FormatSeconds(edge / 1e9),
                                          rows[r], std::string(bar, '#')));
  }
  return out;
}

std::string FormatRunSummary(const RunReport& report) {
  const RunStats& s = report.result->stats;
  absl::Duration d = MeasuredDuration(*report.result, report.plan);
  bool open_model = report.plan != nullptr && report.plan->rate.has_value();
  std::string out = absl::StrCat("Target:      ", report.target, "\n");
  absl::StrAppend(&out, "Plan:        ", PlanLine(report), "\n");
  absl::StrAppend(
      &out,
      absl::StrFormat("Requests:    %d completed of %d started in %s, %.1f req/s", s.completed(),
                      s.started, FormatSeconds(absl::ToDoubleSeconds(d)), Rate(s.completed(), d)));
  if (open_model) absl::StrAppend(&out, ", ", s.late_starts, " started late");
  absl::StrAppend(&out, "\n");
  if (report.plan != nullptr && report.plan->flow != nullptr) AppendIterations(s, &out);
  if (s.warmup_started > 0) {
    absl::StrAppend(&out, "Warmup:      ", s.warmup_started,
                    " requests in the warmup, not measured\n");
  }
  if (open_model) {
    absl::StrAppend(&out, "Latency:     ", LatencyLine(s.latency), "  (from intended start)\n");
    absl::StrAppend(&out, "Uncorrected: ", LatencyLine(s.latency_uncorrected), "  (from send)\n");
  } else {
    absl::StrAppend(&out, "Latency:     ", LatencyLine(s.latency), "\n");
  }
  absl::StrAppend(&out, FormatLatencyBars(s.latency));
  AppendHistogramLines(s, &out);
  absl::StrAppend(&out, "Outcomes:   ");
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    absl::StrAppend(&out, " ", core::kOutcomeNames[o], " ", s.outcomes[o]);
  }
  if (s.completed() > 0) {
    absl::StrAppend(
        &out, absl::StrFormat("  (%.2f%% ok)", 100.0 * s.outcome(Outcome::kOk) / s.completed()));
  }
  absl::StrAppend(&out, "\n");
  AppendStatus(report, s, &out);
  if (report.plan != nullptr && report.plan->grpc) AppendGrpcStatus(s, &out);
  absl::StrAppend(&out, "Transfer:    sent ", FormatBytes(s.bytes_sent), " (",
                  FormatBytes(static_cast<uint64_t>(Rate(s.bytes_sent, d))), "/s), received ",
                  FormatBytes(s.bytes_received), " (",
                  FormatBytes(static_cast<uint64_t>(Rate(s.bytes_received, d))), "/s)\n");
  absl::StrAppend(&out, "Connections: opened ", s.connections_opened, ", peak ", s.connections_peak,
                  ", ramp ", FormatSeconds(s.ramp_ns / 1e9));
  if (s.preconnected > 0) absl::StrAppend(&out, " (", s.preconnected, " open before the start)");
  if (s.connect.count > 0) {
    absl::StrAppend(&out, ", connect p50 ", FormatSeconds(s.connect.Quantile(0.5) / 1e9), " p99 ",
                    FormatSeconds(s.connect.Quantile(0.99) / 1e9));
  }
  absl::StrAppend(&out, "\n");
  if (s.connections_http2 > 0 || s.connections_http3 > 0) {
    absl::StrAppend(&out, "Protocols:   HTTP/1.1 ", s.connections_http1(), ", HTTP/2 ",
                    s.connections_http2);
    if (s.connections_http3 > 0) absl::StrAppend(&out, ", HTTP/3 ", s.connections_http3);
    absl::StrAppend(&out, " connections");
    if (s.streams_capped_at > 0) {
      absl::StrAppend(&out, "; streams capped at ", s.streams_capped_at,
                      " by the server's SETTINGS_MAX_CONCURRENT_STREAMS");
    }
    if (s.retried > 0) absl::StrAppend(&out, "; ", s.retried, " requests refused and sent again");
    absl::StrAppend(&out, "\n");
  }
  if (s.tls_handshakes > 0) {
    absl::StrAppend(&out, "TLS:         ", s.tls_version, " ", s.tls_cipher, ", ", s.tls_handshakes,
                    " handshakes (", s.tls_resumed, " resumed), handshake p50 ",
                    FormatSeconds(s.tls_handshake.Quantile(0.5) / 1e9), " p99 ",
                    FormatSeconds(s.tls_handshake.Quantile(0.99) / 1e9), "\n");
  }
  if (s.connections_http3 > 0) AppendCounterLine("QUIC:        ", "quic", s, &out);
  if (report.plan != nullptr && report.plan->streams) {
    AppendCounterLine("Streams:     ", "streams", s, &out);
  }
  if (report.plan != nullptr && report.plan->llm.has_value()) AppendLlm(s, d, &out);
  AppendGenerator(report, GeneratorVerdictOf(report), &out);
  AppendRoundTrip(report, &out);
  if (report.plan != nullptr && report.plan->targets.size() > 1) AppendTargets(report, &out);
  if (Failures(s) > 0) AppendErrors(s, &out);
  if (!report.thresholds.empty()) AppendThresholds(report, &out);
  return out;
}

}  // namespace uringload::exporters
