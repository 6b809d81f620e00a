// ArrivalSchedule: when request k of an open-model run is due, as an offset from the run's
// start. Computed from k alone (never by adding intervals), so a 10-minute run does not drift:
// after T seconds exactly ⌊R·T⌋+1 requests were due. With a ramp the rate rises linearly from
// 0 to R over D: due(t) = R·t²/(2D) during the ramp, R·(t − D/2) after it. Or, replaying a
// log, each request's own recorded offset.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace uringload::core {

class ArrivalSchedule {
 public:
  ArrivalSchedule(double rate, double ramp_seconds) : rate_(rate), ramp_(ramp_seconds) {}
  // --replay: request k is due at offsets[k] (non-decreasing); none after the last.
  explicit ArrivalSchedule(std::shared_ptr<const std::vector<int64_t>> offsets)
      : rate_(0), ramp_(0), offsets_(std::move(offsets)) {}

  int64_t OffsetNs(uint64_t k) const {
    if (offsets_ != nullptr) {
      return k < offsets_->size() ? (*offsets_)[k] : std::numeric_limits<int64_t>::max();
    }
    double n = static_cast<double>(k);
    double seconds =
        n < rate_ * ramp_ / 2 ? std::sqrt(2 * ramp_ * n / rate_) : n / rate_ + ramp_ / 2;
    return static_cast<int64_t>(std::llround(seconds * 1e9));
  }

  // How many requests are due at or before `offset_ns`: the inverse of OffsetNs, in closed
  // form, then set exact against OffsetNs's own rounding.
  uint64_t DueBy(int64_t offset_ns) const {
    if (offset_ns < 0) return 0;
    if (offsets_ != nullptr) {
      return std::upper_bound(offsets_->begin(), offsets_->end(), offset_ns) - offsets_->begin();
    }
    double t = offset_ns / 1e9;
    double n = t < ramp_ ? rate_ * t * t / (2 * ramp_) : rate_ * (t - ramp_ / 2);
    auto k = static_cast<uint64_t>(std::max(n, 0.0));
    while (k > 0 && OffsetNs(k - 1) > offset_ns) --k;
    while (OffsetNs(k) <= offset_ns) ++k;
    return k;
  }

 private:
  double rate_;
  double ramp_;
  std::shared_ptr<const std::vector<int64_t>> offsets_;
};

}  // namespace uringload::core
