#include "core/run/request_source.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace uringload::core {
namespace {

TEST(RequestSourceTest, EveryIndexExactlyOnceAcrossThreads) {
  constexpr uint64_t kN = 100'003;
  RequestSource source(kN);
  std::vector<std::vector<uint8_t>> seen(4, std::vector<uint8_t>(kN));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      RequestCursor cursor(&source, 7);
      uint64_t index;
      while (cursor.Next(&index)) seen[t][index]++;
    });
  }
  for (std::thread& t : threads) t.join();
  for (uint64_t i = 0; i < kN; ++i) {
    EXPECT_EQ(seen[0][i] + seen[1][i] + seen[2][i] + seen[3][i], 1) << i;
  }
}

TEST(RequestSourceTest, UnboundedSourceKeepsGoingAndCursorStaysExhausted) {
  RequestSource unbounded(std::nullopt);
  RequestCursor cursor(&unbounded, 64);
  uint64_t index = 0;
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(cursor.Next(&index));
  EXPECT_EQ(index, 999u);

  RequestSource one(1);
  RequestCursor a(&one, 64);
  EXPECT_TRUE(a.Next(&index));
  EXPECT_EQ(index, 0u);
  EXPECT_FALSE(a.Next(&index));
  EXPECT_FALSE(a.Next(&index));
}

}  // namespace
}  // namespace uringload::core
