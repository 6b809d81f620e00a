// ArrivalSchedule: when request k of an open-model run is due, as an offset from the run's
// start. Computed from k alone (never by adding intervals), so a 10-minute run does not drift:
// after T seconds exactly ⌊R·T⌋+1 requests were due. With a ramp the rate rises linearly from
// 0 to R over D: due(t) = R·t²/(2D) during the ramp, R·(t − D/2) after it.
#pragma once

#include <cmath>
#include <cstdint>

namespace uringload::core {

class ArrivalSchedule {
 public:
  ArrivalSchedule(double rate, double ramp_seconds) : rate_(rate), ramp_(ramp_seconds) {}

  int64_t OffsetNs(uint64_t k) const {
    double n = static_cast<double>(k);
    double seconds =
        n < rate_ * ramp_ / 2 ? std::sqrt(2 * ramp_ * n / rate_) : n / rate_ + ramp_ / 2;
    return static_cast<int64_t>(std::llround(seconds * 1e9));
  }

 private:
  double rate_;
  double ramp_;
};

}  // namespace uringload::core
