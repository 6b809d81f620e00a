// The per-interval record of a run (--timeline): one row per interval, made from two
// snapshots of the cumulative stats, so the hot path does nothing for it and the rows' counts
// add up exactly to the final totals. NDJSON, or CSV with a header row. A run that keeps
// per-target results (--targets) adds each target's outcomes, rate and latency to every row.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/run/worker_stats.h"

namespace uringload::exporters {

// What one scope (the run, or one target) completed in an interval.
struct TimelineCounts {
  std::array<uint64_t, core::kOutcomeCount> outcomes{};  // Requests completed, by outcome.
  core::HistogramSnapshot latency;                       // Of the ok ones completed in it.
  uint64_t completed() const;
};

struct TimelineRow {
  double t = 0;        // Seconds since the start, at the end of the interval.
  double seconds = 0;  // The interval's length.
  uint64_t started = 0;
  TimelineCounts counts;
  uint64_t in_flight = 0;  // At its end.
  uint64_t connections_open = 0;
  // In the interval: the workers' wait for a CPU (summed), a cgroup's throttling.
  double run_queue_seconds = 0;
  double throttled_seconds = 0;
  double unread_seconds = 0;  // Responses waiting unread for their worker (GeneratorStats).
  // The p50 and p99 in the interval of each histogram the table (core/run/run_histograms.h)
  // puts in the timeline (time to the head, to the first byte), in its order; none when empty.
  std::vector<std::array<std::optional<double>, 2>> histograms;
  std::vector<TimelineCounts> by_target;  // In RunStats::by_target's order; empty if not kept.
  uint64_t completed() const { return counts.completed(); }
};

// What happened between `before` and `after` (snapshots of one run, before first).
TimelineRow MakeTimelineRow(const core::RunStats& before, const core::RunStats& after, double t,
                            double seconds);

// `target_names` (RunPlan::target_names) name the per-target columns and records; a row's
// targets beyond them are not written.
std::string TimelineCsvHeader(std::span<const std::string> target_names = {});
// One line with its newline: a JSON object, or a CSV row.
std::string FormatTimelineRow(const TimelineRow& row, bool csv,
                              std::span<const std::string> target_names = {});

}  // namespace uringload::exporters
