// A run split over S processes (shards), on one machine or many (Slurm, Kubernetes): shard K
// of S runs its share of -n, -c and -R, and its requests carry fleet-wide indexes, so `{i}`
// stays unique across the fleet and `uringload merge` can add the shards' results exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace uringload::core {

inline constexpr int64_t kMaxShards = 100'000;

struct Shard {
  uint32_t index = 0;  // K, 0-based.
  uint32_t count = 1;  // S.
};

// "K/S" with 0 <= K < S <= kMaxShards.
absl::StatusOr<Shard> ParseShard(std::string_view text);

// `--shard auto`: Slurm's SLURM_PROCID and SLURM_NTASKS, or Kubernetes' JOB_COMPLETION_INDEX
// (an Indexed Job) with `shards` (--shards S). `env` returns a variable's value, if set.
using EnvironmentReader = std::function<std::optional<std::string>(const char* name)>;
absl::StatusOr<Shard> ShardFromEnvironment(std::optional<int64_t> shards,
                                           const EnvironmentReader& env);

// --start-at: Unix seconds (fractions allowed) or RFC 3339. It must be after `now` and at
// most 24 hours after it (a start days away is a typo, not a plan).
absl::StatusOr<absl::Time> ParseStartAt(std::string_view text, absl::Time now);

// Shard `shard`'s part of `total` split S ways: floor(total*(K+1)/S) - floor(total*K/S), so
// the parts differ by at most one and add up to `total` exactly; and the first item of it.
uint64_t ShareOf(uint64_t total, Shard shard);
uint64_t ShareBegin(uint64_t total, Shard shard);

}  // namespace uringload::core
