// Log-linear latency histogram: fixed size (~35 KiB), <= 0.4% relative error for reported
// quantiles, mergeable across workers, no per-request storage. LatencyHistogram is written by
// exactly one thread and read by any (relaxed atomics); HistogramSnapshot is a plain copy.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/single_writer.h"

namespace uringload::core {

class HistogramBuckets {
 public:
  static constexpr int kSubBits = 7;                  // 128 sub-buckets per power of two.
  static constexpr uint64_t kSub = 1ull << kSubBits;  // Values below 2*kSub are exact.
  static constexpr int kMaxBits = 41;                 // Up to ~36 minutes in nanoseconds.
  static constexpr size_t kCount = 2 * kSub + (kMaxBits - kSubBits - 1) * kSub;
  // Names this layout in JSON results: `merge` adds buckets only between equal layouts.
  static constexpr char kLayout[] = "log-linear-ns-sub7-max41";

  // Inline: three records a request (latency, head, first byte) each compute it.
  static size_t Index(uint64_t value) {
    if (value < 2 * kSub) return value;
    int msb = 63 - std::countl_zero(value);
    if (msb >= kMaxBits) return kCount - 1;
    int shift = msb - kSubBits;          // >= 1
    uint64_t mantissa = value >> shift;  // In [kSub, 2*kSub).
    return 2 * kSub + static_cast<size_t>(shift - 1) * kSub + (mantissa - kSub);
  }
  static uint64_t Lower(size_t index);
  static uint64_t Width(size_t index);
};

struct HistogramSnapshot {
  std::vector<uint64_t> counts = std::vector<uint64_t>(HistogramBuckets::kCount);
  uint64_t count = 0;  // The sum of `counts`: a snapshot is consistent in itself.
  uint64_t sum = 0;
  uint64_t min = 0;  // 0 when empty.
  uint64_t max = 0;

  void Merge(const HistogramSnapshot& other);
  // The value at quantile q in [0, 1] (bucket midpoint, capped by the exact max); 0 if empty.
  uint64_t Quantile(double q) const;
  double Mean() const { return count == 0 ? 0.0 : static_cast<double>(sum) / count; }
  // Standard deviation over bucket midpoints (within the buckets' 0.4%); 0 if empty.
  double StdDev() const;
  // What was recorded after `earlier` (a snapshot of the same histogram): counts and sum
  // exactly; min and max to their buckets' edges (within 0.4%), capped by this max.
  HistogramSnapshot Since(const HistogramSnapshot& earlier) const;
  // How many recorded values are <= bound (exact at bucket edges, interpolated inside).
  uint64_t CountAtOrBelow(uint64_t bound) const;
};

class LatencyHistogram {
 public:
  // Single writer: plain load + store, no read-modify-write instruction on the hot path.
  void Record(uint64_t value) {
    Add(counts_[HistogramBuckets::Index(value)], 1);
    Add(sum_, value);
    if (value > Read(max_)) Write(max_, value);
    if (value < Read(min_)) Write(min_, value);
  }
  HistogramSnapshot Snapshot() const;

 private:
  std::array<SingleWriterCounter, HistogramBuckets::kCount> counts_{};
  SingleWriterCounter sum_{0};
  SingleWriterCounter max_{0};
  SingleWriterCounter min_{~0ull};
};

}  // namespace uringload::core
