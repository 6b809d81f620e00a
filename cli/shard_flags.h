// The flags of a sharded run (`--shard K/S|auto`, `--shards S`, `--run-id ID`, `--start-at`,
// `--preconnect`): one run split over processes on one machine or many, started together, whose
// JSON results `uringload merge` adds up.
#pragma once

#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "core/run/run_plan.h"

namespace uringload::cli {

struct ShardFlags {
  std::optional<std::string> shard;  // K/S or auto.
  std::optional<int64_t> shards;     // With auto on Kubernetes (JOB_COMPLETION_INDEX).
  std::optional<std::string> run_id;
  std::optional<std::string> start_at;
  bool preconnect = false;
};

void AddShardFlags(CLI::App* run, ShardFlags& flags);

// Resolves `auto` from the environment into `options.shard` (K/S), passes --start-at and
// --preconnect on, and returns the run id:
// --run-id (letters, digits, '.', '_', '-'; at most 64), or a random one.
absl::StatusOr<std::string> ResolveShardFlags(const ShardFlags& flags, core::RunOptions& options);

}  // namespace uringload::cli
