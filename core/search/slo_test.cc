#include "core/search/slo.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace uringload::core {
namespace {

TEST(SloTest, ParsesQuantilesAndTheErrorRateBoundedFromAbove) {
  absl::StatusOr<Slo> p99 = ParseSlo("p99<50ms");
  ASSERT_TRUE(p99.ok()) << p99.status();
  EXPECT_TRUE(p99->latency);
  EXPECT_DOUBLE_EQ(p99->bound, 0.05);
  EXPECT_NEAR(p99->allowed_share, 0.01, 1e-12);
  absl::StatusOr<Slo> errors = ParseSlo("error_rate<0.1%");
  ASSERT_TRUE(errors.ok()) << errors.status();
  EXPECT_FALSE(errors->latency);
  EXPECT_DOUBLE_EQ(errors->allowed_share, 0.001);
  for (const char* bad : {"p99>50ms", "rps<100", "mean<1s", "p99<fast", "error_rate<0"}) {
    absl::StatusOr<Slo> slo = ParseSlo(bad);
    ASSERT_FALSE(slo.ok()) << bad;
    EXPECT_EQ(slo.status().message().find(absl::StrCat("--slo '", bad, "'")), 0u) << slo.status();
  }
}

// The largest k with cdf(k) <= 1 - confidence; the cdfs from exact sums of rationals
// (Python's fractions).
TEST(SloTest, TheBinomialBoundIsExact) {
  EXPECT_EQ(MaxExceedances(10'000, 0.01, 0.95), 83);  // cdf(83) 0.0455, cdf(84) 0.0566.
  EXPECT_EQ(MaxExceedances(1'000, 0.01, 0.95), 4);    // cdf(4) 0.0287, cdf(5) 0.0661.
  EXPECT_EQ(MaxExceedances(100, 0.01, 0.95), -1);     // cdf(0) 0.366: too few requests.
  EXPECT_EQ(MaxExceedances(0, 0.01, 0.95), -1);
  EXPECT_EQ(MaxExceedances(1'000'000, 0.001, 0.99), 926);  // 0.00940, 0.01025 (floats).
}

RunStats WithLatencies(uint64_t fast, uint64_t slow, uint64_t failed = 0) {
  LatencyHistogram h;
  for (uint64_t i = 0; i < fast; ++i) h.Record(1'000'000);
  for (uint64_t i = 0; i < slow; ++i) h.Record(100'000'000);
  RunStats s;
  s.latency = h.Snapshot();
  s.outcomes[static_cast<size_t>(Outcome::kOk)] = fast + slow;
  s.outcomes[static_cast<size_t>(Outcome::kTimeout)] = failed;
  s.started = fast + slow + failed;
  return s;
}

// The other side of the test: how many exceedances show the objective failed, and how many
// requests a step needs before it can show one met (0.99^299 = 0.0495, 0.99^298 = 0.0500).
TEST(SloTest, ShownToFailAndTheRequestsEachObjectiveNeeds) {
  EXPECT_EQ(FewestExceedancesToFail(1'000, 0.01, 0.95), 16);  // P(K>=16) 0.048, P(K>=15) 0.082.
  EXPECT_EQ(FewestExceedancesToFail(250, 0.01, 0.95), 6);     // 0.041, 0.108.
  EXPECT_EQ(FewestExceedancesToFail(0, 0.01, 0.95), 1);       // Nothing can show it.
  EXPECT_EQ(RequestsToShow(0.01, 0.95), 299u);
  EXPECT_EQ(MaxExceedances(298, 0.01, 0.95), -1);
  EXPECT_EQ(MaxExceedances(299, 0.01, 0.95), 0);
  EXPECT_EQ(RequestsToShow(0.001, 0.95), 2995u);
}

TEST(SloTest, AStepMeetsAnObjectiveOnlyWithTheConfidence) {
  Slo p99 = *ParseSlo("p99<50ms");
  SloCheck met = CheckSlo(p99, WithLatencies(9'920, 80), 0.95);
  EXPECT_TRUE(met.met);
  EXPECT_EQ(met.beyond, 80u);
  EXPECT_EQ(met.allowed, 83);
  // 0.9% over the bound: below 1%, but not surely so with 10,000 requests.
  EXPECT_FALSE(CheckSlo(p99, WithLatencies(9'910, 90), 0.95).met);
  EXPECT_FALSE(CheckSlo(p99, WithLatencies(0, 0), 0.95).met);  // Nothing measured.
  Slo errors = *ParseSlo("error_rate<1%");
  SloCheck e = CheckSlo(errors, WithLatencies(9'950, 0, 50), 0.95);
  EXPECT_TRUE(e.met);
  EXPECT_DOUBLE_EQ(e.measured, 0.005);
  EXPECT_FALSE(CheckSlo(errors, WithLatencies(9'900, 0, 100), 0.95).met);
}

// An objective on another histogram (an LLM server's time to first token) is judged on it,
// not on the request latency.
TEST(SloTest, AHistogramsQuantileIsJudgedOnItsHistogram) {
  absl::StatusOr<Slo> ttft = ParseSlo("ttft.p99<500ms");
  ASSERT_TRUE(ttft.ok()) << ttft.status();
  EXPECT_TRUE(ttft->latency);
  EXPECT_EQ(ttft->histogram, &RunStats::ttft);
  EXPECT_NEAR(ttft->allowed_share, 0.01, 1e-12);
  WorkerStats stats;
  for (int i = 0; i < 1'000; ++i) {
    stats.RequestSucceeded(200, 5'000'000'000);  // 5 s answers: the latency is far over 500 ms.
    stats.TokenArrived(true, i < 995 ? 100'000'000 : 900'000'000);  // 0.5% over the bound.
  }
  SloCheck check = CheckSlo(*ttft, stats.Snapshot(), 0.9);
  EXPECT_EQ(check.requests, 1'000u);
  EXPECT_EQ(check.beyond, 5u);
  EXPECT_TRUE(check.met);
  EXPECT_FALSE(CheckSlo(*ParseSlo("p99<500ms"), stats.Snapshot(), 0.9).met);
  EXPECT_FALSE(ParseSlo("ttft.mean<1s").ok());  // A quantile only.
}

}  // namespace
}  // namespace uringload::core
