// ArrivalProcess: how the open model's requests arrive (--arrival): evenly, or with random gaps
// of the schedule's mean (core/run/arrival_schedule.h draws them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::core {

// How requests arrive in the open model: evenly, or with random gaps (a gamma distribution of
// shape `shape`; poisson is shape 1).
struct ArrivalProcess {
  enum class Kind : uint8_t { kEven, kPoisson, kGamma };
  Kind kind = Kind::kEven;
  double shape = 1;
  uint64_t seed = 1;
  bool random() const { return kind != Kind::kEven; }
};

// --arrival's value: even, poisson or gamma:K (K from kMinGammaShape to kMaxGammaShape); and
// back, as the JSON result and the summary name it.
inline constexpr double kMinGammaShape = 0.01;
inline constexpr double kMaxGammaShape = 1000;
absl::StatusOr<ArrivalProcess> ParseArrival(std::string_view text);
std::string ArrivalName(const ArrivalProcess& arrival);

}  // namespace uringload::core
