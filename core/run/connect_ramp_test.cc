#include "core/run/connect_ramp.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

TEST(ConnectRampTest, AdmitsAtMostNAndReleasesInFifoOrder) {
  ConnectRamp ramp(2, 5);
  EXPECT_TRUE(ramp.TryAdmit());
  EXPECT_TRUE(ramp.TryAdmit());
  EXPECT_FALSE(ramp.TryAdmit());
  for (uint32_t slot : {7u, 8u, 9u}) ramp.Enqueue(slot);
  uint32_t slot = 0;
  EXPECT_FALSE(ramp.PopAdmitted(&slot));
  ramp.Release();
  ASSERT_TRUE(ramp.PopAdmitted(&slot));
  EXPECT_EQ(slot, 7u);
  EXPECT_FALSE(ramp.PopAdmitted(&slot));
  ramp.Release();
  ramp.Release();
  ASSERT_TRUE(ramp.PopAdmitted(&slot));
  EXPECT_EQ(slot, 8u);
  ASSERT_TRUE(ramp.PopAdmitted(&slot));
  EXPECT_EQ(slot, 9u);
  EXPECT_EQ(ramp.in_flight(), 2u);
  EXPECT_EQ(ramp.queued(), 0u);
}

}  // namespace
}  // namespace uringload::core
