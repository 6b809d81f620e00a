// SmallBlocks: one thread's small heap blocks, carved by size class out of slabs of one
// address range and kept on lists by class when given back, instead of malloc and free.
//
// nghttp2 makes and frees about three small blocks per request (its stream, a queued frame, a
// copy of the header fields) and keeps dozens per connection (its HPACK tables' entries).
// glibc's per-thread cache holds only 7 blocks a size, fewer than a worker's streams free at
// once, so lists take 8 to 10% off the HTTP/2 client's instructions per request; and a block
// whose class its address tells needs no size from the C allocator (malloc_usable_size was 2%
// of the client's CPU) and no header (8 bytes a block). docs/performance.md has the figures.
// Not thread-safe: one per worker, like the sessions that use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace uringload::proto {

class SmallBlocks {
 public:
  // Blocks up to this size come from the slabs, in classes 16 bytes apart (16-byte aligned,
  // as malloc's); larger ones from the C allocator.
  static constexpr size_t kMaxKeptBytes = 1024;
  // Address space reserved for the slabs (not memory: a slab is committed when it is first
  // carved). Past it, and when it cannot be reserved, small blocks come from the C allocator.
  static constexpr size_t kDefaultRange = size_t{16} << 30;
  static constexpr size_t kSlabBytes = 64 * 1024;

  // Under ASan the default is no range: blocks come from its allocator, which checks them.
  explicit SmallBlocks(size_t range_bytes = kDefault);
  SmallBlocks(const SmallBlocks&) = delete;
  SmallBlocks& operator=(const SmallBlocks&) = delete;
  ~SmallBlocks();  // Releases the slabs: no block may be used or given back after.

  // A block of at least `size` bytes: a kept one, a new one, or the C allocator's; null when
  // memory ran out.
  void* Take(size_t size);
  // Keeps `block` (from Take or Resize) for a later Take of its class, or frees it when the C
  // allocator made it. Null is ignored.
  void GiveBack(void* block);
  // `block` (from Take, or null) grown or shrunk to `size` bytes, contents kept up to the
  // smaller size, as realloc; null when that fails (then `block` is untouched).
  void* Resize(void* block, size_t size);

  // Blocks kept now; blocks made so far (carved, or from the C allocator); slabs committed.
  size_t kept() const { return kept_; }
  uint64_t made() const { return made_; }
  size_t slabs() const { return slab_class_.size(); }

 private:
  static constexpr size_t kClasses = kMaxKeptBytes / 16;
  static constexpr size_t kDefault =
#if defined(__SANITIZE_ADDRESS__)
      0;
#else
      kDefaultRange;
#endif
  static size_t ClassOf(size_t size) { return size == 0 ? 0 : (size - 1) / 16; }
  static size_t ClassBytes(size_t k) { return 16 * (k + 1); }
  struct Kept {
    Kept* next;
  };

  bool InRange(const void* block) const {
    auto* p = static_cast<const char*>(block);
    return p >= range_ && p < range_end_;  // Never while nothing is reserved.
  }
  size_t ClassOfCarved(const void* block) const {
    return slab_class_[static_cast<size_t>(static_cast<const char*>(block) - range_) / kSlabBytes];
  }
  // A new block of class k, carved from its slab (a new slab when it is used up); null when
  // no slab can be had.
  void* Carve(size_t k);

  size_t range_bytes_;
  char* range_ = nullptr;  // Reserved at the first small Take, up to range_end_.
  char* range_end_ = nullptr;
  bool reserve_failed_ = false;      // Then small blocks come from the C allocator.
  std::vector<uint8_t> slab_class_;  // By slab, in order of the range.
  char* next_[kClasses] = {};        // Where each class carves its next block, up to end_.
  char* end_[kClasses] = {};
  Kept* lists_[kClasses] = {};
  size_t kept_ = 0;
  uint64_t made_ = 0;
};

}  // namespace uringload::proto
