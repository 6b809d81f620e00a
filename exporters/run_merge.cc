#include "exporters/run_merge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/status_macros.h"

namespace uringload::exporters {
namespace {

absl::Status Check(const RunResultFile& first, const RunResultFile& file) {
  if (file.run_id != first.run_id) {
    return absl::InvalidArgumentError(absl::StrCat(file.name, " is run '", file.run_id, "', ",
                                                   first.name, " is run '", first.run_id,
                                                   "': not shards of one run"));
  }
  if (file.shard.count != first.shard.count) {
    return absl::InvalidArgumentError(absl::StrCat(file.name, " is a shard of ", file.shard.count,
                                                   ", ", first.name, " a shard of ",
                                                   first.shard.count));
  }
  bool same_targets = file.targets.size() == first.targets.size();
  for (size_t t = 0; same_targets && t < file.targets.size(); ++t) {
    same_targets = file.targets[t].url == first.targets[t].url &&
                   file.targets[t].method == first.targets[t].method;
  }
  if (file.start_at != first.start_at) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.name, " and ", first.name, " have different --start-at times"));
  }
  same_targets = same_targets && file.target_names == first.target_names;
  if (!same_targets || file.pipeline != first.pipeline ||
      file.warmup_seconds != first.warmup_seconds ||
      file.rate.has_value() != first.rate.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(file.name, " and ", first.name,
                                                   " differ in their targets, -p, -R or --warmup"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MergedRun> MergeRunResults(std::vector<RunResultFile> files) {
  if (files.empty()) return absl::InvalidArgumentError("merge: no result files");
  const RunResultFile& first = files[0];
  std::vector<const RunResultFile*> by_shard(first.shard.count, nullptr);
  for (const RunResultFile& file : files) {
    URINGLOAD_RETURN_IF_ERROR(Check(first, file));
    const RunResultFile*& slot = by_shard[file.shard.index];
    if (slot != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(file.name, " and ", slot->name, " are both shard ", file.shard.index));
    }
    slot = &file;
  }
  std::vector<uint32_t> missing;
  for (uint32_t k = 0; k < by_shard.size(); ++k) {
    if (by_shard[k] == nullptr) missing.push_back(k);
  }
  if (!missing.empty()) {
    return absl::NotFoundError(
        absl::StrCat("run '", first.run_id, "': shard", missing.size() > 1 ? "s " : " ",
                     absl::StrJoin(missing, ", "), " of ", first.shard.count, " missing"));
  }
  MergedRun merged;
  merged.target = first.target;
  merged.run_id = first.run_id;
  merged.shards = first.shard.count;
  merged.result.started_at = first.started_at;
  merged.result.ended_at = first.ended_at;
  uint64_t planned = 0;
  bool all_planned = true;
  double rate = 0;
  for (const RunResultFile& file : files) {
    merged.result.stats.Merge(file.stats);
    merged.result.started_at = std::min(merged.result.started_at, file.started_at);
    merged.result.ended_at = std::max(merged.result.ended_at, file.ended_at);
    merged.result.interrupted = merged.result.interrupted || file.interrupted;
    merged.concurrency += file.concurrency;
    merged.threads += file.threads;
    all_planned = all_planned && file.planned.has_value();
    planned += file.planned.value_or(0);
    rate += file.rate.value_or(0);
    if (file.stats.tls_handshakes > 0) {
      merged.tls_version = file.tls_version;
      merged.tls_cipher = file.tls_cipher;
    }
  }
  // Ok responses per interval: the shards' added up interval by interval (they ran together),
  // when all have the same interval; as long as the shortest.
  merged.result.interval_seconds = first.interval_seconds;
  merged.result.ok_per_interval = first.ok_per_interval;
  for (const RunResultFile& file : files) {
    if (&file == &first) continue;
    std::vector<uint64_t>& sum = merged.result.ok_per_interval;
    if (file.interval_seconds != first.interval_seconds) sum.clear();
    sum.resize(std::min(sum.size(), file.ok_per_interval.size()));
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += file.ok_per_interval[i];
  }
  if (all_planned) merged.planned = planned;
  merged.result.duration = merged.result.ended_at - merged.result.started_at;
  for (const TargetResult& t : first.targets) {
    merged.plan.targets.push_back(
        {.line = t.line, .method = t.method, .url = t.url, .parsed = {}, .spec = {}});
  }
  merged.plan.target_names = first.target_names;
  // A flow's steps are its targets; the merge reports its iterations (no program is needed).
  if (first.flow) merged.plan.flow = std::make_shared<const core::FlowProgram>();
  merged.plan.grpc = first.grpc;
  if (first.llm_chat.has_value())
    merged.plan.llm = core::LlmPlan{.chat = *first.llm_chat, .goodput = {}};
  if (first.stream_format.has_value()) {
    merged.plan.streams = true;
    merged.plan.stream = *first.stream_format;
  }
  if (first.rate.has_value()) merged.plan.rate = rate;
  if (absl::StatusOr<core::ArrivalProcess> arrival = core::ParseArrival(first.arrival);
      arrival.ok()) {
    merged.plan.arrival = *arrival;  // The shards' arrivals (their draws were their own).
  }
  merged.plan.url.tls = first.tls;
  merged.plan.start_at = first.start_at;  // start_skew_seconds: the latest shard's.
  merged.plan.pipeline = first.pipeline;
  merged.plan.schedule_lag_bound = first.schedule_lag_bound;
  merged.plan.busy_poll = first.busy_poll;
  merged.plan.warmup = absl::Seconds(first.warmup_seconds);
  merged.plan.requests = merged.planned;
  return merged;
}

RunReport MergedRun::Report() {
  // RunStats names the TLS version by pointer (OpenSSL's static strings in a run).
  result.stats.tls_version = tls_version.c_str();
  result.stats.tls_cipher = tls_cipher.c_str();
  return {.target = target,
          .run_id = run_id,
          .shard = {},
          .merged_shards = shards,
          .planned = planned,
          .concurrency = concurrency,
          .requested_concurrency = concurrency,
          .threads = threads,
          .result = &result,
          .plan = &plan};
}

}  // namespace uringload::exporters
