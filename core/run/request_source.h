// RequestSource: hands out request indexes 0..N-1 (or unbounded for duration runs) to all
// workers. Workers claim small blocks so the shared counter is touched once per block, not
// once per request; with -n every index is used exactly once.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>

namespace uringload::core {

class RequestSource {
 public:
  explicit RequestSource(std::optional<uint64_t> limit)
      : limit_(limit.value_or(std::numeric_limits<uint64_t>::max())) {}

  struct Block {
    uint64_t next = 0;
    uint64_t end = 0;
    bool empty() const { return next >= end; }
  };
  // Claims up to `max` consecutive indexes; an empty block means all are handed out.
  Block Claim(uint64_t max) {
    uint64_t first = next_.fetch_add(max, std::memory_order_relaxed);
    if (first >= limit_) return {};
    return {first, first + max < limit_ && first + max > first ? first + max : limit_};
  }

 private:
  std::atomic<uint64_t> next_{0};
  const uint64_t limit_;
};

// A worker's view of the source: one block at a time.
class RequestCursor {
 public:
  RequestCursor(RequestSource* source, uint64_t block_size)
      : source_(source), block_size_(block_size) {}

  bool Next(uint64_t* index) {
    if (block_.empty()) {
      if (exhausted_) return false;
      block_ = source_->Claim(block_size_);
      if (block_.empty()) {
        exhausted_ = true;
        return false;
      }
    }
    *index = block_.next++;
    return true;
  }

 private:
  RequestSource* source_;
  uint64_t block_size_;
  RequestSource::Block block_;
  bool exhausted_ = false;
};

}  // namespace uringload::core
