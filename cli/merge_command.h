// `uringload merge a.json b.json ...`: the JSON results of the shards of one run (`run
// --shard K/S --run-id ID --json ...`) added up into one exact result: the usual summary,
// `--json`, `--fail-if` (exit 3). Exit 4 when shards are missing, 2 for files that are not
// shards of one run.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace uringload::cli {

inline constexpr int kShardsMissing = 4;

struct MergeCommandOptions {
  std::vector<std::string> files;
  std::string json_path;
  std::vector<std::string> fail_if;
  bool quiet = false;
  bool allow_saturated = false;
};

CLI::App* AddMergeCommand(CLI::App& app, MergeCommandOptions& options);
int MergeCommand(const MergeCommandOptions& options);

}  // namespace uringload::cli
