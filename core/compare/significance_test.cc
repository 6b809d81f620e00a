#include "core/compare/significance.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace uringload::core {
namespace {

HistogramSnapshot LogNormal(std::mt19937_64& random, int n, double median_ns) {
  std::lognormal_distribution<double> draw(std::log(median_ns), 0.3);
  LatencyHistogram h;
  for (int i = 0; i < n; ++i) h.Record(static_cast<uint64_t>(draw(random)));
  return h.Snapshot();
}

TEST(SignificanceTest, DistributionFunctionsMatchTheirTables) {
  EXPECT_NEAR(NormalCdf(1.959964), 0.975, 1e-6);
  EXPECT_NEAR(StudentTCdf(2.228139, 10), 0.975, 1e-6);  // t table, 10 degrees of freedom.
  EXPECT_NEAR(StudentTCdf(-2.570582, 5), 0.025, 1e-6);
  EXPECT_NEAR(StudentTCdf(0, 3), 0.5, 1e-12);
}

// 10 ms against 12 ms: every test sees it, and the p50 interval holds the true +20%.
TEST(SignificanceTest, ATwentyPercentSlowerRunIsFoundSlower) {
  std::mt19937_64 random(7);
  HistogramSnapshot base = LogNormal(random, 20'000, 10e6);
  HistogramSnapshot next = LogNormal(random, 20'000, 12e6);
  RankTest rank = MannWhitney(base, next, 0.95);
  EXPECT_TRUE(rank.significant);
  EXPECT_GT(rank.superiority, 0.6);
  const double quantiles[] = {0.5, 0.99};
  std::vector<Shift> shifts = BootstrapShifts(base, next, quantiles, 0.95);
  EXPECT_TRUE(shifts[0].significant);
  EXPECT_NEAR(shifts[0].shift, 0.20, 0.02);
  EXPECT_LT(shifts[0].lower, 0.20);
  EXPECT_GT(shifts[0].upper, 0.20);
  EXPECT_TRUE(shifts[1].significant);
}

// Two samples of one distribution, many times: each test calls them different in at most
// 1 - confidence of the trials (5%, with three standard deviations of slack for the count).
TEST(SignificanceTest, TheFalsePositiveRateStaysWithinOneMinusTheConfidence) {
  std::mt19937_64 random(11);
  int rank_hits = 0, p50_hits = 0, welch_hits = 0, error_hits = 0;
  constexpr int kTrials = 300;
  constexpr int kBootstrapTrials = 50;  // Resampling is the slow part.
  std::normal_distribution<double> rate(1000, 30);
  std::binomial_distribution<uint64_t> errors(5000, 0.01);
  for (int t = 0; t < kTrials; ++t) {
    HistogramSnapshot a = LogNormal(random, 1000, 5e6);
    HistogramSnapshot b = LogNormal(random, 1000, 5e6);
    rank_hits += MannWhitney(a, b, 0.95).significant;
    if (t < kBootstrapTrials) {
      const double median[] = {0.5};
      p50_hits += BootstrapShifts(a, b, median, 0.95, 100, t)[0].significant;
    }
    std::vector<double> ra, rb;
    for (int i = 0; i < 20; ++i) {
      ra.push_back(rate(random));
      rb.push_back(rate(random));
    }
    welch_hits += Welch(ra, rb, 0.95).significant;
    error_hits += TwoProportions(errors(random), 5000, errors(random), 5000, 0.95).significant;
  }
  EXPECT_LE(rank_hits, kTrials * 0.05 + 3 * std::sqrt(kTrials * 0.05 * 0.95)) << rank_hits;
  EXPECT_LE(welch_hits, kTrials * 0.05 + 3 * std::sqrt(kTrials * 0.05 * 0.95)) << welch_hits;
  EXPECT_LE(error_hits, kTrials * 0.05 + 3 * std::sqrt(kTrials * 0.05 * 0.95)) << error_hits;
  EXPECT_LE(p50_hits, kBootstrapTrials * 0.05 + 3 * std::sqrt(kBootstrapTrials * 0.05 * 0.95))
      << p50_hits;
}

TEST(SignificanceTest, WelchAndProportionsOnKnownCases) {
  std::vector<double> a = {100, 102, 98, 101, 99}, b = {110, 112, 108, 111, 109};
  Shift s = Welch(a, b, 0.95);
  EXPECT_TRUE(s.significant);
  EXPECT_NEAR(s.shift, 0.10, 1e-9);
  EXPECT_LT(s.lower, 0.10);
  EXPECT_GT(s.upper, 0.10);
  EXPECT_FALSE(Welch(std::vector<double>{1}, b, 0.95).significant);  // Too few to tell.
  Shift e = TwoProportions(10, 10'000, 60, 10'000, 0.95);
  EXPECT_TRUE(e.significant);
  EXPECT_NEAR(e.shift, 5.0, 1e-9);
  EXPECT_FALSE(TwoProportions(0, 100, 0, 100, 0.95).significant);
}

// A +10% shift that is sure within the runs is not once runs differ by 10% on their own; the
// interval grows by that spread on the log scale, and without a spread nothing changes.
TEST(SignificanceTest, TheSpreadBetweenRunsWidensTheInterval) {
  Shift within{.base = 10,
               .next = 11,
               .shift = 0.10,
               .lower = 0.09,
               .upper = 0.11,
               .p = 0.05,
               .significant = true};
  Shift same = WithRunSpread(within, 0, 0.95);
  EXPECT_DOUBLE_EQ(same.lower, 0.09);
  EXPECT_TRUE(same.significant);
  Shift wide = WithRunSpread(within, 0.10, 0.95);
  EXPECT_FALSE(wide.significant);
  EXPECT_LT(wide.lower, 0);
  EXPECT_GT(wide.upper, 0.10);
  // sqrt(2) x 10% on the log scale (the within-run part is small beside it): p of |ln 1.1|.
  double se =
      std::sqrt(std::pow((std::log1p(0.11) - std::log1p(0.09)) / (2 * 1.959964), 2) + 2 * 0.01);
  EXPECT_NEAR(wide.p, 2 * (1 - NormalCdf(std::log(1.1) / se)), 1e-4);
  EXPECT_TRUE(WithRunSpread(within, 0.02, 0.95).significant);  // 10% is beyond 2% runs.
  EXPECT_FALSE(WithRunSpread(Shift{.base = 0, .next = 1}, 0.1, 0.95).significant);
}

TEST(SignificanceTest, RelativeSpreadIsTheDeviationOfTheLogs) {
  EXPECT_DOUBLE_EQ(RelativeSpread(std::vector<double>{10, 10, 10}), 0);
  EXPECT_NEAR(RelativeSpread(std::vector<double>{1, std::exp(1.0)}), std::sqrt(0.5), 1e-12);
  EXPECT_DOUBLE_EQ(RelativeSpread(std::vector<double>{5}), 0);     // One run: unknown.
  EXPECT_DOUBLE_EQ(RelativeSpread(std::vector<double>{0, 5}), 0);  // Not positive.
}

}  // namespace
}  // namespace uringload::core
