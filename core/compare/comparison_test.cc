#include "core/compare/comparison.h"

#include <gtest/gtest.h>

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
  Comparison c = Compare({.stats = &base, .ok_per_interval = ok_a, .measured_seconds = 10},
                         {.stats = &slower, .ok_per_interval = ok_b, .measured_seconds = 10}, 0.95);
  EXPECT_TRUE(MarginFails(*p99, c));
  EXPECT_FALSE(MarginFails(*ParseMargin("p99>+30%"), c));  // Beyond the shift.
  EXPECT_FALSE(MarginFails(*rps, c));                      // Throughput: no change.
  EXPECT_EQ(c.measures[0].measure, "rps");
  EXPECT_TRUE(c.measures[0].judged);
  EXPECT_FALSE(c.measures[0].shift.significant);
  EXPECT_TRUE(c.latency.significant);
}

}  // namespace
}  // namespace uringload::core
