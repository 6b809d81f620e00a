// Reads a --timeline file back (NDJSON, or CSV with its header) for `uringload report`.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/outcome.h"

namespace uringload::exporters {

struct TimelinePoint {
  double t = 0;        // Seconds since the start, at the end of the interval.
  double seconds = 0;  // The interval's length.
  std::array<uint64_t, core::kOutcomeCount> outcomes{};
  std::array<std::optional<double>, 4> latency;  // p50, p90, p99, max in seconds; none if no ok.
  uint64_t in_flight = 0;
  uint64_t connections_open = 0;
};

// `text` is the file's contents; an error names `name` and the line.
absl::StatusOr<std::vector<TimelinePoint>> ReadTimeline(std::string_view text,
                                                        const std::string& name);

}  // namespace uringload::exporters
