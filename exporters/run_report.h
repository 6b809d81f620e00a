// Renders a finished run for people (FormatRunSummary, in the spirit of wrk/h2load) and for
// programs (RunResultToJson, schema in README.md), plus the live progress line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "core/run/engine.h"
#include "core/run/worker_stats.h"

namespace uringload::exporters {

struct RunReport {
  std::string target;  // The URL as given.
  std::optional<uint64_t> planned;
  uint32_t concurrency = 0;            // Connections the plan opens (at most -n).
  uint32_t requested_concurrency = 0;  // -c as given.
  uint32_t threads = 0;
  const core::RunResult* result = nullptr;
};

std::string FormatRunSummary(const RunReport& report);
std::string RunResultToJson(const RunReport& report);

// One line: elapsed, done/planned, rate, in flight, failures. No newline.
std::string FormatProgress(const core::RunStats& stats, absl::Duration elapsed,
                           std::optional<uint64_t> planned);

}  // namespace uringload::exporters
