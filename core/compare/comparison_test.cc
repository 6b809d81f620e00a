#include "core/compare/comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace uringload::core {
namespace {

RunStats AnsweredIn(uint64_t latency_ns, uint64_t ok, uint64_t failed) {
  LatencyHistogram h;
  for (uint64_t i = 0; i < ok; ++i) h.Record(latency_ns + i % 1000 * 1000);
  RunStats s;
  s.latency = h.Snapshot();
  s.outcomes[static_cast<size_t>(Outcome::kOk)] = ok;
  s.outcomes[static_cast<size_t>(Outcome::kReset)] = failed;
  s.started = ok + failed;
  return s;
}

TEST(ComparisonTest, MarginsParseAndFailOnlyForASignificantShiftBeyondThem) {
  absl::StatusOr<Margin> p99 = ParseMargin("p99>+10%");
  ASSERT_TRUE(p99.ok()) << p99.status();
  EXPECT_TRUE(p99->above);
  EXPECT_DOUBLE_EQ(p99->margin, 0.10);
  absl::StatusOr<Margin> rps = ParseMargin("rps<-5%");
  ASSERT_TRUE(rps.ok()) << rps.status();
  EXPECT_DOUBLE_EQ(rps->margin, -0.05);
  for (const char* bad : {"p99>10%", "p99>+10", "latency>+1%", "p99", "cpu_per_request>+1%"}) {
    EXPECT_FALSE(ParseMargin(bad).ok()) << bad;
  }
  RunStats base = AnsweredIn(10'000'000, 20'000, 0);
  RunStats slower = AnsweredIn(12'000'000, 20'000, 0);
  std::vector<uint64_t> ok_a(10, 1000), ok_b(10, 1000);
  ok_b[3] = 1001;
  // No spread between runs assumed: the noise within the runs decides.
  Comparison c = Compare({.stats = &base, .ok_per_interval = ok_a, .measured_seconds = 10},
                         {.stats = &slower, .ok_per_interval = ok_b, .measured_seconds = 10}, 0.95,
                         RunSpread{});
  EXPECT_TRUE(MarginFails(*p99, c));
  EXPECT_FALSE(MarginFails(*ParseMargin("p99>+30%"), c));  // Beyond the shift.
  EXPECT_FALSE(MarginFails(*rps, c));                      // Throughput: no change.
  EXPECT_EQ(c.measures[0].measure, "rps");
  EXPECT_TRUE(c.measures[0].judged);
  EXPECT_FALSE(c.measures[0].shift.significant);
  EXPECT_TRUE(c.latency.significant);
}

// A run whose median is `median_ns` scaled by a run-level factor drawn around 1 with a 3%
// spread (what differs between runs of one setting on a VM), 5,000 requests of lognormal
// spread around it: a run's own quantiles are far tighter than the spread between runs.
struct SyntheticRun {
  RunStats stats;
  CompareSide side() const {
    return {.stats = &stats,
            .ok_per_interval = {},
            .interval_seconds = 1,
            .warmup_seconds = 0,
            .measured_seconds = 10};
  }
};
SyntheticRun RunAround(std::mt19937_64& random, double median_ns, int requests = 5000) {
  std::normal_distribution<double> run_factor(1, 0.03);
  std::lognormal_distribution<double> draw(std::log(median_ns * run_factor(random)), 0.3);
  LatencyHistogram h;
  SyntheticRun run;
  for (int i = 0; i < requests; ++i) h.Record(static_cast<uint64_t>(draw(random)));
  run.stats.latency = h.Snapshot();
  run.stats.outcomes[static_cast<size_t>(Outcome::kOk)] = requests;
  run.stats.started = requests;
  return run;
}

double ShareSignificant(const std::vector<bool>& calls) {
  return static_cast<double>(std::count(calls.begin(), calls.end(), true)) / calls.size();
}

// Runs of one setting: compared run against run, the within-run test calls most pairs
// different; over three runs a side, the p50 is called different in at most 5% of trials
// (plus three standard deviations of that share over 200 trials).
TEST(ComparisonTest, SeveralRunsASideKeepFalsePositivesAtTheConfidence) {
  std::mt19937_64 random(11);
  std::vector<bool> single, several;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<SyntheticRun> runs;
    for (int k = 0; k < 6; ++k) runs.push_back(RunAround(random, 10e6));
    std::vector<CompareSide> sides;
    for (const SyntheticRun& r : runs) sides.push_back(r.side());
    Comparison c = CompareRuns(std::span(sides).first(3), std::span(sides).subspan(3), 0.95);
    ASSERT_EQ(c.measures[2].measure, "p50");
    EXPECT_TRUE(c.measures[2].judged);
    EXPECT_FALSE(c.latency_judged);
    several.push_back(c.measures[2].shift.significant);
    if (trial < 12) {  // The within-run test of Compare on one run a side (its p50 alone).
      const double median[] = {0.5};
      single.push_back(
          BootstrapShifts(runs[0].stats.latency, runs[3].stats.latency, median, 0.95, 200)[0]
              .significant);
    }
  }
  EXPECT_LE(ShareSignificant(several), 0.05 + 3 * std::sqrt(0.05 * 0.95 / 200));
  EXPECT_GT(ShareSignificant(single), 0.3);  // Why several runs are needed.
}

TEST(ComparisonTest, RunSpreadParsesOverTheDefault) {
  std::vector<std::string> texts = {"all=2%", "p99=8.5%"};
  absl::StatusOr<RunSpread> spread = ParseRunSpread(texts);
  ASSERT_TRUE(spread.ok()) << spread.status();
  EXPECT_DOUBLE_EQ(spread->Of("rps"), 0.02);
  EXPECT_DOUBLE_EQ(spread->Of("p99"), 0.085);
  EXPECT_DOUBLE_EQ(spread->Of("error_rate"), 0);
  absl::StatusOr<RunSpread> defaults = ParseRunSpread({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->by_measure, DefaultRunSpread().by_measure);
  EXPECT_TRUE(defaults->any_latency());
  std::vector<std::string> none = {"all=0%"};
  EXPECT_FALSE(ParseRunSpread(none)->any_latency());
  for (const char* bad :
       {"p99", "p99=8", "latency=3%", "p99=-1%", "error_rate=1%", "p99=x%", "p99=1001%", "=3%"}) {
    std::vector<std::string> one = {bad};
    absl::StatusOr<RunSpread> parsed = ParseRunSpread(one);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("--run-spread"), std::string::npos);
  }
}

// Runs of one setting compared one against one: with the spread between runs they have
// assumed, the p50, p99 and mean are each called different in at most 5% of trials (plus three
// standard deviations of that share over 200 trials); assuming none, in most of them. What
// Compare does per measure (the bootstrap within the runs, then WithRunSpread), with fewer
// resamples and runs of 20,000 requests (resampled per bucket) so that 200 trials stay quick.
TEST(ComparisonTest, OneRunASideJudgedAgainstTheSpreadKeepsFalsePositivesAtTheConfidence) {
  std::mt19937_64 random(3);
  constexpr double kSpread = 0.03;  // RunAround's spread between runs.
  constexpr int kTrials = 200;
  const double measures[] = {-1, 0.5, 0.99};  // The mean, p50, p99.
  int called[3] = {}, without = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    SyntheticRun a = RunAround(random, 10e6, 20'000), b = RunAround(random, 10e6, 20'000);
    std::vector<Shift> within =
        BootstrapShifts(a.stats.latency, b.stats.latency, measures, 0.95, 100, trial);
    for (int k = 0; k < 3; ++k) called[k] += WithRunSpread(within[k], kSpread, 0.95).significant;
    without += within[1].significant;
  }
  double bound = kTrials * 0.05 + 3 * std::sqrt(kTrials * 0.05 * 0.95);
  for (int k = 0; k < 3; ++k) EXPECT_LE(called[k], bound) << measures[k];
  EXPECT_GT(without, kTrials / 2);  // Why the spread is needed.
  // Compare itself: the shifts widened, and the rank test, blind to the spread, shown only.
  SyntheticRun a = RunAround(random, 10e6), b = RunAround(random, 10e6);
  std::vector<std::string> three = {"all=3%"};
  Comparison c = Compare(a.side(), b.side(), 0.95, *ParseRunSpread(three));
  Comparison bare = Compare(a.side(), b.side(), 0.95, RunSpread{});
  EXPECT_FALSE(c.latency_judged);
  EXPECT_TRUE(bare.latency_judged);
  ASSERT_EQ(c.measures[4].measure, "p99");
  EXPECT_LT(c.measures[4].shift.lower, bare.measures[4].shift.lower);
  EXPECT_GT(c.measures[4].shift.upper, bare.measures[4].shift.upper);
  EXPECT_DOUBLE_EQ(c.measures[4].shift.shift, bare.measures[4].shift.shift);
}

// 10 ms against 12 ms, one run a side with the default spread between runs: found slower, p50
// +20% within 2 points.
TEST(ComparisonTest, OneRunASideFindsATwentyPercentSlowerSettingWithTheDefaultSpread) {
  std::mt19937_64 random(7);
  SyntheticRun a = RunAround(random, 10e6), b = RunAround(random, 12e6);
  Comparison c = Compare(a.side(), b.side(), 0.95, DefaultRunSpread());
  const MeasureShift& p50 = c.measures[2];
  EXPECT_TRUE(p50.shift.significant);
  EXPECT_NEAR(p50.shift.shift, 0.20, 0.02 + 2 * 0.03);  // The runs' own 3% each way.
  EXPECT_TRUE(MarginFails(*ParseMargin("p50>+10%"), c));
  EXPECT_EQ(c.assumed_spread.by_measure, DefaultRunSpread().by_measure);
}

// 10 ms against 12 ms, three runs a side: found slower, p50 +20% within 2 points.
TEST(ComparisonTest, SeveralRunsASideFindATwentyPercentSlowerSetting) {
  std::mt19937_64 random(5);
  std::vector<SyntheticRun> runs;
  for (int k = 0; k < 3; ++k) runs.push_back(RunAround(random, 10e6));
  for (int k = 0; k < 3; ++k) runs.push_back(RunAround(random, 12e6));
  std::vector<CompareSide> sides;
  for (const SyntheticRun& r : runs) sides.push_back(r.side());
  Comparison c = CompareRuns(std::span(sides).first(3), std::span(sides).subspan(3), 0.95);
  const MeasureShift& p50 = c.measures[2];
  EXPECT_TRUE(p50.shift.significant);
  EXPECT_NEAR(p50.shift.shift, 0.20, 0.02);
  EXPECT_TRUE(MarginFails(*ParseMargin("p50>+10%"), c));
  EXPECT_FALSE(MarginFails(*ParseMargin("rps<-5%"), c));  // Every run: 500/s.
  // Each side's spread between its runs, measured: about RunAround's 3%.
  EXPECT_GT(c.base_spread.Of("p50"), 0);
  EXPECT_LT(c.base_spread.Of("p50"), 0.10);
  EXPECT_NEAR(c.base_spread.Of("rps"), 0, 1e-9);
}

}  // namespace
}  // namespace uringload::core
