// ReplayFile: the requests of an access log, for `run --replay`, each at its offset from the
// first one's time: the combined log format (nginx's and Apache's default, an optional
// fraction of a second after the seconds) or NDJSON with a `timestamp` (RFC 3339, or seconds
// since the epoch as a number), `method` (default GET) and `path` (or an absolute `url`).
// Lines are sorted by time (a log's lines may be written out of order); every error names
// FILE:LINE.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

struct ReplayLine {
  int line = 0;           // In the file, 1-based.
  int64_t offset_ns = 0;  // From the earliest line's time.
  std::string method;
  std::string target;  // Path and query.
};

absl::StatusOr<std::vector<ReplayLine>> ParseReplayFile(std::string_view text,
                                                        std::string_view path);

// "2x", "0.5x", "1x" (or without the x): how much faster than recorded (above 0).
absl::StatusOr<double> ParseReplaySpeed(std::string_view text);

}  // namespace uringload::core
