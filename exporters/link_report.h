// The counts of `uringload link` at exit, per direction: a summary for people and the JSON.
#pragma once

#include <array>
#include <string>

#include "core/link/link_direction.h"
#include "core/link/link_plan.h"

namespace uringload::exporters {

struct LinkReport {
  const core::LinkPlan* plan = nullptr;
  std::array<core::LinkCounters, 2> counters;            // [0]: A to B.
  std::array<core::HistogramSnapshot, 2> lateness = {};  // How late queued packets left.
};

std::string FormatLinkSummary(const LinkReport& report);
// {"a", "b", "a_to_b": {received, forwarded, bytes_forwarded, lost, queue_dropped, blackholed,
// duplicated, reordered, write_failed, unsent, late_seconds: {mean, ..., p99, p999, max}},
// "b_to_a": {...}}
std::string LinkReportToJson(const LinkReport& report);

}  // namespace uringload::exporters
