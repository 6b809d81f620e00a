// Renders `uringload compare`: per measure both values, the shift in %, its interval and
// whether it is significant, the rank test over the latency distributions, and each --fail-if
// margin's verdict; as a terminal table, as Markdown (for a pull-request comment) and as JSON.
#pragma once

#include <string>
#include <vector>

#include "core/compare/comparison.h"

namespace uringload::exporters {

struct CompareRecord {
  std::string base_name;  // The files compared (a side's several runs joined by ", ").
  std::string next_name;
  size_t base_runs = 1;
  size_t next_runs = 1;
  double confidence = 0.95;
  core::Comparison comparison;
  std::vector<std::pair<std::string, bool>> margins = {};  // --fail-if and whether it failed.
};

std::string CompareTable(const CompareRecord& record);
std::string CompareMarkdown(const CompareRecord& record);
std::string CompareJson(const CompareRecord& record);

}  // namespace uringload::exporters
