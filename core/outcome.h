// Outcome: the one way each started request ends. Every started request gets exactly one.
#pragma once

#include <array>
#include <cstddef>

namespace uringload::core {

enum class Outcome : size_t {
  kOk = 0,        // A complete response, any status code.
  kTimeout,       // No complete response within --timeout.
  kConnectError,  // The connection for it could not be opened (refused, timed out, no port).
  kReset,         // The connection closed or reset before any byte of the response.
  kParseError,    // Malformed or truncated response.
};
inline constexpr size_t kOutcomeCount = 5;

// Plain C strings: they go to both std:: and (Debian's own) absl::string_view APIs.
inline constexpr std::array<const char*, kOutcomeCount> kOutcomeNames = {
    "ok", "timeout", "connect_error", "reset", "parse_error"};

inline constexpr const char* OutcomeName(Outcome o) {
  return kOutcomeNames[static_cast<size_t>(o)];
}

}  // namespace uringload::core
