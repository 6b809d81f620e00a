#include "core/run/shard.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/absl_view.h"

namespace uringload::core {
namespace {

absl::Status Invalid(const std::string& what) { return absl::InvalidArgumentError(what); }

absl::StatusOr<Shard> MakeShard(int64_t index, int64_t count, const char* source) {
  if (count < 1 || count > kMaxShards || index < 0 || index >= count) {
    return Invalid(absl::StrCat(source, ": shard ", index, " of ", count,
                                " is not one of 0..S-1 with 1 <= S <= ", kMaxShards));
  }
  return Shard{.index = static_cast<uint32_t>(index), .count = static_cast<uint32_t>(count)};
}

std::optional<int64_t> Number(const std::optional<std::string>& text) {
  int64_t value = 0;
  if (!text.has_value() || !absl::SimpleAtoi(*text, &value)) return std::nullopt;
  return value;
}

}  // namespace

absl::StatusOr<Shard> ParseShard(std::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(AbslView(text), '/');
  int64_t index = 0;
  int64_t count = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &index) ||
      !absl::SimpleAtoi(parts[1], &count)) {
    return Invalid(absl::StrCat("--shard must be K/S (shard K of S, from 0) or auto, got '",
                                std::string(text), "'"));
  }
  return MakeShard(index, count, "--shard");
}

absl::StatusOr<Shard> ShardFromEnvironment(std::optional<int64_t> shards,
                                           const EnvironmentReader& env) {
  std::optional<std::string> procid = env("SLURM_PROCID");
  std::optional<std::string> ntasks = env("SLURM_NTASKS");
  std::optional<std::string> job_index = env("JOB_COMPLETION_INDEX");
  if (procid.has_value() || ntasks.has_value()) {
    std::optional<int64_t> k = Number(procid);
    std::optional<int64_t> s = Number(ntasks);
    if (!k || !s) {
      return Invalid(absl::StrCat("--shard auto: SLURM_PROCID '", procid.value_or(""),
                                  "' and SLURM_NTASKS '", ntasks.value_or(""),
                                  "' must both be numbers"));
    }
    if (shards.has_value() && *shards != *s) {
      return Invalid(
          absl::StrCat("--shard auto: --shards ", *shards, " disagrees with SLURM_NTASKS ", *s));
    }
    return MakeShard(*k, *s, "--shard auto (Slurm)");
  }
  if (job_index.has_value()) {
    std::optional<int64_t> k = Number(job_index);
    if (!k) {
      return Invalid(
          absl::StrCat("--shard auto: JOB_COMPLETION_INDEX '", *job_index, "' is not a number"));
    }
    if (!shards.has_value()) {
      return Invalid("--shard auto on Kubernetes (JOB_COMPLETION_INDEX) needs --shards S");
    }
    return MakeShard(*k, *shards, "--shard auto (Kubernetes)");
  }
  return Invalid(
      "--shard auto: neither SLURM_PROCID/SLURM_NTASKS (srun) nor JOB_COMPLETION_INDEX (a "
      "Kubernetes Indexed Job) is set; use --shard K/S");
}

absl::StatusOr<absl::Time> ParseStartAt(std::string_view text, absl::Time now) {
  std::string value(text);
  absl::Time at;
  double seconds = 0;
  std::string error;
  if (absl::SimpleAtod(value, &seconds) && std::isfinite(seconds) && seconds > 0) {
    at = absl::FromUnixNanos(static_cast<int64_t>(seconds * 1e9));
  } else if (!absl::ParseTime(absl::RFC3339_full, value, &at, &error)) {
    return Invalid(
        absl::StrCat("--start-at must be Unix seconds or RFC 3339 (2026-12-01T10:00:00Z), "
                     "got '",
                     value, "'"));
  }
  if (at <= now) {
    return Invalid(absl::StrCat("--start-at ", value, " has already passed (now ",
                                absl::FormatTime(absl::RFC3339_full, now, absl::UTCTimeZone()),
                                ")"));
  }
  if (at - now > absl::Hours(24)) {
    return Invalid(absl::StrCat("--start-at ", value, " is more than 24 hours away"));
  }
  return at;
}

uint64_t ShareBegin(uint64_t total, Shard shard) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * shard.index / shard.count);
}

uint64_t ShareOf(uint64_t total, Shard shard) {
  Shard next{.index = shard.index + 1, .count = shard.count};
  return ShareBegin(total, next) - ShareBegin(total, shard);
}

}  // namespace uringload::core
