// Renders `uringload search`: a row per step as it ends (rate, achieved rate, quantiles,
// errors, verdict and why), the closing line with the rate found and its bracket, the JSON
// (every step's full run result, histograms included) and the HTML page with the
// latency-vs-rate chart and the knee marked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run/shard.h"
#include "core/run/worker_stats.h"
#include "core/search/rate_search.h"
#include "core/search/slo.h"

namespace uringload::exporters {

struct SearchStep {
  double rate = 0;  // -R of the step.
  bool confirmation = false;
  bool passed = false;
  bool undecided = false;      // Not passed, but no objective was shown to fail: too few requests.
  std::string why = "";        // Why it failed (or "" when it passed).
  std::string note = "";       // How it was judged, when not as usual.
  double planned_seconds = 0;  // Its measured part as planned (longer than --step-duration
                               // when that held too few requests to decide).
  std::vector<core::SloCheck> checks = {};
  core::RunStats stats = {};  // Of the measured part (after its warmup).
  double measured_seconds = 0;
  std::string result_json = "";  // The step's whole `run --json` result.
};

struct SearchRecord {
  std::string target;
  core::Shard shard;  // 0 of 1 when the search is not sharded.
  std::vector<std::string> slos;
  double confidence = 0.95;
  double precision = 0.02;
  std::vector<uint64_t> requests_needed = {};  // Per objective: the fewest that can show it.
  core::RateSearch::Outcome outcome = core::RateSearch::Outcome::kRunning;
  double lower = 0;  // The rate found (when found) and the bracket's ends.
  double upper = 0;
  std::vector<SearchStep> steps = {};
};

std::string SearchTableHeader();
std::string SearchTableRow(const SearchStep& step);
// The closing lines: the rate found and its bracket, or why none was.
std::string SearchConclusion(const SearchRecord& record);
std::string SearchJson(const SearchRecord& record);
std::string SearchHtml(const SearchRecord& record);

}  // namespace uringload::exporters
