// The per-interval record of a run (--timeline): one row per interval, made from two
// snapshots of the cumulative stats, so the hot path does nothing for it and the rows' counts
// add up exactly to the final totals. NDJSON, or CSV with a header row.
#pragma once

#include <optional>
#include <string>

#include "core/run/worker_stats.h"

namespace uringload::exporters {

struct TimelineRow {
  double t = 0;        // Seconds since the start, at the end of the interval.
  double seconds = 0;  // The interval's length.
  uint64_t started = 0;
  std::array<uint64_t, core::kOutcomeCount> outcomes{};  // Requests completed, by outcome.
  core::HistogramSnapshot latency;                       // Of the ok ones completed in it.
  uint64_t in_flight = 0;                                // At its end.
  uint64_t connections_open = 0;
  uint64_t completed() const;
};

// What happened between `before` and `after` (snapshots of one run, before first).
TimelineRow MakeTimelineRow(const core::RunStats& before, const core::RunStats& after, double t,
                            double seconds);

std::string TimelineCsvHeader();
// One line with its newline: a JSON object, or a CSV row.
std::string FormatTimelineRow(const TimelineRow& row, bool csv);

}  // namespace uringload::exporters
