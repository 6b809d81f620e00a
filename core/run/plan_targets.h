// PlanTargets: MakeRunPlan's step for what is sent: the target lines (the URL, or every line
// of --targets), the data file, the bodies, each target's request spec (built once, so a bad
// method, header or placeholder exits 2 before any traffic), the order of targets and the
// names per-target results are kept under.
#pragma once

#include "absl/status/status.h"
#include "core/run/run_plan.h"

namespace uringload::core {

absl::Status PlanTargets(const RunOptions& options, RunPlan& plan);

}  // namespace uringload::core
