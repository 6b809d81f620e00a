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

// Why a response was a parse_error. The error details keep it where other failures keep their
// errno (a parse error has none), so the summary and the JSON can say what was wrong.
enum class ParseFailure : int { kUnknown = 0, kMalformed, kHeadersTooLarge, kTruncated };
inline constexpr const char* ParseFailureText(int code) {
  switch (static_cast<ParseFailure>(code)) {
    case ParseFailure::kMalformed:
      return "malformed response";
    case ParseFailure::kHeadersTooLarge:
      return "header block over 65536 bytes";
    case ParseFailure::kTruncated:
      return "response cut short by a close";
    default:
      return "malformed or truncated response";
  }
}

}  // namespace uringload::core
