// SmallBlocks: small heap blocks freed by one thread, kept on lists by size for its next
// allocations instead of going back to the C allocator.
//
// nghttp2 makes and frees about three small blocks per request (its stream, a queued frame, a
// copy of the header fields). glibc's per-thread cache holds only 7 blocks a size, fewer than
// a worker's streams free at once, so the rest went through its slower bins; the lists take 8
// to 10% off the HTTP/2 client's instructions per request (docs/performance.md).
// Not thread-safe: one per worker, like the sessions that use it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace uringload::proto {

class SmallBlocks {
 public:
  // Blocks up to this usable size are kept when given back: glibc's sizes 24 to 1,032.
  static constexpr size_t kMaxKeptBytes = 1032;

  SmallBlocks() = default;
  SmallBlocks(const SmallBlocks&) = delete;
  SmallBlocks& operator=(const SmallBlocks&) = delete;
  ~SmallBlocks();  // Frees the kept blocks; blocks still taken must not be given back after.

  // A block of at least `size` bytes: a kept one, or the C allocator's; null when that fails.
  void* Take(size_t size);
  // Keeps `block` (from Take) for a later Take, or frees it when it is larger than
  // kMaxKeptBytes. Null is ignored.
  void GiveBack(void* block);
  // `block` (from Take, or null) grown or shrunk to `size` bytes, contents kept up to the
  // smaller size, as realloc; null when that fails (then `block` is untouched).
  void* Resize(void* block, size_t size);

  // Blocks kept now, and blocks taken from the C allocator so far.
  size_t kept() const { return kept_; }
  uint64_t from_allocator() const { return from_allocator_; }

 private:
  // List k holds blocks of at least kSmallest + 16 k usable bytes (glibc's steps), linked
  // through their first bytes.
  static constexpr size_t kSmallest = 24;
  static constexpr size_t kLists = (kMaxKeptBytes - kSmallest) / 16 + 1;
  static_assert(kSmallest + 16 * (kLists - 1) == kMaxKeptBytes);
  struct Kept {
    Kept* next;
  };

  Kept* lists_[kLists] = {};
  size_t kept_ = 0;
  uint64_t from_allocator_ = 0;
};

}  // namespace uringload::proto
