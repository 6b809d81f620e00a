// Histogram tables: one row per duration histogram of a side's results besides the request
// latency (whose count is the ok outcome, and so is kept apart). A row says which member of the
// plain stats struct holds it, its name in thresholds (`ttfb.p99>50ms`), where the JSON result
// keeps it, its Prometheus metric, and its line in the text summary; the live histograms are
// kept at the row's index. Snapshots, merges, the JSON writer and reader, the Prometheus
// collector, the thresholds and the timeline go by the rows, so a histogram is added with a
// row and the call that records it.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>

#include "core/latency_histogram.h"

namespace uringload::core {

template <typename Stats>
struct HistogramRowOf {
  HistogramSnapshot Stats::*member;
  // Its name in thresholds and in the timeline's columns ("ttfb": ttfb.p99, ttfb_p99).
  std::string_view measure;
  // Where the JSON result keeps it: "<stem>_seconds" (its quantiles) and "<stem>_histogram"
  // (its buckets) in the object `object` ("": the top), written when that object is.
  std::string_view object;
  std::string_view stem;
  std::string_view metric;  // Its Prometheus histogram.
  std::string_view help;
  // Shown (in Prometheus, the summary) as the JSON object `shown_with` is ("": always).
  std::string_view shown_with = {};
  // Its line in the text summary, when it has a value: "<summary> <quantiles>  (<note>)"
  // ("": the summary's prose says it, or not at all).
  std::string_view summary = {};
  std::string_view note = {};
  bool timeline = false;  // Its p50 and p99 per interval are timeline columns.
};

// The index of `member`'s row in `rows` (a compile error when it has none).
template <typename Stats, size_t N>
consteval size_t HistogramIndex(const HistogramRowOf<Stats> (&rows)[N],
                                HistogramSnapshot Stats::*member) {
  for (size_t i = 0; i < N; ++i) {
    if (rows[i].member == member) return i;
  }
  throw "no row for this member";
}

// Every row's histogram of `into` merged with `from`'s.
template <typename Stats>
void MergeHistograms(std::span<const HistogramRowOf<Stats>> rows, Stats& into, const Stats& from) {
  for (const HistogramRowOf<Stats>& row : rows) (into.*row.member).Merge(from.*row.member);
}

// The live histograms of a table's rows, one per row at its index, each written by its
// worker's thread alone and read by the reporter.
template <typename Stats, const auto& kRows>
class RowHistograms {
 public:
  template <HistogramSnapshot Stats::*M>
  LatencyHistogram& Of() {
    return histograms_[HistogramIndex(kRows, M)];
  }
  void CopyTo(Stats& s) const {
    for (size_t i = 0; i < histograms_.size(); ++i) {
      s.*kRows[i].member = histograms_[i].Snapshot();
    }
  }

 private:
  std::array<LatencyHistogram, std::size(kRows)> histograms_{};
};

}  // namespace uringload::core
