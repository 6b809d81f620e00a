// Renders a finished run for people (FormatRunSummary, in the spirit of wrk/hey/oha) and for
// programs (RunResultToJson, schema in README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/run/engine.h"
#include "core/run/generator_check.h"
#include "core/run/round_trip_bound.h"
#include "core/run/run_plan.h"
#include "core/run/thresholds.h"
#include "core/run/worker_stats.h"

namespace uringload::exporters {

struct RunReport {
  std::string target;  // The URL as given (or the --targets file).
  std::string run_id = "";
  core::Shard shard = {};      // Which part of a sharded run; {0, 1} for a whole one.
  uint32_t merged_shards = 0;  // `uringload merge`: how many shards were added up.
  // Where it ran ("host, Linux <release>, N CPUs, uringload <version>"); empty for a merge.
  std::string machine = "";
  std::optional<uint64_t> planned;
  uint32_t concurrency = 0;            // Connections the plan opens (at most -n).
  uint32_t requested_concurrency = 0;  // -c as given.
  uint32_t threads = 0;
  const core::RunResult* result = nullptr;
  const core::RunPlan* plan = nullptr;  // The load shape (-R, -p, targets, warmup); optional.
  // The longest wait for a batch in the run that made this result (RunPlan::batch_window_max);
  // none for a merge, whose shards may have waited differently.
  std::optional<absl::Duration> batch_window_max = std::nullopt;
  std::vector<core::ThresholdResult> thresholds = {};
};

// This machine, for RunReport::machine: host name, kernel release and online CPUs, then
// `version`.
std::string ThisMachine(const std::string& version);

// The time the statistics cover: the run without its warmup.
absl::Duration MeasuredDuration(const core::RunResult& result, const core::RunPlan* plan);

// Whether the client limited the run (core::JudgeGenerator on the report's stats and plan).
core::GeneratorVerdict GeneratorVerdictOf(const RunReport& report);

// The requests a connection keeps in flight: -p, or the HTTP/2 streams the server allowed.
uint32_t InFlightPerConnection(const core::RunPlan& plan, const core::RunStats& s);
// Closed model: whether the round trip set the pace (core::JudgeRoundTrip); none in the open
// model, whose pace is -R, or without a plan.
std::optional<core::RoundTripBound> RoundTripBoundOf(const RunReport& report);

std::string FormatRunSummary(const RunReport& report);
std::string RunResultToJson(const RunReport& report);
// About 10 rows of log-spaced latency buckets with bars, like hey and oha.
std::string FormatLatencyBars(const core::HistogramSnapshot& h);

}  // namespace uringload::exporters
