// The `uringload run` subcommand: its flags (CLI11) and what it does with them.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/cli_metrics.h"
#include "cli/shard_flags.h"
#include "core/run/run_plan.h"

namespace uringload::cli {

struct RunCommandOptions {
  core::RunOptions run;
  std::string json_path;  // "-" = stdout; empty = none.
  bool quiet = false;
  bool preflight_only = false;
  std::vector<std::string> fail_if;  // Thresholds.
  bool allow_saturated = false;      // A saturated run may pass its thresholds.
  std::string timeline_path;         // Per-interval record; .csv for CSV, else NDJSON.
  std::string report_path;           // --report: the HTML report, written at the end.
  std::string interval = "1s";
  MetricsFlags metrics;
  ShardFlags shard;
};

// Registers `run` and its flags on `app`, filling `options` when parsed.
CLI::App* AddRunCommand(CLI::App& app, RunCommandOptions& options);

// Runs the parsed command. Returns the process exit status.
int RunCommand(const RunCommandOptions& options);

}  // namespace uringload::cli
