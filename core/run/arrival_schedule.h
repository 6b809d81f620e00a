// ArrivalSchedule: when request k of an open-model run is due, as an offset from the run's
// start. Evenly spaced, it is computed from k alone (never by adding intervals), so a 10-minute
// run does not drift: after T seconds exactly ⌊R·T⌋+1 requests were due. With a ramp the rate
// rises linearly from 0 to R over D: due(t) = R·t²/(2D) during the ramp, R·(t − D/2) after it.
// Or, replaying a log, each request's own recorded offset.
//
// Random arrivals (--arrival poisson, gamma:K) are the same curve walked in random steps:
// request k sits at u_k = g_0 + … + g_(k−1) on the even schedule's count axis (u_0 = 0), the
// gaps g drawn from a seeded gamma distribution of mean 1 and shape K (K = 1: exponential,
// a Poisson process; K < 1 burstier, K > 1 more regular, as vLLM's --burstiness), so the mean
// rate and the ramp are those of the even schedule. The gaps are drawn in order; each worker
// draws the whole sequence and takes its own indexes, so a seed gives the same arrival times
// whatever the thread count. Queries move forward (a worker's next index, the clock); one
// further back starts the draw again.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "core/run/arrival_process.h"

namespace uringload::core {

class ArrivalSchedule {
 public:
  ArrivalSchedule(double rate, double ramp_seconds, ArrivalProcess process = {})
      : rate_(rate), ramp_(ramp_seconds) {
    if (process.random()) {
      offset_cursor_ = GapCursor(process);
      due_cursor_ = GapCursor(process);
    }
  }
  // --replay: request k is due at offsets[k] (non-decreasing); none after the last.
  explicit ArrivalSchedule(std::shared_ptr<const std::vector<int64_t>> offsets)
      : rate_(0), ramp_(0), offsets_(std::move(offsets)) {}

  int64_t OffsetNs(uint64_t k) {
    if (offsets_ != nullptr) {
      return k < offsets_->size() ? (*offsets_)[k] : std::numeric_limits<int64_t>::max();
    }
    if (offset_cursor_.has_value()) return OffsetAt(offset_cursor_->At(k));
    return OffsetAt(static_cast<double>(k));
  }

  // How many requests are due at or before `offset_ns`: the inverse of OffsetNs, in closed
  // form, then set exact against OffsetNs's own rounding (random gaps: by walking forward).
  uint64_t DueBy(int64_t offset_ns) {
    if (offset_ns < 0) return 0;
    if (offsets_ != nullptr) {
      return std::upper_bound(offsets_->begin(), offsets_->end(), offset_ns) - offsets_->begin();
    }
    if (due_cursor_.has_value()) {
      if (OffsetAt(due_cursor_->position()) > offset_ns) due_cursor_->Restart();
      while (OffsetAt(due_cursor_->position()) <= offset_ns) due_cursor_->Next();
      return due_cursor_->index();
    }
    double t = offset_ns / 1e9;
    double n = t < ramp_ ? rate_ * t * t / (2 * ramp_) : rate_ * (t - ramp_ / 2);
    auto k = static_cast<uint64_t>(std::max(n, 0.0));
    while (k > 0 && OffsetNs(k - 1) > offset_ns) --k;
    while (OffsetNs(k) <= offset_ns) ++k;
    return k;
  }

 private:
  // The seeded gaps, drawn in order: request index() sits at position() on the count axis.
  class GapCursor {
   public:
    explicit GapCursor(const ArrivalProcess& process)
        : seed_(process.seed),
          poisson_(process.kind == ArrivalProcess::Kind::kPoisson),
          random_(seed_),
          gamma_(process.shape, 1 / process.shape) {}
    uint64_t index() const { return index_; }
    double position() const { return position_; }
    void Next() {
      position_ += poisson_ ? exponential_(random_) : gamma_(random_);
      ++index_;
    }
    void Restart() { *this = GapCursor(seed_, poisson_, gamma_.param()); }
    double At(uint64_t k) {
      if (k < index_) Restart();
      while (index_ < k) Next();
      return position_;
    }

   private:
    GapCursor(uint64_t seed, bool poisson, std::gamma_distribution<double>::param_type shape)
        : seed_(seed), poisson_(poisson), random_(seed), gamma_(shape) {}
    uint64_t seed_;
    bool poisson_;
    std::mt19937_64 random_;
    std::exponential_distribution<double> exponential_{1.0};
    std::gamma_distribution<double> gamma_;
    uint64_t index_ = 0;
    double position_ = 0;
  };

  // The offset of count-axis position `n` (request n of the even schedule).
  int64_t OffsetAt(double n) const {
    double seconds =
        n < rate_ * ramp_ / 2 ? std::sqrt(2 * ramp_ * n / rate_) : n / rate_ + ramp_ / 2;
    return static_cast<int64_t>(std::llround(std::min(seconds * 1e9, 9e18)));
  }

  double rate_;
  double ramp_;
  std::shared_ptr<const std::vector<int64_t>> offsets_;
  std::optional<GapCursor> offset_cursor_;  // Random arrivals: the worker's next index.
  std::optional<GapCursor> due_cursor_;     // And the clock's (DueBy).
};

}  // namespace uringload::core
