#include "core/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace uringload::core {
namespace {

TEST(HistogramBucketsTest, IndexAndBoundsAgree) {
  for (uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull, 123456789ull, 1ull << 40}) {
    size_t i = HistogramBuckets::Index(v);
    ASSERT_LT(i, HistogramBuckets::kCount);
    EXPECT_LE(HistogramBuckets::Lower(i), v);
    EXPECT_GT(HistogramBuckets::Lower(i) + HistogramBuckets::Width(i), v);
  }
  EXPECT_EQ(HistogramBuckets::Index(~0ull), HistogramBuckets::kCount - 1);
}

double ExactQuantile(std::vector<uint64_t> sorted, double q) {
  size_t rank = static_cast<size_t>(std::ceil(q * sorted.size()));
  return static_cast<double>(sorted[std::max<size_t>(rank, 1) - 1]);
}

// Quantiles against an exact sort, on spreads like real latencies: within 1%.
TEST(LatencyHistogramTest, QuantilesWithinOnePercentOfExact) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> latency(std::log(2e6), 1.5);  // ~2 ms median.
  std::uniform_int_distribution<uint64_t> uniform(100'000, 3'000'000'000);
  for (int dist = 0; dist < 2; ++dist) {
    LatencyHistogram h;
    std::vector<uint64_t> values;
    for (int i = 0; i < 200'000; ++i) {
      uint64_t v = dist == 0 ? static_cast<uint64_t>(latency(rng)) : uniform(rng);
      values.push_back(v);
      h.Record(v);
    }
    std::sort(values.begin(), values.end());
    HistogramSnapshot snap = h.Snapshot();
    EXPECT_EQ(snap.count, values.size());
    EXPECT_EQ(snap.max, values.back());
    EXPECT_EQ(snap.min, values.front());
    for (double q : {0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
      double exact = ExactQuantile(values, q);
      EXPECT_NEAR(static_cast<double>(snap.Quantile(q)), exact, exact * 0.01) << "q=" << q;
    }
    double mean = 0;
    for (uint64_t v : values) mean += static_cast<double>(v) / values.size();
    EXPECT_NEAR(snap.Mean(), mean, mean * 1e-9);
  }
}

TEST(LatencyHistogramTest, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (uint64_t v = 1; v < 100'000; v += 7) {
    (v % 2 ? a : b).Record(v * 13);
    all.Record(v * 13);
  }
  HistogramSnapshot merged = a.Snapshot();
  merged.Merge(b.Snapshot());
  HistogramSnapshot expected = all.Snapshot();
  EXPECT_EQ(merged.counts, expected.counts);
  EXPECT_EQ(merged.count, expected.count);
  EXPECT_EQ(merged.sum, expected.sum);
  EXPECT_EQ(merged.max, expected.max);
  EXPECT_EQ(merged.min, expected.min);
  EXPECT_EQ(merged.Quantile(0.99), expected.Quantile(0.99));
}

TEST(LatencyHistogramTest, EmptyAndCountAtOrBelow) {
  HistogramSnapshot empty;
  EXPECT_EQ(empty.Quantile(0.5), 0u);
  EXPECT_EQ(empty.Mean(), 0.0);
  LatencyHistogram h;
  for (uint64_t v = 0; v < 1000; ++v) h.Record(v);
  HistogramSnapshot snap = h.Snapshot();
  EXPECT_EQ(snap.CountAtOrBelow(99), 100u);
  EXPECT_NEAR(static_cast<double>(snap.CountAtOrBelow(499)), 500.0, 5.0);
  EXPECT_EQ(snap.CountAtOrBelow(10'000), 1000u);
}

}  // namespace
}  // namespace uringload::core
