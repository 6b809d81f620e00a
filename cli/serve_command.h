// The `uringload serve` subcommand: its flags (CLI11) and what it does with them.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "cli/cli_metrics.h"
#include "core/serve/serve_plan.h"

namespace uringload::cli {

struct ServeCommandOptions {
  core::ServeOptions serve;
  std::string json_path;  // Summary as JSON on exit ("-" = stdout).
  bool quiet = false;
  MetricsFlags metrics;
};

CLI::App* AddServeCommand(CLI::App& app, ServeCommandOptions& options);

// Serves until SIGINT/SIGTERM. Returns the process exit status.
int ServeCommand(const ServeCommandOptions& options);

}  // namespace uringload::cli
