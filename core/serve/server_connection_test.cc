// The pending-response queue of a server connection: two entries inline, grown once to
// kMaxPipelined, in order across the growth and the ring's wrap.
#include "core/serve/server_connection.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

TEST(PendingQueueTest, StaysInlineForTwoAndKeepsOrderWhenItGrowsAcrossTheWrap) {
  ServerConnection c;
  c.Push().ready_at_ns = 1;
  c.Push().ready_at_ns = 2;
  EXPECT_EQ(c.pending, c.inline_pending);
  EXPECT_EQ(c.deep_pending, nullptr);
  c.Pop();
  c.Push().ready_at_ns = 3;  // Wraps inside the two inline entries: [3, 2], head at 1.
  c.Push().ready_at_ns = 4;  // The third in flight: grows.
  EXPECT_EQ(c.pending, c.deep_pending.get());
  for (int64_t want = 2; want <= 4; ++want) {
    ASSERT_GT(c.count, 0);
    EXPECT_EQ(c.Head().ready_at_ns, want);
    c.Pop();
  }
  EXPECT_EQ(c.count, 0);
}

TEST(PendingQueueTest, HoldsExactlyMaxPipelinedInOrder) {
  ServerConnection c;
  for (int i = 0; i < ServerConnection::kMaxPipelined; ++i) c.Push().ready_at_ns = i;
  EXPECT_TRUE(c.Full());
  for (int round = 0; round < 40; ++round) {  // Around the ring a few times.
    EXPECT_EQ(c.Head().ready_at_ns, round);
    c.Pop();
    c.Push().ready_at_ns = round + ServerConnection::kMaxPipelined;
  }
}

}  // namespace
}  // namespace uringload::core
