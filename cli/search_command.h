// `uringload search --slo 'p99<50ms' [run flags] URL`: the highest open-model rate that meets
// every objective. Each step is a run at one rate (a warmup, then --step-duration measured, or
// longer up to --max-step-duration when that is too few requests to decide), judged by
// core/search/slo.h and the generator's honesty; the rate follows core/search/rate_search.h. Exit 0
// with a rate found, 3 when none met the objectives, 2 for bad input before any traffic.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/shard_flags.h"
#include "core/run/run_plan.h"

namespace uringload::cli {

struct SearchCommandOptions {
  core::RunOptions run;
  ShardFlags shard;  // Each step a sharded run: this process sends and judges its share.
  std::vector<std::string> slos;
  std::string start_rate = "100";
  std::string max_rate = "1000000";
  std::string step_duration = "10s";
  std::string max_step_duration = "60s";
  std::string warmup = "2s";
  std::string cooldown = "2s";
  std::string precision = "2%";
  std::string confidence = "95%";
  int64_t max_steps = 40;
  std::string json_path;
  std::string report_path;
  bool quiet = false;
};

CLI::App* AddSearchCommand(CLI::App& app, SearchCommandOptions& options);
int SearchCommand(const SearchCommandOptions& options);

}  // namespace uringload::cli
