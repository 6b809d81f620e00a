// PlanGrpc: MakeRunPlan's step for a gRPC run (--grpc): the schema read from --proto or
// --protoset, the method found in it, its request message compiled from the JSON of --body or
// --body-file (proto/grpc_body_template.h), and the one target: a POST to the method's path
// with gRPC's headers (content-type, te, grpc-timeout from --timeout) and -H as metadata.
// Everything wrong exits 2 before any traffic.
#pragma once

#include "absl/status/status.h"
#include "core/run/run_plan.h"

namespace uringload::core {

// Needs plan.timeout set and the data file planned (the body's placeholders may name its
// columns).
absl::Status PlanGrpc(const RunOptions& options, RunPlan& plan);

}  // namespace uringload::core
