// Reads a `uringload run --json` result back (for `uringload merge`): the counters, outcomes,
// causes, status codes, targets and the histograms themselves, so the shards of one run add
// up to exactly what one process would have reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/run/generator_check.h"
#include "core/run/shard.h"
#include "core/run/worker_stats.h"
#include "proto/event_stream_parser.h"

namespace uringload::exporters {

struct TargetResult {
  int line = 0;
  std::string method;
  std::string url;
};

// One result file, as written by RunResultToJson.
struct RunResultFile {
  std::string name;  // The file it came from, for messages.
  std::string target;
  std::string run_id;
  std::string machine;  // Empty for a merge.
  core::Shard shard;
  uint32_t merged_shards = 0;          // A merge's: how many shards it added up.
  std::optional<absl::Time> start_at;  // --start-at, the planned start.
  absl::Time started_at;
  absl::Time ended_at;
  bool interrupted = false;
  std::optional<uint64_t> planned;
  uint32_t concurrency = 0;
  uint32_t threads = 0;
  std::optional<double> rate;
  std::string arrival;  // "even", "poisson", "gamma:K"; "" when the result has none.
  uint32_t pipeline = 1;
  double warmup_seconds = 0;
  absl::Duration schedule_lag_bound = core::kDefaultScheduleLagBound;
  bool busy_poll = false;  // --busy-poll (false in results from before it was recorded).
  bool tls = false;
  std::string tls_version;  // Of the last handshake; stats.tls_version is left empty.
  std::string tls_cipher;
  std::vector<TargetResult> targets;
  std::vector<std::string> target_names;  // Of stats.by_target.
  bool flow = false;                      // A --flow run's (stats has its iterations).
  bool grpc = false;                      // A --grpc run's (stats has its grpc_status).
  // A --stream run's: its format (stats has its events).
  std::optional<proto::EventFormat> stream_format;
  std::optional<bool> llm_chat;  // A --llm run's: chat (true) or completions.
  core::RunStats stats;
  std::vector<uint64_t> ok_per_interval;  // Empty in results from before it was recorded.
  double interval_seconds = 1;
};

// Parses `text` (the contents of `name`); an error names the file and the field.
absl::StatusOr<RunResultFile> ReadRunResult(std::string_view text, const std::string& name);

}  // namespace uringload::exporters
