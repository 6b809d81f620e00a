#include "cli/shard_flags.h"

#include <cstdlib>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/run/shard.h"
#include "net/base/status_macros.h"

namespace uringload::cli {
namespace {

// A run id goes into Prometheus labels and Pushgateway URLs: no character needs escaping.
bool ValidRunId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

std::string RandomRunId() {
  std::random_device random;
  uint64_t value = (uint64_t{random()} << 32) | random();
  return absl::StrFormat("%016x", value);
}

}  // namespace

void AddShardFlags(CLI::App* run, ShardFlags& flags) {
  run->add_option("--shard", flags.shard,
                  "Run shard K of S (K/S, from 0) of a run split over processes or machines, or "
                  "auto (Slurm's SLURM_PROCID/SLURM_NTASKS, Kubernetes' JOB_COMPLETION_INDEX)");
  run->add_option("--shards", flags.shards, "S for --shard auto on Kubernetes");
  run->add_option("--start-at", flags.start_at,
                  "Set up (resolve, rings, buffers), then start at this moment: Unix seconds or "
                  "RFC 3339, so shards on many machines start together (needs synced clocks)");
  run->add_flag("--preconnect", flags.preconnect,
                "With --start-at: open every connection while waiting, so the run begins with "
                "them established (the ramp happens before the start)");
  run->add_option("--run-id", flags.run_id,
                  "Names the run in the JSON and metrics; the same on every shard (default: "
                  "random)");
}

absl::StatusOr<std::string> ResolveShardFlags(const ShardFlags& flags, core::RunOptions& options) {
  if (flags.shards.has_value() && flags.shard != "auto") {
    return absl::InvalidArgumentError("--shards is for --shard auto (with JOB_COMPLETION_INDEX)");
  }
  if (flags.shard == "auto") {
    URINGLOAD_ASSIGN_OR_RETURN(
        core::Shard shard, core::ShardFromEnvironment(
                               flags.shards, [](const char* name) -> std::optional<std::string> {
                                 const char* value = std::getenv(name);
                                 if (value == nullptr) return std::nullopt;
                                 return std::string(value);
                               }));
    options.shard = absl::StrCat(shard.index, "/", shard.count);
  } else {
    options.shard = flags.shard;
  }
  options.start_at = flags.start_at;
  options.preconnect = flags.preconnect;
  if (!flags.run_id.has_value()) return RandomRunId();
  if (!ValidRunId(*flags.run_id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--run-id must be 1 to 64 letters, digits, '.', '_' or '-', got '", *flags.run_id, "'"));
  }
  return *flags.run_id;
}

}  // namespace uringload::cli
