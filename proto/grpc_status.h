// gRPC's status codes (grpc/doc/statuscodes.md) by number and name, the `grpc-status` trailer
// read without allocating, and the `grpc-timeout` header a deadline becomes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace uringload::proto {

// The seventeen codes gRPC defines, 0 (OK) to 16 (UNAUTHENTICATED).
inline constexpr int kGrpcStatusCount = 17;

// "OK", "CANCELLED", ... "UNAUTHENTICATED"; "" for a number outside 0-16.
std::string_view GrpcStatusName(int code);

// The code of a name as GrpcStatusName spells it (case-sensitive), or nullopt.
std::optional<int> GrpcStatusByName(std::string_view name);

// A `grpc-status` value: ASCII decimal digits of a code 0-16, nothing else; nullopt otherwise
// (a server's other numbers are malformed, not UNKNOWN: the caller counts them as parse errors).
std::optional<int> ParseGrpcStatus(std::string_view value);

// The `grpc-timeout` value for `timeout`: at most eight digits and a unit (gRPC's wire format),
// the finest unit that holds it without rounding up past eight digits ("250m", "3S", "100u").
// Rounds up, so the server's deadline is never shorter than the client's.
void FormatGrpcTimeout(absl::Duration timeout, char (&out)[10], size_t* size);

}  // namespace uringload::proto
