// Thresholds: pass/fail conditions for CI (`--fail-if p99>250ms`, repeatable). Each names a
// measure of the finished run, a comparison and a bound; one that holds fails the run (exit 3).
// Measures: latency p50 p75 p90 p95 p99 p999 min mean max (the corrected latency under -R;
// a duration bound with its unit), error_rate and success_rate (0.01 or 1%), rps, late_starts,
// errors (every outcome but ok), and each outcome by name (ok, timeout, …). `{target=NAME}`
// after the measure (`p99{target=login}<200ms`) takes it from one target of --targets.
// gRPC runs add grpc_status{code=NAME} (the ok calls with that status, for the run) and
// grpc_error_rate (failed calls and calls with a status other than OK, of all calls). Each
// histogram of core/run/run_histograms.h has the latency's statistics as NAME.STATISTIC
// (`ttfb.p99>50ms`, `connect.max>1s`), for the run.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

// What a measure's value is: a latency in seconds, a fraction, or a count (or rate per second).
enum class MeasureKind { kLatency, kFraction, kNumber };

struct Threshold {
  enum class Op { kGreater, kGreaterEqual, kLess, kLessEqual };
  std::string expr;     // As given.
  std::string measure;  // "p99", "error_rate", "ok", …
  std::string target;   // {target=NAME}: one target's; empty: the run's.
  Op op = Op::kGreater;
  double bound = 0;  // Seconds for latencies, a fraction for rates.
  MeasureKind kind = MeasureKind::kNumber;
};

struct ThresholdResult {
  std::string expr;
  MeasureKind kind = MeasureKind::kNumber;
  std::optional<double> value;  // None: nothing to measure (a latency without an ok response).
  bool failed = false;          // The condition held, or there was nothing to measure.
};

// One expression, or InvalidArgument naming `flag` and what is wrong with it.
absl::StatusOr<Threshold> ParseThreshold(const std::string& text,
                                         const std::string& flag = "--fail-if");
// Every --fail-if of a command, or the first one that does not parse.
absl::StatusOr<std::vector<Threshold>> ParseThresholds(const std::vector<std::string>& texts);
// The histogram row (core/run/run_histograms.h) a measure such as "ttft.p99" names, with its
// statistic ("p99") in `statistic`; null when it names none.
const HistogramRow* HistogramMeasure(std::string_view measure, std::string_view* statistic);
// The measured value of `measure` for a run with `stats` over `duration`.
std::optional<double> MeasureOf(const std::string& measure, const RunStats& stats,
                                absl::Duration duration);
// Every threshold that names a target names one of `target_names` (RunPlan::target_names), or
// InvalidArgument saying which does not.
absl::Status CheckThresholdTargets(const std::vector<Threshold>& thresholds,
                                   std::span<const std::string> target_names);
std::vector<ThresholdResult> EvaluateThresholds(const std::vector<Threshold>& thresholds,
                                                const RunStats& stats, absl::Duration duration,
                                                std::span<const std::string> target_names = {});

}  // namespace uringload::core
