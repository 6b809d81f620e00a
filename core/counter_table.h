// Counter tables: one row per counter of a side's results that is a single number (the
// client's core/run/run_counters.h, serve's core/serve/server_counters.h). A row says which
// member of the plain stats struct holds it, where the JSON result keeps it, its Prometheus
// metric, and how the values of workers and shards merge; the live counters are kept at the
// row's index. Snapshots, merges, the JSON writer and reader and the Prometheus collectors go
// by the rows, so a counter is added with a row and the call that counts it; a row with a
// summary phrase is in the text summary too.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>

#include "core/single_writer.h"

namespace uringload::core {

enum class CounterMerge : uint8_t {
  kSum,           // Each worker and shard counts its own part.
  kMax,           // The slowest worker's or shard's (the time to an event of the whole run).
  kLeastNonZero,  // The tightest cap any of them saw; 0 (JSON null): none.
};

template <typename Stats>
struct CounterRowOf {
  uint64_t Stats::*member;
  // Where the JSON result keeps it: `key` in the object at `object` (keys from the top joined
  // by '/'). An empty key: not in the JSON.
  std::string_view object;
  std::string_view key;
  // Its Prometheus metric ("": none), shown when its JSON object is (the collector says).
  std::string_view metric;
  std::string_view help;
  CounterMerge merge = CounterMerge::kSum;
  bool nanoseconds = false;  // Kept in ns, written (JSON, Prometheus) in seconds.
  bool gauge = false;        // A Prometheus gauge: it goes down too.
  // In the text summary: "<value> <summary>" on its JSON object's line, when not 0 ("": the
  // summary's prose says it, or not at all).
  std::string_view summary = {};
};

// The index of `member`'s row in `rows` (a compile error when it has none).
template <typename Stats, size_t N>
consteval size_t CounterIndex(const CounterRowOf<Stats> (&rows)[N], uint64_t Stats::*member) {
  for (size_t i = 0; i < N; ++i) {
    if (rows[i].member == member) return i;
  }
  throw "no row for this member";
}

// Every row's value of `into` merged with `from`'s.
template <typename Stats>
void MergeCounters(std::span<const CounterRowOf<Stats>> rows, Stats& into, const Stats& from) {
  for (const CounterRowOf<Stats>& row : rows) {
    uint64_t& a = into.*row.member;
    uint64_t b = from.*row.member;
    switch (row.merge) {
      case CounterMerge::kSum:
        a += b;
        break;
      case CounterMerge::kMax:
        a = std::max(a, b);
        break;
      case CounterMerge::kLeastNonZero:
        if (b != 0 && (a == 0 || b < a)) a = b;
        break;
    }
  }
}

// The live counters of a table's rows, one per row at its index, each written by its worker's
// thread alone and read by the reporter (SingleWriterCounter).
template <typename Stats, const auto& kRows>
class RowCounters {
 public:
  // The counter of `Stats` member M's row.
  template <uint64_t Stats::*M>
  SingleWriterCounter& Of() {
    return counters_[CounterIndex(kRows, M)];
  }
  template <uint64_t Stats::*M>
  const SingleWriterCounter& Of() const {
    return counters_[CounterIndex(kRows, M)];
  }
  // A gauge that went up by one (a connection opened), and its peak.
  template <uint64_t Stats::*Gauge, uint64_t Stats::*Peak>
  void Up() {
    uint64_t now = Read(Of<Gauge>()) + 1;
    Write(Of<Gauge>(), now);
    if (now > Read(Of<Peak>())) Write(Of<Peak>(), now);
  }
  template <uint64_t Stats::*Gauge>
  void Down() {
    Write(Of<Gauge>(), Read(Of<Gauge>()) - 1);
  }
  // Every row's value into its member of `s`.
  void CopyTo(Stats& s) const {
    for (size_t i = 0; i < counters_.size(); ++i) s.*kRows[i].member = Read(counters_[i]);
  }

 private:
  std::array<SingleWriterCounter, std::size(kRows)> counters_{};
};

}  // namespace uringload::core
