#include "core/run/generator_check.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

constexpr absl::Duration kBound = absl::Milliseconds(1);

// An open-model run of `sent` requests with each send `lag_ns` late, `unsent` left behind.
RunStats OpenRun(uint64_t sent, uint64_t lag_ns, uint64_t unsent = 0) {
  RunStats s;
  s.started = sent;
  LatencyHistogram lag;
  for (uint64_t i = 0; i < sent; ++i) lag.Record(lag_ns);
  s.generator.schedule_lag = lag.Snapshot();
  s.generator.unsent = unsent;
  s.generator.busy_ns = 1;
  s.generator.wall_ns = 10;
  s.generator.busiest_share = 0.1;
  return s;
}

TEST(GeneratorCheckTest, AClientOnScheduleIsNotSaturated) {
  GeneratorVerdict v = JudgeGenerator(OpenRun(10'000, 20'000, 50), true, kBound, false);
  EXPECT_FALSE(v.saturated) << v.reason;
  EXPECT_EQ(v.reason, "");
  EXPECT_EQ(v.planned_sends, 10'050u);
  EXPECT_EQ(v.late_sends, 0u);
}

TEST(GeneratorCheckTest, LagOverTheBoundIsSaturation) {
  RunStats s = OpenRun(10'000, 20'000);
  LatencyHistogram late;
  for (int i = 0; i < 200; ++i) late.Record(3'000'000);  // 2% of sends 3 ms late.
  s.generator.schedule_lag.Merge(late.Snapshot());
  GeneratorVerdict v = JudgeGenerator(s, true, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.late_sends, 200u);
  EXPECT_NE(v.reason.find("schedule lag p99"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("over the 1ms bound"), std::string::npos) << v.reason;
  EXPECT_FALSE(JudgeGenerator(s, true, absl::Milliseconds(5), false).saturated);
}

// Late sends from idle workers were late wake-ups: the reason says so and names --busy-poll,
// unless the workers were busy or already polling.
TEST(GeneratorCheckTest, LagFromIdleWorkersPointsToBusyPolling) {
  RunStats s = OpenRun(10'000, 20'000);
  LatencyHistogram late;
  for (int i = 0; i < 200; ++i) late.Record(3'000'000);
  s.generator.schedule_lag.Merge(late.Snapshot());
  s.generator.busiest_share = 0.03;
  GeneratorVerdict v = JudgeGenerator(s, true, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_NE(v.reason.find("busy 3% of the time"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("--busy-poll"), std::string::npos) << v.reason;
  v = JudgeGenerator(s, true, kBound, true);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.reason.find("--busy-poll"), std::string::npos) << v.reason;
  s.generator.busiest_share = 0.6;
  v = JudgeGenerator(s, true, kBound, false);
  EXPECT_EQ(v.reason.find("--busy-poll"), std::string::npos) << v.reason;
}

TEST(GeneratorCheckTest, UnsentRequestsAreTheClientsUnlessTheyWaitedForConnections) {
  RunStats s = OpenRun(9'800, 20'000, 200);  // 98% sent.
  GeneratorVerdict v = JudgeGenerator(s, true, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.reason, "sent 98.0% of the planned requests (9800 of 10000)");
  s.late_starts = 300;  // Connections ran out: the server's latency set the pace.
  v = JudgeGenerator(s, true, kBound, false);
  EXPECT_FALSE(v.saturated);
  EXPECT_NE(v.note.find("300 waited for a free connection"), std::string::npos) << v.note;
}

TEST(GeneratorCheckTest, ABusyWorkerIsSaturationInEitherModel) {
  RunStats s;
  s.started = 1000;
  s.generator.busiest_share = 0.97;
  GeneratorVerdict v = JudgeGenerator(s, false, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_NE(v.reason.find("busy 97%"), std::string::npos) << v.reason;
  EXPECT_FALSE(v.planned_sends.has_value());  // Closed model: no schedule.
  s.generator.busiest_share = 0.95;
  EXPECT_FALSE(JudgeGenerator(s, false, kBound, false).saturated);
}

}  // namespace
}  // namespace uringload::core
