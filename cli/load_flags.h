// The flags that make a load plan (core::RunOptions): the target, connections, threads,
// requests, protocols, TLS. Shared by `run` and `search`; `search` sets the schedule itself.
#pragma once

#include "CLI/CLI.hpp"
#include "core/run/run_plan.h"

namespace uringload::cli {

// Adds the plan flags to `cmd`, filling `o`; with `schedule`, also -n, -d, -R, --ramp and
// --warmup.
void AddLoadFlags(CLI::App* cmd, core::RunOptions& o, bool schedule);

}  // namespace uringload::cli
