#include "core/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace uringload::core {

uint64_t HistogramBuckets::Lower(size_t index) {
  if (index < 2 * kSub) return index;
  size_t shift = (index - 2 * kSub) / kSub + 1;
  uint64_t mantissa = (index - 2 * kSub) % kSub + kSub;
  return mantissa << shift;
}

uint64_t HistogramBuckets::Width(size_t index) {
  if (index < 2 * kSub) return 1;
  return 1ull << ((index - 2 * kSub) / kSub + 1);
}

void HistogramSnapshot::Merge(const HistogramSnapshot& other) {
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  if (other.count > 0) min = count == 0 ? other.min : std::min(min, other.min);
  count += other.count;
  sum += other.sum;
  max = std::max(max, other.max);
}

uint64_t HistogramSnapshot::Quantile(double q) const {
  if (count == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * count));
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= rank) {
      uint64_t mid = HistogramBuckets::Lower(i) + HistogramBuckets::Width(i) / 2;
      return std::min(mid, max);
    }
  }
  return max;
}

uint64_t HistogramSnapshot::CountAtOrBelow(uint64_t bound) const {
  uint64_t total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    uint64_t lower = HistogramBuckets::Lower(i);
    if (lower > bound) break;
    uint64_t width = HistogramBuckets::Width(i);
    if (lower + width - 1 <= bound) {
      total += counts[i];
    } else {
      // Spread a straddling bucket's count evenly over its width.
      total += counts[i] * (bound - lower + 1) / width;
    }
  }
  return total;
}

double HistogramSnapshot::StdDev() const {
  if (count == 0) return 0;
  double mean = Mean();
  double squares = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    double mid = HistogramBuckets::Lower(i) + HistogramBuckets::Width(i) / 2.0;
    squares += counts[i] * (mid - mean) * (mid - mean);
  }
  return std::sqrt(squares / count);
}

HistogramSnapshot HistogramSnapshot::Since(const HistogramSnapshot& earlier) const {
  HistogramSnapshot d;
  size_t first = counts.size();
  size_t last = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    d.counts[i] = counts[i] - earlier.counts[i];
    if (d.counts[i] == 0) continue;
    d.count += d.counts[i];
    first = std::min(first, i);
    last = i;
  }
  d.sum = sum - earlier.sum;
  if (d.count > 0) {
    d.min = std::max(HistogramBuckets::Lower(first), min);
    d.max = std::min(HistogramBuckets::Lower(last) + HistogramBuckets::Width(last) - 1, max);
  }
  return d;
}

HistogramSnapshot LatencyHistogram::Snapshot() const {
  HistogramSnapshot snap;
  size_t first = counts_.size();
  for (size_t i = 0; i < counts_.size(); ++i) {
    snap.counts[i] = Read(counts_[i]);
    snap.count += snap.counts[i];
    if (snap.counts[i] != 0 && first == counts_.size()) first = i;
  }
  snap.sum = Read(sum_);
  snap.max = Read(max_);
  snap.min = Read(min_);
  // A value recorded while we read may be in a bucket but not yet in min/max.
  if (snap.count == 0) {
    snap.min = 0;
  } else if (snap.min > HistogramBuckets::Lower(first) + HistogramBuckets::Width(first)) {
    snap.min = HistogramBuckets::Lower(first);
  }
  return snap;
}

}  // namespace uringload::core
