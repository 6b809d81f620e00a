#include "core/link/link_direction.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/testing/text_counts.h"

namespace uringload::core {
namespace {

using test_support::kMs;

// Packets of `bytes` entering every `gap_ns` from time 0; the time each leaves (-1: never).
std::vector<int64_t> Departures(LinkDirection& d, int packets, int64_t gap_ns, uint32_t bytes,
                                std::vector<LinkFate>* fates = nullptr) {
  std::vector<int64_t> left(packets, -1);
  int64_t now = 0;
  auto drain = [&](int64_t until) {
    while (d.NextDue() <= until) {
      now = std::max(now, d.NextDue());
      left[*d.PopDue(now)] = now;
      d.Forwarded(bytes);  // As the loop does once the write completed.
    }
  };
  for (int p = 0; p < packets; ++p) {
    drain(p * gap_ns);
    int copies = 0;
    LinkFate fate = d.Arrive(p, bytes, p * gap_ns, false, &copies);
    if (fate == LinkFate::kSentAtOnce) {
      left[p] = p * gap_ns;
      d.Forwarded(bytes);
    }
    if (fates != nullptr) fates->push_back(fate);
  }
  drain(INT64_MAX - 1);
  return left;
}

// The lateness is how long after its due time each queued packet was taken out: the loop
// woke 0, 1 and 3 ms late for three packets; a packet sent at once is not in it.
TEST(LinkDirectionTest, LatenessIsMeasuredFromEachPacketsDueTime) {
  LinkDirection d({.delay_ns = 10 * kMs}, 1, 16);
  int copies = 0;
  for (uint32_t p = 0; p < 3; ++p) {
    ASSERT_EQ(d.Arrive(p, 100, p * kMs, false, &copies), LinkFate::kQueued);
  }
  EXPECT_EQ(d.PopDue(10 * kMs), 0u);
  EXPECT_EQ(d.PopDue(12 * kMs), 1u);
  EXPECT_EQ(d.PopDue(15 * kMs), 2u);
  HistogramSnapshot late = d.Lateness();
  EXPECT_EQ(late.count, 3u);
  EXPECT_EQ(late.min, 0u);
  EXPECT_EQ(late.max, uint64_t{3 * kMs});
  EXPECT_EQ(late.sum, uint64_t{4 * kMs});
  LinkDirection reorder({.delay_ns = 10 * kMs, .reorder = 1.0}, 1, 16);
  ASSERT_EQ(reorder.Arrive(0, 100, 0, false, &copies), LinkFate::kSentAtOnce);
  EXPECT_EQ(reorder.Lateness().count, 0u);
}

TEST(LinkDirectionTest, DelayAndJitterKeepTheOrder) {
  LinkDirection plain({.delay_ns = 25 * kMs}, 1, 4096);
  std::vector<int64_t> left = Departures(plain, 100, kMs / 10, 100);
  for (int p = 0; p < 100; ++p) EXPECT_EQ(left[p], p * kMs / 10 + 25 * kMs);

  // Packets 20 ms apart: each draws its own delay within 25 +- 5 ms.
  LinkDirection sparse({.delay_ns = 25 * kMs, .jitter_ns = 5 * kMs}, 1, 4096);
  left = Departures(sparse, 500, 20 * kMs, 100);
  int64_t low = INT64_MAX, high = 0;
  for (int p = 0; p < 500; ++p) {
    int64_t delay = left[p] - p * 20 * kMs;
    low = std::min(low, delay);
    high = std::max(high, delay);
  }
  EXPECT_GE(low, 20 * kMs);
  EXPECT_LT(low, 21 * kMs);
  EXPECT_GT(high, 29 * kMs);
  EXPECT_LE(high, 30 * kMs);
  // Packets closer than the jitter: a packet never passes the one before it (it waits).
  LinkDirection dense({.delay_ns = 25 * kMs, .jitter_ns = 5 * kMs}, 1, 4096);
  left = Departures(dense, 1000, kMs / 10, 100);
  for (int p = 1; p < 1000; ++p) EXPECT_GE(left[p], left[p - 1]) << p;
}

TEST(LinkDirectionTest, LossDuplicationAndReorderingAtTheirShares) {
  LinkDirection d({.delay_ns = kMs, .loss = 0.01, .duplicate = 0.02, .reorder = 0.05}, 7, 1 << 20);
  std::vector<LinkFate> fates;
  Departures(d, 200'000, 1000, 100, &fates);
  const LinkCounters& c = d.counters();
  EXPECT_EQ(c.received, 200'000u);
  EXPECT_TRUE(d.Final().AddsUp());
  EXPECT_NEAR(c.lost, 2000.0, 200);  // 1% within 10% (relative).
  EXPECT_NEAR(c.reordered, 0.99 * 0.05 * 200'000, 0.1 * 0.99 * 0.05 * 200'000);
  EXPECT_NEAR(c.duplicated, 0.99 * 0.95 * 0.02 * 200'000, 0.1 * 0.99 * 0.95 * 0.02 * 200'000);
  // The same seed draws the same fates.
  LinkDirection again({.delay_ns = kMs, .loss = 0.01, .duplicate = 0.02, .reorder = 0.05}, 7,
                      1 << 20);
  std::vector<LinkFate> same;
  Departures(again, 200'000, 1000, 100, &same);
  EXPECT_EQ(fates, same);
}

TEST(LinkDirectionTest, TheRateSpacesPacketsAndAFullQueueDropsTheTail) {
  // 1 Mbit/s: a 1250-byte packet takes 10 ms on the wire.
  LinkDirection d({.delay_ns = 0, .rate_bits_per_second = 1'000'000, .queue_packets = 5}, 1, 4096);
  std::vector<LinkFate> fates;
  std::vector<int64_t> left = Departures(d, 10, 0, 1250, &fates);  // A burst of 10.
  // The first is on the wire, five wait: the other four find the queue full.
  for (int p = 0; p < 6; ++p) {
    EXPECT_EQ(fates[p], LinkFate::kQueued) << p;
    EXPECT_EQ(left[p], (p + 1) * 10 * kMs) << p;
  }
  for (int p = 6; p < 10; ++p) EXPECT_EQ(fates[p], LinkFate::kQueueFull) << p;
  EXPECT_EQ(d.counters().queue_dropped, 4u);

  // In bytes: 3000 bytes wait at most.
  LinkDirection bytes({.rate_bits_per_second = 1'000'000, .queue_bytes = 3000}, 1, 4096);
  fates.clear();
  Departures(bytes, 6, 0, 1000, &fates);
  EXPECT_EQ(std::count(fates.begin(), fates.end(), LinkFate::kQueued), 4);  // 1 sent, 3 wait.
}

TEST(LinkDirectionTest, ABlackholeDropsEverything) {
  LinkDirection d({.delay_ns = kMs}, 1, 16);
  int copies = 0;
  EXPECT_EQ(d.Arrive(0, 100, 0, true, &copies), LinkFate::kBlackholed);
  EXPECT_EQ(d.queued(), 0u);
  EXPECT_EQ(d.Arrive(1, 100, 0, false, &copies), LinkFate::kQueued);
  EXPECT_EQ(d.counters().blackholed, 1u);
}

TEST(LinkPlanTest, FlagsParseAndErrorsNameTheFlag) {
  LinkOptions o{.a = "lab-a/tun0", .b = "lab-b/tun0"};
  o.both.delay = "25ms";
  o.both.loss = "1%";
  o.b_to_a.rate = "100mbit";
  o.b_to_a.queue = "150000B";
  absl::StatusOr<LinkPlan> plan = MakeLinkPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->ends[1].netns, "lab-b");
  EXPECT_EQ(plan->shapes[0].delay_ns, 25 * kMs);
  EXPECT_EQ(plan->shapes[1].delay_ns, 25 * kMs);
  EXPECT_DOUBLE_EQ(plan->shapes[0].loss, 0.01);
  EXPECT_EQ(plan->shapes[0].rate_bits_per_second, 0u);
  EXPECT_EQ(plan->shapes[1].rate_bits_per_second, 100'000'000u);
  EXPECT_EQ(plan->shapes[1].queue_bytes, 150'000u);

  struct Bad {
    void (*mutate)(LinkOptions&);
    const char* message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {[](LinkOptions& x) { x.a = "nodevice"; }, "A must be NETNS/DEV"},
           {[](LinkOptions& x) { x.both.delay = "soon"; }, "--delay"},
           {[](LinkOptions& x) { x.a_to_b.loss = "150%"; }, "--a-to-b-loss"},
           {[](LinkOptions& x) { x.both.rate = "100mbps"; }, "--rate must be a rate in bit"},
           {[](LinkOptions& x) { x.both.queue = "0"; }, "--queue must be packets"},
           {[](LinkOptions& x) { x.both.jitter = "30ms"; }, "must not exceed the delay"},
           {[](LinkOptions& x) { x.packets = 1; }, "--packets"},
       }) {
    LinkOptions copy = o;
    bad.mutate(copy);
    absl::StatusOr<LinkPlan> refused = MakeLinkPlan(copy);
    ASSERT_FALSE(refused.ok()) << bad.message;
    EXPECT_NE(refused.status().message().find(bad.message), std::string::npos) << refused.status();
  }
}

}  // namespace
}  // namespace uringload::core
