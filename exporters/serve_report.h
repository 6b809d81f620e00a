// Renders `uringload serve`'s exit summary for people and as JSON (schema in README.md).
#pragma once

#include <string>

#include "absl/time/time.h"
#include "core/serve/serve_plan.h"
#include "core/serve/server_stats.h"

namespace uringload::exporters {

struct ServeReport {
  const core::ServePlan* plan = nullptr;
  core::ServerRunStats stats;
  absl::Duration duration;
};

std::string FormatServeSummary(const ServeReport& report);
std::string ServeReportToJson(const ServeReport& report);
// "127.0.0.1:8080, 127.0.0.1:8081".
std::string ListenSummary(const core::ServePlan& plan);

}  // namespace uringload::exporters
