// Compare: two runs' results measure by measure (throughput, mean, p50, p90, p99, p999, error
// rate, CPU per request), each with its shift, interval and significance
// (core/compare/significance.h), and the --fail-if margins of `uringload compare`
// (`p99>+10%`, `rps<-5%`): a margin fails only for a significant shift beyond it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
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

// How much runs of one setting differ on their own, per measure (rps, mean, p50, p90, p99,
// p999): the relative standard deviation of a run's value, 0.03 for 3%. One run a side cannot
// show it, so Compare judges each shift against it as well; several runs a side measure it.
struct RunSpread {
  std::map<std::string, double, std::less<>> by_measure;
  double Of(std::string_view measure) const;  // 0 for a measure not in it (error_rate).
  bool any_latency() const;                   // Whether a latency measure has a spread.
};

// The spread assumed when none is given: 1.5 times the most that runs of `serve --delay 10ms`
// at -R 500 differed by on a 2-vCPU VM, in six batches of twelve over two days
// (docs/compare.md). A faster service or a noisier machine differs by more.
RunSpread DefaultRunSpread();

// `p99=8%` or `all=2%` (every measure), each over DefaultRunSpread() and the ones before;
// InvalidArgument naming --run-spread otherwise.
absl::StatusOr<RunSpread> ParseRunSpread(std::span<const std::string> texts);

// The spread of each measure among `runs` (of one setting): what to give --run-spread.
RunSpread MeasureRunSpread(std::span<const CompareSide> runs);

struct MeasureShift {
  std::string measure;  // rps, mean, p50, p90, p99, p999, error_rate, cpu_per_request.
  Shift shift;
  bool judged = true;  // False: shown only (too little data for a test, or no test exists).
};

struct Comparison {
  std::vector<MeasureShift> measures;
  RankTest latency;  // The whole latency distribution.
  // False when the rank test saw several runs a side pooled, or one run a side with a spread
  // between runs assumed: shown, not judged (it knows only the spread within runs).
  bool latency_judged = true;
  RunSpread assumed_spread;            // One run a side: what each shift was judged against.
  RunSpread base_spread, next_spread;  // Several runs a side: measured among each side's runs.
};

// One run a side: each measure's interval from the spread within the runs (bootstrap over the
// histograms, Welch over the per-interval rates), widened to the spread between runs
// `spread` says runs of one setting have (WithRunSpread).
Comparison Compare(const CompareSide& base, const CompareSide& next, double confidence,
                   const RunSpread& spread);

// Several runs a side (at least 2 each): each measure's value per run, compared by Welch's
// t-test over the runs. Runs of one setting differ by more than one run's own spread shows
// (on a VM, +2.2% mean and +5.9% p99 between two runs, both "significant" run against run),
// and only repeated runs measure that.
Comparison CompareRuns(std::span<const CompareSide> base, std::span<const CompareSide> next,
                       double confidence);

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
