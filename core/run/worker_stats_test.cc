#include "core/run/worker_stats.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace uringload::core {
namespace {

TEST(WorkerStatsTest, SnapshotAndMergeCountEverything) {
  WorkerStats a, b;
  for (int i = 0; i < 3; ++i) a.RequestStarted();
  a.RequestSucceeded(200, 1000);
  a.RequestFailed(Outcome::kConnectError, ECONNREFUSED);
  b.RequestStarted();
  b.RequestFailed(Outcome::kTimeout);
  b.ConnectionOpened();
  b.ConnectionOpened();
  b.ConnectionClosed();
  b.BytesSent(10);
  b.BytesReceived(20);
  RunStats merged = a.Snapshot();
  merged.Merge(b.Snapshot());
  EXPECT_EQ(merged.started, 4u);
  EXPECT_EQ(merged.completed(), 3u);
  EXPECT_EQ(merged.in_flight(), 1u);
  EXPECT_EQ(merged.outcome(Outcome::kOk), 1u);
  EXPECT_EQ(merged.outcome(Outcome::kTimeout), 1u);
  EXPECT_EQ(merged.causes[size_t(Outcome::kConnectError)][ECONNREFUSED], 1u);
  EXPECT_EQ(merged.causes[size_t(Outcome::kTimeout)][0], 1u);
  EXPECT_EQ(merged.status_codes[200], 1u);
  EXPECT_EQ(merged.connections_opened, 2u);
  EXPECT_EQ(merged.connections_open, 1u);
  EXPECT_EQ(merged.connections_peak, 2u);
  EXPECT_EQ(merged.bytes_sent, 10u);
  EXPECT_EQ(merged.bytes_received, 20u);
  EXPECT_EQ(merged.latency.count, 1u);
}

}  // namespace
}  // namespace uringload::core
