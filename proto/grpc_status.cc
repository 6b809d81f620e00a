#include "proto/grpc_status.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace uringload::proto {
namespace {

constexpr std::array<std::string_view, kGrpcStatusCount> kNames = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

}  // namespace

std::string_view GrpcStatusName(int code) {
  return code >= 0 && code < kGrpcStatusCount ? kNames[code] : std::string_view();
}

std::optional<int> GrpcStatusByName(std::string_view name) {
  for (int code = 0; code < kGrpcStatusCount; ++code) {
    if (kNames[code] == name) return code;
  }
  return std::nullopt;
}

std::optional<int> ParseGrpcStatus(std::string_view value) {
  if (value.empty() || value.size() > 2) return std::nullopt;
  int code = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    code = code * 10 + (c - '0');
  }
  if (value.size() == 2 && value[0] == '0') return std::nullopt;  // "07" is not a code.
  return code < kGrpcStatusCount ? std::optional<int>(code) : std::nullopt;
}

void FormatGrpcTimeout(absl::Duration timeout, char (&out)[10], size_t* size) {
  constexpr int64_t kMaxDigits = 99'999'999;  // Eight digits.
  struct Unit {
    absl::Duration length;
    char name;
  };
  constexpr Unit kUnits[] = {{absl::Nanoseconds(1), 'n'},  {absl::Microseconds(1), 'u'},
                             {absl::Milliseconds(1), 'm'}, {absl::Seconds(1), 'S'},
                             {absl::Minutes(1), 'M'},      {absl::Hours(1), 'H'}};
  if (timeout < absl::ZeroDuration()) timeout = absl::ZeroDuration();
  if (timeout == absl::InfiniteDuration()) timeout = absl::Hours(kMaxDigits);
  for (const Unit& unit : kUnits) {
    absl::Duration rest;
    int64_t count = absl::IDivDuration(timeout, unit.length, &rest);
    if (rest > absl::ZeroDuration() && count < kMaxDigits + 1)
      ++count;  // Up: the server's deadline is never shorter.
    if (count <= kMaxDigits || unit.name == 'H') {
      count = std::min(count, kMaxDigits);  // 11,415 years (or infinite): no deadline at all.
      int written = snprintf(out, sizeof(out), "%lld%c", static_cast<long long>(count), unit.name);
      *size = static_cast<size_t>(written);  // At most 8 digits and the unit: it fits.
      return;
    }
  }
}

}  // namespace uringload::proto
