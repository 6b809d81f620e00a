// PlanGrpc: MakeRunPlan's step for a gRPC run (--grpc): the schema read from --proto or
// --protoset, the method found in it, its request message compiled from the JSON of --body or
// --body-file (proto/grpc_body_template.h), and the one target: a POST to the method's path
// with gRPC's headers (content-type, te, grpc-timeout from --timeout) and -H as metadata.
// Everything wrong exits 2 before any traffic. A flow's grpc steps are made the same way
// (LoadGrpcSchema, MakeGrpcCall).
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/run/plan_targets.h"
#include "core/run/run_plan.h"
#include "proto/grpc_schema.h"
#include "proto/request_template.h"

namespace uringload::core {

// The schema of --proto (with --import-path) or --protoset; none given: nullopt.
absl::StatusOr<std::optional<proto::GrpcSchema>> LoadGrpcSchema(const RunOptions& options);

// Makes `spec` (its URL's origin, its metadata in `headers`) a call of `method`: its path,
// gRPC's headers first (content-type, te, grpc-timeout from `timeout`), and `messages` request
// messages rendered from `json`.
absl::Status MakeGrpcCall(const proto::GrpcSchema& schema, const proto::GrpcMethod& method,
                          absl::Duration timeout, const CommonBody& json,
                          proto::TemplateColumns columns, uint32_t messages,
                          proto::RequestSpec& spec);

// Needs plan.timeout set and the data file planned (the body's placeholders may name its
// columns).
absl::Status PlanGrpc(const RunOptions& options, RunPlan& plan);

}  // namespace uringload::core
