#include "core/run/round_trip_bound.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

// A closed run of `requests` 64 KiB responses: every connect took `connect_us`, the fastest
// request `fastest_us` and the others `typical_us`.
RunStats ClosedRun(uint64_t requests, uint64_t connect_us, uint64_t fastest_us,
                   uint64_t typical_us) {
  RunStats s;
  s.started = requests;
  s.outcomes[static_cast<size_t>(Outcome::kOk)] = requests;
  s.bytes_received = requests * 65536;
  LatencyHistogram connect, latency;
  for (int i = 0; i < 4; ++i) connect.Record(connect_us * 1000);
  latency.Record(fastest_us * 1000);
  for (uint64_t i = 1; i < requests; ++i) latency.Record(typical_us * 1000);
  s.connect = connect.Snapshot();
  s.latency = latency.Snapshot();
  return s;
}

TEST(RoundTripBoundTest, FewConnectionsOverALongRoundTripAreBoundByIt) {
  // 2 connections, 50 ms round trip, 75 ms per request: 2 x 64 KiB per 50 ms at most.
  RunStats s = ClosedRun(266, 50'000, 74'000, 75'000);
  std::optional<RoundTripBound> r = JudgeRoundTrip(s, 2, 1, absl::Seconds(10));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->bound);
  EXPECT_NEAR(absl::ToDoubleMilliseconds(r->round_trip), 50, 0.5);
  EXPECT_DOUBLE_EQ(r->in_flight_bytes_per_connection, 65536);
  EXPECT_NEAR(r->ceiling_bytes_per_second, 2 * 65536 / 0.050, 0.01 * 2 * 65536 / 0.050);
  EXPECT_DOUBLE_EQ(r->bytes_per_second, 266 * 65536 / 10.0);
}

TEST(RoundTripBoundTest, APipelineCarriesMorePerConnection) {
  RunStats s = ClosedRun(266, 50'000, 74'000, 75'000);
  std::optional<RoundTripBound> r = JudgeRoundTrip(s, 2, 4, absl::Seconds(10));
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->in_flight_bytes_per_connection, 4 * 65536);
}

TEST(RoundTripBoundTest, AFullLinkOrASlowServerIsNotTheRoundTrip) {
  // The link is full: requests queue on it, 130 ms typically against the fastest 84 ms.
  EXPECT_FALSE(
      JudgeRoundTrip(ClosedRun(1000, 50'000, 84'000, 130'000), 24, 1, absl::Seconds(10))->bound);
  // A server that takes 100 ms behind a 1 ms round trip: the server's time, not the path's.
  EXPECT_FALSE(
      JudgeRoundTrip(ClosedRun(1000, 1'000, 101'000, 101'000), 10, 1, absl::Seconds(10))->bound);
  // Loopback: a 30 us connect is the machine, not a path, even before a 35 us request.
  EXPECT_FALSE(JudgeRoundTrip(ClosedRun(1000, 30, 35, 35), 1, 1, absl::Seconds(10))->bound);
}

TEST(RoundTripBoundTest, TheFastestConnectIsTheRoundTrip) {
  // Most SYNs were lost once and resent after a second: the path is still 50 ms.
  RunStats s = ClosedRun(1000, 50'000, 55'000, 55'000);
  LatencyHistogram connect;
  connect.Record(50'000'000);
  for (int i = 0; i < 9; ++i) connect.Record(1'050'000'000);
  s.connect = connect.Snapshot();
  std::optional<RoundTripBound> r = JudgeRoundTrip(s, 10, 1, absl::Seconds(10));
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(absl::ToDoubleMilliseconds(r->round_trip), 50, 0.5);
  EXPECT_TRUE(r->bound);
}

TEST(RoundTripBoundTest, NothingToGoByIsNoJudgement) {
  EXPECT_FALSE(JudgeRoundTrip(RunStats{}, 2, 1, absl::Seconds(1)).has_value());
  RunStats no_connect = ClosedRun(10, 50'000, 55'000, 55'000);
  no_connect.connect = HistogramSnapshot{};
  EXPECT_FALSE(JudgeRoundTrip(no_connect, 2, 1, absl::Seconds(1)).has_value());
  EXPECT_FALSE(JudgeRoundTrip(ClosedRun(10, 50'000, 55'000, 55'000), 2, 1, absl::ZeroDuration())
                   .has_value());
}

}  // namespace
}  // namespace uringload::core
