#include "core/serve/service_queue.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/testing/text_counts.h"

namespace uringload::core {
namespace {

using test_support::kMs;

TEST(ServiceQueueTest, OneSlotServesArrivalsOneAfterAnother) {
  ServiceQueue queue(1);
  EXPECT_EQ(queue.Admit(0, kMs), 1 * kMs);
  EXPECT_EQ(queue.Admit(0, kMs), 2 * kMs);
  EXPECT_EQ(queue.Admit(0, kMs), 3 * kMs);
  // After the queue emptied, a request starts on arrival.
  EXPECT_EQ(queue.Admit(10 * kMs, kMs), 11 * kMs);
}

TEST(ServiceQueueTest, KSlotsAnswerKPerServiceTime) {
  constexpr uint32_t kSlots = 4;
  ServiceQueue queue(kSlots);
  // 400 requests all at once: they leave in 100 waves of 4, one wave per millisecond.
  std::vector<int64_t> done;
  for (int i = 0; i < 400; ++i) done.push_back(queue.Admit(0, kMs));
  for (int i = 0; i < 400; ++i) EXPECT_EQ(done[i], (i / kSlots + 1) * kMs) << i;
}

TEST(ServiceQueueTest, ServiceTimesMayDifferAndTheFreeSlotTakesTheNext) {
  ServiceQueue queue(2);
  EXPECT_EQ(queue.Admit(0, 5 * kMs), 5 * kMs);
  EXPECT_EQ(queue.Admit(0, 1 * kMs), 1 * kMs);
  EXPECT_EQ(queue.Admit(0, 1 * kMs), 2 * kMs);  // The second slot, free at 1 ms.
  EXPECT_EQ(queue.Admit(0, 1 * kMs), 3 * kMs);
  EXPECT_EQ(queue.Admit(4 * kMs, 2 * kMs), 6 * kMs);  // Free since 3 ms: starts on arrival.
  EXPECT_EQ(queue.Admit(4 * kMs, 1 * kMs), 6 * kMs);  // The first slot, free at 5 ms.
}

TEST(ServiceQueueTest, NoSlotsIsNoLimit) {
  ServiceQueue queue(0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(queue.Admit(7, kMs), 7 + kMs);
}

}  // namespace
}  // namespace uringload::core
