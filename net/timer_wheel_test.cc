#include "net/timer_wheel.h"

#include <gtest/gtest.h>

#include <vector>

namespace uringload::net {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(TimerWheelTest, ExpiresInDeadlineOrderAcrossTicks) {
  TimerWheel wheel(0);
  std::vector<TimerNode> nodes(3);
  wheel.Schedule(&nodes[0], 5 * kMs);
  wheel.Schedule(&nodes[1], 2 * kMs);
  wheel.Schedule(&nodes[2], 9 * kMs);
  std::vector<TimerNode*> fired;
  auto collect = [&](TimerNode* n) { fired.push_back(n); };
  wheel.Advance(1 * kMs, collect);
  EXPECT_TRUE(fired.empty());
  wheel.Advance(5 * kMs, collect);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0], &nodes[1]);
  EXPECT_EQ(fired[1], &nodes[0]);
  EXPECT_FALSE(nodes[0].scheduled());
  EXPECT_EQ(wheel.size(), 1u);
  wheel.Advance(100 * kMs, collect);
  EXPECT_EQ(fired.size(), 3u);
  EXPECT_EQ(wheel.size(), 0u);
}

// How long a loop may sleep: to the earliest deadline inside the span, to the nanosecond
// (not a tick later), and the span's end when none is inside it, even with a deadline of the
// next revolution in the same slot.
TEST(TimerWheelTest, TheEarliestDeadlineWithinASpan) {
  TimerWheel wheel(0);
  EXPECT_EQ(wheel.EarliestWithin(0, kMs), kMs);
  std::vector<TimerNode> nodes(3);
  wheel.Schedule(&nodes[0], kMs + 300'000);
  wheel.Schedule(&nodes[1], kMs + 250'000 + TimerWheel::kSlots * TimerWheel::kTickNs);
  EXPECT_EQ(wheel.EarliestWithin(900'000, kMs), kMs + 300'000);
  EXPECT_EQ(wheel.EarliestWithin(0, kMs), kMs);  // Past the span.
  wheel.Schedule(&nodes[2], 100);
  EXPECT_EQ(wheel.EarliestWithin(0, kMs), 100);
  wheel.Cancel(&nodes[0]);
  wheel.Cancel(&nodes[2]);
  EXPECT_EQ(wheel.EarliestWithin(900'000, kMs), 1'900'000);  // Only the far one is left.
}

TEST(TimerWheelTest, CancelAndReschedule) {
  TimerWheel wheel(0);
  TimerNode a, b;
  wheel.Schedule(&a, 3 * kMs);
  wheel.Schedule(&b, 3 * kMs);
  wheel.Cancel(&a);
  wheel.Schedule(&b, 50 * kMs);  // Moves, does not duplicate.
  EXPECT_EQ(wheel.size(), 1u);
  int fired = 0;
  wheel.Advance(10 * kMs, [&](TimerNode*) { ++fired; });
  EXPECT_EQ(fired, 0);
  wheel.Advance(50 * kMs, [&](TimerNode*) { ++fired; });
  EXPECT_EQ(fired, 1);
}

TEST(TimerWheelTest, DeadlinesBeyondOneRevolutionWaitTheirTurn) {
  TimerWheel wheel(0);
  TimerNode far;
  int64_t deadline = (TimerWheel::kSlots + 10) * kMs;  // Same slot as tick 10.
  wheel.Schedule(&far, deadline);
  int fired = 0;
  wheel.Advance(20 * kMs, [&](TimerNode*) { ++fired; });
  EXPECT_EQ(fired, 0);
  wheel.Advance(deadline - 1, [&](TimerNode*) { ++fired; });
  EXPECT_EQ(fired, 0);
  wheel.Advance(deadline, [&](TimerNode*) { ++fired; });
  EXPECT_EQ(fired, 1);
}

TEST(TimerWheelTest, PastDeadlineFiresOnNextAdvanceAndCallbackMayReschedule) {
  TimerWheel wheel(100 * kMs);
  TimerNode node;
  wheel.Schedule(&node, 1 * kMs);
  int fired = 0;
  wheel.Advance(100 * kMs, [&](TimerNode* n) {
    if (++fired == 1) wheel.Schedule(n, 200 * kMs);
  });
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(node.scheduled());
  wheel.Advance(10'000 * kMs, [&](TimerNode*) { ++fired; });  // Long sleep: one revolution.
  EXPECT_EQ(fired, 2);
}

// A connection's two timers due in the same tick: the first one's callback closes the
// connection and cancels the second, which then never fires (and the walk survives it).
TEST(TimerWheelTest, ACallbackMayCancelAnotherDueNode) {
  TimerWheel wheel(0);
  std::vector<TimerNode> nodes(3);
  for (TimerNode& n : nodes) wheel.Schedule(&n, 2 * kMs);
  std::vector<TimerNode*> fired;
  wheel.Advance(2 * kMs, [&](TimerNode* n) {
    fired.push_back(n);
    if (n == &nodes[0]) wheel.Cancel(&nodes[1]);
  });
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0], &nodes[0]);
  EXPECT_EQ(fired[1], &nodes[2]);
  EXPECT_FALSE(nodes[1].scheduled());
  EXPECT_EQ(wheel.size(), 0u);
}

// A callback that schedules its node in the past again (QUIC's expiry while its send is in
// flight) fires it once per Advance of the same tick, not in a loop.
TEST(TimerWheelTest, ANodeScheduledInThePastDoesNotFireInALoop) {
  TimerWheel wheel(0);
  TimerNode node;
  wheel.Schedule(&node, 1 * kMs);
  int fired = 0;
  auto again = [&](TimerNode* n) {
    ++fired;
    wheel.Schedule(n, 0);
  };
  wheel.Advance(1 * kMs, again);
  EXPECT_EQ(fired, 1);
  wheel.Advance(1 * kMs, again);
  EXPECT_EQ(fired, 2);
  EXPECT_EQ(wheel.size(), 1u);
}

}  // namespace
}  // namespace uringload::net
