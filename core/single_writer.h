// Counters written by exactly one thread (a worker) and read by any (the reporter, a scrape):
// a relaxed load and store instead of an atomic read-modify-write, so the hot path has no
// locked instruction; readers see a value at most one update old.
#pragma once

#include <atomic>
#include <cstdint>

namespace uringload::core {

using SingleWriterCounter = std::atomic<uint64_t>;

inline uint64_t Read(const SingleWriterCounter& c) { return c.load(std::memory_order_relaxed); }
inline void Write(SingleWriterCounter& c, uint64_t value) {
  c.store(value, std::memory_order_relaxed);
}
inline void Add(SingleWriterCounter& c, uint64_t by = 1) { Write(c, Read(c) + by); }

}  // namespace uringload::core
