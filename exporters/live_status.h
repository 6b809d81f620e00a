// The status line drawn on a terminal while a run goes (about 4 times a second): progress of
// -n or -d with the time left, the last second's rate and p99 (not running averages),
// in flight, errors by kind.
#pragma once

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "core/run/worker_stats.h"

namespace uringload::exporters {

struct LiveStatus {
  const core::RunStats* now = nullptr;
  const core::RunStats* window_start = nullptr;  // A snapshot about a second older.
  double window_seconds = 1;
  absl::Duration elapsed;
  std::optional<uint64_t> planned;                 // -n
  std::optional<absl::Duration> planned_duration;  // -d
};

// One line, no newline.
std::string FormatLiveStatus(const LiveStatus& status);

}  // namespace uringload::exporters
