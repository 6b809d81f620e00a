#include "core/wake_margin.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

TEST(WakeMarginTest, StartsAtZeroAndLearnsTheLargestOvershootOfAWindow) {
  WakeMargin margin;
  EXPECT_EQ(margin.ns(), 0);
  for (uint32_t i = 0; i + 1 < WakeMargin::kWindow; ++i) margin.Observe(i == 3 ? 70'000 : 5'000);
  EXPECT_EQ(margin.ns(), 0);  // The window is not full yet.
  margin.Observe(1'000);
  EXPECT_EQ(margin.ns(), 70'000);
}

TEST(WakeMarginTest, FollowsAMachineThatWakesFasterAndIsCapped) {
  WakeMargin margin;
  for (uint32_t i = 0; i < WakeMargin::kWindow; ++i) margin.Observe(10'000'000);
  EXPECT_EQ(margin.ns(), WakeMargin::kMaxNs);  // Beyond it, lag is reported, not polled away.
  for (uint32_t i = 0; i < WakeMargin::kWindow; ++i) margin.Observe(4'000);
  EXPECT_EQ(margin.ns(), 4'000);
}

TEST(WakeMarginTest, PollsAtMostAQuarterOfTheTimeBetweenSends) {
  WakeMargin margin(/*send_interval_ns=*/200'000);
  for (uint32_t i = 0; i < WakeMargin::kWindow; ++i) margin.Observe(80'000);
  EXPECT_EQ(margin.ns(), 50'000);
}

}  // namespace
}  // namespace uringload::core
