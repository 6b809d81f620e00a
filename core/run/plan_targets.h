// PlanTargets: MakeRunPlan's step for what is sent: the target lines (the URL, or every line
// of --targets), the data file, the bodies, each target's request spec (built once, so a bad
// method, header or placeholder exits 2 before any traffic), the order of targets and the
// names per-target results are kept under.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/run/run_plan.h"

namespace uringload::core {

absl::Status PlanTargets(const RunOptions& options, RunPlan& plan);

// What the planners of each kind of run share (plan_targets.cc, plan_grpc.cc).
// The body of every target without its own: --body (a template), or --body-file's bytes (a
// template only with --body-file-placeholders).
struct CommonBody {
  std::string text;
  std::string name;  // Names it in errors.
  bool is_template = true;
};
absl::StatusOr<std::optional<CommonBody>> ReadCommonBody(const RunOptions& options);
// `text` parsed; it must have the first target's scheme, host and port (range), which the
// first one sets: connections are pooled per address, and any connection may send any target.
absl::StatusOr<proto::Url> SharedConnectionUrl(const std::string& text, RunPlan& plan);
// A target sending `method` to `url` with -H's headers and keep-alive as asked; the caller
// adds its body and headers of its own.
TargetRequest NewTarget(const RunOptions& options, int line, std::string name, std::string method,
                        std::string url_text, const proto::Url& url);

}  // namespace uringload::core
