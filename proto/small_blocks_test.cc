#include "proto/small_blocks.h"

#include <gtest/gtest.h>

#include <cstring>

namespace uringload::proto {
namespace {

TEST(SmallBlocksTest, AGivenBackBlockServesTheNextRequestItsSizeFits) {
  SmallBlocks blocks;
  void* block = blocks.Take(100);
  ASSERT_NE(block, nullptr);
  blocks.GiveBack(block);
  EXPECT_EQ(blocks.kept(), 1u);
  EXPECT_EQ(blocks.Take(90), block);  // The same list: at least 104 usable bytes.
  EXPECT_EQ(blocks.kept(), 0u);
  blocks.GiveBack(block);
  void* larger = blocks.Take(400);  // Too large for the kept one: a new block.
  EXPECT_NE(larger, block);
  EXPECT_EQ(blocks.from_allocator(), 2u);
  EXPECT_EQ(blocks.kept(), 1u);
  blocks.GiveBack(larger);
  EXPECT_EQ(blocks.Take(400), larger);
  EXPECT_EQ(blocks.from_allocator(), 2u);
  blocks.GiveBack(larger);
}

TEST(SmallBlocksTest, LargeBlocksAndNullGoStraightBack) {
  SmallBlocks blocks;
  void* large = blocks.Take(SmallBlocks::kMaxKeptBytes + 1);
  ASSERT_NE(large, nullptr);
  blocks.GiveBack(large);
  blocks.GiveBack(nullptr);
  EXPECT_EQ(blocks.kept(), 0u);
}

TEST(SmallBlocksTest, ResizeKeepsTheContents) {
  SmallBlocks blocks;
  auto* block = static_cast<char*>(blocks.Resize(nullptr, 10));  // As realloc(nullptr, n).
  ASSERT_NE(block, nullptr);
  std::memcpy(block, "abcdefghi", 10);
  EXPECT_EQ(blocks.Resize(block, 20), block);  // Fits the block's usable size: unchanged.
  auto* grown = static_cast<char*>(blocks.Resize(block, 2000));
  ASSERT_NE(grown, nullptr);
  EXPECT_STREQ(grown, "abcdefghi");
  EXPECT_EQ(blocks.kept(), 1u);  // The old block, for the next small request.
  blocks.GiveBack(grown);
}

}  // namespace
}  // namespace uringload::proto
