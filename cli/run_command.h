// The `uringload run` subcommand: its flags (CLI11) and what it does with them.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "cli/cli_metrics.h"
#include "core/run/run_plan.h"

namespace uringload::cli {

struct RunCommandOptions {
  core::RunOptions run;
  std::string json_path;  // "-" = stdout; empty = none.
  bool quiet = false;
  bool preflight_only = false;
  MetricsFlags metrics;
};

// Registers `run` and its flags on `app`, filling `options` when parsed.
CLI::App* AddRunCommand(CLI::App& app, RunCommandOptions& options);

// Runs the parsed command. Returns the process exit status.
int RunCommand(const RunCommandOptions& options);

}  // namespace uringload::cli
