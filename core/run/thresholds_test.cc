#include "core/run/thresholds.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace uringload::core {
namespace {

RunStats Sample() {
  WorkerStats stats;
  for (int i = 0; i < 100; ++i) {
    stats.RequestStarted();
    if (i < 98) {
      stats.RequestSucceeded(200, (i + 1) * 1'000'000ull);  // 1..98 ms.
    } else {
      stats.RequestFailed(Outcome::kTimeout);
    }
  }
  return stats.Snapshot();
}

bool Fails(const std::string& expr, const RunStats& s, absl::Duration d = absl::Seconds(10)) {
  absl::StatusOr<Threshold> t = ParseThreshold(expr);
  EXPECT_TRUE(t.ok()) << expr << ": " << t.status();
  return EvaluateThresholds({*t}, s, d)[0].failed;
}

TEST(ThresholdsTest, EachMeasureIsComparedWithItsValue) {
  RunStats s = Sample();
  EXPECT_TRUE(Fails("p99>90ms", s));
  EXPECT_FALSE(Fails("p99>120ms", s));
  EXPECT_TRUE(Fails("p50 > 40ms", s));
  EXPECT_FALSE(Fails("p50>60ms", s));
  EXPECT_TRUE(Fails("max>=98ms", s));
  EXPECT_TRUE(Fails("error_rate>1%", s));  // 2 of 100.
  EXPECT_FALSE(Fails("error_rate>0.05", s));
  EXPECT_TRUE(Fails("success_rate<99%", s));
  EXPECT_TRUE(Fails("rps<11", s));  // 100 in 10 s.
  EXPECT_FALSE(Fails("rps<9", s));
  EXPECT_TRUE(Fails("ok<99", s));
  EXPECT_FALSE(Fails("ok<98", s));
  EXPECT_TRUE(Fails("timeout>0", s));
  EXPECT_FALSE(Fails("reset>0", s));
  EXPECT_TRUE(Fails("errors>=2", s));
}

TEST(ThresholdsTest, ALatencyWithoutAnyOkResponseFails) {
  WorkerStats stats;
  stats.RequestStarted();
  stats.RequestFailed(Outcome::kConnectError, ECONNREFUSED);
  std::vector<ThresholdResult> r =
      EvaluateThresholds({*ParseThreshold("p99>1s")}, stats.Snapshot(), absl::Seconds(1));
  EXPECT_TRUE(r[0].failed);
  EXPECT_FALSE(r[0].value.has_value());
}

TEST(ThresholdsTest, BadExpressionsSayWhatIsWrong) {
  for (const char* bad : {"p99", "p98>1ms", "p99>250", "p99>fast", "error_rate>150%", "rps<-1",
                          "ok<", ">5", "latency>1s"}) {
    absl::StatusOr<Threshold> t = ParseThreshold(bad);
    EXPECT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find(bad), std::string::npos) << t.status();
  }
}

// Each histogram of the table has the latency's statistics: ttfb.p99, head.max, connect.p50.
TEST(ThresholdsTest, EachHistogramHasItsStatistics) {
  WorkerStats stats;
  for (int i = 1; i <= 100; ++i) {
    stats.RequestSucceeded(200, i * 2'000'000ull);
    stats.ResponseArrived(i * 1'000'000ull, i * 1'500'000ull);  // Head 1..100 ms, body 1.5..150.
  }
  stats.Connected(3'000'000);
  RunStats s = stats.Snapshot();
  EXPECT_TRUE(Fails("ttfb.p99>140ms", s));
  EXPECT_FALSE(Fails("ttfb.p99>160ms", s));
  EXPECT_TRUE(Fails("head.max>=99ms", s));
  EXPECT_FALSE(Fails("head.p50>60ms", s));
  EXPECT_TRUE(Fails("connect.p50>2ms", s));
  EXPECT_TRUE(Fails("p99>190ms", s));  // The request latency stays the plain name's.
  // Nothing measured (no TLS here) fails, as a latency without an ok response does.
  std::vector<ThresholdResult> r =
      EvaluateThresholds({*ParseThreshold("tls_handshake.p99>1s")}, s, absl::Seconds(1));
  EXPECT_TRUE(r[0].failed);
  EXPECT_FALSE(r[0].value.has_value());
  for (const char* bad :
       {"ttfb.p98>1ms", "ttfb>1ms", "ttfx.p99>1ms", "ttfb.p99>50", "ttfb.p99{target=login}>1ms"}) {
    absl::StatusOr<Threshold> t = ParseThreshold(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
  EXPECT_NE(ParseThreshold("ttfb>1ms")
                .status()
                .message()
                .find("head ttfb first_event event_gap ttft itl tpot connect"),
            std::string::npos);
}

// Two targets: "fast" (1 ms, all ok) and "slow" (100 ms, a tenth timed out).
TEST(ThresholdsTest, AThresholdMayNameOneTarget) {
  WorkerStats stats(/*targets=*/2, /*open_model=*/false, /*target_of=*/{0, 1});
  for (int i = 0; i < 100; ++i) {
    stats.RequestStarted();
    stats.RequestSucceeded(200, 1'000'000, 0, 0);
    stats.RequestStarted();
    if (i % 10 == 0) {
      stats.RequestFailed(Outcome::kTimeout, 0, 1);
    } else {
      stats.RequestSucceeded(200, 100'000'000, 0, 1);
    }
  }
  RunStats s = stats.Snapshot();
  std::vector<std::string> names = {"fast", "slow"};
  auto fails = [&](const std::string& expr) {
    absl::StatusOr<Threshold> t = ParseThreshold(expr);
    EXPECT_TRUE(t.ok()) << expr << ": " << t.status();
    EXPECT_TRUE(CheckThresholdTargets({*t}, names).ok()) << expr;
    return EvaluateThresholds({*t}, s, absl::Seconds(10), names)[0].failed;
  };
  EXPECT_FALSE(fails("p99{target=fast}>2ms"));
  EXPECT_TRUE(fails("p99{target=slow}>2ms"));
  EXPECT_TRUE(fails("p99>2ms"));  // The run's.
  EXPECT_FALSE(fails("error_rate{target=fast}>0"));
  EXPECT_TRUE(fails("error_rate{target=slow}>=10%"));
  EXPECT_TRUE(fails("rps{target=fast}>=10"));  // 100 in 10 s.
  absl::StatusOr<Threshold> other = ParseThreshold("p99{target=login}<1s");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(CheckThresholdTargets({*other}, names).message(),
            "--fail-if 'p99{target=login}<1s': no target named 'login' (targets: fast, slow)");
  EXPECT_EQ(CheckThresholdTargets({*other}, {}).message(),
            "--fail-if 'p99{target=login}<1s': names a target, which needs --targets");
  for (const char* bad :
       {"p99{target=}<1s", "p99{name=a}<1s", "p99{target=a<1s", "late_starts{target=a}>0"}) {
    EXPECT_FALSE(ParseThreshold(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace uringload::core
