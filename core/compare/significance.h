// The statistics `uringload compare` decides with, from what a run's JSON holds: latency
// histograms (a Mann-Whitney U rank test over their buckets, and bootstrap intervals for the
// shift of each quantile and the mean), per-interval ok counts (Welch's t-test on the
// throughput) and outcome counts (a two-proportion z-test on the error rate). Each says the
// relative shift of the new run against the base, its interval at the confidence asked, and
// whether it is significant (the interval excludes no change). No I/O.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/latency_histogram.h"

namespace uringload::core {

struct Shift {
  double base = 0;
  double next = 0;
  double shift = 0;  // next / base - 1 (0 when both are 0).
  double lower = 0;  // The interval of the shift at the confidence asked.
  double upper = 0;
  double p = 1;  // Two-sided p-value where the test has one (else 1 or 0 by the interval).
  bool significant = false;
};

struct RankTest {
  double z = 0;
  double p = 1;
  // The probability that a request of the new run took longer than one of the base (ties
  // count half): 0.5 when the distributions are alike.
  double superiority = 0.5;
  bool significant = false;
};

double NormalCdf(double z);
double StudentTCdf(double t, double df);

// Mann-Whitney U over the buckets (a bucket is a tie group), normal approximation with the
// tie correction.
RankTest MannWhitney(const HistogramSnapshot& base, const HistogramSnapshot& next,
                     double confidence);

// For each q in `quantiles` (a negative one: the mean), the shift of the new run's value, with
// a percentile bootstrap interval: both histograms resampled `resamples` times (multinomially
// over their buckets, seeded: the same inputs give the same answer).
std::vector<Shift> BootstrapShifts(const HistogramSnapshot& base, const HistogramSnapshot& next,
                                   std::span<const double> quantiles, double confidence,
                                   int resamples = 1000, uint64_t seed = 1);

// Welch's t-test on two samples' means (at least 2 values each; else not significant).
Shift Welch(std::span<const double> base, std::span<const double> next, double confidence);

// `shift`, measured within one run a side, judged against how much runs of one setting differ
// on their own as well: each run's value is off by a relative standard deviation `spread`
// (0.03 for 3%), so the log of the two values' ratio varies by sqrt(2) spread more than the
// interval within the runs says. The interval and p-value come from the normal approximation
// on that scale. Unchanged when spread is 0 or either value is not positive.
Shift WithRunSpread(const Shift& shift, double spread, double confidence);

// How much positive values differ: the standard deviation of their logs (about the relative
// one), 0 for fewer than two values or any value not positive.
double RelativeSpread(std::span<const double> values);

// A two-proportion z-test: `base_events` of `base_n` against `next_events` of `next_n`.
Shift TwoProportions(uint64_t base_events, uint64_t base_n, uint64_t next_events, uint64_t next_n,
                     double confidence);

}  // namespace uringload::core
