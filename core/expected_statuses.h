// The statuses a response is expected to have (--expect-status, a flow step's expect:
// status): a set of the 1,000 codes llhttp reads, parsed from "200", "200,201,204", "2xx" or
// "2xx,404". Used by a run's response checks and by flows alike.
#pragma once

#include <bitset>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::core {

using StatusSet = std::bitset<1000>;

// Codes of three digits and classes; anything else is an error naming the bad item.
absl::StatusOr<StatusSet> ParseExpectedStatuses(std::string_view text);

}  // namespace uringload::core
