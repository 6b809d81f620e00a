// ResponseChecks: what a complete response must be to end `ok` (--expect-status,
// --expect-body-contains); one that misses ends `check_failed`, with the expectation it
// missed as its cause. Judged once per response from what the parser kept while reading it
// (its status, whether the body contained the text): nothing is allocated or copied.
#pragma once

#include <bitset>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/expected_statuses.h"
#include "core/outcome.h"
#include "proto/body_matcher.h"

namespace uringload::core {

struct ResponseChecks {
  std::optional<StatusSet> statuses;               // None: any status.
  std::shared_ptr<const proto::BodyMatcher> body;  // None: any body.
  uint64_t events = 0;                             // --stream: at least this many events (0: any).

  bool any() const { return statuses.has_value() || body != nullptr || events > 0; }
  // The expectation a response with `status` and `events` missed (its status first), or none.
  std::optional<CheckFailure> Judge(int status, bool body_found, uint64_t event_count = 0) const {
    if (statuses.has_value() && (status < 0 || status >= 1000 || !(*statuses)[status])) {
      return CheckFailure::kStatus;
    }
    if (body != nullptr && !body_found) return CheckFailure::kBodyContains;
    if (event_count < events) return CheckFailure::kEvents;
    return std::nullopt;
  }
};

// The checks --expect-status, --expect-body-contains and --expect-events ask for (all
// optional; events only where bodies are read as streams of events).
absl::StatusOr<ResponseChecks> MakeResponseChecks(const std::optional<std::string>& status,
                                                  const std::optional<std::string>& body_text,
                                                  std::optional<int64_t> events = std::nullopt,
                                                  bool streams = false);

}  // namespace uringload::core
