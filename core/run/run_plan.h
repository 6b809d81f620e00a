// RunPlan: everything a `uringload run` needs, validated once and immutable afterwards.
// RunOptions holds the raw command-line values; MakeRunPlan checks and resolves them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/plan_limits.h"
#include "net/address.h"
#include "proto/request_template.h"
#include "proto/url.h"

namespace uringload::core {

inline constexpr uint64_t kDefaultRequests = 1000;
// Documented maxima (README, --help). -n stays below 2^53 so every count in the JSON is an
// exact integer even for readers that parse numbers as doubles (JavaScript, jq).
inline constexpr int64_t kMaxRequests = 1'000'000'000'000'000;
inline constexpr int64_t kMaxConcurrency = 10'000'000;
inline constexpr int64_t kMaxConnecting = 65536;
// Timeouts and durations: far beyond any run, far below int64 nanoseconds overflowing.
inline constexpr absl::Duration kMaxTimeout = absl::Hours(24);
inline constexpr absl::Duration kMaxDuration = absl::Hours(24 * 365);

struct RunOptions {
  std::string url;
  std::optional<int64_t> requests;      // -n
  std::optional<std::string> duration;  // -d, absl duration syntax
  int64_t concurrency = 100;
  std::optional<int64_t> threads;
  std::string method = "GET";
  std::vector<std::string> headers;
  std::optional<std::string> body;
  std::optional<std::string> body_file;
  std::string timeout = "30s";
  std::string connect_timeout = "5s";
  std::string batch_window = "200us";
  bool no_keepalive = false;
  std::optional<std::string> source;  // --source list, range or CIDR.
  int64_t max_connecting = 1024;      // Connects in flight per worker (the ramp).
};

struct RunPlan {
  proto::Url url;
  std::vector<net::SocketAddress> targets;  // One per port of the URL's port range.
  std::vector<net::SocketAddress> sources;  // --source; empty: the kernel chooses.
  proto::RequestSpec request;
  std::optional<uint64_t> requests;  // Exact count, or none (duration only).
  std::optional<absl::Duration> duration;
  uint32_t concurrency = 100;            // Connections that will open: -c, at most -n.
  uint32_t requested_concurrency = 100;  // -c as given.
  uint32_t threads = 1;
  absl::Duration timeout = absl::Seconds(30);
  absl::Duration connect_timeout = absl::Seconds(5);
  // How long a worker may wait to collect completions into one batch (0: never waits).
  absl::Duration batch_window = absl::Microseconds(200);
  // Connects in flight per worker: a ramp, so SYN and accept queues never overflow.
  uint32_t max_connecting = 1024;

  // The request for target `index` (its own Host header when the URL names a port range).
  proto::RequestSpec RequestFor(size_t index) const;
};

// Validates options and resolves the host. Errors are one line naming the problem.
absl::StatusOr<RunPlan> MakeRunPlan(const RunOptions& options);

// Concurrency of worker `index` when `total` connections are spread over `workers`, and the
// global index of its first connection.
uint32_t ConnectionsForWorker(uint32_t total, uint32_t workers, uint32_t index);
uint32_t FirstConnectionOfWorker(uint32_t total, uint32_t workers, uint32_t index);

}  // namespace uringload::core
