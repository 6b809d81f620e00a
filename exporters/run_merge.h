// Adds up the shards of one sharded run (`uringload merge`): counts, outcomes, causes, status
// codes and bytes summed; latency quantiles from the summed histogram buckets (exactly what
// one process would report: averaging the shards' p99s is not a p99); the duration from the
// earliest start to the latest end.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/run/engine.h"
#include "core/run/run_plan.h"
#include "exporters/run_json_reader.h"
#include "exporters/run_report.h"

namespace uringload::exporters {

// A merged run, owning what its RunReport (Report()) points at.
struct MergedRun {
  std::string target;
  std::string run_id;
  uint32_t shards = 0;
  std::optional<uint64_t> planned;
  uint32_t concurrency = 0;
  uint32_t threads = 0;
  std::string tls_version;
  std::string tls_cipher;
  core::RunPlan plan;  // The load shape only: targets, rate, pipeline, warmup.
  core::RunResult result;

  // Points into this MergedRun: call it where the MergedRun stays.
  RunReport Report();
};

// InvalidArgument when the files are not shards of one run (run ids, shard counts, targets,
// a shard given twice); NotFound naming the missing shards when the set is incomplete.
absl::StatusOr<MergedRun> MergeRunResults(std::vector<RunResultFile> files);

}  // namespace uringload::exporters
