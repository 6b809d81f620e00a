// Compare: two runs' results measure by measure (throughput, mean, p50, p90, p99, p999, error
// rate, CPU per request), each with its shift, interval and significance
// (core/compare/significance.h), and the --fail-if margins of `uringload compare`
// (`p99>+10%`, `rps<-5%`): a margin fails only for a significant shift beyond it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/compare/significance.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

// What a run's JSON gives the comparison.
struct CompareSide {
  const RunStats* stats = nullptr;
  std::span<const uint64_t> ok_per_interval;  // From the start, whole intervals.
  double interval_seconds = 1;
  double warmup_seconds = 0;
  double measured_seconds = 0;
};

struct MeasureShift {
  std::string measure;  // rps, mean, p50, p90, p99, p999, error_rate, cpu_per_request.
  Shift shift;
  bool judged = true;  // False: shown only (too little data for a test, or no test exists).
};

struct Comparison {
  std::vector<MeasureShift> measures;
  RankTest latency;  // The whole latency distribution.
};

Comparison Compare(const CompareSide& base, const CompareSide& next, double confidence);

struct Margin {
  std::string expr;  // As given.
  std::string measure;
  bool above = true;  // > (the new is higher by more than the margin) or <.
  double margin = 0;  // Relative: +0.10 for +10%.
};

// `p99>+10%`, `rps<-5%`: a measure of Compare, > or <, a signed percentage; InvalidArgument
// naming --fail-if otherwise.
absl::StatusOr<Margin> ParseMargin(const std::string& text);

// Whether the margin fails: the measure's shift is significant and beyond it.
bool MarginFails(const Margin& margin, const Comparison& comparison);

}  // namespace uringload::core
