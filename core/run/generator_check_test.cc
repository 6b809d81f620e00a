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
  EXPECT_TRUE(v.late_wake_ups);
  v = JudgeGenerator(s, true, kBound, true);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.reason.find("--busy-poll"), std::string::npos) << v.reason;
  EXPECT_FALSE(v.late_wake_ups);
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

// A worker that waited for a CPU over a tenth of its run (and over 20 ms) starved: in either
// model, and its requests that waited for a connection are no longer the server's doing.
TEST(GeneratorCheckTest, AWorkerThatWaitedForACpuIsSaturated) {
  RunStats s = OpenRun(8'800, 20'000, 91'200);  // Sent 8.8% of the plan.
  s.late_starts = 80'000;
  s.generator.workers = 1;
  s.generator.cpus = "0";
  s.generator.cpu_count = 1;
  s.generator.run_queue_longest_ns = 2'610'000'000;
  s.generator.run_queue_share = 0.87;
  GeneratorVerdict v = JudgeGenerator(s, true, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.note, "");
  EXPECT_EQ(v.reason.find("raise -c"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("a worker waited 2.61 s for a CPU, 87% of its run: another process "
                          "ran on CPU 0"),
            std::string::npos)
      << v.reason;
  EXPECT_NE(v.reason.find("sent 8.8% of the planned requests"), std::string::npos) << v.reason;
  EXPECT_TRUE(JudgeGenerator(s, false, kBound, true).saturated);  // Closed, busy-polling.

  s.generator.workers = 4;
  s.generator.cpus = "0-1";
  s.generator.cpu_count = 2;
  v = JudgeGenerator(s, false, kBound, false);
  EXPECT_NE(v.reason.find("its 4 workers share CPUs 0-1"), std::string::npos) << v.reason;

  s.generator.run_queue_share = 0.10;  // The rule's bound is not over it.
  EXPECT_EQ(JudgeGenerator(s, false, kBound, false).reason, "");
  s.generator.run_queue_share = 0.5;
  s.generator.run_queue_longest_ns = 20'000'000;  // Half of a 40 ms run: start-up noise.
  EXPECT_FALSE(JudgeGenerator(s, false, kBound, false).saturated);
}

TEST(GeneratorCheckTest, ACgroupThatThrottledTheClientSaturatedIt) {
  RunStats s;
  s.started = 1000;
  s.generator.throttled_ns = 1'200'000'000;
  s.generator.throttled_periods = 30;
  s.generator.throttled_share = 0.4;
  s.generator.throttled_cgroup = "/sys/fs/cgroup/ci";
  GeneratorVerdict v = JudgeGenerator(s, false, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_EQ(v.reason,
            "the CPU quota of cgroup /sys/fs/cgroup/ci throttled the client for 1.20 s, 40% of the "
            "run (30 periods)");
  // Throttled tasks wait in the run queue too: no other process is blamed for that wait.
  s.generator.workers = 1;
  s.generator.cpus = "0";
  s.generator.cpu_count = 1;
  s.generator.run_queue_longest_ns = 1'300'000'000;
  s.generator.run_queue_share = 0.45;
  EXPECT_EQ(JudgeGenerator(s, false, kBound, false).reason.find("another process"),
            std::string::npos);
  s.generator.run_queue_share = 0.6;  // A wait beyond the throttling is someone else's.
  EXPECT_NE(JudgeGenerator(s, false, kBound, false).reason.find("another process"),
            std::string::npos);
  s.generator.run_queue_share = 0;
  s.generator.throttled_share = 0.05;
  EXPECT_FALSE(JudgeGenerator(s, false, kBound, false).saturated);
}

// Responses that waited unread for their worker over a tenth of its run (and over 20 ms)
// saturate it whatever kept the worker away, seen or not (a hypervisor's stolen time shows
// in no run queue); its requests that waited for a connection are not the server's doing.
TEST(GeneratorCheckTest, ResponsesLeftUnreadSaturateTheClient) {
  RunStats s = OpenRun(8'800, 20'000, 91'200);
  s.late_starts = 80'000;
  s.generator.unread_ns = 2'310'000'000;
  s.generator.unread_longest_ns = 120'000'000;
  s.generator.unread_share = 0.77;
  GeneratorVerdict v = JudgeGenerator(s, true, kBound, false);
  EXPECT_TRUE(v.saturated);
  EXPECT_TRUE(v.causes[static_cast<size_t>(SaturationCause::kUnread)]);
  EXPECT_EQ(v.note, "");
  EXPECT_EQ(v.reason.find("raise -c"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("responses waited unread 2.31 s, 77% of a worker's run, up to 120 ms "
                          "at a time"),
            std::string::npos)
      << v.reason;
  EXPECT_TRUE(JudgeGenerator(s, false, kBound, true).saturated);  // Closed, busy-polling.

  s.generator.unread_share = 0.10;  // The rule's bound is not over it.
  v = JudgeGenerator(s, true, kBound, false);
  EXPECT_FALSE(v.causes[static_cast<size_t>(SaturationCause::kUnread)]);
  EXPECT_NE(v.note.find("raise -c"), std::string::npos) << v.note;
  s.generator.unread_share = 0.5;
  s.generator.unread_ns = 20'000'000;  // Half of a 40 ms run: start-up noise.
  EXPECT_FALSE(JudgeGenerator(s, false, kBound, false).saturated);
}

}  // namespace
}  // namespace uringload::core
