#include "proto/small_blocks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace uringload::proto {
namespace {

// A range is given explicitly: under ASan the default has none.
constexpr size_t kRange = 64 * SmallBlocks::kSlabBytes;

TEST(SmallBlocksTest, AGivenBackBlockServesTheNextRequestOfItsClass) {
  SmallBlocks blocks(kRange);
  void* block = blocks.Take(100);  // Class 97 to 112 bytes.
  ASSERT_NE(block, nullptr);
  blocks.GiveBack(block);
  EXPECT_EQ(blocks.kept(), 1u);
  EXPECT_EQ(blocks.Take(112), block);
  EXPECT_EQ(blocks.kept(), 0u);
  blocks.GiveBack(block);
  void* other = blocks.Take(96);  // The class below: a block of its own.
  EXPECT_NE(other, block);
  EXPECT_EQ(blocks.made(), 2u);
  EXPECT_EQ(blocks.kept(), 1u);
  blocks.GiveBack(other);
  EXPECT_EQ(blocks.Take(90), other);
  EXPECT_EQ(blocks.Take(97), block);
  EXPECT_EQ(blocks.made(), 2u);
  EXPECT_EQ(blocks.slabs(), 2u);  // A slab per class.
}

// Every block of a class is 16-byte aligned, apart from the others and writable to its size;
// a class's slab used up, the next one is committed.
TEST(SmallBlocksTest, CarvedBlocksAreAlignedDisjointAndWholeAcrossSlabs) {
  SmallBlocks blocks(kRange);
  constexpr size_t kSize = 48;
  constexpr size_t kCount = 3 * (SmallBlocks::kSlabBytes / kSize);  // Three slabs in full.
  std::vector<unsigned char*> taken;
  for (size_t i = 0; i < kCount; ++i) {
    auto* b = static_cast<unsigned char*>(blocks.Take(kSize));
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 16, 0u);
    std::memset(b, static_cast<int>(i & 0xff), kSize);
    taken.push_back(b);
  }
  EXPECT_EQ(blocks.slabs(), 3u);
  EXPECT_EQ(std::set<unsigned char*>(taken.begin(), taken.end()).size(), kCount);
  for (size_t i = 0; i < kCount; ++i) {
    for (size_t j = 0; j < kSize; ++j) ASSERT_EQ(taken[i][j], i & 0xff) << i << " " << j;
  }
  for (unsigned char* b : taken) blocks.GiveBack(b);
  EXPECT_EQ(blocks.kept(), kCount);
}

TEST(SmallBlocksTest, LargeBlocksAndNullGoStraightBack) {
  SmallBlocks blocks(kRange);
  void* large = blocks.Take(SmallBlocks::kMaxKeptBytes + 1);
  ASSERT_NE(large, nullptr);
  blocks.GiveBack(large);
  blocks.GiveBack(nullptr);
  EXPECT_EQ(blocks.kept(), 0u);
  EXPECT_EQ(blocks.slabs(), 0u);
}

// Past its range (here a single slab), with none, and with one that cannot be reserved (all
// of x86-64's user address space), blocks come from the C allocator and go back to it.
TEST(SmallBlocksTest, WithoutRoomInTheRangeBlocksComeFromTheCAllocator) {
  for (size_t range : {SmallBlocks::kSlabBytes, size_t{0}, size_t{1} << 47}) {
    SmallBlocks blocks(range);
    std::vector<void*> taken;
    for (size_t i = 0; i < 2 * SmallBlocks::kSlabBytes / 64; ++i) {
      taken.push_back(blocks.Take(64));
      ASSERT_NE(taken.back(), nullptr);
      std::memset(taken.back(), 1, 64);
    }
    bool one_slab = range == SmallBlocks::kSlabBytes;
    EXPECT_EQ(blocks.slabs(), one_slab ? 1u : 0u);
    for (void* b : taken) blocks.GiveBack(b);
    EXPECT_EQ(blocks.kept(), one_slab ? SmallBlocks::kSlabBytes / 64 : 0u) << range;
  }
}

TEST(SmallBlocksTest, ResizeKeepsTheContents) {
  for (size_t range : {kRange, size_t{0}}) {
    SmallBlocks blocks(range);
    auto* block = static_cast<char*>(blocks.Resize(nullptr, 10));  // As realloc(nullptr, n).
    ASSERT_NE(block, nullptr);
    std::memcpy(block, "abcdefghi", 10);
    if (range != 0) {
      EXPECT_EQ(blocks.Resize(block, 16), block);  // Fits its class: unchanged.
    }
    auto* grown = static_cast<char*>(blocks.Resize(block, 2000));
    ASSERT_NE(grown, nullptr);
    EXPECT_STREQ(grown, "abcdefghi");
    EXPECT_EQ(blocks.kept(), range == 0 ? 0u : 1u);  // The old block, for the next small one.
    blocks.GiveBack(grown);
  }
}

// Kept blocks are hidden from ASan; a later SmallBlocks whose slabs the kernel maps at the
// same addresses must not find them still hidden (under ASan this writes poisoned memory
// unless the first one showed its slabs again before unmapping them).
TEST(SmallBlocksTest, ALaterOneAtTheSameAddressesMayUseThem) {
  void* first_block = nullptr;
  {
    SmallBlocks blocks(kRange);
    first_block = blocks.Take(64);
    ASSERT_NE(first_block, nullptr);
    blocks.GiveBack(first_block);  // Kept, and hidden.
  }
  SmallBlocks again(kRange);
  auto* block = static_cast<char*>(again.Take(64));
  ASSERT_NE(block, nullptr);
  std::memset(block, 7, 64);
  EXPECT_EQ(block[63], 7);
  again.GiveBack(block);
}

}  // namespace
}  // namespace uringload::proto
