// WakeMargin: how long before a due send a worker stops sleeping and polls instead. A timed
// wait ends late by the machine's wake-up latency (tens of microseconds in a VM, a few on bare
// metal): slept to the due time, every open-model send would go out that late and count it as
// server latency. The margin is the largest overshoot of the last kWindow timed wakes (capped:
// past that the lag is reported rather than paid for in CPU), so a worker polls for about that
// long before each due send and sleeps the rest. Polling takes a CPU from whatever shares it
// (a server on the same machine): so the margin is also held to a quarter of the time between
// a worker's sends. Measurements: docs/performance.md.
#pragma once

#include <algorithm>
#include <cstdint>

namespace uringload::core {

class WakeMargin {
 public:
  static constexpr uint32_t kWindow = 16;
  static constexpr int64_t kMaxNs = 250'000;

  WakeMargin() = default;
  // `send_interval_ns`: the time between this worker's due sends at the full rate.
  explicit WakeMargin(int64_t send_interval_ns)
      : cap_ns_(std::clamp<int64_t>(send_interval_ns / 4, 0, kMaxNs)) {}

  int64_t ns() const { return margin_ns_; }
  // A timed wait asked to end at some moment and ended `late_ns` after it.
  void Observe(int64_t late_ns) {
    window_max_ns_ = std::max(window_max_ns_, late_ns);
    if (++seen_ < kWindow) return;
    margin_ns_ = std::min(window_max_ns_, cap_ns_);
    window_max_ns_ = 0;
    seen_ = 0;
  }

 private:
  int64_t cap_ns_ = kMaxNs;
  int64_t margin_ns_ = 0;  // Learnt from the first window on.
  int64_t window_max_ns_ = 0;
  uint32_t seen_ = 0;
};

}  // namespace uringload::core
