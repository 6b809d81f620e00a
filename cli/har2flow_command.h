// `uringload har2flow FILE`: prints the flow file (YAML) for a browser's HAR export, for
// `run --flow` (core/flow/har_flow.h says what becomes what).
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "core/flow/har_flow.h"

namespace uringload::cli {

struct Har2FlowCommandOptions {
  std::string har_path;
  core::HarOrigins origins;  // --origin (repeatable), --all-origins.
};

CLI::App* AddHar2FlowCommand(CLI::App& app, Har2FlowCommandOptions& options);
int Har2FlowCommand(const Har2FlowCommandOptions& options);

}  // namespace uringload::cli
