#include "core/run/batch_policy.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

constexpr int64_t kUs = 1000;

// Half of the connections carrying requests, 1 to 64; -p counts per connection.
TEST(BatchPolicyTest, TargetIsHalfTheBusyConnections) {
  BatchPolicy plain(1, 200 * kUs, 200 * kUs);
  EXPECT_EQ(plain.Target(0), 1u);
  EXPECT_EQ(plain.Target(100), 50u);
  EXPECT_EQ(plain.Target(10'000), 64u);
  BatchPolicy pipelined(16, 200 * kUs, 400 * kUs);
  EXPECT_EQ(pipelined.Target(1600), 50u);  // 100 connections of 16.
  BatchPolicy none(16, 0, 0);              // --batch-window 0: every completion wakes.
  EXPECT_EQ(none.Target(1600), 1u);
  EXPECT_FALSE(none.Trickling());
}

// 20 connections over a 10 ms round trip complete 2 requests a millisecond: fewer than one
// within a 200 us window, so the worker wakes for each; over loopback (100 us) it batches.
TEST(BatchPolicyTest, LessThanOneCompletionPerWindowWakesForEach) {
  BatchPolicy policy(1, 25 * kUs, 200 * kUs);
  EXPECT_EQ(policy.Target(20), 10u);  // No latency seen yet.
  for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) {
    policy.CountLatency(10'000 * kUs);
    policy.CountDrain(1);
  }
  EXPECT_EQ(policy.window_ns(), 200 * kUs);
  EXPECT_TRUE(policy.Sparse(20));
  EXPECT_EQ(policy.Target(20), 1u);  // 20 x 200 us = 4 ms < 10 ms.
  EXPECT_FALSE(policy.Sparse(100));
  EXPECT_EQ(policy.Target(100), 50u);  // 100 x 200 us = 20 ms: 2 completions a window.
  BatchPolicy loopback(1, 25 * kUs, 200 * kUs);
  for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) {
    loopback.CountLatency(100 * kUs);
    loopback.CountDrain(1);
  }
  EXPECT_EQ(loopback.Target(20), 10u);  // 20 x 25 us = 500 us > 100 us.
  EXPECT_FALSE(loopback.Sparse(20));
  BatchPolicy none(1, 0, 0);  // --batch-window 0 never batches: nothing to call sparse.
  for (uint32_t i = 0; i < BatchPolicy::kLatencyWindow; ++i) none.CountLatency(10'000 * kUs);
  EXPECT_FALSE(none.Sparse(20));
}

// A server that answers each burst with one send gives about p/2 per drain: no trickle. One
// that writes each response on its own gives about one: a trickle, after a full window.
TEST(BatchPolicyTest, TricklingFollowsTheResponsesPerDrain) {
  BatchPolicy policy(16, 200 * kUs, 400 * kUs);
  EXPECT_FALSE(policy.Trickling());  // Starts at p/2.
  for (uint32_t i = 0; i + 1 < BatchPolicy::kYieldWindow; ++i) policy.CountDrain(1);
  EXPECT_FALSE(policy.Trickling());  // Not before the window is full.
  policy.CountDrain(1);
  EXPECT_TRUE(policy.Trickling());
  for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) policy.CountDrain(4);  // p/4: not below.
  EXPECT_FALSE(policy.Trickling());
  BatchPolicy plain(1, 200 * kUs, 200 * kUs);  // Without -p there is nothing to trickle.
  for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) plain.CountDrain(1);
  EXPECT_FALSE(plain.Trickling());
}

// The window follows a quarter of the mean latency, between the plan's two bounds.
TEST(BatchPolicyTest, WindowIsAQuarterOfTheLatencyWithinItsBounds) {
  BatchPolicy policy(16, 200 * kUs, 400 * kUs);
  EXPECT_EQ(policy.window_ns(), 200 * kUs);
  auto window_after = [&](int64_t latency_ns) {
    for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) {
      policy.CountLatency(latency_ns);
      policy.CountDrain(8);
    }
    return policy.window_ns();
  };
  EXPECT_EQ(window_after(1200 * kUs), 300 * kUs);
  EXPECT_EQ(window_after(100 * kUs), 200 * kUs);     // Not below the shortest.
  EXPECT_EQ(window_after(10'000 * kUs), 400 * kUs);  // Nor above the longest.
  // A window without answered requests keeps the last one.
  for (uint32_t i = 0; i < BatchPolicy::kYieldWindow; ++i) policy.CountDrain(8);
  EXPECT_EQ(policy.window_ns(), 400 * kUs);
}

}  // namespace
}  // namespace uringload::core
